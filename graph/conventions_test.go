package graph_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/99designs/gqlgen/client"

	"github.com/koredyne/schedule/engine"
	"github.com/koredyne/schedule/models"
)

// TestUpdateRule: in an update input a field left out keeps its value,
// null clears one that can be empty, and null on one that cannot is
// BAD_USER_INPUT naming the field, writing nothing.
func TestUpdateRule(t *testing.T) {
	eachDatabase(t, func(t *testing.T, a *api) {
		tok := a.business("rule", engine.Gym)
		room := idOf(a, tok, "rooms", "name", "Ring")
		made := a.ok(tok, `mutation($r: ID!) { createClassTime(input: {roomId: $r, weekday: SUNDAY, start: "05:00", end: "05:30", label: "Dawn", capacity: 6}) {
			classTime { id label capacity } } }`, map[string]any{"r": room})
		ct := path(made, "createClassTime", "classTime", "id").(string)
		if got := path(made, "createClassTime", "classTime", "capacity"); got != float64(6) {
			t.Fatalf("capacity: got %v, want 6", got)
		}
		update := func(input string) map[string]any {
			t.Helper()
			q := fmt.Sprintf(`mutation($id: ID!) { updateClassTime(id: $id, input: %s) { classTime { label capacity start bufferMinutes } } }`, input)
			return path(a.ok(tok, q, map[string]any{"id": ct}), "updateClassTime", "classTime").(map[string]any)
		}
		if got := update(`{capacity: null}`); got["capacity"] != nil || got["label"] != "Dawn" {
			t.Errorf("capacity: null: got %v, want no limit and the label kept", got)
		}
		if got := update(`{label: null, bufferMinutes: 10}`); got["label"] != nil || got["capacity"] != nil || got["bufferMinutes"] != float64(10) {
			t.Errorf("label: null: got %v, want no label, no limit, a buffer of 10", got)
		}
		if got := update(`{capacity: 4}`); got["capacity"] != float64(4) || got["start"] != "05:00" || got["bufferMinutes"] != float64(10) {
			t.Errorf("capacity: 4: got %v, want the rest kept", got)
		}

		before := a.dump(tok)
		for _, tc := range []struct{ query, field string }{
			{`mutation($id: ID!) { updateClassTime(id: $id, input: {start: null}) { revision } }`, "start"},
			{`mutation($id: ID!) { updateClassTime(id: $id, input: {roomId: null, label: "Kept?"}) { revision } }`, "roomId"},
			{`mutation($id: ID!) { updateClassTime(id: $id, input: {capacity: 0}) { revision } }`, "capacity"},
			{`mutation($room: ID!) { updateRoom(id: $room, input: {name: null}) { revision } }`, "name"},
			{`mutation { updateBusiness(input: {name: null}) { revision } }`, "name"},
			{`mutation { updateBusiness(input: {timeZone: null}) { revision } }`, "timeZone"},
			{`mutation($r: ID!) { createClassTime(input: {roomId: $r, weekday: SUNDAY, start: "05:00", end: "05:30", units: 0}) { revision } }`, "units"},
		} {
			e := a.fails(tok, "BAD_USER_INPUT", tc.query, map[string]any{"id": ct, "room": room, "r": room})
			if e.Extensions["field"] != tc.field || !strings.Contains(e.Message, tc.field) {
				t.Errorf("%s: got %s (field %v), want the field %s named", firstLine(tc.query), e.Message, e.Extensions["field"], tc.field)
			}
		}
		if after := a.dump(tok); after != before {
			t.Errorf("a refused update changed the business:\n%s\nwas\n%s", after, before)
		}

		// A create input says what is required: GraphQL refuses a missing
		// field before any resolver runs.
		for q, missing := range map[string]string{
			`mutation { createClass(input: {staffIds: ["1"]}) { revision } }`:                                  "CreateClassInput.activityId",
			`mutation { createClassTime(input: {roomId: "1", weekday: MONDAY, start: "06:00"}) { revision } }`: "CreateClassTimeInput.end",
			`mutation { createRoom(input: {capacity: 2}) { revision } }`:                                       "CreateRoomInput.name",
		} {
			_, err := a.c.RawPost(q, client.AddHeader("Authorization", "Bearer "+tok))
			if err == nil || !strings.Contains(err.Error(), "GRAPHQL_VALIDATION_FAILED") || !strings.Contains(err.Error(), missing+`\" of required type`) {
				t.Errorf("%s: got %v, want a validation error naming the missing field", q, err)
			}
		}
	})
}

