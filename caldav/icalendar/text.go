package icalendar

import (
	"strings"
	"unicode"

	ics "github.com/arran4/golang-ical"
)

// RFC 5545 §3.1 allows no control character but tab in a content line, and
// §3.2 none at all in a parameter value. golang-ical escapes a line feed in
// a TEXT value as \n but writes a carriage return as it is, and a bare CR
// ends the line for some readers: the rest of a name would become a
// property of its own. New text cannot hold control characters (the
// engine's validation refuses them); these make sure that text stored
// before, or coming from anywhere else, is written safely too.

// SafeCalendar makes every property of cal and of its components fit a
// content line (see SafeProperty).
func SafeCalendar(cal *ics.Calendar) {
	for i := range cal.CalendarProperties {
		SafeProperty(&cal.CalendarProperties[i].BaseProperty)
	}
	for _, c := range cal.Components {
		SafeComponent(c)
	}
}

// SafeComponent is SafeCalendar for one component and its subcomponents.
func SafeComponent(c ics.Component) {
	props := c.UnknownPropertiesIANAProperties()
	for i := range props {
		SafeProperty(&props[i].BaseProperty)
	}
	for _, sub := range c.SubComponents() {
		SafeComponent(sub)
	}
}

// SafeProperty rewrites a property so that it serializes as one content
// line: in a TEXT value a line break (CR LF, a bare CR or a bare LF)
// becomes one LF, which the writer escapes as \n, and every other control
// character but tab a space; in any other value and in parameter values
// every control character becomes a space.
func SafeProperty(p *ics.BaseProperty) {
	text := p.GetValueType() == ics.ValueDataTypeText
	p.Value = safeText(p.Value, text)
	for k, vs := range p.ICalParameters {
		for i, v := range vs {
			if s := safeText(v, false); s != v {
				p.ICalParameters[k][i] = s
			}
		}
	}
}

func safeText(s string, lines bool) string {
	if printableASCII(s) {
		return s // the usual case, and nothing to change
	}
	if strings.IndexFunc(s, func(r rune) bool { return unicode.Is(unicode.Cc, r) && r != '\t' }) < 0 {
		return strings.ToValidUTF8(s, "\uFFFD")
	}
	if lines {
		s = strings.ReplaceAll(s, "\r\n", "\n")
		s = strings.ReplaceAll(s, "\r", "\n")
	}
	return strings.ToValidUTF8(strings.Map(func(r rune) rune {
		switch {
		case r == '\t', lines && r == '\n':
			return r
		case unicode.Is(unicode.Cc, r):
			return ' '
		}
		return r
	}, s), "\uFFFD")
}

// printableASCII reports whether s is all printable ASCII: valid UTF-8
// without control characters.
func printableASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] >= 0x7f {
			return false
		}
	}
	return true
}
