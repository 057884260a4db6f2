package caldav_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/koredyne/schedule/caldav"
	"github.com/koredyne/schedule/engine"
	"github.com/koredyne/schedule/models"
	"github.com/koredyne/schedule/models/modelstest"
)

// TestCarriedRenderingsAreNeverStale writes at random and, after each
// write, compares every answer of a long-lived gateway, whose renderings
// carry over the dates a write left alone, byte for byte with the answer of
// a fresh gateway on a fresh store that renders everything afresh.
func TestCarriedRenderingsAreNeverStale(t *testing.T) {
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 7))
	d := modelstest.SQLite(t)
	g := newGateway(t, d, "harbor", engine.Gym, 2, 6)
	ctx := context.Background()
	discard := slog.New(slog.NewTextHandler(io.Discard, nil))

	snapshot := func() *models.Snapshot {
		sn, err := g.store.Snapshot(ctx, g.biz.ID, -1)
		if err != nil {
			t.Fatal(err)
		}
		return sn
	}
	sn := snapshot()
	today := engine.DateOf(now)
	cals := []string{"all", models.CalendarOf("staff", sn.State.Staff[0].ID), models.CalendarOf("room", sn.State.Rooms[1].ID)}
	query := func(from, to engine.Date) string {
		return fmt.Sprintf(`<?xml version="1.0" encoding="utf-8"?>
<C:calendar-query xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav">
 <D:prop><D:getetag/><D:getlastmodified/><C:calendar-data/></D:prop>
 <C:filter><C:comp-filter name="VCALENDAR"><C:comp-filter name="VEVENT">
  <C:time-range start="%s" end="%s"/>
 </C:comp-filter></C:comp-filter></C:filter>
</C:calendar-query>`, from.At(0, time.UTC).Format("20060102T150405Z"), to.At(0, time.UTC).Format("20060102T150405Z"))
	}
	type request struct{ method, path, body, depth string }
	requests := func(sn *models.Snapshot) []request {
		var out []request
		for _, c := range cals {
			base := "/caldav/harbor/calendars/" + c + "/"
			out = append(out,
				request{"GET", base, "", ""},
				request{"PROPFIND", base, `<D:propfind xmlns:D="DAV:"><D:prop><D:getetag/><D:getctag xmlns:D="http://calendarserver.org/ns/"/></D:prop></D:propfind>`, "1"},
				request{"REPORT", base, query(today.AddDays(-30), today.AddDays(30)), "1"},
				request{"REPORT", base, query(today.AddDays(10), today.AddDays(17)), "1"},
			)
		}
		// A few events by name, as a client that fetches one at a time.
		for i := 0; i < 6; i++ {
			day := sn.Timetable.Day(today.AddDays(rng.IntN(40) - 10))
			if len(day) > 0 {
				s := day[rng.IntN(len(day))]
				out = append(out, request{"GET", "/caldav/harbor/calendars/all/" + strings.ReplaceAll(s.Key(), "/", "-") + ".ics", "", ""})
			}
		}
		return out
	}
	serve := func(h http.Handler, r request, gzip bool) (int, http.Header, string) {
		req := httptest.NewRequest(r.method, r.path, strings.NewReader(r.body))
		req.SetBasicAuth("harbor", g.token)
		if r.depth != "" {
			req.Header.Set("Depth", r.depth)
		}
		if gzip {
			req.Header.Set("Accept-Encoding", "gzip")
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		body := w.Body.Bytes()
		if w.Header().Get("Content-Encoding") == "gzip" {
			body = gunzip(t, body)
		}
		return w.Code, w.Header(), string(body)
	}

	writes := 0
	for step := 0; step < 40; step++ {
		// The long-lived gateway renders this revision first, so that the
		// next one has something to carry.
		for _, r := range requests(snapshot()) {
			serve(g.h, r, step%2 == 0)
		}
		what, err := randomWrite(rng, g.store, g.biz.ID, snapshot(), today)
		if err != nil {
			t.Logf("step %d: %s refused: %v", step, what, err)
			continue
		}
		writes++
		sn := snapshot()
		fresh := caldav.NewHandler(models.NewStore(d.DB, func() time.Time { return now }), discard)
		fresh.Back, fresh.Ahead = g.h.Back, g.h.Ahead
		for _, r := range requests(sn) {
			// Twice gzipped: the second answer may be one kept.
			for _, gzip := range []bool{false, true, true} {
				code, header, body := serve(g.h, r, gzip)
				wantCode, wantHeader, want := serve(fresh, r, gzip)
				if code != wantCode || body != want || header.Get("ETag") != wantHeader.Get("ETag") || header.Get("Content-Encoding") != wantHeader.Get("Content-Encoding") {
					t.Fatalf("step %d, after %s (revision %d): %s %s (gzip %v): got %d %s, want %d %s\n%s",
						step, what, sn.Business.Revision, r.method, r.path, gzip, code, header.Get("ETag"), wantCode, wantHeader.Get("ETag"), diffLines(body, want))
				}
			}
		}
	}
	if writes < 20 {
		t.Fatalf("only %d of 40 writes committed", writes)
	}
}

