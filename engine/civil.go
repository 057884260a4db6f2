package engine

import (
	"errors"
	"fmt"
	"strconv"
	"time"
)

// Date is a civil date in the proleptic Gregorian calendar, stored as its
// Rata Die day number (0001-01-01 is day 1). Arithmetic on it is plain integer
// arithmetic and never passes through a time zone. The zero Date means "no
// date" (an open end, an unchanged field).
type Date int32

// The dates a timetable holds: 1900-01-01 to 2199-12-31. Every date that
// comes in (GraphQL, the database, backups, imports) passes NewDate or
// ParseDate, and Validate checks every date of a State, so no date outside
// the window reaches the rules.
//
// Why a window and why this one: an open end is "no date", never a far date,
// so a date near the years 1 or 9999 is a typo or an attack, and every
// stretch of dates a rule can name (a capacity override, a closure, a series)
// is bounded by the window: the longest is 300 years, about 15,650 weeks,
// which keeps whatever still counts weeks small and keeps the instants of
// every date well inside what time.Time, PostgreSQL and calendar programs
// handle. 1900 is earlier than any time-zone rule in use today (the IANA
// database holds local mean time before then); 2199 leaves room for any
// business plan and any series that runs "for ever".
const (
	MinDate Date = 693596 // 1900-01-01
	MaxDate Date = 803168 // 2199-12-31
)

// ErrOutsideWindow is wrapped by the errors of NewDate and ParseDate for a
// real date outside MinDate..MaxDate.
var ErrOutsideWindow = errors.New("date outside the window")

// outsideWindow is the error for a real date outside the window; it is
// ErrOutsideWindow for errors.Is.
type outsideWindow string

func (e outsideWindow) Error() string {
	return fmt.Sprintf("%s is outside the dates a timetable holds (%s to %s)", string(e), MinDate, MaxDate)
}

func (e outsideWindow) Is(target error) bool { return target == ErrOutsideWindow }

// NewDate returns the date y-m-d, or an error naming the value when no such
// day exists (2026-02-30 is refused, not normalised into March) or when it
// lies outside MinDate..MaxDate.
func NewDate(y, m, d int) (Date, error) {
	if y < 1 || y > 9999 || m < 1 || m > 12 || d < 1 || d > daysIn(y, m) {
		return 0, fmt.Errorf("%04d-%02d-%02d is not a real date", y, m, d)
	}
	v := fromCivil(y, m, d)
	if !v.Valid() {
		return 0, outsideWindow(fmt.Sprintf("%04d-%02d-%02d", y, m, d))
	}
	return v, nil
}

// MustDate is NewDate for values known to be valid (tests, demo data).
func MustDate(y, m, d int) Date {
	v, err := NewDate(y, m, d)
	if err != nil {
		panic(err)
	}
	return v
}

// ParseDate reads exactly YYYY-MM-DD.
func ParseDate(s string) (Date, error) {
	if len(s) != 10 || s[4] != '-' || s[7] != '-' {
		return 0, fmt.Errorf("%q is not a date: write it as YYYY-MM-DD", s)
	}
	y, ok1 := digits(s[0:4])
	m, ok2 := digits(s[5:7])
	d, ok3 := digits(s[8:10])
	if !ok1 || !ok2 || !ok3 {
		return 0, fmt.Errorf("%q is not a date: write it as YYYY-MM-DD", s)
	}
	v, err := NewDate(y, m, d)
	if errors.Is(err, ErrOutsideWindow) {
		return 0, outsideWindow(strconv.Quote(s))
	}
	if err != nil {
		return 0, fmt.Errorf("%q is not a real date", s)
	}
	return v, nil
}

