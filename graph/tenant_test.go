package graph_test

import (
	"encoding/json"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/koredyne/schedule/engine"
	"github.com/koredyne/schedule/engine/demo"
	"github.com/koredyne/schedule/models"
)

// Two businesses share one database in every test here: alpha holds the
// office demo and beta the gym demo. A token of one must never read or
// change the other's rows.

// tenantQueries asks every field of Query, with the ids of what each row
// names, so that a row of the other business shows wherever it appears.
var tenantQueries = []struct {
	field string
	query string
	empty bool // the demos have none, so an empty answer is right
}{
	{field: "business", query: `{ business { id slug name kind } }`},
	{field: "vocabulary", query: `{ vocabulary { class { one many } staff { one } activity { one } client { one } series { one } room { one } printTitle } }`},
	{field: "rooms", query: `{ rooms { id name } }`},
	{field: "staff", query: `{ staff { id name } }`},
	{field: "activities", query: `{ activities { id name } }`},
	{field: "classes", query: `{ classes { id name activity { id } staff { id } } }`},
	{field: "classTimes", query: `{ classTimes { id room { id } } }`},
	{field: "allSeries", query: `{ allSeries { id name entries { id classTime { id } class { id } } plans { id } memberships { id client { id } plan { id } } } }`},
	{field: "plans", query: `{ plans { id series { id } } }`},
	{field: "clients", query: `{ clients(first: 500) { nodes { id name memberships { id series { id } plan { id } } } } }`},
	{field: "memberships", query: `{ memberships(first: 500) { nodes { id client { id } series { id } plan { id } } } }`},
	{field: "oneOffs", query: `{ oneOffs { id class { id } room { id } clients { id } } }`},
	{field: "closures", query: `{ closures { id rooms { id } } }`},
	{field: "day", query: `{ day(date: "2026-12-01") { sessions { id room { id } class { id } staff { id } ref { classTime { id } class { id } } } } }`},
	{field: "days", query: `{ days(from: "2026-11-29", to: "2026-12-13") { sessions { id room { id } staff { id } oneOff { id clients { id } } series { series { id } } origin { room { id } } } } }`},
	{field: "sessions", query: `{ sessions(from: "2026-11-29", to: "2026-12-13") { id room { id } class { id } staff { id } } }`},
	{field: "clashes", query: `{ clashes { clashes { room { id } sessions { id room { id } } } } }`, empty: true},
	{field: "tokens", query: `{ tokens { nodes { id name role } } }`},
}

// typeOf names the type of an object by the field that holds it.
var typeOf = map[string]string{
	"business":    "Business",
	"rooms":       "Room",
	"room":        "Room",
	"staff":       "Staff",
	"activities":  "Activity",
	"activity":    "Activity",
	"classes":     "Class",
	"class":       "Class",
	"classTimes":  "ClassTime",
	"classTime":   "ClassTime",
	"allSeries":   "Series",
	"series":      "Series",
	"entries":     "SeriesEntry",
	"plans":       "Plan",
	"plan":        "Plan",
	"clients":     "Client",
	"client":      "Client",
	"memberships": "Membership",
	"oneOffs":     "OneOff",
	"oneOff":      "OneOff",
	"closures":    "Closure",
	"sessions":    "Session",
	"tokens":      "Token",
}

// idSet holds "Type:id" for every object with an id in an answer.
type idSet map[string]bool

func (s idSet) collect(t *testing.T, field string, v any) {
	t.Helper()
	switch v := v.(type) {
	case []any:
		for _, x := range v {
			s.collect(t, field, x)
		}
	case map[string]any:
		if id, ok := v["id"]; ok {
			typ, known := typeOf[field]
			if !known {
				t.Fatalf("an object with an id under %q: add its type to typeOf", field)
			}
			s[typ+":"+id.(string)] = true
		}
		for k, x := range v {
			if k == "nodes" || k == "edges" || k == "node" {
				k = field // a connection's rows are of its field's type
			}
			s.collect(t, k, x)
		}
	}
}

