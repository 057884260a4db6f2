package solve

import (
	"testing"
	"time"

	"github.com/koredyne/schedule/engine"
	"github.com/koredyne/schedule/engine/demo"
)

// TestExactSeesWhatOneWindowDoesNot: a one-off five weeks on is beyond the
// window Occupied resolves for a one-week rotation, but the engine's
// placement search behind Exact sees it, and so the solver does not put
// the same coach in the same room then.
func TestExactSeesWhatOneWindowDoesNot(t *testing.T) {
	today := engine.MustDate(2026, 12, 1)
	st := demo.Gym(today)
	from := today.WeekStart(st.Business.WeekStart) + 7
	class := st.Classes[0]
	room := st.Rooms[0].ID
	day := from + 7*5 + 1
	st.OneOffs = append(st.OneOffs, engine.OneOff{ID: 1 << 40, ClassID: class.ID, RoomID: room, Date: day,
		Start: engine.MustTime("05:00"), End: engine.MustTime("06:00")})
	crew := [][]int64{class.StaffIDs}
	occ, err := Exact(st, today, from, 1, 15, crew)
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range occ.RoomUse(room, 0, day.Weekday()) {
		if u.Start < engine.MustTime("06:00") && u.End > engine.MustTime("05:00") {
			t.Fatalf("one window sees the one-off: %v", u)
		}
	}
	if occ.(Slots).Free(class.StaffIDs, 60, 0, room, 0, day.Weekday(), engine.MustTime("05:00")) {
		t.Error("the placement search leaves 05:00 free on the one-off's weekday")
	}
	if !occ.(Slots).Free(class.StaffIDs, 60, 0, room, 0, day.Weekday(), engine.MustTime("03:00")) {
		t.Error("the placement search leaves 03:00 taken")
	}
	p := Problem{Frame: Frame{Cycle: 1, Earliest: engine.MustTime("05:00"), Latest: engine.MustTime("06:00")}, Rooms: []Room{{ID: room, Units: st.Rooms[0].Capacity}},
		Lines: []Line{{Name: "x", Sessions: 1, Minutes: 60, Crews: crew, Rooms: []int64{room}, Windows: []Window{{Weekdays: []time.Weekday{day.Weekday()}, Start: engine.MustTime("05:00"), End: engine.MustTime("06:00")}}}}}
	pr, err := Solve(p, occ, Options{Seed: 1, Work: 10_000})
	if err != nil {
		t.Fatal(err)
	}
	for _, pl := range pr.Placements {
		if pl.Weekday == day.Weekday() {
			t.Errorf("placed on the one-off: %+v", pl)
		}
	}
}
