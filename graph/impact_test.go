package graph_test

import (
	"fmt"
	"strings"
	"testing"
)

// impactFields is what the tests read of a payload's impact.
const impactFields = `impact { totalSessions totalClients unbounded unboundedFrom calendars { staff { name } room { name } }
	sessions { id changes before { date start } session { date start cancelled }
		bookings { client { name } } standing { client { name } } waitlist { client { name } } standingWaitlist { client { name } } } }`

// impactOf runs a write and returns its payload's impact, checking that a
// dry run stored nothing: the same write run again answers the same.
func (f *bookingFx) impactOf(mutation, field string, vars map[string]any, dry bool) map[string]any {
	f.t.Helper()
	if vars == nil {
		vars = map[string]any{}
	}
	vars["dry"] = dry
	p := path(f.ok(f.tok, mutation, vars), field)
	if path(p, "dryRun") != dry {
		f.t.Fatalf("%s: dryRun %v", field, path(p, "dryRun"))
	}
	return path(p, "impact").(map[string]any)
}

// sessionSummary is one affected session as "DATE CHANGES bookings:[…]
// standing:[…]".
func sessionSummary(s any) string {
	list := func(key string) string {
		var out []string
		for _, x := range path(s, key).([]any) {
			out = append(out, path(x, "client", "name").(string))
		}
		return strings.Join(out, ",")
	}
	var changes []string
	for _, c := range path(s, "changes").([]any) {
		changes = append(changes, c.(string))
	}
	return fmt.Sprintf("%s %s bookings:[%s] standing:[%s] waitlist:[%s]", path(s, "before", "date"), strings.Join(changes, ","),
		list("bookings"), list("standing"), list("waitlist"))
}

