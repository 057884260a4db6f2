package engine_test

import (
	"testing"
	"time"

	"github.com/koredyne/schedule/engine"
	"github.com/koredyne/schedule/engine/demo"
)

// longGym is the gym demo with a capacity override and a pausing closure
// that run to the last date a timetable holds.
func longGym(t testing.TB) engine.State {
	s := demo.Gym(benchWeek)
	room := s.Rooms[0]
	s.Capacity = append(s.Capacity, engine.CapacityRule{ID: 9000, RoomID: room.ID, Weekdays: []time.Weekday{0, 1, 2, 3, 4, 5, 6},
		Start: 0, End: engine.EndOfDay, Units: room.Units()})
	s.Capacity = append(s.Capacity, engine.CapacityRule{ID: 9001, RoomID: room.ID, From: benchWeek + 400, To: engine.MaxDate,
		Start: 0, End: engine.EndOfDay, Units: room.Units()})
	s.Closures = append(s.Closures, engine.Closure{ID: 9001, From: benchWeek + 800, To: engine.MaxDate, Reason: "closed for good", Pause: true})
	return s
}

// TestLongGymIsQuick compiles and proves the gym demo with an override and
// a pausing closure to the end of the window: what a write does twice.
// When the proof resolved every date of an override one by one, this took
// about 0.6 s to 2199 (and the 48 s of issue 12 to 9999); now milliseconds.
func TestLongGymIsQuick(t *testing.T) {
	start := time.Now()
	tt, err := engine.New(longGym(t))
	if err != nil {
		t.Fatal(err)
	}
	if r := tt.Clashes(benchWeek); len(r.Clashes) != 0 {
		t.Fatalf("%d clashes: %s", len(r.Clashes), r.Clashes[0].Message)
	}
	if took := time.Since(start); took > time.Second {
		t.Errorf("compile and proof took %v", took)
	}
}

// BenchmarkLongGymClashProof is BenchmarkGymClashProof with the override
// and closure of TestLongGymIsQuick.
func BenchmarkLongGymClashProof(b *testing.B) {
	tt, err := engine.New(longGym(b))
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if r := tt.Clashes(benchWeek); len(r.Clashes) != 0 {
			b.Fatal(r.Clashes[0].Message)
		}
	}
}
