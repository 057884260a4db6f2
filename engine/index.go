package engine

import (
	"cmp"
	"slices"
	"time"
)

// index is what the timetable works out once so that resolving a date
// costs the sessions it holds and little more: no sorting on a date without
// exceptions, one map look-up a date, no allocation a session.
type index struct {
	// dayOrder lists, by weekday, the groups of active class times in the
	// order Day returns their sessions (compareSessions), so that a date
	// whose sessions are as their rules make them needs no sorting.
	dayOrder [7][]int
	// weekTotal is the length of all of dayOrder: how many series sessions
	// a week holds at most.
	weekTotal int
	// dated holds, for each date that has any, the exceptions on it.
	dated map[Date]*dated
	// levels is each room's capacity by its weekly rules (or its plain
	// capacity) on each weekday, and whether it has overrides.
	levels map[int64]*roomLevels
}

// dated is what a date holds beyond its series sessions.
type dated struct {
	changes []*DayChange // of sessions originally on the date
	movedIn []*DayChange // moving sessions onto it from other dates
	oneOffs []*OneOff
}

type roomLevels struct {
	weekly    [7][]Level // by weekday; the caller must not change them
	overrides bool
}

func (t *Timetable) buildIndex() {
	for gi := range t.groups {
		g := &t.groups[gi]
		g.units = t.units(g.ct.Units, g.ct.RoomID)
		g.weeks = slices.Clip(g.weeks)
		g.setEvery()
	}
	t.buildDayOrder()
	t.buildDated()
	t.buildLevels()
}

// buildDayOrder fills dayOrder and weekTotal from byWeekday.
func (t *Timetable) buildDayOrder() {
	for wd := range t.dayOrder {
		// byWeekday holds the same groups, in the order of their starts.
		list := slices.Clone(t.byWeekday[wd])
		slices.SortStableFunc(list, func(a, b int) int { return daySort(&t.groups[a], &t.groups[b]) })
		t.dayOrder[wd] = list
		t.weekTotal += len(list)
	}
}

// daySort orders the sessions of two groups on one date as
// compareSessions does (no one-off among them).
func daySort(x, y *group) int {
	return cmp.Or(cmp.Compare(x.ct.Start, y.ct.Start), cmp.Compare(x.ct.End, y.ct.End),
		cmp.Compare(x.ct.RoomID, y.ct.RoomID), cmp.Compare(x.class.ID, y.class.ID), cmp.Compare(x.ct.ID, y.ct.ID))
}

// buildDated fills dated from the dated rows compiled.
func (t *Timetable) buildDated() {
	t.dated = make(map[Date]*dated, len(t.byOrigin)+len(t.movedIn)+len(t.oneOffs))
	at := func(d Date) *dated {
		x := t.dated[d]
		if x == nil {
			x = &dated{}
			t.dated[d] = x
		}
		return x
	}
	for d, cs := range t.byOrigin {
		at(d).changes = cs
	}
	for d, cs := range t.movedIn {
		at(d).movedIn = cs
	}
	for d, os := range t.oneOffs {
		at(d).oneOffs = os
	}
}

// buildLevels fills levels from the rooms and their capacity rules.
func (t *Timetable) buildLevels() {
	t.levels = make(map[int64]*roomLevels, len(t.rooms))
	for id, room := range t.rooms {
		l := &roomLevels{}
		rules := t.rules[id]
		for wd := range l.weekly {
			if len(rules) == 0 {
				l.weekly[wd] = []Level{{From: 0, To: int64(EndOfDay), Units: room.Units()}}
				continue
			}
			l.weekly[wd] = slices.Clip(levelsOf(rules, func(r *CapacityRule) bool {
				return !r.Override() && slices.Contains(r.Weekdays, time.Weekday(wd))
			}))
		}
		l.overrides = slices.ContainsFunc(rules, (*CapacityRule).Override)
		t.levels[id] = l
	}
}

// daySize is the most sessions date d can hold, its exceptions x.
func (t *Timetable) daySize(d Date, x *dated) int {
	n := len(t.dayOrder[d.Weekday()])
	if x != nil {
		n += len(x.movedIn) + len(x.oneOffs)
	}
	return n
}

// change returns the day change of the session ref names, which is
// originally on the date of x, or nil. Dates have few changes, so a look
// through them is quicker than hashing the ref.
func (x *dated) change(t *Timetable, ref SessionRef) *DayChange {
	if x == nil {
		return nil
	}
	if len(x.changes) > 8 {
		return t.changes[ref]
	}
	for i := len(x.changes) - 1; i >= 0; i-- { // the last one, as in the map
		if c := x.changes[i]; c.Ref == ref {
			return c
		}
	}
	return nil
}

// sessionsUntil is how many series sessions the dates from d up to, not
// including, to hold at most.
func (t *Timetable) sessionsUntil(d, to Date) int {
	n := int(to-d) / 7 * t.weekTotal
	for e := to - Date(int(to-d)%7); e < to; e++ {
		n += len(t.dayOrder[e.Weekday()])
	}
	return n
}

// dayClock turns the minutes of one date into Unix seconds as Date.At does,
// with one look-up of the time zone for the date instead of four for each
// time: when one offset holds from two days before the date to three days
// after it, over every instant Date.At consults, a time of the date is its
// wall clock less that offset. Otherwise it asks Date.At.
type dayClock struct {
	d     Date
	loc   *time.Location
	wall  int64 // the date's midnight in Unix seconds, read as if in UTC
	off   int64 // seconds east of UTC, when fixed
	fixed bool
}

func (c *dayClock) set(d Date, loc *time.Location) {
	y, m, day := d.Civil()
	c.d, c.loc = d, loc
	c.wall = time.Date(y, time.Month(m), day, 0, 0, 0, 0, time.UTC).Unix()
	before := time.Unix(c.wall-2*86400, 0).In(loc)
	_, off := before.Zone()
	_, end := before.ZoneBounds()
	c.off = int64(off)
	c.fixed = end.IsZero() || end.Unix() > c.wall+3*86400
}

// at returns minute m of the date (0 to EndOfDay) in Unix seconds.
func (c *dayClock) at(m int64) int64 {
	if c.fixed && 0 <= m && m <= int64(EndOfDay) {
		return c.wall + 60*m - c.off
	}
	return c.d.At(LocalTime(m), c.loc).Unix()
}
