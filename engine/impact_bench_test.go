package engine_test

import (
	"testing"

	"github.com/koredyne/schedule/engine"
	"github.com/koredyne/schedule/engine/demo"
)

// impactBench is the write of models.BenchmarkImpactDryRun on the gym
// demo, in the engine alone: every class time of 20 places, a standing
// place on each of the first 20 sessions of a class time and class, and
// the next one's class time re-timed by a quarter of an hour and cut to
// 10 places, so that its impact runs without end.
func impactBench(b *testing.B) (before, after *engine.Timetable, today engine.Date) {
	b.Helper()
	today = engine.MustDate(2026, 12, 1)
	s := demo.Gym(today)
	for i := range s.ClassTimes {
		s.ClassTimes[i].Capacity = 20
	}
	s.Clients = append(s.Clients, engine.Client{ID: 9001, Name: "Standing bench"})
	seen := map[engine.Place]bool{}
	var ct int64
	for _, e := range s.Entries {
		p := engine.Place{ClassTime: e.ClassTimeID, Class: e.ClassID}
		if seen[p] {
			continue
		}
		seen[p] = true
		if len(seen) > 20 {
			ct = e.ClassTimeID
			break
		}
		s.Standing = append(s.Standing, engine.Standing{ID: int64(9000 + len(seen)), ClientID: 9001, ClassTimeID: e.ClassTimeID, ClassID: e.ClassID, From: today + 7})
	}
	tb, err := engine.New(s)
	if err != nil {
		b.Fatal(err)
	}
	w := s.Clone()
	for i := range w.ClassTimes {
		if c := &w.ClassTimes[i]; c.ID == ct {
			c.Start, c.End, c.Capacity = c.Start+15, c.End+15, 10
		}
	}
	ta, err := engine.New(w)
	if err != nil {
		b.Fatal(err)
	}
	return tb, ta, today
}

// BenchmarkImpactFirstSessions lists the first 500 sessions of the
// impact of models.BenchmarkImpactDryRun's write with the standing places
// on each, as the write does (ListAffected), and resolves each, as
// reading them does (At).
func BenchmarkImpactFirstSessions(b *testing.B) {
	before, after, today := impactBench(b)
	runs := engine.Impact(before, after, nil, today, 0)
	if _, finite := engine.CountAffected(runs); finite {
		b.Fatal("the re-time reaches every week")
	}
	for b.Loop() {
		l := engine.ListAffected(before, after, runs, 500)
		if l.Len() != 500 {
			b.Fatalf("%d sessions", l.Len())
		}
		l.Standing(func(i int, on []engine.Standing) {
			engine.SplitPlaces(on, int(l.At(i).Before.Capacity), 0)
		})
		for i := range l.Len() {
			if s := l.At(i); !s.Is {
				b.Fatal("the re-timed session is gone")
			}
		}
	}
}
