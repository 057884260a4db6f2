// Package enginetest builds synthetic businesses of any size, for the
// scaling benchmarks and for tests that need a large timetable: engine
// tests (from package engine_test) and store tests alike import it, and it
// imports nothing but the engine.
//
// A business is laid out on a grid so that it is clash-free by
// construction: every room has a week of hour slots, each class time takes
// one slot (two, side by side, in rooms with lanes), a room's people work in
// that room alone on a given weekday, and every dated exception (a moved
// session, a one-off, a room booking) lands in a slot no class time uses,
// one per slot and date. What can be asked on top of that are planted
// clashes, each in a room of its own, so a test knows exactly what the
// proof must report.
package enginetest

import (
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/koredyne/schedule/engine"
)

// Options size a synthetic business.
type Options struct {
	// ClassTimes is how many class times the business has (besides those
	// of the planted clashes). Rooms, staff, activities, series and the
	// exceptions grow with it.
	ClassTimes int
	// Seed chooses the business: the same options build the same state.
	Seed uint64
	// Today is the date the business is built around: series started
	// up to a year before it, exceptions fall in the year after it.
	Today engine.Date
	// Clashes is how many clashes to plant: each is a room of its own with
	// two weekly class times at the same time, one room clash on every
	// week from Today's on, and nothing else.
	Clashes int
}

// PerRoom is how many class times a room holds, so rooms grow with the
// business: 100 class times are 4 rooms, 10,000 are 400.
const PerRoom = 25

const (
	slotsPerDay = 14 // 07:00 to 21:00
	firstSlot   = 7 * 60
	slotMinutes = 60
	laneEvery   = 5 // every fifth room has lanes: 4 units, two class times a slot
)

// slot is an hour of one weekday in one room.
type slot struct {
	room int
	wd   time.Weekday
	hour int // 0..slotsPerDay-1
}

func (s slot) start() engine.LocalTime { return engine.LocalTime(firstSlot + slotMinutes*s.hour) }

// builder holds what the layout needs to add exceptions that keep the
// business clash-free.
type builder struct {
	r     *rand.Rand
	o     Options
	s     engine.State
	rooms int
	// taken are the slots class times use; used are the free slots a
	// dated exception has taken on a date.
	taken map[slot]bool
	used  map[dated]bool
	// classOf finds a class by activity and staff.
	classOf map[string]int64
	// byRoom are the class times of each room (index into s.ClassTimes).
	byRoom [][]int
	// entriesOf are the entries of each class time.
	entriesOf map[int64][]engine.Entry
	lanes     map[int64]int // lane of a class time in its slot
}

type dated struct {
	room int
	date engine.Date
	hour int
}

// Business builds a synthetic business (see the package documentation).
func Business(o Options) engine.State {
	if o.Today == 0 {
		o.Today = engine.MustDate(2026, 11, 29)
	}
	b := &builder{
		r: rand.New(rand.NewPCG(o.Seed, 0x5ca1ab1e)), o: o,
		taken: map[slot]bool{}, used: map[dated]bool{}, classOf: map[string]int64{},
		entriesOf: map[int64][]engine.Entry{}, lanes: map[int64]int{},
	}
	b.s.Business = engine.Business{Kind: engine.Office, Name: fmt.Sprintf("Synthetic %d", o.ClassTimes),
		Currency: "EUR", Location: time.UTC, WeekStart: time.Monday}
	b.rooms = max(1, (o.ClassTimes+PerRoom-1)/PerRoom)
	b.people()
	b.grid()
	b.exceptions()
	b.plant()
	return b.s
}

// people adds the staff: for lane l of room r on weekday wd the person
// staffID(r, wd, l) works there, and nowhere else that day; a floater per
// room and lane covers sessions and runs the one-offs there.
func (b *builder) people() {
	for i := range 2 * b.rooms {
		b.s.Staff = append(b.s.Staff, engine.Staff{ID: int64(i + 1), Name: fmt.Sprintf("Coach %d", i+1)})
	}
	for r := range b.rooms {
		for l := range 2 {
			b.s.Staff = append(b.s.Staff, engine.Staff{ID: b.floater(r, l), Name: fmt.Sprintf("Floater %d-%d", r+1, l+1)})
		}
	}
	for i := range max(10, b.o.ClassTimes/20) {
		b.s.Activities = append(b.s.Activities, engine.Activity{ID: int64(i + 1), Name: fmt.Sprintf("Activity %d", i+1)})
	}
}

// staffID is who works in lane l of room r on weekday wd: a rotation over
// the rooms, so each person works in a different room each day.
func (b *builder) staffID(r int, wd time.Weekday, l int) int64 {
	return int64(l*b.rooms + (r+int(wd))%b.rooms + 1)
}

