package graph_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/koredyne/schedule/engine"
	"github.com/koredyne/schedule/graph"
	"github.com/koredyne/schedule/models"
)

// Who sees whom, walked over the whole schema. Every field of Query and
// Mutation that leads, by any path, to a Client or a Booking is asked for
// everything on those paths (each type once per path), by tokens of every
// role, and each answer is checked against the rule of Booking:
//
//   - a CLIENT token meets no client but its own, anywhere, and no text of
//     another client (name, email, phone) in any string;
//   - each token sees exactly the bookings and one-off clients the rule
//     gives it, wherever it reaches them, and nothing less: its answer is
//     the owner's, narrowed by the rule (TestWhoSeesWhom);
//   - the owner, asked the same, sees other clients through every field
//     that leads to one, so no path is checked on an answer that had
//     nothing to hide.
//
// A field added to the schema is walked as soon as it exists; one the walk
// cannot follow (it needs arguments) fails until it is given them here.

// whoFx is the office demo with three clients of the test's own, whose
// names, emails and phones appear nowhere else: Orla (the CLIENT token's),
// Fenna and Gus.
type whoFx struct {
	*api
	owner string
	// clients by first name; vars are the ids the roots' arguments name.
	clients map[string]string
	vars    map[string]string
	// secrets are the text of Fenna and Gus.
	secrets []string
	staff   map[string]string // staff ids by first name
}

// role is a token under test and what the rule lets it see.
type role struct {
	name, tok string
	all       bool   // OWNER, MANAGER, FRONT_DESK
	client    string // a CLIENT token's client
	staff     string // a token tied to a staff member
	queries   bool   // only its queries are walked (its writes are not in question here)
}

// sees is the rule of Booking, as the documentation states it.
func (r role) sees(staff []string, client string) bool {
	switch {
	case r.all:
		return true
	case r.client != "":
		return client == r.client
	case r.staff != "":
		return slices.Contains(staff, r.staff)
	}
	return false
}

