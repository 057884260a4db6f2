// Package locale holds the words people read, one message catalogue per
// language (catalog/*.json, in go-i18n's format with CLDR's plural
// categories), and writes days, months, times and numbers as each language
// does, from CLDR through kept libraries: plural rules from
// golang.org/x/text/feature/plural (and go-i18n, which picks a message's
// plural form), digits from golang.org/x/text/message, day and month names
// and time forms from github.com/go-playground/locales.
//
// The engine answers structure; the edges (graph, the calendar gateway, the
// timetable page) ask a *Locale for words. It imports nothing of the project
// but the engine's values, so both edges use it without reaching each other.
package locale

import (
	"embed"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	cldr "github.com/go-playground/locales"
	"github.com/go-playground/locales/ar"
	"github.com/go-playground/locales/en"
	"github.com/go-playground/locales/ru"
	"github.com/go-playground/locales/tr"
	"github.com/nicksnyder/go-i18n/v2/i18n"
	"golang.org/x/text/feature/plural"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"github.com/koredyne/schedule/engine"
)

// Languages are the languages the catalogues have, English (the default)
// first.
var Languages = []string{"en", "ar", "tr", "ru"}

//go:embed catalog/*.json
var files embed.FS

// catalogue is one language's messages as written in its file.
type catalogue map[string]map[string]string // id → plural category ("other" alone for plain text) → text

type language_ struct {
	tag      language.Tag
	cldr     cldr.Translator
	messages catalogue
	// firstDay is CLDR's first day of the week (supplementalData.xml,
	// weekData/firstDay) in the region the language is most spoken in by the
	// businesses this is built for: Saturday in Kuwait, Monday in Turkey and
	// Russia, Sunday in the United States.
	firstDay time.Weekday

	catOnce sync.Once
	cats    []string // the cardinal plural categories, in CLDR's order
}

var (
	load    sync.Once
	bundle  *i18n.Bundle
	byName  map[string]*language_
	matcher language.Matcher
	// served are the languages the matcher chooses among, in its order:
	// Languages, then those AddLanguage added.
	served   []string
	loadErr  error
	cldrs    = map[string]cldr.Translator{"en": en.New(), "ar": ar.New(), "tr": tr.New(), "ru": ru.New()}
	firstDay = map[string]time.Weekday{"en": time.Sunday, "ar": time.Saturday, "tr": time.Monday, "ru": time.Monday}
)

// catalogues loads the message files once.
func catalogues() error {
	load.Do(func() {
		bundle = i18n.NewBundle(language.English)
		bundle.RegisterUnmarshalFunc("json", json.Unmarshal)
		byName = map[string]*language_{}
		for _, name := range Languages {
			buf, err := files.ReadFile("catalog/" + name + ".json")
			if err != nil {
				loadErr = err
				return
			}
			if loadErr = addLanguage(name, name, buf); loadErr != nil {
				return
			}
		}
	})
	return loadErr
}