func (s idSet) common(o idSet) []string {
	var out []string
	for k := range s {
		if o[k] {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

// everything is every row a token can see, through every query.
func everything(a *api, tok string) idSet {
	a.t.Helper()
	all := idSet{}
	for _, q := range tenantQueries {
		all.collect(a.t, "", a.ok(tok, q.query, nil))
	}
	return all
}

// twoBusinesses makes alpha (office) and beta (gym), each with a closure,
// since the demos have none, and returns their owner tokens.
func twoBusinesses(a *api) (alpha, beta string) {
	a.t.Helper()
	alpha = a.business("alpha", engine.Office)
	beta = a.business("beta", engine.Gym)
	a.ok(alpha, `mutation($room: ID!) { createClosure(input: {from: "2026-12-24", to: "2026-12-26", roomIds: [$room], reason: "Holidays"}) { closure { id } } }`,
		map[string]any{"room": idOf(a, alpha, "rooms", "name", "Boardroom")})
	a.ok(beta, `mutation { createClosure(input: {from: "2026-12-31", to: "2027-01-01", reason: "New Year"}) { closure { id } } }`, nil)
	return alpha, beta
}

// TestTenantReads asks every Query field with each business's token: each
// sees only its own rows, and no id of the other's.
func TestTenantReads(t *testing.T) {
	eachDatabase(t, func(t *testing.T, a *api) {
		alpha, beta := twoBusinesses(a)
		alphaAll, betaAll := everything(a, alpha), everything(a, beta)

		for _, q := range tenantQueries {
			t.Run(q.field, func(t *testing.T) {
				for _, side := range []struct {
					name, tok, otherName string
					otherRows            idSet
					kind                 engine.Kind
					slug                 string
				}{
					{name: "alpha", tok: alpha, otherName: "beta", otherRows: betaAll, kind: engine.Office, slug: "alpha"},
					{name: "beta", tok: beta, otherName: "alpha", otherRows: alphaAll, kind: engine.Gym, slug: "beta"},
				} {
					data := a.on(t).ok(side.tok, q.query, nil)
					got := idSet{}
					got.collect(t, "", data)
					if shared := got.common(side.otherRows); len(shared) > 0 {
						t.Errorf("%s's %s: got %s's rows %v, want none", side.name, q.field, side.otherName, shared)
					}
					if got := rows(data, q.field); got != nil && len(got) == 0 && !q.empty {
						t.Errorf("%s's %s: got no rows, want its own", side.name, q.field)
					}
					checkOwn(t, q.field, data, side.kind, side.slug)
				}
			})
		}
	})
}

// checkOwn compares what a business sees with its demo, where the answer
// has names to compare.
func checkOwn(t *testing.T, field string, data map[string]any, kind engine.Kind, slug string) {
	t.Helper()
	st, _ := demo.ByKind(kind, engine.DateOf(now))
	var want []string
	switch field {
	case "business":
		if got := path(data, "business", "slug"); got != slug {
			t.Errorf("business.slug: got %v, want %s", got, slug)
		}
		if got := path(data, "business", "name"); got != st.Business.Name {
			t.Errorf("business.name: got %v, want %s", got, st.Business.Name)
		}
		return
	case "vocabulary":
		w := engine.Words(kind)
		if got := path(data, "vocabulary", "client", "one"); got != w.Client.One {
			t.Errorf("vocabulary.client.one: got %v, want %s", got, w.Client.One)
		}
		if got := path(data, "vocabulary", "printTitle"); got != w.PrintTitle {
			t.Errorf("vocabulary.printTitle: got %v, want %s", got, w.PrintTitle)
		}
		return
	case "rooms":
		for _, r := range st.Rooms {
			want = append(want, r.Name)
		}
	case "staff":
		for _, s := range st.Staff {
			want = append(want, s.Name)
		}
	case "activities":
		for _, x := range st.Activities {
			want = append(want, x.Name)
		}
	case "allSeries":
		for _, s := range st.Series {
			want = append(want, s.Name)
		}
	case "clients":
		for _, c := range st.Clients {
			want = append(want, c.Name)
		}
	default:
		return
	}
	var got []string
	for _, r := range rows(data, field) {
		got = append(got, path(r, "name").(string))
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("%s names: got %v, want %v", field, got, want)
	}
}

// betaIDs reads, as beta, the ids alpha's token then tries to use.
func betaIDs(a *api, beta string) map[string]any {
	a.t.Helper()
	return map[string]any{
		"room":      idOf(a, beta, "rooms", "name", "Ring"),
		"staff":     idOf(a, beta, "staff", "name", "Marco Reyes"),
		"class":     idOf(a, beta, "classes", "name", "Boxing with Marco Reyes"),
		"classTime": idOf(a, beta, "classTimes", "label", "Sparring"),
		"series":    idOf(a, beta, "allSeries", "name", "Boxing Fundamentals"),
		"plan":      planOf(a, beta, "Boxing Fundamentals"),
		"client":    idOf(a, beta, "clients", "name", "Fahad Al-Sabah"),
		"sub":       membershipOf(a, beta, "Fahad Al-Sabah", "Boxing Fundamentals"),
		"oneOff":    idOf(a, beta, "oneOffs", "label", "Private lesson"),
		"closure":   idOf(a, beta, "closures", "reason", "New Year"),
		"token":     pick(a, beta, "{ tokens { nodes { id name } } }", "tokens", "name", "owner"),
		"ref":       sessionRefOf(a, beta, "2026-12-01", "Fundamentals"),
	}
}

// alphaIDs reads, as alpha, its own ids to go with beta's.
func alphaIDs(a *api, alpha string) map[string]any {
	a.t.Helper()
	return map[string]any{
		"myRoom":      idOf(a, alpha, "rooms", "name", "Room B"),
		"myStaff":     idOf(a, alpha, "staff", "name", "Mei Chen"),
		"myActivity":  idOf(a, alpha, "activities", "name", "Interview"),
		"myClass":     idOf(a, alpha, "classes", "name", "Interview with Sofia Marquez"),
		"myClassTime": idOf(a, alpha, "classTimes", "label", "Sprint review"),
		"mySeries":    idOf(a, alpha, "allSeries", "name", "Sprint cycle"),
		"myPlan":      planOf(a, alpha, "Daily standup"),
		"myClient":    idOf(a, alpha, "clients", "name", "Bluefin Legal"),
		"mySub":       membershipOf(a, alpha, "Orbit Analytics", "Daily standup"),
		"myOneOff":    idOf(a, alpha, "oneOffs", "label", "Contract signing"),
		"myClosure":   idOf(a, alpha, "closures", "reason", "Holidays"),
		"myRef":       sessionRefOf(a, alpha, "2026-12-01", "Daily standup"),
	}
}

// TestTenantArguments passes beta's ids to alpha's queries: a filter naming
// a row of another business is NOT_FOUND, as an unknown id is.
func TestTenantArguments(t *testing.T) {
	cases := []struct {
		name  string
		query string
		code  string // "" when the answer is an empty list
	}{
		{"classTimes roomId", `query($room: ID!) { classTimes(roomId: $room) { id } }`, "NOT_FOUND"},
		{"plans seriesId", `query($series: ID!) { plans(seriesId: $series) { id } }`, "NOT_FOUND"},
		// memberships filters by business without checking the id, so
		// another business's client or series has none.
		{"memberships clientId", `query($client: ID!) { memberships(clientId: $client) { nodes { id } } }`, ""},
		{"memberships seriesId", `query($series: ID!) { memberships(seriesId: $series) { nodes { id } } }`, ""},
		{"days roomId", `query($room: ID!) { days(from: "2026-11-29", to: "2026-12-06", filter: {roomId: $room}) { sessions { id } } }`, "NOT_FOUND"},
		{"days staffId", `query($staff: ID!) { days(from: "2026-11-29", to: "2026-12-06", filter: {staffId: $staff}) { sessions { id } } }`, "NOT_FOUND"},
		{"days seriesId", `query($series: ID!) { days(from: "2026-11-29", to: "2026-12-06", filter: {seriesId: $series}) { sessions { id } } }`, "NOT_FOUND"},
		{"sessions roomId", `query($room: ID!) { sessions(from: "2026-11-29", to: "2026-12-06", roomId: $room) { id } }`, "NOT_FOUND"},
		{"sessions staffId", `query($staff: ID!) { sessions(from: "2026-11-29", to: "2026-12-06", staffId: $staff) { id } }`, "NOT_FOUND"},
		{"sessions seriesId", `query($series: ID!) { sessions(from: "2026-11-29", to: "2026-12-06", seriesId: $series) { id } }`, "NOT_FOUND"},
		// A lookup by another business's id answers as an unknown id does.
		{"room", `query($room: ID!) { room(id: $room) { id } }`, "NOT_FOUND"},
		{"staffMember", `query($staff: ID!) { staffMember(id: $staff) { id } }`, "NOT_FOUND"},
		{"class", `query($class: ID!) { class(id: $class) { id } }`, "NOT_FOUND"},
		{"classTime", `query($classTime: ID!) { classTime(id: $classTime) { id } }`, "NOT_FOUND"},
		{"token", `query($token: ID!) { token(id: $token) { id } }`, "NOT_FOUND"},
	}
	eachDatabase(t, func(t *testing.T, a *api) {
		alpha, beta := twoBusinesses(a)
		ids := betaIDs(a, beta)
		mine := alphaIDs(a, alpha)
		own := map[string]any{"client": idOf(a, alpha, "clients", "name", "Orbit Analytics"), "series": mine["mySeries"]}
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				a := a.on(t)
				if tc.code != "" {
					e := a.fails(alpha, tc.code, tc.query, ids)
					plainWords(t, e.Message)
					return
				}
				field := strings.Fields(tc.name)[0]
				if got := path(a.ok(alpha, tc.query, ids), field); !isEmptyList(got) {
					t.Errorf("%s: got %v, want none of beta's", tc.name, got)
				}
				// The same query with alpha's own ids does find rows.
				if got := path(a.ok(alpha, tc.query, own), field); isEmptyList(got) {
					t.Errorf("%s with alpha's ids: got none, want alpha's", tc.name)
				}
			})
		}
	})
}

