package engine_test

import (
	"fmt"
	"reflect"

	"github.com/koredyne/schedule/engine"
)

// Two states that hold the same rows in another order are equal once
// canonical; the copy that Clone made is changed without touching the
// original.
func ExampleState_Canonical() {
	a := engine.State{
		Rooms:    []engine.Room{{ID: 2, Name: "Pool"}, {ID: 1, Name: "Ring"}},
		Closures: []engine.Closure{{ID: 1, RoomIDs: []int64{2, 1}, Reason: "Eid"}},
		Plans:    []engine.Plan{},
	}
	b := a.Clone()
	b.Rooms[0], b.Rooms[1] = b.Rooms[1], b.Rooms[0]
	a.Canonical()
	b.Canonical()
	fmt.Println(reflect.DeepEqual(a, b), a.Rooms, a.Closures[0].RoomIDs, a.Plans == nil)
	// Output:
	// true [{1 Ring 0} {2 Pool 0}] [1 2] true
}