// Civil returns the year, month and day.
func (d Date) Civil() (year, month, day int) {
	// Howard Hinnant's civil_from_days, shifted from the Unix epoch to Rata Die.
	z := int(d) - 1 + 719468 - 719162
	era := z / 146097 // z > 0 for every Date from year 1 on
	doe := z - era*146097
	yoe := (doe - doe/1460 + doe/36524 - doe/146096) / 365
	y := yoe + era*400
	doy := doe - (365*yoe + yoe/4 - yoe/100)
	mp := (5*doy + 2) / 153
	day = doy - (153*mp+2)/5 + 1
	if mp < 10 {
		month = mp + 3
	} else {
		month = mp - 9
	}
	if month <= 2 {
		y++
	}
	return y, month, day
}

func fromCivil(y, m, d int) Date {
	if m <= 2 {
		y--
	}
	era := y / 400
	yoe := y - era*400
	mp := (m + 9) % 12
	doy := (153*mp+2)/5 + d - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return Date(era*146097 + doe - 719468 + 719162 + 1)
}

func isLeap(y int) bool { return y%4 == 0 && (y%100 != 0 || y%400 == 0) }

func daysIn(y, m int) int {
	switch m {
	case 2:
		if isLeap(y) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

func digits(s string) (int, bool) {
	n := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, len(s) > 0
}

// String formats the date as YYYY-MM-DD; the zero Date prints as "".
func (d Date) String() string {
	if d == 0 {
		return ""
	}
	y, m, day := d.Civil()
	return fmt.Sprintf("%04d-%02d-%02d", y, m, day)
}

// IsZero reports whether d is the zero Date ("no date").
func (d Date) IsZero() bool { return d == 0 }

// Valid reports whether d lies in the window of dates a timetable holds.
func (d Date) Valid() bool { return d >= MinDate && d <= MaxDate }

// AddDays returns the date n days after d.
func (d Date) AddDays(n int) Date { return d + Date(n) }

// Sub returns the number of days from e to d.
func (d Date) Sub(e Date) int { return int(d) - int(e) }

// Weekday returns the day of the week. Rata Die day 1 was a Monday.
func (d Date) Weekday() time.Weekday { return time.Weekday(int(d) % 7) }

// WeekStart returns the first day of the week holding d, for a business whose
// weeks start on start (Sunday or Monday).
func (d Date) WeekStart(start time.Weekday) Date {
	return d - Date((int(d.Weekday())-int(start)+7)%7)
}

// AddMonths returns the same day of the month n months later, clamped to the
// last day of a shorter month (2026-01-31 + 1 month is 2026-02-28).
func (d Date) AddMonths(n int) Date {
	y, m, day := d.Civil()
	total := y*12 + (m - 1) + n
	y, m = total/12, total%12+1
	if dim := daysIn(y, m); day > dim {
		day = dim
	}
	return fromCivil(y, m, day)
}

// Short formats d the way messages name a day: "6 Oct", with the year added
// when it differs from the year of ref ("6 Oct 2027").
func (d Date) Short(ref Date) string {
	y, m, day := d.Civil()
	ry, _, _ := ref.Civil()
	s := fmt.Sprintf("%d %s", day, time.Month(m).String()[:3])
	if ref == 0 || y != ry {
		s += fmt.Sprintf(" %d", y)
	}
	return s
}

// DateOf returns the civil date of t in t's own location.
func DateOf(t time.Time) Date {
	y, m, d := t.Date()
	return fromCivil(y, int(m), d)
}

// LocalTime is a wall-clock time of day in minutes after midnight, from 00:00
// to 24:00 inclusive (24:00 is the end of the day, for sessions that run to
// midnight).
type LocalTime int16

// EndOfDay is 24:00.
const EndOfDay LocalTime = 24 * 60

// NewLocalTime returns h:m, refusing anything outside 00:00–24:00.
func NewLocalTime(h, m int) (LocalTime, error) {
	if h < 0 || h > 24 || m < 0 || m > 59 || (h == 24 && m != 0) {
		return 0, fmt.Errorf("%02d:%02d is not a time of day", h, m)
	}
	return LocalTime(h*60 + m), nil
}

// MustTime parses "HH:MM" for values known to be valid (tests, demo data).
func MustTime(s string) LocalTime {
	t, err := ParseLocalTime(s)
	if err != nil {
		panic(err)
	}
	return t
}

// ParseLocalTime reads exactly HH:MM on a 24-hour clock.
func ParseLocalTime(s string) (LocalTime, error) {
	if len(s) != 5 || s[2] != ':' {
		return 0, fmt.Errorf("%q is not a time: write it as HH:MM (24-hour)", s)
	}
	h, ok1 := digits(s[0:2])
	m, ok2 := digits(s[3:5])
	if !ok1 || !ok2 {
		return 0, fmt.Errorf("%q is not a time: write it as HH:MM (24-hour)", s)
	}
	t, err := NewLocalTime(h, m)
	if err != nil {
		return 0, fmt.Errorf("%q is not a time of day (00:00 to 24:00)", s)
	}
	return t, nil
}

// Valid reports whether t lies in 00:00–24:00.
func (t LocalTime) Valid() bool { return t >= 0 && t <= EndOfDay }

// Hour and Minute split t.
func (t LocalTime) Hour() int   { return int(t) / 60 }
func (t LocalTime) Minute() int { return int(t) % 60 }

// Minutes returns t as minutes after midnight.
func (t LocalTime) Minutes() int { return int(t) }

// Add returns t moved by n minutes; the caller keeps the result in range.
func (t LocalTime) Add(n int) LocalTime { return t + LocalTime(n) }

// String formats t as HH:MM.
func (t LocalTime) String() string { return fmt.Sprintf("%02d:%02d", t.Hour(), t.Minute()) }

// Clock12 formats t for people on a 12-hour clock: "9 AM", "9:15 AM",
// "12 PM" for noon, "12:05 PM", "12 AM" for midnight at either end of the day.
func (t LocalTime) Clock12() string {
	h, m := t.Hour()%24, t.Minute()
	half := "AM"
	if h >= 12 {
		half = "PM"
	}
	h12 := h % 12
	if h12 == 0 {
		h12 = 12
	}
	if m == 0 {
		return fmt.Sprintf("%d %s", h12, half)
	}
	return fmt.Sprintf("%d:%02d %s", h12, m, half)
}

// Span formats a start–end pair as people read it: "9 AM – 9:15 AM".
func Span(start, end LocalTime) string { return start.Clock12() + " – " + end.Clock12() }

// At returns the instant at which the wall clock in loc shows t on d. The
// rules are those of RFC 5545 §3.3.5: a time that falls in a spring-forward
// gap is read with the UTC offset in force before the gap (02:30 on the
// Berlin spring-forward day is 03:30 CEST); a time that occurs twice when the
// clocks fall back is the first of the two. 24:00 is midnight of the next day.
func (d Date) At(t LocalTime, loc *time.Location) time.Time {
	at, _ := d.resolve(t, loc)
	return at
}

// Ambiguous reports whether the wall clock in loc shows t twice on d (the
// hour repeated when the clocks fall back).
func (d Date) Ambiguous(t LocalTime, loc *time.Location) bool {
	_, twice := d.resolve(t, loc)
	return twice
}

func (d Date) resolve(t LocalTime, loc *time.Location) (time.Time, bool) {
	if t == EndOfDay {
		d, t = d+1, 0
	}
	y, m, day := d.Civil()
	wall := time.Date(y, time.Month(m), day, t.Hour(), t.Minute(), 0, 0, time.UTC).Unix()
	// Offsets a day either side; time zones change at most once in that span.
	before := offsetAt(wall-86400, loc)
	after := offsetAt(wall+86400, loc)
	first, second := wall-int64(before), wall-int64(after)
	okFirst := offsetAt(first, loc) == before
	okSecond := offsetAt(second, loc) == after
	switch {
	case okFirst && okSecond:
		return time.Unix(min(first, second), 0).In(loc), first != second
	case okSecond:
		return time.Unix(second, 0).In(loc), false
	default: // valid with the earlier offset, or in the gap: read with it
		return time.Unix(first, 0).In(loc), false
	}
}

func offsetAt(unix int64, loc *time.Location) int {
	_, off := time.Unix(unix, 0).In(loc).Zone()
	return off
}