func isEmptyList(v any) bool {
	if nodes := path(v, "nodes"); nodes != nil {
		v = nodes
	}
	l, ok := v.([]any)
	return ok && len(l) == 0
}

// TestTenantWrites sends alpha's token writes that name beta's rows: each
// fails, and neither business changes.
func TestTenantWrites(t *testing.T) {
	cases := []struct {
		name  string
		query string
		code  string
	}{
		{"updateRoom", `mutation($room: ID!) { updateRoom(id: $room, input: {name: "Taken"}) { room { id } } }`, "NOT_FOUND"},
		{"deleteRoom", `mutation($room: ID!) { deleteRoom(id: $room) { id } }`, "NOT_FOUND"},
		{"updateStaff", `mutation($staff: ID!) { updateStaff(id: $staff, input: {name: "Taken"}) { staff { id } } }`, "NOT_FOUND"},
		{"deleteStaff", `mutation($staff: ID!) { deleteStaff(id: $staff) { id } }`, "NOT_FOUND"},
		{"deleteClass", `mutation($class: ID!) { deleteClass(id: $class) { id } }`, "NOT_FOUND"},
		{"updateClass staffIds", `mutation($myClass: ID!, $staff: ID!) { updateClass(id: $myClass, input: {staffIds: [$staff]}) { class { id } } }`, "NOT_FOUND"},
		{"createClass staffIds", `mutation($myActivity: ID!, $staff: ID!) { createClass(input: {activityId: $myActivity, staffIds: [$staff]}) { class { id } } }`, "NOT_FOUND"},
		{"updateClassTime", `mutation($classTime: ID!) { updateClassTime(id: $classTime, input: {label: "Taken"}) { classTime { id } } }`, "NOT_FOUND"},
		{"createClassTime roomId", `mutation($room: ID!) { createClassTime(input: {roomId: $room, weekday: SATURDAY, start: "08:00", end: "09:00"}) { classTime { id } } }`, "NOT_FOUND"},
		{"updateSeries", `mutation($series: ID!) { updateSeries(id: $series, input: {name: "Taken"}) { series { id } } }`, "NOT_FOUND"},
		{"updateSeries plan", `mutation($mySeries: ID!, $plan: ID!) { updateSeries(id: $mySeries, input: {plans: [{id: $plan, price: "1"}]}) { series { id } } }`, "NOT_FOUND"},
		{"deleteSeries", `mutation($series: ID!) { deleteSeries(id: $series) { id } }`, "NOT_FOUND"},
		{"replaceSeriesFrom", `mutation($series: ID!) { replaceSeriesFrom(id: $series, date: "2027-01-03") { series { id } } }`, "NOT_FOUND"},
		{"createSeries classTimeId", `mutation($classTime: ID!, $myClass: ID!) { createSeries(input: {name: "Borrowed", anchorDate: "2026-11-30",
			entries: [{week: 1, classTimeId: $classTime, classId: $myClass}]}) { series { id } } }`, "NOT_FOUND"},
		{"createPlan seriesId", `mutation($series: ID!) { createPlan(input: {seriesId: $series, name: "Borrowed", price: "1"}) { plan { id } } }`, "NOT_FOUND"},
		{"updatePlan", `mutation($plan: ID!) { updatePlan(id: $plan, input: {price: "1"}) { plan { id } } }`, "NOT_FOUND"},
		{"deletePlan", `mutation($plan: ID!) { deletePlan(id: $plan) { id } }`, "NOT_FOUND"},
		{"changeSession", `mutation($ref: SessionRefInput!) { changeSession(ref: $ref, change: {note: "Taken"}) { session { id } } }`, "NOT_FOUND"},
		{"changeSession roomId", `mutation($myRef: SessionRefInput!, $room: ID!) { changeSession(ref: $myRef, change: {roomId: $room}) { session { id } } }`, "NOT_FOUND"},
		{"cancelSession", `mutation($ref: SessionRefInput!) { cancelSession(ref: $ref) { session { id } } }`, "NOT_FOUND"},
		{"restoreSession", `mutation($ref: SessionRefInput!) { restoreSession(ref: $ref) { session { id } } }`, "NOT_FOUND"},
		{"createMembership clientId", `mutation($client: ID!, $mySeries: ID!) { createMembership(input: {clientId: $client, seriesId: $mySeries, startDate: "2026-12-07"}) { membership { id } } }`, "NOT_FOUND"},
		{"createMembership seriesId", `mutation($myClient: ID!, $series: ID!) { createMembership(input: {clientId: $myClient, seriesId: $series, startDate: "2026-12-07"}) { membership { id } } }`, "NOT_FOUND"},
		{"updateMembership", `mutation($sub: ID!) { updateMembership(id: $sub, input: {endDate: "2027-12-31"}) { membership { id } } }`, "NOT_FOUND"},
		{"updateMembership clientId", `mutation($mySub: ID!, $client: ID!) { updateMembership(id: $mySub, input: {clientId: $client}) { membership { id } } }`, "NOT_FOUND"},
		{"deleteMembership", `mutation($sub: ID!) { deleteMembership(id: $sub) { id } }`, "NOT_FOUND"},
		{"updateClient", `mutation($client: ID!) { updateClient(id: $client, input: {name: "Taken"}) { client { id } } }`, "NOT_FOUND"},
		{"deleteClient", `mutation($client: ID!) { deleteClient(id: $client) { id } }`, "NOT_FOUND"},
		{"createOneOff roomId", `mutation($myClass: ID!, $room: ID!) { createOneOff(input: {classId: $myClass, roomId: $room, date: "2026-12-04", start: "10:00", end: "11:00"}) { oneOff { id } } }`, "NOT_FOUND"},
		{"createOneOff clientIds", `mutation($myClass: ID!, $myRoom: ID!, $client: ID!) { createOneOff(input: {classId: $myClass, roomId: $myRoom, date: "2026-12-04", start: "10:00", end: "11:00", clientIds: [$client]}) { oneOff { id } } }`, "NOT_FOUND"},
		{"updateOneOff", `mutation($oneOff: ID!) { updateOneOff(id: $oneOff, input: {label: "Taken"}) { oneOff { id } } }`, "NOT_FOUND"},
		{"updateOneOff clientIds", `mutation($myOneOff: ID!, $client: ID!) { updateOneOff(id: $myOneOff, input: {clientIds: [$client]}) { oneOff { id } } }`, "NOT_FOUND"},
		{"cancelOneOff", `mutation($oneOff: ID!) { cancelOneOff(id: $oneOff) { oneOff { id } } }`, "NOT_FOUND"},
		{"deleteOneOff", `mutation($oneOff: ID!) { deleteOneOff(id: $oneOff) { id } }`, "NOT_FOUND"},
		{"createClosure roomIds", `mutation($room: ID!) { createClosure(input: {from: "2027-02-01", to: "2027-02-02", roomIds: [$room]}) { closure { id } } }`, "NOT_FOUND"},
		{"deleteClosure", `mutation($closure: ID!) { deleteClosure(id: $closure) { id } }`, "NOT_FOUND"},
		{"revokeToken", `mutation($token: ID!) { revokeToken(id: $token) { token { id } } }`, "NOT_FOUND"},
	}
	eachDatabase(t, func(t *testing.T, a *api) {
		alpha, beta := twoBusinesses(a)
		vars := betaIDs(a, beta)
		for k, v := range alphaIDs(a, alpha) {
			vars[k] = v
		}
		betaWords := betaNames(a, beta)
		world := func(a *api, tok string) string { return a.dump(tok) + firstTokens(a, tok) }

		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				a := a.on(t)
				alphaBefore, betaBefore := world(a, alpha), world(a, beta)
				e := a.fails(alpha, tc.code, tc.query, vars)
				plainWords(t, e.Message)
				for _, w := range betaWords {
					if strings.Contains(e.Message, w) {
						t.Errorf("message %q: got beta's %q in it, want nothing of beta", e.Message, w)
					}
				}
				if got := world(a, beta); got != betaBefore {
					t.Errorf("beta changed:\ngot  %s\nwant %s", got, betaBefore)
				}
				if got := world(a, alpha); got != alphaBefore {
					t.Errorf("alpha changed:\ngot  %s\nwant %s", got, alphaBefore)
				}
			})
		}
		// beta's owner token survived alpha's revokeToken.
		if got := path(a.ok(beta, `{ business { slug } }`, nil), "business", "slug"); got != "beta" {
			t.Errorf("beta's token: got business %v, want beta", got)
		}
	})
}

