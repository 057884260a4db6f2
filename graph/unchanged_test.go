package graph_test

import (
	"testing"
)

// TestUnchangedWritesKeepTheRevision: a write that changes nothing — an
// update to the values a row has, an empty update, a session restored that
// has no change, a change to what the session is — answers the revision
// as it was and leaves it there, dry run or not (the revision is every
// cache's and CalDAV sync token's key); a write that changes something
// moves it by one.
func TestUnchangedWritesKeepTheRevision(t *testing.T) {
	eachDatabase(t, func(t *testing.T, a *api) {
		f := newBookingFx(t, a)
		revision := func() float64 {
			return path(f.ok(f.tok, `{ business { revision } }`, nil), "business", "revision").(float64)
		}
		room := rows(f.ok(f.tok, `{ rooms { id name capacity } }`, nil), "rooms")[0].(map[string]any)
		ct := path(f.ok(f.tok, `query($id: ID!) { classTime(id: $id) { start end label } }`, map[string]any{"id": f.ref["classTimeId"]}), "classTime").(map[string]any)
		sub := membershipOf(f.api, f.tok, "Bluefin Legal", "Daily standup")
		oneOff := created(f.api, f.tok, `mutation($c: ID!, $r: ID!, $o: ID!) { createOneOff(input: {classId: $c, roomId: $r, date: "2026-12-09", start: "16:00", end: "17:00", clientIds: [$o]}) { oneOff { id } } }`,
			"createOneOff", "oneOff", map[string]any{"c": f.ref["classId"], "r": room["id"], "o": f.clients["Orbit Analytics"]})
		business := path(f.ok(f.tok, `{ business { name } }`, nil), "business", "name")

		start := revision()
		for name, c := range map[string]struct {
			field, query string
			vars         map[string]any
		}{
			"the same name and capacity": {"updateRoom", `mutation($id: ID!, $n: String, $c: Int, $dry: Boolean) { updateRoom(id: $id, input: {name: $n, capacity: $c}, dryRun: $dry) { revision } }`,
				map[string]any{"id": room["id"], "n": room["name"], "c": room["capacity"]}},
			"an empty update": {"updateRoom", `mutation($id: ID!, $dry: Boolean) { updateRoom(id: $id, input: {}, dryRun: $dry) { revision } }`,
				map[string]any{"id": room["id"]}},
			"the same times and label": {"updateClassTime", `mutation($id: ID!, $s: LocalTime, $e: LocalTime, $l: String, $dry: Boolean) { updateClassTime(id: $id, input: {start: $s, end: $e, label: $l}, dryRun: $dry) { revision } }`,
				map[string]any{"id": f.ref["classTimeId"], "s": ct["start"], "e": ct["end"], "l": ct["label"]}},
			"a client's own name": {"updateClient", `mutation($id: ID!, $dry: Boolean) { updateClient(id: $id, input: {name: "Bluefin Legal"}, dryRun: $dry) { revision } }`,
				map[string]any{"id": f.clients["Bluefin Legal"]}},
			"a membership's own start": {"updateMembership", `mutation($id: ID!, $dry: Boolean) { updateMembership(id: $id, input: {startDate: "2026-11-01"}, dryRun: $dry) { revision } }`,
				map[string]any{"id": sub}},
			"the business's own name": {"updateBusiness", `mutation($n: String, $dry: Boolean) { updateBusiness(input: {name: $n}, dryRun: $dry) { revision } }`,
				map[string]any{"n": business}},
			"a one-off's own clients": {"updateOneOff", `mutation($id: ID!, $o: ID!, $dry: Boolean) { updateOneOff(id: $id, input: {clientIds: [$o]}, dryRun: $dry) { revision } }`,
				map[string]any{"id": oneOff, "o": f.clients["Orbit Analytics"]}},
			"a session without a change restored": {"restoreSession", `mutation($ref: SessionRefInput!, $dry: Boolean) { restoreSession(ref: $ref, dryRun: $dry) { revision } }`,
				map[string]any{"ref": f.ref}},
			"a session changed to what it is": {"changeSession", `mutation($ref: SessionRefInput!, $s: LocalTime, $dry: Boolean) { changeSession(ref: $ref, change: {start: $s}, dryRun: $dry) { revision } }`,
				map[string]any{"ref": f.ref, "s": ct["start"]}},
		} {
			for _, dry := range []bool{true, false} {
				c.vars["dry"] = dry
				if got := path(f.ok(f.tok, c.query, c.vars), c.field, "revision"); got != start {
					t.Errorf("%s, %s (dry run %v): revision %v, want %v", c.field, name, dry, got, start)
				}
			}
			if now := revision(); now != start {
				t.Fatalf("%s, %s: the revision went from %v to %v", c.field, name, start, now)
			}
		}

		got := path(f.ok(f.tok, `mutation($id: ID!) { updateRoom(id: $id, input: {name: "Renamed"}) { revision } }`, map[string]any{"id": room["id"]}), "updateRoom", "revision")
		if got != start+1 || revision() != start+1 {
			t.Errorf("a rename: revision %v, then %v, want %v", got, revision(), start+1)
		}
	})
}
