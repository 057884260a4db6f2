package engine

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestOverfullAgainstOracle compares the standing-places proof with a
// day-by-day count over the random businesses of the clash oracle (day
// changes, moves, closures with and without pauses, one-offs): for every
// series session, random standing rules (open and ending, skipped dates),
// single bookings and limits, the dates the proof gives are exactly the
// original dates the oracle resolves, finds not cancelled and counts over
// the limit.
func TestOverfullAgainstOracle(t *testing.T) {
	const want = 250
	r := rand.New(rand.NewPCG(3, 32))
	valid, groups, overfull := 0, 0, 0
	for tries := 0; valid < want; tries++ {
		if tries > 8*want {
			t.Fatalf("only %d of %d generated states were valid", valid, tries)
		}
		s, _, from, to := randomState(r)
		if Validate(s) != nil {
			continue
		}
		loads := addStanding(r, &s, from, to)
		if err := Validate(s); err != nil {
			t.Fatalf("state %d: the standing rules made are invalid: %v", valid, err)
		}
		valid++
		tt, err := New(s)
		if err != nil {
			t.Fatal(err)
		}
		o := newOracle(s)
		days := map[Date][]oracleSession{}
		for d := from - 14; d < to+14; d++ {
			for _, x := range o.day(d) {
				if strings.HasPrefix(x.key, "s/") {
					days[d] = append(days[d], x)
				}
			}
		}
		for k, load := range loads {
			groups++
			limit := r.IntN(5)
			proofFrom, until := from+Date(r.IntN(30)), Date(0)
			if r.IntN(3) == 0 {
				until = proofFrom + Date(r.IntN(int(to-proofFrom)))
			}
			var got []Date
			for _, run := range tt.Overfull(k.classTime, k.class, load, limit, proofFrom, until) {
				if run.First < proofFrom || (until != 0 && (run.Until == 0 || run.Until > until)) {
					t.Fatalf("state %d: run %+v outside %s..%s", valid, run, proofFrom, until)
				}
				got = append(got, run.Dates(from, to)...)
			}
			slices.Sort(got)
			got = slices.Compact(got) // a session of two series has a run for each
			var want []Date
			for d := from - 14; d < to+14; d++ {
				for _, x := range days[d] {
					var ref Date
					var ct, class int64
					if _, err := fmt.Sscanf(strings.ReplaceAll(x.key[2:], "/", " "), "%s %d %d", new(string), &ct, &class); err != nil {
						t.Fatal(err)
					}
					ref, _ = ParseDate(strings.Split(x.key, "/")[1])
					if ct != k.classTime || class != k.class || x.cancelled || ref < proofFrom || ref >= to || (until != 0 && ref > until) {
						continue
					}
					if oracleCount(load, ref) > limit {
						want = append(want, ref)
					}
				}
			}
			slices.Sort(want)
			overfull += len(want)
			if !slices.Equal(got, want) {
				t.Fatalf("state %d, session %v, limit %d, from %s until %s:\nproof  %v\noracle %v\nload %+v\nchanges %+v\nclosures %+v",
					valid, k, limit, proofFrom, until, got, want, load, s.Changes, s.Closures)
			}
		}
	}
	if overfull == 0 {
		t.Fatal("no overfull date in any business: the test compares nothing")
	}
	t.Logf("%d businesses, %d sessions, %d overfull dates matched", valid, groups, overfull)
}

// oracleCount counts the places taken on original date d, rule by rule.
func oracleCount(l Load, d Date) int {
	n := l.Singles[d]
	for _, rule := range l.Rules {
		if d < rule.From || (rule.Until != 0 && d > rule.Until) {
			continue
		}
		skipped := false
		for _, k := range l.Skips {
			skipped = skipped || (k.StandingID == rule.ID && k.Date == d)
		}
		if !skipped {
			n++
		}
	}
	return n
}

