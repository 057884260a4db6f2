package engine

import (
	"cmp"
	"slices"
	"strconv"
	"strings"
)

// Day is the computed sessions of one date.
type Day struct {
	Date     Date
	Sessions []Session
}

// Day resolves one date, in the order of the design: (1) the series sessions
// of the date, (2) the date's day changes, (3) sessions moved in from other
// dates, (4) one-offs, (5) closures, which cancel what falls in them.
// Sessions come sorted by start, then room.
func (t *Timetable) Day(d Date) []Session {
	out := make([]Session, 0, len(t.byWeekday[d.Weekday()])+len(t.movedIn[d])+len(t.oneOffs[d]))
	w := WeekOf(d, t.ws)
	for _, gi := range t.byWeekday[d.Weekday()] {
		g := &t.groups[gi]
		weeks := g.activeIn(w)
		if weeks == nil {
			continue
		}
		s := t.regular(g, d, weeks)
		if c := t.changes[s.Ref]; c != nil {
			if c.Date != 0 && c.Date != d {
				continue // moved away; it appears on its new date
			}
			t.apply(&s, c)
		}
		out = append(out, s)
	}
	for _, c := range t.movedIn[d] {
		if s, ok := t.original(c.Ref); ok {
			t.apply(&s, c)
			out = append(out, s)
		}
	}
	for _, o := range t.oneOffs[d] {
		out = append(out, t.oneOff(o))
	}
	t.close(d, out)
	sortSessions(out)
	return out
}

// Days resolves every date from from up to, not including, to.
func (t *Timetable) Days(from, to Date) []Day {
	if to < from {
		return nil
	}
	out := make([]Day, 0, to-from)
	for d := from; d < to; d++ {
		out = append(out, Day{Date: d, Sessions: t.Day(d)})
	}
	return out
}

// Session returns the session a ref names, wherever a day change has put it,
// and false when the series do not hold that session on that date.
func (t *Timetable) Session(ref SessionRef) (Session, bool) {
	s, ok := t.original(ref)
	if !ok {
		return Session{}, false
	}
	if c := t.changes[ref]; c != nil {
		t.apply(&s, c)
	}
	one := []Session{s}
	t.close(s.Date, one)
	return one[0], true
}

// original returns the series session a ref names as its rule makes it,
// before any day change.
func (t *Timetable) original(ref SessionRef) (Session, bool) {
	gi, ok := t.groupOf[groupKey{ref.ClassTimeID, ref.ClassID}]
	if !ok {
		return Session{}, false
	}
	g := &t.groups[gi]
	if g.ct.Inactive || g.ct.Weekday != ref.Date.Weekday() {
		return Session{}, false
	}
	weeks := g.activeIn(WeekOf(ref.Date, t.ws))
	if weeks == nil {
		return Session{}, false
	}
	return t.regular(g, ref.Date, weeks), true
}

// activeIn returns the series weeks of the group's entries that are active
// in week w, or nil when none is: a class shared by several series is one
// session that lists them all.
func (g *group) activeIn(w int) []SeriesWeek {
	var weeks []SeriesWeek
	for _, e := range g.entries {
		if e.rot.Position(w) == e.week {
			weeks = append(weeks, SeriesWeek{SeriesID: e.series.ID, Week: e.week, Cycle: e.series.Cycle})
		}
	}
	return weeks
}

func (t *Timetable) regular(g *group, d Date, weeks []SeriesWeek) Session {
	ct := g.ct
	return Session{
		Date:        d,
		Start:       ct.Start,
		End:         ct.End,
		RoomID:      ct.RoomID,
		ClassID:     g.class.ID,
		StaffIDs:    g.class.StaffIDs,
		ClassTimeID: ct.ID,
		Label:       ct.Label,
		Capacity:    ct.Capacity,
		Units:       t.units(ct.Units, ct.RoomID),
		Buffer:      ct.Buffer,
		Series:      weeks,
		Ref:         SessionRef{Date: d, ClassTimeID: ct.ID, ClassID: g.class.ID},
	}
}

// apply lays a day change over a series session. Fields it does not set stay
// as the rule makes them; a session whose time, place or people change
// records what it normally is in Origin.
func (t *Timetable) apply(s *Session, c *DayChange) {
	if affectsTimetable(c) {
		s.Changed = true
		s.Origin = &Origin{Date: s.Date, Start: s.Start, End: s.End, RoomID: s.RoomID, ClassID: s.ClassID, StaffIDs: s.StaffIDs}
	}
	if c.Date != 0 {
		s.Date = c.Date
	}
	if c.RoomID != 0 {
		s.RoomID = c.RoomID
		s.Units = t.units(t.classTimes[s.ClassTimeID].Units, c.RoomID)
	}
	if c.Start != nil {
		s.Start = *c.Start
	}
	if c.End != nil {
		s.End = *c.End
	}
	if c.ClassID != 0 {
		s.ClassID = c.ClassID
		s.StaffIDs = t.classes[c.ClassID].StaffIDs
	}
	if c.StaffIDs != nil {
		s.StaffIDs = c.StaffIDs
	}
	s.Note = c.Note
	if c.Cancelled {
		s.Cancelled = true
		s.Reason = c.Note
	}
}

