package engine_test

import (
	"fmt"
	"time"

	"github.com/koredyne/schedule/engine"
)

// A business centre with a standup every Tuesday and a 2-week rotation that
// puts the same host in another room at the same time in its first week.
func exampleState() engine.State {
	d := engine.MustDate
	t := engine.MustTime
	return engine.State{
		Business:   engine.Business{Kind: engine.Office, Name: "Meridian", Currency: "USD", Location: time.UTC, WeekStart: time.Monday},
		Rooms:      []engine.Room{{ID: 1, Name: "Room A"}, {ID: 2, Name: "Room B"}},
		Staff:      []engine.Staff{{ID: 1, Name: "Mei Chen"}},
		Activities: []engine.Activity{{ID: 1, Name: "Standup"}, {ID: 2, Name: "Interview"}},
		Classes:    []engine.Class{{ID: 1, ActivityID: 1, StaffIDs: []int64{1}}, {ID: 2, ActivityID: 2, StaffIDs: []int64{1}}},
		ClassTimes: []engine.ClassTime{
			{ID: 1, RoomID: 1, Weekday: time.Tuesday, Start: t("09:00"), End: t("09:15")},
			{ID: 2, RoomID: 2, Weekday: time.Tuesday, Start: t("09:00"), End: t("12:00")},
		},
		Series: []engine.Series{
			{ID: 1, Name: "Acme — Daily standup", Anchor: d(2026, 10, 5), Cycle: 1},
			{ID: 2, Name: "Orbit Analytics — Hiring", Anchor: d(2026, 10, 5), Cycle: 2},
		},
		Entries: []engine.Entry{
			{ID: 1, SeriesID: 1, ClassTimeID: 1, ClassID: 1, Week: 1},
			{ID: 2, SeriesID: 2, ClassTimeID: 2, ClassID: 2, Week: 1},
		},
	}
}

func ExampleTimetable_Day() {
	tt, err := engine.New(exampleState())
	if err != nil {
		panic(err)
	}
	for _, s := range tt.Day(engine.MustDate(2026, 10, 13)) {
		fmt.Println(s.Start, s.End, s.Series)
	}
	// Output:
	// 09:00 09:15 [{1 1 1}]
}

func ExampleTimetable_Clashes() {
	tt, err := engine.New(exampleState())
	if err != nil {
		panic(err)
	}
	r := tt.Clashes(engine.MustDate(2026, 10, 5))
	for _, c := range r.Clashes {
		fmt.Println(c.Message)
		fmt.Println("every", c.Every, "weeks; proven for every date:", r.ProvenUntil.IsZero())
	}
	// Output:
	// Host Mei Chen double-booked: Standup (Room A, 9 AM – 9:15 AM, Acme — Daily standup) & Interview (Room B, 9 AM – 12 PM, Orbit Analytics — Hiring W1), first 6 Oct
	// every 2 weeks; proven for every date: true
}

func ExampleNewClashes() {
	today := engine.MustDate(2026, 10, 5)
	s := exampleState()
	before, _ := engine.Clashes(s, today)
	// Saving the same rotation again under new ids adds nothing new.
	s.Entries[1].ID = 99
	again, _ := engine.Clashes(s, today)
	fmt.Println(len(engine.NewClashes(before, again)))
	// Putting the interview in week 2 as well does.
	s.Entries = append(s.Entries, engine.Entry{ID: 100, SeriesID: 2, ClassTimeID: 2, ClassID: 2, Week: 2})
	after, _ := engine.Clashes(s, today)
	fmt.Println(len(engine.NewClashes(before, after)))
	// Output:
	// 0
	// 1
}

func ExampleParseDate() {
	d, err := engine.ParseDate("2026-10-06")
	fmt.Println(d, d.Weekday(), d.WeekStart(time.Sunday), err)
	_, err = engine.ParseDate("2026-02-30")
	fmt.Println(err)
	// Output:
	// 2026-10-06 Tuesday 2026-10-04 <nil>
	// "2026-02-30" is not a real date
}

func ExampleDate_At() {
	berlin, _ := time.LoadLocation("Europe/Berlin")
	// 02:30 does not exist on the spring-forward day; RFC 5545 reads it with
	// the offset before the gap.
	fmt.Println(engine.MustDate(2026, 3, 29).At(engine.MustTime("02:30"), berlin))
	// Output:
	// 2026-03-29 03:30:00 +0200 CEST
}

func ExamplePlan_Label() {
	p := engine.Plan{PerMonth: 12, Months: 3, Price: 180000}
	fmt.Println(p.Label(engine.Words(engine.Clinic), "KD"))
	// Output:
	// 12 sessions a month · 3 months · 180 KD
}

