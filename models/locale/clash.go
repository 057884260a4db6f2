package locale

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/koredyne/schedule/engine"
)

// Clash writes a clash in the locale's language: the engine's own English
// message (the reference format, byte for byte) for English, and its facts
// in the catalogue's words otherwise.
func (l *Locale) Clash(c *engine.Clash, kind engine.Kind, today engine.Date) string {
	if l.Language == "en" || len(c.Facts.Items) == 0 {
		return c.Message
	}
	f := &c.Facts
	words := l.Words(kind)
	var head string
	switch f.Kind {
	case engine.StaffClash:
		head = l.Text("clash.staff", map[string]any{"Staff": title(words.Staff.One), "Name": f.Staff})
	default:
		room := title(words.Room.One) + " " + f.Room
		switch {
		case f.Double:
			head = l.Text("clash.roomDouble", map[string]any{"Room": room})
		case f.Units > 0:
			head = l.Text("clash.roomOver", map[string]any{"Room": room, "Need": l.Number(f.Need), "Units": l.Number(f.Units)})
		default:
			head = l.Text("clash.roomOverVarying", map[string]any{"Room": room})
		}
	}
	comma := l.Text("list.comma", nil)
	items := make([]string, len(f.Items))
	for i, it := range f.Items {
		if it.Booking {
			units := l.Text("clash.wholeRoom", nil)
			if it.Units > 0 {
				units = l.Count(it.Units, l.unit())
			}
			items[i] = l.Text("clash.booking", map[string]any{"Details": strings.Join([]string{it.Room, l.Span(it.Start, it.End), units}, comma)})
			continue
		}
		details := []string{it.Room, l.Span(it.Start, it.End)}
		for _, sw := range it.Series {
			d := sw.Name
			if sw.Week > 0 {
				d = l.Text("clash.week", map[string]any{"Series": sw.Name, "Week": l.Number(sw.Week)})
			}
			details = append(details, d)
		}
		if it.OneOff {
			details = append(details, l.Text("clash.oneOff", nil))
		}
		if it.MovedFrom != 0 {
			details = append(details, l.Text("clash.movedFrom", map[string]any{"Date": l.ShortDate(it.MovedFrom, today)}))
		}
		items[i] = it.Activity + " (" + strings.Join(details, comma) + ")"
	}
	id := "clash.repeats"
	if f.Once {
		id = "clash.once"
	}
	return l.Text(id, map[string]any{"Head": head, "Items": l.JoinAnd(items), "Date": l.ShortDate(f.First, today)})
}

// unit is the word for a room's unit (a lane, a mat, a desk).
func (l *Locale) unit() Word { return l.word("any", "unit") }

// JoinAnd joins names as the language lists them: "A, B & C", "A، B و C".
func (l *Locale) JoinAnd(names []string) string {
	switch len(names) {
	case 0:
		return ""
	case 1:
		return names[0]
	}
	return strings.Join(names[:len(names)-1], l.Text("list.comma", nil)) + l.Text("list.and", nil) + names[len(names)-1]
}

// ShortDate writes a date with its month, and its year when it is not
// today's: "4 декабря", "٤ ديسمبر ٢٠٢٧".
func (l *Locale) ShortDate(d, today engine.Date) string {
	y, _, _ := d.Civil()
	ty, _, _ := today.Civil()
	s := l.Date(d)
	if today == 0 || y != ty {
		s += " " + l.localDigits(strconv.Itoa(y))
	}
	return s
}

// title writes a word with a capital first letter, where the script has
// capitals.
func title(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	if n == 0 {
		return s
	}
	return string(unicode.ToUpper(r)) + s[n:]
}