func newWhoFx(t *testing.T, a *api) *whoFx {
	a = a.with(t)
	f := &whoFx{api: a, owner: a.business("privacy", engine.Office), clients: map[string]string{}, vars: map[string]string{}}
	for _, c := range []struct{ name, email, phone string }{
		{"Orla Own", "orla@own.example", "+1 555 0100"},
		{"Fenna Foreign", "fenna@foreign.example", "+1 555 0101"},
		{"Gus Guarded", "gus@guarded.example", "+1 555 0102"},
	} {
		id := created(a, f.owner, `mutation($n: String!, $e: String, $p: String) { createClient(input: {name: $n, email: $e, phone: $p}) { client { id } } }`,
			"createClient", "client", map[string]any{"n": c.name, "e": c.email, "p": c.phone})
		first := strings.Fields(c.name)[0]
		f.clients[first] = id
		if first != "Orla" {
			f.secrets = append(f.secrets, c.name, c.email, c.phone)
		}
	}
	f.staff = map[string]string{}
	for name, id := range a.ids(f.owner, "staff", "name") {
		f.staff[strings.Fields(name)[0]] = id
	}
	standup := idOf(a, f.owner, "allSeries", "name", "Daily standup")
	for _, c := range f.clients {
		a.ok(f.owner, `mutation($c: ID!, $s: ID!) { createMembership(input: {clientId: $c, seriesId: $s, startDate: "2026-11-01"}) { membership { id } } }`,
			map[string]any{"c": c, "s": standup})
	}
	// The standup of Tuesday 8 December has one place: Orla has it, Fenna
	// waits. Fenna has a place on Wednesday; Bluefin Legal (the demo's) at
	// Daniel's weekly check-in on Thursday.
	tue := sessionRefOf(a, f.owner, "2026-12-08", "Daily standup")
	a.ok(f.owner, `mutation($id: ID!) { updateClassTime(id: $id, input: {capacity: 1}) { classTime { id } } }`, map[string]any{"id": tue["classTimeId"]})
	book := func(ref map[string]any, client string, wait bool) string {
		return path(a.ok(f.owner, `mutation($ref: SessionRefInput!, $c: ID!, $w: Boolean) { bookSession(ref: $ref, clientId: $c, waitlist: $w) { booking { id } } }`,
			map[string]any{"ref": ref, "c": client, "w": wait}), "bookSession", "booking", "id").(string)
	}
	f.vars["orlaBooking"] = book(tue, f.clients["Orla"], false)
	f.vars["fennaWaits"] = book(tue, f.clients["Fenna"], true)
	wed := sessionRefOf(a, f.owner, "2026-12-09", "Daily standup")
	f.vars["fennaBooking"] = book(wed, f.clients["Fenna"], false)
	book(sessionRefOf(a, f.owner, "2026-12-10", "Weekly check-in"), idOf(a, f.owner, "clients", "name", "Bluefin Legal"), false)
	f.vars["standupTue"] = fmt.Sprintf("s/%s/%s/%s", tue["date"], tue["classTimeId"], tue["classId"])
	f.vars["standupWed"] = fmt.Sprintf("s/%s/%s/%s", wed["date"], wed["classTimeId"], wed["classId"])
	f.vars["standupTue15"] = fmt.Sprintf("s/2026-12-15/%s/%s", tue["classTimeId"], tue["classId"])
	f.vars["standupWed23"] = fmt.Sprintf("s/2026-12-23/%s/%s", wed["classTimeId"], wed["classId"])
	f.vars["standup"] = standup
	f.vars["proposal"] = path(a.ok(f.owner, `mutation($a: ID!) { proposeTimetable(input: {demand: [{activityId: $a, sessionsPerWeek: 1, minutes: 30}], timeLimit: 1, seed: 1}) { id } }`,
		map[string]any{"a": idOf(a, f.owner, "activities", "name", "Standup")}), "proposeTimetable", "id").(string)
	f.vars["plan"] = planOf(a, f.owner, "Daily standup")
	f.vars["fennaSub"] = membershipOf(a, f.owner, "Fenna Foreign", "Daily standup")
	// From 15 December Gus holds the Tuesday standup's one place every
	// week, and Fenna's standing place waits behind him.
	stand := func(client string, wait bool) string {
		return path(a.ok(f.owner, `mutation($s: SessionID!, $c: ID!, $w: Boolean) { createStandingBooking(input: {sessionId: $s, clientId: $c, from: "2026-12-15", waitlist: $w}) { standingBooking { id } } }`,
			map[string]any{"s": f.vars["standupTue"], "c": client, "w": wait}), "createStandingBooking", "standingBooking", "id").(string)
	}
	f.vars["gusStanding"] = stand(f.clients["Gus"], false)
	f.vars["fennaStanding"] = stand(f.clients["Fenna"], true)

	// Places taken in a standup that has happened (Monday 30 November),
	// for markAttendance: stored as the past is, a row.
	mon := sessionRefOf(a, f.owner, "2026-11-30", "Daily standup")
	f.vars["fennaPast"] = pastPlace(a, f.owner, mon, f.clients["Fenna"])
	pastPlace(a, f.owner, mon, f.clients["Orla"])

	// Room B on Saturday 12 December, an hour each for Orla and Fenna.
	roomB := idOf(a, f.owner, "rooms", "name", "Room B")
	f.vars["roomB"] = roomB
	for client, start := range map[string]string{"Orla": "10:00", "Fenna": "12:00"} {
		id := created(a, f.owner, `mutation($r: ID!, $c: ID!, $s: LocalTime!, $e: LocalTime!) { bookRoom(input: {roomId: $r, clientId: $c, date: "2026-12-12", start: $s, end: $e}) { roomBooking { id } } }`,
			"bookRoom", "roomBooking", map[string]any{"r": roomB, "c": f.clients[client], "s": start, "e": strings.Replace(start, ":00", ":45", 1)})
		f.vars[strings.ToLower(client)+"Room"] = id
	}

	// An interview with Orla and Gus, in Room A over the standup of 8
	// December: a clash the business brought with it, so that clashes,
	// and the clash's sessions, show both sessions' people.
	ctx := context.Background()
	p, err := models.Authenticate(ctx, a.db.DB, f.owner)
	if err != nil {
		t.Fatal(err)
	}
	var interview, roomA, orla, gus int64
	fmt.Sscan(a.classID(f.owner, "Interview with Sofia Marquez"), &interview)
	fmt.Sscan(idOf(a, f.owner, "rooms", "name", "Room A"), &roomA)
	fmt.Sscan(f.clients["Orla"], &orla)
	fmt.Sscan(f.clients["Gus"], &gus)
	res, err := a.store.Write(ctx, p.BusinessID, false, func(e *models.Edit) error {
		e.AcceptClashes = true
		id := e.NewID()
		e.State.OneOffs = append(e.State.OneOffs, engine.OneOff{ID: id, ClassID: interview, RoomID: roomA, Date: engine.MustDate(2026, 12, 8),
			Start: engine.MustTime("09:00"), End: engine.MustTime("09:15"), Label: "Interview over the standup"})
		e.SetOneOffClients(id, []int64{orla, gus})
		return nil
	})
	if err != nil || len(res.Clashes) == 0 {
		t.Fatalf("the interview over the standup: %v, clashes %v", err, res.Clashes)
	}
	f.vars["interview"] = idOf(a, f.owner, "oneOffs", "label", "Interview over the standup")
	// A stand-in who gives nothing, and a week Mei is away, for the
	// cover roots.
	f.vars["standIn"] = created(a, f.owner, `mutation { createStaff(input: {name: "Stan Inn"}) { staff { id } } }`, "createStaff", "staff")
	f.vars["meiAway"] = created(a, f.owner, `mutation($s: ID!) { createTimeOff(input: {staffId: $s, from: "2027-01-04", to: "2027-01-08"}) { timeOff { id } } }`,
		"createTimeOff", "timeOff", map[string]any{"s": f.staff["Mei"]})
	return f
}

