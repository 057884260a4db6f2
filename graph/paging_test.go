package graph_test

import (
	"context"
	"encoding/base64"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/99designs/gqlgen/client"

	"github.com/koredyne/schedule/engine"
	"github.com/koredyne/schedule/graph"
	"github.com/koredyne/schedule/graph/generated"
	"github.com/koredyne/schedule/models"
	"github.com/koredyne/schedule/models/modelstest"
	"github.com/koredyne/schedule/models/webhook"
)

const clientPage = `query($first: Int, $after: String) { clients(first: $first, after: $after) {
	edges { cursor node { id name } } nodes { id name } totalCount pageInfo { hasNextPage hasPreviousPage startCursor endCursor } } }`

// TestClientPages pages through the clients three at a time: the pages
// join up to the whole list in its documented order (name without case,
// then id), each says where it stands, a client removed between two pages
// does not shift the next one, and a bad cursor or page size is refused.
func TestClientPages(t *testing.T) {
	eachDatabase(t, func(t *testing.T, a *api) {
		tok := a.business("paging", engine.Office)
		// Names that sort differently with and without case, and twins.
		for _, n := range []string{"aardvark Ltd", "Aardvark Ltd", "zeta", "Zeta", "ÉCOLE", "mid"} {
			a.ok(tok, `mutation($n: String!) { createClient(input: {name: $n}) { client { id } } }`, map[string]any{"n": n})
		}
		all := rows(a.ok(tok, `{ clients(first: 500) { nodes { id name } totalCount } }`, nil), "clients")
		if len(all) < 9 {
			t.Fatalf("only %d clients", len(all))
		}
		if !slices.IsSortedFunc(all, func(x, y any) int {
			return strings.Compare(strings.ToLower(path(x, "name").(string))+"\x00"+pad(path(x, "id")), strings.ToLower(path(y, "name").(string))+"\x00"+pad(path(y, "id")))
		}) {
			t.Errorf("clients not by name without case, then id: %v", all)
		}

		var got []any
		var after any
		for page := 0; ; page++ {
			data := a.ok(tok, clientPage, map[string]any{"first": 3, "after": after})
			c := path(data, "clients").(map[string]any)
			nodes, edges := c["nodes"].([]any), c["edges"].([]any)
			if c["totalCount"] != float64(len(all)) || len(nodes) != len(edges) || len(nodes) > 3 {
				t.Fatalf("page %d: %d nodes, %d edges, totalCount %v of %d", page, len(nodes), len(edges), c["totalCount"], len(all))
			}
			for i := range nodes {
				if path(edges[i], "node", "id") != path(nodes[i], "id") {
					t.Errorf("page %d: edge %d is %v, node %v", page, i, edges[i], nodes[i])
				}
			}
			if path(c, "pageInfo", "hasPreviousPage") != (page > 0) || path(c, "pageInfo", "endCursor") != path(edges[len(edges)-1], "cursor") {
				t.Errorf("page %d: pageInfo %v", page, c["pageInfo"])
			}
			got = append(got, nodes...)
			if path(c, "pageInfo", "hasNextPage") != true {
				break
			}
			after = path(c, "pageInfo", "endCursor")
		}
		if fmt.Sprint(got) != fmt.Sprint(all) {
			t.Errorf("pages joined:\n%v\nwant\n%v", got, all)
		}

		// Clients removed between pages (the twin Aardvarks, first in the
		// list): the next page starts after the cursor all the same.
		if path(all[0], "name") != "aardvark Ltd" && path(all[0], "name") != "Aardvark Ltd" {
			t.Fatalf("first client %v", all[0])
		}
		first := path(a.ok(tok, clientPage, map[string]any{"first": 1}), "clients").(map[string]any)
		a.ok(tok, `mutation($id: ID!) { deleteClient(id: $id) { id } }`, map[string]any{"id": path(all[0], "id")}) // the page's last
		a.ok(tok, `mutation($id: ID!) { deleteClient(id: $id) { id } }`, map[string]any{"id": path(all[1], "id")}) // the next page's first
		next := path(a.ok(tok, clientPage, map[string]any{"first": 3, "after": path(first, "pageInfo", "endCursor")}), "clients").(map[string]any)
		if n := next["nodes"].([]any); len(n) != 3 || path(n[0], "id") != path(all[2], "id") || next["totalCount"] != float64(len(all)-2) {
			t.Errorf("after a deletion: %v, want from %v with %d in all", next, all[2], len(all)-2)
		}

		for _, bad := range []map[string]any{{"after": "not a cursor!"}, {"after": ""}, {"first": 501}, {"first": -1}} {
			e := a.fails(tok, "BAD_USER_INPUT", clientPage, bad)
			if f := e.Extensions["field"]; f != "after" && f != "first" {
				t.Errorf("%v: field %v", bad, f)
			}
		}
		if n := path(a.ok(tok, clientPage, map[string]any{"first": 0}), "clients", "nodes").([]any); len(n) != 0 {
			t.Errorf("first 0 gave %d", len(n))
		}
	})
}

