package graph_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/koredyne/schedule/models"
)

const createStanding = `mutation($in: CreateStandingBookingInput!, $dry: Boolean) {
	createStandingBooking(input: $in, dryRun: $dry) { dryRun standingBooking { id from until waitlist client { name } }
		waitingDates { firstDate repeatsEveryWeeks until } } }`

// standupID is the Session.id of the standup on a date.
func (f *bookingFx) standupID(date string) string {
	f.t.Helper()
	ref := sessionRefOf(f.api, f.tok, date, "Daily standup")
	return fmt.Sprintf("s/%s/%s/%s", ref["date"], ref["classTimeId"], ref["classId"])
}

func (f *bookingFx) stand(client, from string, wait bool) map[string]any {
	f.t.Helper()
	in := map[string]any{"clientId": f.clients[client], "sessionId": f.standupID("2026-12-08"), "from": from, "waitlist": wait}
	return path(f.ok(f.tok, createStanding, map[string]any{"in": in}), "createStandingBooking").(map[string]any)
}

// session reads the places of the standup on a date.
func (f *bookingFx) session(tok, date string) map[string]any {
	f.t.Helper()
	data := f.ok(tok, `query($id: SessionID!) { session(id: $id) { placesTaken placesLeft waitlist
		standing { client { name } } standingWaitlist { client { name } } } }`, map[string]any{"id": f.standupID(date)})
	return path(data, "session").(map[string]any)
}

func names(v any) []string {
	var out []string
	for _, x := range v.([]any) {
		out = append(out, path(x, "client", "name").(string))
	}
	return out
}

