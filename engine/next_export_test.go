package engine

import (
	"fmt"
	"reflect"
)

// FollowsChange reports whether Timetable.Next follows the change from a
// to b row by row (and does not compile b whole).
func FollowsChange(a, b State) bool { return diffStates(&a, &b).local }

// SameCompiled compares what two timetables compiled, part by part, and
// says which part differs.
func SameCompiled(got, want *Timetable) string {
	parts := []struct {
		name string
		g, w any
	}{
		{"rooms", got.rooms, want.rooms}, {"staff", got.staff, want.staff}, {"activities", got.activities, want.activities},
		{"classes", got.classes, want.classes}, {"class times", got.classTimes, want.classTimes}, {"series", got.series, want.series},
		{"rotations", got.rot, want.rot}, {"groups", got.groups, want.groups}, {"groupOf", got.groupOf, want.groupOf},
		{"byWeekday", got.byWeekday, want.byWeekday}, {"changes", got.changes, want.changes}, {"byOrigin", got.byOrigin, want.byOrigin},
		{"movedIn", got.movedIn, want.movedIn}, {"oneOffs", got.oneOffs, want.oneOffs}, {"closures", got.closures, want.closures},
		{"rules", got.rules, want.rules}, {"bookings", got.bookings, want.bookings}, {"index", got.index, want.index},
		{"state", got.state, want.state},
	}
	for _, p := range parts {
		if !reflect.DeepEqual(p.g, p.w) {
			return fmt.Sprintf("their %s differ:\n got %+v\nwant %+v", p.name, p.g, p.w)
		}
	}
	return ""
}
