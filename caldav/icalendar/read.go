package icalendar

import (
	"bytes"
	"errors"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	ics "github.com/arran4/golang-ical"

	"github.com/koredyne/schedule/engine"
)

// veventLines returns the 1-based line of each top-level BEGIN:VEVENT, in
// file order: the order golang-ical returns the events in. Folded lines are
// joined first, so a line number is where the content line begins.
func veventLines(data []byte) []int {
	var out []int
	depth := 0
	lines := bytes.Split(data, []byte("\n"))
	for i := 0; i < len(lines); i++ {
		start := i
		logical := string(bytes.TrimRight(lines[i], "\r"))
		for i+1 < len(lines) && len(lines[i+1]) > 0 && (lines[i+1][0] == ' ' || lines[i+1][0] == '\t') {
			i++
			logical += string(bytes.TrimRight(lines[i][1:], "\r"))
		}
		name, value, ok := strings.Cut(logical, ":")
		if !ok {
			continue
		}
		switch strings.ToUpper(strings.TrimSpace(name)) {
		case "BEGIN":
			depth++
			if depth == 2 && strings.EqualFold(strings.TrimSpace(value), "VEVENT") {
				out = append(out, start+1)
			}
		case "END":
			depth--
		}
	}
	return out
}

// text returns a TEXT property's value, trimmed ("" when absent).
func text(v *ics.VEvent, p ics.ComponentProperty) string {
	if prop := v.GetProperty(p); prop != nil {
		return strings.TrimSpace(prop.Value)
	}
	return ""
}

func number(v *ics.VEvent, p ics.ComponentProperty) int {
	n, err := strconv.Atoi(text(v, p))
	if err != nil || n < 0 {
		return 0
	}
	return n
}

// The X-KOREDYNE-* properties carry what RFC 5545 has no place for, so a
// file this package wrote reads back as the same rules.
const (
	xActivity     ics.ComponentProperty = "X-KOREDYNE-ACTIVITY"
	xColor        ics.ComponentProperty = "X-KOREDYNE-COLOR"
	xLabel        ics.ComponentProperty = "X-KOREDYNE-LABEL"
	xCapacity     ics.ComponentProperty = "X-KOREDYNE-CAPACITY"
	xType         ics.ComponentProperty = "X-KOREDYNE-TYPE"
	xBuffer       ics.ComponentProperty = "X-KOREDYNE-BUFFER"
	xUnits        ics.ComponentProperty = "X-KOREDYNE-UNITS"
	xRoomCapacity ics.ComponentProperty = "X-KOREDYNE-ROOM-CAPACITY"
	xClassTime    ics.ComponentProperty = "X-KOREDYNE-CLASSTIME"
	xSeries       ics.ComponentProperty = "X-KOREDYNE-SERIES"
	xNote         ics.ComponentProperty = "X-KOREDYNE-NOTE"
	xCancelNote   ics.ComponentProperty = "X-KOREDYNE-CANCEL-NOTE"
)

// kept is how each property an import stores is cleaned (engine/text.go);
// others are cleaned as free text.
var kept = map[ics.ComponentProperty]engine.Text{
	ics.ComponentPropertySummary:  engine.NameText,
	ics.ComponentPropertyLocation: engine.NameText,
	xActivity:                     engine.NameText,
	xSeries:                       engine.NameText,
	xColor:                        engine.ColorText,
	xLabel:                        engine.LabelText,
	xType:                         engine.LabelText,
	xClassTime:                    engine.LabelText,
	xNote:                         engine.NoteText,
	xCancelNote:                   engine.NoteText,
}

// scrub cleans the text of an event as the engine would accept it, so that
// a control character, invalid UTF-8 or an overlong name in a file becomes
// a note, never a stored value or a refused import: in names control
// characters become spaces and the text is cut to its limit; parameters
// (a CN is a staff member's name) are names. It returns what it changed,
// as "SUMMARY" or "ATTENDEE;CN", once each.
func scrub(v *ics.VEvent) []string {
	var changed []string
	note := func(what string) {
		if !slices.Contains(changed, what) {
			changed = append(changed, what)
		}
	}
	free := engine.Text{Max: math.MaxInt, Lines: true}
	for i := range v.Properties {
		p := &v.Properties[i]
		rule, ok := kept[ics.ComponentProperty(strings.ToUpper(p.IANAToken))]
		if !ok {
			rule = free
		}
		if s, ok := rule.Clean(p.Value); ok {
			p.Value = s
			note(strings.ToUpper(p.IANAToken))
		}
		for k, vs := range p.ICalParameters {
			for j, x := range vs {
				if s, ok := engine.NameText.Clean(x); ok {
					vs[j] = s
					note(strings.ToUpper(p.IANAToken) + ";" + strings.ToUpper(k))
				}
			}
		}
	}
	return changed
}

// info is what a VEVENT says about its sessions besides when: what, where,
// who, and the class-time details of X-KOREDYNE-* properties.
type info struct {
	activity, color string
	room            string
	roomCapacity    int
	staff           []string
	label, typ      string
	capacity        int
	buffer, units   int
	classTime       string // X-KOREDYNE-CLASSTIME: keeps identical class times apart
	note            string
	cancelled       bool
}

