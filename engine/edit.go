package engine

import (
	"fmt"
	"slices"
)

// The edits below are the rules of changing a state that are more than
// setting a field: what may be removed, what goes with it, hand-overs.
// Each leaves the state unchanged when it returns an error.

// uses counts what refers to a row, by kind.
type uses map[string]int

// inUse refuses to remove something that other rows still name.
func (s *State) inUse(what string, u uses) error {
	kinds := []struct {
		key  string
		word Word
	}{
		{"class time", Word{"class time", "class times"}}, {"class", Words(s.Business.Kind).Class},
		{"series entry", Word{"series entry", "series entries"}}, {"one-off", Word{"one-off", "one-offs"}},
		{"day change", Word{"day change", "day changes"}}, {"closure", Word{"closure", "closures"}}, {"cover", Word{"cover", "covers"}},
		{"room booking", Word{"room booking", "room bookings"}}, {"standing booking", Word{"standing booking", "standing bookings"}},
	}
	var parts []string
	for _, k := range kinds {
		if n := u[k.key]; n > 0 {
			parts = append(parts, k.word.N(n))
		}
	}
	if len(parts) == 0 {
		return nil
	}
	return Errorf(InUse, "id", "Still in use — remove it where it is used first: %s is used by %s", what, joinAnd(parts))
}

// RemoveRoom removes a room that nothing uses.
func (s *State) RemoveRoom(id int64) error {
	i := slices.IndexFunc(s.Rooms, func(r Room) bool { return r.ID == id })
	if i < 0 {
		return Errorf(NotFound, "id", "There is no room with id %d", id)
	}
	u := uses{}
	for _, ct := range s.ClassTimes {
		if ct.RoomID == id {
			u["class time"]++
		}
	}
	for _, o := range s.OneOffs {
		if o.RoomID == id {
			u["one-off"]++
		}
	}
	for _, c := range s.Changes {
		if c.RoomID == id {
			u["day change"]++
		}
	}
	for _, c := range s.Closures {
		if slices.Contains(c.RoomIDs, id) {
			u["closure"]++
		}
	}
	for _, b := range s.RoomBookings {
		if b.RoomID == id {
			u["room booking"]++
		}
	}
	if err := s.inUse(fmt.Sprintf("room %q", s.Rooms[i].Name), u); err != nil {
		return err
	}
	s.Rooms = slices.Delete(s.Rooms, i, i+1)
	s.Capacity = slices.DeleteFunc(s.Capacity, func(c CapacityRule) bool { return c.RoomID == id }) // the room's own rules go with it
	return nil
}

// RemoveStaff removes a staff member who is in no class and covers no
// session.
func (s *State) RemoveStaff(id int64) error {
	w := Words(s.Business.Kind)
	i := slices.IndexFunc(s.Staff, func(p Staff) bool { return p.ID == id })
	if i < 0 {
		return Errorf(NotFound, "id", "There is no %s with id %d", w.Staff.One, id)
	}
	u := uses{}
	for _, c := range s.Classes {
		if slices.Contains(c.StaffIDs, id) {
			u["class"]++
		}
	}
	for _, c := range s.Changes {
		if slices.Contains(c.StaffIDs, id) {
			u["cover"]++
		}
	}
	if err := s.inUse(fmt.Sprintf("%s %s", w.Staff.One, s.Staff[i].Name), u); err != nil {
		return err
	}
	s.Staff = slices.Delete(s.Staff, i, i+1)
	// Their time off and hours are about them alone, and go with them.
	s.TimeOffs = slices.DeleteFunc(s.TimeOffs, func(o TimeOff) bool { return o.StaffID == id })
	s.Hours = slices.DeleteFunc(s.Hours, func(h WorkingHours) bool { return h.StaffID == id })
	s.Qualifications = slices.DeleteFunc(s.Qualifications, func(q Qualification) bool { return q.StaffID == id })
	return nil
}

