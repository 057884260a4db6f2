package engine

import (
	"cmp"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
	"time"
)

// oracleImpact is the impact of a write found the long way: every date
// from from up to to resolved before and after, and each session that is
// on before compared with itself after.
func oracleImpact(before, after *Timetable, booked Booked, from, to Date) []string {
	var out []string
	for d := from; d < to; d++ {
		for _, s := range before.Day(d) {
			if s.Cancelled {
				continue
			}
			is, ok := after.sessionByID(idOf(&s))
			diff, _ := diffOf(&s, is, true, ok)
			hit := diff.What&ImpactMask != 0
			if !hit && ok && is.Capacity > 0 && (s.Capacity == 0 || is.Capacity < s.Capacity) {
				firm, waiting, singles := 0, 0, booked.OneOffs[s.OneOffID]
				if s.OneOffID == 0 {
					ref := s.Ref()
					singles = booked.Series[Place{ref.ClassTimeID, ref.ClassID}][ref.Date]
					for _, r := range before.StandingOn(ref) {
						if r.Waitlist {
							waiting++
						} else {
							firm++
						}
					}
				}
				hit = pushed(int(s.Capacity), int(is.Capacity), singles, firm, waiting)
			}
			if hit {
				out = append(out, s.Key())
			}
		}
	}
	slices.Sort(out)
	return out
}

// keysOf lists the sessions of runs whose original dates fall in
// [from, to), by key.
func affectedKeys(runs []AffectedRun, from, to Date) []string {
	var out []string
	for _, r := range runs {
		if r.OneOff != 0 {
			out = append(out, SessionKey(SessionRef{}, r.OneOff))
			continue
		}
		lo := from
		if r.At != 0 {
			lo = r.Dates.First // a session moved: its before date is what counts
		}
		for _, d := range r.Dates.Dates(lo, to) {
			out = append(out, SessionRef{Date: d, ClassTimeID: r.Place.ClassTime, ClassID: r.Place.Class}.Key())
		}
	}
	slices.Sort(out)
	return out
}

