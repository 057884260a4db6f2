package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// fortyStaff gives the demo business 40 staff members, each in a class, so
// that it publishes 44 calendars with sessions: the business's, 40 staff
// members' and 3 rooms'.
func fortyStaff(t *testing.T, s *server) {
	t.Helper()
	var out struct {
		Staff   []struct{ ID string }
		Classes []struct {
			ID    string
			Staff []struct{ ID string }
		}
	}
	query(t, s, `{ staff { id } classes { id staff { id } } }`, nil, &out)
	for i := 0; len(out.Staff) < 40; i++ {
		var made struct {
			CreateStaff struct{ Staff struct{ ID string } }
		}
		query(t, s, `mutation($n: String!) { createStaff(input: {name: $n}) { staff { id } } }`, map[string]any{"n": fmt.Sprintf("Coach %d", len(out.Staff)+1)}, &made)
		id := made.CreateStaff.Staff.ID
		out.Staff = append(out.Staff, struct{ ID string }{id})
		c := &out.Classes[i%len(out.Classes)]
		c.Staff = append(c.Staff, struct{ ID string }{id})
		var ids []string
		for _, p := range c.Staff {
			ids = append(ids, p.ID)
		}
		query(t, s, `mutation($id: ID!, $s: [ID!]) { updateClass(id: $id, input: {staffIds: $s}) { class { id } } }`, map[string]any{"id": c.ID, "s": ids}, &struct{}{})
	}
}

// appPassword makes a CalDAV login of the demo business.
func appPassword(t *testing.T, s *server, login string) string {
	t.Helper()
	var out struct {
		CreateAppPassword struct{ Password string }
	}
	query(t, s, `mutation($l: String!) { createAppPassword(input: {login: $l, role: READ_ONLY}) { password } }`, map[string]any{"l": login}, &out)
	return out.CreateAppPassword.Password
}

// refusals counts the requests the rate limit answered 429, from /metrics.
func refusals(t *testing.T, s *server) float64 {
	t.Helper()
	return scrape(t, s)["koredyne_rate_limited_total"]
}

// spent is the units of work the rate limit charged so far, from /metrics.
func spent(t *testing.T, s *server) float64 {
	t.Helper()
	return scrape(t, s)["koredyne_rate_limit_units_total"]
}

// Defaults of serve's rate limit (--rate-limit, --rate-burst).
const defaultBurst = 1000

// startDemoStopped is startDemo with the rate limit's clock stopped: no
// bucket refills, so whether a client is refused depends on what its
// requests cost and never on how fast the machine answers them. A client
// let through on a stopped clock is let through on any.
func startDemoStopped(t *testing.T, args ...string) *server {
	t.Helper()
	stopped := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	s := startMainWith(t, Config{RateClock: func() time.Time { return stopped }},
		map[string]string{"KOREDYNE_BOOTSTRAP_TOKEN": bootstrapToken}, append([]string{"--data", t.TempDir()}, args...)...)
	t.Cleanup(s.stop)
	return s
}

// TestCalendarClientsWithinDefaultLimits runs real calendar clients on the
// default rate limit, its clock stopped, against a business with 44
// calendars: two vdirsyncer mirrors of every calendar at once on one login,
// and python-caldav fetching a year of every calendar in multigets of 50,
// all without a single 429; while python-caldav asking for two years in a
// loop is refused with 429 once it has spent its burst.
func TestCalendarClientsWithinDefaultLimits(t *testing.T) {
	vdirsyncer := lookClient(t, "vdirsyncer", "apt-get install vdirsyncer")
	python := lookClient(t, "/usr/bin/python3", "apt-get install python3")
	if out, err := exec.Command(python, "-I", "-c", "import caldav").CombinedOutput(); err != nil {
		needClient(t, "python3-caldav", "apt-get install python3-caldav", err, string(out))
	}
	// The listing window is a quarter, to keep the mirrors small; the rate
	// limit is the default.
	s := startDemoStopped(t, "--calendar-weeks-back", "1", "--calendar-weeks-ahead", "12")
	fortyStaff(t, s)
	ids, _ := calendarIDs(t, s)
	if len(ids) != 44 {
		t.Fatalf("%d calendars, want 44", len(ids))
	}
	desk, script := appPassword(t, s, "desk"), appPassword(t, s, "script")
	mirrors := appPassword(t, s, "mirrors")
	before := refusals(t, s)

	units := spent(t, s)
	var wg sync.WaitGroup
	dirs := []string{t.TempDir(), t.TempDir()}
	logs := make([]string, len(dirs))
	for i, dir := range dirs {
		config := vdirsyncerConfig(t, dir, s.url, "mirrors", mirrors)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for _, cmd := range []string{"discover", "sync"} {
				out, log := runClient(t, strings.Repeat("y\n", 100), vdirsyncer, "-v", "INFO", "-c", config, cmd)
				logs[i] += string(out) + log
			}
		}()
	}
	wg.Wait()
	for i, dir := range dirs {
		got := mirror(t, filepath.Join(dir, "calendars"))
		files := 0
		for _, f := range got {
			files += len(f)
		}
		if len(got) != len(ids) || files == 0 {
			t.Errorf("vdirsyncer %d mirrored %d calendars, %d files; want %d calendars\n%s", i+1, len(got), files, len(ids), logs[i])
		}
		t.Logf("vdirsyncer %d mirrored %d calendars, %d files", i+1, len(got), files)
	}
	t.Logf("two vdirsyncer mirrors at once cost %.1f units", spent(t, s)-units)
	if n := refusals(t, s) - before; n != 0 {
		t.Errorf("the syncs got %v × 429", n)
	}

	units = spent(t, s)
	today := time.Now().UTC().Format("2006-01-02")
	out, _ := runClient(t, "", python, "-I", filepath.Join("testdata", "clients", "multiget.py"), s.url+"/caldav/", "desk", desk, today, "365", "year")
	var year struct{ Calendars, Requests, Events int }
	if err := json.Unmarshal(out, &year); err != nil {
		t.Fatalf("multiget.py: %v: %s", err, out)
	}
	t.Logf("python-caldav fetched a year of %d calendars in %d requests: %d events, %.1f units", year.Calendars, year.Requests, year.Events, spent(t, s)-units)
	if year.Calendars != 44 || year.Events == 0 {
		t.Errorf("python-caldav fetched %+v", year)
	}
	if n := refusals(t, s) - before; n != 0 {
		t.Errorf("fetching a year got %v × 429", n)
	}

	units = spent(t, s)
	out, _ = runClient(t, "", python, "-I", filepath.Join("testdata", "clients", "multiget.py"), s.url+"/caldav/", "script", script, today, "730", "loop", "1000", "Coach 40 ")
	var loop struct {
		Requests int
		Error    string
	}
	if err := json.Unmarshal(out, &loop); err != nil {
		t.Fatalf("multiget.py: %v: %s", err, out)
	}
	used := spent(t, s) - units
	t.Logf("python-caldav asked for two years %d times (%.1f units), then: %s", loop.Requests, used, loop.Error)
	// Each asks for 8 units of dates (a unit a quarter) and a little data:
	// the burst of 1,000 lasts about 120 of them, and then, the clock
	// stopped, not one more.
	if !strings.Contains(loop.Error, "429") || used < defaultBurst-10 || used > defaultBurst+10 {
		t.Errorf("asking for two years in a loop: %+v after %.1f units, want a 429 once the burst of %d is spent", loop, used, defaultBurst)
	}
}