// pastPlace stores a client's place in a series session that has started.
func pastPlace(a *api, owner string, ref map[string]any, client string) string {
	a.t.Helper()
	ctx := context.Background()
	p, err := models.Authenticate(ctx, a.db.DB, owner)
	if err != nil {
		a.t.Fatal(err)
	}
	var cid, ct, cl int64
	fmt.Sscan(client, &cid)
	fmt.Sscan(ref["classTimeId"].(string), &ct)
	fmt.Sscan(ref["classId"].(string), &cl)
	date, err := engine.ParseDate(ref["date"].(string))
	if err != nil {
		a.t.Fatal(err)
	}
	row := &models.SessionBooking{BusinessID: p.BusinessID, ClientID: cid, Status: models.Booked, OrigDate: models.Day(date), ClassTimeID: ct, ClassID: cl,
		CreatedUnix: now.Unix() - 7*86400, ChangedUnix: now.Unix() - 7*86400, SessionDate: models.Day(date), StartMinute: 9 * 60, EndMinute: 9*60 + 15,
		StartsUnix: now.Unix() - 86400, Activity: "Standup", Room: "Room A", Staff: "Mei Chen"}
	if _, err := a.db.DB.NewInsert().Model(row).Returning("id").Exec(ctx); err != nil {
		a.t.Fatal(err)
	}
	return fmt.Sprint(row.ID)
}

// rootCall is how the walk calls a root field: its arguments (from the
// fixture's ids), and the owner's where they differ (the owner books for
// a client it names).
type rootCall struct {
	args, owner string
}

