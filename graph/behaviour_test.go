package graph_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/koredyne/schedule/engine"
	"github.com/koredyne/schedule/models"
)

// ids reads a map from name to id of a list query: ids(tok, "rooms", "name").
func (a *api) ids(tok, list, key string) map[string]string {
	a.t.Helper()
	data := a.ok(tok, listQuery(list, "id "+key), nil)
	out := map[string]string{}
	for _, v := range rows(data, list) {
		m := v.(map[string]any)
		out[fmt.Sprint(m[key])] = m["id"].(string)
	}
	return out
}

func (a *api) classID(tok, name string) string {
	a.t.Helper()
	id, ok := a.ids(tok, "classes", "name")[name]
	if !ok {
		a.t.Fatalf("no class %q", name)
	}
	return id
}

// TestReferenceBehaviours checks the behaviours of the reference system the
// API keeps (and the bugs it does not), through GraphQL.
func TestReferenceBehaviours(t *testing.T) {
	eachDatabase(t, func(t *testing.T, a *api) {
		tok := a.business("meridian", engine.Office)
		series := a.ids(tok, "allSeries", "name")
		rooms := a.ids(tok, "rooms", "name")
		activities := a.ids(tok, "activities", "name")
		staff := a.ids(tok, "staff", "name")

		t.Run("a series edit is all or nothing: a clash rolls back the rename too", func(t *testing.T) {
			a := a.with(t)
			sprint := series["Sprint cycle"]
			data := a.ok(tok, `{ allSeries { id entries { week classTime { id } class { id } } } }`, nil)
			var entries []map[string]any
			for _, s := range data["allSeries"].([]any) {
				if path(s, "id") == sprint {
					for _, e := range path(s, "entries").([]any) {
						entries = append(entries, map[string]any{"week": path(e, "week"), "classTimeId": path(e, "classTime", "id"), "classId": path(e, "class", "id")})
					}
				}
			}
			entries = append(entries, map[string]any{"week": 1, "classId": a.classID(tok, "Retrospective with Daniel Okafor"),
				"classTime": map[string]any{"roomId": rooms["Room A"], "weekday": "MONDAY", "start": "09:00", "end": "09:30"}})
			e := a.fails(tok, "CLASH", `mutation($id: ID!, $entries: [SeriesEntryInput!]) {
				updateSeries(id: $id, input: {name: "Renamed", entries: $entries}, from: "2026-12-07") { series { name } } }`,
				map[string]any{"id": sprint, "entries": entries})
			if clashes, _ := e.Extensions["clashes"].([]any); len(clashes) == 0 {
				t.Errorf("no clashes in the error: %+v", e)
			}
			if got := a.ids(tok, "allSeries", "name"); got["Sprint cycle"] != sprint || got["Renamed"] != "" {
				t.Errorf("the rename survived the refused edit: %v", got)
			}
		})

		t.Run("a plan edited in place keeps its subscribers; a removed plan leaves them on the series", func(t *testing.T) {
			a := a.with(t)
			checkIn := series["Bluefin Legal check-in"]
			q := `query($id: ID!) { memberships(seriesId: $id) { nodes { id client { name } plan { id price } series { id } } } }`
			subs := rows(a.ok(tok, q, map[string]any{"id": checkIn}), "memberships")
			if len(subs) != 1 || path(subs[0], "plan", "id") == nil {
				t.Fatalf("fixture: %v", subs)
			}
			plan := path(subs[0], "plan", "id")
			a.ok(tok, `mutation($id: ID!) { updatePlan(id: $id, input: {price: "99.5"}) { plan { price } } }`, map[string]any{"id": plan})
			a.ok(tok, `mutation($s: ID!, $p: ID!) { updateSeries(id: $s, input: {plans: [{id: $p, name: "Check-in"}]}) { series { plans { name } } } }`,
				map[string]any{"s": checkIn, "p": plan})
			subs = rows(a.ok(tok, q, map[string]any{"id": checkIn}), "memberships")
			if got := path(subs[0], "plan", "id"); got != plan || path(subs[0], "plan", "price") != "99.5" {
				t.Errorf("after editing the plan in place the membership has plan %v, want %v at 99.5", path(subs[0], "plan"), plan)
			}
			a.ok(tok, `mutation($s: ID!) { updateSeries(id: $s, input: {plans: []}) { series { id } } }`, map[string]any{"s": checkIn})
			subs = rows(a.ok(tok, q, map[string]any{"id": checkIn}), "memberships")
			if len(subs) != 1 || path(subs[0], "plan") != nil || path(subs[0], "series", "id") != checkIn {
				t.Errorf("after removing the plan: %v, want the membership on the series without a plan", subs)
			}
		})

		t.Run("shrinking the cycle removes the entries of vanished weeks", func(t *testing.T) {
			a := a.with(t)
			data := a.ok(tok, `mutation($id: ID!) { updateSeries(id: $id, input: {cycleWeeks: 1}) { series { cycleWeeks entries { week } } } }`,
				map[string]any{"id": series["Sprint cycle"]})
			entries := path(data, "updateSeries", "series", "entries").([]any)
			if len(entries) == 0 {
				t.Fatal("every entry went")
			}
			for _, e := range entries {
				if path(e, "week") != float64(1) {
					t.Errorf("entry of week %v survived", path(e, "week"))
				}
			}
		})

		t.Run("one request that adds a busy co-host is refused", func(t *testing.T) {
			a := a.with(t)
			before := a.dump(tok)
			a.fails(tok, "CLASH", `mutation($room: ID!, $board: ID!, $laura: ID!, $mei: ID!) {
				createSeries(input: {name: "Extra board", anchorDate: "2026-11-30", cycleWeeks: 1, entries: [{week: 1,
					classTime: {roomId: $room, weekday: TUESDAY, start: "09:00", end: "10:00"},
					class: {activityId: $board, staffIds: [$laura, $mei]}}]}) { series { id } } }`,
				map[string]any{"room": rooms["Room B"], "board": activities["Board Meeting"], "laura": staff["Laura Becker"], "mei": staff["Mei Chen"]})
			if a.dump(tok) != before {
				t.Error("the refused request wrote something")
			}
		})

		t.Run("a class in use cannot be deleted", func(t *testing.T) {
			a := a.with(t)
			e := a.fails(tok, "IN_USE", `mutation($id: ID!) { deleteClass(id: $id) { id } }`,
				map[string]any{"id": a.classID(tok, "Standup with Mei Chen")})
			if e.Message == "" || e.Message[:len("Still in use")] != "Still in use" {
				t.Errorf("message %q", e.Message)
			}
			a.fails(tok, "IN_USE", `mutation($id: ID!) { deleteRoom(id: $id) { id } }`, map[string]any{"id": rooms["Room A"]})
		})

		t.Run("a session moved onto its own next occurrence clashes", func(t *testing.T) {
			a := a.with(t)
			day := a.ok(tok, `{ day(date: "2026-12-01") { sessions { ref { date classTime { id } class { id name } } } } }`, nil)
			var ref map[string]any
			for _, s := range path(day, "day", "sessions").([]any) {
				if path(s, "ref", "class", "name") == "Standup with Mei Chen" {
					ref = map[string]any{"date": "2026-12-01", "classTimeId": path(s, "ref", "classTime", "id"), "classId": path(s, "ref", "class", "id")}
				}
			}
			if ref == nil {
				t.Fatal("no standup on 2026-12-01")
			}
			a.fails(tok, "CLASH", `mutation($ref: SessionRefInput!) { changeSession(ref: $ref, change: {date: "2026-12-08"}) { session { date } } }`,
				map[string]any{"ref": ref})
			// Cancelling and restoring goes through the same key.
			data := a.ok(tok, `mutation($ref: SessionRefInput!) { cancelSession(ref: $ref, reason: "flu") { session { cancelled cancelReason } } }`, map[string]any{"ref": ref})
			if path(data, "cancelSession", "session", "cancelled") != true || path(data, "cancelSession", "session", "cancelReason") != "flu" {
				t.Errorf("cancel: %v", data)
			}
			data = a.ok(tok, `mutation($ref: SessionRefInput!) { restoreSession(ref: $ref) { session { cancelled changed } } }`, map[string]any{"ref": ref})
			if path(data, "restoreSession", "session", "cancelled") != false {
				t.Errorf("restore: %v", data)
			}
		})

		t.Run("a hand-over must fall inside the series' running weeks", func(t *testing.T) {
			a := a.with(t)
			course := series["Data Skills 2: Dashboards"]
			a.fails(tok, "BAD_USER_INPUT", `mutation($id: ID!) { replaceSeriesFrom(id: $id, date: "2027-06-01") { series { id } } }`, map[string]any{"id": course})
			a.fails(tok, "BAD_USER_INPUT", `mutation($id: ID!) { replaceSeriesFrom(id: $id, date: "2026-12-07") { series { id } } }`, map[string]any{"id": course})
			before := a.ok(tok, `{ days(from: "2026-12-14", to: "2027-01-25") { sessions { start room { name } class { name } } } }`, nil)
			data := a.ok(tok, `mutation($id: ID!) { replaceSeriesFrom(id: $id, date: "2026-12-23", name: "Dashboards (new trainer)") {
				series { name anchorDate endDate entries { week } } } }`, map[string]any{"id": course})
			if got := path(data, "replaceSeriesFrom", "series", "anchorDate"); got != "2026-12-21" {
				t.Errorf("successor starts %v, want the week start 2026-12-21", got)
			}
			after := a.ok(tok, `{ days(from: "2026-12-14", to: "2027-01-25") { sessions { start room { name } class { name } } } }`, nil)
			if fmt.Sprint(before) != fmt.Sprint(after) {
				t.Error("a hand-over that copies the entries changed the sessions")
			}
		})

		t.Run("demo and clear", func(t *testing.T) {
			a := a.with(t)
			dry := a.ok(tok, `mutation { loadDemo(kind: CLINIC, dryRun: true) { dryRun business { kind } } }`, nil)
			if path(dry, "loadDemo", "business", "kind") != "CLINIC" {
				t.Errorf("dry run: %v", dry)
			}
			if k := path(a.ok(tok, `{ business { kind } }`, nil), "business", "kind"); k != "OFFICE" {
				t.Errorf("a dry run changed the kind to %v", k)
			}
			a.ok(tok, `mutation { loadDemo(kind: CLINIC) { business { kind } } }`, nil)
			if n := len(a.ids(tok, "rooms", "name")); n != 4 {
				t.Errorf("clinic demo: %d rooms", n)
			}
			a.ok(tok, `mutation { clearData { business { name } } }`, nil)
			data := a.ok(tok, `{ business { kind } rooms { id } clients { nodes { id } } allSeries { id } }`, nil)
			if path(data, "business", "kind") != "CLINIC" || len(data["rooms"].([]any))+len(rows(data, "clients"))+len(data["allSeries"].([]any)) != 0 {
				t.Errorf("after clearData: %v", data)
			}
		})
	})
}

