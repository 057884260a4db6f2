package graph_test

import (
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/koredyne/schedule/engine"
)

// The timetable on the schema conventions of issue 14: sessions named by
// their id, lookups by id, and the create and update inputs.

// sessionOf returns the id and the ref (as a SessionRefInput) of the series
// session with label on date.
func sessionOf(a *api, tok, date, label string) (string, map[string]any) {
	a.t.Helper()
	data := a.ok(tok, `query($d: Date!) { day(date: $d) { sessions { id label ref { date classTime { id } class { id } } } } }`, map[string]any{"d": date})
	for _, s := range path(data, "day", "sessions").([]any) {
		if path(s, "label") == label && path(s, "ref") != nil {
			return path(s, "id").(string), map[string]any{
				"date":        path(s, "ref", "date"),
				"classTimeId": path(s, "ref", "classTime", "id"),
				"classId":     path(s, "ref", "class", "id"),
			}
		}
	}
	a.t.Fatalf("no session %q on %s", label, date)
	return "", nil
}

// schedule is the business as dump shows it, but for its revision, which
// every write moves on.
func schedule(a *api, tok string) string {
	a.t.Helper()
	return regexp.MustCompile(`"revision":\d+`).ReplaceAllString(a.dump(tok), "")
}

const sessionFields = `session { id date start end room { name } staff { name } changed cancelled cancelReason note origin { date start room { name } } }`