// addLanguage reads a catalogue and serves its language, written as like
// is in CLDR (day and month names, time forms, first day of the week).
func addLanguage(name, like string, buf []byte) error {
	tag, err := language.Parse(name)
	if err != nil {
		return fmt.Errorf("catalogue %s: %w", name, err)
	}
	if _, err := bundle.ParseMessageFileBytes(buf, name+".json"); err != nil {
		return fmt.Errorf("catalogue %s: %w", name, err)
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(buf, &raw); err != nil {
		return fmt.Errorf("catalogue %s: %w", name, err)
	}
	c := catalogue{}
	for id, m := range raw {
		var text string
		if json.Unmarshal(m, &text) == nil {
			c[id] = map[string]string{"other": text}
			continue
		}
		var forms map[string]string
		if err := json.Unmarshal(m, &forms); err != nil {
			return fmt.Errorf("catalogue %s, %s: %w", name, id, err)
		}
		c[id] = forms
	}
	byName[name] = &language_{tag: tag, cldr: cldrs[like], messages: c, firstDay: firstDay[like]}
	served = append(served, name)
	tags := make([]language.Tag, len(served))
	for i, n := range served {
		tags[i] = byName[n].tag
	}
	matcher = language.NewMatcher(tags)
	return nil
}

// AddLanguage serves one more language from a catalogue in the
// catalogues' format, written as like (one of Languages) is in CLDR: a
// pseudo-locale whose every message is marked ("en-XA", where a test finds
// the words nobody translated), or a catalogue being written. A business
// may then be set to it; Languages, what the API lets a business choose,
// stays as it is. Call it before the package is used concurrently (from a
// test's init).
func AddLanguage(name, like string, catalogue []byte) error {
	if _, ok := cldrs[like]; !ok {
		return fmt.Errorf("catalogue %s: %q is not a language the catalogues have", name, like)
	}
	if _, ok := byName[name]; ok {
		return fmt.Errorf("catalogue %s: already served", name)
	}
	cacheMu.Lock()
	clear(byAsked) // a language asked for before may be served now
	cacheMu.Unlock()
	return addLanguage(name, like, catalogue)
}

// English is the English catalogue's file, for a test that writes a
// pseudo-locale from it.
func English() []byte {
	buf, _ := files.ReadFile("catalog/en.json")
	return buf
}

func init() {
	if err := catalogues(); err != nil {
		panic(err) // the catalogues are embedded: a broken one is a broken build
	}
}

// Match returns the catalogue language that serves the language preferences
// best (BCP 47 tags, or an Accept-Language header, in order), and false when
// none of them is served.
func Match(prefs ...string) (string, bool) {
	var tags []language.Tag
	for _, p := range prefs {
		t, _, err := language.ParseAcceptLanguage(p)
		if err == nil {
			tags = append(tags, t...)
		}
	}
	if len(tags) == 0 {
		return "en", false
	}
	_, i, conf := matcher.Match(tags...)
	if conf == language.No {
		return "en", false
	}
	return served[i], true
}

// Locale writes in one language for one business.
type Locale struct {
	// Language is the catalogue's language: "en", "ar", "tr", "ru".
	Language string
	// FirstDay is where a displayed week begins.
	FirstDay time.Weekday
	// Clock is 12 or 24 (hours).
	Clock int
	// Digits is the CLDR numbering system numbers are written in: "latn"
	// or "arab".
	Digits string

	lang    *language_
	loc     *i18n.Localizer
	printer *message.Printer
	static  sync.Map // message id → its text, for texts that fill nothing
	vocab   sync.Map // engine.Kind → its Vocabulary, asked for by every request
}

var (
	cacheMu sync.Mutex
	cache   = map[key]*Locale{}
	byAsked = map[askedKey]*Locale{}
)

type key struct {
	settings  engine.Locale
	lang      string
	weekStart time.Weekday
}

// For is the business's locale (settings), in the language of the request
// when the request asks for one the catalogues have (an Accept-Language
// header; "" asks for none), else in the business's language, else English.
// Never an error: an unknown language falls back.
func For(settings engine.Locale, acceptLanguage string) *Locale {
	return forWeek(settings, acceptLanguage, -1)
}

// ForBusiness is For with the business's week: an English week without a
// first day of its own begins where the business's rotation week does, as
// it always has; other languages begin where CLDR says.
func ForBusiness(b engine.Business, acceptLanguage string) *Locale {
	return forWeek(b.Locale, acceptLanguage, b.WeekStart)
}

func forWeek(settings engine.Locale, acceptLanguage string, weekStart time.Weekday) *Locale {
	// Every answer asks (the week query, each CalDAV request): matching
	// the tags again is most of the cost, so the locale is kept by what
	// was asked too.
	asked := askedKey{settings, acceptLanguage, weekStart}
	cacheMu.Lock()
	l, ok := byAsked[asked]
	cacheMu.Unlock()
	if ok {
		return l
	}
	l = matched(settings, acceptLanguage, weekStart)
	cacheMu.Lock()
	if len(byAsked) > 4096 { // an Accept-Language is the client's to vary: bound what it keeps
		clear(byAsked)
	}
	byAsked[asked] = l
	cacheMu.Unlock()
	return l
}

type askedKey struct {
	settings       engine.Locale
	acceptLanguage string
	weekStart      time.Weekday
}

func matched(settings engine.Locale, acceptLanguage string, weekStart time.Weekday) *Locale {
	name, ok := Match(settings.Language)
	if !ok {
		name = "en"
	}
	if acceptLanguage != "" {
		if asked, ok := Match(acceptLanguage); ok {
			name = asked
		}
	}
	if name != "en" || settings.FirstDay != 0 {
		weekStart = -1
	}
	k := key{settings, name, weekStart}
	cacheMu.Lock()
	defer cacheMu.Unlock()
	if l, ok := cache[k]; ok {
		return l
	}
	l := build(settings, name)
	if weekStart >= 0 {
		l.FirstDay = weekStart
	}
	if len(cache) > 4096 { // settings are few; this only bounds the pathological
		clear(cache)
	}
	cache[k] = l
	return l
}

// Of is the business's locale in its own language.
func Of(settings engine.Locale) *Locale { return For(settings, "") }

func build(settings engine.Locale, name string) *Locale {
	lg := byName[name]
	l := &Locale{Language: name, lang: lg, FirstDay: lg.firstDay}
	if settings.FirstDay > 0 {
		l.FirstDay = time.Weekday(settings.FirstDay - 1)
	}
	l.Clock = defaultClock(lg.cldr)
	if settings.Clock != 0 {
		l.Clock = int(settings.Clock)
	}
	l.Digits = defaultDigits(lg.tag)
	if settings.Digits != "" && name == "ar" { // Latin or Arabic-Indic is a choice in Arabic only
		l.Digits = settings.Digits
	}
	tag, _ := language.Parse(name + "-u-nu-" + l.Digits)
	l.printer = message.NewPrinter(tag)
	l.loc = i18n.NewLocalizer(bundle, name)
	return l
}

// defaultClock reads from CLDR's short time form whether the language
// writes 13:00 on a 24-hour clock.
func defaultClock(t cldr.Translator) int {
	if strings.Contains(t.FmtTimeShort(time.Date(2000, 1, 1, 13, 0, 0, 0, time.UTC)), "13") {
		return 24
	}
	return 12
}

// defaultDigits is the numbering system CLDR gives the language.
func defaultDigits(tag language.Tag) string {
	if message.NewPrinter(tag).Sprint(0) == "0" {
		return "latn"
	}
	return "arab"
}

// RTL reports whether the language is written right to left.
func (l *Locale) RTL() bool { return l.Language == "ar" }

// Dir is the HTML dir of the language: "rtl" or "ltr".
func (l *Locale) Dir() string {
	if l.RTL() {
		return "rtl"
	}
	return "ltr"
}

// Text is the message id in the locale's language, its template filled with
// data. A message the catalogue lacks is written in English (the
// completeness test keeps that from happening).
func (l *Locale) Text(id string, data map[string]any) string {
	if data == nil { // a text that fills nothing is written once
		if s, ok := l.static.Load(id); ok {
			return s.(string)
		}
	}
	s, err := l.loc.Localize(&i18n.LocalizeConfig{MessageID: id, TemplateData: data})
	if err != nil && s == "" {
		return id
	}
	if data == nil && err == nil {
		l.static.Store(id, s)
	}
	return s
}

// Plural is the message id in the form the count takes (CLDR's cardinal
// plural category of n in the locale's language).
func (l *Locale) Plural(id string, n int, data map[string]any) string {
	s, err := l.loc.Localize(&i18n.LocalizeConfig{MessageID: id, TemplateData: data, PluralCount: n})
	if err != nil && s == "" {
		return id
	}
	return s
}

// Has reports whether the locale's catalogue has the message.
func (l *Locale) Has(id string) bool {
	_, ok := l.lang.messages[id]
	return ok
}

// Number writes n in the locale's digits.
func (l *Locale) Number(n int) string { return l.printer.Sprint(n) }

// Digits2 writes n in two digits (05), in the locale's digits.
func (l *Locale) digits2(n int) string { return l.printer.Sprintf("%02d", n) }

// Category is CLDR's cardinal plural category of the integer n in the
// locale's language: "zero", "one", "two", "few", "many" or "other".
func (l *Locale) Category(n int) string {
	if n < 0 {
		n = -n
	}
	return forms[plural.Cardinal.MatchPlural(l.lang.tag, n, 0, 0, 0, 0)]
}

var forms = map[plural.Form]string{
	plural.Zero: "zero", plural.One: "one", plural.Two: "two",
	plural.Few: "few", plural.Many: "many", plural.Other: "other",
}

// Categories are the cardinal plural categories the language has, in CLDR's
// order (zero one two few many other).
func (l *Locale) Categories() []string {
	return slices.Clone(l.lang.categories())
}

// categories are the language's plural categories, found once.
func (lg *language_) categories() []string {
	lg.catOnce.Do(func() { lg.cats = cldrCategories(lg.cldr) })
	return lg.cats
}

func cldrCategories(t cldr.Translator) []string {
	var out []string
	for _, r := range t.PluralsCardinal() {
		out = append(out, strings.ToLower(r.String()))
	}
	order := []string{"zero", "one", "two", "few", "many", "other"}
	slices.SortFunc(out, func(a, b string) int { return slices.Index(order, a) - slices.Index(order, b) })
	return out
}

// Weekday is the day's name ("Saturday", "السبت").
func (l *Locale) Weekday(d time.Weekday) string { return l.lang.cldr.WeekdayWide(d) }

// WeekdayShort is the day's abbreviated name ("Sat", "сб").
func (l *Locale) WeekdayShort(d time.Weekday) string { return l.lang.cldr.WeekdayAbbreviated(d) }

// Month is the month's name in the form it takes in a date ("December",
// "декабря").
func (l *Locale) Month(m time.Month) string { return l.lang.cldr.MonthWide(m) }

// Week is the seven days of a displayed week, from the locale's first day.
func (l *Locale) Week() []time.Weekday {
	out := make([]time.Weekday, 7)
	for i := range out {
		out[i] = (l.FirstDay + time.Weekday(i)) % 7
	}
	return out
}

// Time writes a wall-clock time as the locale does, on its clock and in its
// digits: "9 AM", "9:05 AM", "09:05", "٩:٠٥ ص".
func (l *Locale) Time(t engine.LocalTime) string {
	m := int(t)
	h, min := m/60, m%60
	at := time.Date(2000, 1, 1, h%24, min, 0, 0, time.UTC)
	if l.Language == "en" && l.Clock == 12 {
		return t.Clock12() // the reference format: "9 AM", "9:15 AM"
	}
	if l.Clock == defaultClock(l.lang.cldr) {
		return l.localDigits(l.lang.cldr.FmtTimeShort(at))
	}
	if l.Clock == 24 {
		return l.digits2(h) + ":" + l.digits2(min)
	}
	period := l.Text("time.am", nil)
	if h%24 >= 12 {
		period = l.Text("time.pm", nil)
	}
	h12 := h % 12
	if h12 == 0 {
		h12 = 12
	}
	return l.Number(h12) + ":" + l.digits2(min) + " " + period
}

// Span writes a session's time: "9:00 AM – 10:00 AM".
func (l *Locale) Span(start, end engine.LocalTime) string {
	return l.Time(start) + " – " + l.Time(end)
}

// Date writes a day of the month with its month: "4 December", "4 декабря".
func (l *Locale) Date(d engine.Date) string {
	_, m, day := d.Civil()
	return l.Text("date.dayMonth", map[string]any{"Day": l.Number(day), "Month": l.Month(time.Month(m))})
}

// DayMonth writes a day with its abbreviated month, and the year when it
// is not ref's (ref 0: always): "29 Nov", "29 нояб.", "٥ ديسمبر ٢٠٢٦".
func (l *Locale) DayMonth(d, ref engine.Date) string {
	y, m, day := d.Civil()
	s := l.Text("date.dayMonth", map[string]any{"Day": l.Number(day), "Month": l.lang.cldr.MonthAbbreviated(time.Month(m))})
	if ry, _, _ := ref.Civil(); ref == 0 || y != ry {
		s += " " + l.localDigits(strconv.Itoa(y))
	}
	return s
}

// ShortSpan writes a span as printed timetables do, the half of the day
// once when both ends share it: "6–7 AM", "9:30–10:30 AM", "٦–٧ م",
// "06:00–07:00".
func (l *Locale) ShortSpan(start, end engine.LocalTime) string {
	from, to := l.Time(start), l.Time(end)
	if i, j := strings.LastIndexByte(from, ' '), strings.LastIndexByte(to, ' '); i > 0 && j > 0 && from[i:] == to[j:] {
		from = from[:i]
	}
	return from + "–" + to
}

// localDigits rewrites the ASCII digits of a CLDR form (go-playground's
// forms write Latin digits) in the locale's digits.
func (l *Locale) localDigits(s string) string {
	if l.Digits == "latn" {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if r >= '0' && r <= '9' {
			b.WriteString(l.printer.Sprint(int(r - '0')))
		} else {
			b.WriteRune(r)
		}
	}
	return b.String()
}