func (b *builder) floater(r, l int) int64 { return int64(2*b.rooms + 2*r + l + 1) }

// class returns the class of an activity with staff, adding it if new.
func (b *builder) class(activity int64, staff ...int64) int64 {
	k := fmt.Sprint(activity, staff)
	if id, ok := b.classOf[k]; ok {
		return id
	}
	id := int64(len(b.s.Classes) + 1)
	b.s.Classes = append(b.s.Classes, engine.Class{ID: id, ActivityID: activity, StaffIDs: staff})
	b.classOf[k] = id
	return id
}

func (b *builder) hasLanes(r int) bool { return r%laneEvery == laneEvery-1 }

// grid lays out the rooms and their class times, and the series that hold
// them: two series per room, each with a cycle of 1 to 8 weeks, whose
// class times alternate classes over the weeks of the cycle (never two in
// one week, so never clashing).
func (b *builder) grid() {
	r := b.r
	b.byRoom = make([][]int, b.rooms)
	left := b.o.ClassTimes
	for room := range b.rooms {
		lanes := b.hasLanes(room)
		capacity := 1
		if lanes {
			capacity = 4
		}
		b.s.Rooms = append(b.s.Rooms, engine.Room{ID: int64(room + 1), Name: fmt.Sprintf("Room %d", room+1), Capacity: capacity})
		n := min(PerRoom, left)
		left -= n
		// Series of this room: weeks start on Monday, anchored up to a year
		// before today; one in four ends within the coming year.
		var series [2]engine.Series
		for i := range series {
			sr := engine.Series{ID: int64(2*room + i + 1), Name: fmt.Sprintf("Series %d-%d", room+1, i+1),
				Cycle: 1 + r.IntN(8), Anchor: b.o.Today.WeekStart(time.Monday).AddDays(-7 * r.IntN(52))}
			if r.IntN(4) == 0 {
				sr.End = b.o.Today.WeekStart(time.Monday).AddDays(7 * (1 + r.IntN(52)))
			}
			series[i] = sr
			b.s.Series = append(b.s.Series, sr)
		}
		free := r.Perm(7 * slotsPerDay)
		for placed := 0; placed < n; {
			p := free[0]
			free = free[1:]
			sl := slot{room: room, wd: time.Weekday(p / slotsPerDay), hour: p % slotsPerDay}
			b.taken[sl] = true
			per := 1
			if lanes && n-placed >= 2 {
				per = 2
			}
			for l := range per {
				b.classTime(sl, l, lanes, series[r.IntN(2)])
				placed++
			}
		}
	}
}

// classTime adds a class time in lane l of a slot, with entries of sr.
func (b *builder) classTime(sl slot, l int, lanes bool, sr engine.Series) {
	r := b.r
	id := int64(len(b.s.ClassTimes) + 1)
	ct := engine.ClassTime{ID: id, RoomID: int64(sl.room + 1), Weekday: sl.wd, Start: sl.start(),
		End: sl.start() + engine.LocalTime(45+5*r.IntN(2)), Buffer: 5 * r.IntN(3), Capacity: 10 + r.IntN(10)}
	if lanes {
		ct.Units = 2
	}
	b.lanes[id] = l
	b.byRoom[sl.room] = append(b.byRoom[sl.room], len(b.s.ClassTimes))
	b.s.ClassTimes = append(b.s.ClassTimes, ct)
	staff := []int64{b.staffID(sl.room, sl.wd, l)}
	if !lanes && r.IntN(3) == 0 {
		// The second lane's person is free in a room without lanes.
		staff = append(staff, b.staffID(sl.room, sl.wd, 1))
	}
	acts := int64(len(b.s.Activities))
	classes := []int64{b.class(1+r.Int64N(acts), staff...)}
	if sr.Cycle > 1 && r.IntN(2) == 0 {
		classes = append(classes, b.class(1+r.Int64N(acts), staff...))
	}
	for w := 1; w <= sr.Cycle; w++ {
		if sr.Cycle > 2 && r.IntN(3) == 0 {
			continue // a week without this class time
		}
		e := engine.Entry{ID: int64(len(b.s.Entries) + 1), SeriesID: sr.ID, ClassTimeID: id, ClassID: classes[w%len(classes)], Week: w}
		b.s.Entries = append(b.s.Entries, e)
		b.entriesOf[id] = append(b.entriesOf[id], e)
	}
}