func TestSessionByID(t *testing.T) {
	eachDatabase(t, func(t *testing.T, a *api) {
		tok := a.business("by-id", engine.Office)
		id, ref := sessionOf(a, tok, "2026-12-01", "Board meeting")
		if !strings.HasPrefix(id, "s/2026-12-01/") {
			t.Fatalf("session id %q, want s/2026-12-01/…", id)
		}
		change := map[string]any{"date": "2026-12-03", "start": "16:00", "end": "17:00", "note": "Moved for the audit"}

		t.Run("changeSession by sessionId equals by ref", func(t *testing.T) {
			a := a.on(t)
			before := schedule(a, tok)
			byID := a.ok(tok, `mutation($id: SessionID, $ch: SessionChangeInput!) { changeSession(sessionId: $id, change: $ch) { `+sessionFields+` } }`,
				map[string]any{"id": id, "ch": change})
			afterID := schedule(a, tok)
			if path(byID, "changeSession", "session", "id") != id || path(byID, "changeSession", "session", "date") != "2026-12-03" {
				t.Fatalf("changeSession by id: %v", byID)
			}
			a.ok(tok, `mutation($id: SessionID) { restoreSession(sessionId: $id) { session { id } } }`, map[string]any{"id": id})
			if got := schedule(a, tok); got != before {
				t.Fatalf("restoreSession by id left the business changed:\ngot  %s\nwant %s", got, before)
			}
			byRef := a.ok(tok, `mutation($ref: SessionRefInput, $ch: SessionChangeInput!) { changeSession(ref: $ref, change: $ch) { `+sessionFields+` } }`,
				map[string]any{"ref": ref, "ch": change})
			if !reflect.DeepEqual(path(byID, "changeSession", "session"), path(byRef, "changeSession", "session")) {
				t.Errorf("by id %v\nby ref %v", path(byID, "changeSession", "session"), path(byRef, "changeSession", "session"))
			}
			if got := schedule(a, tok); got != afterID {
				t.Errorf("the business after a change by ref differs from one by id:\ngot  %s\nwant %s", got, afterID)
			}
			data := a.ok(tok, `mutation($id: SessionID) { cancelSession(sessionId: $id, reason: "Snow") { session { id cancelled cancelReason } } }`, map[string]any{"id": id})
			if path(data, "cancelSession", "session", "cancelled") != true || path(data, "cancelSession", "session", "cancelReason") != "Snow" {
				t.Errorf("cancelSession by id: %v", data)
			}
			a.ok(tok, `mutation($ref: SessionRefInput) { restoreSession(ref: $ref) { session { id } } }`, map[string]any{"ref": ref})
			if got := schedule(a, tok); got != before {
				t.Errorf("restoreSession by ref left the business changed")
			}
		})

		t.Run("both or neither", func(t *testing.T) {
			a := a.on(t)
			before := a.dump(tok)
			for _, q := range []string{
				`mutation($id: SessionID, $ref: SessionRefInput) { changeSession(sessionId: $id, ref: $ref, change: {note: "x"}) { session { id } } }`,
				`mutation($id: SessionID, $ref: SessionRefInput) { cancelSession(sessionId: $id, ref: $ref) { session { id } } }`,
				`mutation($id: SessionID, $ref: SessionRefInput) { restoreSession(sessionId: $id, ref: $ref) { session { id } } }`,
			} {
				for _, vars := range []map[string]any{{"id": id, "ref": ref}, {}, {"id": nil, "ref": nil}} {
					e := a.fails(tok, "BAD_USER_INPUT", q, vars)
					if e.Extensions["field"] != "sessionId" || !strings.Contains(e.Message, "sessionId") || !strings.Contains(e.Message, "ref") {
						t.Errorf("%v: %s (field %v), want both arguments named", vars, e.Message, e.Extensions["field"])
					}
				}
			}
			if got := a.dump(tok); got != before {
				t.Errorf("a refused change wrote:\ngot  %s\nwant %s", got, before)
			}
		})

		t.Run("bad session ids", func(t *testing.T) {
			a := a.on(t)
			before, rev := a.dump(tok), revision(a, tok)
			oneOffs := path(a.ok(tok, `{ oneOffs { id } }`, nil), "oneOffs").([]any)
			oneOff := "o/" + path(oneOffs[0], "id").(string)
			for _, tc := range []struct {
				id   any
				code string
			}{
				{"s/2026-12-01/x/1", "BAD_USER_INPUT"},
				{"s/2026-12-32/1/1", "BAD_USER_INPUT"},
				{"o/007", "BAD_USER_INPUT"},
				{strings.Replace(id, "s/", "x/", 1), "BAD_USER_INPUT"},
				{id + "/1", "BAD_USER_INPUT"},
				{12345, "BAD_USER_INPUT"},
				{oneOff, "BAD_USER_INPUT"}, // a one-off changes with updateOneOff
				{strings.Replace(id, "2026-12-01", "2026-12-02", 1), "NOT_FOUND"},
			} {
				for _, q := range []string{
					`mutation($id: SessionID) { changeSession(sessionId: $id, change: {note: "x"}) { session { id } } }`,
					`mutation($id: SessionID) { cancelSession(sessionId: $id) { session { id } } }`,
					`mutation($id: SessionID) { restoreSession(sessionId: $id) { session { id } } }`,
				} {
					e := a.fails(tok, tc.code, q, map[string]any{"id": tc.id})
					if e.Extensions["field"] != "sessionId" {
						t.Errorf("%v: field %v (%s), want sessionId", tc.id, e.Extensions["field"], e.Message)
					}
					plainWords(t, e.Message)
				}
			}
			if got, r := a.dump(tok), revision(a, tok); got != before || r != rev {
				t.Errorf("a bad session id wrote (revision %d, was %d)", r, rev)
			}
		})

		t.Run("session(id)", func(t *testing.T) {
			a := a.on(t)
			// Every session of a week, the demo's moved standup and its
			// one-offs included, looks up as the days list it.
			days := a.ok(tok, `{ days(from: "2026-11-30", to: "2026-12-07") { sessions `+strings.TrimPrefix(sessionFields, "session ")+` } }`, nil)
			n, oneOffs := 0, 0
			for _, d := range path(days, "days").([]any) {
				for _, s := range path(d, "sessions").([]any) {
					got := a.ok(tok, `query($id: SessionID!) { session(id: $id) `+strings.TrimPrefix(sessionFields, "session ")+` }`, map[string]any{"id": path(s, "id")})
					if !reflect.DeepEqual(path(got, "session"), s) {
						t.Errorf("session(%v) = %v, want %v", path(s, "id"), path(got, "session"), s)
					}
					n++
					if strings.HasPrefix(path(s, "id").(string), "o/") {
						oneOffs++
					}
				}
			}
			if n == 0 || oneOffs == 0 {
				t.Fatalf("looked up %d sessions, %d one-offs: the demo week should have both", n, oneOffs)
			}
			e := a.fails(tok, "BAD_USER_INPUT", `{ session(id: "s/2026-12-01") { id } }`, nil)
			if e.Extensions["field"] != "id" {
				t.Errorf("a malformed id: field %v, want id", e.Extensions["field"])
			}
			a.fails(tok, "NOT_FOUND", `query($id: SessionID!) { session(id: $id) { id } }`, map[string]any{"id": strings.Replace(id, "2026-12-01", "2026-12-02", 1)})
			a.fails(tok, "NOT_FOUND", `{ session(id: "o/999999999") { id } }`, nil)
			// One failed lookup answers null beside the rest.
			r := a.do(tok, `{ session(id: "o/999999999") { id } business { name } }`, nil)
			if len(r.Errors) != 1 || r.Data["session"] != nil || path(r.Data, "business", "name") == nil {
				t.Errorf("a failed lookup beside another field: %+v %v", r.Errors, r.Data)
			}
			// Another business's session is not found, by id or by ref.
			other := a.business("by-id-other", engine.Office)
			a.fails(other, "NOT_FOUND", `query($id: SessionID!) { session(id: $id) { id } }`, map[string]any{"id": id})
			a.fails(other, "NOT_FOUND", `mutation($id: SessionID) { cancelSession(sessionId: $id) { session { id } } }`, map[string]any{"id": id})
		})
	})
}