// rootCalls are the arguments of the roots that need them, or that need
// particular ones to reach the fixture's people. A write is always a dry
// run. Roots not listed are called without arguments (a query) or with
// placeholders (a write, which every token but the owner is refused).
func (f *whoFx) rootCalls() map[string]rootCall {
	v := f.vars
	c := f.clients
	week := `from: "2026-11-30", to: "2026-12-21"` // the standing places begin on the 15th
	return map[string]rootCall{
		"client":               {args: fmt.Sprintf(`(id: %q)`, c["Fenna"])},
		"membership":           {args: fmt.Sprintf(`(id: %q)`, v["fennaSub"])},
		"roomBooking":          {args: fmt.Sprintf(`(id: %q)`, v["fennaRoom"])},
		"bookings":             {args: `(from: "2026-11-30", to: "2026-12-14", first: 500)`},
		"booking":              {args: fmt.Sprintf(`(id: %q)`, v["fennaBooking"])},
		"series":               {args: fmt.Sprintf(`(id: %q)`, v["standup"])},
		"plan":                 {args: fmt.Sprintf(`(id: %q)`, v["plan"])},
		"oneOff":               {args: fmt.Sprintf(`(id: %q)`, v["interview"])},
		"session":              {args: fmt.Sprintf(`(id: %q)`, v["standupTue"])},
		"day":                  {args: `(date: "2026-12-08")`},
		"days":                 {args: "(" + week + ")"},
		"sessions":             {args: "(" + week + ")"},
		"sessionsNeedingCover": {args: "(" + week + ")"},
		"coverOptions":         {args: fmt.Sprintf(`(sessionId: %q)`, v["standupTue"])},
		"coverPlan":            {args: fmt.Sprintf(`(timeOffId: %q)`, v["meiAway"])},
		"assignCover": {args: fmt.Sprintf(`(input: [{sessionId: %q, staffId: %q, replaces: %q}], dryRun: true)`,
			v["standupWed"], v["standIn"], f.staff["Mei"])},
		"oneOffs":      {args: "(" + week + ")"},
		"roomBookings": {args: `(first: 500)`},
		// A proposal's series, read from its dry run, lead to their
		// members (none yet).
		"proposal":    {args: fmt.Sprintf(`(id: %q)`, v["proposal"])},
		"clients":     {args: `(first: 500)`},
		"memberships": {args: `(first: 500)`},

		"bookSession": {args: fmt.Sprintf(`(sessionId: %q, dryRun: true)`, v["standupWed"]),
			owner: fmt.Sprintf(`(sessionId: %q, clientId: %q, dryRun: true)`, v["standupWed"], c["Gus"])},
		"cancelBooking": {args: fmt.Sprintf(`(id: %q, dryRun: true)`, v["orlaBooking"])},
		// The impact of a write names the people on the sessions it
		// changes: Orla's place and Fenna's wait on the 8th, Gus's
		// standing place and Fenna's waiting one on the 15th.
		"cancelSession":  {args: fmt.Sprintf(`(sessionId: %q, dryRun: true)`, v["standupTue"])},
		"changeSession":  {args: fmt.Sprintf(`(sessionId: %q, change: {cancelled: true}, dryRun: true)`, v["standupTue15"])},
		"markAttendance": {args: fmt.Sprintf(`(id: %q, status: ATTENDED, dryRun: true)`, v["fennaPast"])},
		"bookRoom": {args: fmt.Sprintf(`(input: {roomId: %q, date: "2026-12-12", start: "14:00", end: "15:00"}, dryRun: true)`, v["roomB"]),
			owner: fmt.Sprintf(`(input: {roomId: %q, clientId: %q, date: "2026-12-12", start: "14:00", end: "15:00"}, dryRun: true)`, v["roomB"], c["Gus"])},
		"cancelRoomBooking": {args: fmt.Sprintf(`(id: %q, dryRun: true)`, v["orlaRoom"])},
		"createClient":      {args: `(input: {name: "Walk-in"}, dryRun: true)`},
		"updateClient":      {args: fmt.Sprintf(`(id: %q, input: {}, dryRun: true)`, c["Fenna"])},
		"createMembership":  {args: fmt.Sprintf(`(input: {clientId: %q, seriesId: %q, startDate: "2027-01-01"}, dryRun: true)`, c["Gus"], v["standup"])},

		"standingBooking":  {args: fmt.Sprintf(`(id: %q)`, v["fennaStanding"])},
		"standingBookings": {args: `(first: 500)`},
		"createStandingBooking": {args: fmt.Sprintf(`(input: {sessionId: %q, from: "2026-12-09"}, dryRun: true)`, v["standupWed"]),
			owner: fmt.Sprintf(`(input: {sessionId: %q, clientId: %q, from: "2026-12-09"}, dryRun: true)`, v["standupWed"], c["Gus"])},
		"updateStandingBooking": {args: fmt.Sprintf(`(id: %q, input: {until: "2027-06-01"}, dryRun: true)`, v["fennaStanding"])},
		"endStandingBooking":    {args: fmt.Sprintf(`(id: %q, from: "2027-01-05", dryRun: true)`, v["fennaStanding"])},
		"skipStandingDate":      {args: fmt.Sprintf(`(id: %q, date: "2026-12-22", dryRun: true)`, v["fennaStanding"])},
		"swapStandingDate":      {args: fmt.Sprintf(`(id: %q, date: "2026-12-22", sessionId: %q, dryRun: true)`, v["fennaStanding"], v["standupWed23"])},
	}
}