// mutate makes one random write of s: a session cancelled or moved, a
// class time re-timed, moved to another day, given fewer places or
// retired, a class given other staff, a series ended or moved, a closure
// added or removed, a day change undone, a one-off changed or removed.
func mutate(r *rand.Rand, s *State, from Date, weeks int) {
	switch r.IntN(12) {
	case 0, 1: // a day change: cancel, move, re-time
		if len(s.Entries) == 0 {
			return
		}
		e := s.Entries[r.IntN(len(s.Entries))]
		ct := s.ClassTimes[e.ClassTimeID-1]
		d := DayIn(WeekOf(from, s.Business.WeekStart)+r.IntN(weeks), ct.Weekday, s.Business.WeekStart)
		c := DayChange{Ref: SessionRef{Date: d, ClassTimeID: ct.ID, ClassID: e.ClassID}}
		switch r.IntN(3) {
		case 0:
			c.Cancelled = true
		case 1:
			c.Date = d + Date(1+r.IntN(6))
		default:
			st := ct.Start + 15
			en := ct.End + 15
			c.Start, c.End = &st, &en
		}
		s.Changes = slices.DeleteFunc(s.Changes, func(x DayChange) bool { return x.Ref == c.Ref })
		s.Changes = append(s.Changes, c)
	case 2: // re-time a class time
		i := r.IntN(len(s.ClassTimes))
		s.ClassTimes[i].Start += 15
		s.ClassTimes[i].End += 15
	case 3: // another weekday
		i := r.IntN(len(s.ClassTimes))
		s.ClassTimes[i].Weekday = (s.ClassTimes[i].Weekday + 1) % 7
	case 4: // fewer places
		i := r.IntN(len(s.ClassTimes))
		s.ClassTimes[i].Capacity = r.IntN(3)
	case 5: // retire a class time, or take an entry out
		if r.IntN(2) == 0 {
			s.ClassTimes[r.IntN(len(s.ClassTimes))].Inactive = true
		} else if len(s.Entries) > 0 {
			i := r.IntN(len(s.Entries))
			s.Entries = slices.Delete(s.Entries, i, i+1)
		}
	case 6: // other staff
		i := r.IntN(len(s.Classes))
		s.Classes[i].StaffIDs = []int64{s.Staff[r.IntN(len(s.Staff))].ID}
	case 7: // a series ends, or starts elsewhere
		i := r.IntN(len(s.Series))
		if r.IntN(2) == 0 {
			s.Series[i].End = from.WeekStart(s.Business.WeekStart) + Date(7*(1+r.IntN(weeks)))
			if s.Series[i].End <= s.Series[i].Anchor {
				s.Series[i].End = s.Series[i].Anchor + 7
			}
		} else {
			s.Series[i].Anchor += 7
			if s.Series[i].End != 0 && s.Series[i].End <= s.Series[i].Anchor {
				s.Series[i].End = s.Series[i].Anchor + 7
			}
		}
	case 8: // a closure, pausing or not
		c := Closure{ID: 100 + int64(len(s.Closures)), From: from + Date(r.IntN(7*weeks)), Reason: "closed", Pause: r.IntN(2) == 0}
		c.To = c.From + Date(r.IntN(25))
		if r.IntN(2) == 0 {
			c.RoomIDs = []int64{s.Rooms[r.IntN(len(s.Rooms))].ID}
		}
		s.Closures = append(s.Closures, c)
	case 9: // a closure or a day change undone
		if len(s.Closures) > 0 && r.IntN(2) == 0 {
			i := r.IntN(len(s.Closures))
			s.Closures = slices.Delete(s.Closures, i, i+1)
		} else if len(s.Changes) > 0 {
			i := r.IntN(len(s.Changes))
			s.Changes = slices.Delete(s.Changes, i, i+1)
		}
	case 10: // a one-off re-timed, cancelled, given fewer places or removed
		if len(s.OneOffs) == 0 {
			return
		}
		i := r.IntN(len(s.OneOffs))
		switch r.IntN(4) {
		case 0:
			s.OneOffs[i].Start += 15
			s.OneOffs[i].End += 15
		case 1:
			s.OneOffs[i].Cancelled = true
		case 2:
			s.OneOffs[i].Capacity = r.IntN(2)
		default:
			s.OneOffs = slices.Delete(s.OneOffs, i, i+1)
		}
	case 11: // the week starts on another day
		s.Business.WeekStart = (s.Business.WeekStart + 1) % 7
	}
}

