package graph_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/koredyne/schedule/engine"
	"github.com/koredyne/schedule/models"
)

// bookingFx is the office demo with a small class: the standup on
// 2026-12-08 gets room for two, and three client companies are subscribed
// to the standup, one of them on a plan of 2 sessions a month.
type bookingFx struct {
	*api
	tok     string
	ref     map[string]any
	clients map[string]string
}

const book = `mutation($ref: SessionRefInput!, $client: ID!, $wait: Boolean) {
	bookSession(ref: $ref, clientId: $client, waitlist: $wait) { booking { id status position } promoted { id } } }`

func newBookingFx(t *testing.T, a *api) *bookingFx {
	f := &bookingFx{api: a.with(t), tok: a.business("meridian", engine.Office)}
	f.ref = sessionRefOf(f.api, f.tok, "2026-12-08", "Daily standup")
	f.ok(f.tok, `mutation($id: ID!) { updateClassTime(id: $id, input: {capacity: 2}) { classTime { id } } }`, map[string]any{"id": f.ref["classTimeId"]})
	f.clients = f.ids(f.tok, "clients", "name")
	standup := f.ids(f.tok, "allSeries", "name")["Daily standup"]
	plan := created(f.api, f.tok, `mutation($s: ID!) { createPlan(input: {seriesId: $s, name: "Two a month", sessionsPerMonth: 2, months: 3, price: "40"}) { plan { id } } }`,
		"createPlan", "plan", map[string]any{"s": standup})
	for _, c := range []string{"Bluefin Legal", "Cedar & Pine Architects", "Northwind Traders"} {
		vars := map[string]any{"c": f.clients[c], "s": standup, "p": plan}
		q := `mutation($c: ID!, $s: ID!) { createMembership(input: {clientId: $c, seriesId: $s, startDate: "2026-11-01"}) { membership { id } } }`
		if c == "Northwind Traders" {
			q = `mutation($c: ID!, $s: ID!, $p: ID!) { createMembership(input: {clientId: $c, seriesId: $s, planId: $p, startDate: "2026-11-01"}) { membership { id } } }`
		}
		f.ok(f.tok, q, vars)
	}
	return f
}

func (f *bookingFx) book(ref map[string]any, client string, wait bool) map[string]any {
	f.t.Helper()
	return path(f.ok(f.tok, book, map[string]any{"ref": ref, "client": f.clients[client], "wait": wait}), "bookSession").(map[string]any)
}

func (f *bookingFx) places() map[string]any {
	f.t.Helper()
	data := f.ok(f.tok, `query($d: Date!) { day(date: $d) { sessions { label booked placesLeft waitlist bookings { client { name } status position } } } }`,
		map[string]any{"d": "2026-12-08"})
	for _, s := range path(data, "day", "sessions").([]any) {
		if path(s, "label") == "Daily standup" {
			return s.(map[string]any)
		}
	}
	f.t.Fatal("no standup")
	return nil
}

