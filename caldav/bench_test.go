package caldav_test

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/koredyne/schedule/caldav"
	"github.com/koredyne/schedule/engine"
	"github.com/koredyne/schedule/engine/enginetest"
	"github.com/koredyne/schedule/models"
	"github.com/koredyne/schedule/models/modelstest"
)

// A month of calendar-query, as a calendar app asks when it opens a month.
const monthQuery = `<?xml version="1.0" encoding="utf-8"?>
<C:calendar-query xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav">
 <D:prop><D:getetag/><C:calendar-data/></D:prop>
 <C:filter><C:comp-filter name="VCALENDAR"><C:comp-filter name="VEVENT">
  <C:time-range start="20261129T000000Z" end="20261227T000000Z"/>
 </C:comp-filter></C:comp-filter></C:filter>
</C:calendar-query>`

// benchmarkReport sends the month's REPORT to a calendar of the gym from
// parallel clients over loopback and reports requests per second and
// latency percentiles.
func benchmarkReport(b *testing.B, lang string, calendar func(sn *models.Snapshot) string) {
	g := newGateway(b, modelstest.SQLite(b), "harbor", engine.Gym, 8, 52)
	inLanguage(g, lang)
	sn, err := g.store.Snapshot(b.Context(), g.biz.ID, -1)
	if err != nil {
		b.Fatal(err)
	}
	url := g.srv.URL + "/caldav/harbor/calendars/" + calendar(sn) + "/"
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
	send := func() (int, int) {
		req, _ := http.NewRequest("REPORT", url, strings.NewReader(monthQuery))
		req.SetBasicAuth("harbor", g.token)
		req.Header.Set("Depth", "1")
		req.Header.Set("Content-Type", "application/xml")
		resp, err := client.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		return resp.StatusCode, strings.Count(string(body), "<D:response>")
	}
	status, events := send() // warms the revision's rendering
	if status != http.StatusMultiStatus || events == 0 {
		b.Fatalf("status %d, %d events", status, events)
	}
	lat := make(chan time.Duration, 1<<20)
	b.SetParallelism(4)
	start := time.Now()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			t0 := time.Now()
			if status, _ := send(); status != http.StatusMultiStatus {
				b.Errorf("status %d", status)
				return
			}
			select {
			case lat <- time.Since(t0):
			default:
			}
		}
	})
	elapsed := time.Since(start)
	close(lat)
	var all []time.Duration
	for d := range lat {
		all = append(all, d)
	}
	sort.Slice(all, func(i, j int) bool { return all[i] < all[j] })
	b.ReportMetric(float64(events), "events")
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "req/s")
	b.ReportMetric(float64(all[len(all)/2].Microseconds()), "p50-µs")
	b.ReportMetric(float64(all[len(all)*99/100].Microseconds()), "p99-µs")
}

// BenchmarkReportMonthGym is a month of the whole gym (~450 events).
func BenchmarkReportMonthGym(b *testing.B) {
	benchmarkReport(b, "", func(*models.Snapshot) string { return "all" })
}

// BenchmarkReportMonthGymArabic is BenchmarkReportMonthGym with the gym in
// Arabic: its events' words from the catalogue.
func BenchmarkReportMonthGymArabic(b *testing.B) {
	benchmarkReport(b, "ar", func(*models.Snapshot) string { return "all" })
}

// BenchmarkReportMonthStaff is a month of one coach.
func BenchmarkReportMonthStaff(b *testing.B) {
	benchmarkReport(b, "", func(sn *models.Snapshot) string { return models.CalendarOf("staff", sn.State.Staff[0].ID) })
}

// BenchmarkReportMonthGymAfterWrite is the month's REPORT of the whole gym
// as the first request after a write that changes one date of it (a
// session cancelled, then restored): what a calendar app waits for while
// the schedule is being edited. Only the REPORT is timed.
func BenchmarkReportMonthGymAfterWrite(b *testing.B) { benchmarkReportAfterWrite(b, "") }

// BenchmarkReportMonthGymAfterWriteArabic is the same in Arabic.
func BenchmarkReportMonthGymAfterWriteArabic(b *testing.B) { benchmarkReportAfterWrite(b, "ar") }

