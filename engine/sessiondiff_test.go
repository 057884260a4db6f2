package engine_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/koredyne/schedule/engine"
	"github.com/koredyne/schedule/engine/enginetest"
)

func TestDiffSessions(t *testing.T) {
	d := engine.MustDate
	tm := engine.MustTime
	standup := engine.SessionRef{Date: d(2026, 10, 13), ClassTimeID: 1, ClassID: 1}
	cases := []struct {
		name string
		edit func(s *engine.State)
		want map[string]engine.What // by session key
	}{
		{"nothing", func(*engine.State) {}, map[string]engine.What{}},
		{"a cancellation", func(s *engine.State) {
			s.Changes = append(s.Changes, engine.DayChange{Ref: standup, Cancelled: true})
		}, map[string]engine.What{"s/2026-10-13/1/1": engine.Cancelled}},
		{"a move to another date in the range", func(s *engine.State) {
			s.Changes = append(s.Changes, engine.DayChange{Ref: standup, Date: d(2026, 10, 15)})
		}, map[string]engine.What{"s/2026-10-13/1/1": engine.Moved}},
		{"a move out of the range", func(s *engine.State) {
			s.Changes = append(s.Changes, engine.DayChange{Ref: standup, Date: d(2027, 3, 2)})
		}, map[string]engine.What{"s/2026-10-13/1/1": engine.Moved}},
		{"a re-timing, a room and a cover", func(s *engine.State) {
			start, end := tm("10:00"), tm("10:15")
			s.Staff = append(s.Staff, engine.Staff{ID: 2, Name: "Ahmed Rahim"})
			s.Changes = append(s.Changes, engine.DayChange{Ref: standup, Start: &start, End: &end, RoomID: 2, StaffIDs: []int64{2}})
		}, map[string]engine.What{"s/2026-10-13/1/1": engine.Retimed | engine.Rehoused | engine.Restaffed}},
		{"a closure", func(s *engine.State) {
			s.Closures = append(s.Closures, engine.Closure{ID: 1, From: d(2026, 10, 20), To: d(2026, 10, 20)})
		}, map[string]engine.What{"s/2026-10-20/1/1": engine.Cancelled, "s/2026-10-20/2/2": engine.Cancelled}},
		{"a class time moved an hour, every date", func(s *engine.State) {
			s.ClassTimes[0].Start, s.ClassTimes[0].End = tm("08:00"), tm("08:15")
		}, map[string]engine.What{"s/2026-10-13/1/1": engine.Retimed, "s/2026-10-20/1/1": engine.Retimed}},
		{"a one-off added and a series ended", func(s *engine.State) {
			s.OneOffs = append(s.OneOffs, engine.OneOff{ID: 7, ClassID: 1, RoomID: 1, Date: d(2026, 10, 14), Start: tm("15:00"), End: tm("16:00")})
			s.Series[1].End = d(2026, 10, 19)
		}, map[string]engine.What{"o/7": engine.Added, "s/2026-10-20/2/2": engine.Cancelled | engine.Removed}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			before := exampleState()
			after := before.Clone()
			c.edit(&after)
			tb, ta := mustTimetable(t, before), mustTimetable(t, after)
			got := map[string]engine.What{}
			for _, x := range engine.DiffSessions(tb, ta, d(2026, 10, 12), d(2026, 10, 26)) {
				if _, dup := got[x.Key()]; dup {
					t.Errorf("%s reported twice", x.Key())
				}
				got[x.Key()] = x.What
			}
			if fmt.Sprint(got) != fmt.Sprint(c.want) {
				t.Errorf("got %v, want %v", got, c.want)
			}
		})
	}
}

func TestDiffSessionsRestoreKeepsBoth(t *testing.T) {
	d := engine.MustDate
	s := exampleState()
	ref := engine.SessionRef{Date: d(2026, 10, 13), ClassTimeID: 1, ClassID: 1}
	s.Changes = []engine.DayChange{{Ref: ref, Cancelled: true, Note: "ill"}}
	after := s.Clone()
	after.Changes = nil
	diffs := engine.DiffSessions(mustTimetable(t, s), mustTimetable(t, after), d(2026, 10, 12), d(2026, 10, 19))
	if len(diffs) != 1 || diffs[0].What != engine.Restored || !diffs[0].Before.Cancelled || diffs[0].After.Cancelled {
		t.Fatalf("got %+v, want the standup restored with both versions", diffs)
	}
}

func mustTimetable(t *testing.T, s engine.State) *engine.Timetable {
	t.Helper()
	tt, err := engine.New(s)
	if err != nil {
		t.Fatal(err)
	}
	return tt
}

// TestDiffSessionsOracle compares DiffSessions, after random edits of a
// synthetic business, with the plain reading of its contract: resolve a
// wide margin of dates in both timetables, key every session by its
// identity, and compare every session found on a date of the range on
// either side.
func TestDiffSessionsOracle(t *testing.T) {
	today := engine.MustDate(2026, 11, 29)
	r := rand.New(rand.NewPCG(33, 1))
	base := enginetest.Business(enginetest.Options{ClassTimes: 60, Seed: 3, Today: today})
	runs := 200
	if testing.Short() {
		runs = 40
	}
	for run := range runs {
		after := base.Clone()
		what := enginetest.RandomEdit(r, &after, today)
		if engine.Validate(after) != nil {
			continue
		}
		tb, ta := mustTimetable(t, base), mustTimetable(t, after)
		from := today.AddDays(r.IntN(30) - 10)
		to := from.AddDays(1 + r.IntN(60))
		got := map[string]engine.What{}
		for _, x := range engine.DiffSessions(tb, ta, from, to) {
			got[x.Key()] = x.What
		}
		want := oracleDiff(tb, ta, from, to)
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("run %d, %s, %s..%s:\ngot  %v\nwant %v", run, what, from, to, got, want)
		}
		base = after
	}
}

func oracleDiff(before, after *engine.Timetable, from, to engine.Date) map[string]engine.What {
	// Day changes move sessions within half a year: a year each side
	// finds every session wherever it went.
	all := func(t *engine.Timetable) map[string]engine.Session {
		m := map[string]engine.Session{}
		for _, day := range t.Days(from.AddDays(-366), to.AddDays(366)) {
			for _, s := range day.Sessions {
				m[s.Key()] = s
			}
		}
		return m
	}
	a, b := all(before), all(after)
	out := map[string]engine.What{}
	for _, side := range []map[string]engine.Session{a, b} {
		for key, s := range side {
			if s.Date < from || s.Date >= to {
				continue
			}
			x, was := a[key]
			y, is := b[key]
			var w engine.What
			switch {
			case was && !is:
				w = engine.Removed
				if !x.Cancelled {
					w |= engine.Cancelled
				}
			case !was && is:
				w = engine.Added
			default:
				if !x.Cancelled && y.Cancelled {
					w |= engine.Cancelled
				}
				if x.Cancelled && !y.Cancelled {
					w |= engine.Restored
				}
				if x.Date != y.Date {
					w |= engine.Moved
				}
				if x.Start != y.Start || x.End != y.End {
					w |= engine.Retimed
				}
				if x.RoomID != y.RoomID {
					w |= engine.Rehoused
				}
				if !slices.Equal(x.StaffIDs, y.StaffIDs) {
					w |= engine.Restaffed
				}
				if x.ClassID != y.ClassID {
					w |= engine.Reclassed
				}
				if x.Capacity != y.Capacity {
					w |= engine.Resized
				}
			}
			if w != 0 {
				out[key] = w
			}
		}
	}
	return out
}
