package engine

import (
	"strconv"
	"strings"
)

// ClashFacts is what a clash message says, its names resolved and without
// its words: the English message (Clash.Message) is written from them here,
// and the edges write them in the business's language.
type ClashFacts struct {
	Kind ClashKind
	// Staff is the person of a staff clash.
	Staff string
	// Room is the room of a room clash; Double tells two sessions or
	// bookings that each take the whole room; otherwise Need units were
	// wanted of Units (Units 0: the room's capacity varies over the day).
	Room        string
	Double      bool
	Need, Units int
	// Items are what clashes: sessions, then room bookings.
	Items []ClashItem
	// Once is a clash on First only; otherwise First is the first of its
	// repeats.
	Once  bool
	First Date
}

// ClashItem is a session or a room booking of a clash.
type ClashItem struct {
	// Booking is a room booking of Units units (0: the whole room).
	Booking bool
	Units   int
	// Activity is a session's activity.
	Activity   string
	Room       string
	Start, End LocalTime
	// Series are the series a session belongs to, with its week in each
	// (0 for a series that does not rotate).
	Series []SeriesWeekName
	OneOff bool
	// MovedFrom is the date a moved session was moved from.
	MovedFrom Date
}

// SeriesWeekName is a series a session belongs to and its week there.
type SeriesWeekName struct {
	Name string
	Week int
}

// clashFacts resolves the names of a clash.
func (t *Timetable) clashFacts(c *Clash) ClashFacts {
	f := ClashFacts{Kind: c.Kind, Staff: c.Staff, Once: c.Every == 0, First: c.First}
	if c.Kind == RoomClash {
		room := t.rooms[c.RoomID]
		f.Room = room.Name
		whole := true
		for i := range c.Sessions {
			f.Need += int(c.Sessions[i].Units)
			whole = whole && t.takesWholeRoom(&c.Sessions[i])
		}
		for _, bk := range c.Bookings {
			f.Need += t.units(bk.Units, bk.RoomID)
			whole = whole && bk.Units == 0
		}
		f.Double = len(c.Sessions)+len(c.Bookings) == 2 && whole
		if len(t.rules[c.RoomID]) == 0 {
			f.Units = room.Units()
		}
	}
	for i := range c.Sessions {
		f.Items = append(f.Items, t.item(&c.Sessions[i]))
	}
	for _, bk := range c.Bookings {
		f.Items = append(f.Items, ClashItem{Booking: true, Units: bk.Units, Room: t.rooms[bk.RoomID].Name, Start: bk.Start, End: bk.End})
	}
	return f
}

// item is a session as messages name it.
func (t *Timetable) item(s *Session) ClashItem {
	it := ClashItem{Activity: t.activities[t.classes[s.ClassID].ActivityID].Name, Room: t.rooms[s.RoomID].Name,
		Start: s.Start, End: s.End, OneOff: s.IsOneOff()}
	for _, sw := range s.Series {
		week := 0
		if sw.Cycle > 1 {
			week = sw.Week
		}
		it.Series = append(it.Series, SeriesWeekName{t.series[sw.SeriesID].Name, week})
	}
	if s.Moved() {
		it.MovedFrom = s.Origin().Date
	}
	return it
}

// Message writes the clash the way the reference system does, in the
// business's (English) words:
//
//	Host Mei Chen double-booked: Standup (Room A, 9 AM – 9:15 AM, Acme — Daily standup W1) &
//	Interview (Room B, 9 AM – 12 PM, Orbit Analytics — Hiring W1), first 6 Oct
func (f *ClashFacts) Message(words Vocabulary, today Date) string {
	var b strings.Builder
	switch f.Kind {
	case StaffClash:
		b.WriteString(words.Staff.Title() + " " + f.Staff + " double-booked: ")
	case RoomClash:
		name := f.Room
		if !strings.HasPrefix(strings.ToLower(name), "room") {
			name = "Room " + name
		}
		switch {
		case f.Double:
			b.WriteString(name + " double-booked: ")
		case f.Units > 0:
			b.WriteString(name + " over capacity (" + strconv.Itoa(f.Need) + " of " + strconv.Itoa(f.Units) + " units): ")
		default: // the capacity varies over the day
			b.WriteString(name + " over capacity: ")
		}
	}
	parts := make([]string, 0, len(f.Items))
	for _, it := range f.Items {
		if it.Booking {
			units := "the whole room"
			if it.Units > 0 {
				units = Word{"unit", "units"}.N(it.Units)
			}
			parts = append(parts, "Booking ("+it.Room+", "+Span(it.Start, it.End)+", "+units+")")
			continue
		}
		parts = append(parts, it.describe(today))
	}
	b.WriteString(joinAnd(parts))
	if f.Once {
		b.WriteString(", on " + f.First.Short(today))
	} else {
		b.WriteString(", first " + f.First.Short(today))
	}
	return b.String()
}

// describe names a session for a message:
// "Standup (Room A, 9 AM – 9:15 AM, Acme — Daily standup W1)". The week is
// only written for rotating series.
func (it *ClashItem) describe(today Date) string {
	details := []string{it.Room, Span(it.Start, it.End)}
	for _, sw := range it.Series {
		d := sw.Name
		if sw.Week > 0 {
			d += " W" + strconv.Itoa(sw.Week)
		}
		details = append(details, d)
	}
	if it.OneOff {
		details = append(details, "one-off")
	}
	if it.MovedFrom != 0 {
		details = append(details, "moved from "+it.MovedFrom.Short(today))
	}
	return it.Activity + " (" + strings.Join(details, ", ") + ")"
}

// clashMessage resolves a clash's facts and writes its English message.
func (t *Timetable) clashMessage(c *Clash, today Date) string {
	c.Facts = t.clashFacts(c)
	return c.Facts.Message(Words(t.state.Business.Kind), today)
}
