package graph_test

import (
	"fmt"
	"slices"
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

// TestCoverFromOptionsToPlan covers a host's week away in the office
// demo: a session's options hold a stand-in and exclude those who cannot
// take it, qualifications exclude the stand-in, the time off's plan covers
// every standup, and assignCover writes the plan in one write, after
// which nothing in the week needs cover.
func TestCoverFromOptionsToPlan(t *testing.T) {
	eachDatabase(t, func(t *testing.T, a *api) {
		tok := a.business("cover", engine.Office)
		mei := idOf(a, tok, "staff", "name", "Mei Chen")
		stan := created(a, tok, `mutation { createStaff(input: {name: "Stan Inn"}) { staff { id } } }`, "createStaff", "staff")
		off := created(a, tok, `mutation($mei: ID!) { createTimeOff(input: {staffId: $mei, from: "2026-12-07", to: "2026-12-11"}) { timeOff { id } } }`,
			"createTimeOff", "timeOff", map[string]any{"mei": mei})
		ref := sessionRefOf(a, tok, "2026-12-09", "Daily standup")
		session := fmt.Sprintf("s/%s/%s/%s", ref["date"], ref["classTimeId"], ref["classId"])
		options := `query($id: SessionID!) { coverOptions(sessionId: $id) { options { staff { id } reasons weekMinutes } excluded { staff { id } reason session { id } } } }`
		data := a.ok(tok, options, map[string]any{"id": session})
		staff := rows(a.ok(tok, `{ staff { id } }`, nil), "staff")
		opts, excl := rows(path(data, "coverOptions"), "options"), rows(path(data, "coverOptions"), "excluded")
		if len(opts)+len(excl) != len(staff)-1 {
			t.Errorf("%d options and %d exclusions, want every staff member but Mei (%d)", len(opts), len(excl), len(staff)-1)
		}
		if !slices.ContainsFunc(opts, func(o any) bool { return path(o, "staff", "id") == stan }) {
			t.Errorf("Stan Inn, who gives nothing, is not an option: %v", opts)
		}
		for _, e := range excl {
			if path(e, "reason") == "BUSY" && path(e, "session", "id") == nil {
				t.Errorf("a BUSY exclusion names no session: %v", e)
			}
		}

		// Qualified for something else only, Stan is excluded.
		other := idOf(a, tok, "activities", "name", "Interview")
		a.ok(tok, `mutation($s: ID!, $a: ID!) { setQualifications(input: {staffId: $s, activityIds: [$a]}) { staff { qualifications { name } } } }`,
			map[string]any{"s": stan, "a": other})
		data = a.ok(tok, options, map[string]any{"id": session})
		if !slices.ContainsFunc(rows(path(data, "coverOptions"), "excluded"), func(e any) bool {
			return path(e, "staff", "id") == stan && path(e, "reason") == "NOT_QUALIFIED"
		}) {
			t.Errorf("Stan is not excluded as NOT_QUALIFIED: %v", data)
		}
		a.fails(tok, "BAD_USER_INPUT", `mutation($id: SessionID!, $s: ID!, $mei: ID!) { assignCover(input: {sessionId: $id, staffId: $s, replaces: $mei}) { revision } }`,
			map[string]any{"id": session, "s": stan, "mei": mei})
		a.ok(tok, `mutation($s: ID!) { setQualifications(input: {staffId: $s, activityIds: []}) { revision } }`, map[string]any{"s": stan})

		// The plan covers the week; assignCover takes it as it is.
		plan := a.ok(tok, `query($off: ID!) { coverPlan(timeOffId: $off) { assignments { sessionId staffId replaces } open { id } } }`, map[string]any{"off": off})
		assignments := rows(path(plan, "coverPlan"), "assignments")
		if len(assignments) == 0 {
			t.Fatalf("the plan assigns nothing: %v", plan)
		}
		need := rows(a.ok(tok, `{ sessionsNeedingCover(from: "2026-12-07", to: "2026-12-12") { id } }`, nil), "sessionsNeedingCover")
		if len(assignments)+len(rows(path(plan, "coverPlan"), "open")) != len(need) {
			t.Errorf("the plan has %d assignments and %d open, for %d sessions needing cover", len(assignments), len(rows(path(plan, "coverPlan"), "open")), len(need))
		}
		a.ok(tok, `mutation($in: [AssignCoverInput!]!) { assignCover(input: $in) { sessions { id staff { name } needsCover { reason } } } }`,
			map[string]any{"in": assignments})
		left := rows(a.ok(tok, `{ sessionsNeedingCover(from: "2026-12-07", to: "2026-12-12") { id } }`, nil), "sessionsNeedingCover")
		if len(left) != len(rows(path(plan, "coverPlan"), "open")) {
			t.Errorf("after the plan, %d sessions need cover, want the %d it left open", len(left), len(rows(path(plan, "coverPlan"), "open")))
		}
	})
}

// TestFreeRooms asks for rooms free on every Monday of a month at the
// office's standup and before dawn, and refuses bad rhythms naming the
// argument.
func TestFreeRooms(t *testing.T) {
	eachDatabase(t, func(t *testing.T, a *api) {
		tok := a.business("free", engine.Office)
		roomA := idOf(a, tok, "rooms", "name", "Room A")
		all := rows(a.ok(tok, `{ rooms { id } }`, nil), "rooms")
		q := `query($start: LocalTime!, $end: LocalTime!, $every: Int) { freeRooms(from: "2026-12-07", to: "2026-12-28", start: $start, end: $end, everyWeeks: $every) { id } }`
		standup := rows(a.ok(tok, q, map[string]any{"start": "09:00", "end": "09:15"}), "freeRooms")
		if slices.ContainsFunc(standup, func(r any) bool { return path(r, "id") == roomA }) || len(standup) != len(all)-1 {
			t.Errorf("at the standup: %v free, want every room but Room A (%s)", standup, roomA)
		}
		if dawn := rows(a.ok(tok, q, map[string]any{"start": "05:00", "end": "06:00", "every": 2}), "freeRooms"); len(dawn) != len(all) {
			t.Errorf("before dawn: %d rooms free, want all %d", len(dawn), len(all))
		}
		for _, c := range []struct {
			vars  map[string]any
			field string
		}{
			{map[string]any{"start": "10:00", "end": "09:00"}, "end"},
			{map[string]any{"start": "09:00", "end": "10:00", "every": 0}, "everyWeeks"},
		} {
			if e := a.fails(tok, "BAD_USER_INPUT", q, c.vars); e.Extensions["field"] != c.field {
				t.Errorf("%v: field %v, want %s", c.vars, e.Extensions["field"], c.field)
			}
		}
	})
}
