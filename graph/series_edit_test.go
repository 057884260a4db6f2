package graph_test

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/koredyne/schedule/engine"
)

// timetable reads the sessions of [from, to) as one line each, by date:
// what happens, and the series it is listed under (by name, without the week
// of its rotation, which a split renumbers).
func (a *api) timetable(tok, from, to string) map[string][]string {
	a.t.Helper()
	data := a.ok(tok, `query($from: Date!, $to: Date!) { days(from: $from, to: $to) { date sessions {
		start end room { name } class { name } staff { name } cancelled series { series { name } } } } }`, map[string]any{"from": from, "to": to})
	out := map[string][]string{}
	for _, d := range path(data, "days").([]any) {
		var lines []string
		for _, s := range path(d, "sessions").([]any) {
			var staff, series []string
			for _, p := range path(s, "staff").([]any) {
				staff = append(staff, path(p, "name").(string))
			}
			for _, sw := range path(s, "series").([]any) {
				series = append(series, path(sw, "series", "name").(string))
			}
			slices.Sort(series)
			lines = append(lines, fmt.Sprintf("%v-%v %v %v (%s) cancelled=%v [%s]", path(s, "start"), path(s, "end"), path(s, "room", "name"),
				path(s, "class", "name"), strings.Join(staff, ", "), path(s, "cancelled"), strings.Join(series, ", ")))
		}
		slices.Sort(lines)
		out[path(d, "date").(string)] = lines
	}
	return out
}

// diffDays lists the dates on which two timetables differ.
func diffDays(a, b map[string][]string) []string {
	var out []string
	for _, d := range slices.Sorted(maps.Keys(a)) {
		if !slices.Equal(a[d], b[d]) {
			out = append(out, fmt.Sprintf("%s:\n  %q\n  %q", d, a[d], b[d]))
		}
	}
	return out
}

// sprintEntries is the sprint cycle's entries as updateSeries takes them,
// without the ones keep refuses.
func sprintEntries(a *api, tok, sprint string, keep func(class string) bool) []map[string]any {
	a.t.Helper()
	data := a.ok(tok, `query { allSeries { id entries { week classTime { id } class { id name } } } }`, nil)
	var out []map[string]any
	for _, s := range path(data, "allSeries").([]any) {
		if path(s, "id") != sprint {
			continue
		}
		for _, e := range path(s, "entries").([]any) {
			if keep(path(e, "class", "name").(string)) {
				out = append(out, map[string]any{"week": path(e, "week"), "classTimeId": path(e, "classTime", "id"), "classId": path(e, "class", "id")})
			}
		}
	}
	return out
}

const editSprint = `mutation($id: ID!, $entries: [SeriesEntryInput!], $from: Date, $carry: Boolean) {
	updateSeries(id: $id, input: {entries: $entries}, from: $from, carryChanges: $carry) {
		series { id anchorDate endDate } kept { id name anchorDate endDate entries { week } plans { id } }
		changesNotCarried { date classTime { id } class { name } } } }`

