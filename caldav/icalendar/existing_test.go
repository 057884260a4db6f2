package icalendar

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/koredyne/schedule/engine"
)

// TestImportIntoExisting imports into a business that already has rules:
// rooms, staff, activities and classes are found by name without case or
// extra space; an identical class time is reused only where none of the
// imported classes already has sessions; a pausing closure of the business
// cuts an imported rotation so its dates stay the file's; every new row has
// a negative id unique across tables; the caller's state is not changed.
func TestImportIntoExisting(t *testing.T) {
	berlin := mustZone(t, "Europe/Berlin")
	existing := engine.State{
		Business:   engine.Business{Kind: engine.Clinic, Name: "Spreeufer", Currency: "EUR", Location: berlin, WeekStart: time.Monday},
		Rooms:      []engine.Room{{ID: 1, Name: "Studio", Capacity: 8}},
		Staff:      []engine.Staff{{ID: 2, Name: "Anna Keller"}},
		Activities: []engine.Activity{{ID: 3, Name: "Yoga"}},
		Classes:    []engine.Class{{ID: 4, ActivityID: 3, StaffIDs: []int64{2}}},
		ClassTimes: []engine.ClassTime{
			{ID: 5, RoomID: 1, Weekday: time.Monday, Start: engine.MustTime("10:00"), End: engine.MustTime("11:00")},
			{ID: 6, RoomID: 1, Weekday: time.Tuesday, Start: engine.MustTime("10:00"), End: engine.MustTime("11:00")},
		},
		Series:  []engine.Series{{ID: 7, Name: "Yoga weekly", Anchor: engine.MustDate(2026, 1, 5), Cycle: 1}},
		Entries: []engine.Entry{{ID: 8, SeriesID: 7, ClassTimeID: 5, ClassID: 4, Week: 1}},
		// Two whole weeks closed, pausing rotations.
		Closures: []engine.Closure{{ID: 9, From: engine.MustDate(2026, 8, 3), To: engine.MustDate(2026, 8, 16), Reason: "summer", Pause: true}},
	}
	before := existing.Clone()
	file := calendar(
		"BEGIN:VEVENT\nUID:yoga\nSUMMARY:yoga\nLOCATION: studio \nORGANIZER;CN=ANNA  KELLER:mailto:a@x\n"+
			"DTSTART;TZID=Europe/Berlin:20260601T100000\nDTEND;TZID=Europe/Berlin:20260601T110000\nRRULE:FREQ=WEEKLY;COUNT=4\nEND:VEVENT",
		"BEGIN:VEVENT\nUID:pilates\nSUMMARY:Pilates\nLOCATION:Studio\nORGANIZER;CN=Anna Keller:mailto:a@x\n"+
			"DTSTART;TZID=Europe/Berlin:20260602T100000\nDTEND;TZID=Europe/Berlin:20260602T110000\nRRULE:FREQ=WEEKLY;INTERVAL=2;BYDAY=TU,TH\nEND:VEVENT",
		"BEGIN:VEVENT\nUID:pair\nSUMMARY:Yoga\nLOCATION:Studio\nORGANIZER;CN=Anna Keller:mailto:a@x\nATTENDEE;CN=Ben New:mailto:b@x\n"+
			"DTSTART;TZID=Europe/Berlin:20260603T170000\nDTEND;TZID=Europe/Berlin:20260603T180000\nEND:VEVENT",
	)
	var calls [][2]int
	res, err := Import(strings.NewReader(file), existing, ImportOptions{Progress: func(done, total int) { calls = append(calls, [2]int{done, total}) }})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Problems) > 0 {
		t.Fatalf("problems: %v", res.Problems)
	}
	if !slices.Equal(calls, [][2]int{{0, 3}, {3, 3}}) {
		t.Errorf("progress calls %v, want [[0 3] [3 3]]", calls)
	}
	st := res.State
	if len(st.Rooms) != 1 || len(st.Staff) != 2 || st.Staff[1].Name != "Ben New" || len(st.Activities) != 2 {
		t.Fatalf("rooms %v, staff %v, activities %v: want the studio, Anna and the yoga reused", st.Rooms, st.Staff, st.Activities)
	}
	if len(st.Classes) != 3 {
		t.Fatalf("classes %v: want yoga with Anna reused, Pilates with Anna and yoga with Anna & Ben added", st.Classes)
	}
	// Yoga with Anna already has sessions on Monday 10:00: the import gets
	// a class time of its own. Nothing happens on Tuesday 10:00 yet: Pilates
	// takes that one.
	var yogaCT, pilatesCTs []int64
	for _, e := range st.Entries[1:] {
		if e.ClassID == 4 {
			yogaCT = append(yogaCT, e.ClassTimeID)
		} else {
			pilatesCTs = append(pilatesCTs, e.ClassTimeID)
		}
	}
	if len(yogaCT) != 1 || yogaCT[0] >= 0 {
		t.Errorf("yoga entries in class times %v, want one new class time", yogaCT)
	}
	if !slices.Contains(pilatesCTs, 6) {
		t.Errorf("Pilates entries in class times %v, want the existing Tuesday class time 6 among them", pilatesCTs)
	}
	// The closure pauses the fortnightly Pilates: it comes in as two series.
	var pilates []engine.Series
	for _, s := range st.Series {
		if s.Name == "Pilates" {
			pilates = append(pilates, s)
		}
	}
	if len(pilates) != 2 || pilates[0].End != engine.MustDate(2026, 8, 3) || pilates[1].Anchor != engine.MustDate(2026, 8, 17) {
		t.Errorf("Pilates series %+v, want one up to the closure and one from the week after it", pilates)
	}
	seen := map[int64]bool{}
	check := func(id int64, existed bool) {
		if existed {
			return
		}
		if id >= 0 || seen[id] {
			t.Errorf("new id %d: want negative ids unique across tables", id)
		}
		seen[id] = true
	}
	for _, r := range st.Staff {
		check(r.ID, r.ID > 0)
	}
	for _, r := range st.Activities {
		check(r.ID, r.ID > 0)
	}
	for _, r := range st.Classes {
		check(r.ID, r.ID > 0)
	}
	for _, r := range st.ClassTimes {
		check(r.ID, r.ID > 0)
	}
	for _, r := range st.Series {
		check(r.ID, r.ID > 0)
	}
	for _, r := range st.Entries {
		check(r.ID, r.ID > 0)
	}
	for _, r := range st.OneOffs {
		check(r.ID, r.ID > 0)
	}
	if len(existing.Entries) != len(before.Entries) || len(existing.ClassTimes) != len(before.ClassTimes) || len(existing.Classes) != len(before.Classes) {
		t.Fatal("the caller's state was changed")
	}

	// The file's dates, against the engine's sessions of the imported
	// rules; the closure cancels what falls in it.
	path := filepath.Join(t.TempDir(), "existing.ics")
	if err := os.WriteFile(path, []byte(file), 0o644); err != nil {
		t.Fatal(err)
	}
	tt := timetable(t, st)
	from, to := engine.MustDate(2026, 5, 25), engine.MustDate(2027, 1, 1)
	var want []occ
	for _, o := range pythonOccurrences(t, path, from, to, berlin) {
		if d := date(t, o.Date); d < engine.MustDate(2026, 8, 3) || d > engine.MustDate(2026, 8, 16) {
			want = append(want, o)
		}
	}
	var got []occ
	for d := from; d < to; d++ {
		for _, s := range tt.Day(d) {
			if s.Cancelled || len(s.Series) > 0 && s.Series[0].SeriesID == 7 {
				continue
			}
			start, end := s.Instants(berlin)
			room, _ := tt.Room(s.RoomID)
			got = append(got, occ{Date: d.String(), Start: start.Unix(), End: end.Unix(), Summary: summary(tt, &s), Location: room.Name})
		}
	}
	// The file writes "yoga" in " studio "; the business's names stay.
	for i := range want {
		if strings.EqualFold(want[i].Summary, "yoga") {
			want[i].Summary = "Yoga"
		}
		if strings.EqualFold(strings.TrimSpace(want[i].Location), "studio") {
			want[i].Location = "Studio"
		}
	}
	if diff := diffOccurrences(want, got); diff != "" {
		t.Fatalf("the imported rules do not give the file's dates:\n%s", diff)
	}
}
