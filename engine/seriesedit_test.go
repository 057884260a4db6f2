package engine

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// seriesChange is an edit of a series as a client sends it, applied as the
// API applies its input.
type seriesChange struct {
	id      int64
	anchor  *Date
	end     *Date
	cycle   *int
	entries []Entry // nil: unchanged; weeks in the edit's numbering
}

func (c seriesChange) edit(from Date, carry bool) SeriesEdit {
	return SeriesEdit{From: from, Anchor: c.anchor != nil, End: c.end, Cycle: c.cycle, Entries: c.entries != nil, Carry: carry}
}

func (c seriesChange) apply(s *State, newID func() int64) func(week func(int) int) error {
	return func(week func(int) int) error {
		i := slices.IndexFunc(s.Series, func(x Series) bool { return x.ID == c.id })
		if c.anchor != nil {
			s.Series[i].Anchor = *c.anchor
		}
		if c.end != nil {
			s.Series[i].End = *c.end
		}
		if c.cycle != nil {
			s.SetCycle(c.id, *c.cycle)
		}
		if c.entries != nil {
			s.Entries = slices.DeleteFunc(s.Entries, func(e Entry) bool { return e.SeriesID == c.id })
			for _, e := range c.entries {
				s.Entries = append(s.Entries, Entry{ID: newID(), SeriesID: c.id, ClassTimeID: e.ClassTimeID, ClassID: e.ClassID, Week: week(e.Week)})
			}
		}
		return nil
	}
}

// randomSeriesChange edits a random series of s: some of its entries kept,
// others added, a new cycle, end or start, each or none.
func randomSeriesChange(r *rand.Rand, s State, today Date) seriesChange {
	sr := s.Series[r.IntN(len(s.Series))]
	ws := s.Business.WeekStart
	c := seriesChange{id: sr.ID}
	week := func() *Date { d := today.WeekStart(ws) + Date(7*(r.IntN(16)-6)); return &d }
	cycle := sr.Cycle
	if r.IntN(3) == 0 {
		cycle = 1 + r.IntN(4)
		c.cycle = &cycle
	}
	if r.IntN(8) == 0 {
		c.anchor = week()
	}
	if r.IntN(4) == 0 {
		if c.end = week(); r.IntN(3) == 0 {
			*c.end = 0
		} else {
			*c.end = max(*c.end, sr.Anchor+7, today.WeekStart(ws)-7) + Date(7*r.IntN(10))
		}
	}
	if r.IntN(4) != 0 {
		c.entries = []Entry{}
		slot := map[[2]int64]bool{}
		add := func(e Entry) {
			if k := [2]int64{e.ClassTimeID, int64(e.Week)}; !slot[k] && e.Week <= cycle {
				slot[k] = true
				c.entries = append(c.entries, e)
			}
		}
		for _, e := range s.Entries {
			if e.SeriesID == sr.ID && r.IntN(4) != 0 {
				add(e)
			}
		}
		for range r.IntN(3) {
			add(Entry{ClassTimeID: s.ClassTimes[r.IntN(len(s.ClassTimes))].ID,
				ClassID: s.Classes[r.IntN(len(s.Classes))].ID, Week: 1 + r.IntN(cycle)})
		}
	}
	return c
}

