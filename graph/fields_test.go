package graph_test

import (
	"strings"
	"testing"
)

// TestErrorsNameWhatWasSent: extensions.field names the argument, or the
// field of an input, the client sent — a session named by sessionId is
// sessionId in every error about it (cancelled, full, not there), by ref
// ref, by oneOffId oneOffId; a value a scalar cannot read is named where it
// was given (clientId, roomId inside input, to), not by its type.
func TestErrorsNameWhatWasSent(t *testing.T) {
	eachDatabase(t, func(t *testing.T, a *api) {
		f := newBookingFx(t, a)
		sessionID := func(date string) string {
			for _, s := range path(f.ok(f.tok, `query($d: Date!) { day(date: $d) { sessions { id label } } }`, map[string]any{"d": date}), "day", "sessions").([]any) {
				if path(s, "label") == "Daily standup" {
					return path(s, "id").(string)
				}
			}
			t.Fatalf("no standup on %s", date)
			return ""
		}
		full, cancelled := sessionID("2026-12-08"), sessionID("2026-12-09")
		f.book(f.ref, "Orbit Analytics", false)
		f.book(f.ref, "Bluefin Legal", false)
		f.ok(f.tok, `mutation($id: SessionID) { cancelSession(sessionId: $id) { session { cancelled } } }`, map[string]any{"id": cancelled})
		oneOff := created(f.api, f.tok, `mutation($c: ID!, $r: ID!) { createOneOff(input: {classId: $c, roomId: $r, date: "2026-12-09", start: "16:00", end: "17:00"}) { oneOff { id } } }`,
			"createOneOff", "oneOff", map[string]any{"c": f.ref["classId"], "r": f.ids(f.tok, "rooms", "name")["Boardroom"]})
		f.ok(f.tok, `mutation($id: ID!) { cancelOneOff(id: $id) { oneOff { cancelled } } }`, map[string]any{"id": oneOff})
		parts := strings.Split(cancelled, "/") // s/DATE/CLASSTIME/CLASS
		cancelledRef := map[string]any{"date": parts[1], "classTimeId": parts[2], "classId": parts[3]}

		const book = `mutation($id: SessionID, $ref: SessionRefInput, $o: ID, $c: ID!) { bookSession(sessionId: $id, ref: $ref, oneOffId: $o, clientId: $c) { booking { id } } }`
		who := f.clients["Cedar & Pine Architects"]
		for _, c := range []struct {
			name, code, field string
			vars              map[string]any
		}{
			{"a full session by its id", "CAPACITY_FULL", "sessionId", map[string]any{"id": full, "c": who}},
			{"a full session by its ref", "CAPACITY_FULL", "ref", map[string]any{"ref": f.ref, "c": who}},
			{"a cancelled session by its id", "BAD_USER_INPUT", "sessionId", map[string]any{"id": cancelled, "c": who}},
			{"a cancelled session by its ref", "BAD_USER_INPUT", "ref", map[string]any{"ref": cancelledRef, "c": who}},
			{"a cancelled one-off by oneOffId", "BAD_USER_INPUT", "oneOffId", map[string]any{"o": oneOff, "c": who}},
			{"a cancelled one-off by its session id", "BAD_USER_INPUT", "sessionId", map[string]any{"id": "o/" + oneOff, "c": who}},
			{"a session that is not there", "NOT_FOUND", "sessionId", map[string]any{"id": "s/2026-12-08/999999/1", "c": who}},
			{"a one-off that is not there", "NOT_FOUND", "oneOffId", map[string]any{"o": "999999", "c": who}},
			{"a client id that is not one", "BAD_USER_INPUT", "clientId", map[string]any{"id": full, "c": "abc"}},
			{"a session id that is not one", "BAD_USER_INPUT", "sessionId", map[string]any{"id": "s/x", "c": who}},
		} {
			if e := f.fails(f.tok, c.code, book, c.vars); e.Extensions["field"] != c.field {
				t.Errorf("bookSession, %s: field %v (%s), want %s", c.name, e.Extensions["field"], e.Message, c.field)
			}
		}
		for _, c := range []struct{ query, field string }{
			{`mutation { createClassTime(input: {roomId: "x", weekday: MONDAY, start: "05:00", end: "06:00"}) { classTime { id } } }`, "roomId"},
			{`mutation { createClass(input: {activityId: "1", staffIds: ["1", "-2"]}) { class { id } } }`, "staffIds"},
			{`{ days(from: "2026-12-01", to: "soon") { date } }`, "to"},
			{`{ session(id: "nope") { id } }`, "id"},
			{`{ availability(roomId: "1", from: "2026-12-01", to: "2026-12-02T00:00:00Z", units: 1, minutes: 1) { start } }`, "from"},
			{`mutation { createOneOff(input: {roomId: "1", classId: "1", date: "2026-12-09", start: "25:00", end: "26:00"}) { oneOff { id } } }`, "start"},
		} {
			if e := f.fails(f.tok, "BAD_USER_INPUT", c.query, nil); e.Extensions["field"] != c.field {
				t.Errorf("%s: field %v (%s), want %s", firstLine(c.query), e.Extensions["field"], e.Message, c.field)
			}
		}
	})
}
