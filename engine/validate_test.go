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
		{"no NUL in a name", func(f *fx) { f.Rooms[0].Name = "Room\x00A" },
			"rooms", "name", `The name of a room holds the control character U+0000 at character 5; it cannot hold control characters`},
		{"no bare CR in a staff name, in the business's words", func(f *fx) { f.Staff[0].Name = "Mei\rChen" },
			"staff", "name", `The name of a host holds the control character U+000D at character 4; it cannot hold control characters`},
		{"no line break in a label", func(f *fx) { f.ClassTimes[0].Label = "Early\nbirds" },
			"classTimes", "label", `The label of a class time holds the control character U+000A at character 6; it cannot hold control characters`},
		{"no C1 control in an email", func(f *fx) { f.Clients[0].Email = "a\u0085@b.c" },
			"clients", "email", `The email of a client holds the control character U+0085 at character 2; it cannot hold control characters`},
		{"valid UTF-8", func(f *fx) { f.Series[0].Name = "Acme\xff" },
			"series", "name", `The name of a series is not valid UTF-8 text`},
		{"a note holds line breaks but no CR", func(f *fx) {
			f.change(DayChange{Ref: SessionRef{MustParse("2026-10-06"), 1, 1}, Note: "one\ttwo\nthree\r\n"})
		}, "changes", "note", `The note of a change holds the control character U+000D at character 14; only tabs and line breaks (U+000A) may be in it among the control characters`},
		{"names of at most 200 characters", func(f *fx) { f.Activities[0].Name = strings.Repeat("é", 201) },
			"activities", "name", `The name of a meeting type is 201 characters long; at most 200 fit`},
		{"a closure names a room once", func(f *fx) {
			f.closure(Closure{From: MustParse("2026-10-10"), To: MustParse("2026-10-10"), RoomIDs: []int64{1, 1}})
		},
			"closures", "roomIds", `A closure lists id 1 twice; name each once`},
		{"capacity within 32 bits and the limit", func(f *fx) { f.Rooms[0].Capacity = 1 << 31 },
			"rooms", "capacity", `Room "Room A" cannot hold 2147483648 units; give 1 to 10000`},
		{"places within the limit", func(f *fx) { f.ClassTimes[0].Capacity = 10001 },
			"classTimes", "capacity", `The number of places must be between 0 and 10000, not 10001`},
		{"months within the limit", func(f *fx) { f.Plans[0].Months = 1 << 40 },
			"plans", "months", `A plan runs for 1 to 120 months, not 1099511627776`},
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

func TestTextClean(t *testing.T) {
	tests := []struct {
		name, in string
		rule     Text
		want     string
		changed  bool
	}{
		{"fine as it is", "O'Brien \\ $1 -- 🥊", NameText, "O'Brien \\ $1 -- 🥊", false},
		{"controls become spaces", "Ring\x00A\rB\x1b", NameText, "Ring A B ", true},
		{"line breaks stay in notes", "a\tb\r\nc\rd", NoteText, "a\tb\nc d", true},
		{"invalid bytes", "Ring\xffA", NameText, "Ring\uFFFDA", true},
		{"cut to the limit", strings.Repeat("é", 205), NameText, strings.Repeat("é", 200), true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, changed := tc.rule.Clean(tc.in)
			if got != tc.want || changed != tc.changed {
				t.Errorf("got %q %v, want %q %v", got, changed, tc.want, tc.changed)
			}
			if p := tc.rule.Problem("it", got); p != "" {
				t.Errorf("the clean text still has a problem: %s", p)
			}
		})
	}
}

// TestValidateNotFound: a row naming one the state does not have is
// NotFound, whatever else is wrong; the problem that says so comes first.
func TestValidateNotFound(t *testing.T) {
	tests := []struct {
		name, field string
		edit        func(f *fx)
	}{
		{"an entry's class time", "classTimeId", func(f *fx) { f.Entries[0].ClassTimeID = 99 }},
		{"an entry's class", "classId", func(f *fx) { f.Entries[0].ClassID = 99 }},
		{"a class's activity", "activityId", func(f *fx) { f.Classes[0].ActivityID = 99 }},
		{"a class's staff", "staffIds", func(f *fx) { f.Classes[0].StaffIDs = []int64{99} }},
		{"a class time's room", "roomId", func(f *fx) { f.ClassTimes[0].RoomID = 99 }},
		{"a plan's series", "seriesId", func(f *fx) { f.Plans[0].SeriesID = 99 }},
		{"a subscription's client", "clientId", func(f *fx) { f.Subscriptions[0].ClientID = 99 }},
		{"a closure's rooms", "roomIds", func(f *fx) {
			f.closure(Closure{From: MustParse("2026-10-10"), To: MustParse("2026-10-10"), RoomIDs: []int64{99}})
		}},
		{"a change's staff", "staffIds", func(f *fx) {
			f.change(DayChange{Ref: SessionRef{MustParse("2026-10-06"), 1, 1}, StaffIDs: []int64{99}})
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := validFx()
			f.Series[0].Cycle = 0 // a bad value besides: the missing row still decides
			tc.edit(f)
			err := Validate(f.State)
			var ve *ValidationError
			if !errors.As(err, &ve) {
				t.Fatalf("got %v, want a ValidationError", err)
			}
			if got := ErrorCode(err); got != NotFound {
				t.Errorf("code %q, want %q (%v)", got, NotFound, err)
			}
			if got := ve.First(); got.Field != tc.field || got.Code != NotFound {
				t.Errorf("first problem %+v, want the missing %s", got, tc.field)
			}
		})
	}
	f := validFx()
	f.Series[0].Cycle = 0
	if got := ErrorCode(Validate(f.State)); got != Invalid {
		t.Errorf("a bad value alone: code %q, want %q", got, Invalid)
	}
}
