package icalendar

import (
	"fmt"
	"slices"
	"time"

	ics "github.com/arran4/golang-ical"

	"github.com/koredyne/schedule/engine"
)

// An RRULE (RFC 5545 §3.3.10) is expanded here at the level of dates: the
// rules this package reads keep the time of day of DTSTART, so every
// occurrence is a date at that wall-clock time. Sub-daily rules (HOURLY and
// finer, BYHOUR/BYMINUTE/BYSECOND with other values than DTSTART's) and
// BYWEEKNO/BYYEARDAY are not expanded.

var weekdays = map[ics.Weekday]time.Weekday{
	ics.WeekdaySunday: time.Sunday, ics.WeekdayMonday: time.Monday, ics.WeekdayTuesday: time.Tuesday,
	ics.WeekdayWednesday: time.Wednesday, ics.WeekdayThursday: time.Thursday, ics.WeekdayFriday: time.Friday,
	ics.WeekdaySaturday: time.Saturday,
}

var dayCodes = [7]string{"SU", "MO", "TU", "WE", "TH", "FR", "SA"}

// expandError says why a rule's dates cannot be worked out.
type expandError struct{ what string }

func (e *expandError) Error() string { return e.what }

// normalize drops BYHOUR, BYMINUTE and BYSECOND parts that only repeat
// DTSTART's own time (some writers add them), leaving rules that really
// repeat within a day as they are.
func normalize(r *ics.RecurrenceRule, startMin, startSec int) {
	if slices.Equal(r.ByHour, []int{startMin / 60}) {
		r.ByHour = nil
	}
	if slices.Equal(r.ByMinute, []int{startMin % 60}) {
		r.ByMinute = nil
	}
	if slices.Equal(r.BySecond, []int{startSec}) {
		r.BySecond = nil
	}
}

// expandable reports why expandDates cannot expand r, or nil.
func expandable(r *ics.RecurrenceRule) error {
	switch r.Freq {
	case ics.FrequencyDaily, ics.FrequencyWeekly, ics.FrequencyMonthly, ics.FrequencyYearly:
	default:
		return &expandError{fmt.Sprintf("it repeats more than once a day (FREQ=%s)", r.Freq)}
	}
	if len(r.ByHour) > 0 || len(r.ByMinute) > 0 || len(r.BySecond) > 0 {
		return &expandError{"it repeats at several times of day (BYHOUR, BYMINUTE or BYSECOND)"}
	}
	if len(r.ByWeekNo) > 0 || len(r.ByYearDay) > 0 {
		return &expandError{"it picks weeks or days of the year by number (BYWEEKNO or BYYEARDAY)"}
	}
	if r.Interval < 1 {
		return &expandError{fmt.Sprintf("its INTERVAL of %d is not a positive number", r.Interval)}
	}
	for _, d := range r.ByDay {
		if d.OrdWeek != 0 && (r.Freq == ics.FrequencyDaily || r.Freq == ics.FrequencyWeekly) {
			return &expandError{fmt.Sprintf("it numbers weekdays (BYDAY=%s) in a %s rule", d, r.Freq)}
		}
	}
	if len(r.ByMonthDay) > 0 && r.Freq == ics.FrequencyWeekly {
		return &expandError{"it picks days of the month (BYMONTHDAY) in a weekly rule"}
	}
	for _, v := range r.ByMonthDay {
		if v == 0 || v < -31 || v > 31 {
			return &expandError{fmt.Sprintf("BYMONTHDAY=%d is not a day of the month", v)}
		}
	}
	for _, v := range r.ByMonth {
		if v < 1 || v > 12 {
			return &expandError{fmt.Sprintf("BYMONTH=%d is not a month", v)}
		}
	}
	for _, v := range r.BySetPos {
		if v == 0 || v < -366 || v > 366 {
			return &expandError{fmt.Sprintf("BYSETPOS=%d is not a position", v)}
		}
	}
	return nil
}

// maxYear is the last year a timetable holds dates in.
var maxYear, _, _ = engine.MaxDate.Civil()

// expandDates calls yield with every date the rule gives on or after start
// (DTSTART's date), in order, up to limit; DTSTART itself is not added (the
// caller does, RFC 5545 counts it as the first occurrence). It stops when
// yield returns false.
func expandDates(r *ics.RecurrenceRule, start, limit engine.Date, yield func(engine.Date) bool) error {
	if err := expandable(r); err != nil {
		return err
	}
	limit = min(limit, engine.MaxDate)
	rr := recur{r}
	sy, sm, sd := start.Civil()
	emit := func(set []engine.Date) bool {
		set = setPos(set, r.BySetPos)
		for _, d := range set {
			if d < start {
				continue
			}
			if d > limit || !yield(d) {
				return false
			}
		}
		return true
	}
	switch r.Freq {
	case ics.FrequencyDaily:
		for d := start; d <= limit; d += engine.Date(r.Interval) {
			y, m, day := d.Civil()
			if !rr.monthOK(m) || !rr.monthDayOK(y, m, day) || !rr.weekdayOK(d.Weekday()) {
				continue
			}
			if !emit([]engine.Date{d}) {
				return nil
			}
		}
	case ics.FrequencyWeekly:
		wkst := time.Monday
		if r.Wkst != "" {
			wkst = weekdays[r.Wkst]
		}
		first := start - engine.Date((int(start.Weekday())-int(wkst)+7)%7)
		days := []time.Weekday{start.Weekday()}
		if len(r.ByDay) > 0 {
			days = days[:0]
			for _, d := range r.ByDay {
				days = append(days, weekdays[d.Day])
			}
		}
		for ws := first; ws <= limit; ws += engine.Date(7 * r.Interval) {
			var set []engine.Date
			for i := 0; i < 7; i++ {
				d := ws + engine.Date(i)
				if !d.Valid() {
					continue
				}
				_, m, _ := d.Civil()
				if slices.Contains(days, d.Weekday()) && rr.monthOK(m) {
					set = append(set, d)
				}
			}
			if !emit(set) {
				return nil
			}
		}
	case ics.FrequencyMonthly:
		for mi := sy*12 + sm - 1; ; mi += r.Interval {
			y, m := mi/12, mi%12+1
			if y > maxYear || engine.MustDate(y, m, 1) > limit {
				return nil
			}
			if !rr.monthOK(m) {
				continue
			}
			if !emit(rr.inMonth(y, m, sd)) {
				return nil
			}
		}
	case ics.FrequencyYearly:
		for y := sy; y <= maxYear; y += r.Interval {
			if engine.MustDate(y, 1, 1) > limit {
				return nil
			}
			if !emit(rr.inYear(y, sm, sd)) {
				return nil
			}
		}
	}
	return nil
}

