package graph_test

import (
	"testing"

	"github.com/koredyne/schedule/engine"
	"github.com/koredyne/schedule/models"
)

// TestTimeOffLeavesSessionsNeedingCover records time off for a host of the
// office demo: the payload lists the runs of sessions it leaves without
// her, each session in the range says who is missing and why, the queries
// list them, and a timetable write that puts her into another session in
// the range is refused with STAFF_UNAVAILABLE (a dry run too) unless it
// passes allowNeedsCover, while one that adds nothing goes through.
func TestTimeOffLeavesSessionsNeedingCover(t *testing.T) {
	eachDatabase(t, func(t *testing.T, a *api) {
		tok := a.business("away", engine.Office)
		mei := idOf(a, tok, "staff", "name", "Mei Chen")
		week := map[string]any{"mei": mei}
		mine := rows(a.ok(tok, `query($mei: ID!) { sessions(from: "2026-12-06", to: "2026-12-20", staffId: $mei) { id date start class { id } room { id } } }`, week), "sessions")
		if len(mine) == 0 {
			t.Fatal("Mei Chen has no sessions in the fortnight")
		}
		first := mine[0].(map[string]any)

		data := a.ok(tok, `mutation($mei: ID!) { createTimeOff(input: {staffId: $mei, from: "2026-12-07", to: "2026-12-18", reason: "Conference"}) {
			revision timeOff { id reason fromTime toTime } needsCover { staff { name } reason firstDate repeatsEveryWeeks until session { id } message } } }`, week)
		off := path(data, "createTimeOff", "timeOff", "id").(string)
		runs := rows(path(data, "createTimeOff"), "needsCover")
		if len(runs) == 0 {
			t.Fatal("the time off leaves nothing needing cover")
		}
		covered := map[string]bool{}
		for _, r := range runs {
			if path(r, "reason") != "TIME_OFF" || path(r, "staff", "name") != "Mei Chen" {
				t.Errorf("run %v: want Mei Chen on TIME_OFF", r)
			}
			first, until := path(r, "firstDate").(string), path(r, "until").(string)
			if first < "2026-12-07" || until > "2026-12-18" || until < first {
				t.Errorf("run %v lies outside the time off", r)
			}
			covered[path(r, "session", "id").(string)] = true
		}
		if !covered[first["id"].(string)] && first["date"].(string) >= "2026-12-07" {
			t.Errorf("the first session %v is not the start of any run %v", first["id"], runs)
		}

		// The sessions of the range say so, and the lists hold them.
		s := a.ok(tok, `query($id: SessionID!) { session(id: $id) { needsCover { staff { name } reason timeOff { id } hoursFrom } } }`,
			map[string]any{"id": first["id"]})
		need := rows(path(s, "session"), "needsCover")
		if len(need) != 1 || path(need[0], "timeOff", "id") != off || path(need[0], "hoursFrom") != nil {
			t.Errorf("needsCover: got %v, want the time off %s", need, off)
		}
		listed := rows(a.ok(tok, `{ sessionsNeedingCover(from: "2026-12-06", to: "2026-12-20") { id } }`, nil), "sessionsNeedingCover")
		inRange := 0
		for _, m := range mine {
			if d := m.(map[string]any)["date"].(string); d >= "2026-12-07" && d <= "2026-12-18" {
				inRange++
			}
		}
		if len(listed) != inRange {
			t.Errorf("sessionsNeedingCover: got %d sessions, want Mei's %d in the range", len(listed), inRange)
		}
		if got := rows(a.ok(tok, `{ uncovered { firstDate } }`, nil), "uncovered"); len(got) != len(runs) {
			t.Errorf("uncovered: got %d runs, want the %d the write reported", len(got), len(runs))
		}

		// The reason is private to the front desk and above.
		ro := a.token("away", models.ReadOnly)
		if got := path(a.ok(ro, `query($id: ID!) { timeOff(id: $id) { reason from } }`, map[string]any{"id": off}), "timeOff", "reason"); got != nil {
			t.Errorf("a read-only token reads the reason %v", got)
		}

		// A new one-off of Mei's in the range adds a session without her.
		vars := map[string]any{"class": first["class"].(map[string]any)["id"], "room": first["room"].(map[string]any)["id"]}
		oneOff := `mutation($class: ID!, $room: ID!, $dry: Boolean, $allow: Boolean) { createOneOff(input: {classId: $class, roomId: $room,
			date: "2026-12-12", start: "06:00", end: "06:30"}, dryRun: $dry, allowNeedsCover: $allow) { oneOff { id } } }`
		before := a.dump(tok)
		for _, dry := range []bool{true, false} {
			vars["dry"] = dry
			e := a.fails(tok, "STAFF_UNAVAILABLE", oneOff, vars)
			list, _ := e.Extensions["needsCover"].([]any)
			if len(list) != 1 || path(list[0], "firstDate") != "2026-12-12" || path(list[0], "timeOffId") != off || path(list[0], "reason") != "TIME_OFF" {
				t.Errorf("dry run %v: extensions.needsCover %v, want the one-off on 2026-12-12", dry, e.Extensions["needsCover"])
			}
			plainWords(t, e.Message)
		}
		if after := a.dump(tok); after != before {
			t.Errorf("a refused write changed the business")
		}
		vars["dry"], vars["allow"] = false, true
		a.ok(tok, oneOff, vars)

		// A write that adds no such session needs nothing.
		a.ok(tok, `mutation($id: SessionID!) { changeSession(sessionId: $id, change: {note: "Cover wanted"}) { revision } }`, map[string]any{"id": first["id"]})

		// Ending the time off leaves nobody missing.
		a.ok(tok, `mutation($id: ID!) { deleteTimeOff(id: $id) { id } }`, map[string]any{"id": off})
		if got := rows(a.ok(tok, `{ sessionsNeedingCover(from: "2026-12-06", to: "2026-12-20") { id } }`, nil), "sessionsNeedingCover"); len(got) != 0 {
			t.Errorf("after the time off is deleted: %d sessions need cover", len(got))
		}
	})
}