// TestLookups: every catalog type has a lookup by id, NOT_FOUND for an
// unknown one (another business's: TestTenantArguments).
func TestLookups(t *testing.T) {
	eachDatabase(t, func(t *testing.T, a *api) {
		tok := a.business("lookups", engine.Gym)
		vars := map[string]any{
			"room":      idOf(a, tok, "rooms", "name", "Ring"),
			"staff":     idOf(a, tok, "staff", "name", "Marco Reyes"),
			"activity":  idOf(a, tok, "activities", "name", "Boxing"),
			"class":     a.classID(tok, "Boxing with Marco Reyes"),
			"classTime": idOf(a, tok, "classTimes", "label", "Sparring"),
		}
		data := a.ok(tok, `query($room: ID!, $staff: ID!, $activity: ID!, $class: ID!, $classTime: ID!) {
			room(id: $room) { name } staffMember(id: $staff) { name } activity(id: $activity) { name }
			class(id: $class) { name } classTime(id: $classTime) { label room { name } } }`, vars)
		for _, want := range []struct{ path, value string }{
			{"room.name", "Ring"}, {"staffMember.name", "Marco Reyes"}, {"activity.name", "Boxing"},
			{"class.name", "Boxing with Marco Reyes"}, {"classTime.label", "Sparring"},
		} {
			if got := path(data, strings.Split(want.path, ".")...); got != want.value {
				t.Errorf("%s: got %v, want %s", want.path, got, want.value)
			}
		}
		for _, q := range []string{`{ room(id: "999999") { id } }`, `{ staffMember(id: "999999") { id } }`, `{ activity(id: "999999") { id } }`,
			`{ class(id: "999999") { id } }`, `{ classTime(id: "999999") { id } }`, `{ token(id: "999999") { id } }`, `{ appPassword(id: "999999") { id } }`} {
			plainWords(t, a.fails(tok, "NOT_FOUND", q, nil).Message)
		}
	})
}

// TestTokenPages walks the tokens a page at a time: every token once, in
// id order, the total on every page, and a made-up cursor refused.
func TestTokenPages(t *testing.T) {
	eachDatabase(t, func(t *testing.T, a *api) {
		owner := a.business("pages", engine.Office)
		for range 6 {
			a.token("pages", models.ReadOnly)
		}
		b, err := models.BusinessBySlug(t.Context(), a.db.DB, "pages")
		if err != nil {
			t.Fatal(err)
		}
		stored, err := models.Tokens(t.Context(), a.db.DB, b.ID)
		if err != nil {
			t.Fatal(err)
		}
		var want []string
		for _, tk := range stored {
			want = append(want, fmt.Sprint(tk.ID))
		}

		const q = `query($first: Int, $after: String) { tokens(first: $first, after: $after) {
			edges { cursor node { id } } nodes { id } pageInfo { hasNextPage hasPreviousPage startCursor endCursor } totalCount } }`
		var got []string
		vars := map[string]any{"first": 3}
		for pages := 0; ; pages++ {
			if pages > len(want) {
				t.Fatal("the pages never end")
			}
			conn := path(a.ok(owner, q, vars), "tokens").(map[string]any)
			if n := conn["totalCount"]; n != float64(len(want)) {
				t.Errorf("page %d: totalCount %v, want %d", pages, n, len(want))
			}
			edges, nodes := conn["edges"].([]any), conn["nodes"].([]any)
			if len(edges) != len(nodes) || len(nodes) > 3 {
				t.Fatalf("page %d: %d edges, %d nodes, want the same, at most 3", pages, len(edges), len(nodes))
			}
			for i, e := range edges {
				if path(e, "node", "id") != path(nodes[i], "id") {
					t.Errorf("page %d: edge %d is %v, node %v", pages, i, path(e, "node", "id"), path(nodes[i], "id"))
				}
				got = append(got, path(nodes[i], "id").(string))
			}
			info := conn["pageInfo"].(map[string]any)
			if info["hasPreviousPage"] != (pages > 0) {
				t.Errorf("page %d: hasPreviousPage %v", pages, info["hasPreviousPage"])
			}
			if len(edges) > 0 && info["endCursor"] != path(edges[len(edges)-1], "cursor") {
				t.Errorf("page %d: endCursor %v is not the last edge's cursor", pages, info["endCursor"])
			}
			if info["hasNextPage"] != true {
				break
			}
			vars["after"] = info["endCursor"]
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("paged tokens %v, want %v", got, want)
		}
		// The default page holds them all.
		if n := len(path(a.ok(owner, `{ tokens { nodes { id } } }`, nil), "tokens", "nodes").([]any)); n != len(want) {
			t.Errorf("the default page: %d tokens, want %d", n, len(want))
		}
		for _, vars := range []map[string]any{{"after": "not-a-cursor!"}, {"after": ""}, {"first": 501}, {"first": -1}} {
			e := a.fails(owner, "BAD_USER_INPUT", q, vars)
			plainWords(t, e.Message)
		}
	})
}

