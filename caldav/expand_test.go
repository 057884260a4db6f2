package caldav_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/emersion/go-ical"
	webcaldav "github.com/emersion/go-webdav/caldav"

	"github.com/koredyne/schedule/engine"
	"github.com/koredyne/schedule/models"
	"github.com/koredyne/schedule/models/modelstest"
)

// TestExpand sends calendar-query REPORTs with CALDAV:expand (RFC 4791
// §9.6.5) through go-webdav's client, on the default window, and parses
// the answers with go-ical: the same events as without expand, each one
// instance with DTSTART and DTEND in UTC at the same instants, no
// VTIMEZONE, no recurrence properties, a cancelled session still
// STATUS:CANCELLED; across a daylight-saving change too. An expand range
// narrower than the filter's keeps only the events overlapping it, and a
// malformed expand is refused.
func TestExpand(t *testing.T) {
	ctx := context.Background()
	g := newGateway(t, modelstest.SQLite(t), "harbor", engine.Gym, 8, 52)
	c := g.client()
	home := discover(t, c, "harbor")
	query := func(start, end time.Time, expand *webcaldav.CalendarExpandRequest) []webcaldav.CalendarObject {
		t.Helper()
		objs, err := c.QueryCalendar(ctx, home+"all/", &webcaldav.CalendarQuery{
			CompRequest: webcaldav.CalendarCompRequest{Name: "VCALENDAR", AllProps: true, AllComps: true, Expand: expand},
			CompFilter:  webcaldav.CompFilter{Name: "VCALENDAR", Comps: []webcaldav.CompFilter{{Name: "VEVENT", Start: start, End: end}}},
		})
		if err != nil {
			t.Fatal(err)
		}
		return objs
	}
	check := func(t *testing.T, start, end time.Time) (cancelled int) {
		t.Helper()
		plain := query(start, end, nil)
		expanded := query(start, end, &webcaldav.CalendarExpandRequest{Start: start, End: end})
		if len(plain) == 0 || len(expanded) != len(plain) {
			t.Fatalf("%d events expanded, %d without expand", len(expanded), len(plain))
		}
		for i, o := range expanded {
			p := plain[i]
			if o.Path != p.Path || o.ETag != p.ETag {
				t.Errorf("expanded event %d is %s (ETag %s), without expand %s (ETag %s)", i, o.Path, o.ETag, p.Path, p.ETag)
				continue
			}
			if n := len(o.Data.Children); n != 1 || o.Data.Children[0].Name != ical.CompEvent {
				t.Errorf("%s: %d components, want one VEVENT and no VTIMEZONE", o.Path, n)
				continue
			}
			ev, want := o.Data.Events()[0], p.Data.Events()[0]
			for _, name := range []string{ical.PropDateTimeStart, ical.PropDateTimeEnd} {
				prop := ev.Props.Get(name)
				if prop == nil || !strings.HasSuffix(prop.Value, "Z") || prop.Params.Get(ical.ParamTimezoneID) != "" {
					t.Errorf("%s: %s is %+v, want a UTC date-time", o.Path, name, prop)
					continue
				}
				got, err1 := prop.DateTime(nil)
				at, err2 := want.Props.Get(name).DateTime(time.UTC)
				if err1 != nil || err2 != nil || !got.Equal(at) {
					t.Errorf("%s: %s is %v expanded, %v without expand (%v, %v)", o.Path, name, got, at, err1, err2)
				}
			}
			for _, name := range []string{ical.PropRecurrenceRule, ical.PropRecurrenceDates, ical.PropExceptionDates, ical.PropRecurrenceID} {
				if ev.Props.Get(name) != nil {
					t.Errorf("%s: expanded event has %s", o.Path, name)
				}
			}
			for _, name := range []string{ical.PropUID, ical.PropSummary, ical.PropStatus, ical.PropSequence} {
				if ev.Props.Get(name).Value != want.Props.Get(name).Value {
					t.Errorf("%s: %s %q expanded, %q without", o.Path, name, ev.Props.Get(name).Value, want.Props.Get(name).Value)
				}
			}
			if ev.Props.Get(ical.PropStatus).Value == "CANCELLED" {
				cancelled++
			}
		}
		return cancelled
	}

	t.Run("demo week", func(t *testing.T) {
		// The demo's week, with its cancelled kickboxing session.
		start := time.Date(2026, 11, 28, 21, 0, 0, 0, time.UTC) // Sunday 00:00 in Kuwait
		if n := check(t, start, start.AddDate(0, 0, 7)); n != 1 {
			t.Errorf("%d cancelled sessions expanded, want the demo's one", n)
		}

		// An expand range of one day inside a week's filter: that day's events.
		day := query(start.Add(24*time.Hour), start.Add(48*time.Hour), nil)
		narrow := query(start, start.AddDate(0, 0, 7), &webcaldav.CalendarExpandRequest{Start: start.Add(24 * time.Hour), End: start.Add(48 * time.Hour)})
		if len(day) == 0 || len(narrow) != len(day) {
			t.Errorf("expanding one day of a week's query gave %d events, the day has %d", len(narrow), len(day))
		}
	})

	t.Run("daylight saving", func(t *testing.T) {
		berlin, err := time.LoadLocation("Europe/Berlin")
		if err != nil {
			t.Fatal(err)
		}
		g.write(func(e *models.Edit) error { e.State.Business.Location = berlin; return nil })
		// The week the clocks go forward on Sunday 28 March 2027.
		start := time.Date(2027, 3, 27, 23, 0, 0, 0, time.UTC)
		check(t, start, start.AddDate(0, 0, 7))
	})

	t.Run("hostile", func(t *testing.T) {
		for _, expand := range []string{
			`<C:expand start="20261129T000000Z"/>`,                        // no end
			`<C:expand start="20261129T000000" end="20261206T000000"/>`,   // local times
			`<C:expand start="20261206T000000Z" end="20261129T000000Z"/>`, // backwards
			`<C:expand start="tomorrow" end="20261206T000000Z"/>`,
		} {
			resp := g.do("REPORT", home+"all/", `<C:calendar-query xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav">
				<D:prop><D:getetag/><C:calendar-data>`+expand+`</C:calendar-data></D:prop>
				<C:filter><C:comp-filter name="VCALENDAR"><C:comp-filter name="VEVENT"><C:time-range start="20261129T000000Z" end="20261206T000000Z"/></C:comp-filter></C:comp-filter></C:filter></C:calendar-query>`)
			body := read(t, resp)
			if resp.StatusCode != http.StatusBadRequest {
				t.Errorf("%s: %s, want 400\n%s", expand, resp.Status, body)
			}
		}
	})

	t.Run("multiget", func(t *testing.T) {
		start := time.Date(2026, 11, 28, 21, 0, 0, 0, time.UTC)
		objs := query(start, start.Add(24*time.Hour), nil)
		later := query(start.Add(48*time.Hour), start.Add(72*time.Hour), nil)
		got, err := c.MultiGetCalendar(ctx, home+"all/", &webcaldav.CalendarMultiGet{
			Paths:       []string{objs[0].Path, later[0].Path},
			CompRequest: webcaldav.CalendarCompRequest{AllProps: true, AllComps: true, Expand: &webcaldav.CalendarExpandRequest{Start: start, End: start.Add(24 * time.Hour)}},
		})
		if err != nil || len(got) != 2 {
			t.Fatalf("multiget: %d objects, %v", len(got), err)
		}
		if n := len(got[0].Data.Events()); n != 1 || !strings.HasSuffix(got[0].Data.Events()[0].Props.Get(ical.PropDateTimeStart).Value, "Z") {
			t.Errorf("the event in the expand range: %d events, want one in UTC", n)
		}
		if n := len(got[1].Data.Children); n != 0 {
			t.Errorf("the event outside the expand range has %d components, want none", n)
		}
	})
}