func TestLookupsByID(t *testing.T) {
	eachDatabase(t, func(t *testing.T, a *api) {
		mine := a.business("lookups", engine.Office)
		theirs := a.business("lookups-other", engine.Office)
		a.ok(theirs, `mutation { createClosure(input: {from: "2027-01-01", to: "2027-01-01", reason: "New year"}) { closure { id } } }`, nil)
		for _, tc := range []struct{ list, one, fields string }{
			{"allSeries", "series", "{ id name endDate }"},
			{"plans", "plan", "{ id name price }"},
			{"oneOffs", "oneOff", "{ id label date }"},
			{"closures", "closure", "{ id reason from }"},
		} {
			rows := path(a.ok(theirs, `{ `+tc.list+` `+tc.fields+` }`, nil), tc.list).([]any)
			if len(rows) == 0 {
				t.Fatalf("%s: the demo has none", tc.list)
			}
			for _, row := range rows {
				vars := map[string]any{"id": path(row, "id")}
				got := a.ok(theirs, `query($id: ID!) { `+tc.one+`(id: $id) `+tc.fields+` }`, vars)
				if !reflect.DeepEqual(path(got, tc.one), row) {
					t.Errorf("%s(%v) = %v, want %v", tc.one, vars["id"], path(got, tc.one), row)
				}
				// The same id from another business is not found, and the
				// rest of the answer still comes.
				r := a.do(mine, `query($id: ID!) { `+tc.one+`(id: $id) { id } business { slug } }`, vars)
				if len(r.Errors) != 1 || r.Errors[0].code() != "NOT_FOUND" || r.Data[tc.one] != nil || path(r.Data, "business", "slug") != "lookups" {
					t.Errorf("%s(%v) of another business: %+v %v", tc.one, vars["id"], r.Errors, r.Data)
				}
			}
		}
		a.fails(mine, "NOT_FOUND", `{ series(id: "999999999") { id } }`, nil)
	})
}