// TestFirstSyncWithinDefaultLimits syncs every calendar of the gym (15
// calendars, a year and two months of sessions) the way DAVx5 does a
// first sync, twice at once on one login: once on DAVx5's defaults (events
// from 90 days back, listed by calendar-query) and once keeping every past
// event (listed by sync-collection), each fetching events in multigets of
// 10. On the default rate limit, its clock stopped so that refill never
// helps, neither gets a 429: thousands of small requests cost what they
// compute and write. Meanwhile another login asking a year of the
// business's calendar with its data, again and again, is refused as soon
// as it has spent its burst: a year written (six megabytes, four quarters
// chosen) costs about 10 units, a multiget of ten events about a tenth.
func TestFirstSyncWithinDefaultLimits(t *testing.T) {
	s := startDemoStopped(t)
	phone, script := appPassword(t, s, "phone"), appPassword(t, s, "script")
	before, units := refusals(t, s), spent(t, s)
	now := time.Now()
	got := syncAtOnce(davx5{base: s.url, login: "phone", password: phone, pastDays: 90, now: now},
		davx5{base: s.url, login: "phone", password: phone, now: now})
	used := spent(t, s) - units
	for i, name := range []string{"DAVx5, 90 days back", "DAVx5, every past event"} {
		checkSynced(t, name, got[i])
		listed, fetched := got[i].events()
		t.Logf("%s: %d calendars, %d events listed and %d fetched in %d requests", name, len(got[i].listed), listed, fetched, got[i].requests)
	}
	t.Logf("the two first syncs at once cost %.1f units (burst %d)", used, defaultBurst)
	if n := refusals(t, s) - before; n != 0 || used >= defaultBurst {
		t.Errorf("two first syncs at once got %v × 429 and cost %.1f units, want none within the burst of %d", n, used, defaultBurst)
	}
	if len(got[1].listed) != 15 || got[1].requests < 1900 {
		t.Errorf("the sync of every past event synced %d calendars in %d requests, want the gym's 15 in some 2,000", len(got[1].listed), got[1].requests)
	}

	// A year of the business's calendar, with its data, again and again.
	start := now.UTC().Format("20060102T150405Z")
	end := now.UTC().AddDate(1, 0, 0).Format("20060102T150405Z")
	yearQuery := `<C:calendar-query xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav"><D:prop><D:getetag/><C:calendar-data/></D:prop>` +
		`<C:filter><C:comp-filter name="VCALENDAR"><C:comp-filter name="VEVENT"><C:time-range start="` + start + `" end="` + end + `"/></C:comp-filter></C:comp-filter></C:filter></C:calendar-query>`
	units = spent(t, s)
	done, status := 0, 0
	for done < defaultBurst {
		resp, _ := hit(t, "REPORT", s.url+"/caldav/script/calendars/all/", yearQuery, "Authorization", "Basic "+basicAuth("script", script), "Depth", "1", "Content-Type", "application/xml")
		if status = resp.StatusCode; status != http.StatusMultiStatus {
			break
		}
		done++
	}
	used = spent(t, s) - units
	if status != http.StatusTooManyRequests || done == 0 {
		t.Fatalf("a year asked %d times, then %d; want a 429 before %d", done, status, defaultBurst)
	}
	// Each costs the same, p: the n-th is let in while the bucket holds a
	// request's price, 0.1, after n-1 of them.
	p := used / float64(done)
	if left := defaultBurst - float64(done-1)*p; left < requestPrice-1e-6 || defaultBurst-float64(done)*p >= requestPrice {
		t.Errorf("a year at %.2f units was refused after %d: %.2f units were left before the last let in", p, done, left)
	}
	t.Logf("a year of the business's calendar costs %.2f units: refused after %d", p, done)
}
