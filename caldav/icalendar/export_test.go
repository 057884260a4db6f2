package icalendar

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/koredyne/schedule/engine"
	"github.com/koredyne/schedule/engine/demo"
)

// TestExportDemosAgainstPython exports each demo and expands the file with
// the independent Python implementation over two years, across the
// daylight-saving changes of Berlin and New York: every date must give
// exactly the sessions the engine computes (start and end instants, title,
// room), cancelled ones left out.
func TestExportDemosAgainstPython(t *testing.T) {
	week := date(t, "2026-03-02") // the US changes clocks on 8 Mar, Europe on 29 Mar
	for _, k := range []engine.Kind{engine.Gym, engine.Clinic, engine.Office} {
		t.Run(string(k), func(t *testing.T) {
			st, _ := demo.ByKind(k, week)
			tt := timetable(t, st)
			data, err := Export(st, ExportOptions{})
			if err != nil {
				t.Fatal(err)
			}
			file := filepath.Join(t.TempDir(), string(k)+".ics")
			if err := os.WriteFile(file, data, 0o644); err != nil {
				t.Fatal(err)
			}
			from, to := week.AddDays(-16*7), week.AddDays(2*365)
			want := engineOccurrences(tt, from, to)
			got := pythonOccurrences(t, file, from, to, st.Business.Location)
			if diff := diffOccurrences(got, want); diff != "" {
				t.Fatalf("%s %s..%s: the exported file does not give the engine's sessions:\n%s", k, from, to, diff)
			}
			t.Logf("%s: %d dates, %d sessions compared", k, to-from, len(want))
		})
	}
}

// TestExportSpringForward exports sessions at 02:30 on Sundays in Berlin,
// where 29 March 2026 has no 02:30: RFC 5545 reads it as 03:30 CEST and the
// session keeps its hour. One series starts on that very day, so its first
// occurrence, whose length every other one takes, is the short one.
func TestExportSpringForward(t *testing.T) {
	berlin := mustZone(t, "Europe/Berlin")
	st := engine.State{
		Business:   engine.Business{Kind: engine.Gym, Name: "Night Swim", Currency: "EUR", Location: berlin, WeekStart: time.Monday},
		Rooms:      []engine.Room{{ID: 1, Name: "Pool"}, {ID: 2, Name: "Studio"}},
		Staff:      []engine.Staff{{ID: 1, Name: "Jonas Richter"}},
		Activities: []engine.Activity{{ID: 1, Name: "Night Swim"}, {ID: 2, Name: "Late Stretch"}},
		Classes:    []engine.Class{{ID: 1, ActivityID: 1, StaffIDs: []int64{1}}, {ID: 2, ActivityID: 2, StaffIDs: []int64{1}}},
		ClassTimes: []engine.ClassTime{
			{ID: 1, RoomID: 1, Weekday: time.Sunday, Start: engine.MustTime("02:30"), End: engine.MustTime("03:30")},
			{ID: 2, RoomID: 2, Weekday: time.Sunday, Start: engine.MustTime("01:00"), End: engine.MustTime("02:00")},
		},
		Series: []engine.Series{
			{ID: 1, Name: "Spring nights", Anchor: date(t, "2026-02-23"), End: date(t, "2026-06-01"), Cycle: 1},
			{ID: 2, Name: "From the change", Anchor: date(t, "2026-03-23"), End: date(t, "2026-06-01"), Cycle: 2},
		},
		Entries: []engine.Entry{
			{ID: 1, SeriesID: 1, ClassTimeID: 1, ClassID: 1, Week: 1},
			{ID: 2, SeriesID: 2, ClassTimeID: 2, ClassID: 2, Week: 1},
		},
	}
	st.ClassTimes = append(st.ClassTimes, engine.ClassTime{ID: 3, RoomID: 2, Weekday: time.Sunday, Start: engine.MustTime("02:15"), End: engine.MustTime("03:15")})
	st.Entries = append(st.Entries, engine.Entry{ID: 3, SeriesID: 2, ClassTimeID: 3, ClassID: 2, Week: 2})
	st.Series[1].Anchor = date(t, "2026-03-16") // week 2 of it is the week of the change
	tt := timetable(t, st)
	data, err := Export(st, ExportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(data, []byte("DURATION:PT60M")) {
		t.Fatalf("the series that starts on the day of the change has no DURATION:\n%s", data)
	}
	file := filepath.Join(t.TempDir(), "night.ics")
	if err := os.WriteFile(file, data, 0o644); err != nil {
		t.Fatal(err)
	}
	from, to := date(t, "2026-02-01"), date(t, "2026-07-01")
	want := engineOccurrences(tt, from, to)
	if diff := diffOccurrences(pythonOccurrences(t, file, from, to, berlin), want); diff != "" {
		t.Fatalf("the exported file does not give the engine's sessions:\n%s\n%s", diff, data)
	}
	t.Logf("%d sessions compared", len(want))
}
