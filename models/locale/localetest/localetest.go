// Package localetest writes a pseudo-locale for tests: the English
// catalogue with every message accented and bracketed ("Session" becomes
// "[Ŝéşşîöñ]"), served as the language en-XA. A business set to it shows
// every word it takes from the catalogues marked; an English word left
// where people read was written by the code, not the catalogue — the
// words of a new message someone forgot to give an entry. Names (the
// business's data) and CLDR's forms (day and month names, times) pass as
// they are.
package localetest

import (
	"encoding/json"
	"regexp"
	"strings"
	"sync"
	"unicode"

	"github.com/koredyne/schedule/models/locale"
)

// Name is the pseudo-locale's language: en-XA, the tag CLDR reserves for
// accented pseudo-English.
const Name = "en-XA"

var once sync.Once

// Register serves the pseudo-locale, once; call it from a test's init,
// before the catalogues are used concurrently.
func Register() {
	once.Do(func() {
		if err := locale.AddLanguage(Name, "en", Catalogue()); err != nil {
			panic(err)
		}
	})
}

// action is a template action of a message ({{.Name}}), which stays as it
// is.
var action = regexp.MustCompile(`\{\{[^}]*\}\}`)

// Catalogue is the English catalogue with every message that says a word
// accented and bracketed; messages of template actions and punctuation
// alone stay as they are.
func Catalogue() []byte {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(locale.English(), &raw); err != nil {
		panic(err)
	}
	out := map[string]any{}
	for id, m := range raw {
		var text string
		if json.Unmarshal(m, &text) == nil {
			out[id] = Accent(text)
			continue
		}
		var forms map[string]string
		if err := json.Unmarshal(m, &forms); err != nil {
			panic(err)
		}
		for k, v := range forms {
			forms[k] = Accent(v)
		}
		out[id] = forms
	}
	buf, err := json.Marshal(out)
	if err != nil {
		panic(err)
	}
	return buf
}

var accents = map[rune]rune{}

func init() {
	const plain, marked = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz",
		"ÅƁÇÐÉƑĜĤÎĴĶĻṀÑÖÞǪŔŜŢÛṼŴẊÝŽáƀçðéƒĝĥîĵķļṁñöþǫŕşţûṽŵẋýž"
	m := []rune(marked)
	for i, r := range plain {
		accents[r] = m[i]
	}
}

// Accent marks a message: its letters accented and the whole bracketed,
// its template actions as they are; one without a letter stays as it is.
func Accent(s string) string {
	if !strings.ContainsFunc(action.ReplaceAllString(s, ""), unicode.IsLetter) {
		return s
	}
	var b strings.Builder
	b.WriteString("[")
	last := 0
	for _, at := range action.FindAllStringIndex(s, -1) {
		b.WriteString(accent(s[last:at[0]]))
		b.WriteString(s[at[0]:at[1]])
		last = at[1]
	}
	b.WriteString(accent(s[last:]))
	b.WriteString("]")
	return b.String()
}

func accent(s string) string {
	return strings.Map(func(r rune) rune {
		if a, ok := accents[r]; ok {
			return a
		}
		return r
	}, s)
}

// words are the words of plain Latin letters in a text, lowercased.
var wordRe = regexp.MustCompile(`[A-Za-z]+`)

// EnglishWords are the words of three letters or more the English
// catalogue's messages say (not their template actions), lowercased.
func EnglishWords() map[string]bool {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(locale.English(), &raw); err != nil {
		panic(err)
	}
	out := map[string]bool{}
	add := func(text string) {
		for _, w := range wordRe.FindAllString(action.ReplaceAllString(text, " "), -1) {
			if len(w) >= 3 {
				out[strings.ToLower(w)] = true
			}
		}
	}
	for _, m := range raw {
		var text string
		if json.Unmarshal(m, &text) == nil {
			add(text)
			continue
		}
		var forms map[string]string
		json.Unmarshal(m, &forms)
		for _, v := range forms {
			add(v)
		}
	}
	return out
}

// Leftover are the English catalogue's words a text people read still
// says, besides those of data (the names it shows, which are the
// business's own), in the order they occur.
func Leftover(text, data string) []string {
	english := EnglishWords()
	names := map[string]bool{}
	for _, w := range wordRe.FindAllString(data, -1) {
		names[strings.ToLower(w)] = true
	}
	var out []string
	for _, w := range wordRe.FindAllString(text, -1) {
		if lw := strings.ToLower(w); english[lw] && !names[lw] {
			out = append(out, w)
		}
	}
	return out
}
