package icalendar

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	ics "github.com/arran4/golang-ical"

	"github.com/koredyne/schedule/engine"
)

// randomRule writes a random RRULE of the kinds this package expands.
func randomRule(r *rand.Rand) string {
	freqs := []string{"DAILY", "WEEKLY", "MONTHLY", "YEARLY"}
	freq := freqs[r.IntN(len(freqs))]
	parts := []string{"FREQ=" + freq}
	if r.IntN(2) == 0 {
		parts = append(parts, fmt.Sprintf("INTERVAL=%d", 1+r.IntN(4)))
	}
	pick := func(n, max int, f func() string) string {
		var out []string
		for i := 0; i < n; i++ {
			if v := f(); !slices.Contains(out, v) {
				out = append(out, v)
			}
		}
		return strings.Join(out, ",")
	}
	if r.IntN(2) == 0 {
		// Numbered and plain weekdays are not mixed in one BYDAY:
		// python-dateutil then gives no dates at all (RFC 5545 gives both).
		ordinals := (freq == "MONTHLY" || freq == "YEARLY") && r.IntN(2) == 0
		parts = append(parts, "BYDAY="+pick(1+r.IntN(3), 7, func() string {
			d := dayCodes[r.IntN(7)]
			if ordinals {
				n := 1 + r.IntN(4)
				if r.IntN(2) == 0 {
					n = -n
				}
				return fmt.Sprintf("%d%s", n, d)
			}
			return d
		}))
	}
	if freq != "WEEKLY" && r.IntN(3) == 0 {
		parts = append(parts, "BYMONTHDAY="+pick(1+r.IntN(3), 31, func() string {
			n := 1 + r.IntN(31)
			if r.IntN(3) == 0 {
				n = -n
			}
			return fmt.Sprint(n)
		}))
	}
	if r.IntN(3) == 0 {
		parts = append(parts, "BYMONTH="+pick(1+r.IntN(4), 12, func() string { return fmt.Sprint(1 + r.IntN(12)) }))
	}
	// Not weekly: python-dateutil sets the first week from DTSTART on, not
	// from the week's start, before it picks positions.
	if freq != "DAILY" && freq != "WEEKLY" && r.IntN(4) == 0 {
		parts = append(parts, "BYSETPOS="+pick(1+r.IntN(2), 5, func() string {
			n := 1 + r.IntN(3)
			if r.IntN(2) == 0 {
				n = -n
			}
			return fmt.Sprint(n)
		}))
	}
	if freq == "WEEKLY" && r.IntN(2) == 0 {
		parts = append(parts, "WKST="+dayCodes[r.IntN(7)])
	}
	if r.IntN(3) == 0 {
		parts = append(parts, fmt.Sprintf("COUNT=%d", 1+r.IntN(30)))
	}
	return strings.Join(parts, ";")
}

// TestExpandAgainstDateutil compares the RRULE expander with
// python-dateutil's rrulestr on hundreds of random rules: daily, weekly,
// monthly and yearly, with INTERVAL, BYDAY (numbered in months and years),
// BYMONTHDAY (from the end too), BYMONTH, BYSETPOS, WKST and COUNT.
func TestExpandAgainstDateutil(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 34))
	type rcase struct {
		DTStart string `json:"dtstart"`
		Rule    string `json:"rule"`
		Until   string `json:"until"`
	}
	var cases []rcase
	var got [][]string
	began := time.Now()
	for len(cases) < 400 {
		day := 1 + r.IntN(28)
		if r.IntN(8) == 0 {
			day = 29 + r.IntN(3)
		}
		m := 1 + r.IntN(12)
		start, err := engine.NewDate(2026+r.IntN(2), m, day)
		if err != nil {
			continue
		}
		until := start.AddDays(365 + r.IntN(3*365))
		raw := randomRule(r)
		rule, err := ics.ParseRecurrenceRule(raw)
		if err != nil {
			t.Fatalf("%s: %v", raw, err)
		}
		var dates []string
		n := 0
		if err := expandDates(rule, start, until, func(d engine.Date) bool {
			dates = append(dates, d.String())
			n++
			return rule.Count == 0 || n < rule.Count
		}); err != nil {
			t.Fatalf("%s: %v", raw, err)
		}
		cases = append(cases, rcase{icsDate(start) + "T100000", raw, until.String()})
		got = append(got, dates)
	}
	t.Logf("expanded in %v", time.Since(began))
	in, _ := json.Marshal(cases)
	var want [][]string
	if err := json.Unmarshal(runPython(t, in, "--rrule"), &want); err != nil {
		t.Fatal(err)
	}
	total := 0
	for i := range cases {
		if !slices.Equal(got[i], want[i]) && !(len(got[i]) == 0 && len(want[i]) == 0) {
			t.Fatalf("DTSTART %s RRULE:%s up to %s:\n got %v\nwant %v", cases[i].DTStart, cases[i].Rule, cases[i].Until, got[i], want[i])
		}
		total += len(want[i])
	}
	t.Logf("%d rules, %d dates compared", len(cases), total)
}
