package engine

// FreeRooms returns the rooms (by id, in the state's order) in which units
// of the room stay free from start to end on every one of dates: a new
// booking or session of that span would add no room clash on any of them.
// It is the capacity sweep of availability (CanBook) over each date's
// levels and uses — sessions with their cleaning buffers, room bookings —
// in the date's wall-clock minutes, each date resolved once for every room.
func (t *Timetable) FreeRooms(dates []Date, start, end LocalTime, units int) []int64 {
	free := make(map[int64]bool, len(t.state.Rooms))
	for _, r := range t.state.Rooms {
		free[r.ID] = true
	}
	var day []Session
	for _, d := range dates {
		day = t.appendDay(day[:0], d, t.dated[d])
		for _, r := range t.state.Rooms {
			id := r.ID
			if !free[id] {
				continue
			}
			levels := t.dayLevels(id, d)
			var us []Use
			for i := range day {
				s := &day[i]
				if s.Cancelled || s.RoomID != id {
					continue
				}
				until := occupiedUntil(s.End, int(s.Buffer))
				if t.takesWholeRoom(s) {
					us = appendWholeRoom(us, s.Start, until, levels)
				} else {
					us = append(us, Use{From: int64(s.Start), To: int64(until), Units: int(s.Units)})
				}
			}
			for _, b := range t.bookings[d] {
				if b.Cancelled || b.RoomID != id {
					continue
				}
				if b.Units == 0 {
					us = appendWholeRoom(us, b.Start, b.End, levels)
				} else {
					us = append(us, Use{From: int64(b.Start), To: int64(b.End), Units: b.Units})
				}
			}
			if !CanBook(levels, us, int64(start), int64(end), units) {
				free[id] = false
			}
		}
	}
	var out []int64
	for _, r := range t.state.Rooms {
		if free[r.ID] {
			out = append(out, r.ID)
		}
	}
	return out
}
