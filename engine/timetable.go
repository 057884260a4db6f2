package engine

import (
	"cmp"
	"slices"
	"sort"
	"sync"
	"time"
)

// Timetable is a validated State compiled for fast questions: what happens on
// a date, what clashes. It is immutable and safe for concurrent use; build it
// once per revision of a business and keep it.
type Timetable struct {
	state State
	ws    time.Weekday

	rooms      map[int64]*Room
	staff      map[int64]*Staff
	activities map[int64]*Activity
	classes    map[int64]*Class
	classTimes map[int64]*ClassTime
	series     map[int64]*Series
	rot        map[int64]*Rotation

	// groups are the series sessions that can happen: one per (class time,
	// class) that some entry names, however many series share it.
	groups    []group
	groupOf   map[groupKey]int
	byWeekday [7][]int // group indices of active class times, by start

	changes  map[SessionRef]*DayChange
	byOrigin map[Date][]*DayChange // changes by their original date
	movedIn  map[Date][]*DayChange // changes that move a session onto a date
	oneOffs  map[Date][]*OneOff
	closures []*Closure                // by From
	rules    map[int64][]*CapacityRule // by room
	bookings map[Date][]*RoomBooking

	proofIx  lazyIndex     // see proofIndex
	coverIx  coverIndex    // see coverRules
	standing standingIndex // see standingIx
	qualIx   struct {
		once sync.Once
		m    map[int64]map[int64]bool
	} // see qualifications
	index // what answering a date needs, precomputed (index.go)
}

type groupKey struct{ classTime, class int64 }

type group struct {
	ct      *ClassTime
	class   *Class
	entries []groupEntry // by series id, then week
	// weeks holds each entry as a session lists it, in the entries' order:
	// activeIn answers with a slice of it, not a new list, when it can.
	weeks []SeriesWeek
	units int // of its room a session uses
	// every is the weeks [every.From, every.To) in which every entry is
	// active, so that activeIn answers weeks without a look at each
	// entry; empty unless every entry is week 1 of a one-week rotation
	// (see setEvery).
	every WeekRun
}

type groupEntry struct {
	series *Series
	rot    *Rotation
	week   int
}

// New validates s and compiles it. The Timetable keeps its own copy of the
// top-level slices; callers must not change the values they point into.
func New(s State) (*Timetable, error) {
	if err := Validate(s); err != nil {
		return nil, err
	}
	return compile(s), nil
}

func compile(s State) *Timetable {
	t := &Timetable{
		state:      s,
		ws:         s.Business.WeekStart,
		rooms:      make(map[int64]*Room, len(s.Rooms)),
		staff:      make(map[int64]*Staff, len(s.Staff)),
		activities: make(map[int64]*Activity, len(s.Activities)),
		classes:    make(map[int64]*Class, len(s.Classes)),
		classTimes: make(map[int64]*ClassTime, len(s.ClassTimes)),
		series:     make(map[int64]*Series, len(s.Series)),
		rot:        make(map[int64]*Rotation, len(s.Series)),
		groupOf:    make(map[groupKey]int),
		rules:      make(map[int64][]*CapacityRule),
	}
	for i := range s.Capacity {
		r := &s.Capacity[i]
		t.rules[r.RoomID] = append(t.rules[r.RoomID], r)
	}
	t.compileBookings()
	for i := range s.Rooms {
		t.rooms[s.Rooms[i].ID] = &s.Rooms[i]
	}
	for i := range s.Staff {
		t.staff[s.Staff[i].ID] = &s.Staff[i]
	}
	for i := range s.Activities {
		t.activities[s.Activities[i].ID] = &s.Activities[i]
	}
	for i := range s.Classes {
		t.classes[s.Classes[i].ID] = &s.Classes[i]
	}
	for i := range s.ClassTimes {
		t.classTimes[s.ClassTimes[i].ID] = &s.ClassTimes[i]
	}
	for i := range s.Closures {
		t.closures = append(t.closures, &s.Closures[i])
	}
	sort.SliceStable(t.closures, func(i, j int) bool { return t.closures[i].From < t.closures[j].From })

	seriesRooms := make(map[int64]map[int64]bool)
	for _, e := range s.Entries {
		if seriesRooms[e.SeriesID] == nil {
			seriesRooms[e.SeriesID] = make(map[int64]bool)
		}
		seriesRooms[e.SeriesID][t.classTimes[e.ClassTimeID].RoomID] = true
	}
	for i := range s.Series {
		sr := &s.Series[i]
		t.series[sr.ID] = sr
		t.rot[sr.ID] = RotationOf(sr, t.closures, seriesRooms[sr.ID], t.ws)
	}

	// Groups are numbered in an order that depends on their own entries
	// alone, so that an edit elsewhere never reorders two groups: the
	// sessions of a clash list their groups in that order, and a proof
	// carried from the revision before (see Proof) must read the same.
	entries := append([]Entry(nil), s.Entries...)
	slices.SortFunc(entries, func(a, b Entry) int {
		switch {
		case a.SeriesID != b.SeriesID:
			return cmp.Compare(a.SeriesID, b.SeriesID)
		case a.Week != b.Week:
			return cmp.Compare(a.Week, b.Week)
		case a.ClassTimeID != b.ClassTimeID:
			return cmp.Compare(a.ClassTimeID, b.ClassTimeID)
		case a.ClassID != b.ClassID:
			return cmp.Compare(a.ClassID, b.ClassID)
		}
		return cmp.Compare(a.ID, b.ID)
	})
	for _, e := range entries {
		k := groupKey{e.ClassTimeID, e.ClassID}
		gi, ok := t.groupOf[k]
		if !ok {
			gi = len(t.groups)
			t.groupOf[k] = gi
			t.groups = append(t.groups, group{ct: t.classTimes[e.ClassTimeID], class: t.classes[e.ClassID]})
		}
		g := &t.groups[gi]
		sr := t.series[e.SeriesID]
		g.entries = append(g.entries, groupEntry{series: sr, rot: t.rot[e.SeriesID], week: e.Week})
		g.weeks = append(g.weeks, SeriesWeek{SeriesID: sr.ID, Week: e.Week, Cycle: sr.Cycle})
	}
	for gi := range t.groups {
		if ct := t.groups[gi].ct; !ct.Inactive {
			t.byWeekday[ct.Weekday] = append(t.byWeekday[ct.Weekday], gi)
		}
	}
	for wd := range t.byWeekday {
		list := t.byWeekday[wd]
		sort.SliceStable(list, func(i, j int) bool { return t.groups[list[i]].ct.Start < t.groups[list[j]].ct.Start })
	}

	t.compileChanges()
	t.compileOneOffs()
	t.buildIndex()
	return t
}