func TestBookingsAndWaitList(t *testing.T) {
	eachDatabase(t, func(t *testing.T, a *api) {
		f := newBookingFx(t, a)
		f.book(f.ref, "Orbit Analytics", false)
		f.book(f.ref, "Bluefin Legal", false)

		// Full: CAPACITY_FULL with what is left, unless asking to wait.
		e := f.fails(f.tok, "CAPACITY_FULL", book, map[string]any{"ref": f.ref, "client": f.clients["Cedar & Pine Architects"]})
		if e.Extensions["placesLeft"] != float64(0) || e.Extensions["capacity"] != float64(2) {
			t.Errorf("CAPACITY_FULL extensions %v", e.Extensions)
		}
		w1 := f.book(f.ref, "Cedar & Pine Architects", true)
		w2 := f.book(f.ref, "Northwind Traders", true)
		if path(w1, "booking", "status") != "WAITLISTED" || path(w1, "booking", "position") != float64(1) || path(w2, "booking", "position") != float64(2) {
			t.Fatalf("wait list: %v, %v", w1, w2)
		}
		f.fails(f.tok, "BAD_USER_INPUT", book, map[string]any{"ref": f.ref, "client": f.clients["Orbit Analytics"]})
		if p := f.places(); p["booked"] != float64(2) || p["placesLeft"] != float64(0) || p["waitlist"] != float64(2) {
			t.Errorf("places: %v", p)
		}

		// A place freed goes to the first in line; the line moves up.
		first := path(f.ok(f.tok, `{ bookings(from: "2026-12-08", to: "2026-12-09") { nodes { id client { name } status } } }`, nil), "bookings", "nodes").([]any)
		var orbit string
		for _, b := range first {
			if path(b, "client", "name") == "Orbit Analytics" {
				orbit = path(b, "id").(string)
			}
		}
		res := f.ok(f.tok, `mutation($id: ID!) { cancelBooking(id: $id) { booking { status } promoted { id client { name } status } } }`, map[string]any{"id": orbit})
		if path(res, "cancelBooking", "booking", "status") != "CANCELLED" {
			t.Errorf("cancelled a week ahead: %v", res)
		}
		promoted := path(res, "cancelBooking", "promoted").([]any)
		if len(promoted) != 1 || path(promoted[0], "client", "name") != "Cedar & Pine Architects" || path(promoted[0], "status") != "BOOKED" {
			t.Errorf("promoted %v, want Cedar & Pine", promoted)
		}
		p := f.places()
		if p["booked"] != float64(2) || p["waitlist"] != float64(1) {
			t.Errorf("after the promotion: %v", p)
		}
		for _, b := range p["bookings"].([]any) {
			if path(b, "client", "name") == "Northwind Traders" && path(b, "position") != float64(1) {
				t.Errorf("Northwind is %v in line, want 1", path(b, "position"))
			}
		}
	})
}

func TestPlanLimitAndLateCancel(t *testing.T) {
	eachDatabase(t, func(t *testing.T, a *api) {
		f := newBookingFx(t, a)
		// Northwind's plan gives 2 standups a month, counted by the month
		// of the session's date.
		dec := []string{"2026-12-03", "2026-12-04", "2026-12-07"}
		refs := make([]map[string]any, len(dec))
		for i, d := range dec {
			refs[i] = sessionRefOf(f.api, f.tok, d, "Daily standup")
		}
		f.book(refs[0], "Northwind Traders", false)
		f.book(refs[1], "Northwind Traders", false)
		e := f.fails(f.tok, "PLAN_LIMIT", book, map[string]any{"ref": refs[2], "client": f.clients["Northwind Traders"]})
		if e.Extensions["used"] != float64(2) || e.Extensions["limit"] != float64(2) {
			t.Errorf("PLAN_LIMIT extensions %v", e.Extensions)
		}
		// January is a new month.
		jan := sessionRefOf(f.api, f.tok, "2027-01-04", "Daily standup")
		f.book(jan, "Northwind Traders", false)
		// The last day of a month still counts in it.
		f.fails(f.tok, "PLAN_LIMIT", book, map[string]any{"ref": sessionRefOf(f.api, f.tok, "2026-12-31", "Daily standup"), "client": f.clients["Northwind Traders"]})

		// A timely cancellation gives the session back to the plan...
		bookings := path(f.ok(f.tok, `query($c: ID!) { bookings(clientId: $c, from: "2026-12-01", to: "2027-01-01") { nodes { id booked { date } } } }`,
			map[string]any{"c": f.clients["Northwind Traders"]}), "bookings", "nodes").([]any)
		f.ok(f.tok, `mutation($id: ID!) { cancelBooking(id: $id) { booking { status } } }`, map[string]any{"id": path(bookings[1], "id")})
		f.book(refs[2], "Northwind Traders", false)

		// ...a late one (within 12 hours of the start) does not.
		soon := sessionRefOf(f.api, f.tok, "2026-12-01", "Daily standup") // 09:00 New York = 14:00Z, now is 09:00Z
		f.book(soon, "Orbit Analytics", false)
		mine := path(f.ok(f.tok, `query($c: ID!) { bookings(clientId: $c, from: "2026-12-01", to: "2026-12-02") { nodes { id } } }`,
			map[string]any{"c": f.clients["Orbit Analytics"]}), "bookings", "nodes").([]any)
		res := f.ok(f.tok, `mutation($id: ID!) { cancelBooking(id: $id) { booking { status } } }`, map[string]any{"id": path(mine[0], "id")})
		if path(res, "cancelBooking", "booking", "status") != "LATE_CANCEL" {
			t.Errorf("cancelled 5 hours before: %v, want LATE_CANCEL", res)
		}
		f.fails(f.tok, "BAD_USER_INPUT", `mutation($id: ID!) { cancelBooking(id: $id) { booking { status } } }`, map[string]any{"id": path(mine[0], "id")})
	})
}

