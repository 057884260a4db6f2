package demo

import (
	"time"

	"github.com/koredyne/schedule/engine"
)

// Clinic is Spreeufer Physio & Rehab in Berlin: two treatment rooms, a
// studio of eight mats and a six-lane pool, shared by group sessions that
// each take some of the mats or lanes. It has a two-week Back Care rotation
// (studio one week, pool the next), a six-week knee programme handing over
// to its second stage, two assessments, a cancellation and a cover. week is
// any day of the week to build around; weeks start on Monday.
func Clinic(week engine.Date) engine.State {
	week = week.WeekStart(time.Monday)

	const (
		room1 int64 = iota + 1
		room2
		studio
		pool
	)
	const (
		anna int64 = iota + 1
		lukas
		sophie
		jonas
		mira
		elif
	)
	const (
		physio int64 = iota + 1
		manual
		pilates
		backSchool
		hydro
		knee
		assessment
	)
	const (
		physioAnna int64 = iota + 1
		physioElif
		manualLukas
		pilatesSophie
		backSchoolSophie
		backSchoolElif
		hydroSophie
		hydroJonas
		kneeMira
		assessAnna
		assessMira
	)
	const (
		progPhysio int64 = iota + 1
		progManual
		progPilates
		progBackSchool
		progBackCare
		progHydro
		progKnee1
		progKnee2
	)

	t := tables{s: engine.State{
		Business: engine.Business{
			Kind: engine.Clinic, Name: "Spreeufer Physio & Rehab", Currency: "EUR",
			Location: zone("Europe/Berlin"), WeekStart: time.Monday,
		},
		Rooms: []engine.Room{
			{ID: room1, Name: "Treatment Room 1", Capacity: 1},
			{ID: room2, Name: "Treatment Room 2", Capacity: 1},
			{ID: studio, Name: "Studio", Capacity: 8}, // mats
			{ID: pool, Name: "Pool", Capacity: 6},     // lanes
		},
		Staff: []engine.Staff{
			{ID: anna, Name: "Anna Keller"},
			{ID: lukas, Name: "Lukas Brandt"},
			{ID: sophie, Name: "Sophie Wagner"},
			{ID: jonas, Name: "Jonas Richter"},
			{ID: mira, Name: "Mira Hoffmann"},
			{ID: elif, Name: "Elif Yılmaz"},
		},
		Activities: []engine.Activity{
			{ID: physio, Name: "Physiotherapy", Color: "#0077b6"},
			{ID: manual, Name: "Manual Therapy", Color: "#00b4d8"},
			{ID: pilates, Name: "Rehab Pilates", Color: "#b5838d"},
			{ID: backSchool, Name: "Back School", Color: "#e5989b"},
			{ID: hydro, Name: "Hydrotherapy", Color: "#48cae4"},
			{ID: knee, Name: "Knee Rehab", Color: "#588157"},
			{ID: assessment, Name: "Assessment", Color: "#6c757d"},
		},
		Classes: []engine.Class{
			{ID: physioAnna, ActivityID: physio, StaffIDs: staff(anna)},
			{ID: physioElif, ActivityID: physio, StaffIDs: staff(elif)},
			{ID: manualLukas, ActivityID: manual, StaffIDs: staff(lukas)},
			{ID: pilatesSophie, ActivityID: pilates, StaffIDs: staff(sophie)},
			{ID: backSchoolSophie, ActivityID: backSchool, StaffIDs: staff(sophie)},
			{ID: backSchoolElif, ActivityID: backSchool, StaffIDs: staff(elif)},
			{ID: hydroSophie, ActivityID: hydro, StaffIDs: staff(sophie)},
			{ID: hydroJonas, ActivityID: hydro, StaffIDs: staff(jonas)},
			{ID: kneeMira, ActivityID: knee, StaffIDs: staff(mira)},
			{ID: assessAnna, ActivityID: assessment, StaffIDs: staff(anna)},
			{ID: assessMira, ActivityID: assessment, StaffIDs: staff(mira)},
		},
	}}

	// Back Care alternates studio and pool; this week is its week 2. The
	// knee programme's first stage runs six weeks and ends the week after
	// next, where stage 2 takes over in the pool.
	handOver := week.AddDays(2 * 7)
	t.s.Series = []engine.Series{
		{ID: progPhysio, Name: "Physiotherapy", Anchor: week.AddDays(-8 * 7), Cycle: 1},
		{ID: progManual, Name: "Manual Therapy", Anchor: week.AddDays(-8 * 7), Cycle: 1},
		{ID: progPilates, Name: "Rehab Pilates", Anchor: week.AddDays(-10 * 7), Cycle: 1},
		{ID: progBackSchool, Name: "Back School", Anchor: week.AddDays(-6 * 7), Cycle: 1},
		{ID: progBackCare, Name: "Back Care", Anchor: week.AddDays(-3 * 7), Cycle: 2},
		{ID: progHydro, Name: "Hydrotherapy", Anchor: week.AddDays(-10 * 7), Cycle: 1},
		{ID: progKnee1, Name: "Knee Rehab — Stage 1", Anchor: handOver.AddDays(-6 * 7), End: handOver, Cycle: 1},
		{ID: progKnee2, Name: "Knee Rehab — Stage 2", Anchor: handOver, Cycle: 1},
	}
	plans := []struct {
		series           int64
		perMonth, months int
		eur              int64
	}{
		{progPhysio, 8, 1, 320},
		{progPhysio, 8, 3, 900},
		{progManual, 4, 2, 400},
		{progPilates, 8, 3, 270},
		{progPilates, 0, 6, 690},
		{progBackSchool, 4, 3, 150},
		{progBackCare, 0, 3, 240},
		{progHydro, 8, 3, 300},
		{progHydro, 0, 6, 780},
		{progKnee1, 0, 2, 420},
		{progKnee2, 8, 3, 450},
	}
	for _, p := range plans {
		t.plan(p.series, p.perMonth, p.months, price(p.eur))
	}

	// The weekly grid. Treatment rooms take one patient for 50 minutes and
	// 10 to turn the room round. Group sessions take some of the studio's
	// mats or the pool's lanes (units; 0 = the whole room); where two run at
	// once they fit together: Wednesday 18:00 fills the studio's 8 mats
	// (5 + 3), Tuesday 17:00 in a pool week fills its 6 lanes (3 + 3).
	grid := []struct {
		room       int64
		days       string
		start, end string
		label      string
		units      int
		places     int
		class      int64
		series     int64
		week       int
	}{
		{room1, "Mon Wed Fri", "08:00", "08:50", "Appointment", 0, 1, physioAnna, progPhysio, 1},
		{room1, "Mon Wed Fri", "09:00", "09:50", "Appointment", 0, 1, physioAnna, progPhysio, 1},
		{room1, "Mon Wed Fri", "10:00", "10:50", "Appointment", 0, 1, physioAnna, progPhysio, 1},
		{room1, "Tue Thu", "14:00", "14:50", "Appointment", 0, 1, physioElif, progPhysio, 1},
		{room1, "Tue Thu", "15:00", "15:50", "Appointment", 0, 1, physioElif, progPhysio, 1},
		{room2, "Tue Thu", "08:00", "08:50", "Appointment", 0, 1, manualLukas, progManual, 1},
		{room2, "Tue Thu", "09:00", "09:50", "Appointment", 0, 1, manualLukas, progManual, 1},
		{room2, "Tue Thu", "10:00", "10:50", "Appointment", 0, 1, manualLukas, progManual, 1},
		{room2, "Mon Wed", "15:00", "15:50", "Appointment", 0, 1, manualLukas, progManual, 1},
		{room2, "Mon Wed", "16:00", "16:50", "Appointment", 0, 1, manualLukas, progManual, 1},

		{studio, "Mon Wed", "18:00", "19:00", "Evening class", 5, 5, pilatesSophie, progPilates, 1},
		{studio, "Wed", "18:00", "19:00", "Evening class", 3, 3, backSchoolElif, progBackSchool, 1},
		{studio, "Mon Thu", "10:00", "11:00", "Stage 1: strength", 4, 4, kneeMira, progKnee1, 1},
		{studio, "Tue", "17:00", "18:00", "Back Care: mat work", 6, 6, backSchoolSophie, progBackCare, 1},

		{pool, "Tue Thu", "07:30", "08:30", "Early aqua", 0, 12, hydroJonas, progHydro, 1},
		{pool, "Tue Thu", "17:00", "18:00", "Hydrotherapy", 3, 6, hydroJonas, progHydro, 1},
		{pool, "Tue", "17:00", "18:00", "Back Care: water work", 3, 6, hydroSophie, progBackCare, 2},
		{pool, "Mon Wed Fri", "11:00", "12:00", "Hydrotherapy", 3, 6, hydroJonas, progHydro, 1},
		{pool, "Mon Thu", "10:00", "11:00", "Stage 2: water loading", 2, 4, kneeMira, progKnee2, 1},
	}
	buffer := map[int64]int{room1: 10, room2: 10, studio: 10}
	for _, g := range grid {
		kind := "Group"
		if g.room == room1 || g.room == room2 {
			kind = "1:1"
		}
		for _, wd := range on(g.days) {
			ct := t.classTime(engine.ClassTime{
				RoomID: g.room, Weekday: wd, Start: hm(g.start), End: hm(g.end), Label: g.label,
				Capacity: g.places, Type: kind, Buffer: buffer[g.room], Units: g.units,
			})
			t.entry(g.series, ct, g.class, g.week)
		}
	}

	patients := []struct {
		name, phone string
		series      int64
		plan        string
		start       int // days from the start of this week
	}{
		{"Katrin Schulz", "+49 151 2034 5512", progKnee1, "unlimited · 2 months", -28},
		{"Felix Braun", "+49 160 9921 3304", progKnee1, "unlimited · 2 months", -28},
		{"Hannah Vogel", "+49 171 4410 2287", progPilates, "8 a month · 3 months", -30},
		{"Matthias Klein", "+49 152 6603 1948", progPhysio, "8 a month · 1 month", -6},
		{"Ingrid Lange", "+49 30 8812 4470", progHydro, "unlimited · 6 months", -60},
		{"Paul Zimmermann", "+49 176 3307 8815", progBackCare, "unlimited · 3 months", -21},
		{"Leonie Fischer", "+49 157 2290 6631", progBackSchool, "4 a month · 3 months", -14},
		{"Stefan Weber", "+49 162 7718 0045", progManual, "4 a month · 2 months", -10},
		{"Aylin Demir", "+49 178 5521 9907", progPilates, "unlimited · 6 months", -45},
		{"Jan Kowalski", "+49 159 0043 7762", progPhysio, "8 a month · 3 months", -20},
		{"Moritz Hahn", "+49 173 6650 1129", progPhysio, "8 a month · 1 month", 3},
	}
	ids := map[string]int64{}
	for _, p := range patients {
		id := t.client(p.name, email(p.name, "example.de"), p.phone)
		ids[p.name] = id
		t.subscribe(id, p.series, p.plan, week.AddDays(p.start), 0)
	}
	// Both knee patients carry on into stage 2 on the day it starts.
	t.subscribe(ids["Katrin Schulz"], progKnee2, "8 a month · 3 months", handOver, 0)
	t.subscribe(ids["Felix Braun"], progKnee2, "8 a month · 3 months", handOver, 0)

	// Moritz is assessed before his first appointment; Felix has his stage 1
	// exit assessment next week. Both rooms and practitioners are free then.
	t.oneOff(engine.OneOff{
		ClassID: assessAnna, RoomID: room1, Date: dayOf(week, time.Thursday),
		Start: hm("12:00"), End: hm("13:00"), Label: "Initial assessment", Capacity: 1, Buffer: 10,
		ClientIDs: []int64{ids["Moritz Hahn"]},
	})
	t.oneOff(engine.OneOff{
		ClassID: assessMira, RoomID: room2, Date: dayOf(week.AddDays(7), time.Wednesday),
		Start: hm("12:00"), End: hm("13:00"), Label: "Stage 1 exit assessment", Capacity: 1, Buffer: 10,
		ClientIDs: []int64{ids["Felix Braun"]},
	})

	t.s.Changes = []engine.DayChange{
		{
			// Elif is free on Monday evenings.
			Ref: engine.SessionRef{
				Date:        dayOf(week, time.Monday),
				ClassTimeID: t.classTimeAt(studio, time.Monday, "18:00"),
				ClassID:     pilatesSophie,
			},
			StaffIDs: staff(elif),
			Note:     "Sophie is on a course; Elif covers",
		},
		{
			Ref: engine.SessionRef{
				Date:        dayOf(week.AddDays(7), time.Thursday),
				ClassTimeID: t.classTimeAt(pool, time.Thursday, "17:00"),
				ClassID:     hydroJonas,
			},
			Cancelled: true,
			Note:      "Pool closed for its monthly water test",
		},
	}
	return t.s
}