func pad(id any) string { return fmt.Sprintf("%020s", id) }

// TestOwnRowsOnly: a CLIENT token pages through its own rows only, counts
// only them, and finds no other client's row by id (NOT_FOUND, as for an id
// the business does not have); the front desk finds them all. A field it
// may not ask answers null with its error while the rest still answers.
func TestOwnRowsOnly(t *testing.T) {
	eachDatabase(t, func(t *testing.T, a *api) {
		f := newBookingFx(t, a)
		ctx := context.Background()
		b, _ := models.BusinessBySlug(ctx, a.db.DB, "meridian")
		var orbit int64
		fmt.Sscan(f.clients["Orbit Analytics"], &orbit)
		client, _, _ := models.CreateScopedToken(ctx, a.db.DB, b.ID, models.ClientRole, "orbit", "", orbit, 0)
		desk := a.token("meridian", models.FrontDesk)

		mine := path(f.ok(client, `mutation($ref: SessionRefInput!) { bookSession(ref: $ref) { booking { id } } }`, map[string]any{"ref": f.ref}), "bookSession", "booking", "id")
		theirs := path(f.book(f.ref, "Bluefin Legal", false), "booking", "id")
		room := f.ids(f.tok, "rooms", "name")["Boardroom"]
		myRoom := path(f.ok(client, `mutation($r: ID!) { bookRoom(input: {roomId: $r, date: "2026-12-09", start: "21:00", end: "22:00"}) { roomBooking { id } } }`,
			map[string]any{"r": room}), "bookRoom", "roomBooking", "id")
		theirRoom := path(f.ok(f.tok, `mutation($r: ID!, $c: ID!) { bookRoom(input: {roomId: $r, date: "2026-12-10", start: "21:00", end: "22:00", clientId: $c}) { roomBooking { id } } }`,
			map[string]any{"r": room, "c": f.clients["Bluefin Legal"]}), "bookRoom", "roomBooking", "id")
		sub := membershipOf(f.api, f.tok, "Bluefin Legal", "Daily standup")

		lists := `{ clients { totalCount nodes { id } } memberships { totalCount nodes { client { id } } }
			bookings(from: "2026-12-01", to: "2027-01-01") { totalCount nodes { client { id } } }
			roomBookings { totalCount nodes { id client { id } } } }`
		own := f.ok(client, lists, nil)
		for _, l := range []string{"clients", "memberships", "bookings", "roomBookings"} {
			if n := path(own, l, "totalCount").(float64); n < 1 || int(n) != len(rows(own, l)) {
				t.Errorf("%s: totalCount %v, %d rows", l, n, len(rows(own, l)))
			}
			for _, r := range rows(own, l) {
				id := path(r, "id")
				if l != "clients" {
					id = path(r, "client", "id")
				}
				if id != f.clients["Orbit Analytics"] {
					t.Errorf("%s: the client token sees %v", l, r)
				}
			}
		}
		if all := f.ok(desk, lists, nil); path(all, "clients", "totalCount").(float64) < 4 || path(all, "bookings", "totalCount") != float64(2) || path(all, "roomBookings", "totalCount").(float64) < 2 {
			t.Errorf("the front desk sees %v", all)
		}

		for _, c := range []struct{ field, id string }{
			{"client", f.clients["Bluefin Legal"]}, {"membership", sub}, {"booking", theirs.(string)}, {"roomBooking", theirRoom.(string)},
		} {
			q := fmt.Sprintf(`query($id: ID!) { %s(id: $id) { id } }`, c.field)
			f.fails(client, "NOT_FOUND", q, map[string]any{"id": c.id})
			if got := path(f.ok(desk, q, map[string]any{"id": c.id}), c.field, "id"); got != c.id {
				t.Errorf("the front desk's %s(%s): %v", c.field, c.id, got)
			}
			f.fails(desk, "NOT_FOUND", q, map[string]any{"id": "999999"})
		}
		for field, id := range map[string]any{"client": f.clients["Orbit Analytics"], "booking": mine, "roomBooking": myRoom} {
			q := fmt.Sprintf(`query($id: ID!) { %s(id: $id) { id } }`, field)
			if got := path(f.ok(client, q, map[string]any{"id": id}), field, "id"); got != id {
				t.Errorf("the client's own %s: %v", field, got)
			}
		}

		// One forbidden field is null with its error; the rest answers.
		r := f.do(client, `query($c: ID!) { clients { totalCount } bookings(clientId: $c, from: "2026-12-01", to: "2027-01-01") { totalCount } }`,
			map[string]any{"c": f.clients["Bluefin Legal"]})
		if len(r.Errors) != 1 || r.Errors[0].code() != "FORBIDDEN" || r.Data["bookings"] != nil || path(r.Data, "clients", "totalCount") != float64(1) {
			t.Errorf("a forbidden field beside an allowed one: %+v %v", r.Errors, r.Data)
		}
	})
}