// TestImpactAgainstOracle compares Impact with a day-by-day diff of the
// timetables before and after random writes on random businesses (day
// changes, closures with and without pauses, one-offs, standing places
// and single bookings), every date up to well past every date the
// businesses name.
func TestImpactAgainstOracle(t *testing.T) {
	const want = 400
	r := rand.New(rand.NewPCG(32, 2))
	valid, affected, unbounded := 0, 0, 0
	for tries := 0; valid < want; tries++ {
		if tries > 10*want {
			t.Fatalf("only %d of %d generated writes were valid", valid, tries)
		}
		s, _, from, to := randomState(r)
		for i := range s.ClassTimes {
			s.ClassTimes[i].Capacity = r.IntN(6)
		}
		for i := range s.OneOffs {
			s.OneOffs[i].Capacity = r.IntN(4)
		}
		if Validate(s) != nil {
			continue
		}
		loads := addStanding(r, &s, from, to)
		booked := Booked{Series: map[Place]map[Date]int{}, OneOffs: map[int64]int{}}
		for k, l := range loads {
			booked.Series[Place{k.classTime, k.class}] = l.Singles
		}
		for _, o := range s.OneOffs {
			booked.OneOffs[o.ID] = r.IntN(4)
		}
		weeks := int(to-from) / 7
		after := s.Clone()
		for n := 1 + r.IntN(3); n > 0; n-- {
			mutate(r, &after, from, weeks)
		}
		after.Standing = slices.DeleteFunc(after.Standing, func(x Standing) bool { return false })
		if Validate(after) != nil {
			continue
		}
		tb, err := New(s)
		if err != nil {
			t.Fatal(err)
		}
		ta, err := New(after)
		if err != nil {
			continue // a standing place left on a class time gone
		}
		valid++
		today := from + Date(r.IntN(60))
		end := to + 400 // past every date the business names, and a lap of most rotations
		calls := 0
		get := func() Booked { calls++; return booked }
		runs := Impact(tb, ta, get, today, end-1)
		if calls > 1 {
			t.Fatalf("write %d: booked read %d times", valid, calls)
		}
		got := affectedKeys(runs, today, end)
		oracle := oracleImpact(tb, ta, booked, today, end)
		if !slices.Equal(got, oracle) {
			t.Fatalf("write %d, today %s:\nimpact %v\noracle %v\nruns %+v\nbefore %+v\nafter %+v", valid, today, got, oracle, runs, s, after)
		}
		if n, finite := CountAffected(runs); !finite || n != len(got) {
			t.Fatalf("write %d: counted %d (finite %v) for %d sessions: runs overlap", valid, n, finite, len(got))
		}
		affected += len(got)
		// Without an end: the same sessions up to end, and a count that
		// ends exactly when no run goes on to the end of time.
		open := Impact(tb, ta, get, today, 0)
		if g := affectedKeys(open, today, end); !slices.Equal(g, oracle) {
			t.Fatalf("write %d without end:\nimpact %v\noracle %v", valid, g, oracle)
		}
		if n, finite := CountAffected(open); finite {
			if far := affectedKeys(open, today, MaxDate+1); len(far) != n {
				t.Fatalf("write %d: counted %d, listed %d", valid, n, len(far))
			}
		} else {
			unbounded++
		}
		// The first sessions, in the order of their dates.
		first := FirstAffected(tb, ta, runs, 20)
		if len(first) != min(20, len(got)) {
			t.Fatalf("write %d: %d first sessions of %d", valid, len(first), len(got))
		}
		for i := 1; i < len(first); i++ {
			if first[i].Before.Date < first[i-1].Before.Date {
				t.Fatalf("write %d: first sessions out of order: %s before %s", valid, first[i-1].Before.Date, first[i].Before.Date)
			}
		}
	}
	if affected == 0 || unbounded == 0 {
		t.Fatalf("the writes affected %d sessions, %d without end: the test compares too little", affected, unbounded)
	}
	t.Logf("%d writes, %d affected sessions matched, %d without end", valid, affected, unbounded)
}

// slowFirst is FirstAffected the long way, the oracle of its fast path:
// every session of the runs in turn, each looked up in both timetables by
// its id (Session, sessionByID) and compared.
func slowFirst(before, after *Timetable, runs []AffectedRun, n int) []AffectedSession {
	type next struct {
		r *AffectedRun
		d Date
	}
	var all []next
	for i := range runs {
		r := &runs[i]
		for d, k := r.Dates.First, 0; k < n; d, k = d+Date(7*r.Dates.Every), k+1 { // the first n of a run at most
			all = append(all, next{r, d})
			if r.Dates.Every == 0 || (r.Dates.Until != 0 && d+Date(7*r.Dates.Every) > r.Dates.Until) || d+Date(7*r.Dates.Every) > MaxDate {
				break
			}
		}
	}
	slices.SortStableFunc(all, func(a, b next) int {
		return cmp.Or(cmp.Compare(a.r.at(a.d), b.r.at(b.d)), cmp.Compare(a.r.Place.ClassTime, b.r.Place.ClassTime),
			cmp.Compare(a.r.Place.Class, b.r.Place.Class), cmp.Compare(a.r.OneOff, b.r.OneOff), cmp.Compare(a.d, b.d))
	})
	var out []AffectedSession
	for _, x := range all[:min(n, len(all))] {
		var s AffectedSession
		if x.r.OneOff != 0 {
			was, _ := before.sessionByID(sessionID{oneOff: x.r.OneOff})
			is, ok := after.sessionByID(sessionID{oneOff: x.r.OneOff})
			s.SessionDiff, _ = diffOf(was, is, true, ok)
		} else {
			s.Ref = SessionRef{Date: x.d, ClassTimeID: x.r.Place.ClassTime, ClassID: x.r.Place.Class}
			was, _ := before.Session(s.Ref)
			is, ok := after.Session(s.Ref)
			s.SessionDiff, _ = diffOf(&was, &is, true, ok)
		}
		out = append(out, s)
	}
	return out
}

