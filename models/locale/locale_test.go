package locale

import (
	"encoding/json"
	"maps"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nicksnyder/go-i18n/v2/i18n"
	"golang.org/x/text/language"

	"github.com/koredyne/schedule/engine"
)

// cldrRules are CLDR's cardinal plural rules for integers (v = 0, so n = i),
// as plurals.xml writes them (CLDR's supplemental/plurals.xml, the copy
// go-i18n v2.7.0 generates its rules from):
//
//	en: one  i = 1 and v = 0
//	tr: one  n = 1
//	ru: one  v = 0 and i % 10 = 1 and i % 100 != 11
//	    few  v = 0 and i % 10 = 2..4 and i % 100 != 12..14
//	    many v = 0 and i % 10 = 0 or v = 0 and i % 10 = 5..9 or v = 0 and i % 100 = 11..14
//	ar: zero n = 0; one n = 1; two n = 2; few n % 100 = 3..10; many n % 100 = 11..99
var cldrRules = map[string]func(n int) string{
	"en": func(n int) string {
		if n == 1 {
			return "one"
		}
		return "other"
	},
	"tr": func(n int) string {
		if n == 1 {
			return "one"
		}
		return "other"
	},
	"ru": func(n int) string {
		switch {
		case n%10 == 1 && n%100 != 11:
			return "one"
		case n%10 >= 2 && n%10 <= 4 && (n%100 < 12 || n%100 > 14):
			return "few"
		case n%10 == 0 || n%10 >= 5 && n%10 <= 9 || n%100 >= 11 && n%100 <= 14:
			return "many"
		}
		return "other"
	},
	"ar": func(n int) string {
		switch {
		case n == 0:
			return "zero"
		case n == 1:
			return "one"
		case n == 2:
			return "two"
		case n%100 >= 3 && n%100 <= 10:
			return "few"
		case n%100 >= 11 && n%100 <= 99:
			return "many"
		}
		return "other"
	},
}

// TestPluralsFollowCLDR checks, for counts 0–110 in every language, that the
// three places a plural category comes from agree with CLDR's rule text:
// golang.org/x/text's tables (Category), go-playground/locales' generated
// rules, and go-i18n's, which picks a catalogue message's form.
func TestPluralsFollowCLDR(t *testing.T) {
	probe := i18n.NewBundle(language.English)
	for _, name := range Languages {
		probe.MustAddMessages(language.MustParse(name), &i18n.Message{ID: "probe",
			Zero: "zero", One: "one", Two: "two", Few: "few", Many: "many", Other: "other"})
	}
	for _, name := range Languages {
		l := Of(engine.Locale{Language: name})
		rule := cldrRules[name]
		loc := i18n.NewLocalizer(probe, name)
		seen := map[string]bool{}
		for n := 0; n <= 110; n++ {
			want := rule(n)
			seen[want] = true
			if got := l.Category(n); got != want {
				t.Errorf("%s %d: x/text says %s, want %s", name, n, got, want)
			}
			if got := strings.ToLower(cldrs[name].CardinalPluralRule(float64(n), 0).String()); got != want {
				t.Errorf("%s %d: go-playground/locales says %s, want %s", name, n, got, want)
			}
			got, err := loc.Localize(&i18n.LocalizeConfig{MessageID: "probe", PluralCount: n})
			if err != nil || got != want {
				t.Errorf("%s %d: go-i18n says %s (%v), want %s", name, n, got, err, want)
			}
		}
		// Every integer category the language has turns up among 0–110
		// (Russian's "other" is for fractions only).
		for _, c := range l.Categories() {
			if !seen[c] && !(name == "ru" && c == "other") {
				t.Errorf("%s: category %s never chosen for 0–110", name, c)
			}
		}
	}
	if got := Of(engine.Locale{Language: "ar"}).Categories(); !slices.Equal(got, []string{"zero", "one", "two", "few", "many", "other"}) {
		t.Errorf("Arabic has %v", got)
	}
	if got := Of(engine.Locale{Language: "ru"}).Categories(); !slices.Equal(got, []string{"one", "few", "many", "other"}) {
		t.Errorf("Russian has %v", got)
	}
}

var placeholder = regexp.MustCompile(`{{\s*\.(\w+)\s*}}`)