// TestBookSessionByID: a session named by its Session.id books the same
// place as by its ref, a one-off too; naming it in none or two ways, or by
// an id that is not one, is BAD_USER_INPUT and writes nothing.
func TestBookSessionByID(t *testing.T) {
	eachDatabase(t, func(t *testing.T, a *api) {
		f := newBookingFx(t, a)
		var id string
		for _, s := range path(f.ok(f.tok, `{ day(date: "2026-12-08") { sessions { id label } } }`, nil), "day", "sessions").([]any) {
			if path(s, "label") == "Daily standup" {
				id = path(s, "id").(string)
			}
		}
		const byID = `mutation($id: SessionID, $ref: SessionRefInput, $o: ID, $c: ID!) { bookSession(sessionId: $id, ref: $ref, oneOffId: $o, clientId: $c) {
			booking { status session { id } booked { date start end room activity staff label } } } }`
		before := f.dump(f.tok)
		for _, bad := range []map[string]any{{}, {"id": id, "ref": f.ref}, {"ref": f.ref, "o": "1"}, {"id": "s/2026-12-08/x/1"}, {"id": "o/0"}, {"id": "12"}} {
			bad["c"] = f.clients["Orbit Analytics"]
			e := f.fails(f.tok, "BAD_USER_INPUT", byID, bad)
			if e.Extensions["field"] != "sessionId" {
				t.Errorf("%v: field %v (%s)", bad, e.Extensions["field"], e.Message)
			}
		}
		f.fails(f.tok, "NOT_FOUND", byID, map[string]any{"id": "s/2026-12-08/999999/1", "c": f.clients["Orbit Analytics"]})
		if after := f.dump(f.tok); after != before {
			t.Error("a refused booking changed the business")
		}

		viaID := path(f.ok(f.tok, byID, map[string]any{"id": id, "c": f.clients["Orbit Analytics"]}), "bookSession", "booking")
		viaRef := path(f.ok(f.tok, byID, map[string]any{"ref": f.ref, "c": f.clients["Bluefin Legal"]}), "bookSession", "booking")
		if fmt.Sprint(viaID) != fmt.Sprint(viaRef) || path(viaID, "session", "id") != id || path(viaID, "status") != "BOOKED" {
			t.Errorf("by id %v, by ref %v", viaID, viaRef)
		}

		// A one-off, by its id and by its session id.
		oneOff := created(f.api, f.tok, `mutation($c: ID!, $r: ID!) { createOneOff(input: {classId: $c, roomId: $r, date: "2026-12-09", start: "16:00", end: "17:00"}) { oneOff { id } } }`,
			"createOneOff", "oneOff", map[string]any{"c": f.ref["classId"], "r": f.ids(f.tok, "rooms", "name")["Boardroom"]})
		a1 := path(f.ok(f.tok, byID, map[string]any{"id": "o/" + oneOff, "c": f.clients["Orbit Analytics"]}), "bookSession", "booking")
		a2 := path(f.ok(f.tok, byID, map[string]any{"o": oneOff, "c": f.clients["Bluefin Legal"]}), "bookSession", "booking")
		if fmt.Sprint(a1) != fmt.Sprint(a2) || path(a1, "session", "id") != "o/"+oneOff {
			t.Errorf("one-off by id %v, by oneOffId %v", a1, a2)
		}
	})
}