// betaNames are the names of beta's rows that alpha's errors must not
// mention.
func betaNames(a *api, beta string) []string {
	a.t.Helper()
	data := a.ok(beta, `{ business { name } rooms { name } staff { name } allSeries { name } clients { nodes { name } } }`, nil)
	names := []string{path(data, "business", "name").(string)}
	for _, list := range []string{"rooms", "staff", "allSeries", "clients"} {
		for _, r := range rows(data, list) {
			names = append(names, path(r, "name").(string))
		}
	}
	return names
}

// firstTokens lists a business's tokens, which dump leaves out.
func firstTokens(a *api, owner string) string {
	a.t.Helper()
	var ids []string
	for _, tk := range path(a.ok(owner, `{ tokens { nodes { id name role } } }`, nil), "tokens", "nodes").([]any) {
		ids = append(ids, path(tk, "id").(string)+"/"+path(tk, "role").(string))
	}
	return " tokens " + strings.Join(ids, ",")
}

// roleWrites are writes of every kind, each naming alpha's own rows so that
// only the role can refuse them. Front desk may change days, one-offs,
// clients and memberships, and nothing else.
var roleWrites = []struct {
	name      string
	query     string
	frontDesk bool
}{
	{"updateBusiness", `mutation { updateBusiness(input: {name: "Renamed"}) { business { name } } }`, false},
	{"createRoom", `mutation { createRoom(input: {name: "Room C"}) { room { id } } }`, false},
	{"createRoom dryRun", `mutation { createRoom(input: {name: "Room C"}, dryRun: true) { room { id } } }`, false},
	{"updateRoom", `mutation($myRoom: ID!) { updateRoom(id: $myRoom, input: {name: "Renamed"}) { room { id } } }`, false},
	{"createStaff", `mutation { createStaff(input: {name: "New Host"}) { staff { id } } }`, false},
	{"updateActivity", `mutation($myActivity: ID!) { updateActivity(id: $myActivity, input: {color: "#000000"}) { activity { id } } }`, false},
	{"updateClassTime", `mutation($myClassTime: ID!) { updateClassTime(id: $myClassTime, input: {label: "Renamed"}) { classTime { id } } }`, false},
	{"createSeries", `mutation { createSeries(input: {name: "New", anchorDate: "2026-11-30"}) { series { id } } }`, false},
	{"updateSeries", `mutation($mySeries: ID!) { updateSeries(id: $mySeries, input: {name: "Renamed"}) { series { id } } }`, false},
	{"updatePlan", `mutation($myPlan: ID!) { updatePlan(id: $myPlan, input: {price: "1"}) { plan { id } } }`, false},
	{"createClosure", `mutation { createClosure(input: {from: "2027-02-01", to: "2027-02-02"}) { closure { id } } }`, false},
	{"deleteClosure", `mutation($myClosure: ID!) { deleteClosure(id: $myClosure) { id } }`, false},
	{"loadDemo", `mutation { loadDemo(kind: GYM) { business { name } } }`, false},
	{"loadDemo dryRun", `mutation { loadDemo(kind: GYM, dryRun: true) { business { name } } }`, false},
	{"clearData", `mutation { clearData { business { name } } }`, false},
	{"createToken", `mutation { createToken(input: {role: OWNER, name: "mine"}) { secret } }`, false},
	{"createClient", `mutation { createClient(input: {name: "Walk-in"}) { client { id } } }`, true},
	{"updateClient", `mutation($myClient: ID!) { updateClient(id: $myClient, input: {phone: "+1 212 555 0000"}) { client { id } } }`, true},
	{"createMembership", `mutation($myClient: ID!, $mySeries: ID!) { createMembership(input: {clientId: $myClient, seriesId: $mySeries, startDate: "2026-12-07"}) { membership { id } } }`, true},
	{"deleteMembership", `mutation($mySub: ID!) { deleteMembership(id: $mySub) { id } }`, true},
	{"changeSession", `mutation($myRef: SessionRefInput!) { changeSession(ref: $myRef, change: {note: "Bring coffee"}) { session { note } } }`, true},
	{"cancelSession", `mutation($myRef: SessionRefInput!) { cancelSession(ref: $myRef, reason: "Off") { session { cancelled } } }`, true},
	{"createOneOff", `mutation($myClass: ID!, $myRoom: ID!) { createOneOff(input: {classId: $myClass, roomId: $myRoom, date: "2026-12-04", start: "10:00", end: "11:00", label: "Screening"}) { oneOff { id } } }`, true},
	{"cancelOneOff", `mutation($myOneOff: ID!) { cancelOneOff(id: $myOneOff, reason: "Off") { oneOff { id } } }`, true},
}

