package engine

import (
	"slices"
)

// ChangePatch asks for one session to be different on its date. Nil fields
// are left as they are; StaffIDs set to an empty, non-nil list goes back to
// the class's own staff.
type ChangePatch struct {
	Cancelled  *bool
	Date       *Date
	RoomID     *int64
	Start, End *LocalTime
	ClassID    *int64
	StaffIDs   []int64
	Note       *string
}

// MergeChange lays patch over the change the session already has and
// normalises the result: every field equal to what the session normally is
// is dropped, so a change is always the difference from the original. It
// returns false when nothing is left: the change should be deleted. The
// session must exist on its original date.
func (t *Timetable) MergeChange(ref SessionRef, patch ChangePatch) (DayChange, bool, error) {
	orig, ok := t.original(ref)
	if !ok {
		w := Words(t.state.Business.Kind)
		return DayChange{}, false, Errorf(NotFound, "ref", "There is no such %s on %s: that %s does not happen in that class time that day", w.Class.One, ref.Date, w.Class.One)
	}
	c := DayChange{Ref: ref}
	if old := t.changes[ref]; old != nil {
		c = *old
	}
	if patch.Cancelled != nil {
		c.Cancelled = *patch.Cancelled
	}
	if patch.Date != nil {
		c.Date = *patch.Date
	}
	if patch.RoomID != nil {
		c.RoomID = *patch.RoomID
	}
	if patch.Start != nil {
		c.Start = ptr(*patch.Start)
	}
	if patch.End != nil {
		c.End = ptr(*patch.End)
	}
	if patch.ClassID != nil {
		c.ClassID = *patch.ClassID
	}
	if patch.StaffIDs != nil {
		c.StaffIDs = slices.Clone(patch.StaffIDs)
		if len(c.StaffIDs) == 0 {
			c.StaffIDs = nil
		}
	}
	if patch.Note != nil {
		c.Note = *patch.Note
	}
	return t.normalize(c, orig)
}

func (t *Timetable) normalize(c DayChange, orig Session) (DayChange, bool, error) {
	if c.Date == orig.Date {
		c.Date = 0
	}
	if c.RoomID == orig.RoomID {
		c.RoomID = 0
	}
	if c.Start != nil && *c.Start == orig.Start {
		c.Start = nil
	}
	if c.End != nil && *c.End == orig.End {
		c.End = nil
	}
	if c.ClassID == orig.ClassID {
		c.ClassID = 0
	}
	class := orig.ClassID
	if c.ClassID != 0 {
		cl, ok := t.classes[c.ClassID]
		if !ok {
			return DayChange{}, false, Errorf(NotFound, "classId", "There is no %s with id %d", Words(t.state.Business.Kind).Class.One, c.ClassID)
		}
		class = cl.ID
	}
	if c.StaffIDs != nil && slices.Equal(c.StaffIDs, t.classes[class].StaffIDs) {
		c.StaffIDs = nil
	}
	empty := !c.Cancelled && c.Date == 0 && c.RoomID == 0 && c.Start == nil && c.End == nil &&
		c.ClassID == 0 && c.StaffIDs == nil && c.Note == ""
	return c, !empty, nil
}

func ptr[T any](v T) *T { return &v }
