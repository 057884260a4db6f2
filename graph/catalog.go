package graph

import (
	"slices"

	"github.com/koredyne/schedule/engine"
	"github.com/koredyne/schedule/graph/model"
	"github.com/koredyne/schedule/models"
)

// Input mapping of the catalog: rooms, staff, activities, classes and class
// times (catalog.graphqls, catalog.resolvers.go).

func applyRoom(dst *engine.Room, in model.RoomInput) {
	set(&dst.Name, in.Name)
	set(&dst.Capacity, in.Capacity)
}

func applyActivity(dst *engine.Activity, in model.ActivityInput) {
	set(&dst.Name, in.Name)
	set(&dst.Color, in.Color)
}

func applyClass(dst *engine.Class, in model.ClassInput) {
	set(&dst.ActivityID, in.ActivityID)
	if in.StaffIds != nil {
		dst.StaffIDs = slices.Clone(in.StaffIds)
	}
}

func applyClassTime(dst *engine.ClassTime, in model.ClassTimeInput) {
	set(&dst.RoomID, in.RoomID)
	set(&dst.Weekday, in.Weekday)
	set(&dst.Start, in.Start)
	set(&dst.End, in.End)
	set(&dst.Label, in.Label)
	set(&dst.Capacity, in.Capacity)
	set(&dst.Type, in.Type)
	set(&dst.Buffer, in.BufferMinutes)
	set(&dst.Units, in.Units)
	if in.Active != nil {
		dst.Inactive = !*in.Active
	}
}

// classInput and classTimeInput read a create input as the plain input the
// apply functions take: every field a create requires is there.
func classInput(in model.CreateClassInput) model.ClassInput {
	return model.ClassInput{ActivityID: &in.ActivityID, StaffIds: in.StaffIds}
}

func classTimeInput(in model.CreateClassTimeInput) model.ClassTimeInput {
	return model.ClassTimeInput{RoomID: &in.RoomID, Weekday: &in.Weekday, Start: &in.Start, End: &in.End, Label: in.Label,
		Capacity: in.Capacity, Type: in.Type, BufferMinutes: in.BufferMinutes, Active: in.Active, Units: in.Units}
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
	c := engine.Class{}
	applyClass(&c, classInput(*in))
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
	ct := engine.ClassTime{}
	applyClassTime(&ct, classTimeInput(*in))
	for _, old := range e.State.ClassTimes {
		if ct.ID = old.ID; ct == old {
			return old.ID, nil
		}
	}
	ct.ID = e.NewID()
	e.State.ClassTimes = append(e.State.ClassTimes, ct)
	return ct.ID, nil
}