// TestStandingBookings walks standing places through the API on a
// standup of 2 places: the capacity proof (refused with the dates, or
// waiting on them), single bookings and a capacity cut refused against
// standing places, a skipped date handing the place to the one waiting,
// an end, and a client token that sees and manages only its own.
func TestStandingBookings(t *testing.T) {
	eachDatabase(t, func(t *testing.T, a *api) {
		f := newBookingFx(t, a)
		bluefin := path(f.stand("Bluefin Legal", "2026-12-08", false), "standingBooking", "id").(string)
		cedar := path(f.stand("Cedar & Pine Architects", "2026-12-15", false), "standingBooking", "id").(string)

		// Full from the 15th on, every week: refused with those dates.
		in := map[string]any{"clientId": f.clients["Orbit Analytics"], "sessionId": f.standupID("2026-12-08"), "from": "2026-12-08"}
		e := f.fails(f.tok, "CAPACITY_FULL", createStanding, map[string]any{"in": in})
		if e.Extensions["firstDate"] != "2026-12-15" || e.Extensions["repeatsEveryWeeks"] != float64(1) || e.Extensions["field"] != "sessionId" {
			t.Errorf("CAPACITY_FULL extensions %v", e.Extensions)
		}
		// A dry run with the wait list says what the write would do, and
		// writes nothing.
		in["waitlist"] = true
		dry := path(f.ok(f.tok, createStanding, map[string]any{"in": in, "dry": true}), "createStandingBooking")
		if path(dry, "dryRun") != true || path(dry, "standingBooking", "waitlist") != true || len(path(dry, "waitingDates").([]any)) != 1 {
			t.Errorf("dry run: %v", dry)
		}
		if n := path(f.ok(f.tok, `{ standingBookings { totalCount } }`, nil), "standingBookings", "totalCount"); n != float64(2) {
			t.Fatalf("%v standing bookings after a dry run, want 2", n)
		}
		orbit := path(f.ok(f.tok, createStanding, map[string]any{"in": in}), "createStandingBooking", "standingBooking", "id").(string)

		// The 8th: Bluefin and Orbit hold the places; the 15th: Bluefin
		// and Cedar, Orbit waits.
		if s := f.session(f.tok, "2026-12-08"); s["placesTaken"] != float64(2) || fmt.Sprint(names(s["standing"])) != "[Bluefin Legal Orbit Analytics]" {
			t.Errorf("the 8th: %v", s)
		}
		s := f.session(f.tok, "2026-12-15")
		if s["placesLeft"] != float64(0) || s["waitlist"] != float64(1) || fmt.Sprint(names(s["standingWaitlist"])) != "[Orbit Analytics]" {
			t.Errorf("the 15th: %v", s)
		}

		// A single booking finds no place; with the wait list it waits.
		ref15 := sessionRefOf(f.api, f.tok, "2026-12-15", "Daily standup")
		f.fails(f.tok, "CAPACITY_FULL", book, map[string]any{"ref": ref15, "client": f.clients["Northwind Traders"]})
		if b := f.book(ref15, "Northwind Traders", true); path(b, "booking", "status") != "WAITLISTED" {
			t.Errorf("a single booking on a full date: %v", b)
		}
		// A capacity cut that would overfill the standing places is
		// refused, and changes nothing.
		cut := `mutation($id: ID!) { updateClassTime(id: $id, input: {capacity: 1}) { classTime { capacity } } }`
		if e := f.fails(f.tok, "CAPACITY_FULL", cut, map[string]any{"id": f.ref["classTimeId"]}); e.Extensions["firstDate"] != "2026-12-15" {
			t.Errorf("capacity cut: %v", e.Extensions)
		}
		if c := path(f.ok(f.tok, `query($id: ID!) { classTime(id: $id) { capacity } }`, map[string]any{"id": f.ref["classTimeId"]}), "classTime", "capacity"); c != float64(2) {
			t.Errorf("capacity %v after a refused cut", c)
		}

		// Bluefin skips the 15th: Orbit, first in line, takes the
		// place (before the single booking waiting).
		skip := `mutation($id: ID!, $d: Date!) { skipStandingDate(id: $id, date: $d) { standingBooking { skipped { date late } } } }`
		res := f.ok(f.tok, skip, map[string]any{"id": bluefin, "d": "2026-12-15"})
		if k := path(res, "skipStandingDate", "standingBooking", "skipped").([]any); len(k) != 1 || path(k[0], "late") != false {
			t.Errorf("skipped: %v", k)
		}
		if s := f.session(f.tok, "2026-12-15"); fmt.Sprint(names(s["standing"])) != "[Cedar & Pine Architects Orbit Analytics]" || s["waitlist"] != float64(1) {
			t.Errorf("the 15th after the skip: %v", s)
		}
		dates := path(f.ok(f.tok, `query($id: ID!) { standingBooking(id: $id) { dates(from: "2026-12-14", to: "2026-12-23") { session { date } status position } } }`,
			map[string]any{"id": orbit}), "standingBooking", "dates").([]any)
		if got := fmt.Sprint(dates); got != "[map[position:<nil> session:map[date:2026-12-15] status:PLACE] map[position:1 session:map[date:2026-12-22] status:WAITING]]" {
			t.Errorf("Orbit's dates: %s", got)
		}
		f.fails(f.tok, "BAD_USER_INPUT", skip, map[string]any{"id": cedar, "d": "2026-12-08"}) // before Cedar's place

		// Cedar ends from the 22nd: Orbit holds every date on.
		end := `mutation($id: ID!, $from: Date!) { endStandingBooking(id: $id, from: $from) { standingBooking { until } } }`
		if u := path(f.ok(f.tok, end, map[string]any{"id": cedar, "from": "2026-12-22"}), "endStandingBooking", "standingBooking", "until"); u != "2026-12-21" {
			t.Errorf("ended until %v", u)
		}
		if s := f.session(f.tok, "2026-12-22"); fmt.Sprint(names(s["standing"])) != "[Bluefin Legal Orbit Analytics]" {
			t.Errorf("the 22nd: %v", s)
		}

		// A client token sees and manages its own only.
		ctx := context.Background()
		b, _ := models.BusinessBySlug(ctx, a.db.DB, "meridian")
		var blue int64
		fmt.Sscan(f.clients["Bluefin Legal"], &blue)
		client, _, err := models.CreateScopedToken(ctx, a.db.DB, b.ID, models.ClientRole, "bluefin", "", blue, 0)
		if err != nil {
			t.Fatal(err)
		}
		own := path(f.ok(client, `{ standingBookings { totalCount nodes { id client { name } } } }`, nil), "standingBookings")
		if path(own, "totalCount") != float64(1) || path(own.(map[string]any)["nodes"].([]any)[0], "id") != bluefin {
			t.Errorf("a client's own standing bookings: %v", own)
		}
		if s := f.session(client, "2026-12-22"); fmt.Sprint(names(s["standing"])) != "[Bluefin Legal]" || s["placesTaken"] != float64(2) {
			t.Errorf("the 22nd as Bluefin sees it: %v", s)
		}
		f.fails(client, "NOT_FOUND", `query($id: ID!) { standingBooking(id: $id) { id } }`, map[string]any{"id": orbit})
		f.fails(client, "NOT_FOUND", end, map[string]any{"id": orbit, "from": "2026-12-29"})
		f.fails(client, "FORBIDDEN", `query($c: ID!) { standingBookings(clientId: $c) { totalCount } }`, map[string]any{"c": f.clients["Orbit Analytics"]})
		if u := path(f.ok(client, end, map[string]any{"id": bluefin, "from": "2027-01-05"}), "endStandingBooking", "standingBooking", "until"); u != "2027-01-04" {
			t.Errorf("Bluefin ended its own: until %v", u)
		}

		// Every committed write told the outbox; the refused ones and the
		// dry run nothing.
		var events []models.WebhookEvent
		if err := a.db.DB.NewSelect().Model(&events).Where("business_id = ?", b.ID).Where("type LIKE 'standing_booking.%'").OrderExpr("id").Scan(ctx); err != nil {
			t.Fatal(err)
		}
		var types []string
		for _, ev := range events {
			types = append(types, strings.TrimPrefix(ev.Type, "standing_booking."))
		}
		if got := strings.Join(types, " "); got != "created created created skipped ended ended" {
			t.Errorf("standing events %q", got)
		}
		if len(events) > 0 && !strings.Contains(events[0].Body, `"id":"`+bluefin+`"`) {
			t.Errorf("the first event names another standing booking: %s", events[0].Body)
		}
	})
}

