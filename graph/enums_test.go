package graph_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/vektah/gqlparser/v2/ast"

	"github.com/koredyne/schedule/engine"
	"github.com/koredyne/schedule/graph/generated"
	"github.com/koredyne/schedule/models"
)

// enumUse is a real operation taking an enum through a variable: vars puts
// a value where the enum goes, and at names that place in the error.
type enumUse struct {
	query string
	vars  func(v any) map[string]any
	at    string
}

// TestEnumVariablesAreStrict walks the schema's enums and sends every value
// of each through variables in the wrong case and under wrong names, in
// every operation that takes the enum (directly, in a list, inside an
// input object): each is BAD_USER_INPUT naming the variable, and nothing
// is written. GraphQL's own check lets the wrong case through and gqlgen
// then made "monday" a Sunday and "client" a token of role "".
func TestEnumVariablesAreStrict(t *testing.T) {
	eachDatabase(t, func(t *testing.T, a *api) {
		owner := a.business("strict", engine.Gym)
		room := path(a.ok(owner, `{ rooms { id } }`, nil), "rooms").([]any)[0].(map[string]any)["id"]
		only := func(name string) func(v any) map[string]any {
			return func(v any) map[string]any { return map[string]any{name: v, "room": room} }
		}
		uses := map[string][]enumUse{
			"Weekday": {
				{`mutation($v: Weekday!, $room: ID!) { createClassTime(input: {roomId: $room, weekday: $v, start: "06:00", end: "06:30"}) { classTime { id } } }`, only("v"), "$v"},
				{`mutation($in: CreateClassTimeInput!) { createClassTime(input: $in) { classTime { id } } }`, func(v any) map[string]any {
					return map[string]any{"in": map[string]any{"roomId": room, "weekday": v, "start": "06:00", "end": "06:30"}}
				}, "$in.weekday"},
				{`mutation($v: [Weekday!], $room: ID!) { createCapacityRule(input: {roomId: $room, weekdays: $v, start: "06:00", end: "07:00", units: 1}) { capacityRule { id } } }`,
					func(v any) map[string]any { return map[string]any{"v": []any{"SUNDAY", v}, "room": room} }, "$v[1]"},
				{`mutation($v: Weekday) { updateBusiness(input: {weekStart: $v}) { business { weekStart } } }`, only("v"), "$v"},
			},
			"Role": {
				{`mutation($v: Role!) { createToken(input: {role: $v, name: "strict"}) { secret } }`, only("v"), "$v"},
				{`mutation($v: Role!) { createAppPassword(input: {login: "strict", role: $v}) { password } }`, only("v"), "$v"},
			},
			"BusinessKind": {
				{`mutation($v: BusinessKind!) { loadDemo(kind: $v) { business { kind } } }`, only("v"), "$v"},
				{`mutation($in: UpdateBusinessInput!) { updateBusiness(input: $in) { business { kind } } }`, func(v any) map[string]any {
					return map[string]any{"in": map[string]any{"kind": v}}
				}, "$in.kind"},
			},
			"Clock": {
				{`mutation($v: Clock) { updateBusiness(input: {clock: $v}) { business { clock } } }`, only("v"), "$v"},
			},
			"Digits": {
				{`mutation($in: UpdateBusinessInput!) { updateBusiness(input: $in) { business { digits } } }`, func(v any) map[string]any {
					return map[string]any{"in": map[string]any{"digits": v}}
				}, "$in.digits"},
			},
			"WebhookEndpointStatus": {
				{`mutation($v: WebhookEndpointStatus) { updateWebhookEndpoint(id: "1", input: {status: $v}) { endpoint { status } } }`, only("v"), "$v"},
			},
			"KeepTimetable": {
				{`mutation($v: KeepTimetable) { proposeTimetable(input: {demand: [], keep: $v}) { id } }`, only("v"), "$v"},
			},
			"AttendanceStatus": {
				{`mutation($v: AttendanceStatus!) { markAttendance(id: "1", status: $v) { booking { id } } }`, only("v"), "$v"},
			},
		}

		schema := generated.NewExecutableSchema(generated.Config{}).Schema()
		asInput := map[string]bool{} // enums some argument or input field takes
		named := func(t *ast.Type) string {
			for t.Elem != nil {
				t = t.Elem
			}
			return t.NamedType
		}
		for _, def := range schema.Types {
			for _, f := range def.Fields {
				if def.Kind == ast.InputObject {
					asInput[named(f.Type)] = true
				}
				for _, arg := range f.Arguments {
					asInput[named(arg.Type)] = true
				}
			}
		}

		state := func() string {
			return a.dump(owner) + fmtJSON(a.ok(owner, `{ tokens { nodes { id role } } appPasswords { nodes { id role } } }`, nil))
		}
		before := state()
		enums := 0
		for name, def := range schema.Types {
			if def.Kind != ast.Enum || strings.HasPrefix(name, "__") {
				continue
			}
			enums++
			cases := uses[name]
			switch {
			case asInput[name] && len(cases) == 0:
				t.Errorf("enum %s is taken as input, but no operation here sends it", name)
				continue
			case !asInput[name]:
				// Only an answer holds it; a variable may still be declared so.
				cases = []enumUse{{`query($v: ` + name + `) { business { slug } }`, only("v"), "$v"}}
			}
			for _, value := range def.EnumValues {
				v := value.Name
				for _, wrong := range []any{strings.ToLower(v), v[:1] + strings.ToLower(v[1:]), v + "S", " " + v, "", 1} {
					if wrong == v {
						continue
					}
					for _, c := range cases {
						r := a.do(owner, c.query, c.vars(wrong))
						if len(r.Errors) != 1 || r.Errors[0].code() != "BAD_USER_INPUT" || r.Errors[0].Extensions["field"] != c.at ||
							!strings.Contains(r.Errors[0].Message, "The variable "+c.at+" ") {
							t.Errorf("%s %q in %s: %+v", name, wrong, firstLine(c.query), r.Errors)
						}
					}
				}
			}
		}
		if enums < 6 {
			t.Errorf("found %d enums", enums)
		}
		if after := state(); after != before {
			t.Errorf("a refused enum changed the business:\n%s\n%s", before, after)
		}

		// The names as written still work, through the same variables.
		made := a.ok(owner, `mutation($v: Weekday!, $room: ID!) { createClassTime(input: {roomId: $room, weekday: $v, start: "06:00", end: "06:30"}) { classTime { weekday } } }`,
			map[string]any{"v": "MONDAY", "room": room})
		if got := path(made, "createClassTime", "classTime", "weekday"); got != "MONDAY" {
			t.Errorf("weekday: got %v", got)
		}
		client := rows(a.ok(owner, `{ clients { nodes { id } } }`, nil), "clients")[0].(map[string]any)["id"]
		tok := a.ok(owner, `mutation($v: Role!, $c: ID) { createToken(input: {role: $v, clientId: $c}) { token { role } } }`, map[string]any{"v": "CLIENT", "c": client})
		if got := path(tok, "createToken", "token", "role"); got != "CLIENT" {
			t.Errorf("role: got %v", got)
		}
	})
}