// affectsTimetable reports whether a change moves, re-times or re-staffs its
// session; a change that only cancels it or adds a note does not.
func affectsTimetable(c *DayChange) bool {
	return (c.Date != 0 && c.Date != c.Ref.Date) || c.RoomID != 0 || c.Start != nil || c.End != nil || c.ClassID != 0 || c.StaffIDs != nil
}

func (t *Timetable) oneOff(o *OneOff) Session {
	s := Session{
		Date:     o.Date,
		Start:    o.Start,
		End:      o.End,
		RoomID:   o.RoomID,
		ClassID:  o.ClassID,
		StaffIDs: t.classes[o.ClassID].StaffIDs,
		Label:    o.Label,
		Capacity: o.Capacity,
		Units:    t.units(o.Units, o.RoomID),
		Buffer:   o.Buffer,
		OneOffID: o.ID,
		Note:     o.Note,
	}
	if o.Cancelled {
		s.Cancelled = true
		s.Reason = o.Note
	}
	return s
}

// close cancels the sessions on d that a closure covers, giving its reason.
func (t *Timetable) close(d Date, sessions []Session) {
	for _, c := range t.closures {
		if c.From > d {
			break
		}
		if d > c.To {
			continue
		}
		for i := range sessions {
			s := &sessions[i]
			if !s.Cancelled && c.ClosesRoom(s.RoomID) {
				s.Cancelled = true
				s.Reason = c.Reason
			}
		}
	}
}

// sortSessions orders sessions by what they are, ties broken by their
// identity: a total order, so a day's sessions and any subset of them
// (see resourceDay) come in the same relative order.
func sortSessions(ss []Session) {
	slices.SortStableFunc(ss, func(a, b Session) int {
		return cmp.Or(cmp.Compare(a.Start, b.Start), cmp.Compare(a.End, b.End), cmp.Compare(a.RoomID, b.RoomID),
			cmp.Compare(a.ClassID, b.ClassID), cmp.Compare(a.OneOffID, b.OneOffID),
			cmp.Compare(a.ClassTimeID, b.ClassTimeID), cmp.Compare(a.Ref.Date, b.Ref.Date), cmp.Compare(a.Ref.ClassID, b.Ref.ClassID))
	})
}

// Key is a session's identity as text, stable across edits: "s/2026-10-06/12/7"
// for the series session of class 7 in class time 12 originally on that date,
// "o/5" for one-off 5.
func (s *Session) Key() string {
	if s.OneOffID != 0 {
		return "o/" + strconv.FormatInt(s.OneOffID, 10)
	}
	return "s/" + s.Ref.Date.String() + "/" + strconv.FormatInt(s.Ref.ClassTimeID, 10) + "/" + strconv.FormatInt(s.Ref.ClassID, 10)
}

// ParseSessionKey reads a session id as Key writes it: "s/DATE/CLASSTIME/CLASS"
// names a series session by its ref (its original date, class time and
// class), "o/ONEOFF" a one-off, returned as its id with a zero ref. It
// accepts each id in its one written form only — ids in plain decimal with
// no sign or leading zero, the date as YYYY-MM-DD — so whatever it accepts
// prints back exactly through Key. Anything else is an Invalid error on the
// field "sessionId"; whether the session exists is for the caller to check.
func ParseSessionKey(key string) (ref SessionRef, oneOffID int64, err error) {
	bad := func(why string) (SessionRef, int64, error) {
		return SessionRef{}, 0, Errorf(Invalid, "sessionId", "%q is not a session id (%s): use the id a session answers with, such as s/2026-12-05/103/19 for a timetabled session or o/42 for a one-off", key, why)
	}
	kind, rest, ok := strings.Cut(key, "/")
	switch {
	case !ok:
		return bad("it has no kind")
	case kind == "o":
		id, ok := keyID(rest)
		if !ok {
			return bad("the one-off must be a positive whole number")
		}
		return SessionRef{}, id, nil
	case kind != "s":
		return bad("it must start with s/ or o/")
	}
	parts := strings.Split(rest, "/")
	if len(parts) != 3 {
		return bad("a timetabled session has a date, a class time and a class")
	}
	d, err := ParseDate(parts[0])
	if err != nil {
		return bad(err.Error())
	}
	ct, ok1 := keyID(parts[1])
	cl, ok2 := keyID(parts[2])
	if !ok1 || !ok2 {
		return bad("the class time and the class must be positive whole numbers")
	}
	return SessionRef{Date: d, ClassTimeID: ct, ClassID: cl}, 0, nil
}

// keyID reads a row id of a session key: digits, no sign, no leading zero,
// at most an int64.
func keyID(s string) (int64, bool) {
	if s == "" || s[0] < '1' || s[0] > '9' {
		return 0, false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
	}
	id, err := strconv.ParseInt(s, 10, 64)
	return id, err == nil
}
