package graph_test

import (
	"fmt"
	"strings"
	"testing"
)

// deprecations are the names this release renames, which answer for one
// more release as @deprecated: Type.field, or Type.field(argument).
var deprecations = map[string]string{
	"Query.subscriptions":                 "memberships",
	"Query.subscription":                  "membership",
	"Client.subscriptions":                "memberships",
	"Series.subscriptions":                "memberships",
	"MembershipPayload.subscription":      "membership",
	"Session.booked":                      "placesTaken",
	"Mutation.createSubscription":         "createMembership",
	"Mutation.updateSubscription":         "updateMembership",
	"Mutation.deleteSubscription":         "deleteMembership",
	"Mutation.cancelSession(note)":        "reason",
	"Mutation.cancelOneOff(note)":         "reason",
	"Mutation.createToken(role)":          "input",
	"Mutation.createToken(name)":          "input",
	"Mutation.createToken(clientId)":      "input",
	"Mutation.createToken(staffId)":       "input",
	"Mutation.createAppPassword(login)":   "input",
	"Mutation.createAppPassword(role)":    "input",
	"Mutation.createAppPassword(staffId)": "input",
}

// TestOldNamesStillAnswer: each name this release renames is marked
// deprecated in introspection, with a reason naming what replaces it, and
// still answers exactly as its new name does; old and new together are
// refused where they would say two things.
func TestOldNamesStillAnswer(t *testing.T) {
	eachDatabase(t, func(t *testing.T, a *api) {
		f := newBookingFx(t, a)
		f.book(f.ref, "Orbit Analytics", false)

		found := map[string]string{}
		for _, typ := range []string{"Query", "Mutation", "Client", "Series", "Session", "MembershipPayload"} {
			data := f.ok(f.tok, `query($t: String!) { __type(name: $t) { fields(includeDeprecated: true) { name isDeprecated deprecationReason
				args(includeDeprecated: true) { name isDeprecated deprecationReason } } } }`, map[string]any{"t": typ})
			for _, fl := range path(data, "__type", "fields").([]any) {
				name := typ + "." + path(fl, "name").(string)
				if path(fl, "isDeprecated") == true {
					found[name], _ = path(fl, "deprecationReason").(string)
				}
				for _, arg := range path(fl, "args").([]any) {
					if path(arg, "isDeprecated") == true {
						found[name+"("+path(arg, "name").(string)+")"], _ = path(arg, "deprecationReason").(string)
					}
				}
			}
		}
		for name, now := range deprecations {
			if reason, ok := found[name]; !ok || !strings.Contains(reason, now) {
				t.Errorf("%s: deprecated %v with reason %q, want one naming %s", name, ok, reason, now)
			}
		}
		for name := range found {
			if _, ok := deprecations[name]; !ok {
				t.Errorf("%s is deprecated: add it to deprecations (and the docs' list)", name)
			}
		}

		same := func(what, query string, vars map[string]any, old, now []string) {
			t.Helper()
			data := f.ok(f.tok, query, vars)
			if o, n := fmt.Sprint(path(data, old...)), fmt.Sprint(path(data, now...)); o != n || o == "<nil>" {
				t.Errorf("%s: the old name answers %s, the new %s", what, o, n)
			}
		}
		same("the list", `{ old: subscriptions(first: 500) { nodes { id } totalCount } now: memberships(first: 500) { nodes { id } totalCount } }`, nil,
			[]string{"old"}, []string{"now"})
		one := membershipOf(f.api, f.tok, "Bluefin Legal", "Daily standup")
		same("one", `query($id: ID!) { old: subscription(id: $id) { id startDate } now: membership(id: $id) { id startDate } }`, map[string]any{"id": one},
			[]string{"old"}, []string{"now"})
		same("a client's", `query($id: ID!) { client(id: $id) { subscriptions { id } memberships { id } } }`, map[string]any{"id": f.clients["Bluefin Legal"]},
			[]string{"client", "subscriptions"}, []string{"client", "memberships"})
		same("a series'", `{ allSeries { subscriptions { id } memberships { id } } }`, nil, []string{"allSeries"}, []string{"allSeries"})
		same("places taken", `query($d: Date!) { day(date: $d) { sessions { booked placesTaken } } }`, map[string]any{"d": "2026-12-08"},
			[]string{"day", "sessions"}, []string{"day", "sessions"})
		places := path(f.ok(f.tok, `query($d: Date!) { day(date: $d) { sessions { label booked placesTaken } } }`, map[string]any{"d": "2026-12-08"}), "day", "sessions").([]any)
		for _, s := range places {
			if path(s, "booked") != path(s, "placesTaken") || (path(s, "label") == "Daily standup" && path(s, "placesTaken") != float64(1)) {
				t.Errorf("places: %v", s)
			}
		}

		in := map[string]any{"clientId": f.clients["Cedar & Pine Architects"], "seriesId": f.ids(f.tok, "allSeries", "name")["Daily standup"], "startDate": "2026-12-01"}
		made := f.ok(f.tok, `mutation($in: CreateSubscriptionInput!) { createSubscription(input: $in, dryRun: true) { subscription { startDate client { name } } membership { startDate client { name } } } }`,
			map[string]any{"in": in})
		if fmt.Sprint(path(made, "createSubscription", "subscription")) != fmt.Sprint(path(made, "createSubscription", "membership")) ||
			path(made, "createSubscription", "membership", "startDate") != "2026-12-01" {
			t.Errorf("createSubscription: %v", made)
		}
		f.ok(f.tok, `mutation($id: ID!, $in: UpdateSubscriptionInput!) { updateSubscription(id: $id, input: $in, dryRun: true) { membership { id } } }`,
			map[string]any{"id": one, "in": map[string]any{"endDate": "2027-06-30"}})
		f.ok(f.tok, `mutation($id: ID!) { deleteSubscription(id: $id, dryRun: true) { id } }`, map[string]any{"id": one})

		for _, arg := range []string{"note", "reason"} {
			q := fmt.Sprintf(`mutation($ref: SessionRefInput!) { cancelSession(ref: $ref, %s: "Snow", dryRun: true) { session { cancelled cancelReason note } } }`, arg)
			if s := path(f.ok(f.tok, q, map[string]any{"ref": f.ref}), "cancelSession", "session"); path(s, "cancelReason") != "Snow" || path(s, "cancelled") != true {
				t.Errorf("cancelSession(%s:): %v", arg, s)
			}
		}
		if e := f.fails(f.tok, "BAD_USER_INPUT", `mutation($ref: SessionRefInput!) { cancelSession(ref: $ref, reason: "Snow", note: "Ice", dryRun: true) { revision } }`,
			map[string]any{"ref": f.ref}); e.Extensions["field"] != "reason" {
			t.Errorf("cancelSession with reason and note: %v", e.Extensions)
		}
		oneOff := created(f.api, f.tok, `mutation($c: ID!, $r: ID!) { createOneOff(input: {classId: $c, roomId: $r, date: "2026-12-09", start: "16:00", end: "17:00"}) { oneOff { id } } }`,
			"createOneOff", "oneOff", map[string]any{"c": f.ref["classId"], "r": f.ids(f.tok, "rooms", "name")["Boardroom"]})
		for _, arg := range []string{"note", "reason"} {
			q := fmt.Sprintf(`mutation($id: ID!) { cancelOneOff(id: $id, %s: "Postponed", dryRun: true) { oneOff { cancelled note } } }`, arg)
			if o := path(f.ok(f.tok, q, map[string]any{"id": oneOff}), "cancelOneOff", "oneOff"); path(o, "note") != "Postponed" || path(o, "cancelled") != true {
				t.Errorf("cancelOneOff(%s:): %v", arg, o)
			}
		}

		for _, c := range []struct{ old, now, field string }{
			{`createToken(role: CLIENT, name: "kiosk", clientId: $c, dryRun: true) { token { name role } }`,
				`createToken(input: {role: CLIENT, name: "kiosk", clientId: $c}, dryRun: true) { token { name role } }`, "createToken"},
			{`createAppPassword(login: "kiosk", role: STAFF, staffId: $s, dryRun: true) { appPassword { login role staff { id } } }`,
				`createAppPassword(input: {login: "kiosk", role: STAFF, staffId: $s}, dryRun: true) { appPassword { login role staff { id } } }`, "createAppPassword"},
		} {
			vars, decl := map[string]any{"c": f.clients["Orbit Analytics"]}, "$c: ID!"
			if c.field == "createAppPassword" {
				vars, decl = map[string]any{"s": rows(f.ok(f.tok, `{ staff { id } }`, nil), "staff")[0].(map[string]any)["id"]}, "$s: ID!"
			}
			data := f.ok(f.tok, `mutation(`+decl+`) { old: `+c.old+` now: `+c.now+` }`, vars)
			if fmt.Sprint(data["old"]) != fmt.Sprint(data["now"]) || path(data, "now") == nil {
				t.Errorf("%s: loose %v, input %v", c.field, data["old"], data["now"])
			}
		}
		for _, q := range []string{
			`mutation { createToken(input: {role: READ_ONLY}, role: READ_ONLY, dryRun: true) { secret } }`,
			`mutation { createToken(dryRun: true) { secret } }`,
			`mutation { createAppPassword(input: {login: "a", role: READ_ONLY}, login: "a", dryRun: true) { password } }`,
			`mutation { createAppPassword(role: READ_ONLY, dryRun: true) { password } }`,
		} {
			if e := f.fails(f.tok, "BAD_USER_INPUT", q, nil); e.Extensions["field"] != "input" {
				t.Errorf("%s: field %v", q, e.Extensions["field"])
			}
		}
	})
}