// TestFirstAffectedAgainstOracle compares FirstAffected and ListAffected,
// which resolve a run's sessions from its class time and class found
// once, and AffectedList.Standing with the sessions and standing places
// looked up one by one (slowFirst, StandingOn), on the random writes of
// TestImpactAgainstOracle: the runs Impact gives, and runs of every week of
// every class time and class, which cross day changes, closures, weeks
// without the session and class times gone or moved to another day.
func TestFirstAffectedAgainstOracle(t *testing.T) {
	const want = 300
	r := rand.New(rand.NewPCG(32, 7))
	valid, compared, fallbacks := 0, 0, 0
	for tries := 0; valid < want; tries++ {
		if tries > 10*want {
			t.Fatalf("only %d of %d generated writes were valid", valid, tries)
		}
		s, _, from, to := randomState(r)
		for i := range s.ClassTimes {
			s.ClassTimes[i].Capacity = r.IntN(6)
		}
		if Validate(s) != nil {
			continue
		}
		addStanding(r, &s, from, to)
		after := s.Clone()
		for n := 1 + r.IntN(3); n > 0; n-- {
			mutate(r, &after, from, int(to-from)/7)
		}
		if Validate(after) != nil {
			continue
		}
		tb, err := New(s)
		if err != nil {
			t.Fatal(err)
		}
		ta, err := New(after)
		if err != nil {
			continue
		}
		valid++
		today := from + Date(r.IntN(60))
		every := []AffectedRun{}
		for _, g := range tb.groups {
			first := today + Date((int(g.ct.Weekday)-int(today.Weekday())+7)%7)
			every = append(every, AffectedRun{Place: Place{g.ct.ID, g.class.ID}, Dates: DateRun{First: first, Every: 1, Until: first + Date(7*r.IntN(80))}})
		}
		for _, runs := range [][]AffectedRun{Impact(tb, ta, nil, today, 0), every} {
			n := 1 + r.IntN(400)
			got, oracle := FirstAffected(tb, ta, runs, n), slowFirst(tb, ta, runs, n)
			if len(got) != len(oracle) {
				t.Fatalf("write %d: %d sessions, oracle %d", valid, len(got), len(oracle))
			}
			l := ListAffected(tb, ta, runs, n)
			standing := map[int][]Standing{}
			l.Standing(func(i int, on []Standing) { standing[i] = on })
			for i := range got {
				if !reflect.DeepEqual(got[i], oracle[i]) {
					t.Fatalf("write %d, session %d:\ngot    %+v\noracle %+v", valid, i, got[i], oracle[i])
				}
				if at := l.At(i); !reflect.DeepEqual(at, got[i]) {
					t.Fatalf("write %d, session %d: At %+v, FirstAffected %+v", valid, i, at, got[i])
				}
				ref, oneOff := l.Ref(i)
				if ref != got[i].Ref || oneOff != got[i].Before.OneOffID {
					t.Fatalf("write %d, session %d: Ref %v %d of %s", valid, i, ref, oneOff, got[i].Key())
				}
				var on []Standing
				if got[i].Ref != (SessionRef{}) {
					on = tb.StandingOn(got[i].Ref)
				}
				if !slices.Equal(standing[i], on) {
					t.Fatalf("write %d, session %s: standing %v, StandingOn %v", valid, got[i].Key(), standing[i], on)
				}
				if got[i].Before.Changed || got[i].After.Changed || got[i].Before.Cancelled || got[i].After.Cancelled {
					fallbacks++
				}
			}
			compared += len(got)
		}
	}
	if compared == 0 || fallbacks == 0 {
		t.Fatalf("%d sessions compared, %d changed or cancelled: the test compares too little", compared, fallbacks)
	}
	t.Logf("%d writes, %d sessions compared, %d of them changed or cancelled", valid, compared, fallbacks)
}