// exceptions adds the dated rows, in proportion to the class times: day
// changes (cancellations, notes, shorter sessions, covers, moves), one-offs,
// room bookings and closures of single rooms, some pausing.
func (b *builder) exceptions() {
	r := b.r
	n := b.o.ClassTimes
	refs := map[engine.SessionRef]bool{}
	for range n / 10 {
		ct := b.s.ClassTimes[r.IntN(len(b.s.ClassTimes))]
		es := b.entriesOf[ct.ID]
		if len(es) == 0 {
			continue
		}
		e := es[r.IntN(len(es))]
		d := b.dateOf(ct, e)
		ref := engine.SessionRef{Date: d, ClassTimeID: ct.ID, ClassID: e.ClassID}
		if refs[ref] {
			continue
		}
		refs[ref] = true
		c := engine.DayChange{Ref: ref}
		room := int(ct.RoomID - 1)
		switch k := r.IntN(10); {
		case k < 3:
			c.Cancelled, c.Note = true, "cancelled"
		case k < 4:
			c.Note = "bring water"
		case k < 6:
			start := ct.Start + 5
			c.Start = &start
		case k < 8:
			c.StaffIDs = []int64{b.floater(room, b.lanes[ct.ID])}
		default:
			to, ok := b.freeSlot(room, d.WeekStart(time.Monday).AddDays(r.IntN(7)))
			if !ok {
				continue
			}
			start := to.start()
			end := start + (ct.End - ct.Start)
			c.Start, c.End = &start, &end
			if to.date != d {
				c.Date = to.date
			}
			c.StaffIDs = []int64{b.floater(room, 0)}
		}
		b.s.Changes = append(b.s.Changes, c)
	}
	for range n / 20 {
		room := r.IntN(b.rooms)
		to, ok := b.freeSlot(room, b.o.Today.AddDays(r.IntN(365)))
		if !ok {
			continue
		}
		start := to.start()
		b.s.OneOffs = append(b.s.OneOffs, engine.OneOff{ID: int64(len(b.s.OneOffs) + 1),
			ClassID: b.class(1+r.Int64N(int64(len(b.s.Activities))), b.floater(room, 0)), RoomID: int64(room + 1),
			Date: to.date, Start: start, End: start + 50, Label: "Workshop", Capacity: 20})
	}
	for range n / 50 {
		room := r.IntN(b.rooms)
		to, ok := b.freeSlot(room, b.o.Today.AddDays(r.IntN(365)))
		if !ok {
			continue
		}
		start := to.start()
		b.s.RoomBookings = append(b.s.RoomBookings, engine.RoomBooking{ID: int64(len(b.s.RoomBookings) + 1),
			RoomID: int64(room + 1), Date: to.date, Start: start, End: start + 30 + engine.LocalTime(15*r.IntN(3)), Note: "rented"})
	}
	for range max(1, n/200) {
		room := r.IntN(b.rooms)
		from := b.o.Today.AddDays(r.IntN(365))
		c := engine.Closure{ID: int64(len(b.s.Closures) + 1), From: from, To: from.AddDays(r.IntN(14)),
			RoomIDs: []int64{int64(room + 1)}, Reason: "maintenance", Pause: r.IntN(2) == 0}
		b.s.Closures = append(b.s.Closures, c)
	}
}

// dateOf picks a date in the coming year (or the two weeks before today)
// on which entry e of class time ct falls, by its series' rotation without
// pauses: a change usually names a session that happens.
func (b *builder) dateOf(ct engine.ClassTime, e engine.Entry) engine.Date {
	var sr engine.Series
	for _, s := range b.s.Series {
		if s.ID == e.SeriesID {
			sr = s
		}
	}
	ws := time.Monday
	w := engine.WeekOf(b.o.Today, ws) - 2 + b.r.IntN(54)
	a := engine.WeekOf(sr.Anchor, ws)
	// Move w to the next week holding week e.Week of the rotation.
	w += ((a+e.Week-1-w)%sr.Cycle + sr.Cycle) % sr.Cycle
	return engine.DayIn(w, ct.Weekday, ws)
}

// freeAt is a free slot on a date.
type freeAt struct {
	slot
	date engine.Date
}

// freeSlot finds an hour of room on date d that no class time uses and no
// other dated exception has taken, and takes it.
func (b *builder) freeSlot(room int, d engine.Date) (freeAt, bool) {
	for _, h := range b.r.Perm(slotsPerDay) {
		sl := slot{room: room, wd: d.Weekday(), hour: h}
		k := dated{room: room, date: d, hour: h}
		if !b.taken[sl] && !b.used[k] {
			b.used[k] = true
			return freeAt{slot: sl, date: d}, true
		}
	}
	return freeAt{}, false
}

