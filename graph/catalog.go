package graph

import (
	"errors"
	"slices"

	"github.com/koredyne/schedule/engine"
	"github.com/koredyne/schedule/graph/model"
	"github.com/koredyne/schedule/models"
)

// Input mapping of the catalog: rooms, staff, activities, classes and class
// times (catalog.graphqls, catalog.resolvers.go). A create input's
// required fields are non-null in the schema, so GraphQL itself reports
// what is missing; an update follows the update rule (keep, clearable).

// A room's capacity cannot be empty: at least 1 (the engine's 0, which
// older rooms hold, is its default of one unit, never something to ask for).
func newRoom(id int64, in model.CreateRoomInput) (engine.Room, error) {
	room := engine.Room{ID: id, Name: in.Name, Capacity: 1}
	set(&room.Capacity, in.Capacity)
	return room, positive("capacity", in.Capacity, "")
}

func updateRoom(dst *engine.Room, in model.UpdateRoomInput) error {
	units := dst.Units()
	err := errors.Join(keep(&dst.Name, in.Name, "name"), keep(&units, in.Capacity, "capacity"), positive("capacity", in.Capacity.Value(), ""))
	if units != dst.Units() { // the units it has already keep the row as it is
		dst.Capacity = units
	}
	return err
}

func newActivity(id int64, in model.CreateActivityInput) engine.Activity {
	return engine.Activity{ID: id, Name: in.Name, Color: deref(in.Color)}
}

func updateActivity(dst *engine.Activity, in model.UpdateActivityInput) error {
	clearable(&dst.Color, in.Color)
	return keep(&dst.Name, in.Name, "name")
}

func newClass(id int64, in model.CreateClassInput) engine.Class {
	return engine.Class{ID: id, ActivityID: in.ActivityID, StaffIDs: slices.Clone(in.StaffIds)}
}

func updateClass(dst *engine.Class, in model.UpdateClassInput) error {
	if ids, ok := in.StaffIds.ValueOK(); ok {
		if ids == nil {
			return cannotClear("staffIds")
		}
		dst.StaffIDs = slices.Clone(ids)
	}
	return keep(&dst.ActivityID, in.ActivityID, "activityId")
}

// newClassTime maps a new class time. Places and units of 0 used to mean
// "no limit" and "all of the room"; that is null now, and 0 is refused
// rather than read as null.
func newClassTime(id int64, in model.CreateClassTimeInput) (engine.ClassTime, error) {
	ct := engine.ClassTime{ID: id, RoomID: in.RoomID, Weekday: in.Weekday, Start: in.Start, End: in.End,
		Label: deref(in.Label), Capacity: deref(in.Capacity), Type: deref(in.Type), Buffer: deref(in.BufferMinutes), Units: deref(in.Units)}
	if in.Active != nil {
		ct.Inactive = !*in.Active
	}
	return ct, errors.Join(positive("capacity", in.Capacity, "no limit"), positive("units", in.Units, "all of the room"))
}

func updateClassTime(dst *engine.ClassTime, in model.UpdateClassTimeInput) error {
	clearable(&dst.Label, in.Label)
	clearable(&dst.Capacity, in.Capacity)
	clearable(&dst.Type, in.Type)
	clearable(&dst.Units, in.Units)
	active := !dst.Inactive
	err := errors.Join(
		keep(&dst.RoomID, in.RoomID, "roomId"),
		keep(&dst.Weekday, in.Weekday, "weekday"),
		keep(&dst.Start, in.Start, "start"),
		keep(&dst.End, in.End, "end"),
		keep(&dst.Buffer, in.BufferMinutes, "bufferMinutes"),
		keep(&active, in.Active, "active"),
		positive("capacity", in.Capacity.Value(), "no limit"),
		positive("units", in.Units.Value(), "all of the room"))
	dst.Inactive = !active
	return err
}

// positive refuses a count of 0 or less where null says "none".
func positive(field string, n *int, none string) error {
	switch {
	case n == nil || *n >= 1:
		return nil
	case none == "":
		return badInput(field, "%s must be at least 1, not %d", field, *n)
	}
	return badInput(field, "%s must be at least 1, not %d; null means %s", field, *n, none)
}

// classFor returns the class an input names: an existing one by id, or one
// described inline — the existing class with the same activity and set of
// staff (engine.State.ClassWith), or a new one.
func classFor(e *models.Edit, id *int64, in *model.CreateClassInput, field string) (int64, error) {
	switch {
	case id != nil:
		return *id, nil
	case in == nil:
		return 0, badInput(field, "Name the %s by id or describe it", engine.Words(e.State.Business.Kind).Class.One)
	}
	c := newClass(0, *in)
	if old, ok := e.State.ClassWith(c.ActivityID, c.StaffIDs); ok {
		return old.ID, nil
	}
	c.ID = e.NewID()
	e.State.Classes = append(e.State.Classes, c)
	return c.ID, nil
}

// classTimeFor is classFor for class times: an identical one is reused.
func classTimeFor(e *models.Edit, id *int64, in *model.CreateClassTimeInput) (int64, error) {
	switch {
	case id != nil:
		return *id, nil
	case in == nil:
		return 0, badInput("classTimeId", "Name the class time by id or describe it")
	}
	ct, err := newClassTime(0, *in)
	if err != nil {
		return 0, err
	}
	for _, old := range e.State.ClassTimes {
		if ct.ID = old.ID; ct == old {
			return old.ID, nil
		}
	}
	ct.ID = e.NewID()
	e.State.ClassTimes = append(e.State.ClassTimes, ct)
	return ct.ID, nil
}
