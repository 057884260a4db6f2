package models

import (
	"context"
	"fmt"

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

// canonical puts a state in the form LoadState returns: the engine's
// canonical form (see engine.State.Canonical) without what the schedule
// snapshot leaves in the database (clients, subscriptions and the clients
// of one-offs). A state saved with SaveState and loaded again equals it.
func canonical(s *engine.State) {
	s.Canonical()
	for i := range s.OneOffs {
		s.OneOffs[i].ClientIDs = nil
	}
	s.Clients, s.Subscriptions = nil, nil
}
