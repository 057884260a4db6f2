package engine

import (
	"cmp"
	"slices"
	"sort"
	"time"
)

// Clone returns a deep copy of s: no slice or pointer of the copy is shared
// with s, so an edit of the copy never changes a state that readers share
// (a snapshot, a demo, the existing schedule an import adds to). The lists
// inside the rows of one table share one new array, each list capped at its
// length, so that a copy costs an allocation a table rather than a row and
// an append to one list never reaches the next.
func (s State) Clone() State {
	c := s
	c.Rooms = slices.Clone(s.Rooms)
	c.Staff = slices.Clone(s.Staff)
	c.Activities = slices.Clone(s.Activities)
	c.Classes = slices.Clone(s.Classes)
	cloneLists(c.Classes, func(v *Class) *[]int64 { return &v.StaffIDs })
	c.ClassTimes = slices.Clone(s.ClassTimes)
	c.Series = slices.Clone(s.Series)
	c.Entries = slices.Clone(s.Entries)
	c.Plans = slices.Clone(s.Plans)
	c.Clients = slices.Clone(s.Clients)
	c.Subscriptions = slices.Clone(s.Subscriptions)
	c.OneOffs = slices.Clone(s.OneOffs)
	cloneLists(c.OneOffs, func(v *OneOff) *[]int64 { return &v.ClientIDs })
	c.Changes = slices.Clone(s.Changes)
	cloneLists(c.Changes, func(v *DayChange) *[]int64 { return &v.StaffIDs })
	times := make([]LocalTime, 0, 2*len(c.Changes))
	for i := range c.Changes {
		ch := &c.Changes[i]
		if ch.Start != nil {
			times = append(times, *ch.Start)
			ch.Start = &times[len(times)-1]
		}
		if ch.End != nil {
			times = append(times, *ch.End)
			ch.End = &times[len(times)-1]
		}
	}
	c.Closures = slices.Clone(s.Closures)
	cloneLists(c.Closures, func(v *Closure) *[]int64 { return &v.RoomIDs })
	c.Capacity = slices.Clone(s.Capacity)
	cloneLists(c.Capacity, func(v *CapacityRule) *[]time.Weekday { return &v.Weekdays })
	c.RoomBookings = slices.Clone(s.RoomBookings)
	c.Standing = slices.Clone(s.Standing)
	c.StandingSkips = slices.Clone(s.StandingSkips)
	c.TimeOffs = slices.Clone(s.TimeOffs)
	c.Hours = slices.Clone(s.Hours)
	cloneLists(c.Hours, func(v *WorkingHours) *[]HoursSpan { return &v.Spans })
	c.Qualifications = slices.Clone(s.Qualifications)
	return c
}

// cloneLists gives the list list(row) of every row its own copy, all in
// one new array; nil stays nil and empty stays empty.
func cloneLists[R, E any](rows []R, list func(*R) *[]E) {
	n := 0
	for i := range rows {
		n += len(*list(&rows[i]))
	}
	buf := make([]E, 0, n)
	for i := range rows {
		l := list(&rows[i])
		if *l == nil {
			continue
		}
		from := len(buf)
		buf = append(buf, *l...)
		*l = buf[from:len(buf):len(buf)]
	}
}

