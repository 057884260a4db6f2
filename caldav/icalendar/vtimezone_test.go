package icalendar_test

import (
	"strings"
	"testing"
	"time"

	ics "github.com/arran4/golang-ical"
	"github.com/emersion/go-ical"

	"github.com/koredyne/schedule/caldav/icalendar"
)

// TestVTimezone: the zone writer names the observance in force at the
// start and one component for each change of offset up to the end, each
// with its onset on the clock in force before it (RFC 5545 §3.6.5), so
// readers place a date across a change of clocks without any RRULE.
func TestVTimezone(t *testing.T) {
	type obs struct{ comp, start, from, to, name string }
	for _, tc := range []struct {
		name, zone string
		from, to   string
		want       []obs
	}{
		{"a year with two changes of clocks", "Europe/Berlin", "2026-01-10", "2027-01-10", []obs{
			{"STANDARD", "20251026T030000", "+0200", "+0100", "CET"},
			{"DAYLIGHT", "20260329T020000", "+0100", "+0200", "CEST"},
			{"STANDARD", "20261025T030000", "+0200", "+0100", "CET"},
		}},
		{"inside summer time, up to its end", "America/New_York", "2026-07-01", "2026-11-01", []obs{
			{"DAYLIGHT", "20260308T020000", "-0500", "-0400", "EDT"},
		}},
		{"a zone that never changes", "UTC", "2026-01-01", "2030-01-01", []obs{
			{"STANDARD", "19700101T000000", "+0000", "+0000", "UTC"},
		}},
		{"offsets in seconds (Amsterdam time)", "Europe/Amsterdam", "1920-01-01", "1920-02-01", []obs{
			{"STANDARD", "19190929T030000", "+011932", "+001932", "AMT"},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			loc, err := time.LoadLocation(tc.zone)
			if err != nil {
				t.Fatal(err)
			}
			from, _ := time.ParseInLocation("2006-01-02", tc.from, loc)
			to, _ := time.ParseInLocation("2006-01-02", tc.to, loc)
			cal := ics.NewCalendar()
			cal.AddVTimezone(icalendar.VTimezone(loc, from, to))
			text := cal.Serialize(&ics.SerializationConfiguration{MaxLength: 75, PropertyMaxLength: 75, NewLine: "\r\n"})
			parsed, err := ical.NewDecoder(strings.NewReader(text)).Decode()
			if err != nil {
				t.Fatalf("not valid iCalendar: %v\n%s", err, text)
			}
			var got []obs
			for _, tz := range parsed.Children {
				if tz.Name != "VTIMEZONE" {
					continue
				}
				if id := tz.Props.Get("TZID"); id == nil || id.Value != tc.zone {
					t.Errorf("TZID: got %v, want %s", id, tc.zone)
				}
				for _, c := range tz.Children {
					v := func(p string) string {
						if prop := c.Props.Get(p); prop != nil {
							return prop.Value
						}
						return ""
					}
					got = append(got, obs{c.Name, v("DTSTART"), v("TZOFFSETFROM"), v("TZOFFSETTO"), v("TZNAME")})
				}
			}
			if len(got) != len(tc.want) {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
			for i := range got {
				if got[i] != tc.want[i] {
					t.Errorf("observance %d: got %v, want %v", i, got[i], tc.want[i])
				}
			}
		})
	}
}