func placeholders(s string) []string {
	var out []string
	for _, m := range placeholder.FindAllStringSubmatch(s, -1) {
		out = append(out, m[1])
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// TestCataloguesComplete walks the catalogues: every message of the English
// one is in every other, with every plural category that language has
// (and none it lacks), and the same placeholders; no catalogue has a message
// English does not; every text is non-empty and fills in.
func TestCataloguesComplete(t *testing.T) {
	english := byName["en"].messages
	for _, name := range Languages {
		lg := byName[name]
		l := Of(engine.Locale{Language: name})
		cats := l.Categories()
		for id, forms := range lg.messages {
			if strings.HasPrefix(id, errorPrefix) {
				continue // the code's own formats: TestEveryErrorIsInEveryCatalogue
			}
			if _, ok := english[id]; !ok {
				t.Errorf("%s has %q, which English does not", name, id)
			}
			if len(forms) > 1 || forms["other"] == "" {
				got := slices.Sorted(maps.Keys(forms))
				want := slices.Clone(cats)
				slices.Sort(want)
				if !slices.Equal(got, want) {
					t.Errorf("%s %q has the plural forms %v, want %v", name, id, got, want)
				}
			}
			for c, text := range forms {
				if strings.TrimSpace(text) == "" {
					t.Errorf("%s %q %s is empty", name, id, c)
				}
			}
		}
		for id, forms := range english {
			have, ok := lg.messages[id]
			if !ok {
				t.Errorf("%s lacks %q", name, id)
				continue
			}
			// A translation fills what English fills, or less (where its
			// grammar cannot take a word as it is, it says it otherwise).
			p, q := placeholders(strings.Join(slices.Collect(maps.Values(have)), " ")), placeholders(strings.Join(slices.Collect(maps.Values(forms)), " "))
			for _, x := range p {
				if !slices.Contains(q, x) {
					t.Errorf("%s %q fills %s, which English does not give", name, id, x)
				}
			}
		}
		if strings.HasPrefix(l.Text("no.such.message", nil), "no.such") == false {
			t.Errorf("%s: a missing message is not its id", name)
		}
	}
}

// TestEnglishWordsAreTheEngines keeps the English catalogue's vocabulary and
// the engine's, which writes today's reference-format clash messages, one.
func TestEnglishWordsAreTheEngines(t *testing.T) {
	l := Of(engine.Locale{})
	for _, k := range []engine.Kind{engine.Gym, engine.Clinic, engine.Office, "unknown"} {
		e, w := engine.Words(k), l.Words(k)
		pairs := []struct {
			e engine.Word
			w Word
		}{{e.Class, w.Class}, {e.Staff, w.Staff}, {e.Activity, w.Activity}, {e.Client, w.Client}, {e.Series, w.Series}, {e.Room, w.Room}}
		for _, p := range pairs {
			if p.w.One != p.e.One || p.w.Many != p.e.Many || *p.w.Forms.One != p.e.One || *p.w.Forms.Other != p.e.Many {
				t.Errorf("%s: catalogue %+v, engine %+v", k, p.w, p.e)
			}
			if p.w.Forms.Zero != nil || p.w.Forms.Two != nil || p.w.Forms.Few != nil || p.w.Forms.Many != nil {
				t.Errorf("%s: English has a form CLDR does not give it: %+v", k, p.w.Forms)
			}
			for n := range 12 {
				if got, want := l.Count(n, p.w), p.e.N(n); got != want {
					t.Errorf("%s: %q, engine %q", k, got, want)
				}
			}
		}
		if w.PrintTitle != e.PrintTitle {
			t.Errorf("%s: title %q, engine %q", k, w.PrintTitle, e.PrintTitle)
		}
	}
}

func TestCount(t *testing.T) {
	ru := Of(engine.Locale{Language: "ru"})
	ar := Of(engine.Locale{Language: "ar"})
	arLatn := Of(engine.Locale{Language: "ar", Digits: "latn"})
	tr := Of(engine.Locale{Language: "tr"})
	cases := []struct {
		name string
		got  string
		want string
	}{
		{"ru 1", ru.Count(1, ru.Words(engine.Gym).Class), "1 занятие"},
		{"ru 2", ru.Count(2, ru.Words(engine.Gym).Class), "2 занятия"},
		{"ru 5", ru.Count(5, ru.Words(engine.Gym).Class), "5 занятий"},
		{"ru 11", ru.Count(11, ru.Words(engine.Gym).Class), "11 занятий"},
		{"ru 21", ru.Count(21, ru.Words(engine.Gym).Class), "21 занятие"},
		{"ru 104", ru.Count(104, ru.Words(engine.Gym).Class), "104 занятия"},
		{"ar 1", ar.Count(1, ar.Words(engine.Gym).Class), "حصة"},
		{"ar 2", ar.Count(2, ar.Words(engine.Gym).Class), "حصتان"},
		{"ar 3", ar.Count(3, ar.Words(engine.Gym).Class), "٣ حصص"},
		{"ar 11 coaches", ar.Count(11, ar.Words(engine.Gym).Staff), "١١ مدربًا"},
		{"ar 100", ar.Count(100, ar.Words(engine.Gym).Class), "١٠٠ حصة"},
		{"ar latn 5", arLatn.Count(5, arLatn.Words(engine.Gym).Class), "5 حصص"},
		{"tr 5", tr.Count(5, tr.Words(engine.Gym).Class), "5 ders"},
	}
	for _, c := range cases {
		if c.got != c.want {
			t.Errorf("%s: got %q, want %q", c.name, c.got, c.want)
		}
	}
}

func TestFacts(t *testing.T) {
	at := engine.LocalTime(13*60 + 5)
	morning := engine.LocalTime(9*60 + 5)
	cases := []struct {
		name     string
		settings engine.Locale
		firstDay time.Weekday
		clock    int
		digits   string
		times    string
	}{
		{"en", engine.Locale{}, time.Sunday, 12, "latn", "9:05 AM – 1:05 PM"},
		{"en 24", engine.Locale{Clock: 24}, time.Sunday, 24, "latn", "09:05 – 13:05"},
		{"ar", engine.Locale{Language: "ar"}, time.Saturday, 12, "arab", "٩:٠٥ ص – ١:٠٥ م"},
		{"ar latin", engine.Locale{Language: "ar", Digits: "latn"}, time.Saturday, 12, "latn", "9:05 ص – 1:05 م"},
		{"ar sunday 24", engine.Locale{Language: "ar", FirstDay: 1, Clock: 24}, time.Sunday, 24, "arab", "٠٩:٠٥ – ١٣:٠٥"},
		{"tr", engine.Locale{Language: "tr"}, time.Monday, 24, "latn", "09:05 – 13:05"},
		{"tr 12", engine.Locale{Language: "tr", Clock: 12}, time.Monday, 12, "latn", "9:05 ÖÖ – 1:05 ÖS"},
		{"ru", engine.Locale{Language: "ru", Digits: "arab"}, time.Monday, 24, "latn", "09:05 – 13:05"},
		{"unknown language", engine.Locale{Language: "xx"}, time.Sunday, 12, "latn", "9:05 AM – 1:05 PM"},
	}
	for _, c := range cases {
		l := Of(c.settings)
		if l.FirstDay != c.firstDay || l.Clock != c.clock || l.Digits != c.digits {
			t.Errorf("%s: got %s %d %s, want %s %d %s", c.name, l.FirstDay, l.Clock, l.Digits, c.firstDay, c.clock, c.digits)
		}
		if got := l.Span(morning, at); got != c.times {
			t.Errorf("%s: got %q, want %q", c.name, got, c.times)
		}
	}
	ar := Of(engine.Locale{Language: "ar"})
	if got := ar.Week(); got[0] != time.Saturday || got[6] != time.Friday {
		t.Errorf("Arabic week %v", got)
	}
	if got := ar.Weekday(time.Saturday); got != "السبت" {
		t.Errorf("Arabic Saturday %q", got)
	}
	if got := Of(engine.Locale{Language: "ru"}).Date(engine.MustDate(2026, 12, 4)); got != "4 декабря" {
		t.Errorf("Russian date %q", got)
	}
	if got := ar.Date(engine.MustDate(2026, 12, 4)); got != "٤ ديسمبر" {
		t.Errorf("Arabic date %q", got)
	}
	if !ar.RTL() || ar.Dir() != "rtl" || Of(engine.Locale{}).Dir() != "ltr" {
		t.Error("direction")
	}
}

// TestFallback: an unknown language or an Accept-Language the catalogues do
// not have falls back to the business's language, then English; never an
// error.
func TestFallback(t *testing.T) {
	cases := []struct {
		business, accept, want string
	}{
		{"ar", "", "ar"},
		{"ar", "fr-CH, fr;q=0.9", "ar"},
		{"ar", "fr-CH, fr;q=0.9, ru;q=0.5", "ru"},
		{"ar", "tr-TR", "tr"},
		{"ru", "en-GB,en;q=0.8", "en"},
		{"xx", "", "en"},
		{"xx", "not a header;;;", "en"},
		{"", "ar-KW", "ar"},
		{"tr", "*", "tr"},
	}
	for _, c := range cases {
		if got := For(engine.Locale{Language: c.business}, c.accept).Language; got != c.want {
			t.Errorf("business %q, Accept-Language %q: got %s, want %s", c.business, c.accept, got, c.want)
		}
	}
}

// The catalogue files are the go-i18n format this package reads: each
// message a text or an object of plural forms.
func TestCatalogueFiles(t *testing.T) {
	for _, name := range Languages {
		buf, err := files.ReadFile("catalog/" + name + ".json")
		if err != nil {
			t.Fatal(err)
		}
		var raw map[string]any
		if err := json.Unmarshal(buf, &raw); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for id, v := range raw {
			if m, ok := v.(map[string]any); ok {
				for k := range m {
					if !slices.Contains([]string{"zero", "one", "two", "few", "many", "other"}, k) {
						t.Errorf("%s %q: %q is no CLDR plural category", name, id, k)
					}
				}
			}
		}
	}
}

// TestCapitalize: a word's first letter as the language writes it.
func TestCapitalize(t *testing.T) {
	for _, c := range []struct{ lang, word, want string }{
		{"en", "coach", "Coach"}, {"tr", "izin", "İzin"}, {"tr", "antrenör", "Antrenör"},
		{"ru", "тренер", "Тренер"}, {"ar", "مدرب", "مدرب"}, {"en", "", ""},
	} {
		if got := Of(engine.Locale{Language: c.lang}).Capitalize(c.word); got != c.want {
			t.Errorf("%s %q: got %q, want %q", c.lang, c.word, got, c.want)
		}
	}
}