// TestDaysAndClashes reads the computed days of the gym demo and its proof.
func TestDaysAndClashes(t *testing.T) {
	eachDatabase(t, func(t *testing.T, a *api) {
		tok := a.business("harbor", engine.Gym)
		data := a.ok(tok, `{
			days(from: "2026-11-29", to: "2026-12-06") { date sessions { id start startsAt series { week cycleWeeks series { name } } } }
			clashes { clashes { message } provenUntil }
		}`, nil)
		days := data["days"].([]any)
		if len(days) != 7 {
			t.Fatalf("%d days", len(days))
		}
		total := 0
		for _, d := range days {
			total += len(path(d, "sessions").([]any))
		}
		if total < 90 {
			t.Errorf("%d sessions in the gym's week, want about 100", total)
		}
		first := path(days[0], "sessions").([]any)[0]
		if path(first, "startsAt") != "2026-11-29T06:00:00+03:00" {
			t.Errorf("startsAt %v, want 06:00 Kuwait time", path(first, "startsAt"))
		}
		if c := path(data, "clashes", "clashes").([]any); len(c) != 0 || path(data, "clashes", "provenUntil") != nil {
			t.Errorf("the demo clashes: %v", path(data, "clashes"))
		}
		a.fails(tok, "BAD_USER_INPUT", `{ days(from: "2026-01-01", to: "2027-06-01") { date } }`, nil)
		a.fails(tok, "BAD_USER_INPUT", `{ days(from: "2026-12-01", to: "2026-11-01") { date } }`, nil)
		a.fails(tok, "BAD_USER_INPUT", `{ day(date: "2026-02-30") { date } }`, nil)

		// A shared class is one session listing every series with its week.
		shared := 0
		for _, d := range days {
			for _, s := range path(d, "sessions").([]any) {
				if len(path(s, "series").([]any)) > 1 {
					shared++
				}
			}
		}
		if shared == 0 {
			t.Error("no shared session in the gym's week")
		}
		ids := []string{}
		for _, s := range path(days[1], "sessions").([]any) {
			ids = append(ids, path(s, "id").(string))
		}
		if u := slices.Compact(slices.Sorted(slices.Values(ids))); len(u) != len(ids) || len(ids) == 0 {
			t.Errorf("session ids are not unique: %v", ids)
		}
	})
}

