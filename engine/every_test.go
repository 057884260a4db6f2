package engine

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestActiveInEvery checks activeIn's shortcut for groups of one-week
// rotations (group.every) against a look at every entry, over random
// businesses (pauses and ends included) and every week of their windows
// and beyond, and requires the shortcut to have been taken.
func TestActiveInEvery(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 29))
	shortcuts := 0
	for n := 0; n < 500; {
		s, _, from, to := randomState(r)
		if Validate(s) != nil {
			continue
		}
		n++
		tt, err := New(s)
		if err != nil {
			t.Fatal(err)
		}
		for gi := range tt.groups {
			g := &tt.groups[gi]
			for w := WeekOf(from, tt.ws) - 30; w < WeekOf(to, tt.ws)+30; w++ {
				var want []SeriesWeek
				for i, e := range g.entries {
					if e.rot.Position(w) == e.week {
						want = append(want, g.weeks[i])
					}
				}
				if got := g.activeIn(w); !slices.Equal(got, want) {
					t.Fatalf("state %d, group %d, week %d: activeIn %v, the entries say %v (every %v)", n, gi, w, got, want, g.every)
				}
				if g.every.From <= w && w < g.every.To {
					shortcuts++
				}
			}
		}
	}
	if shortcuts == 0 {
		t.Fatal("no week took the shortcut")
	}
}