// TestImpact names the cases on one weekly class.
func TestImpact(t *testing.T) {
	ws := time.Sunday
	anchor := MustDate(2026, 12, 6)
	base := State{
		Business:   Business{Kind: Gym, Name: "Gym", Currency: "KD", Location: time.UTC, WeekStart: ws},
		Rooms:      []Room{{ID: 1, Name: "Studio"}},
		Staff:      []Staff{{ID: 1, Name: "Ana"}, {ID: 2, Name: "Ben"}},
		Activities: []Activity{{ID: 1, Name: "Yoga"}},
		Classes:    []Class{{ID: 1, ActivityID: 1, StaffIDs: []int64{1}}},
		ClassTimes: []ClassTime{{ID: 1, RoomID: 1, Weekday: time.Tuesday, Start: MustTime("18:00"), End: MustTime("19:00"), Capacity: 3}},
		Series:     []Series{{ID: 1, Name: "Weekly", Anchor: anchor, Cycle: 1}},
		Entries:    []Entry{{ID: 1, SeriesID: 1, ClassTimeID: 1, ClassID: 1, Week: 1}},
		Standing:   []Standing{{ID: 1, ClientID: 1, ClassTimeID: 1, ClassID: 1, From: anchor, Until: anchor + 30}},
	}
	tue := anchor + 2
	p := Place{1, 1}
	tests := []struct {
		name   string
		edit   func(s *State)
		booked Booked
		want   []AffectedRun
	}{
		{name: "a note changes nothing", edit: func(s *State) { s.Changes = []DayChange{{Ref: SessionRef{tue, 1, 1}, Note: "hi"}} }},
		{name: "one date cancelled", edit: func(s *State) { s.Changes = []DayChange{{Ref: SessionRef{tue + 7, 1, 1}, Cancelled: true}} },
			want: []AffectedRun{{Place: p, Dates: DateRun{First: tue + 7, Until: tue + 7}}}},
		{name: "re-timed for ever", edit: func(s *State) { s.ClassTimes[0].Start += 30 },
			want: []AffectedRun{{Place: p, Dates: DateRun{First: tue, Every: 1}}}},
		{name: "re-staffed for ever, and a week closed", edit: func(s *State) {
			s.Classes[0].StaffIDs = []int64{2}
			s.Closures = []Closure{{ID: 1, From: tue + 7, To: tue + 7}}
		}, want: []AffectedRun{{Place: p, Dates: DateRun{First: tue, Until: tue}}, {Place: p, Dates: DateRun{First: tue + 7, Until: tue + 7}},
			{Place: p, Dates: DateRun{First: tue + 14, Every: 1}}}},
		{name: "ended after four weeks", edit: func(s *State) { s.Series[0].End = anchor + 28 },
			want: []AffectedRun{{Place: p, Dates: DateRun{First: tue + 28, Every: 1}}}},
		{name: "every other week in a two-week rotation", edit: func(s *State) { s.Series[0].Cycle = 2 },
			want: []AffectedRun{{Place: p, Dates: DateRun{First: tue + 7, Every: 2}}}},
		{name: "two places: the dates of the standing place and two single bookings", edit: func(s *State) { s.ClassTimes[0].Capacity = 2 },
			booked: Booked{Series: map[Place]map[Date]int{p: {tue + 14: 2, tue + 70: 3, tue + 77: 2}}},
			want:   []AffectedRun{{Place: p, Dates: DateRun{First: tue + 14, Until: tue + 14}}, {Place: p, Dates: DateRun{First: tue + 70, Until: tue + 70}}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			after := base.Clone()
			tc.edit(&after)
			tb, ta := mustNew(t, base), mustNew(t, after)
			got := Impact(tb, ta, func() Booked { return tc.booked }, tue, 0)
			if !slices.Equal(got, tc.want) {
				t.Fatalf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}