// compileBookings, compileChanges and compileOneOffs compile the dated rows
// of t's state, each table on its own, so that a revision that changes
// none of one table's rows shares what the one before compiled (see Next).
func (t *Timetable) compileBookings() {
	s := &t.state
	t.bookings = make(map[Date][]*RoomBooking)
	for i := range s.RoomBookings {
		b := &s.RoomBookings[i]
		t.bookings[b.Date] = append(t.bookings[b.Date], b)
	}
}

func (t *Timetable) compileChanges() {
	s := &t.state
	t.changes = make(map[SessionRef]*DayChange, len(s.Changes))
	t.byOrigin, t.movedIn = make(map[Date][]*DayChange), make(map[Date][]*DayChange)
	for i := range s.Changes {
		c := &s.Changes[i]
		t.changes[c.Ref] = c
		t.byOrigin[c.Ref.Date] = append(t.byOrigin[c.Ref.Date], c)
		if c.Date != 0 && c.Date != c.Ref.Date {
			t.movedIn[c.Date] = append(t.movedIn[c.Date], c)
		}
	}
}

func (t *Timetable) compileOneOffs() {
	s := &t.state
	t.oneOffs = make(map[Date][]*OneOff)
	for i := range s.OneOffs {
		o := &s.OneOffs[i]
		t.oneOffs[o.Date] = append(t.oneOffs[o.Date], o)
	}
}

// PausedRuns returns, ascending, merged and apart, the runs of weeks in
// [from, to) (numbered as WeekOf numbers them) that a pausing closure
// covers whole for every room of rooms: the weeks a series using those
// rooms does not advance in. Their number grows with the closures, never
// with the weeks they cover.
func PausedRuns(closures []*Closure, rooms map[int64]bool, from, to int, ws time.Weekday) []WeekRun {
	var runs []WeekRun
	for _, c := range closures {
		if !c.Pause || !c.ClosesRooms(rooms) {
			continue
		}
		w := fullWeeks(c.From, c.To, ws)
		if w.From, w.To = max(w.From, from), min(w.To, to); w.From < w.To {
			runs = append(runs, w)
		}
	}
	sort.Slice(runs, func(i, j int) bool { return runs[i].From < runs[j].From })
	var out []WeekRun
	for _, w := range runs {
		if n := len(out); n > 0 && w.From <= out[n-1].To {
			out[n-1].To = max(out[n-1].To, w.To)
			continue
		}
		out = append(out, w)
	}
	return out
}

// ClosesRooms reports whether the closure closes every room of rooms (a
// closure naming no rooms closes them all).
func (c *Closure) ClosesRooms(rooms map[int64]bool) bool {
	if len(c.RoomIDs) == 0 {
		return true
	}
	for r := range rooms {
		if !c.ClosesRoom(r) {
			return false
		}
	}
	return true
}

// ClosesRoom reports whether the closure closes the room.
func (c *Closure) ClosesRoom(room int64) bool {
	return len(c.RoomIDs) == 0 || slices.Contains(c.RoomIDs, room)
}

// State returns the state the timetable was built from.
func (t *Timetable) State() State { return t.state }

// Room, StaffMember, Activity, Class and ClassTime look values up by id.
func (t *Timetable) Room(id int64) (Room, bool)           { return lookup(t.rooms, id) }
func (t *Timetable) StaffMember(id int64) (Staff, bool)   { return lookup(t.staff, id) }
func (t *Timetable) Activity(id int64) (Activity, bool)   { return lookup(t.activities, id) }
func (t *Timetable) Class(id int64) (Class, bool)         { return lookup(t.classes, id) }
func (t *Timetable) ClassTime(id int64) (ClassTime, bool) { return lookup(t.classTimes, id) }
func (t *Timetable) SeriesByID(id int64) (Series, bool)   { return lookup(t.series, id) }

func lookup[T any](m map[int64]*T, id int64) (T, bool) {
	if v, ok := m[id]; ok {
		return *v, true
	}
	var zero T
	return zero, false
}

// units returns how much of room a session asking for want units uses: all
// of it when want is zero, and never more than the room has.
func (t *Timetable) units(want int, room int64) int {
	c := t.rooms[room].Units()
	if want <= 0 || want > c {
		return c
	}
	return want
}