// inLanguage sets the business's language ("" keeps English).
func inLanguage(g *gateway, lang string) {
	if lang != "" {
		g.write(func(e *models.Edit) error { e.State.Business.Locale.Language = lang; return nil })
	}
}

func benchmarkReportAfterWrite(b *testing.B, lang string) {
	g := newGateway(b, modelstest.SQLite(b), "harbor", engine.Gym, 8, 52)
	inLanguage(g, lang)
	sn, err := g.store.Snapshot(b.Context(), g.biz.ID, -1)
	if err != nil {
		b.Fatal(err)
	}
	ref := sn.Timetable.Day(engine.DateOf(now).AddDays(9))[0].Ref()
	report := func() {
		req := httptest.NewRequest("REPORT", "/caldav/harbor/calendars/all/", strings.NewReader(monthQuery))
		req.SetBasicAuth("harbor", g.token)
		req.Header.Set("Depth", "1")
		req.Header.Set("Accept-Encoding", "gzip")
		w := httptest.NewRecorder()
		g.h.ServeHTTP(w, req)
		if w.Code != http.StatusMultiStatus {
			b.Fatalf("status %d", w.Code)
		}
	}
	report()
	for i := 0; b.Loop(); i++ {
		b.StopTimer()
		g.write(func(e *models.Edit) error {
			if i%2 == 0 {
				e.State.Changes = append(e.State.Changes, engine.DayChange{Ref: ref, Cancelled: true})
			} else {
				e.State.Changes = e.State.Changes[:len(e.State.Changes)-1]
			}
			return nil
		})
		b.StartTimer()
		report()
	}
}

// BenchmarkPollCold is a phone's poll of a business whose calendars the
// gateway holds nothing of (its first poll since the business was written
// or left the memory budget, the usual case on a server of many
// businesses): a business of 300 class times, a fresh gateway each time.
// A staff login's calendar app asks its calendar home for the sync token
// of the coach's calendar; a manager's for every calendar's (the business,
// each coach, each room); a subscribed phone GETs its feed, the first
// time and with the ETag it holds (If-None-Match, 304).
func BenchmarkPollCold(b *testing.B) {
	today := engine.DateOf(now)
	st := enginetest.Business(enginetest.Options{ClassTimes: 300, Seed: 1, Today: today})
	discard := slog.New(slog.NewTextHandler(io.Discard, nil))
	const propfind = `<?xml version="1.0" encoding="utf-8"?>
<D:propfind xmlns:D="DAV:" xmlns:CS="http://calendarserver.org/ns/"><D:prop><D:resourcetype/><D:sync-token/><CS:getctag/></D:prop></D:propfind>`
	for _, c := range []struct {
		name   string
		staff  bool
		feed   bool
		cached bool
	}{{"staff", true, false, false}, {"manager", false, false, false}, {"feed", true, true, false}, {"feed304", true, true, true}} {
		b.Run(c.name, func(b *testing.B) {
			m := newMemoryOf(b, "big", st)
			if c.staff {
				m.staff = m.sn.State.Staff[0].ID
			}
			m.feeds["feed-secret"] = models.CalendarOf("staff", m.sn.State.Staff[0].ID)
			req := func() *http.Request {
				if c.feed {
					r := httptest.NewRequest("GET", "/ics/feed-secret.ics", nil)
					r.Header.Set("Accept-Encoding", "gzip")
					return r
				}
				r := httptest.NewRequest("PROPFIND", "/caldav/big/calendars/", strings.NewReader(propfind))
				r.SetBasicAuth(m.login, m.password)
				r.Header.Set("Depth", "1")
				r.Header.Set("Accept-Encoding", "gzip")
				return r
			}
			want := http.StatusMultiStatus
			if c.feed {
				want = http.StatusOK
			}
			var etag string
			if c.cached {
				w := httptest.NewRecorder()
				caldav.NewHandler(m, discard).ServeHTTP(w, req())
				etag, want = w.Header().Get("ETag"), http.StatusNotModified
			}
			for b.Loop() {
				h := caldav.NewHandler(m, discard)
				w := httptest.NewRecorder()
				r := req()
				if etag != "" {
					r.Header.Set("If-None-Match", etag)
				}
				h.ServeHTTP(w, r)
				if w.Code != want {
					b.Fatalf("status %d: %s", w.Code, w.Body)
				}
			}
		})
	}
}
