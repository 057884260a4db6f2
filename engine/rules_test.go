package engine

import (
	"slices"
	"strconv"
	"strings"
	"testing"
)

func TestRotation(t *testing.T) {
	// A 3-week series from Monday 5 Oct 2026, ending 30 Nov, with one entry
	// in each week on Tuesdays at 09:00.
	build := func(closures ...Closure) *Timetable {
		f := newFx()
		c := f.class(standup, mei)
		s := f.series("Rota", "2026-10-05", 3, "2026-11-30")
		for week := 1; week <= 3; week++ {
			f.entry(s, f.ct(roomA, "Tue 09:00-09:15"), c, week)
		}
		for _, cl := range closures {
			f.closure(cl)
		}
		return f.timetable(t)
	}
	tests := []struct {
		name     string
		closures []Closure
		date     string
		want     string // "W2", "none" or "W2 cancelled"
	}{
		{"before the anchor", nil, "2026-09-29", "none"},
		{"first week", nil, "2026-10-06", "W1"},
		{"second week", nil, "2026-10-13", "W2"},
		{"third week", nil, "2026-10-20", "W3"},
		{"wraps", nil, "2026-10-27", "W1"},
		{"last week before the end", nil, "2026-11-24", "W2"},
		{"end is exclusive", nil, "2026-12-01", "none"},
		{"a closure cancels but does not pause", []Closure{{From: MustParse("2026-10-13"), To: MustParse("2026-10-13"), Reason: "Eid"}}, "2026-10-13", "W2 cancelled: Eid"},
		{"and the rotation goes on", []Closure{{From: MustParse("2026-10-13"), To: MustParse("2026-10-13"), Reason: "Eid"}}, "2026-10-20", "W3"},
		{"a paused week shows the week it resumes with", []Closure{{From: MustParse("2026-10-12"), To: MustParse("2026-10-18"), Reason: "Eid", Pause: true}}, "2026-10-13", "W2 cancelled: Eid"},
		{"after a paused week the rotation resumes", []Closure{{From: MustParse("2026-10-12"), To: MustParse("2026-10-18"), Reason: "Eid", Pause: true}}, "2026-10-20", "W2"},
		{"two paused weeks", []Closure{{From: MustParse("2026-10-12"), To: MustParse("2026-10-25"), Pause: true}}, "2026-10-27", "W2"},
		{"a pause must cover the whole week", []Closure{{From: MustParse("2026-10-12"), To: MustParse("2026-10-17"), Pause: true}}, "2026-10-20", "W3"},
		{"a pause of another room's closure", []Closure{{From: MustParse("2026-10-12"), To: MustParse("2026-10-18"), RoomIDs: []int64{roomB}, Pause: true}}, "2026-10-20", "W3"},
		{"a pause of this room", []Closure{{From: MustParse("2026-10-12"), To: MustParse("2026-10-18"), RoomIDs: []int64{roomA}, Pause: true}}, "2026-10-20", "W2"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for i := range tc.closures {
				tc.closures[i].ID = int64(i + 1)
			}
			tt := build(tc.closures...)
			got := "none"
			if ss := tt.Day(MustParse(tc.date)); len(ss) > 0 {
				got = "W" + itoa(ss[0].Series[0].Week)
				if ss[0].Cancelled {
					got += " cancelled: " + ss[0].Reason()
				}
			}
			if got != tc.want {
				t.Errorf("got %s, want %s", got, tc.want)
			}
		})
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// TestDay resolves dates of a small business through every step of the order
// of the design.
func TestDay(t *testing.T) {
	f := newFx()
	stand := f.class(standup, mei)
	inter := f.class(interview, ahmed, laura)
	acme := f.series("Acme", "2026-10-05", 1, "")
	orbit := f.series("Orbit", "2026-09-28", 2, "")
	tue := f.ct(roomA, "Tue 09:00-09:15")
	f.entry(acme, tue, stand, 1)
	f.entry(orbit, tue, stand, 2) // shared: one session, two series
	wed := f.ct(roomB, "Wed 10:00-12:00")
	f.entry(orbit, wed, inter, 1)
	f.entry(acme, f.ct(roomB, "Thu 10:00-11:00", inactive), inter, 1)
	f.change(DayChange{Ref: SessionRef{MustParse("2026-10-13"), tue, stand}, Cancelled: true, Note: "flu"})
	f.change(DayChange{Ref: SessionRef{MustParse("2026-10-20"), tue, stand}, Date: MustParse("2026-10-22"), Start: at("15:00"), End: at("15:15")})
	f.change(DayChange{Ref: SessionRef{MustParse("2026-10-27"), tue, stand}, RoomID: roomB, StaffIDs: []int64{ahmed}})
	f.change(DayChange{Ref: SessionRef{MustParse("2026-11-03"), tue, stand}, Note: "bring laptops"})
	f.change(DayChange{Ref: SessionRef{MustParse("2026-10-14"), tue, stand}, Cancelled: true}) // names no real session
	f.oneOff(OneOff{ClassID: inter, RoomID: roomA, Date: MustParse("2026-10-22"), Start: MustTime("13:00"), End: MustTime("14:00")})
	f.closure(Closure{From: MustParse("2026-11-11"), To: MustParse("2026-11-11"), RoomIDs: []int64{roomB}, Reason: "Painting"})
	f.change(DayChange{Ref: SessionRef{MustParse("2026-11-17"), tue, stand}, Date: MustParse("2026-11-11"), RoomID: roomB})
	tt := f.timetable(t)

	tests := []struct {
		name, date string
		want       []string
	}{
		{"a shared class is one session listing both series", "2026-10-06", []string{"09:00-09:15 Room A Standup (Mei Chen) Acme W1/1 Orbit W2/2"}},
		{"a week where only one series has it", "2026-10-20", nil},
		{"cancelled, kept with its reason", "2026-10-13", []string{"09:00-09:15 Room A Standup (Mei Chen) Acme W1/1 cancelled: flu"}},
		{"moved in and re-timed, with a one-off", "2026-10-22", []string{
			"13:00-14:00 Room A Interview (Ahmed Rahim, Laura Becker) one-off",
			"15:00-15:15 Room A Standup (Mei Chen) Acme W1/1 Orbit W2/2 moved from 2026-10-20",
		}},
		{"room and cover", "2026-10-27", []string{"09:00-09:15 Room B Standup (Ahmed Rahim) Acme W1/1 changed from 09:00-09:15 Room A"}},
		{"a note alone changes nothing else", "2026-11-03", []string{"09:00-09:15 Room A Standup (Mei Chen) Acme W1/1 Orbit W2/2 note: bring laptops"}},
		{"a change naming no real session is ignored", "2026-10-14", []string{"10:00-12:00 Room B Interview (Ahmed Rahim, Laura Becker) Orbit W1/2"}},
		{"inactive class times make no sessions", "2026-10-08", nil},
		{"a closure cancels what falls in it, moved in too", "2026-11-11", []string{
			"09:00-09:15 Room B Standup (Mei Chen) Acme W1/1 Orbit W2/2 moved from 2026-11-17 cancelled: Painting",
			"10:00-12:00 Room B Interview (Ahmed Rahim, Laura Becker) Orbit W1/2 cancelled: Painting",
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, s := range tt.Day(MustParse(tc.date)) {
				got = append(got, describeSession(tt, s))
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("got\n  %s\nwant\n  %s", strings.Join(got, "\n  "), strings.Join(tc.want, "\n  "))
			}
		})
	}

	if s, ok := tt.Session(SessionRef{MustParse("2026-10-20"), tue, stand}); !ok || s.Date != MustParse("2026-10-22") {
		t.Errorf("Session of a moved ref: got %v %v, want it on 2026-10-22", s.Date, ok)
	}
	if _, ok := tt.Session(SessionRef{MustParse("2026-10-14"), tue, stand}); ok {
		t.Error("Session of a date the class time does not fall on: got ok")
	}
}

// TestClashRules covers each clash rule with the smallest business that
// shows it; today is Monday 5 Oct 2026.
func TestClashRules(t *testing.T) {
	tests := []struct {
		name  string
		build func(f *fx)
		want  []string
	}{
		{"a room holds one session at a time", func(f *fx) {
			f.weekly("A", roomA, "Tue 09:00-10:00", f.class(standup, mei))
			f.weekly("B", roomA, "Tue 09:30-10:30", f.class(interview, ahmed))
		}, []string{"ROOM 2026-10-06 every 1 forever"}},
		{"back to back is fine", func(f *fx) {
			f.weekly("A", roomA, "Tue 09:00-10:00", f.class(standup, mei))
			f.weekly("B", roomA, "Tue 10:00-11:00", f.class(interview, mei))
		}, nil},
		{"a cleaning buffer counts after its session", func(f *fx) {
			f.weekly("A", roomA, "Tue 09:00-10:00", f.class(standup, mei), buffer(15))
			f.weekly("B", roomA, "Tue 10:10-11:00", f.class(interview, ahmed))
		}, []string{"ROOM 2026-10-06 every 1 forever"}},
		{"but not before it", func(f *fx) {
			f.weekly("A", roomA, "Tue 09:00-10:00", f.class(standup, mei))
			f.weekly("B", roomA, "Tue 10:00-11:00", f.class(interview, ahmed), buffer(30))
		}, nil},
		{"and not for staff", func(f *fx) {
			f.weekly("A", roomA, "Tue 09:00-10:00", f.class(standup, mei), buffer(30))
			f.weekly("B", roomB, "Tue 10:00-11:00", f.class(interview, mei))
		}, nil},
		{"one person in two rooms", func(f *fx) {
			f.weekly("A", roomA, "Tue 09:00-09:15", f.class(standup, mei))
			f.weekly("B", roomB, "Tue 09:00-12:00", f.class(interview, mei))
		}, []string{"STAFF 2026-10-06 every 1 forever"}},
		{"names are compared without case", func(f *fx) {
			f.weekly("A", roomA, "Tue 09:00-09:15", f.class(standup, mei))
			f.weekly("B", roomB, "Tue 09:00-12:00", f.class(interview, meiAgain))
		}, []string{"STAFF 2026-10-06 every 1 forever"}},
		{"any member of a multi-staff class", func(f *fx) {
			f.weekly("A", roomA, "Tue 09:00-11:00", f.class(board, laura, ahmed))
			f.weekly("B", roomB, "Tue 10:00-12:00", f.class(interview, ahmed))
		}, []string{"STAFF 2026-10-06 every 1 forever"}},
		{"two shared members are two clashes", func(f *fx) {
			f.weekly("A", roomA, "Tue 09:00-11:00", f.class(board, laura, ahmed))
			f.weekly("B", roomB, "Tue 10:00-12:00", f.class(interview, ahmed, laura))
		}, []string{"STAFF 2026-10-06 every 1 forever", "STAFF 2026-10-06 every 1 forever"}},
		{"a shared class is one session, not a clash", func(f *fx) {
			c, ct := f.class(standup, mei), f.ct(roomA, "Tue 09:00-10:00")
			f.entry(f.series("A", "2026-10-05", 1, ""), ct, c, 1)
			f.entry(f.series("B", "2026-09-28", 2, ""), ct, c, 2)
		}, nil},
		{"inactive class times never clash", func(f *fx) {
			f.weekly("A", roomA, "Tue 09:00-10:00", f.class(standup, mei))
			f.weekly("B", roomA, "Tue 09:00-10:00", f.class(interview, ahmed), inactive)
		}, nil},
		{"rotation weeks that never meet", func(f *fx) {
			ct := f.ct(roomA, "Tue 09:00-10:00")
			f.entry(f.series("A", "2026-10-05", 2, ""), ct, f.class(standup, mei), 1)
			f.entry(f.series("B", "2026-10-05", 4, ""), f.ct(roomA, "Tue 09:30-10:00"), f.class(interview, ahmed), 2)
		}, nil},
		{"rotations that meet every lcm weeks", func(f *fx) {
			f.entry(f.series("A", "2026-10-05", 2, ""), f.ct(roomA, "Tue 09:00-10:00"), f.class(standup, mei), 1)
			f.entry(f.series("B", "2026-10-05", 3, ""), f.ct(roomA, "Tue 09:30-10:00"), f.class(interview, ahmed), 2)
		}, []string{"ROOM 2026-11-03 every 6 forever"}},
		{"coprime rotations first meet years ahead", func(f *fx) {
			f.entry(f.series("A", "2026-10-05", 17, ""), f.ct(roomA, "Tue 09:00-10:00"), f.class(standup, mei), 1)
			f.entry(f.series("B", "2026-10-05", 19, ""), f.ct(roomB, "Tue 09:30-10:00"), f.class(interview, mei), 2)
		}, []string{"STAFF 2029-09-11 every 323 forever"}}, // week 153: 153 ≡ 0 (mod 17), ≡ 1 (mod 19)
		{"a series end stops it", func(f *fx) {
			f.weekly("A", roomA, "Tue 09:00-10:00", f.class(standup, mei))
			f.entry(f.series("B", "2026-10-05", 1, "2026-11-02"), f.ct(roomA, "Tue 09:00-10:00"), f.class(interview, ahmed), 1)
		}, []string{"ROOM 2026-10-06 every 1 until 2026-10-27"}},
		{"a cancelled session never clashes", func(f *fx) {
			c := f.class(standup, mei)
			ct := f.weekly("A", roomA, "Tue 09:00-10:00", c)
			f.weekly("B", roomA, "Tue 09:00-10:00", f.class(interview, ahmed))
			f.change(DayChange{Ref: SessionRef{MustParse("2026-10-13"), ct, c}, Cancelled: true})
		}, []string{"ROOM 2026-10-06 once", "ROOM 2026-10-20 every 1 forever"}},
		{"a closure cancels", func(f *fx) {
			f.weekly("A", roomA, "Tue 09:00-10:00", f.class(standup, mei))
			f.weekly("B", roomA, "Tue 09:00-10:00", f.class(interview, ahmed))
			f.closure(Closure{From: MustParse("2026-10-01"), To: MustParse("2026-10-15")})
		}, []string{"ROOM 2026-10-20 every 1 forever"}},
		{"a pause of one room shifts its rotation into a clash", func(f *fx) {
			f.entry(f.series("A", "2026-10-05", 2, ""), f.ct(roomA, "Tue 09:00-10:00"), f.class(standup, mei), 1)
			f.entry(f.series("B", "2026-10-05", 2, ""), f.ct(roomB, "Tue 09:00-10:00"), f.class(interview, mei), 2)
			f.closure(Closure{From: MustParse("2026-10-19"), To: MustParse("2026-10-25"), RoomIDs: []int64{roomA}, Pause: true})
		}, []string{"STAFF 2026-10-27 every 2 forever"}},
		{"a session moved onto its own next week clashes with it", func(f *fx) {
			c := f.class(standup, mei)
			ct := f.weekly("A", roomA, "Tue 09:00-10:00", c)
			f.change(DayChange{Ref: SessionRef{MustParse("2026-10-06"), ct, c}, Date: MustParse("2026-10-13")})
		}, []string{"ROOM 2026-10-13 once", "STAFF 2026-10-13 once"}},
		{"two sessions moved onto one date and room", func(f *fx) {
			a, b := f.class(standup, mei), f.class(interview, ahmed)
			cta := f.weekly("A", roomA, "Tue 09:00-10:00", a)
			ctb := f.weekly("B", roomB, "Wed 09:00-10:00", b)
			f.change(DayChange{Ref: SessionRef{MustParse("2026-10-06"), cta, a}, Date: MustParse("2026-10-09")})
			f.change(DayChange{Ref: SessionRef{MustParse("2026-10-07"), ctb, b}, Date: MustParse("2026-10-09"), RoomID: roomA})
		}, []string{"ROOM 2026-10-09 once"}},
		{"a one-off on a series session", func(f *fx) {
			f.weekly("A", roomA, "Tue 09:00-10:00", f.class(standup, mei))
			f.oneOff(OneOff{ClassID: f.class(interview, ahmed), RoomID: roomA, Date: MustParse("2026-10-13"), Start: MustTime("09:45"), End: MustTime("11:00")})
		}, []string{"ROOM 2026-10-13 once"}},
		{"units that fit", func(f *fx) {
			f.weekly("A", pool, "Tue 09:00-10:00", f.class(swim, mei), units(3))
			f.weekly("B", pool, "Tue 09:00-10:00", f.class(swim, ahmed), units(3))
		}, nil},
		{"units over capacity need all three", func(f *fx) {
			f.weekly("A", pool, "Tue 09:00-10:00", f.class(swim, mei), units(3))
			f.weekly("B", pool, "Tue 09:30-10:30", f.class(swim, ahmed), units(2))
			f.weekly("C", pool, "Tue 09:45-11:00", f.class(swim, laura), units(2))
		}, []string{"ROOM 2026-10-06 every 1 forever"}},
		{"units that meet only in sequence do not clash", func(f *fx) {
			f.weekly("A", pool, "Tue 09:00-10:00", f.class(swim, mei), units(3))
			f.weekly("B", pool, "Tue 09:30-10:30", f.class(swim, ahmed), units(2))
			f.weekly("C", pool, "Tue 10:00-11:00", f.class(swim, laura), units(2))
		}, nil},
		{"the past is not reported", func(f *fx) {
			f.weekly("A", roomA, "Tue 09:00-10:00", f.class(standup, mei))
			f.entry(f.series("B", "2026-09-07", 1, "2026-10-05"), f.ct(roomA, "Tue 09:00-10:00"), f.class(interview, ahmed), 1)
		}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFx()
			tc.build(f)
			tt := f.timetable(t)
			r := tt.Clashes(MustParse("2026-10-05"))
			var got []string
			for _, c := range r.Clashes {
				got = append(got, describeClash(c))
			}
			if !slices.Equal(got, tc.want) {
				var msgs []string
				for _, c := range r.Clashes {
					msgs = append(msgs, c.Message)
				}
				t.Errorf("got %q, want %q\n%s", got, tc.want, strings.Join(msgs, "\n"))
			}
			if !r.ProvenUntil.IsZero() {
				t.Errorf("provenUntil %s, want every date", r.ProvenUntil)
			}
		})
	}
}