// TestEditSeriesAgainstBruteForce edits random series of random businesses
// and checks EditSeries against a brute force: the same edit made as if
// this week's past days did not exist (from the week it applies, with
// today that week's first day) must keep every date before that week as
// it was, and EditSeries must refuse exactly the edits whose result, so
// made, differs on some date before today, scanned one by one from long
// before any series started. Otherwise both give the same state.
func TestEditSeriesAgainstBruteForce(t *testing.T) {
	r := rand.New(rand.NewPCG(16, 2))
	var inPlace, splits, pastRefused, earlyRefused, otherRefused int
	for tries := 0; tries < 10000 && (splits < 300 || pastRefused < 50); tries++ {
		s, today, _, to := randomState(r)
		if Validate(s) != nil || len(s.Series) == 0 {
			continue
		}
		today += Date(r.IntN(7))
		thisWeek := today.WeekStart(s.Business.WeekStart)
		var from Date
		if r.IntN(3) != 0 {
			from = today + Date(r.IntN(70)-10)
		}
		at := thisWeek
		if from != 0 {
			at = from.WeekStart(s.Business.WeekStart)
		}
		c := randomSeriesChange(r, s, today)
		carry := r.IntN(4) != 0
		ids := func() func() int64 { next := int64(1000); return func() int64 { next++; return next } }
		gotID, wantID := ids(), ids()

		got := s.Clone()
		kept, lost, err := got.EditSeries(c.id, c.edit(from, carry), today, gotID, c.apply(&got, gotID))
		if err != nil && !reflect.DeepEqual(got, s.Clone()) {
			t.Fatalf("try %d: refused (%v) but the state changed", tries, err)
		}
		if at < thisWeek {
			if err == nil || !strings.Contains(err.Error(), "has already happened; an edit can apply from this week") {
				t.Fatalf("try %d: an edit from the week of %s, before this week %s: %v", tries, at, thisWeek, err)
			}
			earlyRefused++
			continue
		}

		// The same edit with no day in the past at all: what it changes.
		lo := at - 7*40
		want := s.Clone()
		wantKept, wantLost, wantErr := want.EditSeries(c.id, c.edit(at, carry), lo, wantID, c.apply(&want, wantID))
		if wantErr != nil {
			if err == nil {
				t.Fatalf("try %d: got nil, want %v", tries, wantErr)
			}
			otherRefused++
			continue
		}
		was, is := mustNew(t, s), mustNew(t, want)
		var changed Date
		for d := lo; d < to; d++ {
			if a, b := happening(was, was.Day(d)), happening(is, is.Day(d)); !slices.Equal(a, b) {
				changed = d
				break
			}
		}
		if changed != 0 && changed < today {
			if err == nil || !strings.Contains(err.Error(), "which has already happened") {
				t.Fatalf("try %d: the edit changes %s, before today %s, and was not refused: %v", tries, changed, today, err)
			}
			pastRefused++
			continue
		}
		if err != nil {
			t.Fatalf("try %d: refused (%v), but the first date the edit changes is %s (today %s)", tries, err, changed, today)
		}
		if !reflect.DeepEqual(got, want) || kept != wantKept || !slices.Equal(lost, wantLost) {
			t.Fatalf("try %d: the edit with today %s differs from the one with no past", tries, today)
		}
		if kept == 0 {
			inPlace++
		} else {
			splits++
		}
	}
	t.Logf("%d in place, %d splits, %d refused for changing the past, %d for an early week, %d for other reasons",
		inPlace, splits, pastRefused, earlyRefused, otherRefused)
	if splits < 300 || pastRefused < 50 || inPlace < 50 {
		t.Fatalf("too few cases of each kind")
	}
}

// happening describes a day's sessions by what happens: which session (its
// identity, which bookings hang on), when, where, what and with whom,
// whether cancelled, and the names of the series it is listed under (a
// split gives the weeks before it to a series of the same name) without
// their weeks, which a split renumbers. Notes and the record of a change are
// not part of it.
func happening(tt *Timetable, day []Session) []string {
	var out []string
	for _, x := range day {
		var names []string
		for _, sw := range x.Series {
			names = append(names, tt.series[sw.SeriesID].Name)
		}
		slices.Sort(names)
		out = append(out, fmt.Sprintf("%s %s-%s room %d class %d staff %v cancelled=%v [%s]", x.Key(), x.Start, x.End, x.RoomID, x.ClassID, x.StaffIDs,
			x.Cancelled, strings.Join(names, ", ")))
	}
	slices.Sort(out)
	return out
}

// TestEditSeriesUnknownRows: an edit whose entries name a class time or a
// class the state does not have is NotFound, naming the field, and leaves
// the state as it was; nothing is compiled from the entries before that.
func TestEditSeriesUnknownRows(t *testing.T) {
	base := validFx()
	today := MustParse("2026-11-03")
	for _, tc := range []struct {
		name, field string
		entry       Entry
	}{
		{"class time", "classTimeId", Entry{ClassTimeID: 99999, ClassID: base.Entries[0].ClassID, Week: 1}},
		{"class", "classId", Entry{ClassTimeID: base.Entries[0].ClassTimeID, ClassID: 99999, Week: 1}},
	} {
		for from, when := range map[Date]string{0: "this week", MustParse("2026-11-16"): "a later week"} {
			t.Run(tc.name+" from "+when, func(t *testing.T) {
				s := base.State.Clone()
				next := int64(1000)
				newID := func() int64 { next++; return next }
				c := seriesChange{id: s.Series[0].ID, entries: []Entry{tc.entry}}
				_, _, err := s.EditSeries(c.id, c.edit(from, true), today, newID, c.apply(&s, newID))
				var ve *ValidationError
				if !errors.As(err, &ve) || ErrorCode(err) != NotFound || ve.First().Field != tc.field {
					t.Fatalf("got %v, want NotFound on %s", err, tc.field)
				}
				if !reflect.DeepEqual(s, base.State.Clone()) {
					t.Errorf("the refused edit changed the state")
				}
			})
		}
	}
}
