package graph

import (
	"fmt"
	"testing"
	"time"

	"github.com/koredyne/schedule/engine"
	"github.com/koredyne/schedule/graph/model"
)

// TestPlacementsAreBounded refuses a request of placements that would try
// more places than maxPlacementPoints, naming step, and takes one just
// within it.
func TestPlacementsAreBounded(t *testing.T) {
	s := engine.State{Business: engine.Business{Kind: engine.Gym, Name: "Big", Currency: "KD", Location: time.UTC},
		Staff:      []engine.Staff{{ID: 1, Name: "Ana"}},
		Activities: []engine.Activity{{ID: 1, Name: "Yoga"}}, Classes: []engine.Class{{ID: 1, ActivityID: 1, StaffIDs: []int64{1}}}}
	for i := 1; i <= 30; i++ {
		s.Rooms = append(s.Rooms, engine.Room{ID: int64(i), Name: fmt.Sprint("Room ", i)})
	}
	tt, err := engine.New(s)
	if err != nil {
		t.Fatal(err)
	}
	one, eight, all := 1, 8, 0
	var midnight engine.LocalTime
	day := engine.EndOfDay
	// 30 rooms × 7 days × 1,440 starts × 8 weeks.
	_, err = placementRequest(tt, model.PlacementsInput{ClassID: 1, Minutes: 1, Step: &one, CycleWeeks: &eight, Earliest: &midnight, Latest: &day})
	if e, ok := err.(*engine.Error); !ok || e.Field != "step" {
		t.Fatalf("2,419,200 places: got %v, want BAD_USER_INPUT naming step", err)
	}
	// The same in one week of the rotation: 302,400.
	if _, err := placementRequest(tt, model.PlacementsInput{ClassID: 1, Minutes: 1, Step: &one, CycleWeeks: &eight, Weeks: []int{1},
		Earliest: &midnight, Latest: &day, Units: &all}); err != nil {
		t.Fatal(err)
	}
}