func ExampleExpiry() {
	fmt.Println(engine.Expiry(engine.MustDate(2026, 1, 31), 1))
	// Output:
	// 2026-02-27
}

// Describing a class with its staff in another order names the same class,
// whose main staff member stays first.
func ExampleState_ClassWith() {
	s := engine.State{
		Staff:      []engine.Staff{{ID: 1, Name: "Marco Reyes"}, {ID: 2, Name: "Sami Al-Otaibi"}},
		Activities: []engine.Activity{{ID: 1, Name: "Boxing"}},
		Classes:    []engine.Class{{ID: 3, ActivityID: 1, StaffIDs: []int64{1, 2}}},
	}
	c, ok := s.ClassWith(1, []int64{2, 1})
	fmt.Println(c.ID, c.StaffIDs, ok)
	_, ok = s.ClassWith(1, []int64{2})
	fmt.Println(ok)
	// Output:
	// 3 [1 2] true
	// false
}

// Imports know classes by name: the key ignores the order of the staff and
// the case of every name.
func ExampleClassKey() {
	a := engine.ClassKey("Boxing", []string{"Marco Reyes", "Sami Al-Otaibi"})
	b := engine.ClassKey("boxing", []string{"sami al-otaibi", "MARCO REYES"})
	fmt.Println(a == b)
	// Output: true
}

// Dropping the hiring interviews from next week splits their series: a new
// series keeps the weeks before, and the series goes on without them. An
// edit that would change a day of this week that has passed is refused.
func ExampleState_EditSeries() {
	s := exampleState()
	next := int64(100)
	newID := func() int64 { next++; return next }
	today := engine.MustDate(2026, 10, 21) // a Wednesday
	kept, lost, err := s.EditSeries(2, engine.SeriesEdit{From: engine.MustDate(2026, 10, 26), Entries: true, Carry: true}, today, newID, func(week func(int) int) error {
		var entries []engine.Entry
		for _, e := range s.Entries {
			if e.SeriesID != 2 {
				entries = append(entries, e)
			}
		}
		s.Entries = entries
		return nil
	})
	fmt.Println(kept, lost, err)
	_, _, err = s.EditSeries(1, engine.SeriesEdit{Entries: true}, today, newID, func(func(int) int) error {
		s.Entries = s.Entries[:0]
		return nil
	})
	fmt.Println(err)
	for _, sr := range s.Series {
		fmt.Println(sr.ID, "from", sr.Anchor, "open ended:", sr.End == 0)
	}
	// Output:
	// 101 [] <nil>
	// Series "Acme — Daily standup": the edit would change 2026-10-20, which has already happened; it can apply from 2026-10-26 on
	// 1 from 2026-10-05 open ended: true
	// 2 from 2026-10-26 open ended: true
	// 101 from 2026-10-05 open ended: false
}

// A two-week programme paused by a week's closure for Eid: the paused week
// does not advance the rotation, so the weeks after it are two legs of
// plain arithmetic, the second one week late.
func ExampleRotation() {
	const ws = time.Monday
	d := engine.MustDate
	programme := engine.Series{Anchor: d(2026, 10, 5), Cycle: 2}
	eid := engine.Closure{From: d(2026, 10, 19), To: d(2026, 10, 25), Reason: "Eid", Pause: true}
	r := engine.RotationOf(&programme, []*engine.Closure{&eid}, map[int64]bool{1: true}, ws)
	for w := engine.WeekOf(d(2026, 10, 5), ws); w < engine.WeekOf(d(2026, 11, 9), ws); w++ {
		fmt.Printf("week of %s: week %d\n", engine.WeekStartDay(w, ws), r.Position(w))
	}
	for _, l := range r.Legs() {
		to := "no end"
		if l.To != engine.NoEnd {
			to = "before " + engine.WeekStartDay(l.To, ws).String()
		}
		first := l.From + ((r.Residue(l, 1)-l.From)%2+2)%2
		fmt.Printf("from %s, %s, %d week skipped: week 1 from %s\n", engine.WeekStartDay(l.From, ws), to, l.Skipped, engine.WeekStartDay(first, ws))
	}
	// Output:
	// week of 2026-10-05: week 1
	// week of 2026-10-12: week 2
	// week of 2026-10-19: week 1
	// week of 2026-10-26: week 1
	// week of 2026-11-02: week 2
	// from 2026-10-05, before 2026-10-19, 0 week skipped: week 1 from 2026-10-05
	// from 2026-10-26, no end, 1 week skipped: week 1 from 2026-10-26
}