// plant adds the planted clashes: room "Clash room i" holds two weekly
// class times at 10:00 on Wednesdays, run by two people who work nowhere
// else, in a series that started before today and never ends.
func (b *builder) plant() {
	if b.o.Clashes == 0 {
		return
	}
	anchor := b.o.Today.WeekStart(time.Monday).AddDays(-7)
	sr := engine.Series{ID: int64(len(b.s.Series) + 1), Name: "Double booked", Cycle: 1, Anchor: anchor}
	b.s.Series = append(b.s.Series, sr)
	act := engine.Activity{ID: int64(len(b.s.Activities) + 1), Name: "Planted clash"}
	b.s.Activities = append(b.s.Activities, act)
	for i := range b.o.Clashes {
		room := engine.Room{ID: int64(len(b.s.Rooms) + 1), Name: fmt.Sprintf("Clash room %d", i+1)}
		b.s.Rooms = append(b.s.Rooms, room)
		for k := range 2 {
			p := engine.Staff{ID: int64(len(b.s.Staff) + 1), Name: fmt.Sprintf("Clash host %d-%d", i+1, k+1)}
			b.s.Staff = append(b.s.Staff, p)
			ct := engine.ClassTime{ID: int64(len(b.s.ClassTimes) + 1), RoomID: room.ID, Weekday: time.Wednesday,
				Start: engine.MustTime("10:00"), End: engine.MustTime("11:00")}
			b.s.ClassTimes = append(b.s.ClassTimes, ct)
			b.s.Entries = append(b.s.Entries, engine.Entry{ID: int64(len(b.s.Entries) + 1), SeriesID: sr.ID,
				ClassTimeID: ct.ID, ClassID: b.class(act.ID, p.ID), Week: 1})
		}
	}
}

// AddClassTime adds to s what a typical write adds: a weekly class time in
// an hour of room room (counted from zero) that nothing uses on any date,
// with an entry in the room's first series and a class of its own. It
// returns the new class time's id, or false when the room has no such hour.
// It keeps a business built by Business clash-free.
func AddClassTime(s *engine.State, room int) (int64, bool) {
	roomID := s.Rooms[room].ID
	busy := map[[2]int]bool{} // weekday, minute of the hour's start
	mark := func(wd time.Weekday, start engine.LocalTime) {
		busy[[2]int{int(wd), int(start) / slotMinutes * slotMinutes}] = true
	}
	for _, ct := range s.ClassTimes {
		if ct.RoomID == roomID {
			mark(ct.Weekday, ct.Start)
		}
	}
	for _, o := range s.OneOffs {
		if o.RoomID == roomID {
			mark(o.Date.Weekday(), o.Start)
		}
	}
	for _, bk := range s.RoomBookings {
		if bk.RoomID == roomID {
			mark(bk.Date.Weekday(), bk.Start)
		}
	}
	inRoom := map[int64]bool{}
	for _, ct := range s.ClassTimes {
		inRoom[ct.ID] = ct.RoomID == roomID
	}
	for _, c := range s.Changes {
		if c.Start != nil && (c.RoomID == roomID || c.RoomID == 0 && inRoom[c.Ref.ClassTimeID]) {
			d := c.Ref.Date
			if c.Date != 0 {
				d = c.Date
			}
			mark(d.Weekday(), *c.Start) // a moved session lands where nothing is
		}
	}
	var series int64
	for _, e := range s.Entries {
		for _, ct := range s.ClassTimes {
			if ct.ID == e.ClassTimeID && ct.RoomID == roomID {
				series = e.SeriesID
			}
		}
		if series != 0 {
			break
		}
	}
	if series == 0 {
		return 0, false
	}
	for wd := range 7 {
		for h := range slotsPerDay {
			start := engine.LocalTime(firstSlot + slotMinutes*h)
			if busy[[2]int{wd, int(start)}] {
				continue
			}
			id := nextID(len(s.Staff), func(i int) int64 { return s.Staff[i].ID })
			s.Staff = append(s.Staff, engine.Staff{ID: id, Name: fmt.Sprintf("New coach %d", id)})
			class := engine.Class{ID: nextID(len(s.Classes), func(i int) int64 { return s.Classes[i].ID }), ActivityID: s.Activities[0].ID, StaffIDs: []int64{id}}
			s.Classes = append(s.Classes, class)
			ct := engine.ClassTime{ID: nextID(len(s.ClassTimes), func(i int) int64 { return s.ClassTimes[i].ID }),
				RoomID: roomID, Weekday: time.Weekday(wd), Start: start, End: start + 45}
			s.ClassTimes = append(s.ClassTimes, ct)
			for _, sr := range s.Series {
				if sr.ID == series {
					for w := 1; w <= sr.Cycle; w++ {
						s.Entries = append(s.Entries, engine.Entry{ID: nextID(len(s.Entries), func(i int) int64 { return s.Entries[i].ID }),
							SeriesID: series, ClassTimeID: ct.ID, ClassID: class.ID, Week: w})
					}
				}
			}
			return ct.ID, true
		}
	}
	return 0, false
}

// nextID returns one more than the largest of n ids.
func nextID(n int, id func(int) int64) int64 {
	var most int64
	for i := range n {
		most = max(most, id(i))
	}
	return most + 1
}