// TestTenantRoles: a front desk token writes days, one-offs and clients and
// gets FORBIDDEN for the rest; read-only and staff tokens get FORBIDDEN for
// every write, and read what the owner reads.
func TestTenantRoles(t *testing.T) {
	roles := []models.Role{models.FrontDesk, models.ReadOnly, models.StaffRole}
	eachDatabase(t, func(t *testing.T, a *api) {
		alpha, _ := twoBusinesses(a)
		vars := alphaIDs(a, alpha)
		for _, role := range roles {
			t.Run(string(role), func(t *testing.T) {
				a := a.on(t)
				tok := a.token("alpha", role)
				for _, w := range roleWrites {
					t.Run(w.name, func(t *testing.T) {
						a := a.on(t)
						if role == models.FrontDesk && w.frontDesk {
							a.ok(tok, w.query, vars)
							return
						}
						before := a.dump(alpha)
						e := a.fails(tok, "FORBIDDEN", w.query, vars)
						plainWords(t, e.Message)
						if after := a.dump(alpha); after != before {
							t.Errorf("a forbidden %s changed alpha:\ngot  %s\nwant %s", w.name, after, before)
						}
					})
				}
				t.Run("reads", func(t *testing.T) {
					a := a.on(t)
					// Who is in a session follows the rule of Booking: the
					// front desk sees everyone, read-only and a staff
					// token tied to no one see no one.
					got, in := withoutPeople(t, a.dump(tok))
					want, all := withoutPeople(t, a.dump(alpha))
					if got != want {
						t.Errorf("%s reads:\ngot  %s\nwant %s (what the owner reads)", role, got, want)
					}
					if role == models.FrontDesk && in != all || role != models.FrontDesk && in != 0 || all == 0 {
						t.Errorf("%s sees %d clients in one-offs, the owner %d", role, in, all)
					}
					a.fails(tok, "FORBIDDEN", `{ tokens { nodes { id } } }`, nil)
				})
			})
		}
	})
}

// withoutPeople takes the clients of one-offs out of a dump, and counts
// them.
func withoutPeople(t *testing.T, dump string) (string, int) {
	t.Helper()
	var data map[string]any
	if err := json.Unmarshal([]byte(dump), &data); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, o := range data["oneOffs"].([]any) {
		n += len(o.(map[string]any)["clients"].([]any))
		delete(o.(map[string]any), "clients")
	}
	b, _ := json.Marshal(data)
	return string(b), n
}
