package engine

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Text is what a text field may hold. Every text is valid UTF-8 without
// control characters (Unicode category Cc: U+0000–U+001F, U+007F–U+009F),
// which no screen, calendar line or database needs in a name and which some
// drivers cannot carry (PostgreSQL text holds no NUL); free text, such as a
// note, may also hold tabs and line breaks (U+0009, U+000A). Max is counted
// in characters (code points), not bytes.
type Text struct {
	Max   int
	Lines bool // tabs and line breaks allowed
}

// The limits of the text fields, in characters. They are far above what a
// person types and low enough that no single value can swell a response, a
// calendar line or a row.
var (
	NameText     = Text{Max: 200}               // a business, room, staff member, activity, series, plan or client; token names
	LabelText    = Text{Max: 200}               // labels and types of class times and one-offs
	ColorText    = Text{Max: 50}                // an activity's colour
	CurrencyText = Text{Max: 16}                // a business's currency
	EmailText    = Text{Max: 254}               // RFC 5321's longest address
	PhoneText    = Text{Max: 50}                // a client's phone
	NoteText     = Text{Max: 2000, Lines: true} // notes and closure reasons
	SearchText   = Text{Max: 200}               // what a search looks for
)

// The limits of the numbers people type, so that every one fits a 32-bit
// column with room to spare and none makes a loop or a sum run away.
const (
	MaxUnits    = 10000 // a room's capacity, the units of a rule or a session
	MaxPlaces   = 10000 // the clients a session takes
	MaxPerMonth = 1000  // sessions a month of a plan
	MaxMonths   = 120   // months a plan runs
)

// Problem says what is wrong with s as the text of a field, or "" when
// nothing is. what names the field in the business's words, capitalised
// ("The name of a coach"); the answer is a sentence beginning with it.
func (t Text) Problem(what, s string) string {
	if !utf8.ValidString(s) {
		return what + " is not valid UTF-8 text"
	}
	for i, r := range s {
		if !unicode.Is(unicode.Cc, r) || t.Lines && (r == '\t' || r == '\n') {
			continue
		}
		allowed := "it cannot hold control characters"
		if t.Lines {
			allowed = "only tabs and line breaks (U+000A) may be in it among the control characters"
		}
		return fmt.Sprintf("%s holds the control character %U at character %d; %s", what, r, utf8.RuneCountInString(s[:i])+1, allowed)
	}
	if n := utf8.RuneCountInString(s); n > t.Max {
		return fmt.Sprintf("%s is %d characters long; at most %d fit", what, n, t.Max)
	}
	return ""
}

// Check returns an Invalid *Error about field when s does not fit t.
func (t Text) Check(field, what, s string) error {
	if p := t.Problem(what, s); p != "" {
		return &Error{Code: Invalid, Field: field, Message: p}
	}
	return nil
}

// Clean makes s fit t, for imports that keep what they can: invalid bytes
// become U+FFFD, control characters a space (line breaks and tabs stay in
// free text; CR LF becomes one line break), and the text is cut to Max
// characters. It reports whether anything changed.
func (t Text) Clean(s string) (string, bool) {
	if t.Problem("", s) == "" {
		return s, false
	}
	s = strings.ToValidUTF8(s, "\uFFFD")
	if t.Lines {
		s = strings.ReplaceAll(s, "\r\n", "\n")
	}
	s = strings.Map(func(r rune) rune {
		if unicode.Is(unicode.Cc, r) && !(t.Lines && (r == '\t' || r == '\n')) {
			return ' '
		}
		return r
	}, s)
	if utf8.RuneCountInString(s) > t.Max {
		s = string([]rune(s)[:t.Max])
	}
	return s, true
}
