package icalendar

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/koredyne/schedule/engine"
)

// TestImportAgainstPython imports the hand-written files of testdata/ and
// compares, date by date over the whole range, the sessions the engine
// computes from the imported rules with the occurrences the independent
// Python implementation expands from the same file. Events the import
// reports are left out of the comparison, except those it expanded into
// one-offs, which are compared up to ExpandUntil.
func TestImportAgainstPython(t *testing.T) {
	cases := []struct {
		name     string
		file     string
		business engine.Business
		expand   string
		from, to string
		// problems: UID → a part of the reason
		problems map[string]string
	}{
		{
			name: "berlin, expanded", file: "berlin.ics",
			business: engine.Business{Kind: engine.Clinic, Name: "Spreeufer", Currency: "EUR", Location: mustZone(t, "Europe/Berlin"), WeekStart: time.Monday},
			expand:   "2026-12-31", from: "2026-01-01", to: "2027-07-01",
			problems: map[string]string{
				"review-monthly@test":  "repeats monthly (FREQ=MONTHLY), which a weekly rotation cannot hold; imported as 12 one-off sessions up to Thu 31 Dec 2026",
				"billing-monthly@test": "repeats monthly (FREQ=MONTHLY), which a weekly rotation cannot hold; imported as 8 one-off sessions",
				"open-day-yearly@test": "repeats yearly (FREQ=YEARLY), which a weekly rotation cannot hold; imported as 1 one-off session up to",
			},
		},
		{
			name: "berlin, reported only", file: "berlin.ics",
			business: engine.Business{Kind: engine.Clinic, Name: "Spreeufer", Currency: "EUR", Location: mustZone(t, "Europe/Berlin"), WeekStart: time.Monday},
			from:     "2026-01-01", to: "2027-07-01",
			problems: map[string]string{
				"review-monthly@test":  "repeats monthly (FREQ=MONTHLY), which a weekly rotation cannot hold; give an end date for the import to bring its dates in as one-off sessions",
				"billing-monthly@test": "repeats monthly",
				"open-day-yearly@test": "repeats yearly",
			},
		},
		{
			name: "berlin file, weeks from Sunday", file: "berlin.ics",
			business: engine.Business{Kind: engine.Clinic, Name: "Spreeufer", Currency: "EUR", Location: mustZone(t, "Europe/Berlin"), WeekStart: time.Sunday},
			from:     "2026-01-01", to: "2027-07-01",
			problems: map[string]string{"review-monthly@test": "monthly", "billing-monthly@test": "monthly", "open-day-yearly@test": "yearly"},
		},
		{
			name: "new york, expanded", file: "newyork.ics",
			business: engine.Business{Kind: engine.Office, Name: "Meridian", Currency: "USD", Location: mustZone(t, "America/New_York"), WeekStart: time.Sunday},
			expand:   "2026-10-31", from: "2026-01-01", to: "2027-01-01",
			problems: map[string]string{
				"berlin-call@test": "repeats on the clock of Europe/Berlin, which changes to or from daylight-saving time on other dates than America/New_York: its sessions would not keep one time here; imported as 43 one-off meetings up to Sat 31 Oct 2026",
				"utc-report@test":  "repeats at a fixed UTC time (19:00 UTC), which moves on the business's clock when America/New_York changes to or from daylight-saving time; imported as 43 one-off meetings",
				"quarterly@test":   "repeats monthly (FREQ=MONTHLY), which a weekly rotation cannot hold; imported as 3 one-off meetings",
			},
		},
		{
			name: "new york file, weeks from Monday", file: "newyork.ics",
			business: engine.Business{Kind: engine.Office, Name: "Meridian", Currency: "USD", Location: mustZone(t, "America/New_York"), WeekStart: time.Monday},
			from:     "2026-01-01", to: "2027-01-01",
			problems: map[string]string{"berlin-call@test": "Europe/Berlin", "utc-report@test": "UTC", "quarterly@test": "monthly"},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			file := filepath.Join("testdata", c.file)
			f, err := os.Open(file)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			opts := ImportOptions{DefaultStaff: "Front Desk"}
			if c.expand != "" {
				opts.ExpandUntil = date(t, c.expand)
			}
			res, err := Import(f, business(c.business), opts)
			if err != nil {
				t.Fatal(err)
			}
			reported := map[string]bool{}
			for _, p := range res.Problems {
				want, ok := c.problems[p.UID]
				if !ok || !strings.Contains(p.Reason, want) {
					t.Errorf("problem %v; want a reason containing %q", p, want)
				}
				reported[p.UID] = true
			}
			for uid := range c.problems {
				if !reported[uid] {
					t.Errorf("%s: no problem reported", uid)
				}
			}
			tt := timetable(t, res.State)
			from, to := date(t, c.from), date(t, c.to)
			var want []occ
			for _, o := range pythonOccurrences(t, file, from, to, c.business.Location) {
				if reported[o.UID] && (c.expand == "" || o.Date > c.expand) {
					continue
				}
				want = append(want, o)
			}
			got := engineOccurrences(tt, from, to)
			// diffOccurrences takes the independent expansion first.
			if diff := diffOccurrences(want, got); diff != "" {
				t.Fatalf("%s %s..%s: the imported rules do not give the file's occurrences:\n%s", c.file, from, to, diff)
			}
			t.Logf("%d events, %d series, %d one-offs, %d changes; %d dates, %d occurrences compared",
				res.Events, res.Series, res.OneOffs, res.Changes, to-from, len(want))
		})
	}
}
