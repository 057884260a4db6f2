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

func TestLongGymTiming(t *testing.T) {
	s := longGym(t)
	start := time.Now()
	tt, err := engine.New(s)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("compile %v", time.Since(start))
	start = time.Now()
	r := tt.Clashes(benchWeek)
	t.Logf("clashes %v: %d", time.Since(start), len(r.Clashes))
	for _, c := range r.Clashes[:min(3, len(r.Clashes))] {
		t.Log(c.Message)
	}
}
