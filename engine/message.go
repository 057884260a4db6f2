package engine

import (
	"strconv"
	"strings"
)

// clashMessage writes a clash the way the reference system does, in the
// business's words:
//
//	Host Mei Chen double-booked: Standup (Room A, 9 AM – 9:15 AM, Acme — Daily standup W1) &
//	Interview (Room B, 9 AM – 12 PM, Orbit Analytics — Hiring W1), first 6 Oct
func (t *Timetable) clashMessage(c *Clash, today Date) string {
	words := Words(t.state.Business.Kind)
	var b strings.Builder
	switch c.Kind {
	case StaffClash:
		b.WriteString(words.Staff.Title() + " " + c.Staff + " double-booked: ")
	case RoomClash:
		room := t.rooms[c.RoomID]
		name := room.Name
		if !strings.HasPrefix(strings.ToLower(name), "room") {
			name = "Room " + name
		}
		need, whole := 0, true
		for i := range c.Sessions {
			need += int(c.Sessions[i].Units)
			whole = whole && t.takesWholeRoom(&c.Sessions[i])
		}
		for _, bk := range c.Bookings {
			need += t.units(bk.Units, bk.RoomID)
			whole = whole && bk.Units == 0
		}
		switch {
		case len(c.Sessions)+len(c.Bookings) == 2 && whole:
			b.WriteString(name + " double-booked: ")
		case len(t.rules[c.RoomID]) == 0:
			b.WriteString(name + " over capacity (" + strconv.Itoa(need) + " of " + strconv.Itoa(room.Units()) + " units): ")
		default: // the capacity varies over the day
			b.WriteString(name + " over capacity: ")
		}
	}
	parts := make([]string, 0, len(c.Sessions)+len(c.Bookings))
	for i := range c.Sessions {
		parts = append(parts, t.describe(&c.Sessions[i], today))
	}
	for _, bk := range c.Bookings {
		units := "the whole room"
		if bk.Units > 0 {
			units = Word{"unit", "units"}.N(bk.Units)
		}
		parts = append(parts, "Booking ("+t.rooms[bk.RoomID].Name+", "+Span(bk.Start, bk.End)+", "+units+")")
	}
	b.WriteString(joinAnd(parts))
	if c.Every == 0 {
		b.WriteString(", on " + c.First.Short(today))
	} else {
		b.WriteString(", first " + c.First.Short(today))
	}
	return b.String()
}

// describe names a session for a message:
// "Standup (Room A, 9 AM – 9:15 AM, Acme — Daily standup W1)". The week is
// only written for rotating series.
func (t *Timetable) describe(s *Session, today Date) string {
	name := t.activities[t.classes[s.ClassID].ActivityID].Name
	details := []string{t.rooms[s.RoomID].Name, Span(s.Start, s.End)}
	for _, sw := range s.Series {
		d := t.series[sw.SeriesID].Name
		if sw.Cycle > 1 {
			d += " W" + strconv.Itoa(sw.Week)
		}
		details = append(details, d)
	}
	if s.IsOneOff() {
		details = append(details, "one-off")
	}
	if s.Moved() {
		details = append(details, "moved from "+s.Origin().Date.Short(today))
	}
	return name + " (" + strings.Join(details, ", ") + ")"
}