// TestWorkingHoursLeaveSessionsOutside sets hours that leave a host's
// sessions outside them from a date on; earlier dates keep no limit.
func TestWorkingHoursLeaveSessionsOutside(t *testing.T) {
	eachDatabase(t, func(t *testing.T, a *api) {
		tok := a.business("hours", engine.Office)
		mei := idOf(a, tok, "staff", "name", "Mei Chen")
		data := a.ok(tok, `mutation($mei: ID!) { setWorkingHours(input: {staffId: $mei, from: "2026-12-14", spans: [{weekday: SATURDAY, start: "10:00", end: "11:00"}]}) {
			workingHours { id from spans { weekday start end } } needsCover { reason hoursFrom firstDate } } }`, map[string]any{"mei": mei})
		runs := rows(path(data, "setWorkingHours"), "needsCover")
		if len(runs) == 0 {
			t.Fatal("hours on Saturdays only leave nothing outside")
		}
		for _, r := range runs {
			if path(r, "reason") != "OUTSIDE_HOURS" || path(r, "hoursFrom") != "2026-12-14" || path(r, "firstDate").(string) < "2026-12-14" {
				t.Errorf("run %v: want OUTSIDE_HOURS from 2026-12-14", r)
			}
		}
		before := rows(a.ok(tok, `{ sessionsNeedingCover(from: "2026-12-06", to: "2026-12-13") { id } }`, nil), "sessionsNeedingCover")
		after := rows(a.ok(tok, `{ sessionsNeedingCover(from: "2026-12-14", to: "2026-12-21") { id needsCover { reason } } }`, nil), "sessionsNeedingCover")
		if len(before) != 0 || len(after) == 0 {
			t.Errorf("sessions needing cover: %d before the hours start, %d after; want none, then some", len(before), len(after))
		}
		// Setting the same date again replaces them: [] lifts the limit.
		again := a.ok(tok, `mutation($mei: ID!) { setWorkingHours(input: {staffId: $mei, from: "2026-12-14", spans: []}) { workingHours { id } } }`, map[string]any{"mei": mei})
		if path(again, "setWorkingHours", "workingHours", "id") != path(data, "setWorkingHours", "workingHours", "id") {
			t.Errorf("the hours of one date were not replaced in place")
		}
		if got := rows(a.ok(tok, `{ sessionsNeedingCover(from: "2026-12-14", to: "2026-12-21") { id } }`, nil), "sessionsNeedingCover"); len(got) != 0 {
			t.Errorf("hours without spans leave %d sessions needing cover", len(got))
		}
		// Bad input names its field and writes nothing.
		dump := a.dump(tok)
		for _, c := range []struct{ query, field string }{
			{`mutation($mei: ID!) { setWorkingHours(input: {staffId: $mei, from: "2027-01-04", spans: [{weekday: MONDAY, start: "17:00", end: "09:00"}]}) { revision } }`, "spans"},
			{`mutation($mei: ID!) { createTimeOff(input: {staffId: $mei, from: "2027-01-04", to: "2027-01-03"}) { revision } }`, "to"},
			{`mutation($mei: ID!) { createTimeOff(input: {staffId: $mei, from: "2027-01-04", to: "2027-01-04", fromTime: "12:00", toTime: "11:00"}) { revision } }`, "toTime"},
		} {
			e := a.fails(tok, "BAD_USER_INPUT", c.query, map[string]any{"mei": mei})
			if e.Extensions["field"] != c.field {
				t.Errorf("%s: field %v, want %s", firstLine(c.query), e.Extensions["field"], c.field)
			}
		}
		if a.dump(tok) != dump {
			t.Error("bad input changed the business")
		}
	})
}
