package engine

import (
	"cmp"
	"slices"
	"sync"
	"time"
)

// TimeOff is a staff member away from From to To inclusive: from FromTime
// on the first day (00:00, the zero value: the whole day) until ToTime on
// the last (zero: to the end of the day). Like a closure it is a rule,
// never rows per session: every session it reaches is found from it.
type TimeOff struct {
	ID       int64
	StaffID  int64
	From, To Date
	FromTime LocalTime
	ToTime   LocalTime // zero: the end of the day
	Reason   string
}

// Away returns the wall-clock span [start, end) of date d the staff member
// is away for, and false when d is outside the time off.
func (o *TimeOff) Away(d Date) (start, end LocalTime, ok bool) {
	if d < o.From || d > o.To {
		return 0, 0, false
	}
	start, end = 0, EndOfDay
	if d == o.From {
		start = o.FromTime
	}
	if d == o.To && o.ToTime != 0 {
		end = o.ToTime
	}
	return start, end, start < end
}

// WorkingHours are the weekly hours a staff member works from From on,
// until the From of their next WorkingHours: contracts change, and earlier
// dates keep the earlier hours. A staff member with none has no limit, and
// so has one whose hours in force list no span at all.
type WorkingHours struct {
	ID      int64
	StaffID int64
	From    Date
	Spans   []HoursSpan
}

// MaxHoursSpans is the most spans one set of working hours may hold: ten
// a day is more than any contract has.
const MaxHoursSpans = 70

// HoursSpan is a wall-clock span of one weekday.
type HoursSpan struct {
	Weekday    time.Weekday
	Start, End LocalTime
}

// Covers reports whether hours allow a session on weekday wd from start to
// end: some run of spans of that weekday, touching ones joined, holds it
// whole. Hours without spans allow everything.
func (h *WorkingHours) Covers(wd time.Weekday, start, end LocalTime) bool {
	if len(h.Spans) == 0 {
		return true
	}
	// Spans may not overlap (Validate), so a sweep in start order joins
	// the touching ones.
	var day []HoursSpan
	for _, s := range h.Spans {
		if s.Weekday == wd {
			day = append(day, s)
		}
	}
	slices.SortFunc(day, func(a, b HoursSpan) int { return cmp.Compare(a.Start, b.Start) })
	for i := 0; i < len(day); {
		from, to := day[i].Start, day[i].End
		for i++; i < len(day) && day[i].Start <= to; i++ {
			to = max(to, day[i].End)
		}
		if from <= start && end <= to {
			return true
		}
	}
	return false
}

// AbsenceReason is why a staff member is missing from a session.
type AbsenceReason int8

const (
	// OnTimeOff: a time off covers part of the session.
	OnTimeOff AbsenceReason = iota + 1
	// OutsideHours: the session is not within the working hours in force
	// on its date.
	OutsideHours
)

func (r AbsenceReason) String() string {
	switch r {
	case OnTimeOff:
		return "TIME_OFF"
	case OutsideHours:
		return "OUTSIDE_HOURS"
	}
	return "unknown"
}

// Absence is one staff member missing from a session, and the rule that
// says so: the time off (TimeOffID), or the working hours in force
// (HoursFrom, the date they start).
type Absence struct {
	StaffID   int64
	Reason    AbsenceReason
	TimeOffID int64
	HoursFrom Date
}

// staffRules are the time off and the working hours of one staff member.
type staffRules struct {
	timeOff []*TimeOff      // by From
	hours   []*WorkingHours // by From
}

// hoursOn returns the working hours in force on d, or nil.
func (r *staffRules) hoursOn(d Date) *WorkingHours {
	i, _ := slices.BinarySearchFunc(r.hours, d+1, func(h *WorkingHours, d Date) int { return cmp.Compare(h.From, d) })
	if i == 0 {
		return nil
	}
	return r.hours[i-1]
}

// hoursUntil returns the last date the hours at index i are in force.
func (r *staffRules) hoursUntil(i int) Date {
	if i+1 < len(r.hours) {
		return r.hours[i+1].From - 1
	}
	return MaxDate
}

type coverIndex struct {
	once   sync.Once
	byStaf map[int64]*staffRules
}

// coverRules returns the rules of every staff member who has any, built
// once per timetable.
func (t *Timetable) coverRules() map[int64]*staffRules {
	t.coverIx.once.Do(func() {
		m := map[int64]*staffRules{}
		at := func(id int64) *staffRules {
			r := m[id]
			if r == nil {
				r = &staffRules{}
				m[id] = r
			}
			return r
		}
		for i := range t.state.TimeOffs {
			o := &t.state.TimeOffs[i]
			at(o.StaffID).timeOff = append(at(o.StaffID).timeOff, o)
		}
		for i := range t.state.Hours {
			h := &t.state.Hours[i]
			at(h.StaffID).hours = append(at(h.StaffID).hours, h)
		}
		for _, r := range m {
			slices.SortStableFunc(r.timeOff, func(a, b *TimeOff) int { return cmp.Compare(a.From, b.From) })
			slices.SortStableFunc(r.hours, func(a, b *WorkingHours) int { return cmp.Compare(a.From, b.From) })
		}
		t.coverIx.byStaf = m
	})
	return t.coverIx.byStaf
}

