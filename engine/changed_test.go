package engine

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
	"time"
)

// edit is one kind of write a random test makes to a state: it returns the
// changed copy (sharing nothing it changes with s) and whether the edit
// touches only dated rows, whose range must then be bounded.
type edit struct {
	name  string
	dated bool
	apply func(r *rand.Rand, s State, from Date, weeks int) State
}

var edits = []edit{
	{"nothing", true, func(_ *rand.Rand, s State, _ Date, _ int) State { return s }},
	{"rename a client", true, func(_ *rand.Rand, s State, _ Date, _ int) State {
		s.Clients = []Client{{ID: 1, Name: "Nadia"}}
		return s
	}},
	{"add a one-off", true, func(r *rand.Rand, s State, from Date, weeks int) State {
		start := LocalTime(8*60 + 15*r.IntN(13))
		s.OneOffs = append(slices.Clone(s.OneOffs), OneOff{ID: 99, ClassID: s.Classes[0].ID, RoomID: s.Rooms[0].ID,
			Date: from + Date(r.IntN(7*weeks)), Start: start, End: start + 45})
		return s
	}},
	{"move or cancel a one-off", true, func(r *rand.Rand, s State, _ Date, _ int) State {
		if len(s.OneOffs) == 0 {
			return s
		}
		s.OneOffs = slices.Clone(s.OneOffs)
		o := &s.OneOffs[r.IntN(len(s.OneOffs))]
		if r.IntN(2) == 0 {
			o.Date += Date(r.IntN(30) - 15)
		} else {
			o.Cancelled = !o.Cancelled
		}
		return s
	}},
	{"remove a day change", true, func(r *rand.Rand, s State, _ Date, _ int) State {
		if len(s.Changes) == 0 {
			return s
		}
		i := r.IntN(len(s.Changes))
		s.Changes = slices.Delete(slices.Clone(s.Changes), i, i+1)
		return s
	}},
	{"cancel or move a session", true, func(r *rand.Rand, s State, from Date, weeks int) State {
		d := from + Date(r.IntN(7*weeks))
		tt := compile(s)
		day := tt.Day(d)
		for _, x := range day {
			if x.IsOneOff() || tt.changes[x.Ref()] != nil {
				continue
			}
			c := DayChange{Ref: x.Ref(), Cancelled: r.IntN(2) == 0}
			if !c.Cancelled {
				c.Date = d + Date(1+r.IntN(10))
			}
			s.Changes = append(slices.Clone(s.Changes), c)
			return s
		}
		return s
	}},
	{"book or cancel a room", true, func(r *rand.Rand, s State, from Date, weeks int) State {
		if len(s.RoomBookings) > 0 && r.IntN(2) == 0 {
			s.RoomBookings = slices.Clone(s.RoomBookings)
			b := &s.RoomBookings[r.IntN(len(s.RoomBookings))]
			b.Cancelled = !b.Cancelled
			return s
		}
		s.RoomBookings = append(slices.Clone(s.RoomBookings), RoomBooking{ID: 99, RoomID: s.Rooms[0].ID,
			Date: from + Date(r.IntN(7*weeks)), Start: MustTime("06:00"), End: MustTime("06:30"), Units: 1})
		return s
	}},
	{"close some days", true, func(r *rand.Rand, s State, from Date, weeks int) State {
		c := Closure{ID: 99, From: from + Date(r.IntN(7*weeks)), Reason: "storm"}
		c.To = c.From + Date(r.IntN(10))
		s.Closures = append(slices.Clone(s.Closures), c)
		return s
	}},
	{"pause the rotations", false, func(r *rand.Rand, s State, from Date, weeks int) State {
		c := Closure{ID: 99, From: from + Date(r.IntN(7*weeks)), Reason: "summer", Pause: true}
		c.To = c.From + Date(7+r.IntN(14))
		s.Closures = append(slices.Clone(s.Closures), c)
		return s
	}},
	{"move a class time", false, func(r *rand.Rand, s State, _ Date, _ int) State {
		s.ClassTimes = slices.Clone(s.ClassTimes)
		ct := &s.ClassTimes[r.IntN(len(s.ClassTimes))]
		ct.Start, ct.End = ct.Start+15, ct.End+15
		if ct.End > EndOfDay {
			ct.Start, ct.End = ct.Start-30, ct.End-30
		}
		return s
	}},
	{"start a series earlier", false, func(r *rand.Rand, s State, _ Date, _ int) State {
		s.Series = slices.Clone(s.Series)
		sr := &s.Series[r.IntN(len(s.Series))]
		sr.Anchor -= Date(7 * (1 + r.IntN(8)))
		return s
	}},
	{"move an entry to another week", false, func(r *rand.Rand, s State, _ Date, _ int) State {
		if len(s.Entries) == 0 {
			return s
		}
		s.Entries = slices.Clone(s.Entries)
		e := &s.Entries[r.IntN(len(s.Entries))]
		e.Week = 1 + r.IntN(4)
		return s
	}},
	{"give a class other staff", false, func(r *rand.Rand, s State, _ Date, _ int) State {
		s.Classes = slices.Clone(s.Classes)
		c := &s.Classes[r.IntN(len(s.Classes))]
		c.StaffIDs = []int64{s.Staff[r.IntN(len(s.Staff))].ID}
		return s
	}},
	{"shrink a room", false, func(r *rand.Rand, s State, _ Date, _ int) State {
		s.Rooms = slices.Clone(s.Rooms)
		room := &s.Rooms[r.IntN(len(s.Rooms))]
		room.Capacity = max(room.Capacity-1, 1)
		return s
	}},
}