// RemoveActivity removes an activity that no class gives.
func (s *State) RemoveActivity(id int64) error {
	w := Words(s.Business.Kind)
	i := slices.IndexFunc(s.Activities, func(a Activity) bool { return a.ID == id })
	if i < 0 {
		return Errorf(NotFound, "id", "There is no %s with id %d", w.Activity.One, id)
	}
	u := uses{}
	for _, c := range s.Classes {
		if c.ActivityID == id {
			u["class"]++
		}
	}
	if err := s.inUse(fmt.Sprintf("%s %q", w.Activity.One, s.Activities[i].Name), u); err != nil {
		return err
	}
	s.Activities = slices.Delete(s.Activities, i, i+1)
	// Who may give it goes with it; a staff member left with no
	// qualification may give anything, as one who never had any.
	s.Qualifications = slices.DeleteFunc(s.Qualifications, func(q Qualification) bool { return q.ActivityID == id })
	return nil
}

// RemoveClass removes a class that no series, one-off or change uses. Day
// changes of its sessions go with it (with no entry they name nothing).
func (s *State) RemoveClass(id int64) error {
	w := Words(s.Business.Kind)
	i := slices.IndexFunc(s.Classes, func(c Class) bool { return c.ID == id })
	if i < 0 {
		return Errorf(NotFound, "id", "There is no %s with id %d", w.Class.One, id)
	}
	u := uses{}
	for _, e := range s.Entries {
		if e.ClassID == id {
			u["series entry"]++
		}
	}
	for _, o := range s.OneOffs {
		if o.ClassID == id {
			u["one-off"]++
		}
	}
	for _, c := range s.Changes {
		if c.ClassID == id {
			u["day change"]++
		}
	}
	for _, r := range s.Standing {
		if r.ClassID == id {
			u["standing booking"]++
		}
	}
	if err := s.inUse("this "+w.Class.One, u); err != nil {
		return err
	}
	s.Classes = slices.Delete(s.Classes, i, i+1)
	s.Changes = slices.DeleteFunc(s.Changes, func(c DayChange) bool { return c.Ref.ClassID == id })
	return nil
}

// RemoveClassTime removes a class time that no series uses, with the day
// changes of its sessions.
func (s *State) RemoveClassTime(id int64) error {
	i := slices.IndexFunc(s.ClassTimes, func(c ClassTime) bool { return c.ID == id })
	if i < 0 {
		return Errorf(NotFound, "id", "There is no class time with id %d", id)
	}
	u := uses{}
	for _, e := range s.Entries {
		if e.ClassTimeID == id {
			u["series entry"]++
		}
	}
	for _, r := range s.Standing {
		if r.ClassTimeID == id {
			u["standing booking"]++
		}
	}
	if err := s.inUse("this class time", u); err != nil {
		return err
	}
	s.ClassTimes = slices.Delete(s.ClassTimes, i, i+1)
	s.Changes = slices.DeleteFunc(s.Changes, func(c DayChange) bool { return c.Ref.ClassTimeID == id })
	return nil
}

// RemoveSeries removes a series with its entries and plans.
func (s *State) RemoveSeries(id int64) error {
	i := slices.IndexFunc(s.Series, func(x Series) bool { return x.ID == id })
	if i < 0 {
		return Errorf(NotFound, "id", "There is no %s with id %d", Words(s.Business.Kind).Series.One, id)
	}
	s.Series = slices.Delete(s.Series, i, i+1)
	s.Entries = slices.DeleteFunc(s.Entries, func(e Entry) bool { return e.SeriesID == id })
	s.Plans = slices.DeleteFunc(s.Plans, func(p Plan) bool { return p.SeriesID == id })
	return nil
}

// SetCycle changes the length of a series' rotation; entries of weeks that
// no longer exist are removed.
func (s *State) SetCycle(series int64, weeks int) {
	for i := range s.Series {
		if s.Series[i].ID == series {
			s.Series[i].Cycle = weeks
		}
	}
	s.Entries = slices.DeleteFunc(s.Entries, func(e Entry) bool { return e.SeriesID == series && e.Week > weeks })
}