// HasCoverRules reports whether any staff member has time off or working
// hours: without them no session ever needs cover.
func (t *Timetable) HasCoverRules() bool { return len(t.coverRules()) > 0 }

// NeedsCover returns the staff of a session who are missing from it, each
// with the rule that says so: away on time off for part of it, or working
// no hours that hold it whole. A cancelled session needs no cover. Nil when
// everyone is there.
func (t *Timetable) NeedsCover(s *Session) []Absence {
	if s.Cancelled {
		return nil
	}
	rules := t.coverRules()
	if len(rules) == 0 {
		return nil
	}
	var out []Absence
	for _, id := range s.StaffIDs {
		out = appendAbsences(out, rules[id], id, s.Date, s.Start, s.End)
	}
	return out
}

// Available returns why staff member id could not be in a session on d
// from start to end, or nil when they could.
func (t *Timetable) Available(id int64, d Date, start, end LocalTime) []Absence {
	return appendAbsences(nil, t.coverRules()[id], id, d, start, end)
}

func appendAbsences(out []Absence, r *staffRules, id int64, d Date, start, end LocalTime) []Absence {
	if r == nil {
		return out
	}
	for _, o := range r.timeOff {
		if o.From > d {
			break
		}
		if a, b, ok := o.Away(d); ok && start < b && end > a {
			out = append(out, Absence{StaffID: id, Reason: OnTimeOff, TimeOffID: o.ID})
		}
	}
	if h := r.hoursOn(d); h != nil && !h.Covers(d.Weekday(), start, end) {
		out = append(out, Absence{StaffID: id, Reason: OutsideHours, HoursFrom: h.From})
	}
	return out
}

// checkCover validates time off and working hours.
func (v *validator) checkCover() {
	for _, o := range v.s.TimeOffs {
		if _, ok := v.staff[o.StaffID]; !ok {
			v.missing("timeOffs", o.ID, "staffId", "Time off names a %s that does not exist", v.words.Staff.One)
		}
		switch {
		case !o.From.Valid():
			v.add("timeOffs", o.ID, "from", "Time off needs a first date")
		case !o.To.Valid():
			v.add("timeOffs", o.ID, "to", "Time off needs a last date")
		case o.To < o.From:
			v.add("timeOffs", o.ID, "to", "Time off cannot end (%s) before it starts (%s)", o.To, o.From)
		}
		if !o.FromTime.Valid() || o.FromTime == EndOfDay {
			v.add("timeOffs", o.ID, "fromTime", "The time off's start %s is not a time of day", o.FromTime)
		}
		if !o.ToTime.Valid() {
			v.add("timeOffs", o.ID, "toTime", "The time off's end %s is not a time of day", o.ToTime)
		} else if o.From == o.To && o.ToTime != 0 && o.ToTime <= o.FromTime {
			v.add("timeOffs", o.ID, "toTime", "Time off of one day must end (%s) after it starts (%s)", o.ToTime, o.FromTime)
		}
		v.text("timeOffs", o.ID, "reason", "The reason of a time off", o.Reason, NoteText)
	}
	seen := map[[2]int64]bool{}
	for _, h := range v.s.Hours {
		if _, ok := v.staff[h.StaffID]; !ok {
			v.missing("workingHours", h.ID, "staffId", "Working hours name a %s that does not exist", v.words.Staff.One)
		}
		if !h.From.Valid() {
			v.add("workingHours", h.ID, "from", "Working hours need the date they start from")
		}
		k := [2]int64{h.StaffID, int64(h.From)}
		if seen[k] {
			v.add("workingHours", h.ID, "from", "Working hours from %s are set twice for one %s", h.From, v.words.Staff.One)
		}
		seen[k] = true
		if len(h.Spans) > MaxHoursSpans {
			v.add("workingHours", h.ID, "spans", "Working hours may hold at most %d spans, not %d", MaxHoursSpans, len(h.Spans))
		}
		for i, s := range h.Spans {
			if s.Weekday < time.Sunday || s.Weekday > time.Saturday {
				v.add("workingHours", h.ID, "spans", "Working hours name a day of the week that does not exist")
				continue
			}
			if !s.Start.Valid() || s.Start == EndOfDay || !s.End.Valid() || s.End <= s.Start {
				v.add("workingHours", h.ID, "spans", "Working hours on %s must end after they start (%s – %s)", s.Weekday, s.Start, s.End)
				continue
			}
			for _, o := range h.Spans[:i] {
				if o.Weekday == s.Weekday && s.Start < o.End && o.Start < s.End {
					v.add("workingHours", h.ID, "spans", "Working hours on %s overlap (%s – %s and %s – %s)", s.Weekday, o.Start, o.End, s.Start, s.End)
				}
			}
		}
	}
}
