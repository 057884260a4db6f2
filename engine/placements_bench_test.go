package engine_test

import (
	"fmt"
	"testing"

	"github.com/koredyne/schedule/engine"
	"github.com/koredyne/schedule/engine/demo"
)

// benchPlacements asks where an hour of the busiest staff member's first
// class could go: every room and weekday, 06:00–22:00 every 15 minutes,
// in a rotation of cycle weeks. The metrics say how many (room, weekday,
// start, week) it answered for and how many are placements.
func benchPlacements(b *testing.B, s engine.State, cycle int) {
	tt, err := engine.New(s)
	if err != nil {
		b.Fatal(err)
	}
	who, _ := busiest(tt)
	var class int64
	for _, c := range s.Classes {
		if len(c.StaffIDs) > 0 && c.StaffIDs[0] == who {
			class = c.ID
			break
		}
	}
	q := engine.PlacementRequest{ClassID: class, Minutes: 60, Cycle: cycle}
	var ps []engine.Placement
	for b.Loop() {
		if ps, err = tt.Placements(benchWeek, q, nil); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(s.Rooms)*7*61*cycle), "points")
	b.ReportMetric(float64(len(ps)), "placements")
}

// BenchmarkGymPlacements answers placements for one class of the gym demo
// in rotations of 1, 2 and 4 weeks.
func BenchmarkGymPlacements(b *testing.B) {
	for _, cycle := range []int{1, 2, 4} {
		b.Run(fmt.Sprintf("cycle-%d", cycle), func(b *testing.B) { benchPlacements(b, demo.Gym(benchWeek), cycle) })
	}
}

// BenchmarkScalePlacements answers placements for one class, in a
// rotation of 2 weeks, in synthetic businesses of 100 to 10,000 class
// times.
func BenchmarkScalePlacements(b *testing.B) {
	for _, n := range scaleSizes {
		b.Run(fmt.Sprint(n), func(b *testing.B) { benchPlacements(b, scaled(b, n), 2) })
	}
}
