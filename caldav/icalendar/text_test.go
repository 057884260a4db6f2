package icalendar_test

import (
	"strings"
	"testing"

	ics "github.com/arran4/golang-ical"
	"github.com/emersion/go-ical"

	"github.com/koredyne/schedule/caldav/icalendar"
)

// TestCarriageReturnsStayInTheirLine: a bare CR ends a content line for
// some readers, so a room name holding one would start a property of its
// own. Written through SafeProperty it is a line break escaped as \n.
func TestCarriageReturnsStayInTheirLine(t *testing.T) {
	ev := ics.NewEvent("cr@koredyne")
	ev.SetSummary("Boxing\rSTATUS:CANCELLED")
	ev.SetLocation("Ring\r\nA\x00\x1b")
	ev.SetDescription("one\rtwo\nthree\tfour")
	ev.SetOrganizer("mailto:x@example.com", ics.WithCN("Mei\rX-EVIL"))
	cal := ics.NewCalendar()
	cal.SetXWRCalName("Club\rMETHOD:CANCEL")
	cal.AddVEvent(ev)
	icalendar.SafeCalendar(cal)
	out := cal.Serialize(&ics.SerializationConfiguration{MaxLength: 75, PropertyMaxLength: 75, NewLine: "\r\n"})
	if strings.Contains(strings.ReplaceAll(out, "\r\n", ""), "\r") {
		t.Fatalf("a bare CR was written:\n%q", out)
	}
	parsed, err := ical.NewDecoder(strings.NewReader(out)).Decode()
	if err != nil {
		t.Fatalf("not valid iCalendar: %v\n%s", err, out)
	}
	if p := parsed.Props.Get("METHOD"); p != nil {
		t.Errorf("the calendar name made a METHOD property: %q", p.Value)
	}
	events := parsed.Events()
	if len(events) != 1 {
		t.Fatalf("%d events, want 1", len(events))
	}
	props := events[0].Props
	for _, p := range []string{"X-EVIL"} {
		if props.Get(p) != nil {
			t.Errorf("a name made a property %s", p)
		}
	}
	want := map[string]string{
		"SUMMARY":     "Boxing\nSTATUS:CANCELLED",
		"LOCATION":    "Ring\nA  ",
		"DESCRIPTION": "one\ntwo\nthree\tfour",
		"STATUS":      "",
	}
	for name, w := range want {
		got := ""
		if p := props.Get(name); p != nil {
			got, _ = p.Text()
		}
		if got != w {
			t.Errorf("%s: got %q, want %q", name, got, w)
		}
	}
	if cn := props.Get("ORGANIZER").Params.Get("CN"); cn != "Mei X-EVIL" {
		t.Errorf("ORGANIZER;CN: got %q", cn)
	}
}