// facts are what the owner sees of every booking and one-off: who is in
// it and who leads it, the ground the rule is applied to.
type facts struct {
	bookingClient map[string]string
	bookingStaff  map[string][]string
	oneOffStaff   map[string][]string
	// standing places: their client, and the staff of their class
	standingClient map[string]string
	standingStaff  map[string][]string
}

func (f *whoFx) facts() facts {
	f.t.Helper()
	out := facts{bookingClient: map[string]string{}, bookingStaff: map[string][]string{}, oneOffStaff: map[string][]string{},
		standingClient: map[string]string{}, standingStaff: map[string][]string{}}
	data := f.ok(f.owner, `{ bookings(from: "2026-11-01", to: "2027-01-01", first: 500) { nodes { id client { id } session { staff { id } } } }
		oneOffs { id class { staff { id } } } standingBookings(first: 500) { nodes { id client { id } class { staff { id } } } } }`, nil)
	for _, b := range rows(data, "standingBookings") {
		id := path(b, "id").(string)
		out.standingClient[id] = path(b, "client", "id").(string)
		for _, s := range path(b, "class", "staff").([]any) {
			out.standingStaff[id] = append(out.standingStaff[id], path(s, "id").(string))
		}
	}
	for _, b := range rows(data, "bookings") {
		id := path(b, "id").(string)
		out.bookingClient[id] = path(b, "client", "id").(string)
		staff, _ := path(b, "session", "staff").([]any)
		for _, s := range staff {
			out.bookingStaff[id] = append(out.bookingStaff[id], path(s, "id").(string))
		}
	}
	for _, o := range rows(data, "oneOffs") {
		for _, s := range path(o, "class", "staff").([]any) {
			out.oneOffStaff[path(o, "id").(string)] = append(out.oneOffStaff[path(o, "id").(string)], path(s, "id").(string))
		}
	}
	return out
}

// allowed applies the rule to one thing a role meets through edge, in the
// object parent.
func (fs facts) allowed(r role, s sighting, id string) (bool, error) {
	switch {
	case s.typ == "Booking":
		client, ok := fs.bookingClient[id]
		if !ok {
			// A dry run's booking: its client is checked where it shows
			// (Booking.client).
			if r.all || r.client != "" {
				return true, nil
			}
			return false, fmt.Errorf("booking %s is none the fixture knows", id)
		}
		return r.sees(fs.bookingStaff[id], client), nil
	case s.typ == "StandingBooking":
		client, ok := fs.standingClient[id]
		if !ok {
			// A dry run's standing place: its client is checked where it
			// shows (StandingBooking.client).
			if r.all || r.client != "" {
				return true, nil
			}
			return false, fmt.Errorf("standing booking %s is none the fixture knows", id)
		}
		return r.sees(fs.standingStaff[id], client), nil
	case s.edge == "OneOff.clients":
		return r.sees(fs.oneOffStaff[s.parent], id), nil
	}
	return r.client == "" || id == r.client, nil // any role but a client reads clients
}

// root is a field of Query or Mutation the walk calls.
type root struct {
	op, field, sel string
	write          bool
	call           rootCall
	listed         bool // its arguments are in rootCalls, not placeholders
	nodes          []*selNode
}

// walkRoots builds the document of every root: everything below it, each
// type once on a path, so that every string is read too. A query that
// needs arguments is asked only when rootCalls gives them, which it must
// for one that leads to a Client or a Booking.
func (f *whoFx) walkRoots(s schemaInfo) []root {
	f.t.Helper()
	targets := map[string]bool{"Client": true, "Booking": true, "StandingBooking": true}
	reach := s.reaching("Client", "Booking")
	if s.subscription != "" && reach[s.subscription] {
		f.t.Errorf("%s leads to a client: the walk does not follow subscriptions yet", s.subscription)
	}
	calls := f.rootCalls()
	var out []root
	for _, op := range []string{s.query, s.mutation} {
		for _, fd := range s.types[op].Fields {
			ft := fd.Type.named()
			r := root{op: op, field: fd.Name, write: op == s.mutation}
			r.call, r.listed = calls[fd.Name]
			switch {
			case r.listed:
			case r.write:
				r.call.args = s.placeholderArgs(fd)
			case hasRequiredArgs(fd) && reach[ft]:
				f.t.Errorf("Query.%s leads to a client and needs arguments: add it to rootCalls", fd.Name)
				continue
			case hasRequiredArgs(fd):
				// It leads to no client, but its strings are read too.
				r.call.args = s.placeholderArgs(fd)
			}
			if k := s.types[ft].Kind; k != "OBJECT" {
				r.nodes = []*selNode{{field: fd.Name, parent: op, typ: ft}}
			} else {
				r.nodes = []*selNode{{field: fd.Name, parent: op, typ: ft, kids: s.selection(f.t, ft, reach, targets, map[string]bool{ft: true})}}
			}
			out = append(out, r)
		}
	}
	for name := range calls {
		if !slices.ContainsFunc(out, func(r root) bool { return r.field == name }) {
			f.t.Errorf("rootCalls lists %s, which the schema does not have", name)
		}
	}
	return out
}