func TestTimetableInputs(t *testing.T) {
	eachDatabase(t, func(t *testing.T, a *api) {
		tok := a.business("inputs", engine.Office)
		oneOff := path(a.ok(tok, `{ oneOffs { id } }`, nil), "oneOffs").([]any)[0].(map[string]any)["id"]
		show := `oneOff { label capacity units note room { id } start }`

		t.Run("updateOneOff: null clears, absent keeps", func(t *testing.T) {
			a := a.on(t)
			set := a.ok(tok, `mutation($id: ID!) { updateOneOff(id: $id, input: {capacity: 12, label: "Town hall", units: 1, note: "Bring questions"}) { `+show+` } }`,
				map[string]any{"id": oneOff})
			was := path(set, "updateOneOff", "oneOff").(map[string]any)
			if number(was["capacity"]) != 12 || was["label"] != "Town hall" {
				t.Fatalf("set: %v", was)
			}
			kept := a.ok(tok, `mutation($id: ID!) { updateOneOff(id: $id, input: {start: "`+was["start"].(string)+`"}) { `+show+` } }`, map[string]any{"id": oneOff})
			if !reflect.DeepEqual(path(kept, "updateOneOff", "oneOff"), any(was)) {
				t.Errorf("fields left out changed: %v, want %v", path(kept, "updateOneOff", "oneOff"), was)
			}
			cleared := a.ok(tok, `mutation($id: ID!) { updateOneOff(id: $id, input: {capacity: null}) { `+show+` } }`, map[string]any{"id": oneOff})
			got := path(cleared, "updateOneOff", "oneOff").(map[string]any)
			if got["capacity"] != nil || got["label"] != "Town hall" {
				t.Errorf("capacity: null: %v, want no limit and the rest kept", got)
			}
			cleared = a.ok(tok, `mutation($id: ID!, $v: String) { updateOneOff(id: $id, input: {label: $v, units: null, note: $v}) { `+show+` } }`,
				map[string]any{"id": oneOff, "v": nil})
			got = path(cleared, "updateOneOff", "oneOff").(map[string]any)
			if got["label"] != nil || got["units"] != nil || got["note"] != nil || got["room"] == nil {
				t.Errorf("label, units, note: null: %v", got)
			}
		})

		t.Run("null on a field that cannot be empty", func(t *testing.T) {
			a := a.on(t)
			series := idOf(a, tok, "allSeries", "name", "Daily standup")
			plan := planOf(a, tok, "Daily standup")
			before := a.dump(tok)
			for _, tc := range []struct{ field, query string }{
				{"roomId", `mutation($id: ID!) { updateOneOff(id: $id, input: {roomId: null}) { revision } }`},
				{"start", `mutation($id: ID!) { updateOneOff(id: $id, input: {start: null}) { revision } }`},
				{"clientIds", `mutation($id: ID!) { updateOneOff(id: $id, input: {clientIds: null}) { revision } }`},
				{"capacity", `mutation($id: ID!) { updateOneOff(id: $id, input: {capacity: 0}) { revision } }`},
				{"classId", `mutation($id: ID!) { updateOneOff(id: $id, input: {classId: "1", class: {activityId: "1", staffIds: ["1"]}}) { revision } }`},
				{"name", `mutation($s: ID!) { updateSeries(id: $s, input: {name: null}) { revision } }`},
				{"cycleWeeks", `mutation($s: ID!) { updateSeries(id: $s, input: {cycleWeeks: null}) { revision } }`},
				{"entries", `mutation($s: ID!) { updateSeries(id: $s, input: {entries: null}) { revision } }`},
				{"price", `mutation($p: ID!) { updatePlan(id: $p, input: {price: null}) { revision } }`},
				{"sessionsPerMonth", `mutation($p: ID!) { updatePlan(id: $p, input: {sessionsPerMonth: 0}) { revision } }`},
				{"price", `mutation($s: ID!) { updateSeries(id: $s, input: {plans: [{name: "No price"}]}) { revision } }`},
			} {
				e := a.fails(tok, "BAD_USER_INPUT", tc.query, map[string]any{"id": oneOff, "s": series, "p": plan})
				if e.Extensions["field"] != tc.field {
					t.Errorf("%s: field %v (%s), want %s", firstLine(tc.query), e.Extensions["field"], e.Message, tc.field)
				}
				plainWords(t, e.Message)
			}
			if after := a.dump(tok); after != before {
				t.Errorf("a refused update wrote:\ngot  %s\nwant %s", after, before)
			}
			data := a.ok(tok, `mutation($p: ID!) { updatePlan(id: $p, input: {sessionsPerMonth: null, name: null}) { plan { sessionsPerMonth name label } } }`, map[string]any{"p": plan})
			if p := path(data, "updatePlan", "plan").(map[string]any); p["sessionsPerMonth"] != nil || p["name"] != p["label"] {
				t.Errorf("sessionsPerMonth: null, name: null: %v, want unlimited and named by its label", p)
			}
		})

		t.Run("updateSeries endDate: null makes it open-ended", func(t *testing.T) {
			a := a.on(t)
			id := created(a, tok, `mutation { createSeries(input: {name: "Spring talks", anchorDate: "2027-01-04", endDate: "2027-03-01", cycleWeeks: 2}) { series { id } } }`,
				"createSeries", "series")
			got := path(a.ok(tok, `query($id: ID!) { series(id: $id) { name anchorDate endDate cycleWeeks } }`, map[string]any{"id": id}), "series")
			if want := map[string]any{"name": "Spring talks", "anchorDate": "2027-01-04", "endDate": "2027-03-01", "cycleWeeks": float64(2)}; !reflect.DeepEqual(got, any(want)) {
				t.Fatalf("created %v, want %v", got, want)
			}
			data := a.ok(tok, `mutation($id: ID!) { updateSeries(id: $id, input: {name: "Talks"}) { series { name endDate } } }`, map[string]any{"id": id})
			if path(data, "updateSeries", "series", "endDate") != "2027-03-01" {
				t.Errorf("endDate left out: %v, want kept", data)
			}
			data = a.ok(tok, `mutation($id: ID!) { updateSeries(id: $id, input: {endDate: null}) { series { name endDate cycleWeeks } } }`, map[string]any{"id": id})
			if s := path(data, "updateSeries", "series").(map[string]any); s["endDate"] != nil || s["name"] != "Talks" || number(s["cycleWeeks"]) != 2 {
				t.Errorf("endDate: null: %v, want open-ended and the rest kept", s)
			}
		})

		t.Run("a missing required create field is a validation error", func(t *testing.T) {
			a := a.on(t)
			before := a.dump(tok)
			for _, q := range []string{
				`mutation { createOneOff(input: {classId: "1", date: "2027-01-05", start: "10:00", end: "11:00"}) { revision } }`,
				`mutation { createOneOff(input: {classId: "1", roomId: "1", start: "10:00", end: "11:00"}) { revision } }`,
				`mutation { createSeries(input: {name: "No start"}) { revision } }`,
				`mutation { createSeries(input: {anchorDate: "2027-01-04"}) { revision } }`,
				`mutation { createPlan(input: {seriesId: "1", months: 1}) { revision } }`,
				`mutation { createPlan(input: {price: "10"}) { revision } }`,
				`mutation { createClosure(input: {from: "2027-01-05"}) { revision } }`,
				`mutation { createSeries(input: {name: "x", anchorDate: "2027-01-04", entries: [{week: 1, classId: "1", classTime: {roomId: "1", weekday: MONDAY, start: "10:00"}}]}) { revision } }`,
				`mutation { createOneOff(input: {class: {activityId: "1"}, roomId: "1", date: "2027-01-05", start: "10:00", end: "11:00"}) { revision } }`,
				`mutation { updateSeries(id: "1", input: {openEnded: true}) { revision } }`,
			} {
				refused(a, tok, q)
			}
			if after := a.dump(tok); after != before {
				t.Errorf("a refused create wrote")
			}
			e := a.fails(tok, "BAD_USER_INPUT", `mutation { createOneOff(input: {roomId: "1", date: "2027-01-05", start: "10:00", end: "11:00"}) { revision } }`, nil)
			if e.Extensions["field"] != "classId" {
				t.Errorf("a one-off with no class: field %v, want classId", e.Extensions["field"])
			}
		})
	})
}