// recur carries the helpers of a parsed rule (the type is the library's).
type recur struct{ *ics.RecurrenceRule }

func (r recur) monthOK(m int) bool { return len(r.ByMonth) == 0 || slices.Contains(r.ByMonth, m) }

func (r recur) monthDayOK(y, m, day int) bool {
	if len(r.ByMonthDay) == 0 {
		return true
	}
	dim := daysIn(y, m)
	for _, md := range r.ByMonthDay {
		if md == day || md < 0 && dim+md+1 == day {
			return true
		}
	}
	return false
}

func (r recur) weekdayOK(wd time.Weekday) bool {
	if len(r.ByDay) == 0 {
		return true
	}
	for _, d := range r.ByDay {
		if weekdays[d.Day] == wd {
			return true
		}
	}
	return false
}

// byDayOK tests a date against BYDAY with ordinals counted in a span of
// days (a month or a year): 2MO is the second Monday of it, -1FR the last
// Friday.
func (r recur) byDayOK(d, spanFirst, spanLast engine.Date) bool {
	for _, b := range r.ByDay {
		if weekdays[b.Day] != d.Weekday() {
			continue
		}
		switch {
		case b.OrdWeek == 0:
			return true
		case b.OrdWeek > 0 && d.Sub(spanFirst)/7+1 == b.OrdWeek:
			return true
		case b.OrdWeek < 0 && spanLast.Sub(d)/7+1 == -b.OrdWeek:
			return true
		}
	}
	return false
}

// inMonth is the set of one month of a MONTHLY rule (or of a YEARLY rule
// with BYMONTH): BYMONTHDAY days, limited or expanded by BYDAY, else
// DTSTART's day of the month when the month has it.
func (r recur) inMonth(y, m, startDay int) []engine.Date {
	first := engine.MustDate(y, m, 1)
	last := first.AddDays(daysIn(y, m) - 1)
	var set []engine.Date
	switch {
	case len(r.ByMonthDay) > 0:
		for d := first; d <= last; d++ {
			_, _, day := d.Civil()
			if r.monthDayOK(y, m, day) && (len(r.ByDay) == 0 || r.byDayOK(d, first, last)) {
				set = append(set, d)
			}
		}
	case len(r.ByDay) > 0:
		for d := first; d <= last; d++ {
			if r.byDayOK(d, first, last) {
				set = append(set, d)
			}
		}
	default:
		if startDay <= daysIn(y, m) {
			set = append(set, engine.MustDate(y, m, startDay))
		}
	}
	return set
}

func (r recur) inYear(y, startMonth, startDay int) []engine.Date {
	first, last := engine.MustDate(y, 1, 1), engine.MustDate(y, 12, 31)
	months := r.ByMonth
	if len(months) == 0 && len(r.ByMonthDay) > 0 {
		months = []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}
	}
	var set []engine.Date
	switch {
	case len(months) > 0 && (len(r.ByMonthDay) > 0 || len(r.ByMonth) > 0 && len(r.ByDay) > 0):
		for m := 1; m <= 12; m++ {
			if !slices.Contains(months, m) {
				continue
			}
			if len(r.ByMonth) == 0 && len(r.ByDay) > 0 {
				// BYMONTHDAY in every month, BYDAY counted in the year.
				only := recur{&ics.RecurrenceRule{ByMonthDay: r.ByMonthDay}}
				for _, d := range only.inMonth(y, m, startDay) {
					if r.byDayOK(d, first, last) {
						set = append(set, d)
					}
				}
				continue
			}
			set = append(set, r.inMonth(y, m, startDay)...)
		}
	case len(r.ByDay) > 0:
		for d := first; d <= last; d++ {
			if r.byDayOK(d, first, last) {
				set = append(set, d)
			}
		}
	case len(months) > 0:
		for _, m := range months {
			if startDay <= daysIn(y, m) {
				set = append(set, engine.MustDate(y, m, startDay))
			}
		}
		slices.Sort(set)
	default:
		if startDay <= daysIn(y, startMonth) {
			set = append(set, engine.MustDate(y, startMonth, startDay))
		}
	}
	return set
}

// setPos applies BYSETPOS to the sorted set of one period.
func setPos(set []engine.Date, pos []int) []engine.Date {
	if len(pos) == 0 {
		return set
	}
	var out []engine.Date
	for _, p := range pos {
		i := p - 1
		if p < 0 {
			i = len(set) + p
		}
		if i >= 0 && i < len(set) && !slices.Contains(out, set[i]) {
			out = append(out, set[i])
		}
	}
	slices.Sort(out)
	return out
}

func daysIn(y, m int) int {
	switch m {
	case 2:
		if y%4 == 0 && (y%100 != 0 || y%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}
