package engine_test

import (
	"fmt"
	"testing"

	"github.com/koredyne/schedule/engine"
	"github.com/koredyne/schedule/engine/demo"
)

// busiest returns the staff member of s with the most sessions in the week
// of benchWeek, and how many.
func busiest(tt *engine.Timetable) (int64, int) {
	n := map[int64]int{}
	for _, d := range tt.Days(benchWeek, benchWeek+7) {
		for _, s := range d.Sessions {
			for _, p := range s.StaffIDs {
				n[p]++
			}
		}
	}
	var who int64
	for p, c := range n {
		if c > n[who] || c == n[who] && p < who {
			who = p
		}
	}
	return who, n[who]
}

// BenchmarkGymCoverOptions answers coverOptions for one session of the gym
// demo whose coach is away: every other coach an option or excluded.
func BenchmarkGymCoverOptions(b *testing.B) {
	s := demo.Gym(benchWeek)
	tt, err := engine.New(s)
	if err != nil {
		b.Fatal(err)
	}
	who, _ := busiest(tt)
	s.TimeOffs = []engine.TimeOff{{ID: 1, StaffID: who, From: benchWeek, To: benchWeek + 6}}
	if tt, err = engine.New(s); err != nil {
		b.Fatal(err)
	}
	var session engine.Session
	for _, d := range tt.Days(benchWeek, benchWeek+7) {
		for _, x := range d.Sessions {
			if len(tt.NeedsCover(&x)) > 0 && session.ClassID == 0 {
				session = x
			}
		}
	}
	n := 0
	for b.Loop() {
		o, e := tt.CoverOptions(&session)
		n = len(o) + len(e)
	}
	b.ReportMetric(float64(n), "staff")
}

// BenchmarkGymCoverPlan plans the cover of a 4-week absence of the gym's
// busiest coach (the metric says how many sessions a week they give).
func BenchmarkGymCoverPlan(b *testing.B) {
	s := demo.Gym(benchWeek)
	tt, err := engine.New(s)
	if err != nil {
		b.Fatal(err)
	}
	who, weekly := busiest(tt)
	s.TimeOffs = []engine.TimeOff{{ID: 1, StaffID: who, From: benchWeek + 7, To: benchWeek + 34}}
	if tt, err = engine.New(s); err != nil {
		b.Fatal(err)
	}
	var plan []engine.CoverAssignment
	for b.Loop() {
		plan, _ = tt.CoverPlan(1, benchWeek, engine.MaxDate)
	}
	if len(plan) == 0 {
		b.Fatal("the plan covers nothing")
	}
	b.ReportMetric(float64(weekly), "sessions/week")
	b.ReportMetric(float64(len(plan)), "assignments")
}

// BenchmarkScaleUncovered proves which sessions a time off of one staff
// member leaves uncovered in synthetic businesses of 100 to 10,000 class
// times: the work a time off adds to a guarded write.
func BenchmarkScaleUncovered(b *testing.B) {
	for _, n := range scaleSizes {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			s := scaled(b, n)
			tt, err := engine.New(s)
			if err != nil {
				b.Fatal(err)
			}
			who, _ := busiest(tt)
			s.TimeOffs = []engine.TimeOff{{ID: 1, StaffID: who, From: benchWeek + 7, To: benchWeek + 34}}
			if tt, err = engine.New(s); err != nil {
				b.Fatal(err)
			}
			found := 0
			for b.Loop() {
				found = len(tt.Uncovered(benchWeek))
			}
			if found == 0 {
				b.Fatal("nothing uncovered")
			}
		})
	}
}