// ReplaceSeriesFrom hands a series over to a successor from the week of
// date: the series ends there and a new one, with the same cycle and end,
// starts there. With copyEntries the successor gets the series' entries and
// plans, its weeks shifted so that the same sessions go on happening;
// without, it starts empty. It returns the successor's id (from newID).
func (s *State) ReplaceSeriesFrom(id int64, date Date, name string, copyEntries bool, newID func() int64) (int64, error) {
	i, from, err := s.handOverWeek(id, date)
	if err != nil {
		return 0, err
	}
	old := s.Series[i]
	// The successor's week 1 is the week the series would have been in.
	offset := 0
	if copyEntries {
		offset = s.position(id, from) - 1
	}
	if name == "" {
		name = old.Name
	}
	next := Series{ID: newID(), Name: name, Anchor: from, End: old.End, Cycle: old.Cycle}
	s.Series[i].End = from
	s.Series = append(s.Series, next)
	if !copyEntries {
		return next.ID, nil
	}
	for _, e := range s.Entries {
		if e.SeriesID == id {
			e.ID, e.SeriesID = newID(), next.ID
			e.Week = shiftWeek(e.Week, offset, old.Cycle)
			s.Entries = append(s.Entries, e)
		}
	}
	for _, p := range s.Plans {
		if p.SeriesID == id {
			p.ID, p.SeriesID = newID(), next.ID
			s.Plans = append(s.Plans, p)
		}
	}
	return next.ID, nil
}

// SplitSeries keeps what a series did before the week of date: a new series
// with its name, rotation and entries (and no plans: it is no longer sold)
// takes the weeks before, and the series itself starts in that week, its
// entries' weeks shifted so that the same sessions go on happening (the
// week of date is its week 1). Its plans and subscribers stay with it. It
// returns the new series' id and the shift: the series' old week k is now
// week k−shift (mod its cycle).
func (s *State) SplitSeries(id int64, date Date, newID func() int64) (past int64, shift int, err error) {
	i, from, err := s.handOverWeek(id, date)
	if err != nil {
		return 0, 0, err
	}
	old := s.Series[i]
	shift = s.position(id, from) - 1
	kept := Series{ID: newID(), Name: old.Name, Anchor: old.Anchor, End: from, Cycle: old.Cycle}
	s.Series[i].Anchor = from
	for j := range s.Entries {
		if e := &s.Entries[j]; e.SeriesID == id {
			s.Entries = append(s.Entries, Entry{ID: newID(), SeriesID: kept.ID, ClassTimeID: e.ClassTimeID, ClassID: e.ClassID, Week: e.Week})
			s.Entries[j].Week = shiftWeek(s.Entries[j].Week, shift, old.Cycle)
		}
	}
	s.Series = append(s.Series, kept)
	return kept.ID, shift, nil
}

// handOverWeek finds a series and the week start of date, which must be one
// of its weeks after the first.
func (s *State) handOverWeek(id int64, date Date) (int, Date, error) {
	w := Words(s.Business.Kind)
	i := slices.IndexFunc(s.Series, func(x Series) bool { return x.ID == id })
	if i < 0 {
		return 0, 0, Errorf(NotFound, "id", "There is no %s with id %d", w.Series.One, id)
	}
	old := s.Series[i]
	from := date.WeekStart(s.Business.WeekStart)
	if from <= old.Anchor || (old.End != 0 && from >= old.End) {
		runs := "from " + old.Anchor.String()
		if old.End != 0 {
			runs += " until " + old.End.AddDays(-1).String()
		} else {
			runs += " on"
		}
		return 0, 0, Errorf(Invalid, "date", "%s %q runs %s; a hand-over must fall in one of its weeks after the first, not in the week of %s",
			w.Series.Title(), old.Name, runs, from)
	}
	return i, from, nil
}

// position is the week of its rotation a series is in on date, pauses
// counted.
func (s *State) position(id int64, date Date) int {
	return compile(*s).rot[id].Position(WeekOf(date, s.Business.WeekStart))
}

// shiftWeek renumbers a week of a cycle so that week shift+1 becomes 1.
// Weeks outside the cycle stay as they are, for validation to refuse.
func shiftWeek(week, shift, cycle int) int {
	if week < 1 || week > cycle {
		return week
	}
	return (week-1-shift+cycle)%cycle + 1
}
