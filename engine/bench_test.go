package engine_test

import (
	"math/rand/v2"
	"testing"

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
