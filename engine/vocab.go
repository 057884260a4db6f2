package engine

import (
	"strconv"
	"strings"
)

// Word is a noun of the business's vocabulary, singular and plural.
type Word struct {
	One  string
	Many string
}

// N writes a count with the noun: "1 class", "3 classes".
func (w Word) N(n int) string {
	if n == 1 {
		return "1 " + w.One
	}
	return strconv.Itoa(n) + " " + w.Many
}

// A writes the noun with its indefinite article: "a class", "an activity".
func (w Word) A() string {
	if w.One != "" && strings.ContainsRune("aeiou", rune(w.One[0])) {
		return "an " + w.One
	}
	return "a " + w.One
}

// Title writes the singular with a capital first letter: "Coach".
func (w Word) Title() string { return capitalize(w.One) }

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// Vocabulary is the set of words a business uses on screens and in messages.
type Vocabulary struct {
	Class      Word
	Staff      Word
	Activity   Word
	Client     Word
	Series     Word
	Room       Word
	PrintTitle string
}

var vocabularies = map[Kind]Vocabulary{
	Gym: {
		Class:      Word{"class", "classes"},
		Staff:      Word{"coach", "coaches"},
		Activity:   Word{"activity", "activities"},
		Client:     Word{"member", "members"},
		Series:     Word{"package", "packages"},
		Room:       Word{"room", "rooms"},
		PrintTitle: "Training Schedule",
	},
	Clinic: {
		Class:      Word{"session", "sessions"},
		Staff:      Word{"practitioner", "practitioners"},
		Activity:   Word{"service", "services"},
		Client:     Word{"patient", "patients"},
		Series:     Word{"programme", "programmes"},
		Room:       Word{"room", "rooms"},
		PrintTitle: "Clinic Timetable",
	},
	Office: {
		Class:      Word{"meeting", "meetings"},
		Staff:      Word{"host", "hosts"},
		Activity:   Word{"meeting type", "meeting types"},
		Client:     Word{"client", "clients"},
		Series:     Word{"series", "series"},
		Room:       Word{"room", "rooms"},
		PrintTitle: "Room Bookings",
	},
}

// Words returns the vocabulary of a kind of business; an unknown kind gets
// the gym's words.
func Words(k Kind) Vocabulary {
	if v, ok := vocabularies[k]; ok {
		return v
	}
	return vocabularies[Gym]
}

// Valid reports whether k is one of the known kinds.
func (k Kind) Valid() bool {
	_, ok := vocabularies[k]
	return ok
}

// Label describes a plan in the business's words:
// "12 sessions a month · 3 months · 180 KD", "Unlimited · 1 month · 60 KD".
func (p Plan) Label(v Vocabulary, currency string) string {
	parts := make([]string, 0, 3)
	if p.PerMonth == 0 {
		parts = append(parts, "Unlimited")
	} else {
		parts = append(parts, v.Class.N(p.PerMonth)+" a month")
	}
	if p.Months > 0 {
		parts = append(parts, Word{"month", "months"}.N(p.Months))
	}
	parts = append(parts, p.Price.Format(currency))
	return strings.Join(parts, " · ")
}

// Expiry returns the last day (inclusive) of a subscription that starts on
// start and runs for months: start + months − 1 day, with the month end
// clamped (2026-01-31 + 1 month → 2026-02-27).
func Expiry(start Date, months int) Date {
	return start.AddMonths(months) - 1
}