// addStanding gives random series sessions of s standing rules, skipped
// dates and single bookings, and returns each session's load.
func addStanding(r *rand.Rand, s *State, from, to Date) map[groupKey]Load {
	loads := map[groupKey]Load{}
	for _, e := range s.Entries {
		k := groupKey{e.ClassTimeID, e.ClassID}
		if _, ok := loads[k]; ok {
			continue
		}
		var ct ClassTime
		for _, c := range s.ClassTimes {
			if c.ID == e.ClassTimeID {
				ct = c
			}
		}
		l := Load{Singles: map[Date]int{}}
		span := int(to - from)
		for n := r.IntN(6); n > 0; n-- {
			rule := Standing{ID: int64(len(s.Standing) + 1), ClientID: 1, ClassTimeID: k.classTime, ClassID: k.class,
				From: from + Date(r.IntN(span)) - 20, Waitlist: r.IntN(3) == 0}
			if r.IntN(2) == 0 {
				rule.Until = rule.From + Date(r.IntN(span))
			}
			s.Standing = append(s.Standing, rule)
			l.Rules = append(l.Rules, rule)
			for m := r.IntN(4); m > 0; m-- {
				d := rule.From + Date(r.IntN(span/2+1))
				d = d - Date((int(d.Weekday())-int(ct.Weekday)+7)%7) // usually a date of the session
				if rule.Covers(d) && !slices.ContainsFunc(s.StandingSkips, func(x StandingSkip) bool { return x.StandingID == rule.ID && x.Date == d }) {
					k := StandingSkip{ID: int64(len(s.StandingSkips) + 1), StandingID: rule.ID, Date: d}
					s.StandingSkips = append(s.StandingSkips, k)
					l.Skips = append(l.Skips, k)
				}
			}
		}
		for m := r.IntN(8); m > 0; m-- {
			d := from + Date(r.IntN(span))
			d = d - Date((int(d.Weekday())-int(ct.Weekday)+7)%7)
			l.Singles[d] += 1 + r.IntN(3)
		}
		loads[k] = l
	}
	return loads
}