// TestStandingPlansAndMemberships: a standing place counts on its
// membership's plan month by month, and ends where the membership ends.
func TestStandingPlansAndMemberships(t *testing.T) {
	eachDatabase(t, func(t *testing.T, a *api) {
		f := newBookingFx(t, a)
		// Northwind's plan gives 2 standups a month: December has 4
		// Tuesdays from the 8th.
		in := map[string]any{"clientId": f.clients["Northwind Traders"], "sessionId": f.standupID("2026-12-08"), "from": "2026-12-08"}
		e := f.fails(f.tok, "PLAN_LIMIT", createStanding, map[string]any{"in": in})
		if e.Extensions["month"] != "2026-12" || e.Extensions["limit"] != float64(2) || e.Extensions["field"] != "clientId" {
			t.Errorf("PLAN_LIMIT extensions %v", e.Extensions)
		}
		// From the 22nd, two in December; January has four Tuesdays.
		in["from"], in["until"] = "2026-12-22", "2026-12-29"
		f.ok(f.tok, createStanding, map[string]any{"in": in})
		// A single booking on the plan in December is one too many.
		e = f.fails(f.tok, "PLAN_LIMIT", book, map[string]any{"ref": sessionRefOf(f.api, f.tok, "2026-12-09", "Daily standup"), "client": f.clients["Northwind Traders"]})
		if e.Extensions["used"] != float64(2) {
			t.Errorf("a single booking over the plan: %v", e.Extensions)
		}
		// And the single bookings on the plan count against a standing
		// place: one in January leaves room for one Tuesday there, not two.
		f.book(sessionRefOf(f.api, f.tok, "2027-01-06", "Daily standup"), "Northwind Traders", false)
		in["from"], in["until"] = "2027-01-05", "2027-01-12"
		e = f.fails(f.tok, "PLAN_LIMIT", createStanding, map[string]any{"in": in})
		if e.Extensions["month"] != "2027-01" || e.Extensions["used"] != float64(3) {
			t.Errorf("a standing place over the plan with a single booking: %v", e.Extensions)
		}

		// Bluefin's membership ends on the 31st: its standing place ends
		// with it; a membership deleted takes the place away.
		bluefin := path(f.stand("Bluefin Legal", "2026-12-08", false), "standingBooking", "id").(string)
		sub := membershipOf(f.api, f.tok, "Bluefin Legal", "Daily standup")
		f.ok(f.tok, `mutation($id: ID!) { updateMembership(id: $id, input: {endDate: "2026-12-31"}) { membership { id } } }`, map[string]any{"id": sub})
		q := `query($id: ID!) { standingBooking(id: $id) { until } }`
		if u := path(f.ok(f.tok, q, map[string]any{"id": bluefin}), "standingBooking", "until"); u != "2026-12-31" {
			t.Errorf("the place ends %v, want with the membership on 2026-12-31", u)
		}
		cedar := path(f.stand("Cedar & Pine Architects", "2027-01-05", false), "standingBooking", "id").(string)
		f.ok(f.tok, `mutation($id: ID!) { deleteMembership(id: $id) { id } }`, map[string]any{"id": membershipOf(f.api, f.tok, "Cedar & Pine Architects", "Daily standup")})
		f.fails(f.tok, "NOT_FOUND", q, map[string]any{"id": cedar})
	})
}

