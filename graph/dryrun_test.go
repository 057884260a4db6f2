package graph_test

import (
	"strconv"
	"strings"
	"testing"

	"github.com/koredyne/schedule/graph/generated"
)

// TestDryRunsInventNoIDs: every mutation that makes something answers,
// on a dry run, provisional ids for what it would make — negative, so never
// a row's, and no two alike, even for two dry runs in one request — rather
// than the ids its rolled-back inserts drew, which the next real rows get.
// The objects a dry run makes refer to each other by those ids, and an id
// sent back is refused. The mutations are found in the schema: each create…
// and book… mutation has a case here.
func TestDryRunsInventNoIDs(t *testing.T) {
	eachDatabase(t, func(t *testing.T, a *api) {
		f := newBookingFx(t, a)
		room := f.ids(f.tok, "rooms", "name")["Boardroom"]
		activity := rows(f.ok(f.tok, `{ activities { id } }`, nil), "activities")[0].(map[string]any)["id"]
		staff := created(f.api, f.tok, `mutation { createStaff(input: {name: "Pat Newman"}) { staff { id } } }`, "createStaff", "staff")
		standup := f.ids(f.tok, "allSeries", "name")["Daily standup"]
		vars := map[string]any{"room": room, "activity": activity, "staff": staff, "series": standup, "ref": f.ref,
			"client": f.clients["Orbit Analytics"], "class": f.ref["classId"], "session": f.standupID("2026-12-08")}
		before := f.dump(f.tok)

		cases := map[string]struct {
			query string
			ids   [][]string // where the payload holds the ids of what it makes
		}{
			"createRoom":     {`createRoom(input: {name: "Preview"}, dryRun: true) { room { id } }`, [][]string{{"room"}}},
			"createStaff":    {`createStaff(input: {name: "Preview"}, dryRun: true) { staff { id } }`, [][]string{{"staff"}}},
			"createActivity": {`createActivity(input: {name: "Preview"}, dryRun: true) { activity { id } }`, [][]string{{"activity"}}},
			"createClass":    {`createClass(input: {activityId: $activity, staffIds: [$staff]}, dryRun: true) { class { id } }`, [][]string{{"class"}}},
			"createClassTime": {`createClassTime(input: {roomId: $room, weekday: MONDAY, start: "05:00", end: "05:30"}, dryRun: true) { classTime { id } }`,
				[][]string{{"classTime"}}},
			"createSeries": {`createSeries(input: {name: "Preview", anchorDate: "2026-11-30", entries: [{week: 1,
				classTime: {roomId: $room, weekday: MONDAY, start: "05:00", end: "05:30"}, class: {activityId: $activity, staffIds: [$staff]}}],
				plans: [{price: "10"}]}, dryRun: true) { series { id entries { id classTime { id } class { id } } plans { id } } }`,
				[][]string{{"series"}, {"series", "entries", "0"}, {"series", "entries", "0", "classTime"}, {"series", "entries", "0", "class"}, {"series", "plans", "0"}}},
			"createPlan": {`createPlan(input: {seriesId: $series, price: "10"}, dryRun: true) { plan { id } }`, [][]string{{"plan"}}},
			"createOneOff": {`createOneOff(input: {classId: $class, roomId: $room, date: "2026-12-09", start: "05:00", end: "05:30"}, dryRun: true) { oneOff { id } }`,
				[][]string{{"oneOff"}}},
			"createClosure": {`createClosure(input: {from: "2027-03-01", to: "2027-03-01"}, dryRun: true) { closure { id } }`, [][]string{{"closure"}}},
			"createTimeOff": {`createTimeOff(input: {staffId: $staff, from: "2027-03-01", to: "2027-03-01"}, dryRun: true) { timeOff { id } }`, [][]string{{"timeOff"}}},
			"createClient":  {`createClient(input: {name: "Preview"}, dryRun: true) { client { id } }`, [][]string{{"client"}}},
			"createMembership": {`createMembership(input: {clientId: $client, seriesId: $series, startDate: "2026-11-01"}, dryRun: true) { membership { id } }`,
				[][]string{{"membership"}}},
			"createCapacityRule": {`createCapacityRule(input: {roomId: $room, from: "2027-03-01", to: "2027-03-01", start: "00:00", end: "24:00", units: 1}, dryRun: true) { capacityRule { id } }`,
				[][]string{{"capacityRule"}}},
			"createToken": {`createToken(input: {role: READ_ONLY}, dryRun: true) { token { id } }`, [][]string{{"token"}}},
			"createWebhookEndpoint": {`createWebhookEndpoint(input: {url: "https://93.184.215.14/hooks", events: ["schedule.changed"]}, dryRun: true) { endpoint { id } }`,
				[][]string{{"endpoint"}}},
			"createAppPassword": {`createAppPassword(input: {login: "preview", role: READ_ONLY}, dryRun: true) { appPassword { id } }`, [][]string{{"appPassword"}}},
			"bookSession":       {`bookSession(ref: $ref, clientId: $client, dryRun: true) { booking { id } }`, [][]string{{"booking"}}},
			"createStandingBooking": {`createStandingBooking(input: {sessionId: $session, clientId: $client, from: "2026-12-08"}, dryRun: true) { standingBooking { id } }`,
				[][]string{{"standingBooking"}}},
			"bookRoom": {`bookRoom(input: {roomId: $room, date: "2026-12-09", start: "21:00", end: "22:00"}, dryRun: true) { roomBooking { id } }`,
				[][]string{{"roomBooking"}}},
			"replaceSeriesFrom": {`replaceSeriesFrom(id: $series, date: "2027-01-11", dryRun: true) { series { id entries { id } } }`,
				[][]string{{"series"}, {"series", "entries", "0"}}},
		}
		for _, m := range generated.NewExecutableSchema(generated.Config{}).Schema().Mutation.Fields {
			if _, ok := cases[m.Name]; !ok && (strings.HasPrefix(m.Name, "create") || strings.HasPrefix(m.Name, "book")) && m.Directives.ForName("deprecated") == nil {
				t.Errorf("%s makes something: give it a case", m.Name)
			}
		}

		types := map[string]string{"room": "ID!", "activity": "ID!", "staff": "ID!", "series": "ID!", "ref": "SessionRefInput!", "client": "ID!", "class": "ID!", "session": "SessionID!"}
		op := func(body string) string { // a mutation declaring the variables body uses
			var decl []string
			for name, typ := range types {
				if strings.Contains(body, "$"+name+",") || strings.Contains(body, "$"+name+"]") || strings.Contains(body, "$"+name+")") {
					decl = append(decl, "$"+name+": "+typ)
				}
			}
			if len(decl) == 0 {
				return "mutation { " + body + " }"
			}
			return "mutation(" + strings.Join(decl, ", ") + ") { " + body + " }"
		}
		used := func(body string) map[string]any {
			out := map[string]any{}
			for name, v := range vars {
				if strings.Contains(op(body), "$"+name+":") {
					out[name] = v
				}
			}
			return out
		}
		seen := map[string]string{}
		provisional := func(name string, id any) {
			t.Helper()
			s, _ := id.(string)
			if n, err := strconv.ParseInt(s, 10, 64); err != nil || n >= 0 {
				t.Errorf("%s: id %v, want a provisional (negative) one", name, id)
			}
			if other, ok := seen[s]; ok {
				t.Errorf("%s: id %s, as %s had", name, s, other)
			}
			seen[s] = name
		}
		for name, c := range cases {
			data := f.ok(f.tok, op(c.query), used(c.query))
			for _, at := range c.ids {
				v := path(data, name)
				for _, k := range at {
					if i, err := strconv.Atoi(k); err == nil {
						l, _ := v.([]any)
						if i >= len(l) {
							t.Fatalf("%s: no %v in %v", name, at, data)
						}
						v = l[i]
						continue
					}
					v = path(v, k)
				}
				provisional(name+" "+strings.Join(at, "."), path(v, "id"))
			}
		}

		// Two in one request, each its own.
		two := f.ok(f.tok, `mutation { a: createRoom(input: {name: "One"}, dryRun: true) { room { id } } b: createRoom(input: {name: "Two"}, dryRun: true) { room { id } } }`, nil)
		provisional("the first of two rooms", path(two, "a", "room", "id"))
		provisional("the second of two rooms", path(two, "b", "room", "id"))

		// A series made inline refers to its class time by the id the
		// payload gives it.
		inline := `createSeries(input: {name: "Preview", anchorDate: "2026-11-30", entries: [{week: 1,
			classTime: {roomId: $room, weekday: MONDAY, start: "05:00", end: "05:30"}, class: {activityId: $activity, staffIds: [$staff]}}]},
			dryRun: true) { series { id entries { series { id } classTime { id room { id } } } } }`
		series := path(f.ok(f.tok, op(inline), used(inline)), "createSeries", "series")
		entry := path(series, "entries").([]any)[0]
		if path(entry, "series", "id") != path(series, "id") || path(entry, "classTime", "room", "id") != room {
			t.Errorf("the preview's entry: %v of %v", entry, series)
		}

		if after := f.dump(f.tok); after != before {
			t.Errorf("dry runs changed the business")
		}
		for id := range seen {
			if e := f.fails(f.tok, "BAD_USER_INPUT", `query($id: ID!) { room(id: $id) { id } }`, map[string]any{"id": id}); e.Extensions["field"] == nil {
				t.Errorf("the provisional id %s sent back: %v", id, e.Extensions)
			}
			break
		}
		real := created(f.api, f.tok, `mutation { createRoom(input: {name: "Real"}) { room { id } } }`, "createRoom", "room")
		if n, err := strconv.ParseInt(real, 10, 64); err != nil || n <= 0 {
			t.Errorf("a real room's id: %s", real)
		}
	})
}