// TestBookingsUpdateRule: in an update input a field left out keeps its value, null
// clears one that can be empty and is refused, naming the field, on one
// that cannot; nothing is written then.
func TestBookingsUpdateRule(t *testing.T) {
	eachDatabase(t, func(t *testing.T, a *api) {
		tok := a.business("updates", engine.Office)
		c := created(a, tok, `mutation { createClient(input: {name: "Acme", email: "hi@acme.example", phone: "+1 555 0100"}) { client { id } } }`, "createClient", "client")
		const get = `query($id: ID!) { client(id: $id) { name email phone } }`
		got := path(a.ok(tok, `mutation($id: ID!) { updateClient(id: $id, input: {email: null}) { client { name email phone } } }`, map[string]any{"id": c}), "updateClient", "client")
		if want := path(a.ok(tok, get, map[string]any{"id": c}), "client"); fmt.Sprint(got) != fmt.Sprint(want) ||
			path(got, "email") != nil || path(got, "phone") != "+1 555 0100" || path(got, "name") != "Acme" {
			t.Errorf("email cleared: %v, read back %v", got, want)
		}
		before := a.dump(tok)
		for field, q := range map[string]string{
			"name":  `mutation($id: ID!) { updateClient(id: $id, input: {name: null, phone: null}) { client { id } } }`,
			"email": `mutation($id: ID!, $e: String) { updateClient(id: $id, input: {email: $e}) { client { id } } }`,
		} {
			vars := map[string]any{"id": c, "e": "no at sign\x00"}
			if e := a.fails(tok, "BAD_USER_INPUT", q, vars); e.Extensions["field"] != field {
				t.Errorf("%s: field %v (%s)", q, e.Extensions["field"], e.Message)
			}
		}
		if after := a.dump(tok); after != before {
			t.Errorf("refused updates changed the business")
		}
		// A variable left out is a field left out: the phone stays.
		a.ok(tok, `mutation($id: ID!, $p: String) { updateClient(id: $id, input: {phone: $p}) { client { id } } }`, map[string]any{"id": c})
		if p := path(a.ok(tok, get, map[string]any{"id": c}), "client", "phone"); p != "+1 555 0100" {
			t.Errorf("phone after a variable left out: %v", p)
		}

		// A membership's plan and end date clear with null; its start cannot.
		series := a.ids(tok, "allSeries", "name")["Daily standup"]
		plan := created(a, tok, `mutation($s: ID!) { createPlan(input: {seriesId: $s, name: "Two", sessionsPerMonth: 2, months: 3, price: "40"}) { plan { id } } }`,
			"createPlan", "plan", map[string]any{"s": series})
		sub := created(a, tok, `mutation($c: ID!, $s: ID!, $p: ID!) { createMembership(input: {clientId: $c, seriesId: $s, planId: $p, startDate: "2026-12-01"}) { membership { id } } }`,
			"createMembership", "membership", map[string]any{"c": c, "s": series, "p": plan})
		s := path(a.ok(tok, `query($id: ID!) { membership(id: $id) { plan { id } endDate } }`, map[string]any{"id": sub}), "membership")
		if path(s, "plan", "id") != plan || path(s, "endDate") == nil {
			t.Errorf("created through a plan: %v", s)
		}
		s = path(a.ok(tok, `mutation($id: ID!) { updateMembership(id: $id, input: {planId: null, endDate: null}) { membership { plan { id } endDate startDate } } }`,
			map[string]any{"id": sub}), "updateMembership", "membership")
		if path(s, "plan") != nil || path(s, "endDate") != nil || path(s, "startDate") != "2026-12-01" {
			t.Errorf("plan and end cleared: %v", s)
		}
		if e := a.fails(tok, "BAD_USER_INPUT", `mutation($id: ID!) { updateMembership(id: $id, input: {startDate: null}) { membership { id } } }`,
			map[string]any{"id": sub}); e.Extensions["field"] != "startDate" {
			t.Errorf("startDate null: %v", e.Extensions)
		}

		// A weekly capacity rule becomes an override: weekdays emptied, dates given.
		room := created(a, tok, `mutation { createRoom(input: {name: "Annex"}) { room { id } } }`, "createRoom", "room")
		rule := created(a, tok, `mutation($r: ID!) { createCapacityRule(input: {roomId: $r, weekdays: [SUNDAY], start: "00:00", end: "24:00", units: 1}) { capacityRule { id } } }`,
			"createCapacityRule", "capacityRule", map[string]any{"r": room})
		r := path(a.ok(tok, `mutation($id: ID!) { updateCapacityRule(id: $id, input: {weekdays: [], from: "2027-01-03", to: "2027-01-03"}) { capacityRule { weekdays from to units } } }`,
			map[string]any{"id": rule}), "updateCapacityRule", "capacityRule")
		if len(path(r, "weekdays").([]any)) != 0 || path(r, "from") != "2027-01-03" || path(r, "units") != float64(1) {
			t.Errorf("rule as an override: %v", r)
		}
		if got := path(a.ok(tok, `query($id: ID!) { capacityRule(id: $id) { from } }`, map[string]any{"id": rule}), "capacityRule", "from"); got != "2027-01-03" {
			t.Errorf("capacityRule(id): %v", got)
		}
		for _, field := range []string{"units", "roomId", "start"} {
			q := fmt.Sprintf(`mutation($id: ID!) { updateCapacityRule(id: $id, input: {%s: null}) { capacityRule { id } } }`, field)
			if e := a.fails(tok, "BAD_USER_INPUT", q, map[string]any{"id": rule}); e.Extensions["field"] != field {
				t.Errorf("%s null: %v", field, e.Extensions)
			}
		}
		a.fails(tok, "BAD_USER_INPUT", `mutation($r: ID!) { bookRoom(input: {roomId: $r, date: "2026-12-09", start: "15:00", end: "16:00", units: 0}) { roomBooking { id } } }`,
			map[string]any{"r": room})
	})
}