// TestChangedRangeAgainstOracle makes random edits to random businesses and
// checks ChangedRange against resolving every date: outside the range it
// reports, every date of a window reaching well before the first series
// anchor has exactly the same sessions before and after the edit. Edits of
// dated rows alone must give a bounded range.
func TestChangedRangeAgainstOracle(t *testing.T) {
	const want = 1500
	r := rand.New(rand.NewPCG(7, 11))
	valid, checked, bounded, empty := 0, 0, 0, 0
	for tries := 0; valid < want; tries++ {
		if tries > 6*want {
			t.Fatalf("only %d of %d edited states were valid", valid, tries)
		}
		before, today, from, to := randomState(r)
		if Validate(before) != nil {
			continue
		}
		ed := edits[r.IntN(len(edits))]
		after := ed.apply(r, before, from, int(to-from)/7)
		if Validate(after) != nil {
			continue
		}
		valid++
		got, gotTo, open := ChangedRange(before, after, today)
		switch {
		case ed.dated && open:
			t.Fatalf("state %d, %s: got %s..open, want a bounded range", valid, ed.name, got)
		case !open && gotTo < got:
			t.Fatalf("state %d, %s: got the backward range %s..%s", valid, ed.name, got, gotTo)
		case !open && got == gotTo:
			empty++
		case !open:
			bounded++
		}
		was, is := compile(before), compile(after)
		for d := from - 7*30; d < to+14; d++ {
			if d >= got && (open || d < gotTo) {
				continue
			}
			checked++
			if x, y := was.Day(d), is.Day(d); !reflect.DeepEqual(x, y) {
				t.Fatalf("state %d, %s: %s differs outside the range %s..%s (open %v):\n got %+v\nwant %+v",
					valid, ed.name, d, got, gotTo, open, y, x)
			}
		}
	}
	t.Logf("%d edits (%d bounded, %d empty), %d dates outside the range compared", valid, bounded, empty, checked)
}

func TestChangedRange(t *testing.T) {
	d := MustDate
	base := changedBase()
	cases := []struct {
		name     string
		edit     func(s *State)
		from, to string // to "" for open
	}{
		{"nothing", func(s *State) {}, "2026-12-01", "2026-12-01"},
		{"a new client changes no session", func(s *State) { s.Clients = []Client{{ID: 1, Name: "Nadia"}} }, "2026-12-01", "2026-12-01"},
		{"a one-off moved gives both dates", func(s *State) {
			s.OneOffs = []OneOff{{ID: 1, ClassID: 1, RoomID: 1, Date: d(2026, 12, 20), Start: MustTime("10:00"), End: MustTime("11:00")}}
		}, "2026-12-10", "2026-12-21"},
		{"a moved session gives its original and new date", func(s *State) {
			s.Changes = []DayChange{{Ref: SessionRef{Date: d(2026, 12, 8), ClassTimeID: 1, ClassID: 1}, Date: d(2026, 12, 11)}}
		}, "2026-12-08", "2026-12-12"},
		{"a closure gives its days", func(s *State) {
			s.Closures = []Closure{{ID: 1, From: d(2026, 12, 24), To: d(2026, 12, 26)}}
		}, "2026-12-24", "2026-12-27"},
		{"a pausing closure opens at its start", func(s *State) {
			s.Closures = []Closure{{ID: 1, From: d(2026, 12, 20), To: d(2027, 1, 2), Pause: true}}
		}, "2026-12-20", ""},
		{"a class time reaches back to the first anchor", func(s *State) {
			s.ClassTimes = []ClassTime{{ID: 1, RoomID: 1, Weekday: time.Tuesday, Start: MustTime("09:30"), End: MustTime("10:00")}}
		}, "2026-10-05", ""},
		{"a renamed host changes what sessions say", func(s *State) { s.Staff = []Staff{{ID: 1, Name: "Mei Lin"}} }, "2026-10-05", ""},
		{"a later time zone changes every instant", func(s *State) {
			s.Business.Location, _ = time.LoadLocation("Europe/Berlin")
		}, "2026-10-05", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			after := changedBase()
			c.edit(&after)
			from, to, open := ChangedRange(base, after, d(2026, 12, 1))
			got := from.String() + ".." + to.String()
			if open {
				got = from.String() + ".."
			}
			if want := c.from + ".." + c.to; got != want {
				t.Errorf("got %s, want %s", got, want)
			}
		})
	}
}