// TestRolesGrantedUpToOwn: a token or a CalDAV login never gets more than
// the role of whoever makes it. A manager cannot make an owner login (nor
// any token); an owner can make both.
func TestRolesGrantedUpToOwn(t *testing.T) {
	eachDatabase(t, func(t *testing.T, a *api) {
		owner := a.business("grants", engine.Clinic)
		manager, desk := a.token("grants", models.Manager), a.token("grants", models.FrontDesk)
		logins := func() string {
			return fmtJSON(a.ok(owner, `{ tokens { nodes { id role } } appPasswords { nodes { id login role } } }`, nil))
		}
		before := logins()

		e := a.fails(manager, "FORBIDDEN", `mutation { createAppPassword(input: {login: "boss", role: OWNER}) { password } }`, nil)
		if !strings.Contains(e.Message, "A manager cannot give the owner role") {
			t.Errorf("message: %q", e.Message)
		}
		plainWords(t, e.Message)
		a.fails(manager, "FORBIDDEN", `mutation($r: Role!) { createAppPassword(input: {login: "boss", role: $r}) { password } }`, map[string]any{"r": "OWNER"})
		a.fails(manager, "FORBIDDEN", `mutation { createToken(input: {role: OWNER, name: "boss"}) { secret } }`, nil)
		a.fails(desk, "FORBIDDEN", `mutation { createAppPassword(input: {login: "desk", role: FRONT_DESK}) { password } }`, nil)
		if after := logins(); after != before {
			t.Errorf("a refused grant made a login:\n%s\n%s", before, after)
		}

		for _, role := range []string{"MANAGER", "FRONT_DESK", "READ_ONLY"} {
			made := a.ok(manager, `mutation($r: Role!, $l: String!) { createAppPassword(input: {login: $l, role: $r}) { appPassword { role } } }`,
				map[string]any{"r": role, "l": "by-manager-" + strings.ReplaceAll(strings.ToLower(role), "_", "-")})
			if got := path(made, "createAppPassword", "appPassword", "role"); got != role {
				t.Errorf("a manager's %s login: got %v", role, got)
			}
		}
		made := a.ok(owner, `mutation { createAppPassword(input: {login: "boss", role: OWNER}) { appPassword { role } } createToken(input: {role: OWNER, name: "boss"}) { token { role } } }`, nil)
		if path(made, "createAppPassword", "appPassword", "role") != "OWNER" || path(made, "createToken", "token", "role") != "OWNER" {
			t.Errorf("an owner's grants: %v", made)
		}
	})
}

func fmtJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// TestNumberVariablesAreNumbers: through the real schema, a variable that
// holds the text "5" where an Int goes — an argument, a field of an inline
// input, a field of an input variable — is BAD_USER_INPUT naming it, and
// nothing is written; the number 5 is taken.
func TestNumberVariablesAreNumbers(t *testing.T) {
	eachDatabase(t, func(t *testing.T, a *api) {
		owner := a.business("numbers", engine.Gym)
		before := a.dump(owner)
		for _, c := range []struct {
			query string
			vars  func(v any) map[string]any
			at    string
		}{
			{`mutation($c: Int) { createRoom(input: {name: "Annex", capacity: $c}) { room { capacity } } }`,
				func(v any) map[string]any { return map[string]any{"c": v} }, "$c"},
			{`mutation($in: CreateRoomInput!) { createRoom(input: $in) { room { capacity } } }`,
				func(v any) map[string]any {
					return map[string]any{"in": map[string]any{"name": "Annex", "capacity": v}}
				}, "$in.capacity"},
			{`query($f: Int) { clients(first: $f) { nodes { id } } }`,
				func(v any) map[string]any { return map[string]any{"f": v} }, "$f"},
		} {
			e := a.fails(owner, "BAD_USER_INPUT", c.query, c.vars("5"))
			if e.Extensions["field"] != c.at || !strings.Contains(e.Message, `The variable `+c.at+` holds the text "5"`) {
				t.Errorf("%s: %v %q", firstLine(c.query), e.Extensions, e.Message)
			}
		}
		if after := a.dump(owner); after != before {
			t.Errorf("a refused number changed the business")
		}
		room := a.ok(owner, `mutation($c: Int) { createRoom(input: {name: "Annex", capacity: $c}) { room { capacity } } }`, map[string]any{"c": 5})
		if got := path(room, "createRoom", "room", "capacity"); got != float64(5) {
			t.Errorf("capacity 5: got %v", got)
		}
	})
}