// TestStandingFollowsTheSession: a standing place goes with its session
// — cancelled with it, moved with it — and the client's dates say so.
func TestStandingFollowsTheSession(t *testing.T) {
	eachDatabase(t, func(t *testing.T, a *api) {
		f := newBookingFx(t, a)
		id := path(f.stand("Bluefin Legal", "2026-12-08", false), "standingBooking", "id").(string)
		f.ok(f.tok, `mutation($s: SessionID!) { cancelSession(sessionId: $s, reason: "Away day") { revision } }`, map[string]any{"s": f.standupID("2026-12-15")})
		f.ok(f.tok, `mutation($s: SessionID!) { changeSession(sessionId: $s, change: {date: "2026-12-23", start: "10:00", end: "10:15"}) { revision } }`,
			map[string]any{"s": f.standupID("2026-12-22")})
		dates := path(f.ok(f.tok, `query($id: ID!) { standingBooking(id: $id) { dates(from: "2026-12-14", to: "2026-12-28") { session { id date start cancelled } status } } }`,
			map[string]any{"id": id}), "standingBooking", "dates").([]any)
		if len(dates) != 2 || path(dates[0], "status") != "CANCELLED" || path(dates[0], "session", "cancelled") != true ||
			path(dates[1], "status") != "PLACE" || path(dates[1], "session", "date") != "2026-12-23" || path(dates[1], "session", "start") != "10:00" {
			t.Fatalf("Bluefin's dates: %v", dates)
		}
		// The moved session, on its new date, holds Bluefin's place.
		moved := path(dates[1], "session", "id").(string)
		data := f.ok(f.tok, `query($id: SessionID!) { session(id: $id) { date placesTaken standing { client { name } } } }`, map[string]any{"id": moved})
		if path(data, "session", "date") != "2026-12-23" || path(data, "session", "placesTaken") != float64(1) {
			t.Errorf("the moved session: %v", data)
		}
	})
}

// TestStandingKeptThroughASeriesSplit: an edit of the standup's series
// from a later week splits it (the weeks before go to a kept series that
// is no longer sold); a standing place is a place in the session, so it
// holds on both sides of the split, on the same dates.
func TestStandingKeptThroughASeriesSplit(t *testing.T) {
	eachDatabase(t, func(t *testing.T, a *api) {
		f := newBookingFx(t, a)
		id := path(f.stand("Bluefin Legal", "2026-12-08", false), "standingBooking", "id").(string)
		datesQ := `query($id: ID!) { standingBooking(id: $id) { dates(from: "2026-12-08", to: "2027-01-12") { session { id date } status } } }`
		before := fmt.Sprint(path(f.ok(f.tok, datesQ, map[string]any{"id": id}), "standingBooking", "dates"))

		// From the week of the 21st the standup is no longer held on Fridays.
		series := f.ids(f.tok, "allSeries", "name")["Daily standup"]
		var entries []map[string]any
		data := f.ok(f.tok, `query($id: ID!) { series(id: $id) { entries { week classTime { id weekday } class { id } } } }`, map[string]any{"id": series})
		for _, e := range path(data, "series", "entries").([]any) {
			if path(e, "classTime", "weekday") != "FRIDAY" {
				entries = append(entries, map[string]any{"week": path(e, "week"), "classTimeId": path(e, "classTime", "id"), "classId": path(e, "class", "id")})
			}
		}
		res := f.ok(f.tok, `mutation($id: ID!, $entries: [SeriesEntryInput!]) {
			updateSeries(id: $id, input: {entries: $entries}, from: "2026-12-21") { series { anchorDate } kept { id endDate } } }`,
			map[string]any{"id": series, "entries": entries})
		if path(res, "updateSeries", "kept", "endDate") != "2026-12-21" || path(res, "updateSeries", "series", "anchorDate") != "2026-12-21" {
			t.Fatalf("the edit did not split the series: %v", res)
		}

		after := path(f.ok(f.tok, datesQ, map[string]any{"id": id}), "standingBooking", "dates").([]any)
		if got := fmt.Sprint(after); got != before || len(after) != 5 {
			t.Errorf("Bluefin's dates across the split:\n got %s\nwant %s (5 Tuesdays)", got, before)
		}
		for _, d := range after {
			if path(d, "status") != "PLACE" {
				t.Errorf("%v: want PLACE", d)
			}
		}
		if s := f.session(f.tok, "2026-12-29"); fmt.Sprint(names(s["standing"])) != "[Bluefin Legal]" {
			t.Errorf("the 29th, after the split: %v", s)
		}
	})
}

