package engine

import (
	"cmp"
	"fmt"
	"slices"
)

// Uncovered is a rule leaving sessions without one of their staff: the
// sessions of one series entry (or one dated session) that a time off or
// working hours take a staff member from, as one arithmetic progression of
// dates — First, then every Every weeks up to Until (Every 0: First alone)
// — as a clash is reported.
type Uncovered struct {
	Absence
	First, Until Date
	Every        int
	// The sessions: a class time and class (series sessions, whose Ref
	// on each date is the date, ClassTimeID and ClassID), or one dated
	// session (a changed one or a one-off), Session.
	ClassTimeID, ClassID int64
	SeriesID             int64
	Week                 int
	Dated                bool
	Session              Session
	key                  string
}

// Key is what the problem is known by, whatever its dates: the staff
// member, the rule, and the sessions (by content, as clashes are).
func (u *Uncovered) Key() string { return u.key }

// Dates returns the dates of u from from to to inclusive.
func (u *Uncovered) Dates(from, to Date) []Date {
	var out []Date
	for d := u.First; d <= u.Until && d <= to; d += Date(7 * max(u.Every, 1)) {
		if d >= from {
			out = append(out, d)
		}
		if u.Every == 0 {
			break
		}
	}
	return out
}

// Uncovered finds every session from the week of today on that a rule
// leaves without one of its staff, exactly and for every date a Date can
// hold, without scanning dates: the weeks an entry yields a session are
// residue classes (the segments of the clash proof, less closures, pauses
// and changed dates), and a time off or a stretch of working hours is a
// range of weeks; their meeting is one progression or nothing. Changed
// sessions and one-offs have known dates and are resolved one by one. The
// cost grows with the rules and the sessions of staff who have any, never
// with how far ahead they reach.
func (t *Timetable) Uncovered(today Date) []Uncovered {
	rules := t.coverRules()
	if len(rules) == 0 {
		return nil
	}
	var out []Uncovered
	p := newProver(t, nil, today, nil)
	w0 := p.w0
	for gi := range t.groups {
		g := &t.groups[gi]
		if g.ct.Inactive {
			continue
		}
		var segs [][]segment
		for _, id := range g.class.StaffIDs {
			r := rules[id]
			if r == nil {
				continue
			}
			if segs == nil {
				segs = p.groupSegments(gi)
			}
			wd, ct := g.ct.Weekday, g.ct
			emit := func(a Absence, weeks segment) {
				for ei, e := range g.entries {
					for _, s := range segs[ei] {
						pr, ok := startProgression(s)
						if !ok {
							continue
						}
						if pr, ok = pr.meet(weeks); !ok {
							continue
						}
						u := Uncovered{Absence: a, First: DayIn(pr.first, wd, t.ws), Until: DayIn(pr.last, wd, t.ws),
							Every: pr.step, ClassTimeID: ct.ID, ClassID: g.class.ID, SeriesID: e.series.ID, Week: e.week}
						if pr.first == pr.last {
							u.Every = 0
						}
						u.Session = t.groupSession(g, u.First)
						u.Session.Series = []SeriesWeek{{SeriesID: e.series.ID, Week: e.week, Cycle: e.series.Cycle}}
						u.key = fmt.Sprintf("%s|%d/%s/%d|%d/%d", ruleKey(&a), ct.RoomID, ct.Weekday, ct.Start, g.class.ID, e.series.ID) +
							fmt.Sprintf("|%d-%d|%d", ct.Start, ct.End, e.week)
						out = append(out, u)
					}
				}
			}
			for _, o := range r.timeOff {
				from, to := weeksOn(max(o.From, DayIn(w0, wd, t.ws)), o.To, wd, t.ws)
				if from >= to {
					continue
				}
				// The first and last days may be partial.
				if d := DayIn(from, wd, t.ws); !overlapsAway(o, d, ct.Start, ct.End) {
					from++
				}
				if d := DayIn(to-1, wd, t.ws); to > from && !overlapsAway(o, d, ct.Start, ct.End) {
					to--
				}
				if from < to {
					emit(Absence{StaffID: id, Reason: OnTimeOff, TimeOffID: o.ID}, segment{from: from, to: to, mod: 1})
				}
			}
			for i, h := range r.hours {
				if h.Covers(wd, ct.Start, ct.End) {
					continue
				}
				from, to := weeksOn(h.From, r.hoursUntil(i), wd, t.ws)
				if from = max(from, w0); from < to {
					emit(Absence{StaffID: id, Reason: OutsideHours, HoursFrom: h.From}, segment{from: from, to: to, mod: 1})
				}
			}
		}
	}
	out = t.uncoveredDated(out, rules, WeekStartDay(w0, t.ws))
	slices.SortFunc(out, compareUncovered)
	return out
}

// overlapsAway reports whether a session on d from start to end meets the
// time off.
func overlapsAway(o *TimeOff, d Date, start, end LocalTime) bool {
	a, b, ok := o.Away(d)
	return ok && start < b && end > a
}

// groupSession is the session group g makes on d as its rules say.
func (t *Timetable) groupSession(g *group, d Date) Session {
	return Session{Date: d, Start: g.ct.Start, End: g.ct.End, RoomID: g.ct.RoomID, ClassID: g.class.ID, ClassTimeID: g.ct.ID,
		StaffIDs: g.class.StaffIDs, Label: g.ct.Label}
}