func TestClashMessage(t *testing.T) {
	f := newFx()
	f.Activities = append(f.Activities[:0], Activity{ID: standup, Name: "Standup"}, Activity{ID: interview, Name: "Interview"})
	f.entry(f.series("Acme — Daily standup", "2026-10-05", 2, ""), f.ct(roomA, "Tue 09:00-09:15"), f.class(standup, mei), 1)
	f.entry(f.series("Orbit Analytics — Hiring", "2026-10-05", 3, ""), f.ct(roomB, "Tue 09:00-12:00"), f.class(interview, mei), 1)
	f.weekly("Lobby", roomB, "Wed 09:00-10:00", f.class(interview, ahmed))
	f.weekly("Lobby 2", roomB, "Wed 09:30-10:00", f.class(standup, ahmed))
	f.oneOff(OneOff{ClassID: 1, RoomID: roomB, Date: MustParse("2027-01-06"), Start: MustTime("09:55"), End: MustTime("12:05")})
	tt := f.timetable(t)
	var got []string
	for _, c := range tt.Clashes(MustParse("2026-10-05")).Clashes {
		got = append(got, c.Message)
	}
	want := []string{
		"Host Mei Chen double-booked: Standup (Room A, 9 AM – 9:15 AM, Acme — Daily standup W1) & Interview (Room B, 9 AM – 12 PM, Orbit Analytics — Hiring W1), first 6 Oct",
		"Room B double-booked: Interview (Room B, 9 AM – 10 AM, Lobby) & Standup (Room B, 9:30 AM – 10 AM, Lobby 2), first 7 Oct",
		"Host Ahmed Rahim double-booked: Interview (Room B, 9 AM – 10 AM, Lobby) & Standup (Room B, 9:30 AM – 10 AM, Lobby 2), first 7 Oct",
		"Room B double-booked: Interview (Room B, 9 AM – 10 AM, Lobby) & Standup (Room B, 9:55 AM – 12:05 PM, one-off), on 6 Jan 2027",
		"Room B double-booked: Standup (Room B, 9:30 AM – 10 AM, Lobby 2) & Standup (Room B, 9:55 AM – 12:05 PM, one-off), on 6 Jan 2027",
	}
	if !slices.Equal(got, want) {
		t.Errorf("got\n  %s\nwant\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
}

// TestNewClashes checks that only clashes a write adds count as new.
func TestNewClashes(t *testing.T) {
	today := MustParse("2026-10-05")
	base := func() *fx {
		f := newFx()
		f.entry(f.series("A", "2026-10-05", 2, ""), f.ct(roomA, "Tue 09:00-10:00"), f.class(standup, mei), 1)
		f.weekly("B", roomA, "Tue 09:30-10:30", f.class(interview, ahmed))
		return f
	}
	report := func(f *fx) Report { return f.timetable(t).Clashes(today) }
	before := report(base())
	if len(before.Clashes) != 1 {
		t.Fatalf("fixture: %d clashes, want 1", len(before.Clashes))
	}
	tests := []struct {
		name   string
		edit   func(f *fx)
		newOne bool
	}{
		{"nothing changed", func(f *fx) {}, false},
		{"saved again under new ids", func(f *fx) {
			for i := range f.Entries {
				f.Entries[i].ID += 100
			}
			for i := range f.ClassTimes {
				f.ClassTimes[i].ID += 100
				f.ClassTimes[i].Label = "relabelled"
			}
			for i := range f.Entries {
				f.Entries[i].ClassTimeID += 100
			}
			for i := range f.Series {
				f.Series[i].ID += 100
			}
			for i := range f.Entries {
				f.Entries[i].SeriesID += 100
			}
		}, false},
		{"something unrelated added", func(f *fx) {
			f.weekly("C", roomB, "Fri 09:00-10:00", f.class(swim, laura))
			f.closure(Closure{From: MustParse("2026-12-01"), To: MustParse("2026-12-31"), RoomIDs: []int64{roomB}, Pause: true})
		}, false},
		{"one occurrence cancelled", func(f *fx) {
			f.change(DayChange{Ref: SessionRef{MustParse("2026-10-20"), 1, 1}, Cancelled: true})
		}, false},
		{"the same pair in another series week", func(f *fx) { f.Series[0].Cycle = 2; f.entry(1, 1, 1, 2) }, true},
		{"a new pair", func(f *fx) { f.weekly("C", roomA, "Tue 09:45-10:00", f.class(swim, laura)) }, true},
		{"the clashing session moved onto another clash", func(f *fx) {
			f.change(DayChange{Ref: SessionRef{MustParse("2026-10-20"), 1, 1}, Start: at("10:00"), End: at("10:20")})
		}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := base()
			tc.edit(f)
			added := NewClashes(before, report(f))
			if got := len(added) > 0; got != tc.newOne {
				t.Errorf("new clashes: got %v, want %v (%d)", got, tc.newOne, len(added))
			}
		})
	}
}

func TestMergeChange(t *testing.T) {
	f := newFx()
	c := f.class(standup, mei)
	ct := f.weekly("A", roomA, "Tue 09:00-10:00", c)
	other := f.class(interview, ahmed)
	ref := SessionRef{MustParse("2026-10-06"), ct, c}
	f.change(DayChange{Ref: ref, Start: at("09:30"), End: at("10:30")})
	tt := f.timetable(t)
	tests := []struct {
		name  string
		patch ChangePatch
		want  DayChange
		keep  bool
	}{
		{"fields equal to the original are dropped", ChangePatch{Start: at("09:00"), RoomID: ptr(roomA)},
			DayChange{Ref: ref, End: at("10:30")}, true},
		{"back to the original deletes the change", ChangePatch{Start: at("09:00"), End: at("10:00")}, DayChange{Ref: ref}, false},
		{"a cover equal to the class's staff is no cover", ChangePatch{StaffIDs: []int64{mei}, Start: at("09:00"), End: at("10:00")}, DayChange{Ref: ref}, false},
		{"another class brings its staff", ChangePatch{ClassID: ptr(other), StaffIDs: []int64{ahmed}},
			DayChange{Ref: ref, Start: at("09:30"), End: at("10:30"), ClassID: other}, true},
		{"cancel keeps the rest", ChangePatch{Cancelled: ptr(true), Note: ptr("flu")},
			DayChange{Ref: ref, Cancelled: true, Start: at("09:30"), End: at("10:30"), Note: "flu"}, true},
		{"moving to the same date is no move", ChangePatch{Date: ptr(ref.Date), Start: at("09:00"), End: at("10:00")}, DayChange{Ref: ref}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, keep, err := tt.MergeChange(ref, tc.patch)
			if err != nil {
				t.Fatal(err)
			}
			if keep != tc.keep || describeChange(got) != describeChange(tc.want) {
				t.Errorf("got %s keep=%v, want %s keep=%v", describeChange(got), keep, describeChange(tc.want), tc.keep)
			}
		})
	}
	if _, _, err := tt.MergeChange(SessionRef{MustParse("2026-10-07"), ct, c}, ChangePatch{Cancelled: ptr(true)}); err == nil {
		t.Error("a change of a session that does not happen: got no error")
	}
}

func describeChange(c DayChange) string {
	s := c.Ref.Date.String()
	if c.Cancelled {
		s += " cancelled"
	}
	if c.Date != 0 {
		s += " date=" + c.Date.String()
	}
	if c.RoomID != 0 {
		s += " room=" + itoa(int(c.RoomID))
	}
	if c.Start != nil {
		s += " start=" + c.Start.String()
	}
	if c.End != nil {
		s += " end=" + c.End.String()
	}
	if c.ClassID != 0 {
		s += " class=" + itoa(int(c.ClassID))
	}
	if c.StaffIDs != nil {
		s += " staff"
	}
	if c.Note != "" {
		s += " note=" + c.Note
	}
	return s
}