// TestSwapStandingDate: Bluefin trades Tuesday the 15th's standing place
// for Wednesday's standup, in one write; a swap to a full session, to
// another week, to the place's own session or to a session of another
// series is refused and changes nothing.
func TestSwapStandingDate(t *testing.T) {
	eachDatabase(t, func(t *testing.T, a *api) {
		f := newBookingFx(t, a)
		id := path(f.stand("Bluefin Legal", "2026-12-08", false), "standingBooking", "id").(string)
		swap := `mutation($id: ID!, $d: Date!, $s: SessionID!, $dry: Boolean) { swapStandingDate(id: $id, date: $d, sessionId: $s, dryRun: $dry) {
			dryRun standingBooking { skipped { date late } } booking { status client { name } session { date } } } }`
		vars := func(to string) map[string]any {
			return map[string]any{"id": id, "d": "2026-12-15", "s": f.standupID(to)}
		}
		skipped := func() int {
			q := `query($id: ID!) { standingBooking(id: $id) { skipped { date } } }`
			return len(path(f.ok(f.tok, q, map[string]any{"id": id}), "standingBooking", "skipped").([]any))
		}

		// Wednesday the 16th has one place, and Cedar holds it: refused.
		wed := sessionRefOf(f.api, f.tok, "2026-12-16", "Daily standup")
		f.ok(f.tok, `mutation($id: ID!) { updateClassTime(id: $id, input: {capacity: 1}) { classTime { id } } }`, map[string]any{"id": wed["classTimeId"]})
		cedar := f.book(wed, "Cedar & Pine Architects", false)
		f.fails(f.tok, "CAPACITY_FULL", swap, vars("2026-12-16"))
		for _, to := range []string{"2026-12-22", "2026-12-08"} { // another week
			if e := f.fails(f.tok, "BAD_USER_INPUT", swap, vars(to)); e.Extensions["field"] != "sessionId" {
				t.Errorf("swap to %s: %v", to, e.Extensions)
			}
		}
		f.fails(f.tok, "BAD_USER_INPUT", swap, map[string]any{"id": id, "d": "2026-12-15", "s": f.standupID("2026-12-15")})
		board := sessionRefOf(f.api, f.tok, "2026-12-17", "Weekly check-in")
		f.fails(f.tok, "BAD_USER_INPUT", swap, map[string]any{"id": id, "d": "2026-12-15",
			"s": fmt.Sprintf("s/%s/%s/%s", board["date"], board["classTimeId"], board["classId"])})
		if n := skipped(); n != 0 {
			t.Fatalf("%d skipped dates after refused swaps, want 0", n)
		}

		// Cedar cancels; a dry run says what the swap does, then it is done.
		f.ok(f.tok, `mutation($id: ID!) { cancelBooking(id: $id) { booking { status } } }`, map[string]any{"id": path(cedar, "booking", "id")})
		v := vars("2026-12-16")
		v["dry"] = true
		if dry := path(f.ok(f.tok, swap, v), "swapStandingDate"); path(dry, "dryRun") != true || path(dry, "booking", "status") != "BOOKED" || skipped() != 0 {
			t.Fatalf("dry run: %v", dry)
		}
		res := path(f.ok(f.tok, swap, vars("2026-12-16")), "swapStandingDate")
		if path(res, "booking", "client", "name") != "Bluefin Legal" || path(res, "booking", "session", "date") != "2026-12-16" ||
			fmt.Sprint(path(res, "standingBooking", "skipped")) != "[map[date:2026-12-15 late:false]]" {
			t.Errorf("swap: %v", res)
		}
		if s := f.session(f.tok, "2026-12-15"); len(s["standing"].([]any)) != 0 {
			t.Errorf("the 15th after the swap: %v", s)
		}
		if s := f.session(f.tok, "2026-12-16"); s["placesLeft"] != float64(0) {
			t.Errorf("the 16th after the swap: %v", s)
		}
	})
}

