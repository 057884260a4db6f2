package engine

import (
	"slices"
	"strings"
)

// NameKey is how the engine tells names apart: without case or surrounding
// space, runs of space as one. Two staff rows with one key are one person to
// the clash rules; rooms and activities may not share one.
func NameKey(name string) string {
	return strings.ToLower(strings.Join(strings.Fields(name), " "))
}

// ClassKey is a class's identity: its activity and its set of staff, by
// name as NameKey compares them. The order of the staff (the first is the
// main one) is not part of it, so no two classes of a valid state share a
// key. It is for callers that know classes by name, as imports do.
func ClassKey(activity string, staff []string) string {
	keys := make([]string, len(staff))
	for i, s := range staff {
		keys[i] = NameKey(s)
	}
	slices.Sort(keys)
	return NameKey(activity) + "\x00" + strings.Join(keys, "\x00")
}

// ClassWith returns the class of s with this activity and this set of
// staff, in any order, compared as ClassKey compares them: describing a
// class with its staff in another order names the same class, whose main
// staff member stays its own first. It is false when there is none, or when
// the activity or a staff member is not in s.
func (s State) ClassWith(activityID int64, staffIDs []int64) (Class, bool) {
	staffNames := make(map[int64]string, len(s.Staff))
	for _, p := range s.Staff {
		staffNames[p.ID] = p.Name
	}
	activityNames := make(map[int64]string, len(s.Activities))
	for _, a := range s.Activities {
		activityNames[a.ID] = a.Name
	}
	key := func(activityID int64, staffIDs []int64) (string, bool) {
		a, ok := activityNames[activityID]
		staff := make([]string, len(staffIDs))
		for i, id := range staffIDs {
			var found bool
			if staff[i], found = staffNames[id]; !found {
				ok = false
			}
		}
		return ClassKey(a, staff), ok
	}
	want, ok := key(activityID, staffIDs)
	if !ok {
		return Class{}, false
	}
	for _, c := range s.Classes {
		if len(c.StaffIDs) != len(staffIDs) {
			continue
		}
		if k, ok := key(c.ActivityID, c.StaffIDs); ok && k == want {
			return c, true
		}
	}
	return Class{}, false
}
