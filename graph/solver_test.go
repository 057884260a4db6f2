package graph_test

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"unicode"

	"github.com/koredyne/schedule/engine"
	"github.com/koredyne/schedule/models/locale"
)

const propose = `mutation($in: ProposeTimetableInput!) { proposeTimetable(input: $in) {
	id placed stopped score { total unplaced parts { name value } }
	unplaced { line missing reason constraints { kind staff { name } room { name } } }
	series { id name cycleWeeks anchorDate entries { week classTime { weekday start end room { id } } } } } }`

// TestProposeTimetable proposes a two-week rotation for the gym demo,
// through the real server: every session placed, the dry run's series
// answered, the same input and seed answering the same proposal, applied
// in one guarded write (a dry run first), refused with CLASH once the
// timetable has changed underneath so that it clashes, and NOT_FOUND once
// applied.
func TestProposeTimetable(t *testing.T) {
	eachDatabase(t, func(t *testing.T, a *api) {
		tok := a.business("solve", engine.Gym)
		activity := idOf(a, tok, "activities", "name", "Mobility")
		in := map[string]any{"demand": []any{map[string]any{
			"activityId": activity, "sessionsPerWeek": 3, "minutes": 60, "daysApart": 2, "sameCoach": true,
			"windows": []any{map[string]any{"weekdays": []any{"MONDAY", "TUESDAY", "WEDNESDAY", "THURSDAY", "FRIDAY"}, "start": "17:00", "end": "21:00"}},
		}}, "cycleWeeks": 2, "timeLimit": 1, "seed": 7, "earliest": "06:00", "latest": "22:00"}
		first := path(a.ok(tok, propose, map[string]any{"in": in}), "proposeTimetable")
		if path(first, "placed") != float64(6) || len(rows(first, "unplaced")) != 0 {
			t.Fatalf("placed %v, unplaced %v; want all 6", path(first, "placed"), rows(first, "unplaced"))
		}
		series := rows(first, "series")
		if len(series) != 1 || len(rows(series[0], "entries")) != 6 || path(series[0], "cycleWeeks") != float64(2) {
			t.Fatalf("series %v: want one of two weeks with 6 entries", series)
		}
		if parts := rows(path(first, "score"), "parts"); len(parts) != 4 {
			t.Errorf("score parts %v: want window, daysApart, sameRoom, sameCoach", parts)
		}
		again := path(a.ok(tok, propose, map[string]any{"in": in}), "proposeTimetable")
		if fmt.Sprint(path(again, "score"), rows(rows(again, "series")[0], "entries")) != fmt.Sprint(path(first, "score"), rows(series[0], "entries")) {
			t.Errorf("the same input and seed proposed\n%v\nthen\n%v", first, again)
		}

		apply := `mutation($id: ID!, $dry: Boolean) { applyProposal(id: $id, dryRun: $dry) { dryRun revision clashes { message } series { id name entries { id } } } }`
		dry := path(a.ok(tok, apply, map[string]any{"id": path(first, "id"), "dry": true}), "applyProposal")
		if path(dry, "dryRun") != true || len(rows(dry, "clashes")) != 0 || len(rows(dry, "series")) != 1 {
			t.Fatalf("dry run: %v", dry)
		}
		done := path(a.ok(tok, apply, map[string]any{"id": path(first, "id")}), "applyProposal")
		if path(done, "dryRun") != false || len(rows(rows(done, "series")[0], "entries")) != 6 {
			t.Fatalf("applied: %v", done)
		}
		id := path(rows(done, "series")[0], "id")
		got := a.ok(tok, `query($id: ID!) { series(id: $id) { name cycleWeeks } }`, map[string]any{"id": id})
		if path(got, "series", "name") != "Mobility" {
			t.Errorf("the applied series reads %v", got)
		}
		a.fails(tok, "NOT_FOUND", apply, map[string]any{"id": path(first, "id")})
		// The second proposal was made before the first was written: the
		// same sessions again now put the same coach in two places.
		err := a.fails(tok, "CLASH", apply, map[string]any{"id": path(again, "id")})
		if err.Message == "" {
			t.Error("the refusal says nothing")
		}
	})
}

