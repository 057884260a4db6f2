package icalendar_test

import (
	"fmt"
	"strings"
	"time"

	"github.com/koredyne/schedule/caldav/icalendar"
	"github.com/koredyne/schedule/engine"
)

// A fortnightly class from a Wednesday until a Wednesday, with one date
// taken out, comes in as a two-week series; a monthly one is reported, or
// brought in as one-offs up to a date.
func ExampleImport() {
	berlin, _ := time.LoadLocation("Europe/Berlin")
	file := strings.Join([]string{
		"BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//example//EN",
		"BEGIN:VEVENT", "UID:pilates", "SUMMARY:Pilates", "LOCATION:Studio",
		"ORGANIZER;CN=Sophie Wagner:mailto:sophie@example.com",
		"DTSTART;TZID=Europe/Berlin:20260304T180000", "DTEND;TZID=Europe/Berlin:20260304T190000",
		"RRULE:FREQ=WEEKLY;INTERVAL=2;BYDAY=MO,WE;UNTIL=20260415T170000Z",
		"EXDATE;TZID=Europe/Berlin:20260330T180000",
		"END:VEVENT",
		"BEGIN:VEVENT", "UID:review", "SUMMARY:Case review", "LOCATION:Studio",
		"ORGANIZER;CN=Sophie Wagner:mailto:sophie@example.com",
		"DTSTART;TZID=Europe/Berlin:20260302T120000", "DURATION:PT1H",
		"RRULE:FREQ=MONTHLY;BYDAY=1MO",
		"END:VEVENT",
		"END:VCALENDAR", "",
	}, "\r\n")
	existing := engine.State{Business: engine.Business{Kind: engine.Clinic, Name: "Spreeufer", Currency: "EUR", Location: berlin, WeekStart: time.Monday}}
	res, err := icalendar.Import(strings.NewReader(file), existing, icalendar.ImportOptions{ExpandUntil: engine.MustDate(2026, 4, 30)})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, p := range res.Problems {
		fmt.Println(p)
	}
	for _, s := range res.State.Series {
		fmt.Printf("series %q from %s to %s, every %d weeks\n", s.Name, s.Anchor, s.End, s.Cycle)
	}
	tt, err := engine.New(res.State)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, day := range tt.Days(engine.MustDate(2026, 3, 1), engine.MustDate(2026, 4, 20)) {
		for _, s := range day.Sessions {
			state := ""
			if s.Cancelled {
				state = " (cancelled)"
			}
			fmt.Printf("%s %s %s–%s%s\n", s.Date.Weekday().String()[:3], s.Date, s.Start, s.End, state)
		}
	}
	// Output:
	// line 14 (Case review): repeats monthly (FREQ=MONTHLY), which a weekly rotation cannot hold; imported as 2 one-off sessions up to Thu 30 Apr 2026
	// series "Pilates" from 2026-03-02 to 2026-04-20, every 2 weeks
	// Mon 2026-03-02 12:00–13:00
	// Mon 2026-03-02 18:00–19:00 (cancelled)
	// Wed 2026-03-04 18:00–19:00
	// Mon 2026-03-16 18:00–19:00
	// Wed 2026-03-18 18:00–19:00
	// Mon 2026-03-30 18:00–19:00 (cancelled)
	// Wed 2026-04-01 18:00–19:00
	// Mon 2026-04-06 12:00–13:00
	// Mon 2026-04-13 18:00–19:00
	// Wed 2026-04-15 18:00–19:00
}