// TestBookingSnapshot: editing the rules never rewrites what was booked.
func TestBookingSnapshot(t *testing.T) {
	eachDatabase(t, func(t *testing.T, a *api) {
		f := newBookingFx(t, a)
		f.book(f.ref, "Orbit Analytics", false)
		q := `{ bookings(from: "2026-12-08", to: "2026-12-09") { nodes { booked { date start end room activity staff } session { start room { name } } } } }`
		before := path(f.ok(f.tok, q, nil), "bookings", "nodes").([]any)[0]
		f.ok(f.tok, `mutation($id: ID!) { updateClassTime(id: $id, input: {start: "09:30", end: "09:45"}) { classTime { id } } }`, map[string]any{"id": f.ref["classTimeId"]})
		f.ok(f.tok, `mutation($id: ID!) { updateRoom(id: $id, input: {name: "The Loft"}) { room { id } } }`, map[string]any{"id": f.ids(f.tok, "rooms", "name")["Room A"]})
		after := path(f.ok(f.tok, q, nil), "bookings", "nodes").([]any)[0]
		if fmt.Sprint(path(before, "booked")) != fmt.Sprint(path(after, "booked")) {
			t.Errorf("the snapshot changed: %v → %v", path(before, "booked"), path(after, "booked"))
		}
		if path(after, "booked", "start") != "09:00" || path(after, "booked", "room") != "Room A" {
			t.Errorf("snapshot %v", path(after, "booked"))
		}
		if path(after, "session", "start") != "09:30" || path(after, "session", "room", "name") != "The Loft" {
			t.Errorf("the session as it is now: %v", path(after, "session"))
		}
	})
}

// TestWhoSeesBookings: a client token books for itself and sees its own
// bookings; a staff token sees who is booked into its sessions.
func TestWhoSeesBookings(t *testing.T) {
	eachDatabase(t, func(t *testing.T, a *api) {
		f := newBookingFx(t, a)
		ctx := context.Background()
		b, _ := models.BusinessBySlug(ctx, a.db.DB, "meridian")
		var orbit, mei int64
		fmt.Sscan(f.clients["Orbit Analytics"], &orbit)
		fmt.Sscan(f.ids(f.tok, "staff", "name")["Mei Chen"], &mei)
		client, _, _ := models.CreateScopedToken(ctx, a.db.DB, b.ID, models.ClientRole, "orbit", "", orbit, 0)
		staff, _, _ := models.CreateScopedToken(ctx, a.db.DB, b.ID, models.StaffRole, "mei", "", 0, mei)
		other, _, _ := models.CreateScopedToken(ctx, a.db.DB, b.ID, models.StaffRole, "someone", "", 0, 0)

		f.ok(client, `mutation($ref: SessionRefInput!) { bookSession(ref: $ref) { booking { id } } }`, map[string]any{"ref": f.ref})
		f.book(f.ref, "Bluefin Legal", false)
		f.fails(client, "FORBIDDEN", book, map[string]any{"ref": f.ref, "client": f.clients["Bluefin Legal"]})
		f.fails(client, "FORBIDDEN", `query($c: ID!) { bookings(clientId: $c, from: "2026-12-01", to: "2027-01-01") { totalCount } }`, map[string]any{"c": f.clients["Bluefin Legal"]})

		seen := func(tok string) int {
			data := a.ok(tok, `query($d: Date!) { day(date: $d) { sessions { label booked bookings { id } } } }`, map[string]any{"d": "2026-12-08"})
			for _, s := range path(data, "day", "sessions").([]any) {
				if path(s, "label") == "Daily standup" {
					if path(s, "booked") != float64(2) {
						t.Errorf("booked %v, want 2 for every token", path(s, "booked"))
					}
					return len(path(s, "bookings").([]any))
				}
			}
			return -1
		}
		if n := seen(client); n != 1 {
			t.Errorf("the client sees %d bookings, want its own 1", n)
		}
		if n := seen(staff); n != 2 {
			t.Errorf("the standup's host sees %d bookings, want 2", n)
		}
		if n := seen(other); n != 0 {
			t.Errorf("another staff token sees %d bookings, want 0", n)
		}

		// A client token sees no other client, in any list that names them.
		data := a.ok(client, `{ clients { nodes { name } } memberships { nodes { client { name } } } allSeries { memberships { client { name } } } oneOffs { clients { name } } }`, nil)
		names := map[string]bool{}
		var walk func(v any)
		walk = func(v any) {
			switch v := v.(type) {
			case map[string]any:
				if n, ok := v["name"].(string); ok {
					names[n] = true
				}
				for _, x := range v {
					walk(x)
				}
			case []any:
				for _, x := range v {
					walk(x)
				}
			}
		}
		walk(data)
		if len(names) != 1 || !names["Orbit Analytics"] {
			t.Errorf("a client token sees the clients %v, want only its own", names)
		}
		if all := a.ok(f.tok, `{ clients { nodes { name } } }`, nil); len(rows(all, "clients")) < 2 {
			t.Errorf("the owner sees clients %v", all)
		}
	})
}

