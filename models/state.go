package models

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	"github.com/uptrace/bun"

	"github.com/koredyne/schedule/engine"
)

// LoadState reads the schedule of the business: everything the engine needs to
// compute its days and clashes, and the revisions that wrote it. Clients,
// subscriptions and the clients of one-offs stay in the database (see
// Client). Run it inside a transaction so that the tables are read at one
// point in time.
func (b *Business) LoadState(ctx context.Context, db bun.IDB) (engine.State, *Versions, error) {
	settings, err := b.Settings()
	if err != nil {
		return engine.State{}, nil, err
	}
	v := newVersions()
	v.Settings = b.SettingsRevision
	s := engine.State{Business: settings}
	id := b.ID
	var (
		rooms      []Room
		staff      []Staff
		activities []Activity
		classes    []Class
		classStaff []ClassStaff
		classTimes []ClassTime
		series     []Series
		entries    []SeriesEntry
		plans      []Plan
		oneOffs    []OneOff
		changes    []DayChange
		cover      []DayChangeStaff
		closures   []Closure
		closed     []ClosureRoom
		capacity   []CapacityRule
		bookings   []RoomBooking
	)
	for _, q := range []struct {
		dest  any
		order string
	}{
		{&rooms, "id"}, {&staff, "id"}, {&activities, "id"}, {&classes, "id"},
		{&classStaff, "class_id, position"}, {&classTimes, "id"}, {&series, "id"}, {&entries, "id"},
		{&plans, "id"}, {&oneOffs, "id"}, {&changes, "orig_date, class_time_id, class_id"},
		{&cover, "day_change_id, position"}, {&closures, "id"}, {&closed, "closure_id, room_id"},
		{&capacity, "id"}, {&bookings, "id"},
	} {
		if err := db.NewSelect().Model(q.dest).Where("business_id = ?", id).OrderExpr(q.order).Scan(ctx); err != nil {
			return engine.State{}, nil, fmt.Errorf("loading %T: %w", q.dest, err)
		}
	}
	for i := range rooms {
		s.Rooms = append(s.Rooms, rooms[i].Engine())
		v.setRow(RoomsTable, rooms[i].ID, rooms[i].Revision)
	}
	for i := range staff {
		s.Staff = append(s.Staff, staff[i].Engine())
		v.setRow(StaffTable, staff[i].ID, staff[i].Revision)
	}
	for i := range activities {
		s.Activities = append(s.Activities, activities[i].Engine())
		v.setRow(ActivitiesTable, activities[i].ID, activities[i].Revision)
	}
	staffOf := map[int64][]int64{}
	for _, cs := range classStaff {
		staffOf[cs.ClassID] = append(staffOf[cs.ClassID], cs.StaffID)
	}
	for _, c := range classes {
		s.Classes = append(s.Classes, engine.Class{ID: c.ID, ActivityID: c.ActivityID, StaffIDs: staffOf[c.ID]})
		v.setRow(ClassesTable, c.ID, c.Revision)
	}
	for i := range classTimes {
		s.ClassTimes = append(s.ClassTimes, classTimes[i].Engine())
		v.setRow(ClassTimesTable, classTimes[i].ID, classTimes[i].Revision)
	}
	for i := range series {
		s.Series = append(s.Series, series[i].Engine())
		v.setRow(SeriesTable, series[i].ID, series[i].Revision)
	}
	for i := range entries {
		s.Entries = append(s.Entries, entries[i].Engine())
		v.bump(v.groups, [2]int64{entries[i].ClassTimeID, entries[i].ClassID}, entries[i].Revision)
	}
	for i := range plans {
		s.Plans = append(s.Plans, plans[i].Engine())
	}
	for i := range oneOffs {
		s.OneOffs = append(s.OneOffs, oneOffs[i].Engine())
		v.setRow(OneOffsTable, oneOffs[i].ID, oneOffs[i].Revision)
	}
	coverOf := map[int64][]int64{}
	for _, c := range cover {
		coverOf[c.DayChangeID] = append(coverOf[c.DayChangeID], c.StaffID)
	}
	for i := range changes {
		c := changes[i].Engine()
		if changes[i].NewStaff {
			c.StaffIDs = coverOf[changes[i].ID]
		}
		s.Changes = append(s.Changes, c)
		v.changes[c.Ref] = changes[i].Revision
	}
	roomsOf := map[int64][]int64{}
	for _, c := range closed {
		roomsOf[c.ClosureID] = append(roomsOf[c.ClosureID], c.RoomID)
	}
	for i := range closures {
		c := closures[i].Engine()
		c.RoomIDs = roomsOf[c.ID]
		s.Closures = append(s.Closures, c)
		v.addClosure(c, closures[i].Revision)
	}
	for i := range capacity {
		s.Capacity = append(s.Capacity, capacity[i].Engine())
	}
	for i := range bookings {
		s.RoomBookings = append(s.RoomBookings, bookings[i].Engine())
	}
	if err := loadVersions(ctx, db, v, id); err != nil {
		return engine.State{}, nil, err
	}
	return s, v, nil
}