// TestConnectionCostFollowsThePage: a connection is priced by its page, so
// a page of 5 costs less than one of 500, which costs what the whole list
// holds (the gym has 20 clients, so 500 and 20 cost the same); a client
// added makes the whole list dearer.
func TestConnectionCostFollowsThePage(t *testing.T) {
	d := modelstest.SQLite(t)
	store := models.NewStore(d.DB, func() time.Time { return now })
	h := (&graph.Resolver{Store: store, Log: slog.New(slog.NewTextHandler(io.Discard, nil)), MaxCost: 1}).Handler()
	a := &api{t: t, db: d, store: store, handler: h, c: client.New(h)}
	gym := a.business("gym", engine.Gym)
	cost := func(first int) float64 {
		q := fmt.Sprintf(`{ clients(first: %d) { totalCount edges { cursor node { name memberships { series { name } } } } } }`, first)
		c, _ := a.fails(gym, "QUERY_TOO_COMPLEX", q, nil).Extensions["cost"].(float64)
		return c
	}
	c5, c20, c500 := cost(5), cost(20), cost(500)
	t.Logf("cost of a page of 5: %v, 20: %v, 500: %v", c5, c20, c500)
	if c5 >= c500 || c20 != c500 || c5 < 5 {
		t.Errorf("first 5 costs %v, 20 %v, 500 %v", c5, c20, c500)
	}
	b, err := models.BusinessBySlug(context.Background(), d.DB, "gym")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := store.Write(context.Background(), b.ID, false, func(e *models.Edit) error {
		_, err := e.SaveClient(context.Background(), engine.Client{Name: "One more"})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if c := cost(500); c <= c500 {
		t.Errorf("21 clients cost %v, 20 cost %v", c, c500)
	}
}

// connectionArgs are the arguments each Query connection needs besides
// first and after; a connection missing here fails
// TestEveryCursorIsChecked until it is added.
var connectionArgs = map[string]string{
	"tokens": "", "appPasswords": "", "clients": "", "memberships": "", "roomBookings": "", "webhookEndpoints": "", "standingBookings": "",
	"bookings":          `from: "2026-12-01", to: "2027-01-01"`,
	"webhookDeliveries": `endpointId: "ENDPOINT"`,
	"placements":        `input: {classId: "CLASS", minutes: 60, step: 60}`,
}

// TestEveryCursorIsChecked walks every connection of Query (found in the
// schema): a cursor it gave out pages on, on this server and on another
// one over the same database; a cursor it did not give out — made up,
// another list's, another business's — is BAD_USER_INPUT naming after;
// and no cursor shows a client's name or an id in the clear.
func TestEveryCursorIsChecked(t *testing.T) {
	eachDatabase(t, func(t *testing.T, a *api) {
		f := newBookingFx(t, a)
		var endpoint string
		for _, url := range []string{"https://93.184.215.14/one", "https://93.184.215.14/two"} {
			endpoint = created(f.api, f.tok, `mutation($u: String!) { createWebhookEndpoint(input: {url: $u, events: ["schedule.changed"]}) { endpoint { id } } }`,
				"createWebhookEndpoint", "endpoint", map[string]any{"u": url})
		}
		f.book(f.ref, "Orbit Analytics", false)
		f.book(f.ref, "Bluefin Legal", false)
		f.stand("Cedar & Pine Architects", "2026-12-15", false)
		f.stand("Orbit Analytics", "2026-12-15", false)
		room := f.ids(f.tok, "rooms", "name")["Boardroom"]
		for _, at := range []string{"2026-12-09", "2026-12-10"} {
			f.ok(f.tok, `mutation($r: ID!, $d: Date!) { bookRoom(input: {roomId: $r, date: $d, start: "21:00", end: "22:00"}) { roomBooking { id } } }`,
				map[string]any{"r": room, "d": at})
		}
		for _, login := range []string{"kiosk-one", "kiosk-two"} {
			f.ok(f.tok, `mutation($l: String!) { createAppPassword(input: {login: $l, role: READ_ONLY}) { password } }`, map[string]any{"l": login})
		}
		a.token("meridian", models.FrontDesk)
		// The writes above queued events for the endpoints: the last one's
		// delivery log gets an attempt for each, as a dispatcher records.
		ctx := context.Background()
		id, _ := strconv.ParseInt(endpoint, 10, 64)
		if _, err := a.store.Claim(ctx, "test", now, time.Minute, 10); err != nil {
			t.Fatal(err)
		}
		batch, err := a.store.Next(ctx, id, "test", now, 10)
		if err != nil || len(batch.Deliveries) < 2 {
			t.Fatalf("%d deliveries queued: %v", len(batch.Deliveries), err)
		}
		var results []webhook.Result
		for _, d := range batch.Deliveries {
			results = append(results, webhook.Result{Delivery: d, Attempt: webhook.Attempt{At: now, Status: 200}, Number: 1, State: webhook.Delivered})
		}
		if err := a.store.Record(ctx, id, "test", now, time.Minute, results); err != nil {
			t.Fatal(err)
		}
		connectionArgs := maps.Clone(connectionArgs)
		connectionArgs["webhookDeliveries"] = strings.ReplaceAll(connectionArgs["webhookDeliveries"], "ENDPOINT", endpoint)
		class := path(rows(f.ok(f.tok, `{ classes { id } }`, nil), "classes")[0], "id").(string)
		connectionArgs["placements"] = strings.ReplaceAll(connectionArgs["placements"], "CLASS", class)
		other := a.business("elsewhere", engine.Office)
		names := map[string]bool{}
		for name := range f.clients {
			names[strings.ToLower(name)] = true
		}

		// A second server on the same database, as behind a load balancer.
		store := models.NewStore(a.db.DB, func() time.Time { return now })
		h := (&graph.Resolver{Store: store, Log: slog.New(slog.NewTextHandler(io.Discard, nil))}).Handler()
		second := &api{t: t, db: a.db, store: store, handler: h, c: client.New(h)}

		schema := generated.NewExecutableSchema(generated.Config{}).Schema()
		page := func(list string) string {
			args := connectionArgs[list]
			if args != "" {
				args += ", "
			}
			return fmt.Sprintf(`query($after: String) { %s(%sfirst: 1, after: $after) { edges { cursor node { __typename } } pageInfo { hasNextPage endCursor } } }`, list, args)
		}
		cursorOf := map[string]string{}
		var lists []string
		for _, field := range schema.Query.Fields {
			if !strings.HasSuffix(field.Type.Name(), "Connection") || field.Directives.ForName("deprecated") != nil {
				continue // an old name of a list answers as the list it names
			}
			list := field.Name
			lists = append(lists, list)
			if _, ok := connectionArgs[list]; !ok {
				t.Errorf("the connection %s is not in connectionArgs", list)
				continue
			}
			first := path(f.ok(f.tok, page(list), nil), list).(map[string]any)
			if path(first, "pageInfo", "hasNextPage") != true {
				t.Fatalf("%s: one page only: %v", list, first)
			}
			cursor := path(first, "pageInfo", "endCursor").(string)
			cursorOf[list] = cursor
			raw, _ := base64.RawURLEncoding.DecodeString(cursor)
			for name := range names {
				if strings.Contains(strings.ToLower(string(raw)), name) {
					t.Errorf("%s: the cursor %q holds %q", list, cursor, name)
				}
			}
			if strings.Contains(string(raw), "0000000") {
				t.Errorf("%s: the cursor %q holds an id in the clear", list, cursor)
			}
			next := f.ok(f.tok, page(list), map[string]any{"after": cursor})
			if again := second.ok(f.tok, page(list), map[string]any{"after": cursor}); fmt.Sprint(again) != fmt.Sprint(next) {
				t.Errorf("%s: the second server pages to %v, the first to %v", list, again, next)
			}
			if path(next, list, "pageInfo", "endCursor") == cursor {
				t.Errorf("%s: the next page ends where the first did", list)
			}
			for name, bad := range map[string]string{
				"made up": "Zm9v", "not base64": "not a cursor!", "empty": "",
				"base64 of an id": base64.RawURLEncoding.EncodeToString([]byte(fmt.Sprintf("%020d", 1))),
			} {
				if e := f.fails(f.tok, "BAD_USER_INPUT", page(list), map[string]any{"after": bad}); e.Extensions["field"] != "after" {
					t.Errorf("%s, a cursor %s: field %v", list, name, e.Extensions["field"])
				}
			}
			if list == "webhookDeliveries" {
				f.fails(other, "NOT_FOUND", page(list), map[string]any{"after": cursor}) // its endpoint is not theirs
			} else if list == "placements" {
				f.fails(other, "BAD_USER_INPUT", page(list), map[string]any{"after": cursor}) // its class is not theirs
			} else if e := f.fails(other, "BAD_USER_INPUT", page(list), map[string]any{"after": cursor}); e.Extensions["field"] != "after" {
				t.Errorf("%s: another business's cursor: field %v", list, e.Extensions["field"])
			}
		}
		if len(lists) < len(connectionArgs) {
			t.Errorf("connections %v, want every one of %v", lists, connectionArgs)
		}
		for _, list := range lists {
			for from, cursor := range cursorOf {
				if from != list {
					f.fails(f.tok, "BAD_USER_INPUT", page(list), map[string]any{"after": cursor})
				}
			}
		}
	})
}