// randomWrite makes one write of a kind chosen at random: dated ones (a
// day change, a one-off, a closure) that change a few dates, rules (a
// rename) that change every date, and ones that change no session (a
// plan's price).
func randomWrite(rng *rand.Rand, store *models.Store, business int64, sn *models.Snapshot, today engine.Date) (string, error) {
	date := today.AddDays(rng.IntN(70) - 21)
	var series []engine.Session
	for _, s := range sn.Timetable.Day(date) {
		if !s.IsOneOff() {
			series = append(series, s)
		}
	}
	var what string
	var edit func(e *models.Edit)
	switch k := rng.IntN(9); {
	case k < 2 && len(series) > 0:
		s := series[rng.IntN(len(series))]
		what = "cancelling " + s.Key()
		edit = func(e *models.Edit) {
			e.State.Changes = slices.DeleteFunc(e.State.Changes, func(c engine.DayChange) bool { return c.Ref == s.Ref() })
			e.State.Changes = append(e.State.Changes, engine.DayChange{Ref: s.Ref(), Cancelled: true, Note: "storm"})
		}
	case k < 4 && len(series) > 0:
		s := series[rng.IntN(len(series))]
		to := date.AddDays(rng.IntN(5) + 1)
		what = "moving " + s.Key() + " to " + to.String()
		edit = func(e *models.Edit) {
			e.State.Changes = slices.DeleteFunc(e.State.Changes, func(c engine.DayChange) bool { return c.Ref == s.Ref() })
			start, end := engine.MustTime("23:00"), engine.MustTime("23:45")
			e.State.Changes = append(e.State.Changes, engine.DayChange{Ref: s.Ref(), Date: to, Start: &start, End: &end})
		}
	case k < 5 && len(sn.State.Changes) > 0:
		c := sn.State.Changes[rng.IntN(len(sn.State.Changes))]
		what = "restoring " + c.Ref.Date.String()
		edit = func(e *models.Edit) {
			e.State.Changes = slices.DeleteFunc(e.State.Changes, func(d engine.DayChange) bool { return d.Ref == c.Ref })
		}
	case k < 6:
		class := sn.State.Classes[rng.IntN(len(sn.State.Classes))]
		room := sn.State.Rooms[rng.IntN(len(sn.State.Rooms))]
		what = "a one-off on " + date.String()
		edit = func(e *models.Edit) {
			e.State.OneOffs = append(e.State.OneOffs, engine.OneOff{ID: e.NewID(), ClassID: class.ID, RoomID: room.ID, Date: date,
				Start: engine.MustTime(fmt.Sprintf("05:%02d", rng.IntN(4)*10)), End: engine.MustTime("05:50"), Label: "Extra"})
		}
	case k < 7:
		what = "a closure from " + date.String()
		room := sn.State.Rooms[rng.IntN(len(sn.State.Rooms))]
		edit = func(e *models.Edit) {
			e.State.Closures = slices.DeleteFunc(e.State.Closures, func(c engine.Closure) bool { return c.Reason == "Works" })
			e.State.Closures = append(e.State.Closures, engine.Closure{ID: e.NewID(), From: date, To: date.AddDays(rng.IntN(3)), RoomIDs: []int64{room.ID}, Reason: "Works"})
		}
	case k < 8:
		room := sn.State.Rooms[rng.IntN(len(sn.State.Rooms))]
		what = "renaming " + room.Name
		edit = func(e *models.Edit) {
			for i := range e.State.Rooms {
				if e.State.Rooms[i].ID == room.ID {
					e.State.Rooms[i].Name = fmt.Sprintf("Room %d", rng.IntN(1000))
				}
			}
		}
	default:
		what = "a plan's price"
		edit = func(e *models.Edit) {
			if len(e.State.Plans) > 0 {
				e.State.Plans[0].Price += 1
			}
		}
	}
	_, err := store.Write(context.Background(), business, false, func(e *models.Edit) error { edit(e); return nil })
	return what, err
}

// units records the work a gateway reports.
type units struct {
	mu   sync.Mutex
	work float64
}

func (u *units) Checked(ctx context.Context, good bool) {}

func (u *units) Work(ctx context.Context, n float64) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.work += n
}

// take returns the work reported since the last take.
func (u *units) take() float64 {
	u.mu.Lock()
	defer u.mu.Unlock()
	w := u.work
	u.work = 0
	return w
}

// TestKeptAnswersCountTheirWork asks the same month twice, gzipped: the
// second answer is the kept one, the same bytes, and costs the client the
// same units of the rate limit as the first: four weeks of dates chosen by
// the client and the plain bytes of the answer.
func TestKeptAnswersCountTheirWork(t *testing.T) {
	g := newGateway(t, modelstest.SQLite(t), "harbor", engine.Gym, 8, 52)
	obs := &units{}
	g.h.Observer = obs
	ask := func(query string) (string, float64) {
		t.Helper()
		resp, body := send(t, "REPORT", g.srv.URL+"/caldav/harbor/calendars/all/", "harbor", g.token, query, "Accept-Encoding", "gzip", "Depth", "1")
		if resp.StatusCode != http.StatusMultiStatus {
			t.Fatalf("status %d", resp.StatusCode)
		}
		if resp.Header.Get("Content-Encoding") == "gzip" {
			body = gunzip(t, body)
		}
		return string(body), obs.take()
	}
	first, work := ask(monthQuery)
	kept, keptWork := ask(monthQuery)
	if first != kept {
		t.Errorf("the kept answer differs:\n%s", diffLines(kept, first))
	}
	if want := 28.0/92 + float64(len(first))/(1<<20); work != want || keptWork != want {
		t.Errorf("work %v, then %v; want %v (four weeks and %d bytes) twice", work, keptWork, want, len(first))
	}

	// Two years of the gym are too long to keep: answered afresh, the same,
	// at the same price.
	years := strings.Replace(strings.Replace(monthQuery, "20261129T000000Z", "20260101T000000Z", 1), "20261227T000000Z", "20271201T000000Z", 1)
	first, work = ask(years)
	again, againWork := ask(years)
	if len(first) < 3<<20 || first != again || work != againWork {
		t.Errorf("two years: %d bytes for %v units, then %d for %v", len(first), work, len(again), againWork)
	}
}
