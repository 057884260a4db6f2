package engine_test

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/koredyne/schedule/engine"
	"github.com/koredyne/schedule/engine/demo"
)

var benchWeek = engine.MustDate(2026, 11, 29)

func gymTimetable(b *testing.B) *engine.Timetable {
	tt, err := engine.New(demo.Gym(benchWeek))
	if err != nil {
		b.Fatal(err)
	}
	return tt
}

// BenchmarkGymWeek resolves the 7 dates of a week of the gym demo.
func BenchmarkGymWeek(b *testing.B) {
	tt := gymTimetable(b)
	b.ResetTimer()
	n := 0
	for b.Loop() {
		for d := benchWeek; d < benchWeek+7; d++ {
			n += len(tt.Day(d))
		}
	}
	if n == 0 {
		b.Fatal("no sessions")
	}
}

// BenchmarkGymWeekDays resolves the same week in one call to Days, as the
// GraphQL days query does: the week's sessions in one allocation.
func BenchmarkGymWeekDays(b *testing.B) {
	tt := gymTimetable(b)
	n := 0
	for b.Loop() {
		for _, d := range tt.Days(benchWeek, benchWeek+7) {
			n += len(d.Sessions)
		}
	}
	if n == 0 {
		b.Fatal("no sessions")
	}
}

// BenchmarkGymYear resolves 365 dates of the gym demo.
func BenchmarkGymYear(b *testing.B) {
	tt := gymTimetable(b)
	b.ResetTimer()
	for b.Loop() {
		if days := tt.Days(benchWeek, benchWeek+365); len(days) != 365 {
			b.Fatal(len(days))
		}
	}
}

// BenchmarkGymClashProof runs the full proof for the gym demo.
func BenchmarkGymClashProof(b *testing.B) {
	tt := gymTimetable(b)
	b.ResetTimer()
	for b.Loop() {
		if r := tt.Clashes(benchWeek); len(r.Clashes) != 0 {
			b.Fatal(r.Clashes[0].Message)
		}
	}
}

// BenchmarkGymCompile builds the timetable of the gym demo from its state,
// which a server does once per revision.
func BenchmarkGymCompile(b *testing.B) {
	s := demo.Gym(benchWeek)
	for b.Loop() {
		if _, err := engine.New(s); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCoprimeClashProof runs the full proof where a scan would need
// 323,323 weeks to see every combination of rotation weeks.
func BenchmarkCoprimeClashProof(b *testing.B) {
	tt, err := engine.New(engine.CoprimeState(benchWeek))
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	n := 0
	for b.Loop() {
		r := tt.Clashes(benchWeek)
		n = len(r.Clashes)
	}
	b.ReportMetric(float64(n), "clashes")
}

// BenchmarkAvailabilityWeek asks when 2 lanes are free for 45 minutes in a
// week of a pool with two levels a day and 500 sessions and bookings, at
// second resolution.
func BenchmarkAvailabilityWeek(b *testing.B) {
	r := rand.New(rand.NewPCG(3, 4))
	const day = 24 * 3600
	var levels []engine.Level
	for d := int64(0); d < 7; d++ {
		levels = append(levels,
			engine.Level{From: d*day + 6*3600, To: d*day + 9*3600, Units: 6},
			engine.Level{From: d*day + 9*3600, To: d*day + 22*3600, Units: 4})
	}
	uses := make([]engine.Use, 500)
	for i := range uses {
		start := r.Int64N(7*day - 3600)
		uses[i] = engine.Use{From: start, To: start + 1800 + r.Int64N(5400), Units: 1 + r.IntN(2)}
	}
	b.ResetTimer()
	n := 0
	for b.Loop() {
		n += len(engine.Availability(levels, uses, 0, 7*day, 2, 45*60))
	}
	if n == 0 {
		b.Fatal("no windows")
	}
}

// BenchmarkRoomAvailabilityWeek is the whole question from a compiled
// timetable: a pool with a capacity profile (6 lanes early, 4 by day), 100
// weekly class times and 400 lane bookings in one week of the gym demo;
// when are 2 lanes free for 45 minutes that week? It includes expanding the
// sessions, the profile and the bookings into the sweep.
func BenchmarkRoomAvailabilityWeek(b *testing.B) {
	st := demo.Gym(benchWeek)
	const pool = 9000
	r := rand.New(rand.NewPCG(5, 6))
	all := []time.Weekday{time.Sunday, time.Monday, time.Tuesday, time.Wednesday, time.Thursday, time.Friday, time.Saturday}
	st.Rooms = append(st.Rooms, engine.Room{ID: pool, Name: "Pool"})
	st.Capacity = append(st.Capacity,
		engine.CapacityRule{ID: 1, RoomID: pool, Weekdays: all, Start: engine.MustTime("06:00"), End: engine.MustTime("09:00"), Units: 6},
		engine.CapacityRule{ID: 2, RoomID: pool, Weekdays: all, Start: engine.MustTime("09:00"), End: engine.MustTime("22:00"), Units: 4})
	st.Series = append(st.Series, engine.Series{ID: 9000, Name: "Swim school", Anchor: benchWeek.AddDays(-7 * 10), Cycle: 1})
	class := st.Classes[0].ID
	for i := range 100 {
		start := engine.LocalTime(6*60 + r.IntN(15*60))
		st.ClassTimes = append(st.ClassTimes, engine.ClassTime{ID: int64(9000 + i), RoomID: pool, Weekday: all[i%7],
			Start: start, End: start + 45, Units: 1})
		st.Entries = append(st.Entries, engine.Entry{ID: int64(9000 + i), SeriesID: 9000, ClassTimeID: int64(9000 + i), ClassID: class, Week: 1})
	}
	for i := range 400 {
		start := engine.LocalTime(6*60 + r.IntN(15*60))
		st.RoomBookings = append(st.RoomBookings, engine.RoomBooking{ID: int64(9000 + i), RoomID: pool,
			Date: benchWeek.AddDays(r.IntN(7)), Start: start, End: start + 30 + engine.LocalTime(r.IntN(60)), Units: 1})
	}
	tt, err := engine.New(st)
	if err != nil {
		b.Fatal(err)
	}
	loc := st.Business.Location
	from, to := benchWeek.At(0, loc), benchWeek.AddDays(7).At(0, loc)
	_, uses := tt.RoomUsage(pool, from, to, loc)
	inWeek := 0
	for _, u := range uses {
		if u.From < to.Unix() && u.To > from.Unix() {
			inWeek++
		}
	}
	if inWeek != 500 {
		b.Fatalf("%d uses in the week, want 500", inWeek)
	}
	n := 0
	for b.Loop() {
		n += len(tt.RoomAvailability(pool, from, to, loc, 2, 45*time.Minute))
	}
	if n == 0 {
		b.Fatal("no windows")
	}
}