// TestForbiddenFieldAlone: a field the role may not read answers null with
// its error while its siblings still answer.
func TestForbiddenFieldAlone(t *testing.T) {
	eachDatabase(t, func(t *testing.T, a *api) {
		a.business("alone", engine.Gym)
		manager := a.token("alone", models.Manager)
		r := a.do(manager, `{ business { slug } tokens { totalCount } rooms { name } }`, nil)
		if path(r.Data, "business", "slug") != "alone" || len(path(r.Data, "rooms").([]any)) == 0 {
			t.Errorf("the siblings of a forbidden field: got %v, want them answered", r.Data)
		}
		if v, ok := r.Data["tokens"]; !ok || v != nil {
			t.Errorf("tokens: got %v, want null", v)
		}
		if len(r.Errors) != 1 || r.Errors[0].code() != "FORBIDDEN" {
			t.Fatalf("errors: got %+v, want one FORBIDDEN", r.Errors)
		}
	})
}

// TestCredentialPayloads: token, login and feed mutations answer the same
// payload as every write, and their dry runs check and keep nothing.
func TestCredentialPayloads(t *testing.T) {
	eachDatabase(t, func(t *testing.T, a *api) {
		owner := a.business("creds", engine.Gym)
		revision := path(a.ok(owner, `{ business { revision } }`, nil), "business", "revision")
		world := func() string {
			return fmt.Sprint(a.ok(owner, `{ business { revision feedUrl timetableUrl } staff { feedUrl }
				tokens { totalCount nodes { id name role } } appPasswords { totalCount nodes { id login } } }`, nil))
		}
		write := func(data map[string]any, field string) map[string]any {
			t.Helper()
			p := path(data, field).(map[string]any)
			if p["revision"] != revision || len(p["clashes"].([]any)) != 0 {
				t.Errorf("%s: revision %v, clashes %v; want %v and none", field, p["revision"], p["clashes"], revision)
			}
			return p
		}
		before := world()

		// Dry runs.
		dry := a.ok(owner, `mutation($staff: ID!) {
			createToken(input: {role: READ_ONLY, name: "kiosk"}, dryRun: true) { dryRun revision clashes { message } token { name role } secret }
			createAppPassword(input: {login: "kiosk", role: READ_ONLY}, dryRun: true) { dryRun revision clashes { message } appPassword { login } password }
			rotateFeedToken(calendar: {staffId: $staff}, dryRun: true) { dryRun revision clashes { message } url }
			rotateTimetableToken(dryRun: true) { dryRun revision clashes { message } url } }`,
			map[string]any{"staff": idOf(a, owner, "staff", "name", "Marco Reyes")})
		for field, secret := range map[string]string{"createToken": "secret", "createAppPassword": "password", "rotateFeedToken": "url", "rotateTimetableToken": "url"} {
			p := write(dry, field)
			if p["dryRun"] != true || p[secret] != nil {
				t.Errorf("%s dry run: got %v, want dryRun and no %s", field, p, secret)
			}
		}
		if path(dry, "createToken", "token", "name") != "kiosk" || path(dry, "createAppPassword", "appPassword", "login") != "kiosk" {
			t.Errorf("dry runs: got %v, want what they would make", dry)
		}
		if after := world(); after != before {
			t.Errorf("dry runs changed:\n%s\nwas\n%s", after, before)
		}

		// The real writes, then dry runs of the revocations.
		made := a.ok(owner, `mutation { createToken(input: {role: READ_ONLY, name: "kiosk"}) { dryRun revision clashes { message } token { id } secret }
			createAppPassword(input: {login: "kiosk", role: READ_ONLY}) { dryRun revision clashes { message } appPassword { id } password } }`, nil)
		token := write(made, "createToken")
		app := write(made, "createAppPassword")
		secret, _ := token["secret"].(string)
		if token["dryRun"] != false || secret == "" || app["password"] == nil {
			t.Fatalf("created: got %v, want the secret and the password", made)
		}
		tokenID, appID := path(token, "token", "id"), path(app, "appPassword", "id")
		e := a.fails(owner, "BAD_USER_INPUT", `mutation { createAppPassword(input: {login: "kiosk", role: READ_ONLY}, dryRun: true) { dryRun } }`, nil)
		plainWords(t, e.Message)

		before = world()
		dry = a.ok(owner, `mutation($t: ID!, $a: ID!) { revokeToken(id: $t, dryRun: true) { dryRun revision clashes { message } token { id name } secret }
			revokeAppPassword(id: $a, dryRun: true) { dryRun revision clashes { message } appPassword { id login } password } }`,
			map[string]any{"t": tokenID, "a": appID})
		for _, field := range []string{"revokeToken", "revokeAppPassword"} {
			if p := write(dry, field); p["dryRun"] != true || p["secret"] != nil || p["password"] != nil {
				t.Errorf("%s dry run: got %v", field, p)
			}
		}
		if path(dry, "revokeToken", "token", "name") != "kiosk" || path(dry, "revokeAppPassword", "appPassword", "login") != "kiosk" {
			t.Errorf("revocation dry runs: got %v, want what they would revoke", dry)
		}
		if after := world(); after != before {
			t.Errorf("revocation dry runs changed:\n%s\nwas\n%s", after, before)
		}
		if path(a.ok(secret, `{ business { slug } }`, nil), "business", "slug") != "creds" {
			t.Error("a dry run revoked the token")
		}
		a.fails(owner, "NOT_FOUND", `mutation { revokeToken(id: "999999", dryRun: true) { dryRun } }`, nil)

		// The real rotation: a new URL, which the calendar now shows.
		old := path(a.ok(owner, `{ business { timetableUrl } }`, nil), "business", "timetableUrl")
		rotated := write(a.ok(owner, `mutation { rotateTimetableToken { dryRun revision clashes { message } url } }`, nil), "rotateTimetableToken")
		if rotated["url"] == old || rotated["url"] != path(a.ok(owner, `{ business { timetableUrl } }`, nil), "business", "timetableUrl") {
			t.Errorf("rotateTimetableToken: got %v, was %v", rotated["url"], old)
		}
		revoked := write(a.ok(owner, `mutation($t: ID!) { revokeToken(id: $t) { dryRun revision clashes { message } token { id } secret } }`, map[string]any{"t": tokenID}), "revokeToken")
		if revoked["dryRun"] != false || path(revoked, "token", "id") != tokenID || revoked["secret"] != nil {
			t.Errorf("revokeToken: got %v", revoked)
		}
	})
}
