package engine

import (
	"cmp"
	"slices"
)

// Qualification says a staff member may give an activity. A staff member
// with none may give any (an imported business keeps working).
type Qualification struct {
	ID         int64
	StaffID    int64
	ActivityID int64
}

// Qualified reports whether staff member id may give activity.
func (t *Timetable) Qualified(id, activity int64) bool {
	q := t.qualifications()[id]
	return q == nil || q[activity]
}

func (t *Timetable) qualifications() map[int64]map[int64]bool {
	t.qualIx.once.Do(func() {
		m := map[int64]map[int64]bool{}
		for _, q := range t.state.Qualifications {
			if m[q.StaffID] == nil {
				m[q.StaffID] = map[int64]bool{}
			}
			m[q.StaffID][q.ActivityID] = true
		}
		t.qualIx.m = m
	})
	return t.qualIx.m
}

// CoverReason is why a staff member is a good cover for a session.
type CoverReason int8

const (
	// GivesActivityThatDay: they give the session's activity that day.
	GivesActivityThatDay CoverReason = iota + 1
	// InRoomThatDay: they are in the session's room that day.
	InRoomThatDay
	// FewestHours: no option works fewer hours that week.
	FewestHours
)

func (r CoverReason) String() string {
	switch r {
	case GivesActivityThatDay:
		return "GIVES_ACTIVITY_THAT_DAY"
	case InRoomThatDay:
		return "IN_ROOM_THAT_DAY"
	case FewestHours:
		return "FEWEST_HOURS"
	}
	return "unknown"
}

// CoverOption is a staff member who could take a session instead of one of
// its staff: qualified, there, and in no other session then.
type CoverOption struct {
	StaffID int64
	Reasons []CoverReason
	// WeekMinutes are the minutes of sessions they give in the week of
	// the session (the business's week).
	WeekMinutes int
}

// ExclusionReason is why a staff member cannot take a session.
type ExclusionReason int8

const (
	NotQualified ExclusionReason = iota + 1
	ExcludedTimeOff
	ExcludedOutsideHours
	Busy
)

func (r ExclusionReason) String() string {
	switch r {
	case NotQualified:
		return "NOT_QUALIFIED"
	case ExcludedTimeOff:
		return "TIME_OFF"
	case ExcludedOutsideHours:
		return "OUTSIDE_HOURS"
	case Busy:
		return "BUSY"
	}
	return "unknown"
}

// CoverExclusion is a staff member who cannot take a session, and why:
// for Busy, the session they are in then; for time off, which.
type CoverExclusion struct {
	StaffID int64
	Reason  ExclusionReason
	Absence Absence
	Session Session
}

// CoverOptions answers who could take session s instead of one of its
// staff: every other staff member (not one of its people, by name) is an option
// or excluded, with the first reason that holds of NotQualified, time
// off, outside hours and Busy. Busy is the clash rule for people (two
// overlapping sessions; back to back is fine), so an option's cover adds
// no clash and leaves no one away, and no one who could take the session
// is left out. Options come best first: those giving the activity that
// day, then those in the room that day, then by fewest minutes that week,
// then by name.
func (t *Timetable) CoverOptions(s *Session) ([]CoverOption, []CoverExclusion) {
	return t.coverOptions(s, t.dayMemo())
}

// dayMemo resolves each date once.
func (t *Timetable) dayMemo() func(Date) []Session {
	days := map[Date][]Session{}
	return func(d Date) []Session {
		day, ok := days[d]
		if !ok {
			day = t.Day(d)
			days[d] = day
		}
		return day
	}
}

func (t *Timetable) coverOptions(s *Session, dayOf func(Date) []Session) ([]CoverOption, []CoverExclusion) {
	d := s.Date
	day := dayOf(d)
	week := WeekStartDay(WeekOf(d, t.ws), t.ws)
	minutes := map[string]int{}
	for wd := week; wd < week+7; wd++ {
		sessions := dayOf(wd)
		for i := range sessions {
			x := &sessions[i]
			if x.Cancelled {
				continue
			}
			for _, k := range t.personKeys(x.StaffIDs) {
				minutes[k] += int(x.End - x.Start)
			}
		}
	}
	in := t.personKeys(s.StaffIDs)
	activity := t.classes[s.ClassID].ActivityID
	var options []CoverOption
	var excluded []CoverExclusion
	for _, p := range t.state.Staff {
		k := NameKey(p.Name)
		if slices.Contains(in, k) {
			continue
		}
		if !t.Qualified(p.ID, activity) {
			excluded = append(excluded, CoverExclusion{StaffID: p.ID, Reason: NotQualified})
			continue
		}
		if away := t.Available(p.ID, d, s.Start, s.End); len(away) > 0 {
			r := ExcludedTimeOff
			if away[0].Reason == OutsideHours {
				r = ExcludedOutsideHours
			}
			excluded = append(excluded, CoverExclusion{StaffID: p.ID, Reason: r, Absence: away[0]})
			continue
		}
		var busy *Session
		var gives, room bool
		for i := range day {
			x := &day[i]
			if x.Cancelled || x.Key() == s.Key() || !slices.Contains(t.personKeys(x.StaffIDs), k) {
				continue
			}
			if x.Start < s.End && s.Start < x.End && busy == nil {
				busy = x
			}
			gives = gives || t.classes[x.ClassID].ActivityID == activity
			room = room || x.RoomID == s.RoomID
		}
		if busy != nil {
			excluded = append(excluded, CoverExclusion{StaffID: p.ID, Reason: Busy, Session: *busy})
			continue
		}
		o := CoverOption{StaffID: p.ID, WeekMinutes: minutes[k]}
		if gives {
			o.Reasons = append(o.Reasons, GivesActivityThatDay)
		}
		if room {
			o.Reasons = append(o.Reasons, InRoomThatDay)
		}
		options = append(options, o)
	}
	least := -1
	for _, o := range options {
		if least < 0 || o.WeekMinutes < least {
			least = o.WeekMinutes
		}
	}
	for i := range options {
		if options[i].WeekMinutes == least {
			options[i].Reasons = append(options[i].Reasons, FewestHours)
		}
	}
	has := func(o CoverOption, r CoverReason) int {
		if slices.Contains(o.Reasons, r) {
			return 0
		}
		return 1
	}
	slices.SortStableFunc(options, func(a, b CoverOption) int {
		return cmp.Or(cmp.Compare(has(a, GivesActivityThatDay), has(b, GivesActivityThatDay)),
			cmp.Compare(has(a, InRoomThatDay), has(b, InRoomThatDay)), cmp.Compare(a.WeekMinutes, b.WeekMinutes),
			cmp.Compare(NameKey(t.staff[a.StaffID].Name), NameKey(t.staff[b.StaffID].Name)), cmp.Compare(a.StaffID, b.StaffID))
	})
	return options, excluded
}

