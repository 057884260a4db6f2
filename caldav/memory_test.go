package caldav_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-ical"
	"github.com/emersion/go-webdav"
	webcaldav "github.com/emersion/go-webdav/caldav"

	"github.com/koredyne/schedule/caldav"
	"github.com/koredyne/schedule/engine"
	"github.com/koredyne/schedule/engine/demo"
	"github.com/koredyne/schedule/models"
)

// memory is a caldav.Backend that holds one business in memory: the
// gateway's protocol runs on it without any database.
type memory struct {
	mu       sync.Mutex
	sn       *models.Snapshot
	login    string
	password string
	staff    int64             // set: the login is this staff member's, with the staff role
	feeds    map[string]string // token → calendar
	syncs    map[string]map[string]string
}

var _ caldav.Backend = (*memory)(nil)

func newMemory(t testing.TB, slug string, kind engine.Kind) *memory {
	t.Helper()
	st, ok := demo.ByKind(kind, engine.DateOf(now))
	if !ok {
		t.Fatalf("no %s demo", kind)
	}
	return newMemoryOf(t, slug, st)
}

// newMemoryOf holds the schedule st as business 7, slug.
func newMemoryOf(t testing.TB, slug string, st engine.State) *memory {
	t.Helper()
	m := &memory{login: slug, password: "secret-app-password", feeds: map[string]string{}, syncs: map[string]map[string]string{}}
	m.set(t, models.Business{ID: 7, Slug: slug, Name: st.Business.Name, Kind: string(st.Business.Kind), Revision: 1}, st)
	return m
}

func (m *memory) set(t testing.TB, b models.Business, st engine.State) {
	t.Helper()
	sn, err := models.NewSnapshot(b, st)
	if err != nil {
		t.Fatal(err)
	}
	m.mu.Lock()
	m.sn = sn
	m.mu.Unlock()
}

// write changes the schedule as a new revision.
func (m *memory) write(t *testing.T, fn func(st *engine.State)) {
	t.Helper()
	m.mu.Lock()
	b, st := m.sn.Business, m.sn.State.Clone()
	m.mu.Unlock()
	fn(&st)
	b.Revision++
	m.set(t, b, st)
}

func (m *memory) AuthenticateCalendar(ctx context.Context, login, password string) (models.CalendarUser, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if login != m.login || password != m.password {
		return models.CalendarUser{}, models.ErrBadToken
	}
	if m.staff != 0 {
		return models.CalendarUser{Principal: models.Principal{BusinessID: m.sn.Business.ID, Role: models.StaffRole, Revision: m.sn.Business.Revision}, Login: login, StaffID: m.staff}, nil
	}
	return models.CalendarUser{Principal: models.Principal{BusinessID: m.sn.Business.ID, Role: models.ReadOnly, Revision: m.sn.Business.Revision}, Login: login}, nil
}

func (m *memory) FeedByToken(ctx context.Context, token string) (*models.FeedToken, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	cal, ok := m.feeds[token]
	if !ok {
		return nil, models.ErrBadToken
	}
	return &models.FeedToken{BusinessID: m.sn.Business.ID, Calendar: cal, Token: token}, nil
}

func (m *memory) Snapshot(ctx context.Context, business, revision int64) (*models.Snapshot, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if business != m.sn.Business.ID {
		return nil, engine.Errorf(engine.NotFound, "business", "no business %d", business)
	}
	return m.sn, nil
}

func (m *memory) SaveSync(ctx context.Context, business int64, calendar, token string, items map[string]string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.syncs[calendar+" "+token] = items
	return nil
}

func (m *memory) LoadSync(ctx context.Context, business int64, calendar, token string) (map[string]string, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	items, ok := m.syncs[calendar+" "+token]
	return items, ok, nil
}

func (m *memory) Now() time.Time { return now }

