package demo

import (
	"time"

	"github.com/koredyne/schedule/engine"
)

// Office is Meridian Business Centre in Brooklyn: four rooms hired by the
// meeting. A tenant team holds a daily standup and a two-week sprint cycle,
// the board meets every fourth week with two hosts, a training course hands
// over to its follow-up next week, and client companies book one-off
// meetings. week is any day of the week to build around; weeks start on
// Monday.
func Office(week engine.Date) engine.State {
	week = week.WeekStart(time.Monday)

	const (
		boardroom int64 = iota + 1
		roomA
		roomB
		training
	)
	const (
		mei int64 = iota + 1
		laura
		ahmed
		daniel
		sofia
		tom
	)
	const (
		standup int64 = iota + 1
		planning
		review
		retro
		board
		course
		clientMeeting
		interview
	)
	const (
		standupMei int64 = iota + 1
		planningMei
		reviewMei
		retroDaniel
		boardPair
		courseTom
		clientDaniel
		clientLaura
		interviewSofia
	)
	const (
		serStandup int64 = iota + 1
		serSprint
		serBoard
		serSpreadsheets
		serDashboards
		serCheckIn
	)
	t := tables{s: engine.State{
		Business: engine.Business{
			Kind: engine.Office, Name: "Meridian Business Centre", Currency: "USD",
			Location: zone("America/New_York"), WeekStart: time.Monday,
		},
		Rooms: []engine.Room{
			{ID: boardroom, Name: "Boardroom"},
			{ID: roomA, Name: "Room A"},
			{ID: roomB, Name: "Room B"},
			{ID: training, Name: "Training Room"},
		},
		Staff: []engine.Staff{
			{ID: mei, Name: "Mei Chen"},
			{ID: laura, Name: "Laura Becker"},
			{ID: ahmed, Name: "Ahmed Rahim"},
			{ID: daniel, Name: "Daniel Okafor"},
			{ID: sofia, Name: "Sofia Marquez"},
			{ID: tom, Name: "Tom Novak"},
		},
		Activities: []engine.Activity{
			{ID: standup, Name: "Standup", Color: "#4361ee"},
			{ID: planning, Name: "Sprint Planning", Color: "#3a0ca3"},
			{ID: review, Name: "Sprint Review", Color: "#7209b7"},
			{ID: retro, Name: "Retrospective", Color: "#b5179e"},
			{ID: board, Name: "Board Meeting", Color: "#212529"},
			{ID: course, Name: "Training Course", Color: "#2d6a4f"},
			{ID: clientMeeting, Name: "Client Meeting", Color: "#f4a261"},
			{ID: interview, Name: "Interview", Color: "#e9c46a"},
		},
		Classes: []engine.Class{
			{ID: standupMei, ActivityID: standup, StaffIDs: staff(mei)},
			{ID: planningMei, ActivityID: planning, StaffIDs: staff(mei)},
			{ID: reviewMei, ActivityID: review, StaffIDs: staff(mei)},
			{ID: retroDaniel, ActivityID: retro, StaffIDs: staff(daniel)},
			{ID: boardPair, ActivityID: board, StaffIDs: staff(laura, ahmed)},
			{ID: courseTom, ActivityID: course, StaffIDs: staff(tom)},
			{ID: clientDaniel, ActivityID: clientMeeting, StaffIDs: staff(daniel)},
			{ID: clientLaura, ActivityID: clientMeeting, StaffIDs: staff(laura)},
			{ID: interviewSofia, ActivityID: interview, StaffIDs: staff(sofia)},
		},
	}}

	// This week is week 1 of the sprint and of the board's four-week cycle.
	// Data Skills 1 finishes this week; Data Skills 2 takes its slot for six
	// weeks from next week.
	handOver := week.AddDays(7)
	t.s.Series = []engine.Series{
		{ID: serStandup, Name: "Daily standup", Anchor: week.AddDays(-12 * 7), Cycle: 1},
		{ID: serSprint, Name: "Sprint cycle", Anchor: week.AddDays(-2 * 7), Cycle: 2},
		{ID: serBoard, Name: "Board meeting", Anchor: week.AddDays(-4 * 7), Cycle: 4},
		{ID: serSpreadsheets, Name: "Data Skills 1: Spreadsheets", Anchor: handOver.AddDays(-6 * 7), End: handOver, Cycle: 1},
		{ID: serDashboards, Name: "Data Skills 2: Dashboards", Anchor: handOver, End: handOver.AddDays(6 * 7), Cycle: 1},
		{ID: serCheckIn, Name: "Bluefin Legal check-in", Anchor: week.AddDays(-6 * 7), Cycle: 1},
	}
	plans := []struct {
		series           int64
		perMonth, months int
		usd              int64
	}{
		{serStandup, 0, 12, 4800},
		{serSprint, 0, 12, 3600},
		{serSpreadsheets, 0, 2, 1200},
		{serDashboards, 0, 2, 1400},
		{serCheckIn, 4, 6, 1500},
	}
	for _, p := range plans {
		t.plan(p.series, p.perMonth, p.months, price(p.usd))
	}

	// The weekly grid. The Boardroom and Training Room are reset for 15
	// minutes after each booking. The two Data Skills courses share a slot
	// but never a week.
	grid := []struct {
		room       int64
		days       string
		start, end string
		label      string
		class      int64
		series     int64
		week       int
	}{
		{roomA, "Mon Tue Wed Thu Fri", "09:00", "09:15", "Daily standup", standupMei, serStandup, 1},
		{roomA, "Mon", "10:00", "12:00", "Sprint planning", planningMei, serSprint, 1},
		{roomA, "Fri", "14:00", "15:00", "Sprint review", reviewMei, serSprint, 2},
		{roomA, "Fri", "15:00", "16:00", "Retro", retroDaniel, serSprint, 2},
		{boardroom, "Tue", "10:00", "12:00", "Board meeting", boardPair, serBoard, 1},
		{training, "Tue Thu", "13:00", "15:00", "Spreadsheets", courseTom, serSpreadsheets, 1},
		{training, "Tue Thu", "13:00", "15:00", "Dashboards", courseTom, serDashboards, 1},
		{roomB, "Thu", "11:00", "12:00", "Weekly check-in", clientDaniel, serCheckIn, 1},
	}
	places := map[int64]int{boardroom: 14, roomA: 8, roomB: 6, training: 20}
	buffer := map[int64]int{boardroom: 15, training: 15}
	for _, g := range grid {
		for _, wd := range on(g.days) {
			ct := t.classTime(engine.ClassTime{
				RoomID: g.room, Weekday: wd, Start: hm(g.start), End: hm(g.end), Label: g.label,
				Capacity: places[g.room], Type: "Meeting", Buffer: buffer[g.room],
			})
			t.entry(g.series, ct, g.class, g.week)
		}
	}

	bluefin := t.client("Bluefin Legal", "office@bluefin-legal.example", "+1 212 555 0143")
	orbit := t.client("Orbit Analytics", "team@orbit-analytics.example", "+1 718 555 0178")
	cedar := t.client("Cedar & Pine Architects", "studio@cedarpine.example", "+1 646 555 0112")
	northwind := t.client("Northwind Traders", "training@northwind.example", "+1 917 555 0190")
	t.subscribe(orbit, serStandup, "unlimited · 12 months", week.AddDays(-12*7), 0)
	t.subscribe(orbit, serSprint, "unlimited · 12 months", week.AddDays(-2*7), 0)
	t.subscribe(northwind, serSpreadsheets, "unlimited · 2 months", handOver.AddDays(-6*7), 0)
	t.subscribe(northwind, serDashboards, "unlimited · 2 months", handOver, 0)
	t.subscribe(bluefin, serCheckIn, "4 a month · 6 months", week.AddDays(-6*7), 0)
	t.subscribe(cedar, serBoard, "", week.AddDays(-4*7), 0)

	// One-off bookings, each in a room and with a host free at the time.
	t.oneOff(engine.OneOff{
		ClassID: clientDaniel, RoomID: boardroom, Date: dayOf(week, time.Wednesday),
		Start: hm("10:00"), End: hm("11:30"), Label: "Contract signing", Capacity: 10, Buffer: 15,
		ClientIDs: []int64{bluefin},
	})
	t.oneOff(engine.OneOff{
		ClassID: interviewSofia, RoomID: roomB, Date: dayOf(week, time.Thursday),
		Start: hm("14:00"), End: hm("16:00"), Label: "Interviews: data engineer", Capacity: 4,
		ClientIDs: []int64{orbit},
	})
	t.oneOff(engine.OneOff{
		ClassID: clientLaura, RoomID: boardroom, Date: dayOf(handOver, time.Monday),
		Start: hm("13:00"), End: hm("14:00"), Label: "Design review", Capacity: 8, Buffer: 15,
		ClientIDs: []int64{cedar},
	})

	t.s.Changes = []engine.DayChange{
		{
			// Room B is empty on Wednesday mornings.
			Ref: engine.SessionRef{
				Date:        dayOf(week, time.Wednesday),
				ClassTimeID: t.classTimeAt(roomA, time.Wednesday, "09:00"),
				ClassID:     standupMei,
			},
			RoomID: roomB,
			Note:   "Room A is being repainted",
		},
		{
			Ref: engine.SessionRef{
				Date:        dayOf(handOver, time.Friday),
				ClassTimeID: t.classTimeAt(roomA, time.Friday, "15:00"),
				ClassID:     retroDaniel,
			},
			Cancelled: true,
			Note:      "Retro folded into the quarterly offsite",
		},
	}
	return t.s
}