// uncoveredDated appends what the dated sessions — changed ones and
// one-offs, which the periodic part leaves out — on dates from from on
// leave uncovered. Only sessions that can hold a staff member with rules
// are resolved, each on its own.
func (t *Timetable) uncoveredDated(out []Uncovered, rules map[int64]*staffRules, from Date) []Uncovered {
	ruled := func(ids []int64) bool {
		return slices.ContainsFunc(ids, func(id int64) bool { return rules[id] != nil })
	}
	var found []Session
	for i := range t.state.Changes {
		c := &t.state.Changes[i]
		if c.Cancelled || !affectsTimetable(c) || landsOn(c) < from {
			continue
		}
		staff := c.StaffIDs
		if staff == nil {
			class := c.Ref.ClassID
			if c.ClassID != 0 {
				class = c.ClassID
			}
			if cl := t.classes[class]; cl != nil {
				staff = cl.StaffIDs
			}
		}
		if !ruled(staff) {
			continue
		}
		if s, ok := t.Session(c.Ref); ok {
			found = append(found, s)
		}
	}
	for i := range t.state.OneOffs {
		o := &t.state.OneOffs[i]
		if o.Cancelled || o.Date < from || t.classes[o.ClassID] == nil || !ruled(t.classes[o.ClassID].StaffIDs) {
			continue
		}
		s := t.oneOff(o)
		one := []Session{s}
		t.close(s.Date, one)
		found = append(found, one[0])
	}
	for _, s := range found {
		if s.Cancelled {
			continue
		}
		for _, a := range t.NeedsCover(&s) {
			u := Uncovered{Absence: a, First: s.Date, Until: s.Date, Dated: true, Session: s, ClassTimeID: s.ClassTimeID, ClassID: s.ClassID}
			u.key = fmt.Sprintf("%s|dated|%v|%d|%s|%d-%d|%d", ruleKey(&a), s.Ref(), s.OneOffID, s.Date, s.Start, s.End, s.RoomID)
			out = append(out, u)
		}
	}
	return out
}

// ruleKey names an absence's staff member and rule.
func ruleKey(a *Absence) string {
	if a.Reason == OnTimeOff {
		return fmt.Sprintf("%d|off|%d", a.StaffID, a.TimeOffID)
	}
	return fmt.Sprintf("%d|hours|%s", a.StaffID, a.HoursFrom)
}

func compareUncovered(a, b Uncovered) int {
	return cmp.Or(cmp.Compare(a.First, b.First), cmp.Compare(a.Session.Start, b.Session.Start), cmp.Compare(a.StaffID, b.StaffID),
		cmp.Compare(a.key, b.key), cmp.Compare(a.Every, b.Every), cmp.Compare(a.Until, b.Until))
}

// NewUncovered returns the problems of after that before does not have: a
// write is refused only for the sessions it leaves without their staff,
// not for those that were so already. A run is known by its rule and its
// sessions' content (Key); a dated session (one changed or a one-off) also
// by the session it is: the same person missing from the same session by
// the same rule was missing before, whether that session was one of a
// run's dates or dated already.
func NewUncovered(before, after []Uncovered) []Uncovered {
	had := make(map[string]bool, len(before))
	dated := map[string]bool{}
	runs := map[string][]*Uncovered{}
	for i := range before {
		u := &before[i]
		had[u.key] = true
		if u.Dated {
			dated[ruleKey(&u.Absence)+"|"+u.Session.Key()] = true
		} else {
			k := fmt.Sprintf("%s|%d|%d", ruleKey(&u.Absence), u.ClassTimeID, u.ClassID)
			runs[k] = append(runs[k], u)
		}
	}
	var out []Uncovered
next:
	for _, u := range after {
		if had[u.key] {
			continue
		}
		if u.Dated {
			if dated[ruleKey(&u.Absence)+"|"+u.Session.Key()] {
				continue
			}
			if !u.Session.IsOneOff() {
				ref := u.Session.Ref()
				for _, r := range runs[fmt.Sprintf("%s|%d|%d", ruleKey(&u.Absence), ref.ClassTimeID, ref.ClassID)] {
					if r.holds(ref.Date) {
						continue next
					}
				}
			}
		}
		out = append(out, u)
	}
	return out
}

// holds reports whether d is one of u's dates.
func (u *Uncovered) holds(d Date) bool {
	if d < u.First || d > u.Until {
		return false
	}
	return u.Every == 0 && d == u.First || u.Every > 0 && int(d-u.First)%(7*u.Every) == 0
}

// Message says what u is in the business's words:
//
//	Coach Ana is away (time off 2 Feb – 28 Feb) for Boxing (Ring, 6 PM – 7 PM, Boxing W1), first 2 Feb
func (t *Timetable) Message(u *Uncovered, today Date) string {
	words := Words(t.state.Business.Kind)
	name := "?"
	if p := t.staff[u.StaffID]; p != nil {
		name = p.Name
	}
	why := ""
	switch u.Reason {
	case OnTimeOff:
		why = "is away"
		for _, o := range t.state.TimeOffs {
			if o.ID == u.TimeOffID {
				why += " (time off " + o.From.Short(today) + " – " + o.To.Short(today) + ")"
			}
		}
	case OutsideHours:
		why = "does not work then (hours from " + u.HoursFrom.Short(today) + ")"
	}
	it := t.item(&u.Session)
	msg := words.Staff.Title() + " " + name + " " + why + " for " + it.describe(today)
	if u.Every == 0 {
		return msg + ", on " + u.First.Short(today)
	}
	return msg + ", first " + u.First.Short(today)
}
