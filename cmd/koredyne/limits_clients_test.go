package main

import (
	"encoding/json"
	"fmt"
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

// refusals counts the requests the server answered 429, from /metrics.
func refusals(t *testing.T, s *server) float64 {
	t.Helper()
	n := 0.0
	for k, v := range scrape(t, s) {
		if strings.Contains(k, `status="429"`) || strings.Contains(k, `outcome="RATE_LIMITED"`) {
			n += v
		}
	}
	return n
}

// TestCalendarClientsWithinDefaultLimits runs real calendar clients on the
// default rate limit against a business with 44 calendars: two vdirsyncer
// mirrors of every calendar at once on one login, and python-caldav
// fetching a year of every calendar in multigets of 50 as DAVx5 does, all
// without a single 429; while python-caldav asking for two years in a loop
// is refused with 429 before long.
func TestCalendarClientsWithinDefaultLimits(t *testing.T) {
	vdirsyncer := lookClient(t, "vdirsyncer", "apt-get install vdirsyncer")
	python := lookClient(t, "/usr/bin/python3", "apt-get install python3")
	if out, err := exec.Command(python, "-I", "-c", "import caldav").CombinedOutput(); err != nil {
		needClient(t, "python-caldav is not installed (apt-get install python3-caldav): %v\n%s", err, out)
	}
	// The listing window is a quarter, to keep the mirrors small; the rate
	// limit is the default.
	s := startDemo(t, "--calendar-weeks-back", "1", "--calendar-weeks-ahead", "12")
	fortyStaff(t, s)
	ids, _ := calendarIDs(t, s)
	if len(ids) != 44 {
		t.Fatalf("%d calendars, want 44", len(ids))
	}
	desk, script := appPassword(t, s, "desk"), appPassword(t, s, "script")
	before := refusals(t, s)

	var wg sync.WaitGroup
	dirs := []string{t.TempDir(), t.TempDir()}
	logs := make([]string, len(dirs))
	start := time.Now()
	for i, dir := range dirs {
		config := vdirsyncerConfig(t, dir, s.url)
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
	took := time.Since(start)
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
	t.Logf("two vdirsyncer runs at once took %v", took.Round(time.Millisecond))
	if n := refusals(t, s) - before; n != 0 {
		t.Errorf("the syncs got %v × 429", n)
	}

	today := time.Now().UTC().Format("2006-01-02")
	out, _ := runClient(t, "", python, "-I", filepath.Join("testdata", "clients", "multiget.py"), s.url+"/caldav/", "desk", desk, today, "365", "year")
	var year struct{ Calendars, Requests, Events int }
	if err := json.Unmarshal(out, &year); err != nil {
		t.Fatalf("multiget.py: %v: %s", err, out)
	}
	t.Logf("python-caldav fetched a year of %d calendars in %d requests: %d events", year.Calendars, year.Requests, year.Events)
	if year.Calendars != 44 || year.Events == 0 {
		t.Errorf("python-caldav fetched %+v", year)
	}
	if n := refusals(t, s) - before; n != 0 {
		t.Errorf("fetching a year got %v × 429", n)
	}

	out, _ = runClient(t, "", python, "-I", filepath.Join("testdata", "clients", "multiget.py"), s.url+"/caldav/", "script", script, today, "730", "loop", "1000", "Coach 40 ")
	var loop struct {
		Requests int
		Error    string
	}
	if err := json.Unmarshal(out, &loop); err != nil {
		t.Fatalf("multiget.py: %v: %s", err, out)
	}
	t.Logf("python-caldav asked for two years %d times, then: %s", loop.Requests, loop.Error)
	// Each asks for 9 units (a request, and one a quarter): the burst of
	// 1,000 lasts about 110 of them, and a loop that outpaces the refill of
	// 20 units a second runs out soon after (127 requests on an idle
	// machine; more on a loaded one, whose slower answers refill more).
	if !strings.Contains(loop.Error, "429") {
		t.Errorf("asking for two years in a loop: %+v, want a 429 within 1,000 requests", loop)
	}
}