// TestCachedAnswersFollowWrites asks the same query around writes made
// through the API and beside it: an answer is reused only at the revision
// it was computed for.
func TestCachedAnswersFollowWrites(t *testing.T) {
	eachDatabase(t, func(t *testing.T, a *api) {
		tok := a.business("meridian", engine.Office)
		q := `{ business { revision } rooms { name } }`
		first := fmt.Sprint(a.ok(tok, q, nil))
		if again := fmt.Sprint(a.ok(tok, q, nil)); again != first {
			t.Fatalf("the same query at the same revision: %s, then %s", first, again)
		}
		a.ok(tok, `mutation { createRoom(input: {name: "Annex"}) { room { id } } }`, nil)
		if after := fmt.Sprint(a.ok(tok, q, nil)); after == first || !strings.Contains(after, "Annex") {
			t.Errorf("after a write: %s", after)
		}
		// A write beside the API (another process, a command) bumps the
		// revision too.
		b, _ := models.BusinessBySlug(context.Background(), a.db.DB, "meridian")
		if _, err := models.NewStore(a.db.DB, nil).Write(context.Background(), b.ID, false, func(e *models.Edit) error {
			e.State.Rooms[0].Name = "Lobby"
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		if got := fmt.Sprint(a.ok(tok, q, nil)); !strings.Contains(got, "Lobby") {
			t.Errorf("after a write by another store: %s", got)
		}
		// Tokens change outside the guarded write and are never cached.
		before := len(path(a.ok(tok, `{ tokens { nodes { id } } }`, nil), "tokens", "nodes").([]any))
		a.token("meridian", models.ReadOnly)
		if n := len(path(a.ok(tok, `{ tokens { nodes { id } } }`, nil), "tokens", "nodes").([]any)); n != before+1 {
			t.Errorf("tokens: %d, want %d", n, before+1)
		}
	})
}