func (r root) document(owner bool) string {
	args := r.call.args
	if owner && r.call.owner != "" {
		args = r.call.owner
	}
	kw := "query"
	if r.write {
		kw = "mutation"
	}
	if len(r.nodes[0].kids) == 0 {
		return kw + " { " + r.field + args + " }"
	}
	return kw + " { " + r.field + args + " {" + render(r.nodes[0].kids) + " } }"
}

func (f *whoFx) on(t *testing.T) *whoFx {
	g := *f
	g.api = f.api.on(t)
	return &g
}

// answer is what one token saw through one root: the sightings by where
// they are, and every string.
type answer struct {
	at      map[string]sighting
	strings []string
	errors  []gqlError
}

func (f *whoFx) ask(tok string, r root, owner bool) answer {
	f.t.Helper()
	res := f.do(tok, r.document(owner), nil)
	out := answer{at: map[string]sighting{}, errors: res.Errors}
	for _, e := range res.Errors {
		out.strings = append(out.strings, e.Message) // an error's words are read too
	}
	if res.Data == nil {
		return out
	}
	walkAnswer(r.nodes, res.Data, "", map[string]bool{"Client": true, "Booking": true, "StandingBooking": true}, func(s sighting) {
		if old, ok := out.at[s.at]; ok {
			s.ids = append(old.ids, s.ids...)
		}
		out.at[s.at] = s
	}, func(s string) { out.strings = append(out.strings, s) })
	return out
}