// TestProposeTimetableThatCannotBeMet: demand that cannot be met is a
// proposal whose unplaced lines say why, not an error.
func TestProposeTimetableThatCannotBeMet(t *testing.T) {
	eachDatabase(t, func(t *testing.T, a *api) {
		tok := a.business("full", engine.Gym)
		activity := idOf(a, tok, "activities", "name", "Mobility")
		coach := rows(a.ok(tok, `{ staff { id } }`, nil), "staff")[0].(map[string]any)["id"]
		in := map[string]any{"demand": []any{map[string]any{"activityId": activity, "staffIds": []any{coach}, "sessionsPerWeek": 28, "minutes": 600}}, "timeLimit": 1, "seed": 1}
		p := path(a.ok(tok, propose, map[string]any{"in": in}), "proposeTimetable")
		un := rows(p, "unplaced")
		if len(un) != 1 || path(un[0], "missing").(float64) < 14 || path(un[0], "reason") == "" || len(rows(un[0], "constraints")) == 0 {
			t.Fatalf("unplaced %v: want the line with what is missing and why", un)
		}
		t.Logf("%v", un)
		if path(p, "score", "unplaced") != path(un[0], "missing") {
			t.Errorf("score %v, unplaced %v", path(p, "score"), un)
		}
	})
}

// TestProposeTimetableReasonInTheRequestsLanguage: the same demand that
// cannot be met, asked in Arabic, Turkish and Russian, says why in that
// language: no word of the English catalogue's reasons, the names of the
// activity, staff and rooms as they are.
func TestProposeTimetableReasonInTheRequestsLanguage(t *testing.T) {
	var catalogue map[string]any
	if err := json.Unmarshal(locale.English(), &catalogue); err != nil {
		t.Fatal(err)
	}
	letters := func(s string) []string {
		return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && r != '\'' })
	}
	template := regexp.MustCompile(`{{[^}]*}}`)
	english := map[string]bool{}
	for id, v := range catalogue {
		if !strings.HasPrefix(id, "reason.") {
			continue
		}
		for _, w := range letters(template.ReplaceAllString(fmt.Sprint(v), " ")) {
			english[strings.TrimSuffix(strings.Trim(w, "'"), "'s")] = true
		}
	}
	delete(english, "map") // fmt.Sprint of the plural forms
	delete(english, "one")
	delete(english, "other")
	if !english["needs"] || !english["week"] || !english["hours"] {
		t.Fatalf("the English reasons' words %v lack needs, week, hours", english)
	}
	eachDatabase(t, func(t *testing.T, a *api) {
		tok := a.business("full", engine.Gym)
		activity := idOf(a, tok, "activities", "name", "Mobility")
		coach := rows(a.ok(tok, `{ staff { id } }`, nil), "staff")[0].(map[string]any)["id"]
		in := map[string]any{"demand": []any{map[string]any{"activityId": activity, "staffIds": []any{coach}, "sessionsPerWeek": 28, "minutes": 600}}, "timeLimit": 1, "seed": 1}
		for _, lang := range []string{"ar", "tr", "ru"} {
			r := a.doIn(lang, tok, propose, map[string]any{"in": in})
			if len(r.Errors) > 0 {
				t.Fatalf("%s: %+v", lang, r.Errors)
			}
			un := rows(path(r.Data, "proposeTimetable"), "unplaced")
			if len(un) != 1 || len(rows(un[0], "constraints")) == 0 {
				t.Fatalf("%s: unplaced %v: want the line with why", lang, un)
			}
			reason := path(un[0], "reason").(string)
			names := []string{"Mobility"}
			for _, c := range rows(un[0], "constraints") {
				for _, who := range []string{"staff", "room"} {
					if n, ok := path(c, who, "name").(string); ok {
						names = append(names, n)
					}
				}
			}
			rest := reason
			for _, n := range names {
				if !strings.Contains(reason, n) {
					t.Errorf("%s: %q does not name %q as it is", lang, reason, n)
				}
				rest = strings.ReplaceAll(rest, n, " ")
			}
			for _, w := range letters(rest) {
				if english[w] {
					t.Errorf("%s: %q has the English word %q", lang, reason, w)
				}
			}
			t.Logf("%s: %s", lang, reason)
		}
	})
}