// TestUpdateSeriesKeepsThePast: the office's two-week sprint cycle (this
// week is week 1) loses its retrospective from next week.
func TestUpdateSeriesKeepsThePast(t *testing.T) {
	eachDatabase(t, func(t *testing.T, a *api) {
		tok := a.business("meridian", engine.Office)
		sprint := a.ids(tok, "allSeries", "name")["Sprint cycle"]
		before := a.timetable(tok, "2026-11-16", "2027-02-01")
		subs := a.dump(tok)

		// A change of a retrospective and one of a review, both after the split.
		retro := sessionRefOf(a, tok, "2026-12-11", "Retro")
		review := sessionRefOf(a, tok, "2026-12-11", "Sprint review")
		a.ok(tok, `mutation($ref: SessionRefInput!) { changeSession(ref: $ref, change: {note: "bring the board"}) { session { id } } }`, map[string]any{"ref": retro})
		a.ok(tok, `mutation($ref: SessionRefInput!) { changeSession(ref: $ref, change: {start: "14:30", end: "15:00"}) { session { id } } }`, map[string]any{"ref": review})

		noRetro := sprintEntries(a, tok, sprint, func(c string) bool { return !strings.HasPrefix(c, "Retrospective") })
		res := path(a.ok(tok, editSprint, map[string]any{"id": sprint, "entries": noRetro, "from": "2026-12-09"}), "updateSeries")
		kept := path(res, "kept")
		if kept == nil || path(kept, "name") != "Sprint cycle" || path(kept, "anchorDate") != "2026-11-16" || path(kept, "endDate") != "2026-12-07" {
			t.Fatalf("kept %v", kept)
		}
		if len(path(kept, "plans").([]any)) != 0 || len(path(kept, "entries").([]any)) != 3 {
			t.Errorf("the kept part sells nothing and keeps all 3 entries: %v", kept)
		}
		if path(res, "series", "id") != sprint || path(res, "series", "anchorDate") != "2026-12-07" {
			t.Errorf("the series itself goes on from the week of from: %v", path(res, "series"))
		}
		lost := path(res, "changesNotCarried").([]any)
		if len(lost) != 1 || path(lost[0], "date") != "2026-12-11" || !strings.HasPrefix(path(lost[0], "class", "name").(string), "Retrospective") {
			t.Errorf("changes not carried: %v, want the retro's", lost)
		}

		after := a.timetable(tok, "2026-11-16", "2027-02-01")
		for _, d := range slices.Sorted(maps.Keys(before)) {
			want := before[d]
			if d >= "2026-12-07" {
				want = slices.DeleteFunc(slices.Clone(want), func(s string) bool { return strings.Contains(s, "Retrospective") })
			}
			if d == "2026-12-11" {
				want = slices.Clone(want)
				for i, s := range want {
					want[i] = strings.Replace(s, "14:00-15:00 Room A Sprint Review", "14:30-15:00 Room A Sprint Review", 1)
				}
				slices.Sort(want)
			}
			if !slices.Equal(after[d], want) {
				t.Errorf("%s:\n got %q\nwant %q", d, after[d], want)
			}
		}
		// Subscribers and plans stay with the series.
		if got := a.ok(tok, `query($id: ID!) { memberships(seriesId: $id) { nodes { client { name } } } allSeries { id plans { id } } }`, map[string]any{"id": sprint}); len(rows(got, "memberships")) == 0 {
			t.Errorf("the series lost its subscribers: %v (before: %s)", got, firstLine(subs))
		}
	})
}

// TestUpdateSeriesRoundTrip: sending a two-week series' entries back as
// they were, from a week where its rotation is in week 2, changes nothing
// that happens.
func TestUpdateSeriesRoundTrip(t *testing.T) {
	eachDatabase(t, func(t *testing.T, a *api) {
		tok := a.business("meridian", engine.Office)
		sprint := a.ids(tok, "allSeries", "name")["Sprint cycle"]
		before := a.timetable(tok, "2026-11-01", "2027-03-01")
		all := sprintEntries(a, tok, sprint, func(string) bool { return true })
		res := a.ok(tok, editSprint, map[string]any{"id": sprint, "entries": all, "from": "2026-12-07"})
		if path(res, "updateSeries", "kept") == nil {
			t.Fatalf("no split: %v", res)
		}
		if diff := diffDays(before, a.timetable(tok, "2026-11-01", "2027-03-01")); len(diff) > 0 {
			t.Errorf("the round trip changed %d days:\n%s", len(diff), strings.Join(diff, "\n"))
		}
		// The weeks now count from the split: next week, week 2 before, is week 1.
		data := a.ok(tok, `{ day(date: "2026-12-11") { sessions { label series { week series { id } } } } }`, nil)
		for _, s := range path(data, "day", "sessions").([]any) {
			if path(s, "label") == "Retro" && path(s, "series").([]any)[0].(map[string]any)["week"] != float64(1) {
				t.Errorf("the retro on 2026-12-11: %v, want week 1 of the series from the split", s)
			}
		}
	})
}