// changedBase is a standup every Tuesday from the week of 5 October 2026 and a one-off
// on 10 December.
func changedBase() State {
	d := MustDate
	return State{
		Business:   Business{Kind: Office, Name: "Meridian", Currency: "USD", Location: time.UTC, WeekStart: time.Monday},
		Rooms:      []Room{{ID: 1, Name: "Room A"}},
		Staff:      []Staff{{ID: 1, Name: "Mei Chen"}},
		Activities: []Activity{{ID: 1, Name: "Standup"}},
		Classes:    []Class{{ID: 1, ActivityID: 1, StaffIDs: []int64{1}}},
		ClassTimes: []ClassTime{{ID: 1, RoomID: 1, Weekday: time.Tuesday, Start: MustTime("09:00"), End: MustTime("09:15")}},
		Series:     []Series{{ID: 1, Name: "Standup", Anchor: d(2026, 10, 5), Cycle: 1}},
		Entries:    []Entry{{ID: 1, SeriesID: 1, ClassTimeID: 1, ClassID: 1, Week: 1}},
		OneOffs:    []OneOff{{ID: 1, ClassID: 1, RoomID: 1, Date: d(2026, 12, 10), Start: MustTime("10:00"), End: MustTime("11:00")}},
	}
}

// Moving the one-off of 10 December to the 20th changes those two dates and
// the ones between; moving the standup to 09:30 changes every Tuesday it
// has ever been on.
func ExampleChangedRange() {
	before, after := changedBase(), changedBase()
	after.OneOffs[0].Date = MustDate(2026, 12, 20)
	from, to, open := ChangedRange(before, after, MustDate(2026, 12, 1))
	fmt.Println(from, to, open)

	after.ClassTimes[0].Start = MustTime("09:30")
	from, _, open = ChangedRange(before, after, MustDate(2026, 12, 1))
	fmt.Println(from, open)
	// Output:
	// 2026-12-10 2026-12-21 false
	// 2026-10-05 true
}

// TestChangedRangeOfCover: time off changes what its own dates show,
// working hours every date from theirs on, and both ChangedRange and a
// write's step say so; qualifications change nothing a date shows.
func TestChangedRangeOfCover(t *testing.T) {
	base := State{Business: Business{Kind: Gym, Name: "Cover", Currency: "EUR", Location: time.UTC},
		Rooms:      []Room{{ID: 1, Name: "Ring"}},
		Staff:      []Staff{{ID: 1, Name: "Ana"}},
		Activities: []Activity{{ID: 1, Name: "Boxing"}},
		Classes:    []Class{{ID: 1, ActivityID: 1, StaffIDs: []int64{1}}},
		ClassTimes: []ClassTime{{ID: 1, RoomID: 1, Weekday: time.Monday, Start: MustTime("18:00"), End: MustTime("19:00")}},
		Series:     []Series{{ID: 1, Name: "Boxing", Anchor: MustDate(2026, 1, 4), Cycle: 1}},
		Entries:    []Entry{{ID: 1, SeriesID: 1, ClassTimeID: 1, ClassID: 1, Week: 1}},
	}
	today := MustDate(2026, 12, 1)
	staff := int64(1)
	cases := []struct {
		name     string
		edit     func(s *State)
		from, to Date
		open     bool
	}{
		{"time off", func(s *State) {
			s.TimeOffs = append(s.TimeOffs, TimeOff{ID: 1, StaffID: staff, From: MustDate(2026, 12, 20), To: MustDate(2026, 12, 24)})
		}, MustDate(2026, 12, 20), MustDate(2026, 12, 25), false},
		{"working hours", func(s *State) {
			s.Hours = append(s.Hours, WorkingHours{ID: 1, StaffID: staff, From: MustDate(2027, 1, 4)})
		}, MustDate(2027, 1, 4), 0, true},
		{"qualifications", func(s *State) {
			s.Qualifications = append(s.Qualifications, Qualification{ID: 1, StaffID: staff, ActivityID: base.Activities[0].ID})
		}, today, today, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			after := base.Clone()
			c.edit(&after)
			from, to, open := ChangedRange(base, after, today)
			if open {
				to = 0
			}
			if from != c.from || to != c.to || open != c.open {
				t.Errorf("ChangedRange: got %s..%s open %v, want %s..%s open %v", from, to, open, c.from, c.to, c.open)
			}
			tt, err := New(base)
			if err != nil {
				t.Fatal(err)
			}
			st, err := tt.Check(after)
			if err != nil {
				t.Fatal(err)
			}
			if f, e, o := st.ChangedRange(today); f != from || (!o && e != to) || o != open {
				t.Errorf("Step.ChangedRange: got %s..%s open %v, want %s..%s open %v", f, e, o, from, to, open)
			}
		})
	}
}
