package locale

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/koredyne/schedule/engine"
)

// Word is a noun of the business's vocabulary in the locale's language.
type Word struct {
	// One is the singular ("class", "حصة").
	One string
	// Many is the plural as it stands alone, in a heading ("classes",
	// "dersler").
	Many string
	// Forms is the noun as it follows a count, per CLDR plural category.
	Forms PluralForms
}

// PluralForms is a noun per CLDR cardinal plural category; nil where the
// language has no such category.
type PluralForms struct {
	Zero, One, Two, Few, Many, Other *string
}

// Vocabulary is the words of a kind of business in the locale's language.
type Vocabulary struct {
	Class, Staff, Activity, Client, Series, Room Word
	PrintTitle                                   string
}

var kindNames = map[engine.Kind]string{engine.Gym: "gym", engine.Clinic: "clinic", engine.Office: "office"}

// kindName is the catalogue's name of a kind; an unknown kind has the gym's
// words, as in the engine.
func kindName(k engine.Kind) string {
	if n, ok := kindNames[k]; ok {
		return n
	}
	return "gym"
}

// Words is the vocabulary of a kind of business. Its forms are shared:
// read them, never write through them.
func (l *Locale) Words(k engine.Kind) Vocabulary {
	if v, ok := l.vocab.Load(k); ok {
		return v.(Vocabulary)
	}
	kind := kindName(k)
	v := Vocabulary{
		Class: l.word(kind, "class"), Staff: l.word(kind, "staff"), Activity: l.word(kind, "activity"),
		Client: l.word(kind, "client"), Series: l.word(kind, "series"), Room: l.word(kind, "room"),
		PrintTitle: l.Text("title."+kind, nil),
	}
	l.vocab.Store(k, v)
	return v
}

func (l *Locale) word(kind, key string) Word {
	id := "word." + kind + "." + key
	m := l.lang.messages[id]
	var f PluralForms
	for _, c := range l.lang.categories() {
		s := m[c]
		switch c {
		case "zero":
			f.Zero = &s
		case "one":
			f.One = &s
		case "two":
			f.Two = &s
		case "few":
			f.Few = &s
		case "many":
			f.Many = &s
		case "other":
			f.Other = &s
		}
	}
	one := m["one"]
	if one == "" {
		one = m["other"]
	}
	return Word{One: one, Many: l.Text(id+".plural", nil), Forms: f}
}

// Form is the noun in the form a count of n gives it: "занятий" for 5.
func (l *Locale) Form(n int, w Word) string {
	noun := w.Forms.Other
	switch l.Category(n) {
	case "zero":
		noun = w.Forms.Zero
	case "one":
		noun = w.Forms.One
	case "two":
		noun = w.Forms.Two
	case "few":
		noun = w.Forms.Few
	case "many":
		noun = w.Forms.Many
	}
	if noun == nil {
		noun = w.Forms.Other
	}
	if noun == nil {
		return w.Many
	}
	return *noun
}

// Count writes a count with the noun in the form the count takes: "1 class",
// "5 занятий", "حصتان".
func (l *Locale) Count(n int, w Word) string {
	return l.Plural("count", n, map[string]any{"N": l.Number(n), "Noun": l.Form(n, w)})
}

// StaffLine is the line of a calendar event's description that names its
// staff, w being the kind's word for them: "Coach: Omar", "Coaches: Omar,
// Sara", "المدربون: عمر، سارة". The calendar gateway's events and the
// exported calendar file (calendarExport, koredyne export ics) write it
// alike.
func (l *Locale) StaffLine(w Word, names []string) string {
	head := l.Capitalize(w.One)
	if len(names) > 1 {
		head = l.Capitalize(w.Many)
	}
	return head + ": " + strings.Join(names, l.Text("list.comma", nil))
}

// EventLanguage is the LANGUAGE parameter (RFC 5545 §3.2.10) of the text a
// calendar event's description is written in: none for English, which
// events were always written in without one.
func (l *Locale) EventLanguage() string {
	if l.Language == "en" {
		return ""
	}
	return l.Language
}

// Capitalize writes a word's first letter as a capital, as the language
// does ("coach": "Coach"; Turkish "izin": "İzin"); scripts without
// capitals are as they are.
func (l *Locale) Capitalize(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	if n == 0 {
		return s
	}
	up := unicode.ToUpper(r)
	if l.Language == "tr" {
		up = unicode.TurkishCase.ToUpper(r)
	}
	if up == r { // Arabic has no capitals: nothing to write anew
		return s
	}
	return string(up) + s[n:]
}
