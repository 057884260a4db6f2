package engine

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// validFx is a small valid business that each validation case breaks once.
func validFx() *fx {
	f := newFx()
	c := f.class(standup, mei)
	ct := f.ct(roomA, "Tue 09:00-10:00")
	s := f.series("Acme", "2026-10-05", 2, "2026-12-07")
	f.entry(s, ct, c, 1)
	f.Plans = []Plan{{ID: 1, SeriesID: s, PerMonth: 4, Months: 1, Price: 50000}}
	f.Clients = []Client{{ID: 1, Name: "Bluefin Legal"}}
	f.Subscriptions = []Subscription{{ID: 1, ClientID: 1, SeriesID: s, PlanID: 1, Start: MustParse("2026-10-05")}}
	return f
}

func TestValidate(t *testing.T) {
	if err := Validate(validFx().State); err != nil {
		t.Fatalf("valid fixture: %v", err)
	}
	tests := []struct {
		name         string
		edit         func(f *fx)
		table, field string
		message      string
	}{
		{"anchor on the week start", func(f *fx) { f.Series[0].Anchor = MustParse("2026-10-07") },
			"series", "anchorDate", `Series "Acme": the start date 2026-10-07 is a Wednesday; series start on a Monday, the first day of the week`},
		{"end on the week start", func(f *fx) { f.Series[0].End = MustParse("2026-12-08") },
			"series", "endDate", `Series "Acme": the end date 2026-12-08 is a Tuesday; series end on a Monday, the first day of the week`},
		{"end after anchor", func(f *fx) { f.Series[0].End = MustParse("2026-10-05") },
			"series", "endDate", `Series "Acme": the end date 2026-10-05 must be after the start date 2026-10-05`},
		{"cycle at least 1", func(f *fx) { f.Series[0].Cycle = 0 },
			"series", "cycleWeeks", `Series "Acme": the rotation must be 1 to 52 weeks long, not 0`},
		{"cycle at most 52", func(f *fx) { f.Series[0].Cycle = 53 },
			"series", "cycleWeeks", `Series "Acme": the rotation must be 1 to 52 weeks long, not 53`},
		{"entry week inside the cycle", func(f *fx) { f.Entries[0].Week = 3 },
			"entries", "week", `Series "Acme": week 3 is outside its 2 weeks rotation`},
		{"end time after start time", func(f *fx) { f.ClassTimes[0].End = MustTime("08:00") },
			"classTimes", "end", `The end time 08:00 must be after the start time 09:00`},
		{"one class per class time and week", func(f *fx) { f.entry(1, 1, f.class(interview, mei), 1) },
			"entries", "classTimeId", `Series "Acme" already has a meeting in that class time in week 1`},
		{"no two classes with one activity and staff set", func(f *fx) {
			f.class(board, mei, ahmed)
			f.class(board, ahmed, meiAgain)
		}, "classes", "staffIds", `Board meeting with Ahmed Rahim & mei chen already exists (meeting 2): no two meetings share a meeting type and the same hosts`},
		{"a staff list that is not empty", func(f *fx) { f.Classes[0].StaffIDs = nil },
			"classes", "staffIds", `Standup needs at least one host`},
		{"references that exist", func(f *fx) { f.Entries[0].ClassID = 99 },
			"entries", "classId", `An entry names a meeting that does not exist`},
		{"units within the room", func(f *fx) { f.ClassTimes[0].Units = 2 },
			"classTimes", "units", `Room "Room A" has at most 1 unit; a session cannot use 2`},
		{"units within the room's highest capacity rule", func(f *fx) {
			f.Rooms[0].Capacity = 9
			f.Capacity = []CapacityRule{{ID: 1, RoomID: f.Rooms[0].ID, Weekdays: []time.Weekday{time.Tuesday}, Start: MustTime("00:00"), End: EndOfDay, Units: 3}}
			f.RoomBookings = []RoomBooking{{ID: 1, RoomID: f.Rooms[0].ID, Date: MustParse("2026-10-06"), Start: MustTime("12:00"), End: MustTime("13:00"), Units: 4}}
		}, "roomBookings", "units", `Room "Room A" has at most 3 units; a booking cannot use 4`},
		{"a plan of another series", func(f *fx) {
			f.series("Other", "2026-10-05", 1, "")
			f.Plans[0].SeriesID = 2
		}, "subscriptions", "planId", `A subscription's plan must be a plan of its own series`},
		{"closure dates in order", func(f *fx) { f.closure(Closure{From: MustParse("2026-10-10"), To: MustParse("2026-10-09")}) },
			"closures", "to", `A closure cannot end (2026-10-09) before it starts (2026-10-10)`},
		{"a change moving to a missing room", func(f *fx) {
			f.change(DayChange{Ref: SessionRef{MustParse("2026-10-06"), 1, 1}, RoomID: 9})
		}, "changes", "roomId", `A change moves a session to a room that does not exist`},
		{"a change that ends before it starts", func(f *fx) {
			f.change(DayChange{Ref: SessionRef{MustParse("2026-10-06"), 1, 1}, Start: at("10:30")})
		}, "changes", "end", `The end time 10:00 must be after the start time 10:30`},
		{"the week starts on Sunday or Monday", func(f *fx) {
			f.Business.WeekStart = time.Wednesday
			f.Series[0].Anchor, f.Series[0].End = MustParse("2026-10-07"), 0
		}, "business", "weekStart", `The week must start on Sunday or Monday, not Wednesday`},
		{"room names are unique", func(f *fx) { f.Rooms[1].Name = "room a" },
			"rooms", "name", `There is already a room called "room a"`},
		{"ids are unique", func(f *fx) { f.Rooms[1].ID = 1 },
			"rooms", "id", `Two rows of rooms share the id 1`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := validFx()
			tc.edit(f)
			err := Validate(f.State)
			var ve *ValidationError
			if !errors.As(err, &ve) {
				t.Fatalf("got %v, want a ValidationError", err)
			}
			for _, p := range ve.Problems {
				if p.Table == tc.table && p.Field == tc.field && p.Message == tc.message {
					return
				}
			}
			t.Errorf("got %+v\nwant %s.%s: %s", ve.Problems, tc.table, tc.field, tc.message)
		})
	}
}

func TestValidateReportsEverything(t *testing.T) {
	f := validFx()
	f.Series[0].Anchor = MustParse("2026-10-07")
	f.Series[0].Cycle = 0
	f.ClassTimes[0].End = MustTime("08:00")
	f.Classes[0].StaffIDs = []int64{42}
	err := Validate(f.State)
	var ve *ValidationError
	if !errors.As(err, &ve) {
		t.Fatalf("got %v", err)
	}
	var fields []string
	for _, p := range ve.Problems {
		fields = append(fields, p.Table+"."+p.Field)
	}
	got := strings.Join(fields, " ")
	want := "classes.staffIds classTimes.end series.cycleWeeks series.anchorDate"
	if got != want {
		t.Errorf("got %s, want %s", got, want)
	}
	if _, err := New(f.State); err == nil {
		t.Error("New accepted an invalid state")
	}
}