// TestProtocolInMemory serves the office demo from memory and walks it as
// a client does: discovery with go-webdav's client, a time-range query, a
// sync before and after a change, and an .ics feed.
func TestProtocolInMemory(t *testing.T) {
	ctx := context.Background()
	m := newMemory(t, "meridian", engine.Office)
	m.feeds["feed-secret"] = models.CalendarOf("", 0)
	h := caldav.NewHandler(m, slog.New(slog.NewTextHandler(io.Discard, nil)))
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	do := func(method, path, body string, header ...string) *http.Response {
		t.Helper()
		req, _ := http.NewRequest(method, srv.URL+path, strings.NewReader(body))
		req.SetBasicAuth(m.login, m.password)
		req.Header.Set("Content-Type", "application/xml; charset=utf-8")
		for i := 0; i+1 < len(header); i += 2 {
			req.Header.Set(header[i], header[i+1])
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}

	c, err := webcaldav.NewClient(webdav.HTTPClientWithBasicAuth(http.DefaultClient, m.login, m.password), srv.URL+"/caldav/")
	if err != nil {
		t.Fatal(err)
	}
	home := discover(t, c, "meridian")
	cals, err := c.FindCalendars(ctx, home)
	if err != nil {
		t.Fatal(err)
	}
	if want := 1 + len(m.sn.State.Staff) + len(m.sn.State.Rooms); len(cals) != want || cals[0].Path != home+"all/" {
		t.Fatalf("%d calendars (first %+v), want the business, its hosts and rooms: %d", len(cals), cals[0], want)
	}

	// A time-range query holds exactly the engine's sessions of that day.
	day := engine.MustDate(2026, 12, 8)
	loc := m.sn.State.Business.Location
	objs, err := c.QueryCalendar(ctx, home+"all/", &webcaldav.CalendarQuery{
		CompRequest: webcaldav.CalendarCompRequest{Name: "VCALENDAR", AllProps: true, AllComps: true},
		CompFilter: webcaldav.CompFilter{Name: "VCALENDAR", Comps: []webcaldav.CompFilter{{
			Name: "VEVENT", Start: day.At(0, loc), End: day.AddDays(1).At(0, loc),
		}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{}
	for _, s := range m.sn.Timetable.Day(day) {
		if !s.Cancelled {
			want[strings.ReplaceAll(s.Key(), "/", "-")+"@meridian.koredyne"] = true
		}
	}
	got := map[string]bool{}
	for _, o := range objs {
		got[o.Data.Events()[0].Props.Get(ical.PropUID).Value] = true
	}
	if len(want) == 0 || len(got) != len(want) {
		t.Fatalf("the query of %s holds %d events, the engine %d sessions", day, len(got), len(want))
	}
	for uid := range want {
		if !got[uid] {
			t.Errorf("the query of %s lacks %s", day, uid)
		}
	}

	// Sync: everything, nothing, then just the session that changed.
	cal := home + "all/"
	syncReport := func(token string) multistatus {
		t.Helper()
		return decodeMultistatus(t, do("REPORT", cal, strings.Replace(syncBody, "%s", token, 1)))
	}
	first := syncReport("")
	if len(first.Responses) < 100 || first.SyncToken == "" {
		t.Fatalf("first sync: %d items, token %q", len(first.Responses), first.SyncToken)
	}
	if again := syncReport(first.SyncToken); len(again.Responses) != 0 || again.SyncToken != first.SyncToken {
		t.Errorf("nothing changed, yet %d items (token %q → %q)", len(again.Responses), first.SyncToken, again.SyncToken)
	}
	var ref engine.SessionRef
	for _, s := range m.sn.Timetable.Day(day) {
		if !s.IsOneOff() {
			ref = s.Ref()
			break
		}
	}
	m.write(t, func(st *engine.State) {
		st.Changes = append(st.Changes, engine.DayChange{Ref: ref, Cancelled: true, Note: "flu"})
	})
	changed := syncReport(first.SyncToken)
	href := cal + strings.ReplaceAll(ref.Key(), "/", "-") + ".ics"
	if len(changed.Responses) != 1 || changed.Responses[0].Href != href || changed.SyncToken == first.SyncToken {
		t.Fatalf("after cancelling %s the sync returned %+v", href, changed.Responses)
	}
	resp := do("REPORT", cal, strings.Replace(syncBody, "%s", "urn:koredyne:sync:nonsense", 1))
	if body := read(t, resp); resp.StatusCode != http.StatusForbidden || !strings.Contains(body, "valid-sync-token") {
		t.Errorf("an unknown sync token: %d %s", resp.StatusCode, body)
	}

	// The feed lists the window, the cancelled session as cancelled.
	resp = get(t, srv.URL+"/ics/feed-secret.ics", "")
	feed := read(t, resp)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("feed: %d %s", resp.StatusCode, feed)
	}
	parsed, err := ical.NewDecoder(strings.NewReader(feed)).Decode()
	if err != nil {
		t.Fatal(err)
	}
	listed := len(first.Responses)
	cancelled := 0
	for _, ev := range parsed.Events() {
		if ev.Props.Get(ical.PropUID).Value == strings.ReplaceAll(ref.Key(), "/", "-")+"@meridian.koredyne" {
			if st := ev.Props.Get(ical.PropStatus); st == nil || st.Value != "CANCELLED" {
				t.Errorf("the cancelled session is published as %v", st)
			}
			cancelled++
		}
	}
	if len(parsed.Events()) != listed || cancelled != 1 {
		t.Errorf("the feed holds %d events (%d the cancelled one), the sync listed %d", len(parsed.Events()), cancelled, listed)
	}
	if resp := get(t, srv.URL+"/ics/not-a-token.ics", ""); resp.StatusCode != http.StatusNotFound {
		t.Errorf("an unknown feed token: %d, want 404", resp.StatusCode)
	}
	if resp := do("PROPFIND", "/caldav/meridian/", "", "Authorization", "Basic bWVyaWRpYW46d3Jvbmc="); resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("a wrong password: %d, want 401", resp.StatusCode)
	}
}

// TestConcurrentFirstRequests sends the requests a calendar app and a
// subscribed phone make, from eight clients at once, to a gateway that holds
// nothing of the business yet: the events are listed, written and kept by
// whichever request gets there first, and every answer must be the one a
// gateway answering them one at a time gives (run with -race too).
func TestConcurrentFirstRequests(t *testing.T) {
	m := newMemory(t, "harbor", engine.Gym)
	m.feeds["feed-secret"] = models.CalendarOf("", 0)
	staff := models.CalendarOf("staff", m.sn.State.Staff[0].ID)
	discard := slog.New(slog.NewTextHandler(io.Discard, nil))
	var object string
	for d := engine.DateOf(now); object == ""; d++ {
		for _, s := range m.sn.Timetable.Day(d) {
			object = "/caldav/harbor/calendars/all/" + strings.ReplaceAll(s.Key(), "/", "-") + ".ics"
			break
		}
	}
	type request struct{ method, path, body, depth string }
	requests := []request{
		{"PROPFIND", "/caldav/harbor/calendars/", `<D:propfind xmlns:D="DAV:" xmlns:CS="http://calendarserver.org/ns/"><D:prop><D:sync-token/><CS:getctag/></D:prop></D:propfind>`, "1"},
		{"PROPFIND", "/caldav/harbor/calendars/" + staff + "/", `<D:propfind xmlns:D="DAV:"><D:prop><D:getetag/><D:getcontentlength/></D:prop></D:propfind>`, "1"},
		{"REPORT", "/caldav/harbor/calendars/all/", strings.Replace(syncBody, "%s", "", 1), "1"},
		{"REPORT", "/caldav/harbor/calendars/" + staff + "/", monthQuery, "1"},
		{"GET", "/ics/feed-secret.ics", "", ""},
		{"GET", "/caldav/harbor/calendars/" + staff + "/", "", ""},
		{"GET", object, "", ""},
	}
	serve := func(h http.Handler, r request) string {
		req := httptest.NewRequest(r.method, r.path, strings.NewReader(r.body))
		req.SetBasicAuth(m.login, m.password)
		if r.depth != "" {
			req.Header.Set("Depth", r.depth)
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		return fmt.Sprintf("%d %s\n%s", w.Code, w.Header().Get("ETag"), w.Body)
	}
	want := make([]string, len(requests))
	for i, r := range requests {
		want[i] = serve(caldav.NewHandler(m, discard), r)
		if !strings.HasPrefix(want[i], "20") {
			t.Fatalf("%s %s: %.200s", r.method, r.path, want[i])
		}
	}
	for round := 0; round < 3; round++ {
		h := caldav.NewHandler(m, discard)
		var wg sync.WaitGroup
		for c := 0; c < 8; c++ {
			wg.Go(func() {
				for k := range requests {
					i := (k + c) % len(requests) // each client in its own order
					if got := serve(h, requests[i]); got != want[i] {
						t.Errorf("round %d, client %d: %s %s answered otherwise than alone:\n%.300s\nwant\n%.300s", round, c, requests[i].method, requests[i].path, got, want[i])
					}
				}
			})
		}
		wg.Wait()
	}
}