// Canonical puts s in one order, so that two states holding the same rows
// compare equal with reflect.DeepEqual: rows by id, day changes by their
// session (date, class time, class), the rooms of a closure and the weekdays
// of a capacity rule ascending without repeats (they are sets), and every
// empty list nil. Lists whose order means something (a class's staff, the
// first being the main one; a cover; a one-off's clients) keep their order.
// It changes nothing a timetable computes from s.
func (s *State) Canonical() {
	byID(s.Rooms, func(v *Room) int64 { return v.ID })
	byID(s.Staff, func(v *Staff) int64 { return v.ID })
	byID(s.Activities, func(v *Activity) int64 { return v.ID })
	byID(s.Classes, func(v *Class) int64 { return v.ID })
	byID(s.ClassTimes, func(v *ClassTime) int64 { return v.ID })
	byID(s.Series, func(v *Series) int64 { return v.ID })
	byID(s.Entries, func(v *Entry) int64 { return v.ID })
	byID(s.Plans, func(v *Plan) int64 { return v.ID })
	byID(s.Clients, func(v *Client) int64 { return v.ID })
	byID(s.Subscriptions, func(v *Subscription) int64 { return v.ID })
	byID(s.OneOffs, func(v *OneOff) int64 { return v.ID })
	byID(s.Closures, func(v *Closure) int64 { return v.ID })
	byID(s.Capacity, func(v *CapacityRule) int64 { return v.ID })
	byID(s.RoomBookings, func(v *RoomBooking) int64 { return v.ID })
	byID(s.Standing, func(v *Standing) int64 { return v.ID })
	byID(s.StandingSkips, func(v *StandingSkip) int64 { return v.ID })
	byID(s.TimeOffs, func(v *TimeOff) int64 { return v.ID })
	byID(s.Hours, func(v *WorkingHours) int64 { return v.ID })
	byID(s.Qualifications, func(v *Qualification) int64 { return v.ID })
	for i := range s.Hours {
		h := &s.Hours[i]
		slices.SortFunc(h.Spans, func(a, b HoursSpan) int {
			return cmp.Or(cmp.Compare(a.Weekday, b.Weekday), cmp.Compare(a.Start, b.Start), cmp.Compare(a.End, b.End))
		})
		h.Spans = nilIfEmpty(h.Spans)
	}
	sortOnce(s.Changes, func(a, b *DayChange) int {
		return cmp.Or(cmp.Compare(a.Ref.Date, b.Ref.Date), cmp.Compare(a.Ref.ClassTimeID, b.Ref.ClassTimeID), cmp.Compare(a.Ref.ClassID, b.Ref.ClassID))
	})
	for i := range s.Classes {
		s.Classes[i].StaffIDs = nilIfEmpty(s.Classes[i].StaffIDs)
	}
	for i := range s.OneOffs {
		s.OneOffs[i].ClientIDs = nilIfEmpty(s.OneOffs[i].ClientIDs)
	}
	for i := range s.Changes {
		// An empty cover is no cover: Validate refuses a session without
		// staff, and nil is what "no change of staff" is.
		s.Changes[i].StaffIDs = nilIfEmpty(s.Changes[i].StaffIDs)
	}
	for i := range s.Closures {
		c := &s.Closures[i]
		slices.Sort(c.RoomIDs)
		c.RoomIDs = nilIfEmpty(slices.Compact(c.RoomIDs))
	}
	for i := range s.Capacity {
		c := &s.Capacity[i]
		slices.Sort(c.Weekdays)
		c.Weekdays = nilIfEmpty(slices.Compact(c.Weekdays))
	}
	s.Rooms, s.Staff, s.Activities = nilIfEmpty(s.Rooms), nilIfEmpty(s.Staff), nilIfEmpty(s.Activities)
	s.Classes, s.ClassTimes, s.Series = nilIfEmpty(s.Classes), nilIfEmpty(s.ClassTimes), nilIfEmpty(s.Series)
	s.Entries, s.Plans = nilIfEmpty(s.Entries), nilIfEmpty(s.Plans)
	s.Clients, s.Subscriptions = nilIfEmpty(s.Clients), nilIfEmpty(s.Subscriptions)
	s.OneOffs, s.Changes, s.Closures = nilIfEmpty(s.OneOffs), nilIfEmpty(s.Changes), nilIfEmpty(s.Closures)
	s.Capacity, s.RoomBookings = nilIfEmpty(s.Capacity), nilIfEmpty(s.RoomBookings)
	s.Standing, s.StandingSkips = nilIfEmpty(s.Standing), nilIfEmpty(s.StandingSkips)
	s.TimeOffs, s.Hours, s.Qualifications = nilIfEmpty(s.TimeOffs), nilIfEmpty(s.Hours), nilIfEmpty(s.Qualifications)
}

func byID[T any](l []T, id func(*T) int64) {
	sortOnce(l, func(a, b *T) int { return cmp.Compare(id(a), id(b)) })
}

// sortOnce sorts l unless it is in order already, as a saved state mostly
// is: one look through it rather than a sort. A list in order but for its
// last row, as an edit that appends one leaves it, has that row moved into
// place (TestSortOnceAgainstSort).
func sortOnce[T any](l []T, order func(a, b *T) int) {
	for i := 1; i < len(l); i++ {
		if order(&l[i-1], &l[i]) > 0 {
			if i == len(l)-1 {
				last := l[i]
				j := sort.Search(i, func(k int) bool { return order(&l[k], &last) > 0 })
				copy(l[j+1:], l[j:i])
				l[j] = last
				return
			}
			slices.SortFunc(l, func(a, b T) int { return order(&a, &b) })
			return
		}
	}
}

func nilIfEmpty[T any](s []T) []T {
	if len(s) == 0 {
		return nil
	}
	return s
}
