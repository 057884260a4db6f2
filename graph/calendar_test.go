package graph_test

import (
	"strings"
	"testing"

	"github.com/koredyne/schedule/engine"
)

// TestCalendarRoundTrip exports each demo with calendarExport and reads it
// into an emptied business of the same kind with importCalendar: the same
// sessions on every date of a year. Reading the file into the business it
// came from books every room twice and is refused whole.
func TestCalendarRoundTrip(t *testing.T) {
	eachDatabase(t, func(t *testing.T, a *api) {
		for _, kind := range []engine.Kind{engine.Gym, engine.Clinic, engine.Office} {
			t.Run(string(kind), func(t *testing.T) {
				a := a.with(t)
				slug := strings.ToLower(string(kind))
				from, to := "2026-11-01", "2027-11-01"
				src := a.business(slug+"-from", kind)
				ics := path(a.ok(src, `{ calendarExport }`, nil), "calendarExport").(string)
				if !strings.HasPrefix(ics, "BEGIN:VCALENDAR\r\n") || !strings.Contains(ics, "RRULE:FREQ=WEEKLY") {
					t.Fatalf("calendarExport is not a calendar of repeating events:\n%.400s", ics)
				}

				dst := a.business(slug+"-to", kind)
				a.ok(dst, `mutation { clearData { revision } }`, nil)
				data := a.ok(dst, `mutation($ics: String!) { importCalendar(ics: $ics) {
					dryRun revision clashes { message } events series oneOffs dayChanges problems { line reason } } }`, map[string]any{"ics": ics})
				imp := path(data, "importCalendar")
				if p := path(imp, "problems").([]any); len(p) > 0 {
					t.Errorf("problems reading our own export: %v", p)
				}
				if number(path(imp, "events")) == 0 || number(path(imp, "series")) == 0 {
					t.Errorf("imported nothing: %v", imp)
				}
				if d := diffDays(a.timetable(src, from, to), a.timetable(dst, from, to)); len(d) > 0 {
					t.Errorf("the imported timetable differs on %d dates; first %s", len(d), d[0])
				}

				before := a.dump(src)
				e := a.fails(src, "CLASH", `mutation($ics: String!) { importCalendar(ics: $ics) { events } }`, map[string]any{"ics": ics})
				plainWords(t, e.Message)
				if a.dump(src) != before {
					t.Error("a refused import changed the business")
				}
			})
		}
	})
}

// TestCalendarImportProblems: a rule the timetable cannot hold is reported
// with its line; with expandUntil it comes in as one-offs up to that date.
func TestCalendarImportProblems(t *testing.T) {
	eachDatabase(t, func(t *testing.T, a *api) {
		tok := a.business("problems", engine.Office)
		ics := "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\n" +
			"BEGIN:VEVENT\r\nUID:board@example.com\r\nDTSTAMP:20260101T000000Z\r\nDTSTART:20270105T180000\r\n" +
			"DTEND:20270105T190000\r\nRRULE:FREQ=MONTHLY;BYDAY=1TU\r\nSUMMARY:Board meeting\r\nLOCATION:Roof Terrace\r\n" +
			"ORGANIZER;CN=Chair:mailto:chair@example.com\r\nEND:VEVENT\r\n" + strings.TrimPrefix(roofTalks, "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\n")
		const q = `mutation($ics: String!, $until: Date) { importCalendar(ics: $ics, expandUntil: $until) {
			events series oneOffs problems { line uid summary reason } } }`
		imp := path(a.ok(tok, q, map[string]any{"ics": ics}), "importCalendar")
		problems := path(imp, "problems").([]any)
		if len(problems) != 1 || number(path(problems[0], "line")) != 4 || path(problems[0], "uid") != "board@example.com" ||
			!strings.Contains(strings.ToLower(path(problems[0], "reason").(string)), "month") {
			t.Fatalf("problems: %v", problems)
		}
		plainWords(t, path(problems[0], "reason").(string))
		if number(path(imp, "series")) != 1 || number(path(imp, "oneOffs")) != 0 {
			t.Errorf("without expandUntil: %v", imp)
		}

		tok = a.business("expanded", engine.Office)
		imp = path(a.ok(tok, q, map[string]any{"ics": ics, "until": "2027-06-30"}), "importCalendar")
		if number(path(imp, "oneOffs")) != 6 || number(path(imp, "series")) != 1 {
			t.Errorf("with expandUntil: %v", imp)
		}
	})
}

// TestCalendarExportSpeaksTheLanguage: calendarExport writes its events'
// descriptions in the business's language with LANGUAGE, as the CalDAV
// feeds do (English as it always was, without one), and the file still
// reads back into the same timetable.
func TestCalendarExportSpeaksTheLanguage(t *testing.T) {
	eachDatabase(t, func(t *testing.T, a *api) {
		src := a.business("export-lang", engine.Gym)
		descriptions := func() []string {
			ics := path(a.ok(src, `{ calendarExport }`, nil), "calendarExport").(string)
			var out []string
			for _, line := range strings.Split(strings.ReplaceAll(ics, "\r\n ", ""), "\r\n") {
				if strings.HasPrefix(line, "DESCRIPTION") {
					out = append(out, line)
				}
			}
			if len(out) == 0 {
				t.Fatalf("no DESCRIPTION in\n%.600s", ics)
			}
			return out
		}
		for _, d := range descriptions() {
			if !strings.HasPrefix(d, "DESCRIPTION:Coach: ") && !strings.HasPrefix(d, "DESCRIPTION:Coaches: ") {
				t.Fatalf("English: %q", d)
			}
		}
		for lang, heads := range map[string][]string{"ar": {"مدرب: ", "مدربون: "}, "ru": {"Тренер: ", "Тренеры: "}} {
			a.ok(src, `mutation($l: String!) { updateBusiness(input: {language: $l}) { revision } }`, map[string]any{"l": lang})
			for _, d := range descriptions() {
				text, ok := strings.CutPrefix(d, "DESCRIPTION;LANGUAGE="+lang+":")
				if !ok || !strings.HasPrefix(text, heads[0]) && !strings.HasPrefix(text, heads[1]) {
					t.Errorf("%s: %q", lang, d)
					break
				}
			}
		}
		ics := path(a.ok(src, `{ calendarExport }`, nil), "calendarExport").(string)
		dst := a.business("export-lang-to", engine.Gym)
		a.ok(dst, `mutation { clearData { revision } }`, nil)
		imp := path(a.ok(dst, `mutation($ics: String!) { importCalendar(ics: $ics) { events problems { line reason } } }`, map[string]any{"ics": ics}), "importCalendar")
		if p := path(imp, "problems").([]any); len(p) > 0 {
			t.Errorf("problems reading a Russian export: %v", p)
		}
		if d := diffDays(a.timetable(src, "2026-11-01", "2027-02-01"), a.timetable(dst, "2026-11-01", "2027-02-01")); len(d) > 0 {
			t.Errorf("the imported timetable differs on %d dates; first %s", len(d), d[0])
		}
	})
}