// readInfo reads the activity (X-KOREDYNE-ACTIVITY or SUMMARY), the room
// (LOCATION, or an attendee that is a room) and the staff: the ORGANIZER
// and every ATTENDEE with a common name whose role is CHAIR or
// REQ-PARTICIPANT (the default role), unless it declined or is a room or a
// resource. Missing parts are left empty for the caller to default.
func readInfo(v *ics.VEvent) info {
	in := info{
		activity:     text(v, xActivity),
		color:        text(v, xColor),
		room:         text(v, ics.ComponentPropertyLocation),
		roomCapacity: number(v, xRoomCapacity),
		label:        text(v, xLabel),
		typ:          text(v, xType),
		capacity:     number(v, xCapacity),
		buffer:       number(v, xBuffer),
		units:        number(v, xUnits),
		classTime:    text(v, xClassTime),
		note:         text(v, xNote),
		cancelled:    strings.EqualFold(text(v, ics.ComponentPropertyStatus), "CANCELLED"),
	}
	if in.activity == "" {
		in.activity = text(v, ics.ComponentPropertySummary)
	}
	seen := map[string]bool{}
	add := func(name string) {
		name = strings.Join(strings.Fields(name), " ")
		if k := key(name); k != "" && !seen[k] {
			seen[k] = true
			in.staff = append(in.staff, name)
		}
	}
	if o := v.GetProperty(ics.ComponentPropertyOrganizer); o != nil {
		add(param(o, "CN"))
	}
	for _, a := range v.GetProperties(ics.ComponentPropertyAttendee) {
		cn := param(a, "CN")
		cutype := strings.ToUpper(param(a, "CUTYPE"))
		if cutype == "ROOM" || cutype == "RESOURCE" {
			if cutype == "ROOM" && in.room == "" {
				in.room = strings.TrimSpace(cn)
			}
			continue
		}
		role := strings.ToUpper(param(a, "ROLE"))
		if role != "" && role != "CHAIR" && role != "REQ-PARTICIPANT" {
			continue
		}
		if strings.EqualFold(param(a, "PARTSTAT"), "DECLINED") {
			continue
		}
		add(cn)
	}
	return in
}

// key is how names are compared: as the engine compares them.
func key(name string) string { return engine.NameKey(name) }

// untilOf reads UNTIL from the raw RRULE text: whether it is UTC matters
// and the library's parsed value does not say.
func untilOf(raw string) (value string, ok bool) {
	for _, part := range strings.Split(raw, ";") {
		k, v, _ := strings.Cut(part, "=")
		if strings.EqualFold(strings.TrimSpace(k), "UNTIL") {
			return strings.TrimSpace(v), true
		}
	}
	return "", false
}

// cutoff is the last date, on the event's own clock, whose occurrence is
// within UNTIL (inclusive, RFC 5545 §3.3.10): compared as instants when
// UNTIL is UTC, as wall-clock values otherwise; a date-only UNTIL keeps
// that whole day.
func cutoff(raw string, start stamp) (engine.Date, error) {
	v, ok := untilOf(raw)
	if !ok {
		return engine.MaxDate, nil
	}
	u, err := parseStamp(v, nil, "", start.loc)
	if errors.Is(err, engine.ErrOutsideWindow) && v[:4] > engine.MaxDate.String()[:4] {
		// A rule that ends after the last date a timetable holds (UNTIL
		// 99991231 is a common way to write "never") ends with it.
		return engine.MaxDate, nil
	}
	if err != nil {
		return 0, err
	}
	switch {
	case u.form == dateOnly:
		return u.date, nil
	case u.form == utc && start.form != utc:
		until := u.instant()
		d := engine.DateOf(until.In(start.loc))
		if at(d, start.min, start.loc).After(until) {
			d--
		}
		return d, nil
	default:
		d := u.date
		if start.min*60+start.sec > u.min*60+u.sec {
			d--
		}
		return d, nil
	}
}

// sameClock reports whether two stamps read the same wall clock, so that
// their difference is plain wall-clock arithmetic.
func sameClock(a, b stamp) bool {
	if a.form == dateOnly || b.form == dateOnly {
		return false
	}
	if a.form == floating || b.form == floating {
		return a.form == b.form
	}
	return a.loc == b.loc || a.loc.String() == b.loc.String()
}

// onClock returns the wall-clock value of a stamp on loc's clock: as
// written when it is already on that clock (a time in a spring-forward gap
// stays as written), through its instant otherwise.
// Floating stamps carry the business's zone.
func onClock(s stamp, loc *time.Location) wall {
	if s.form == dateOnly || sameZone(s.loc, loc) {
		return s.wall()
	}
	t := s.instant().In(loc)
	return wall{engine.DateOf(t), t.Hour()*60 + t.Minute()}
}

func sameZone(a, b *time.Location) bool { return a == b || a.String() == b.String() }

// offsetsAgree reports whether the wall clocks of a and b differ by the
// same amount at every instant in [from, to] that hits reports an
// occurrence in: then a rule on a's clock keeps its time of day on b's.
// The difference only changes at a change of clocks of either zone, so
// only the stretches between changes where it differs from the first are
// looked into (New York and Chicago differ by an hour except in the hour
// between their changes, when no business session happens).
func offsetsAgree(a, b *time.Location, from, to time.Time, hits func(lo, hi time.Time) bool) bool {
	diff := func(t time.Time) int {
		_, x := t.In(a).Zone()
		_, y := t.In(b).Zone()
		return x - y
	}
	want := diff(from)
	for t := from; t.Before(to); {
		_, e1 := t.In(a).ZoneBounds()
		_, e2 := t.In(b).ZoneBounds()
		next := e1
		if next.IsZero() || !e2.IsZero() && e2.Before(next) {
			next = e2
		}
		switch {
		case next.IsZero() || next.After(to):
			next = to.Add(time.Second)
		case !next.After(t):
			// Past its table Go reads a zone's rule year by year, and a
			// period may end where it starts, at the turn of a UTC year.
			next = t.Add(time.Minute)
		}
		if diff(t) != want && hits(t, next) {
			return false
		}
		t = next
	}
	return true
}