// TestOverfull names the cases: a weekly class of 2 places, a two-week
// rotation, a closure, a cancelled date and a moved one.
func TestOverfull(t *testing.T) {
	ws := time.Sunday
	anchor := MustDate(2026, 12, 6) // a Sunday
	base := State{
		Business:   Business{Kind: Gym, Name: "Gym", Currency: "KD", Location: time.UTC, WeekStart: ws},
		Rooms:      []Room{{ID: 1, Name: "Studio"}},
		Staff:      []Staff{{ID: 1, Name: "Ana"}},
		Activities: []Activity{{ID: 1, Name: "Yoga"}},
		Classes:    []Class{{ID: 1, ActivityID: 1, StaffIDs: []int64{1}}},
		ClassTimes: []ClassTime{{ID: 1, RoomID: 1, Weekday: time.Tuesday, Start: MustTime("18:00"), End: MustTime("19:00"), Capacity: 2}},
		Series:     []Series{{ID: 1, Name: "Weekly", Anchor: anchor, Cycle: 1}},
		Entries:    []Entry{{ID: 1, SeriesID: 1, ClassTimeID: 1, ClassID: 1, Week: 1}},
	}
	tue := anchor + 2
	rule := func(id int64, from, until Date) Standing {
		return Standing{ID: id, ClientID: id, ClassTimeID: 1, ClassID: 1, From: from, Until: until}
	}
	tests := []struct {
		name  string
		edit  func(s *State)
		load  Load
		limit int
		want  []DateRun
	}{
		{name: "two places, two rules: full, not over", load: Load{Rules: []Standing{rule(1, tue, 0), rule(2, tue, 0)}}, limit: 2},
		{name: "three rules from the third week on", limit: 2,
			load: Load{Rules: []Standing{rule(1, tue, 0), rule(2, tue, 0), rule(3, tue+14, 0)}},
			want: []DateRun{{First: tue + 14, Every: 1}}},
		{name: "a third rule for four weeks", limit: 2,
			load: Load{Rules: []Standing{rule(1, tue, 0), rule(2, tue, 0), rule(3, tue+14, tue+40)}},
			want: []DateRun{{First: tue + 14, Every: 1, Until: tue + 35}}},
		{name: "a skipped date breaks the run", limit: 2,
			load: Load{Rules: []Standing{rule(1, tue, 0), rule(2, tue, 0), rule(3, tue, tue+21)},
				Skips: []StandingSkip{{ID: 1, StandingID: 2, Date: tue + 7}}},
			want: []DateRun{{First: tue, Until: tue}, {First: tue + 14, Every: 1, Until: tue + 21}}},
		{name: "single bookings on one date", limit: 2,
			load: Load{Rules: []Standing{rule(1, tue, 0)}, Singles: map[Date]int{tue + 28: 2}},
			want: []DateRun{{First: tue + 28, Until: tue + 28}}},
		{name: "every other week in a two-week rotation", limit: 0,
			edit: func(s *State) { s.Series[0].Cycle = 2; s.Entries[0].Week = 2 },
			load: Load{Rules: []Standing{rule(1, tue, 0)}},
			want: []DateRun{{First: tue + 7, Every: 2}}},
		{name: "a closure and a cancelled date are not overfull", limit: 0,
			edit: func(s *State) {
				s.Closures = []Closure{{ID: 1, From: tue + 7, To: tue + 7, Reason: "Holiday"}}
				s.Changes = []DayChange{{Ref: SessionRef{Date: tue + 14, ClassTimeID: 1, ClassID: 1}, Cancelled: true}}
			},
			load: Load{Rules: []Standing{rule(1, tue, tue+28)}},
			want: []DateRun{{First: tue, Until: tue}, {First: tue + 21, Every: 1, Until: tue + 28}}},
		{name: "a moved session keeps its place, even into a closure it is cancelled by", limit: 0,
			edit: func(s *State) {
				s.Closures = []Closure{{ID: 1, From: tue + 8, To: tue + 8, Reason: "Holiday"}}
				s.Changes = []DayChange{{Ref: SessionRef{Date: tue, ClassTimeID: 1, ClassID: 1}, Date: tue + 1},
					{Ref: SessionRef{Date: tue + 7, ClassTimeID: 1, ClassID: 1}, Date: tue + 8}}
			},
			load: Load{Rules: []Standing{rule(1, tue, tue+14)}},
			want: []DateRun{{First: tue, Until: tue}, {First: tue + 14, Until: tue + 14}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := base.Clone()
			if tc.edit != nil {
				tc.edit(&s)
			}
			tt, err := New(s)
			if err != nil {
				t.Fatal(err)
			}
			got := tt.Overfull(1, 1, tc.load, tc.limit, anchor, 0)
			if !slices.Equal(got, tc.want) {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestSplitPlaces(t *testing.T) {
	firm := func(id int64) Standing { return Standing{ID: id} }
	wait := func(id int64) Standing { return Standing{ID: id, Waitlist: true} }
	rules := []Standing{firm(1), firm(2), wait(3), wait(4)}
	for _, tc := range []struct {
		capacity, singles, hold int
	}{{0, 5, 4}, {10, 0, 4}, {3, 0, 3}, {3, 1, 2}, {3, 3, 2}, {2, 0, 2}} {
		hold, w := SplitPlaces(rules, tc.capacity, tc.singles)
		if len(hold) != tc.hold || len(hold)+len(w) != len(rules) {
			t.Errorf("capacity %d, %d singles: got %d holding and %d waiting, want %d holding", tc.capacity, tc.singles, len(hold), len(w), tc.hold)
		}
	}
}

// TestPlacesOnCountsSplitPlaces: PlacesOn counts what SplitPlaces splits
// StandingOn into, on random businesses with random standing places and
// skips, for every series session of some weeks and several capacities.
func TestPlacesOnCountsSplitPlaces(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 3))
	sessions := 0
	for range 30 {
		s, _, _, _ := randomState(r)
		if Validate(s) != nil || len(s.Entries) == 0 {
			continue
		}
		anchor := s.Series[0].Anchor
		for i := range 12 {
			e := s.Entries[r.IntN(len(s.Entries))]
			rule := Standing{ID: int64(i + 1), ClientID: 1, ClassTimeID: e.ClassTimeID, ClassID: e.ClassID,
				From: anchor.AddDays(r.IntN(60)), Waitlist: r.IntN(3) == 0}
			if r.IntN(2) == 0 {
				rule.Until = rule.From.AddDays(r.IntN(90))
			}
			s.Standing = append(s.Standing, rule)
			if d := rule.From.AddDays(7 * r.IntN(4)); rule.Covers(d) && r.IntN(2) == 0 {
				s.StandingSkips = append(s.StandingSkips, StandingSkip{ID: int64(i + 1), StandingID: rule.ID, Date: d})
			}
		}
		tt, err := New(s)
		if err != nil {
			t.Fatal(err)
		}
		for d := anchor; d < anchor.AddDays(120); d++ {
			for _, x := range tt.Day(d) {
				if x.IsOneOff() {
					continue
				}
				if len(tt.StandingOn(x.Ref())) > 0 {
					sessions++
				}
				for _, c := range []struct{ capacity, singles int }{{0, 0}, {1, 0}, {3, 1}, {5, 5}, {20, 2}} {
					hold, wait := SplitPlaces(tt.StandingOn(x.Ref()), c.capacity, c.singles)
					h, w := tt.PlacesOn(x.Ref(), c.capacity, c.singles)
					if h != len(hold) || w != len(wait) {
						t.Fatalf("%s, capacity %d, %d singles: PlacesOn %d holding and %d waiting, SplitPlaces %d and %d",
							x.Key(), c.capacity, c.singles, h, w, len(hold), len(wait))
					}
				}
			}
		}
	}
	if sessions < 100 {
		t.Fatalf("only %d sessions with standing places were compared", sessions)
	}
}

// TestPlacesTouched: the sessions a write can change the places of are
// those of what it changed; a closure or a series reaches every session.
func TestPlacesTouched(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	var s State
	for {
		if s, _, _, _ = randomState(r); Validate(s) == nil && len(s.Entries) > 1 {
			break
		}
	}
	e := s.Entries[0]
	tests := []struct {
		name string
		edit func(s *State)
		all  bool
		want []Place
	}{
		{"nothing", func(*State) {}, false, nil},
		{"a class time's places", func(s *State) { s.ClassTimes[0].Capacity = 9 }, false, nil},
		{"a standing place", func(s *State) {
			s.Standing = append(s.Standing, Standing{ID: 1, ClientID: 1, ClassTimeID: e.ClassTimeID, ClassID: e.ClassID, From: 1})
		}, false, []Place{{e.ClassTimeID, e.ClassID}}},
		{"a closure", func(s *State) { s.Closures = append(s.Closures, Closure{ID: 99, From: 1, To: 2}) }, true, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := s.Clone()
			tc.edit(&b)
			all, _, touched := PlacesTouched(s, b)
			if all != tc.all {
				t.Fatalf("all: got %v, want %v", all, tc.all)
			}
			want := tc.want
			if tc.name == "a class time's places" {
				for _, x := range s.Entries {
					if x.ClassTimeID == s.ClassTimes[0].ID {
						want = append(want, Place{x.ClassTimeID, x.ClassID})
					}
				}
			}
			wantSet := map[Place]bool{}
			for _, p := range want {
				wantSet[p] = true
			}
			if !tc.all && !maps.Equal(touched, wantSet) {
				t.Errorf("touched %v, want %v", touched, wantSet)
			}
		})
	}
}