// TestStandingBadInput: every bad input names its field and writes
// nothing.
func TestStandingBadInput(t *testing.T) {
	eachDatabase(t, func(t *testing.T, a *api) {
		f := newBookingFx(t, a)
		session := f.standupID("2026-12-08")
		oneOff := ""
		for _, s := range path(f.ok(f.tok, `{ days(from: "2026-12-01", to: "2026-12-29") { sessions { id oneOff { id } } } }`, nil), "days").([]any) {
			for _, x := range path(s, "sessions").([]any) {
				if path(x, "oneOff") != nil && oneOff == "" {
					oneOff = path(x, "id").(string)
				}
			}
		}
		if oneOff == "" {
			t.Fatal("the office demo has no one-off in December")
		}
		nobody := created(f.api, f.tok, `mutation { createClient(input: {name: "Nobody Ltd"}) { client { id } } }`, "createClient", "client")
		other := f.business("other", "office")
		otherClient := f.ids(other, "clients", "name")["Bluefin Legal"]
		for _, tc := range []struct {
			name, code, field string
			in                map[string]any
		}{
			{"until before from", "BAD_USER_INPUT", "until", map[string]any{"clientId": f.clients["Bluefin Legal"], "sessionId": session, "from": "2026-12-15", "until": "2026-12-08"}},
			{"from in the past", "BAD_USER_INPUT", "from", map[string]any{"clientId": f.clients["Bluefin Legal"], "sessionId": session, "from": "2026-11-24"}},
			{"a one-off", "BAD_USER_INPUT", "sessionId", map[string]any{"clientId": f.clients["Bluefin Legal"], "sessionId": oneOff, "from": "2026-12-08"}},
			{"another business's client", "NOT_FOUND", "clientId", map[string]any{"clientId": otherClient, "sessionId": session, "from": "2026-12-08"}},
			{"no such session", "NOT_FOUND", "sessionId", map[string]any{"clientId": f.clients["Bluefin Legal"], "sessionId": "s/2026-12-09/999999/999999", "from": "2026-12-08"}},
			{"no membership", "BAD_USER_INPUT", "clientId", map[string]any{"clientId": nobody, "sessionId": session, "from": "2026-12-08"}},
		} {
			for _, dry := range []bool{true, false} {
				e := f.fails(f.tok, tc.code, createStanding, map[string]any{"in": tc.in, "dry": dry})
				if e.Extensions["field"] != tc.field {
					t.Errorf("%s (dry run %v): field %v, want %s (%s)", tc.name, dry, e.Extensions["field"], tc.field, e.Message)
				}
			}
		}
		if n := path(f.ok(f.tok, `{ standingBookings { totalCount } }`, nil), "standingBookings", "totalCount"); n != float64(0) {
			t.Errorf("%v standing bookings after refused writes", n)
		}
		id := path(f.stand("Bluefin Legal", "2026-12-08", false), "standingBooking", "id").(string)
		f.fails(f.tok, "BAD_USER_INPUT", createStanding, map[string]any{"in": map[string]any{"clientId": f.clients["Bluefin Legal"], "sessionId": session, "from": "2026-12-22"}})
		upd := `mutation($id: ID!, $in: UpdateStandingBookingInput!) { updateStandingBooking(id: $id, input: $in) { standingBooking { from until } } }`
		f.fails(f.tok, "BAD_USER_INPUT", upd, map[string]any{"id": id, "in": map[string]any{"from": nil}})
		if got := path(f.ok(f.tok, upd, map[string]any{"id": id, "in": map[string]any{"until": "2027-03-01"}}), "updateStandingBooking", "standingBooking"); fmt.Sprint(got) != "map[from:2026-12-08 until:2027-03-01]" {
			t.Errorf("updated: %v", got)
		}
		if got := path(f.ok(f.tok, upd, map[string]any{"id": id, "in": map[string]any{"until": nil}}), "updateStandingBooking", "standingBooking"); fmt.Sprint(got) != "map[from:2026-12-08 until:<nil>]" {
			t.Errorf("until cleared: %v", got)
		}
		f.fails(f.tok, "BAD_USER_INPUT", `mutation($id: ID!) { skipStandingDate(id: $id, date: "2026-12-01") { revision } }`, map[string]any{"id": id})
		f.fails(f.tok, "NOT_FOUND", `mutation { endStandingBooking(id: "999999", from: "2026-12-22") { revision } }`, nil)
	})
}