// Canonical puts a state in the order LoadState returns: tables by id, day
// changes by their session, closure rooms ascending, empty lists as nil. A
// state saved with SaveState and loaded again equals its canonical form.
func Canonical(s *engine.State) {
	slices.SortFunc(s.Rooms, func(a, b engine.Room) int { return cmp.Compare(a.ID, b.ID) })
	slices.SortFunc(s.Staff, func(a, b engine.Staff) int { return cmp.Compare(a.ID, b.ID) })
	slices.SortFunc(s.Activities, func(a, b engine.Activity) int { return cmp.Compare(a.ID, b.ID) })
	slices.SortFunc(s.Classes, func(a, b engine.Class) int { return cmp.Compare(a.ID, b.ID) })
	slices.SortFunc(s.ClassTimes, func(a, b engine.ClassTime) int { return cmp.Compare(a.ID, b.ID) })
	slices.SortFunc(s.Series, func(a, b engine.Series) int { return cmp.Compare(a.ID, b.ID) })
	slices.SortFunc(s.Entries, func(a, b engine.Entry) int { return cmp.Compare(a.ID, b.ID) })
	slices.SortFunc(s.Plans, func(a, b engine.Plan) int { return cmp.Compare(a.ID, b.ID) })
	slices.SortFunc(s.OneOffs, func(a, b engine.OneOff) int { return cmp.Compare(a.ID, b.ID) })
	slices.SortFunc(s.Closures, func(a, b engine.Closure) int { return cmp.Compare(a.ID, b.ID) })
	slices.SortFunc(s.Capacity, func(a, b engine.CapacityRule) int { return cmp.Compare(a.ID, b.ID) })
	slices.SortFunc(s.RoomBookings, func(a, b engine.RoomBooking) int { return cmp.Compare(a.ID, b.ID) })
	for i := range s.Capacity {
		c := &s.Capacity[i]
		slices.Sort(c.Weekdays)
		c.Weekdays = nilIfEmpty(slices.Compact(c.Weekdays))
	}
	slices.SortFunc(s.Changes, func(a, b engine.DayChange) int {
		return cmp.Or(cmp.Compare(a.Ref.Date, b.Ref.Date), cmp.Compare(a.Ref.ClassTimeID, b.Ref.ClassTimeID), cmp.Compare(a.Ref.ClassID, b.Ref.ClassID))
	})
	for i := range s.Classes {
		s.Classes[i].StaffIDs = nilIfEmpty(s.Classes[i].StaffIDs)
	}
	for i := range s.OneOffs {
		s.OneOffs[i].ClientIDs = nil
	}
	for i := range s.Changes {
		if c := &s.Changes[i]; c.StaffIDs != nil && len(c.StaffIDs) == 0 {
			c.StaffIDs = nil
		}
	}
	for i := range s.Closures {
		c := &s.Closures[i]
		c.RoomIDs = nilIfEmpty(c.RoomIDs)
		slices.Sort(c.RoomIDs)
		c.RoomIDs = slices.Compact(c.RoomIDs)
	}
	s.Rooms, s.Staff, s.Activities = nilIfEmpty(s.Rooms), nilIfEmpty(s.Staff), nilIfEmpty(s.Activities)
	s.Classes, s.ClassTimes, s.Series = nilIfEmpty(s.Classes), nilIfEmpty(s.ClassTimes), nilIfEmpty(s.Series)
	s.Entries, s.Plans, s.OneOffs = nilIfEmpty(s.Entries), nilIfEmpty(s.Plans), nilIfEmpty(s.OneOffs)
	s.Changes, s.Closures = nilIfEmpty(s.Changes), nilIfEmpty(s.Closures)
	s.Capacity, s.RoomBookings = nilIfEmpty(s.Capacity), nilIfEmpty(s.RoomBookings)
	s.Clients, s.Subscriptions = nil, nil
}

func nilIfEmpty[T any](s []T) []T {
	if len(s) == 0 {
		return nil
	}
	return s
}

// Clone returns a deep copy of a state, so an edit never changes a snapshot
// that readers share.
func Clone(s engine.State) engine.State {
	c := s
	c.Rooms = slices.Clone(s.Rooms)
	c.Staff = slices.Clone(s.Staff)
	c.Activities = slices.Clone(s.Activities)
	c.Classes = slices.Clone(s.Classes)
	for i := range c.Classes {
		c.Classes[i].StaffIDs = slices.Clone(c.Classes[i].StaffIDs)
	}
	c.ClassTimes = slices.Clone(s.ClassTimes)
	c.Series = slices.Clone(s.Series)
	c.Entries = slices.Clone(s.Entries)
	c.Plans = slices.Clone(s.Plans)
	c.Clients = slices.Clone(s.Clients)
	c.Subscriptions = slices.Clone(s.Subscriptions)
	c.OneOffs = slices.Clone(s.OneOffs)
	for i := range c.OneOffs {
		c.OneOffs[i].ClientIDs = slices.Clone(c.OneOffs[i].ClientIDs)
	}
	c.Changes = slices.Clone(s.Changes)
	for i := range c.Changes {
		ch := &c.Changes[i]
		ch.StaffIDs = slices.Clone(ch.StaffIDs)
		if ch.Start != nil {
			t := *ch.Start
			ch.Start = &t
		}
		if ch.End != nil {
			t := *ch.End
			ch.End = &t
		}
	}
	c.Closures = slices.Clone(s.Closures)
	for i := range c.Closures {
		c.Closures[i].RoomIDs = slices.Clone(c.Closures[i].RoomIDs)
	}
	c.Capacity = slices.Clone(s.Capacity)
	for i := range c.Capacity {
		c.Capacity[i].Weekdays = slices.Clone(c.Capacity[i].Weekdays)
	}
	c.RoomBookings = slices.Clone(s.RoomBookings)
	return c
}
