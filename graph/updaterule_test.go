package graph_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/vektah/gqlparser/v2/ast"

	"github.com/koredyne/schedule/graph/generated"
)

// readsAs are the input fields whose object field has another name
// (given), or that null clears although the object field reads non-null
// because it answers something else then (empty).
var readsAs = map[string]string{
	// Plan.name answers the plan's label when it has no name of its own.
	"UpdatePlanInput.name": "",
}

// TestTheUpdateRuleEverywhere walks every UpdateXInput of the schema and
// sends each of its fields as null, and each whole number as 0, on a dry
// run, against a real row. The update rule, as docs/api.md gives it: null
// clears a field whose object field reads nullable (the payload then
// reads null), and is refused with BAD_USER_INPUT naming the field
// everywhere else — a field that reads non-null and every list, which []
// empties where it can be empty. A 0 is either refused naming the field or
// read back as 0: never turned into 1, a default, or null. Nothing is
// written.
func TestTheUpdateRuleEverywhere(t *testing.T) {
	eachDatabase(t, func(t *testing.T, a *api) {
		f := newBookingFx(t, a)
		standing := created(f.api, f.tok, `mutation($c: ID!, $s: SessionID!) { createStandingBooking(input: {clientId: $c, sessionId: $s, from: "2026-12-08", until: "2027-02-01"}) { standingBooking { id } } }`,
			"createStandingBooking", "standingBooking", map[string]any{"c": f.clients["Bluefin Legal"], "s": f.standupID("2026-12-08")})
		room := f.ids(f.tok, "rooms", "name")["Boardroom"]
		oneOff := created(f.api, f.tok, `mutation($c: ID!, $r: ID!) { createOneOff(input: {classId: $c, roomId: $r, date: "2026-12-09", start: "16:00", end: "17:00", label: "Talk", capacity: 5, units: 1, note: "Bring a laptop"}) { oneOff { id } } }`,
			"createOneOff", "oneOff", map[string]any{"c": f.ref["classId"], "r": room})
		rule := created(f.api, f.tok, `mutation($r: ID!) { createCapacityRule(input: {roomId: $r, weekdays: [SUNDAY], start: "00:00", end: "24:00", units: 1}) { capacityRule { id } } }`,
			"createCapacityRule", "capacityRule", map[string]any{"r": created(f.api, f.tok, `mutation { createRoom(input: {name: "Annex"}) { room { id } } }`, "createRoom", "room")})
		series := f.ids(f.tok, "allSeries", "name")["Daily standup"]
		plan := created(f.api, f.tok, `mutation($s: ID!) { createPlan(input: {seriesId: $s, name: "Ten", sessionsPerMonth: 10, price: "90"}) { plan { id } } }`,
			"createPlan", "plan", map[string]any{"s": series})
		activity := created(f.api, f.tok, `mutation { createActivity(input: {name: "Yoga", color: "#e4572e"}) { activity { id } } }`, "createActivity", "activity")
		endpoint := created(f.api, f.tok, `mutation { createWebhookEndpoint(input: {url: "https://93.184.215.14/hooks", events: ["schedule.changed"], description: "SMS"}) { endpoint { id } } }`,
			"createWebhookEndpoint", "endpoint")
		staff := rows(f.ok(f.tok, `{ staff { id } }`, nil), "staff")[0].(map[string]any)["id"]
		timeOff := created(f.api, f.tok, `mutation($s: ID!) { createTimeOff(input: {staffId: $s, from: "2027-03-01", to: "2027-03-02", fromTime: "10:00", toTime: "12:00", reason: "Course"}) { timeOff { id } } }`,
			"createTimeOff", "timeOff", map[string]any{"s": staff})
		ct := f.ref["classTimeId"]
		f.ok(f.tok, `mutation($id: ID!) { updateClassTime(id: $id, input: {label: "Early", type: "open", units: 1}) { classTime { id } } }`, map[string]any{"id": ct})
		ids := map[string]any{ // a row for each update mutation
			"updateRoom": room, "updateStaff": rows(f.ok(f.tok, `{ staff { id } }`, nil), "staff")[0].(map[string]any)["id"],
			"updateActivity": activity, "updateClass": f.ref["classId"], "updateClassTime": ct, "updateSeries": series,
			"updatePlan": plan, "updateOneOff": oneOff, "updateClient": f.clients["Bluefin Legal"],
			"updateMembership": membershipOf(f.api, f.tok, "Bluefin Legal", "Daily standup"), "updateCapacityRule": rule,
			"updateWebhookEndpoint": endpoint, "updateTimeOff": timeOff,
			"updateStandingBooking": standing,
		}
		before := f.dump(f.tok)

		schema := generated.NewExecutableSchema(generated.Config{}).Schema()
		named := func(t *ast.Type) string {
			for t.Elem != nil {
				t = t.Elem
			}
			return t.NamedType
		}
		inputs := 0
		for _, in := range schema.Types {
			if in.Kind != ast.InputObject || !strings.HasPrefix(in.Name, "Update") || !strings.HasSuffix(in.Name, "Input") {
				continue
			}
			inputs++
			var m *ast.FieldDefinition
			deprecated := false // taken only by a mutation that answers as another does
			for _, field := range schema.Mutation.Fields {
				if arg := field.Arguments.ForName("input"); arg != nil && named(arg.Type) == in.Name {
					if field.Directives.ForName("deprecated") == nil {
						m = field
					} else {
						deprecated = true
					}
				}
			}
			if m == nil && deprecated {
				continue
			}
			if m == nil {
				t.Errorf("%s: no mutation takes it", in.Name)
				continue
			}
			// The payload's own object: UpdateRoomInput's Room.
			var object *ast.FieldDefinition
			for _, pf := range schema.Types[named(m.Type)].Fields {
				if named(pf.Type) == strings.TrimSuffix(strings.TrimPrefix(in.Name, "Update"), "Input") && pf.Directives.ForName("deprecated") == nil {
					object = pf
				}
			}
			if object == nil {
				t.Errorf("%s: %s holds no %s", in.Name, named(m.Type), strings.TrimSuffix(strings.TrimPrefix(in.Name, "Update"), "Input"))
				continue
			}
			def := schema.Types[named(object.Type)]
			id, needsID := ids[m.Name]
			if m.Arguments.ForName("id") != nil && !needsID {
				t.Errorf("%s: give it a row in ids", m.Name)
				continue
			}
			for _, field := range in.Fields {
				where := in.Name + "." + field.Name
				reads := field.Name
				if why, ok := readsAs[where]; ok && why != "" {
					reads = why
				}
				read := def.Fields.ForName(reads)
				for _, name := range []string{strings.TrimSuffix(reads, "Id"), strings.TrimSuffix(reads, "Ids"), strings.TrimSuffix(reads, "Ids") + "s"} {
					if read == nil {
						read = def.Fields.ForName(name)
					}
				}
				if read == nil {
					t.Errorf("%s: %s has no field that reads it back", where, def.Name)
					continue
				}
				sel := read.Name
				if k := schema.Types[named(read.Type)].Kind; k == ast.Object {
					sel += " { __typename }"
				}
				args := "input: {" + field.Name + ": $v}, dryRun: true"
				decl := "$v: " + field.Type.String()
				vars := map[string]any{"v": nil}
				if needsID {
					args, decl, vars["id"] = "id: $id, "+args, decl+", $id: ID!", id
				}
				q := fmt.Sprintf("mutation(%s) { %s(%s) { %s { %s } } }", decl, m.Name, args, object.Name, sel)

				_, computed := readsAs[where]
				if computed {
					f.ok(f.tok, q, vars)
				} else if !read.Type.NonNull {
					data := f.ok(f.tok, q, vars)
					if got := path(data, m.Name, object.Name, read.Name); got != nil {
						t.Errorf("%s: null reads back as %v, want null", where, got)
					}
				} else if e := f.fails(f.tok, "BAD_USER_INPUT", q, vars); e.Extensions["field"] != field.Name {
					t.Errorf("%s: null is refused naming %v (%s), want %s", where, e.Extensions["field"], e.Message, field.Name)
				}

				if field.Type.NamedType == "Int" {
					vars["v"] = 0
					r := f.do(f.tok, q, vars)
					switch got := path(r.Data, m.Name, object.Name, read.Name); {
					case len(r.Errors) > 0 && (r.Errors[0].code() != "BAD_USER_INPUT" || r.Errors[0].Extensions["field"] != field.Name):
						t.Errorf("%s: 0 is refused with %+v, want BAD_USER_INPUT naming %s", where, r.Errors[0], field.Name)
					case len(r.Errors) == 0 && got != float64(0):
						t.Errorf("%s: 0 reads back as %v", where, got)
					}
				}
			}
		}
		if inputs < 10 {
			t.Errorf("found %d update inputs", inputs)
		}
		if after := f.dump(f.tok); after != before {
			t.Errorf("dry runs wrote")
		}
	})
}