// TestAvailabilityAPI asks when a room with a capacity rule has units free.
func TestAvailabilityAPI(t *testing.T) {
	eachDatabase(t, func(t *testing.T, a *api) {
		tok := a.business("meridian", engine.Office)
		room := a.ids(tok, "rooms", "name")["Training Room"]
		// 3 places in the training room all day, every day: time with no
		// rule has no capacity, and the courses on Tuesdays and Thursdays
		// take the whole room.
		a.ok(tok, `mutation($r: ID!) { createCapacityRule(input: {roomId: $r, weekdays: [MONDAY, TUESDAY, WEDNESDAY, THURSDAY, FRIDAY, SATURDAY, SUNDAY], start: "00:00", end: "24:00", units: 3}) { capacityRule { id } } }`, map[string]any{"r": room})
		a.ok(tok, `mutation($r: ID!) { bookRoom(input: {roomId: $r, date: "2026-12-02", start: "10:00", end: "11:00", units: 2}) { roomBooking { id } } }`, map[string]any{"r": room})
		data := a.ok(tok, `query($r: ID!) {
			availability(roomId: $r, from: "2026-12-02T14:00:00Z", to: "2026-12-02T18:00:00Z", units: 2, minutes: 45) { start end latestStart }
			timeline(roomId: $r, from: "2026-12-02T14:00:00Z", to: "2026-12-02T17:00:00Z") { start end capacity used free } }`, map[string]any{"r": room})
		// New York: 10:00–11:00 is 15:00Z–16:00Z.
		windows := data["availability"].([]any)
		want := []string{"2026-12-02T09:00:00-05:00 2026-12-02T10:00:00-05:00 2026-12-02T09:15:00-05:00",
			"2026-12-02T11:00:00-05:00 2026-12-02T13:00:00-05:00 2026-12-02T12:15:00-05:00"}
		if len(windows) != 2 {
			t.Fatalf("windows %v", windows)
		}
		for i, w := range windows {
			if got := fmt.Sprint(path(w, "start"), " ", path(w, "end"), " ", path(w, "latestStart")); got != want[i] {
				t.Errorf("window %d: %s, want %s", i, got, want[i])
			}
		}
		if tl := data["timeline"].([]any); len(tl) != 3 || path(tl[1], "used") != float64(2) || path(tl[1], "free") != float64(1) {
			t.Errorf("timeline %v", tl)
		}
		e := a.fails(tok, "CAPACITY_FULL", `mutation($r: ID!) { bookRoom(input: {roomId: $r, date: "2026-12-02", start: "10:30", end: "11:30", units: 2}) { roomBooking { id } } }`, map[string]any{"r": room})
		if e.Extensions["unitsFree"] != float64(1) {
			t.Errorf("CAPACITY_FULL extensions %v", e.Extensions)
		}
		a.fails(tok, "BAD_USER_INPUT", `query($r: ID!) { availability(roomId: $r, from: "2026-12-03T00:00:00Z", to: "2026-12-02T00:00:00Z", units: 1, minutes: 30) { start } }`, map[string]any{"r": room})
	})
}