// TestProposeTimetableRefusesBadInput: malformed input is BAD_USER_INPUT
// naming the field, and writes nothing.
func TestProposeTimetableRefusesBadInput(t *testing.T) {
	eachDatabase(t, func(t *testing.T, a *api) {
		tok := a.business("bad", engine.Gym)
		other := a.business("elsewhere", engine.Clinic)
		activity := idOf(a, tok, "activities", "name", "Mobility")
		stranger := idOf(a, other, "staff", "name", rows(a.ok(other, `{ staff { name } }`, nil), "staff")[0].(map[string]any)["name"].(string))
		line := func(edit func(map[string]any)) map[string]any {
			l := map[string]any{"activityId": activity, "sessionsPerWeek": 2, "minutes": 60}
			edit(l)
			return map[string]any{"demand": []any{l}, "timeLimit": 1}
		}
		before := a.dump(tok)
		for _, c := range []struct {
			name, field string
			in          map[string]any
		}{
			{"no sessions", "sessionsPerWeek", line(func(l map[string]any) { l["sessionsPerWeek"] = 0 })},
			{"no length", "minutes", line(func(l map[string]any) { l["minutes"] = 0 })},
			{"over a day", "minutes", line(func(l map[string]any) { l["minutes"] = 24*60 + 1 })},
			{"a window backwards", "windows", line(func(l map[string]any) {
				l["windows"] = []any{map[string]any{"start": "18:00", "end": "17:00"}}
			})},
			{"a week outside the rotation", "weeks", line(func(l map[string]any) { l["weeks"] = []any{2} })},
			{"no demand", "demand", map[string]any{"demand": []any{}}},
			{"a long rotation", "cycleWeeks", map[string]any{"demand": line(func(map[string]any) {})["demand"], "cycleWeeks": 9}},
			{"too long a search", "timeLimit", map[string]any{"demand": line(func(map[string]any) {})["demand"], "timeLimit": 61}},
			{"not a week start", "from", map[string]any{"demand": line(func(map[string]any) {})["demand"], "from": "2026-12-09"}},
		} {
			t.Run(c.name, func(t *testing.T) {
				e := a.with(t).fails(tok, "BAD_USER_INPUT", propose, map[string]any{"in": c.in})
				if e.Extensions["field"] != c.field {
					t.Errorf("field %v (%s), want %s", e.Extensions["field"], e.Message, c.field)
				}
			})
		}
		// Another business's ids are NOT_FOUND, as everywhere.
		e := a.fails(tok, "NOT_FOUND", propose, map[string]any{"in": line(func(l map[string]any) { l["staffIds"] = []any{stranger} })})
		if e.Extensions["field"] != "staffIds" {
			t.Errorf("another business's coach: field %v", e.Extensions["field"])
		}
		if after := a.dump(tok); after != before {
			t.Error("a refused proposal changed the business")
		}
	})
}

// TestProposeAFreshSeason: keep NOTHING ends every series running at the
// first week there, and the proposal fills the rooms they leave.
func TestProposeAFreshSeason(t *testing.T) {
	eachDatabase(t, func(t *testing.T, a *api) {
		tok := a.business("fresh", engine.Gym)
		activity := idOf(a, tok, "activities", "name", "Boxing")
		in := map[string]any{"demand": []any{map[string]any{"activityId": activity, "sessionsPerWeek": 5, "minutes": 90}},
			"from": "2026-12-13", "keep": "NOTHING", "timeLimit": 1, "seed": 3}
		p := path(a.ok(tok, propose, map[string]any{"in": in}), "proposeTimetable")
		if path(p, "placed") != float64(5) {
			t.Fatalf("placed %v: want 5", path(p, "placed"))
		}
		a.ok(tok, `mutation($id: ID!) { applyProposal(id: $id) { revision } }`, map[string]any{"id": path(p, "id")})
		for _, s := range rows(a.ok(tok, `{ allSeries { name anchorDate endDate } }`, nil), "allSeries") {
			end, _ := path(s, "endDate").(string)
			anchor := path(s, "anchorDate").(string)
			if path(s, "name") == "Boxing" && anchor == "2026-12-13" {
				continue
			}
			if anchor < "2026-12-13" && end != "2026-12-13" && (end == "" || end > "2026-12-13") {
				t.Errorf("series %v runs on past the fresh season's first week", s)
			}
		}
	})
}