// personKeys are the distinct people of a staff list.
func (t *Timetable) personKeys(ids []int64) []string {
	out := make([]string, 0, len(ids))
	for _, id := range ids {
		if p := t.staff[id]; p != nil {
			if k := NameKey(p.Name); !slices.Contains(out, k) {
				out = append(out, k)
			}
		}
	}
	return out
}

// checkQualifications validates qualifications: a staff member and an
// activity of the business, each pair once.
func (v *validator) checkQualifications() {
	seen := map[[2]int64]bool{}
	for _, q := range v.s.Qualifications {
		if _, ok := v.staff[q.StaffID]; !ok {
			v.missing("qualifications", q.ID, "staffId", "A qualification names a %s that does not exist", v.words.Staff.One)
		}
		if _, ok := v.activities[q.ActivityID]; !ok {
			v.missing("qualifications", q.ID, "activityIds", "A qualification names %s that does not exist", v.words.Activity.A())
		}
		k := [2]int64{q.StaffID, q.ActivityID}
		if seen[k] {
			v.add("qualifications", q.ID, "activityIds", "A qualification is listed twice")
		}
		seen[k] = true
	}
}

// CoverAssignment gives session Session staff member StaffID instead of
// Replaces, as assignCover takes it.
type CoverAssignment struct {
	Session  Session
	StaffID  int64
	Replaces int64
}

// CoverPlan proposes a cover for every session from today until until
// (exclusive) that time off id leaves without its staff member: for each, in date and start order,
// the best option (CoverOptions) that the plan has not already put into an
// overlapping session that date, so the plan never double-books a
// substitute against itself. Sessions no one can take, and one-offs (whose
// staff are their class's), are returned apart.
func (t *Timetable) CoverPlan(id int64, today, until Date) (plan []CoverAssignment, open []Session) {
	type need struct {
		s     Session
		staff int64
	}
	var needs []need
	for _, u := range t.Uncovered(today) {
		if u.Reason != OnTimeOff || u.TimeOffID != id {
			continue
		}
		for _, d := range u.Dates(today, min(u.Until, until-1)) {
			s := u.Session
			if !u.Dated {
				var ok bool
				if s, ok = t.Session(SessionRef{Date: d, ClassTimeID: u.ClassTimeID, ClassID: u.ClassID}); !ok {
					continue
				}
			}
			needs = append(needs, need{s, u.StaffID})
		}
	}
	slices.SortStableFunc(needs, func(a, b need) int {
		return cmp.Or(cmp.Compare(a.s.Date, b.s.Date), cmp.Compare(a.s.Start, b.s.Start), cmp.Compare(a.s.Key(), b.s.Key()), cmp.Compare(a.staff, b.staff))
	})
	needs = slices.CompactFunc(needs, func(a, b need) bool { return a.s.Key() == b.s.Key() && a.staff == b.staff })
	dayOf := t.dayMemo()
	taken := map[Date]map[string][]span{} // what the plan gives each person
	for _, n := range needs {
		if n.s.IsOneOff() {
			// A one-off's staff are its class's: a cover is another
			// class, not a day change, and is the manager's to choose.
			open = append(open, n.s)
			continue
		}
		opts, _ := t.coverOptions(&n.s, dayOf)
		chosen := int64(0)
		for _, o := range opts {
			k := NameKey(t.staff[o.StaffID].Name)
			if !slices.ContainsFunc(taken[n.s.Date][k], func(sp span) bool { return sp.start < n.s.End && n.s.Start < sp.end }) {
				chosen = o.StaffID
				if taken[n.s.Date] == nil {
					taken[n.s.Date] = map[string][]span{}
				}
				taken[n.s.Date][k] = append(taken[n.s.Date][k], span{start: n.s.Start, end: n.s.End})
				break
			}
		}
		if chosen == 0 {
			open = append(open, n.s)
			continue
		}
		plan = append(plan, CoverAssignment{Session: n.s, StaffID: chosen, Replaces: n.staff})
	}
	return plan, open
}
