package engine

import (
	"slices"
	"time"
)

// dayLevels returns a room's capacity over date d as levels in minutes of
// the day: its overrides for the date if any, else its weekly rules for the
// weekday, else its plain capacity all day. The caller must not change them.
func (t *Timetable) dayLevels(room int64, d Date) []Level {
	l := t.levels[room]
	if l != nil && l.overrides && t.overridden(room, d) {
		return levelsOf(t.rules[room], func(r *CapacityRule) bool { return r.Override() && r.From <= d && d <= r.To })
	}
	return t.weeklyLevels(room, d.Weekday())
}

// weeklyLevels is a room's capacity on a weekday by its weekly rules alone.
// The caller must not change them.
func (t *Timetable) weeklyLevels(room int64, wd time.Weekday) []Level {
	if l := t.levels[room]; l != nil {
		return l.weekly[wd]
	}
	return []Level{{From: 0, To: int64(EndOfDay), Units: t.rooms[room].Units()}}
}

// overridden reports whether a room's overrides hold on d.
func (t *Timetable) overridden(room int64, d Date) bool {
	for _, r := range t.rules[room] {
		if r.Override() && r.From <= d && d <= r.To {
			return true
		}
	}
	return false
}

func levelsOf(rules []*CapacityRule, keep func(*CapacityRule) bool) []Level {
	var out []Level
	for _, r := range rules {
		if keep(r) {
			out = append(out, Level{From: int64(r.Start), To: int64(r.End), Units: r.Units})
		}
	}
	slices.SortFunc(out, func(a, b Level) int { return int(a.From - b.From) })
	return out
}

// levelAt returns the level at minute m of a day.
func levelAt(levels []Level, m int64) int {
	for _, l := range levels {
		if l.From <= m && m < l.To {
			return l.Units
		}
	}
	return 0
}

// RoomUsage returns a room's capacity and what uses it over the instants
// [from, to), in Unix seconds: its levels on each date, and every session
// (with its cleaning buffer) and room booking that is not cancelled. A
// session or booking that takes the whole room takes whatever level there is
// at each moment (at least one unit).
func (t *Timetable) RoomUsage(room int64, from, to time.Time, loc *time.Location) (levels []Level, uses []Use) {
	first, last := DateOf(from.In(loc)).AddDays(-1), DateOf(to.In(loc))
	// Room enough for the usual: the series sessions and bookings of each
	// date, whole-room sessions split by at most a few levels.
	n := 0
	for d := first; d <= last; d++ {
		n += len(t.dayOrder[d.Weekday()]) + len(t.bookings[d])
	}
	uses = make([]Use, 0, n)
	day := make([]Session, 0, t.weekTotal/7+8) // one date's sessions, the buffer reused
	var clock dayClock
	for d := first; d <= last; d++ {
		clock.set(d, loc)
		dayLevels := t.dayLevels(room, d)
		for _, l := range dayLevels {
			levels = append(levels, Level{From: clock.at(l.From), To: clock.at(l.To), Units: l.Units})
		}
		use := func(start, end LocalTime, units int, whole bool) {
			if !whole {
				uses = append(uses, Use{From: clock.at(int64(start)), To: clock.at(int64(end)), Units: units})
				return
			}
			n := len(uses)
			uses = appendWholeRoom(uses, start, end, dayLevels)
			for i := n; i < len(uses); i++ {
				uses[i].From, uses[i].To = clock.at(uses[i].From), clock.at(uses[i].To)
			}
		}
		day = t.appendDay(day[:0], d, t.dated[d])
		for i := range day {
			if s := &day[i]; !s.Cancelled && s.RoomID == room {
				use(s.Start, occupiedUntil(s.End, int(s.Buffer)), int(s.Units), t.takesWholeRoom(s))
			}
		}
		for _, b := range t.bookings[d] {
			if !b.Cancelled && b.RoomID == room {
				use(b.Start, b.End, b.Units, b.Units == 0)
			}
		}
	}
	return levels, uses
}

// takesWholeRoom reports whether a session asks for all of its room
// (units zero) rather than a number of units.
func (t *Timetable) takesWholeRoom(s *Session) bool {
	if s.IsOneOff() {
		for _, o := range t.oneOffs[s.Date] {
			if o.ID == s.OneOffID {
				return o.Units == 0
			}
		}
		return true
	}
	return t.classTimes[s.ClassTimeID].Units == 0
}

// appendWholeRoom splits a span that takes the whole room by the levels it
// crosses, each piece taking that level (at least one unit), and appends
// the pieces to uses.
func appendWholeRoom(uses []Use, start, end LocalTime, levels []Level) []Use {
	cuts := append(make([]int64, 0, 8), int64(start), int64(end))
	for _, l := range levels {
		for _, c := range [2]int64{l.From, l.To} {
			if int64(start) < c && c < int64(end) {
				cuts = append(cuts, c)
			}
		}
	}
	slices.Sort(cuts)
	cuts = slices.Compact(cuts)
	for i := 0; i+1 < len(cuts); i++ {
		uses = append(uses, Use{From: cuts[i], To: cuts[i+1], Units: max(levelAt(levels, cuts[i]), 1)})
	}
	return uses
}

// RoomTimeline is the timeline of a room over [from, to) (see Timeline).
func (t *Timetable) RoomTimeline(room int64, from, to time.Time, loc *time.Location) []Stretch {
	levels, uses := t.RoomUsage(room, from, to, loc)
	return Timeline(levels, uses, from.Unix(), to.Unix())
}

// RoomAvailability answers "units of the room for d, when?" over [from, to)
// (see Availability).
func (t *Timetable) RoomAvailability(room int64, from, to time.Time, loc *time.Location, units int, d time.Duration) []Window {
	levels, uses := t.RoomUsage(room, from, to, loc)
	return Availability(levels, uses, from.Unix(), to.Unix(), units, int64(d/time.Second))
}