// TestWhoSeesWhom walks every path to a Client or a Booking with tokens
// of every role (see the top of this file).
func TestWhoSeesWhom(t *testing.T) {
	// Every path at once makes documents the cost limit refuses, as it
	// should; their answers are small.
	unlimited := func(r *graph.Resolver) { r.MaxCost, r.MaxResponse = 1<<40, 1<<30 }
	eachDatabaseWith(t, unlimited, func(t *testing.T, a *api) {
		f := newWhoFx(t, a)
		s := introspect(f.api, f.owner)
		roots := f.walkRoots(s)
		fs := f.facts()
		ctx := context.Background()
		p, err := models.Authenticate(ctx, a.db.DB, f.owner)
		if err != nil {
			t.Fatal(err)
		}
		scoped := func(r models.Role, client, staff string) string {
			var c, st int64
			fmt.Sscan(client, &c)
			fmt.Sscan(staff, &st)
			tok, _, err := models.CreateScopedToken(ctx, a.db.DB, p.BusinessID, r, string(r), "", c, st)
			if err != nil {
				t.Fatal(err)
			}
			return tok
		}
		roles := []role{
			{name: "client Orla", tok: scoped(models.ClientRole, f.clients["Orla"], ""), client: f.clients["Orla"]},
			{name: "staff Mei (the standups)", tok: scoped(models.StaffRole, "", f.staff["Mei"]), staff: f.staff["Mei"]},
			{name: "staff Daniel (the check-in)", tok: scoped(models.StaffRole, "", f.staff["Daniel"]), staff: f.staff["Daniel"]},
			{name: "staff Sofia (the interview)", tok: scoped(models.StaffRole, "", f.staff["Sofia"]), staff: f.staff["Sofia"]},
			{name: "staff tied to no one", tok: scoped(models.StaffRole, "", "")},
			{name: "read-only", tok: scoped(models.ReadOnly, "", "")},
			{name: "front desk", tok: scoped(models.FrontDesk, "", ""), all: true, queries: true},
		}

		// The owner's answers, the control: every root answers (those
		// with placeholders are not asked), and through every field that
		// leads to a client or a booking it meets someone other than Orla
		// or a booking not hers.
		control := map[string]answer{}
		shown := map[string]bool{}
		for _, r := range roots {
			if !r.listed && r.call.args != "" {
				continue // placeholders: there may be nothing to show
			}
			ans := f.ask(f.owner, r, true)
			if len(ans.errors) > 0 {
				t.Errorf("the owner's %s: %v", r.field, ans.errors)
			}
			control[r.field] = ans
			for _, sg := range ans.at {
				for _, id := range sg.ids {
					if ok, _ := fs.allowed(roles[0], sg, id); !ok {
						shown[sg.edge] = true
					}
				}
			}
			for _, secret := range f.secrets {
				if slices.ContainsFunc(ans.strings, func(s string) bool { return strings.Contains(s, secret) }) {
					shown["text "+secret] = true
				}
			}
		}
		// A field that only ever holds what its write makes shows the walk's
		// dry runs a provisional row, whose client is checked where it shows.
		madeByTheWrite := map[string]bool{"StandingBookingPayload.booking": true}
		for _, edge := range s.edgesInto(map[string]bool{"Client": true, "Booking": true, "StandingBooking": true}) {
			if !shown[edge] && !madeByTheWrite[edge] {
				t.Errorf("%s: no root showed the owner anyone the client token may not see through it; give the walk data there", edge)
			}
		}
		for _, secret := range f.secrets {
			if !shown["text "+secret] {
				t.Errorf("the owner never read %q: the text check would prove nothing", secret)
			}
		}

		for _, rl := range roles {
			t.Run(rl.name, func(t *testing.T) {
				for _, r := range roots {
					if r.write && rl.queries {
						continue
					}
					t.Run(r.field, func(t *testing.T) {
						ans := f.on(t).ask(rl.tok, r, false)
						if r.write && !r.listed {
							// Placeholders: the role may not write here at all.
							if len(ans.errors) == 0 || ans.errors[0].code() != "FORBIDDEN" || len(ans.at) > 0 {
								t.Fatalf("%v, want FORBIDDEN and nothing else (if the role may call it, add it to rootCalls): %.200s", ans.errors, r.document(false))
							}
							return
						}
						// A root may refuse the role (FORBIDDEN) or not
						// find what it may not see (NOT_FOUND), or its
						// placeholders; below the root nothing fails: what
						// the role may not see is left out, not refused.
						placeholders := !r.listed && r.call.args != ""
						for _, e := range ans.errors {
							c := e.code()
							if len(e.Path) != 1 || c != "FORBIDDEN" && c != "NOT_FOUND" && !(placeholders && c == "BAD_USER_INPUT") {
								t.Errorf("%v: %s %s", e.Path, c, e.Message)
							}
						}
						for at, sg := range ans.at {
							for _, id := range sg.ids {
								ok, err := fs.allowed(rl, sg, id)
								if err != nil || !ok {
									t.Errorf("%s: sees %s %s through %s (%v)", at, sg.typ, id, sg.edge, err)
								}
							}
						}
						if rl.client != "" {
							for _, s := range ans.strings {
								for _, secret := range f.secrets {
									if strings.Contains(s, secret) {
										t.Errorf("a string of its answer holds %q: %q", secret, s)
									}
								}
							}
						}
						if r.write || placeholders {
							return // the owner's writes name other rows; placeholders name none
						}
						// Nothing less than the rule gives: wherever the
						// role stands where the owner stood, it sees what
						// the owner saw there, narrowed by the rule.
						for at, sg := range ans.at {
							want := []string{}
							for _, id := range control[r.field].at[at].ids {
								if ok, _ := fs.allowed(rl, sg, id); ok {
									want = append(want, id)
								}
							}
							got := slices.Clone(sg.ids)
							slices.Sort(got)
							slices.Sort(want)
							if !slices.Equal(slices.Compact(got), slices.Compact(want)) {
								t.Errorf("%s: sees %v, want %v", at, got, want)
							}
						}
					})
				}
			})
		}
	})
}
