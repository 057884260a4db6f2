package graph_test

import (
	"testing"
	"time"
)

// TestInstantsInTheBusinessZone: every DateTime the API answers — when a
// booking was made, when its session starts, a session's start and end,
// availability windows and timeline stretches, when a webhook endpoint
// was registered — carries the offset the
// business's time zone has at that instant (the office demo is in New
// York: -05:00 in December), RFC 3339 with the offset, never UTC beside
// local.
func TestInstantsInTheBusinessZone(t *testing.T) {
	eachDatabase(t, func(t *testing.T, a *api) {
		f := newBookingFx(t, a)
		f.book(f.ref, "Orbit Analytics", false)
		room := f.ids(f.tok, "rooms", "name")["Boardroom"]
		f.ok(f.tok, `mutation { createWebhookEndpoint(input: {url: "https://93.184.215.14/hooks", events: ["schedule.changed"]}) { endpoint { id } } }`, nil)
		data := f.ok(f.tok, `query($r: ID!) {
			business { timeZone }
			webhookEndpoints { nodes { createdAt } }
			bookings(from: "2026-12-01", to: "2027-01-01") { nodes { createdAt booked { startsAt } session { startsAt endsAt } } }
			availability(roomId: $r, from: "2026-12-09T00:00:00Z", to: "2026-12-10T00:00:00Z", units: 1, minutes: 30) { start end latestStart }
			timeline(roomId: $r, from: "2026-12-09T00:00:00Z", to: "2026-12-10T00:00:00Z") { start end }
		}`, map[string]any{"r": room})
		loc, err := time.LoadLocation(path(data, "business", "timeZone").(string))
		if err != nil {
			t.Fatal(err)
		}
		var instants []string
		for _, b := range rows(data, "bookings") {
			instants = append(instants, path(b, "createdAt").(string), path(b, "booked", "startsAt").(string),
				path(b, "session", "startsAt").(string), path(b, "session", "endsAt").(string))
		}
		for _, e := range rows(data, "webhookEndpoints") {
			instants = append(instants, path(e, "createdAt").(string))
		}
		for _, list := range []string{"availability", "timeline"} {
			for _, w := range path(data, list).([]any) {
				for _, k := range []string{"start", "end", "latestStart"} {
					if s, ok := path(w, k).(string); ok {
						instants = append(instants, s)
					}
				}
			}
		}
		if len(instants) < 8 {
			t.Fatalf("only %d instants: %v", len(instants), data)
		}
		for _, s := range instants {
			at, err := time.Parse(time.RFC3339, s)
			if err != nil {
				t.Errorf("%q: %v", s, err)
				continue
			}
			_, got := at.Zone()
			if _, want := at.In(loc).Zone(); got != want {
				t.Errorf("%q: offset %ds, the business's is %ds", s, got, want)
			}
		}
	})
}
