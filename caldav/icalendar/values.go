package icalendar

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	ics "github.com/arran4/golang-ical"

	"github.com/koredyne/schedule/engine"
)

// form is how an RFC 5545 time is given (§3.3.5).
type form int

const (
	floating form = iota // local time, no zone: the business's clock
	utc                  // …Z
	zoned                // TZID=
	dateOnly             // VALUE=DATE
)

// stamp is a DATE or DATE-TIME value as written: a civil date and wall
// clock in its own zone, never converted on the way in.
type stamp struct {
	form form
	date engine.Date
	min  int // minutes after midnight
	sec  int
	loc  *time.Location // the zone the wall clock is in (business zone for floating)
	tzid string
}

// wall is a civil date and minutes after midnight on some clock.
type wall struct {
	date engine.Date
	min  int
}

func (w wall) less(o wall) bool { return w.date < o.date || w.date == o.date && w.min < o.min }

// add moves a wall-clock value by n minutes, carrying into the date.
func (w wall) add(n int) wall {
	m := w.min + n
	d := m / 1440
	if m < 0 && m%1440 != 0 {
		d--
	}
	return wall{w.date.AddDays(d), m - d*1440}
}

func (s stamp) wall() wall { return wall{s.date, s.min} }

// instant is when the wall clock shows the stamp, by the rules of RFC 5545
// (engine.Date.At): a time in a spring-forward gap is read with the offset
// before it, a repeated time is the first.
func (s stamp) instant() time.Time {
	return at(s.date, s.min, s.loc)
}

func at(d engine.Date, minutes int, loc *time.Location) time.Time {
	w := wall{d, minutes}.add(0)
	return w.date.At(engine.LocalTime(w.min), loc)
}

// zones resolves TZIDs: IANA names, Windows names (Outlook), and the
// "/mozilla.org/…/Europe/Berlin" style some clients prefix.
func loadZone(tzid string) (*time.Location, bool) {
	name := strings.Trim(strings.TrimSpace(tzid), `"`)
	if name == "" {
		return nil, false
	}
	if strings.EqualFold(name, "UTC") || strings.EqualFold(name, "GMT") || name == "Z" {
		return time.UTC, true
	}
	if loc, err := time.LoadLocation(name); err == nil && name != "Local" {
		return loc, true
	}
	if loc := ics.WindowsTimezoneToIANA(name); loc != nil {
		return loc, true
	}
	parts := strings.Split(strings.Trim(name, "/"), "/")
	for n := 3; n >= 2; n-- {
		if len(parts) > n {
			if loc, err := time.LoadLocation(strings.Join(parts[len(parts)-n:], "/")); err == nil {
				return loc, true
			}
		}
	}
	return nil, false
}

// params reads a property's parameters with their names upper-cased (RFC
// 5545 names are case-insensitive).
func param(p *ics.IANAProperty, name string) string {
	for k, v := range p.ICalParameters {
		if strings.EqualFold(k, name) && len(v) > 0 {
			return v[0]
		}
	}
	return ""
}

// zones resolves the TZIDs of one file, each once: time.LoadLocation reads
// and parses a zone's rules anew on every call (2.6 kB for Europe/Berlin),
// which for a file of thousands of events was a third of its import's heap.
// A TZID not known is kept as nil.
type zones map[string]*time.Location

func (z zones) load(tzid string) (*time.Location, bool) {
	if loc, ok := z[tzid]; ok {
		return loc, loc != nil
	}
	loc, ok := loadZone(tzid)
	z[tzid] = loc
	return loc, ok
}

// parseStamps reads the one or more comma-separated values of a DATE or
// DATE-TIME property (DTSTART, EXDATE, RDATE, RECURRENCE-ID). biz is the
// clock of floating times; zs resolves TZIDs.
func parseStamps(p *ics.IANAProperty, biz *time.Location, zs zones) ([]stamp, error) {
	var loc *time.Location
	tzid := param(p, "TZID")
	if tzid != "" {
		l, ok := zs.load(tzid)
		if !ok {
			return nil, &zoneError{tzid}
		}
		loc = l
	}
	var out []stamp
	for _, v := range strings.Split(p.Value, ",") {
		s, err := parseStamp(strings.TrimSpace(v), loc, tzid, biz)
		if err != nil {
			return nil, err
		}
		if strings.EqualFold(param(p, "VALUE"), "DATE") && s.form != dateOnly {
			return nil, fmt.Errorf("%q is not a date", v)
		}
		out = append(out, s)
	}
	return out, nil
}