// TestImpact walks the impact of the writes that strand booked clients,
// dry run and committed alike, on a weekly standup of 2 places: a
// capacity cut, a cancelled date, a moved one, the class time re-timed
// for every week, and retired.
func TestImpact(t *testing.T) {
	eachDatabase(t, func(t *testing.T, a *api) {
		f := newBookingFx(t, a)
		f.book(f.ref, "Orbit Analytics", false)
		f.book(f.ref, "Northwind Traders", false)
		id8 := f.standupID("2026-12-08")

		// A capacity cut to 1: the 8th's two single bookings no longer fit.
		cut := `mutation($id: ID!, $dry: Boolean, $cap: Int) { updateClassTime(id: $id, input: {capacity: $cap}, dryRun: $dry) { dryRun ` + impactFields + ` } }`
		for _, dry := range []bool{true, false} {
			im := f.impactOf(cut, "updateClassTime", map[string]any{"id": f.ref["classTimeId"], "cap": 1}, dry)
			s := path(im, "sessions").([]any)
			if im["totalSessions"] != float64(1) || im["totalClients"] != float64(2) || im["unbounded"] != false || len(s) != 1 ||
				path(s[0], "id") != id8 || sessionSummary(s[0]) != "2026-12-08 OVER_CAPACITY bookings:[Orbit Analytics,Northwind Traders] standing:[] waitlist:[]" {
				t.Fatalf("capacity cut (dry run %v): %v", dry, im)
			}
			if len(path(im, "calendars").([]any)) != 0 {
				t.Errorf("a capacity cut changes no event: %v", path(im, "calendars"))
			}
		}
		// Back to 2 places: no one is affected.
		if im := f.impactOf(cut, "updateClassTime", map[string]any{"id": f.ref["classTimeId"], "cap": 2}, false); im["totalSessions"] != float64(0) ||
			len(path(im, "sessions").([]any)) != 0 || im["totalClients"] != float64(0) {
			t.Fatalf("capacity raised: %v", im)
		}

		// Bluefin holds a place every week from the 15th.
		f.stand("Bluefin Legal", "2026-12-15", false)

		// The 8th cancelled: its two single bookings; dry run first, and
		// the session stays on.
		cancel := `mutation($id: SessionID!, $dry: Boolean) { cancelSession(sessionId: $id, dryRun: $dry) { dryRun ` + impactFields + ` } }`
		for _, dry := range []bool{true, false} {
			im := f.impactOf(cancel, "cancelSession", map[string]any{"id": id8}, dry)
			s := path(im, "sessions").([]any)
			if im["totalSessions"] != float64(1) || im["totalClients"] != float64(2) || len(s) != 1 ||
				sessionSummary(s[0]) != "2026-12-08 CANCELLED bookings:[Orbit Analytics,Northwind Traders] standing:[] waitlist:[]" ||
				path(s[0], "session", "cancelled") != true {
				t.Fatalf("cancel (dry run %v): %v", dry, im)
			}
			cals := fmt.Sprint(path(im, "calendars"))
			if !strings.HasPrefix(cals, "[map[room:<nil> staff:<nil>]") || !strings.Contains(cals, "room:map[name:") || !strings.Contains(cals, "staff:map[name:") {
				t.Errorf("cancel: calendars %s, want the business's, the room's and the staff's", cals)
			}
			if dry {
				if c := path(f.ok(f.tok, `query($id: SessionID!) { session(id: $id) { cancelled } }`, map[string]any{"id": id8}), "session", "cancelled"); c != false {
					t.Fatalf("a dry run cancelled the session")
				}
			}
		}

		// The 15th moved to Saturday the 19th: Bluefin's standing place goes with it.
		id15 := f.standupID("2026-12-15")
		move := `mutation($id: SessionID!, $dry: Boolean) { changeSession(sessionId: $id, change: {date: "2026-12-19"}, dryRun: $dry) { dryRun ` + impactFields + ` } }`
		for _, dry := range []bool{true, false} {
			im := f.impactOf(move, "changeSession", map[string]any{"id": id15}, dry)
			s := path(im, "sessions").([]any)
			if im["totalSessions"] != float64(1) || im["totalClients"] != float64(1) || len(s) != 1 || path(s[0], "id") != id15 ||
				sessionSummary(s[0]) != "2026-12-15 MOVED bookings:[] standing:[Bluefin Legal] waitlist:[]" || path(s[0], "session", "date") != "2026-12-19" {
				t.Fatalf("move (dry run %v): %v", dry, im)
			}
		}

		// Re-timed for every week: no end, so no count; the first 500
		// sessions listed, from today; the clients on any of them.
		retime := `mutation($id: ID!, $dry: Boolean) { updateClassTime(id: $id, input: {start: "09:30", end: "09:45"}, dryRun: $dry) { dryRun ` + impactFields + ` } }`
		for _, dry := range []bool{true, false} {
			im := f.impactOf(retime, "updateClassTime", map[string]any{"id": f.ref["classTimeId"]}, dry)
			s := path(im, "sessions").([]any)
			if im["totalSessions"] != nil || im["unbounded"] != true || im["unboundedFrom"] == nil || len(s) != 500 || im["totalClients"] != float64(1) {
				t.Fatalf("re-time (dry run %v): total %v, unbounded %v from %v, %d sessions, %v clients", dry,
					im["totalSessions"], im["unbounded"], im["unboundedFrom"], len(s), im["totalClients"])
			}
			// The 8th is cancelled and the 15th moved: neither is re-timed.
			if got := sessionSummary(s[0]); !strings.HasPrefix(got, "2026-12-01 RETIMED") || path(s[0], "session", "start") != "09:30" {
				t.Errorf("re-time: first %s", got)
			}
			for _, x := range s {
				if d := path(x, "before", "date"); d == "2026-12-08" || d == "2026-12-15" {
					t.Errorf("re-time lists %v", x)
				}
				if d := path(x, "before", "date").(string); d > "2026-12-15" && d < "2027-01-01" && !strings.Contains(sessionSummary(x), "standing:[Bluefin Legal]") {
					t.Errorf("re-time: %s without Bluefin's standing place", sessionSummary(x))
				}
			}
		}

		// Retired: every session from today on goes.
		retire := `mutation($id: ID!, $dry: Boolean) { updateClassTime(id: $id, input: {active: false}, dryRun: $dry) { dryRun ` + impactFields + ` } }`
		im := f.impactOf(retire, "updateClassTime", map[string]any{"id": f.ref["classTimeId"]}, true)
		if s := path(im, "sessions").([]any); im["unbounded"] != true || len(s) != 500 || !strings.Contains(sessionSummary(s[0]), "REMOVED") {
			t.Fatalf("retire: %v", im)
		}

		// A write that changes no session has an empty impact.
		room := `mutation($dry: Boolean) { createRoom(input: {name: "Annex", capacity: 4}, dryRun: $dry) { dryRun ` + impactFields + ` } }`
		if im := f.impactOf(room, "createRoom", nil, false); im["totalSessions"] != float64(0) || len(path(im, "sessions").([]any)) != 0 || len(path(im, "calendars").([]any)) != 0 {
			t.Fatalf("a new room: %v", im)
		}
	})
}
