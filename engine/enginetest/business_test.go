package enginetest_test

import (
	"reflect"
	"testing"

	"github.com/koredyne/schedule/engine"
	"github.com/koredyne/schedule/engine/enginetest"
)

// TestBusinessesAreValidAndClashFree builds each size the benchmarks use,
// with and without planted clashes: the state is valid, has the class
// times asked for plus two per planted clash, and the proof finds exactly
// the planted clashes, each every week.
func TestBusinessesAreValidAndClashFree(t *testing.T) {
	today := engine.MustDate(2026, 11, 29)
	for _, n := range []int{1, 100, 1000, 10000} {
		if testing.Short() && n > 1000 {
			continue
		}
		for _, planted := range []int{0, 3} {
			o := enginetest.Options{ClassTimes: n, Seed: uint64(n), Today: today, Clashes: planted}
			s := enginetest.Business(o)
			if got := len(s.ClassTimes); got != n+2*planted {
				t.Fatalf("%d class times asked, %d built", n, got)
			}
			if !reflect.DeepEqual(s, enginetest.Business(o)) {
				t.Fatalf("%d: the same options built different states", n)
			}
			tt, err := engine.New(s)
			if err != nil {
				t.Fatalf("%d: %v", n, err)
			}
			r := tt.Clashes(today)
			if len(r.Clashes) != planted {
				for _, c := range r.Clashes {
					t.Log(c.Message)
				}
				t.Fatalf("%d class times, %d planted: %d clashes", n, planted, len(r.Clashes))
			}
			grown := s.Clone()
			for room := range 3 {
				if _, ok := enginetest.AddClassTime(&grown, room%len(grown.Rooms)); !ok {
					t.Fatalf("%d: no free hour in room %d", n, room)
				}
			}
			if g, err := engine.New(grown); err != nil {
				t.Fatalf("%d: after AddClassTime: %v", n, err)
			} else if got := g.Clashes(today); len(got.Clashes) != planted {
				t.Fatalf("%d: AddClassTime added a clash: %s", n, got.Clashes[0].Message)
			}
			for _, c := range r.Clashes {
				if c.Kind != engine.RoomClash || c.Every != 1 || c.Until != 0 {
					t.Fatalf("planted clash reported as %+v", c)
				}
			}
			t.Logf("%d class times: %d rooms, %d staff, %d entries, %d changes, %d one-offs, %d bookings, %d closures",
				n, len(s.Rooms), len(s.Staff), len(s.Entries), len(s.Changes), len(s.OneOffs), len(s.RoomBookings), len(s.Closures))
		}
	}
}