type zoneError struct{ tzid string }

func (e *zoneError) Error() string { return fmt.Sprintf("the time zone %q is not known", e.tzid) }

func parseStamp(v string, loc *time.Location, tzid string, biz *time.Location) (stamp, error) {
	bad := fmt.Errorf("%q is not a date or a date and time", v)
	num := func(s string) (int, bool) {
		n, err := strconv.Atoi(s)
		return n, err == nil && len(s) > 0 && s[0] != '-' && s[0] != '+'
	}
	if len(v) < 8 {
		return stamp{}, bad
	}
	y, ok1 := num(v[0:4])
	m, ok2 := num(v[4:6])
	d, ok3 := num(v[6:8])
	if !ok1 || !ok2 || !ok3 {
		return stamp{}, bad
	}
	date, err := engine.NewDate(y, m, d)
	if err != nil {
		return stamp{}, err
	}
	if len(v) == 8 {
		return stamp{form: dateOnly, date: date, loc: biz}, nil
	}
	rest := v[8:]
	if len(rest) < 7 || rest[0] != 'T' {
		return stamp{}, bad
	}
	hh, ok1 := num(rest[1:3])
	mm, ok2 := num(rest[3:5])
	ss, ok3 := num(rest[5:7])
	if !ok1 || !ok2 || !ok3 || hh > 23 || mm > 59 || ss > 60 {
		return stamp{}, bad
	}
	s := stamp{date: date, min: hh*60 + mm, sec: ss}
	switch rest[7:] {
	case "Z":
		s.form, s.loc = utc, time.UTC
	case "":
		if loc != nil {
			s.form, s.loc, s.tzid = zoned, loc, tzid
		} else {
			s.form, s.loc = floating, biz
		}
	default:
		return stamp{}, bad
	}
	return s, nil
}

// parseDuration reads an RFC 5545 DURATION (§3.3.6) as minutes and seconds.
func parseDuration(v string) (minutes, seconds int, err error) {
	bad := fmt.Errorf("%q is not a duration", v)
	s := strings.ToUpper(strings.TrimSpace(v))
	sign := 1
	switch {
	case strings.HasPrefix(s, "-"):
		sign, s = -1, s[1:]
	case strings.HasPrefix(s, "+"):
		s = s[1:]
	}
	if !strings.HasPrefix(s, "P") || len(s) < 3 {
		return 0, 0, bad
	}
	s = s[1:]
	total := 0
	inTime := false
	n, digits := 0, 0
	for _, c := range s {
		switch {
		case c >= '0' && c <= '9':
			n, digits = n*10+int(c-'0'), digits+1
			if n > 1e7 {
				return 0, 0, bad
			}
			continue
		case c == 'T':
			if inTime || digits > 0 {
				return 0, 0, bad
			}
			inTime = true
			continue
		}
		if digits == 0 {
			return 0, 0, bad
		}
		switch {
		case c == 'W' && !inTime:
			total += n * 7 * 86400
		case c == 'D' && !inTime:
			total += n * 86400
		case c == 'H' && inTime:
			total += n * 3600
		case c == 'M' && inTime:
			total += n * 60
		case c == 'S' && inTime:
			total += n
		default:
			return 0, 0, bad
		}
		n, digits = 0, 0
	}
	if digits > 0 {
		return 0, 0, bad
	}
	total *= sign
	return total / 60, total % 60, nil
}

// icsDate writes a civil date as YYYYMMDD, and icsLocal a wall-clock value.
func icsDate(d engine.Date) string {
	y, m, day := d.Civil()
	return fmt.Sprintf("%04d%02d%02d", y, m, day)
}

func icsLocal(d engine.Date, t engine.LocalTime) string {
	w := wall{d, int(t)}.add(0) // 24:00 is the next midnight
	return fmt.Sprintf("%sT%02d%02d00", icsDate(w.date), w.min/60, w.min%60)
}

// shortDate names a day in messages: "Thu 12 Mar 2026".
func shortDate(d engine.Date) string {
	return d.Weekday().String()[:3] + " " + d.Short(0)
}

func clock(minutes int) string { return engine.LocalTime(minutes).String() }
