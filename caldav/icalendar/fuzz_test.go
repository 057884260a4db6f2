package icalendar_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/koredyne/schedule/caldav/icalendar"
	"github.com/koredyne/schedule/engine"
	"github.com/koredyne/schedule/engine/demo"
)

// FuzzImport: whatever a calendar file holds, Import reads it into rules
// and problems or refuses it with an error, never panics, and what it
// returns either validates or is refused by the engine's own validation
// (which the guarded write runs next), never by anything else.
func FuzzImport(f *testing.F) {
	files, err := filepath.Glob("testdata/*.ics")
	if err != nil || len(files) == 0 {
		f.Fatalf("no seed calendars: %v", err)
	}
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	for _, s := range []string{
		"",
		"BEGIN:VCALENDAR\r\nEND:VCALENDAR\r\n",
		"BEGIN:VCALENDAR\r\nVERSION:2.0\r\nBEGIN:VEVENT\r\nUID:a\r\nDTSTART:20261207T090000\r\nDTEND:20261207T100000\r\nSUMMARY:Boxing\r\n" +
			"RRULE:FREQ=WEEKLY;COUNT=3\r\nLOCATION:Ring\r\nORGANIZER;CN=Marco Reyes:mailto:m@example.com\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n",
		"BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nUID:b\r\nDTSTART:20261207T090000\r\nDTEND:20261207T100000\r\nRRULE:FREQ=DAILY;UNTIL=99991231T000000Z\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n",
		"BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nUID:c\r\nDTSTART:20261207T090000\r\nRRULE:FREQ=MONTHLY;BYDAY=-1FR\r\nSUMMARY:\x00\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n",
	} {
		f.Add([]byte(s))
	}
	week := engine.MustDate(2026, 12, 6)
	existing, _ := demo.ByKind(engine.Office, week)
	opts := icalendar.ImportOptions{DefaultStaff: "Sara Khan", DefaultRoom: "Room A", ExpandUntil: week.AddDays(90)}
	f.Fuzz(func(t *testing.T, b []byte) {
		start := time.Now()
		res, err := icalendar.Import(bytes.NewReader(b), existing, opts)
		if took := time.Since(start); took > 5*time.Second {
			t.Errorf("Import took %s", took)
		}
		if err != nil {
			return
		}
		var v *engine.ValidationError
		if err := engine.Validate(res.State); err != nil && !errors.As(err, &v) {
			t.Errorf("Validate: %v", err)
		}
	})
}