// TestUpdateSeriesRules: when an edit applies in place, when it splits and
// when it is refused.
func TestUpdateSeriesRules(t *testing.T) {
	eachDatabase(t, func(t *testing.T, a *api) {
		tok := a.business("meridian", engine.Office)
		series := a.ids(tok, "allSeries", "name")
		sprint := series["Sprint cycle"]
		rooms := a.ids(tok, "rooms", "name")
		review := a.classID(tok, "Sprint Review with Mei Chen")
		adding := func(weekday, start, end string) []map[string]any {
			return append(sprintEntries(a, tok, sprint, func(string) bool { return true }), map[string]any{"week": 1, "classId": review,
				"classTime": map[string]any{"roomId": rooms["Room B"], "weekday": weekday, "start": start, "end": end}})
		}

		t.Run("an edit that would change a day that happened is refused", func(t *testing.T) {
			a := a.with(t)
			// Today is Tuesday 2026-12-01; this week is week 1.
			e := a.fails(tok, "BAD_USER_INPUT", editSprint, map[string]any{"id": sprint, "entries": adding("MONDAY", "13:00", "14:00")})
			if !strings.Contains(e.Message, "2026-11-30") || !strings.Contains(e.Message, "2026-12-07") {
				t.Errorf("message %q: name the day and when the edit can apply", e.Message)
			}
			a.fails(tok, "BAD_USER_INPUT", editSprint, map[string]any{"id": sprint, "entries": adding("THURSDAY", "13:00", "14:00"), "from": "2026-11-23"})
		})
		t.Run("without from, a started series splits this week when the days so far stay", func(t *testing.T) {
			a := a.with(t)
			before := a.timetable(tok, "2026-11-16", "2026-12-03")
			res := a.ok(tok, editSprint, map[string]any{"id": sprint, "entries": adding("THURSDAY", "13:00", "14:00")})
			if path(res, "updateSeries", "kept", "endDate") != "2026-11-30" {
				t.Errorf("kept %v", path(res, "updateSeries", "kept"))
			}
			if diff := diffDays(before, a.timetable(tok, "2026-11-16", "2026-12-03")); len(diff) > 0 {
				t.Errorf("days before Thursday changed:\n%s", strings.Join(diff, "\n"))
			}
			if got := a.timetable(tok, "2026-12-03", "2026-12-04")["2026-12-03"]; !slices.ContainsFunc(got, func(s string) bool { return strings.Contains(s, "13:00-14:00 Room B Sprint Review") }) {
				t.Errorf("Thursday: %q", got)
			}
		})
		t.Run("a rename and an end date later on apply in place", func(t *testing.T) {
			a := a.with(t)
			res := a.ok(tok, `mutation($id: ID!) { updateSeries(id: $id, input: {name: "Sprints"}) { series { name } kept { id } } }`, map[string]any{"id": sprint})
			if path(res, "updateSeries", "kept") != nil || path(res, "updateSeries", "series", "name") != "Sprints" {
				t.Errorf("rename: %v", res)
			}
			res = a.ok(tok, `mutation($id: ID!) { updateSeries(id: $id, input: {endDate: "2027-03-01"}) { series { endDate } kept { id } } }`, map[string]any{"id": sprint})
			if path(res, "updateSeries", "kept") != nil || path(res, "updateSeries", "series", "endDate") != "2027-03-01" {
				t.Errorf("end date: %v", res)
			}
		})
		t.Run("a series that has not started changes in place", func(t *testing.T) {
			a := a.with(t)
			id := created(a, tok, `mutation { createSeries(input: {name: "Q1 offsite", anchorDate: "2027-01-04", cycleWeeks: 2}) { series { id } } }`, "createSeries", "series")
			res := a.ok(tok, `mutation($id: ID!) { updateSeries(id: $id, input: {cycleWeeks: 3}) { series { cycleWeeks anchorDate } kept { id } } }`, map[string]any{"id": id})
			if path(res, "updateSeries", "kept") != nil || path(res, "updateSeries", "series", "cycleWeeks") != float64(3) || path(res, "updateSeries", "series", "anchorDate") != "2027-01-04" {
				t.Errorf("%v", res)
			}
			// From a later week it splits, though none of it has happened.
			res = a.ok(tok, `mutation($id: ID!) { updateSeries(id: $id, input: {cycleWeeks: 1}, from: "2027-02-01") { series { anchorDate } kept { endDate } } }`, map[string]any{"id": id})
			if path(res, "updateSeries", "kept", "endDate") != "2027-02-01" || path(res, "updateSeries", "series", "anchorDate") != "2027-02-01" {
				t.Errorf("%v", res)
			}
		})
		t.Run("an ended series cannot change, and carryChanges false drops every change", func(t *testing.T) {
			a := a.with(t)
			a.fails(tok, "BAD_USER_INPUT", editSprint, map[string]any{"id": series["Data Skills 1: Spreadsheets"], "entries": []any{}, "from": "2026-12-07"})

			planning := sessionRefOf(a, tok, "2026-12-14", "Sprint planning")
			a.ok(tok, `mutation($ref: SessionRefInput!) { changeSession(ref: $ref, change: {note: "in the loft"}) { session { id } } }`, map[string]any{"ref": planning})
			all := sprintEntries(a, tok, sprint, func(string) bool { return true })
			res := a.ok(tok, editSprint, map[string]any{"id": sprint, "entries": all, "from": "2026-12-07", "carry": false})
			lost := path(res, "updateSeries", "changesNotCarried").([]any)
			if !slices.ContainsFunc(lost, func(c any) bool { return path(c, "date") == "2026-12-14" }) {
				t.Errorf("not carried: %v, want the planning's change among them", lost)
			}
			if got := a.timetable(tok, "2026-12-14", "2026-12-15")["2026-12-14"]; len(got) == 0 {
				t.Errorf("the planning itself goes on: %q", got)
			}
		})
	})
}
