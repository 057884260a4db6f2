package engine

import (
	"cmp"
	"math"
	"math/bits"
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
// Sessions come sorted by start, then room. Sessions share their StaffIDs
// and Series with the timetable: the caller must not change their elements.
func (t *Timetable) Day(d Date) []Session {
	x := t.dated[d]
	return t.appendDay(make([]Session, 0, t.daySize(d, x)), d, x)
}

// AppendDay appends the sessions of date d, as Day returns them, to dst
// and returns the extended slice: a caller that looks at many dates one at
// a time, and keeps little of them, resolves them all into one buffer.
func (t *Timetable) AppendDay(dst []Session, d Date) []Session {
	return t.appendDay(dst, d, t.dated[d])
}

// appendDay appends the sessions of date d, its exceptions x, to out.
func (t *Timetable) appendDay(out []Session, d Date, x *dated) []Session {
	first := len(out)
	w := WeekOf(d, t.ws)
	// The series sessions come in order. A day change that re-times,
	// re-rooms or re-classes one can take it out of order: up to
	// len(moved) of them are noted and put in place at the end.
	var moved [8]int32
	nMoved := 0
	for _, gi := range t.dayOrder[d.Weekday()] {
		g := &t.groups[gi]
		weeks := g.activeIn(w)
		if weeks == nil {
			continue
		}
		out = append(out, Session{})
		g.fill(&out[len(out)-1], d, weeks)
		if c := x.change(t, out[len(out)-1].Ref()); c != nil {
			if c.Date != 0 && c.Date != d {
				out = out[:len(out)-1] // moved away; it appears on its new date
				continue
			}
			t.apply(&out[len(out)-1], c)
			if reorders(c) {
				if nMoved < len(moved) {
					moved[nMoved] = int32(len(out) - 1 - first)
				}
				nMoved++
			}
		}
	}
	inOrder := len(out) - first
	if x != nil {
		for _, c := range x.movedIn {
			if s, ok := t.original(c.Ref); ok {
				t.apply(&s, c)
				out = append(out, s)
			}
		}
		for _, o := range x.oneOffs {
			out = append(out, t.oneOff(o))
		}
	}
	day := out[first:]
	t.close(d, day)
	switch {
	case nMoved > len(moved):
		sortSessions(day)
	case nMoved > 0 || inOrder < len(day):
		placeLast(day, inOrder, moved[:nMoved])
	}
	return out
}

// reorders reports whether a day change may move its session in the order
// of a day's sessions (compareSessions): a change of its start, end, room
// or class.
func reorders(c *DayChange) bool {
	return c.Start != nil || c.End != nil || c.RoomID != 0 || c.ClassID != 0
}

// placeLast sorts day, whose first n sessions are in order but for those
// at the indices moved (ascending) and whose sessions from n on are in any
// order: the few out of place are taken out and each put where it belongs,
// a move of the sessions after it rather than a sort of the whole day.
func placeLast(day []Session, n int, moved []int32) {
	for j := len(moved) - 1; j >= 0; j-- { // from the last, so the earlier indices hold
		i := int(moved[j])
		s := day[i]
		copy(day[i:n-1], day[i+1:n])
		day[n-1] = s
		n--
	}
	for j := n; j < len(day); j++ {
		s := day[j]
		i, hi := 0, j // the first session after s
		for i < hi {
			if m := int(uint(i+hi) >> 1); compareSessionsAt(&day[m], &s) <= 0 {
				i = m + 1
			} else {
				hi = m
			}
		}
		if i < j {
			copy(day[i+1:j+1], day[i:j])
			day[i] = s
		}
	}
}

// Days resolves every date from from up to, not including, to. The dates
// share backing arrays, allocated a run of dates at a time; each date's
// slice is capped at its length, so appending to one never reaches another.
func (t *Timetable) Days(from, to Date) []Day {
	if to < from {
		return nil
	}
	const chunk = 1024 // sessions: a few hundred kilobytes
	out := make([]Day, 0, to-from)
	var buf []Session
	for d := from; d < to; d++ {
		x := t.dated[d]
		if n := t.daySize(d, x); buf == nil || cap(buf)-len(buf) < n {
			buf = make([]Session, 0, max(n, min(t.sessionsUntil(d, to), chunk)))
		}
		first := len(buf)
		buf = t.appendDay(buf, d, x)
		out = append(out, Day{Date: d, Sessions: buf[first:len(buf):len(buf)]})
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
// session that lists them all. The answer is a capped slice of g.weeks when
// the active entries are next to each other, as they are when one is;
// the caller must not change it.
func (g *group) activeIn(w int) []SeriesWeek {
	if g.every.From <= w && w < g.every.To {
		return g.weeks
	}
	if len(g.entries) > 64 {
		return g.activeInMany(w)
	}
	var active uint64 // bit i: entry i is active
	for i := range g.entries {
		if e := &g.entries[i]; e.rot.Position(w) == e.week {
			active |= 1 << i
		}
	}
	if active == 0 {
		return nil
	}
	lo := bits.TrailingZeros64(active)
	if run := active >> lo; run&(run+1) == 0 { // one run of entries
		hi := lo + bits.Len64(run)
		return g.weeks[lo:hi:hi]
	}
	weeks := make([]SeriesWeek, 0, bits.OnesCount64(active))
	for ; active != 0; active &= active - 1 {
		weeks = append(weeks, g.weeks[bits.TrailingZeros64(active)])
	}
	return weeks
}

// setEvery sets g.every. An entry of week 1 of a one-week rotation is
// active in every week from its anchor up to its end: Position is then
// p%1 + 1 = 1, pauses or not. Other rotations leave every empty.
func (g *group) setEvery() {
	g.every = WeekRun{}
	if len(g.entries) == 0 {
		return
	}
	from, to := math.MinInt, math.MaxInt
	for _, e := range g.entries {
		if e.rot.cycle != 1 || e.week != 1 {
			return
		}
		from, to = max(from, e.rot.anchor), min(to, e.rot.end)
	}
	if from < to {
		g.every = WeekRun{From: from, To: to}
	}
}

// activeInMany is activeIn for a group of more entries than a word has
// bits.
func (g *group) activeInMany(w int) []SeriesWeek {
	lo, hi := -1, -1 // the active entries so far, while they are one run
	var weeks []SeriesWeek
	for i, e := range g.entries {
		if e.rot.Position(w) != e.week {
			continue
		}
		switch {
		case weeks != nil:
			weeks = append(weeks, g.weeks[i])
		case lo < 0:
			lo, hi = i, i+1
		case hi == i:
			hi++
		default: // a second run: copy
			weeks = append(make([]SeriesWeek, 0, len(g.entries)), g.weeks[lo:hi]...)
			weeks = append(weeks, g.weeks[i])
		}
	}
	if weeks != nil || lo < 0 {
		return weeks
	}
	return g.weeks[lo:hi:hi]
}

// fill makes s, a zero session, the session of group g on date d in the
// series weeks, in place: appendDay fills the day's slice directly, where
// building a session and copying it in would write it twice.
func (g *group) fill(s *Session, d Date, weeks []SeriesWeek) {
	ct := g.ct
	s.Date, s.Start, s.End = d, ct.Start, ct.End
	s.RoomID, s.ClassID, s.StaffIDs = ct.RoomID, g.class.ID, g.class.StaffIDs
	s.ClassTimeID, s.Label = ct.ID, ct.Label
	s.Capacity, s.Units, s.Buffer = int32(ct.Capacity), int32(g.units), int32(ct.Buffer)
	s.Series = weeks
}

// regular is the session of group g on date d in the series weeks.
func (t *Timetable) regular(g *group, d Date, weeks []SeriesWeek) Session {
	var s Session
	g.fill(&s, d, weeks)
	return s
}

// apply lays a day change over a series session. Fields it does not set stay
// as the rule makes them; a session whose time, place or people change
// records what it normally is in Origin.
func (t *Timetable) apply(s *Session, c *DayChange) {
	changed := affectsTimetable(c)
	if changed || c.Note != "" {
		s.remark(func(r *remarks) {
			if changed {
				r.origin = s.AsOrigin()
			}
			r.note = c.Note
			if c.Cancelled {
				r.reason = c.Note
			}
		})
	}
	if changed {
		s.Changed = true
	}
	if c.Date != 0 {
		s.Date = c.Date
	}
	if c.RoomID != 0 {
		s.RoomID = c.RoomID
		s.Units = int32(t.units(t.classTimes[s.ClassTimeID].Units, c.RoomID))
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
	s.Cancelled = s.Cancelled || c.Cancelled
}

// affectsTimetable reports whether a change moves, re-times or re-staffs its
// session; a change that only cancels it or adds a note does not.
func affectsTimetable(c *DayChange) bool {
	return (c.Date != 0 && c.Date != c.Ref.Date) || c.RoomID != 0 || c.Start != nil || c.End != nil || c.ClassID != 0 || c.StaffIDs != nil
}

func (t *Timetable) oneOff(o *OneOff) Session {
	s := Session{
		Date:      o.Date,
		Start:     o.Start,
		End:       o.End,
		RoomID:    o.RoomID,
		ClassID:   o.ClassID,
		StaffIDs:  t.classes[o.ClassID].StaffIDs,
		Label:     o.Label,
		Capacity:  int32(o.Capacity),
		Units:     int32(t.units(o.Units, o.RoomID)),
		Buffer:    int32(o.Buffer),
		OneOffID:  o.ID,
		Cancelled: o.Cancelled,
	}
	if o.Note != "" {
		s.remarks = &remarks{note: o.Note}
		if o.Cancelled {
			s.remarks.reason = o.Note
		}
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
				if c.Reason != "" {
					s.remark(func(r *remarks) { r.reason = c.Reason })
				}
			}
		}
	}
}

func sortSessions(ss []Session) { slices.SortStableFunc(ss, compareSessions) }

// compareSessions is the order of a day's sessions: by start, end, room,
// class, one-off and class time, then original date and class — a total
// order, so a day's sessions and any subset of them (see resourceDay) come
// in the same relative order.
func compareSessions(a, b Session) int { return compareSessionsAt(&a, &b) }

func compareSessionsAt(a, b *Session) int {
	ra, rb := a.Ref(), b.Ref()
	return cmp.Or(cmp.Compare(a.Start, b.Start), cmp.Compare(a.End, b.End), cmp.Compare(a.RoomID, b.RoomID),
		cmp.Compare(a.ClassID, b.ClassID), cmp.Compare(a.OneOffID, b.OneOffID),
		cmp.Compare(a.ClassTimeID, b.ClassTimeID), cmp.Compare(ra.Date, rb.Date), cmp.Compare(ra.ClassID, rb.ClassID))
}

// Key is a session's identity as text, stable across edits: "s/2026-10-06/12/7"
// for the series session of class 7 in class time 12 originally on that date,
// "o/5" for one-off 5.
func (s *Session) Key() string { return SessionKey(s.Ref(), s.OneOffID) }

// SessionKey is the key of one-off oneOffID, or when that is zero of the
// series session ref names (see Session.Key).
func SessionKey(ref SessionRef, oneOffID int64) string {
	if oneOffID != 0 {
		return "o/" + strconv.FormatInt(oneOffID, 10)
	}
	return ref.Key()
}

// Key is the key of the series session r names (see Session.Key).
func (r SessionRef) Key() string {
	return "s/" + r.Date.String() + "/" + strconv.FormatInt(r.ClassTimeID, 10) + "/" + strconv.FormatInt(r.ClassID, 10)
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
