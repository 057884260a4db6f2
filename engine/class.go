package engine

import (
	"slices"
	"strings"
)

// NameKey is how the engine tells names apart: without case or surrounding
// space, runs of space as one. Two staff rows with one key are one person to
// the clash rules; rooms and activities may not share one.
func NameKey(name string) string {
	// Most names are plain ASCII and often already in the form asked for;
	// those cost one pass and, when already a key, no allocation. Every
	// other name goes the way of the Unicode rules.
	clean := true
	space := true // at the start, or after a space: a space here is extra
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case c >= 0x80:
			return strings.ToLower(strings.Join(strings.Fields(name), " "))
		case asciiSpace(c):
			if space || c != ' ' || i == len(name)-1 {
				clean = false
			}
			space = true
		default:
			if 'A' <= c && c <= 'Z' {
				clean = false
			}
			space = false
		}
	}
	if clean {
		return name
	}
	b := make([]byte, 0, len(name))
	gap := false // a space is owed before the next word
	for i := 0; i < len(name); i++ {
		c := name[i]
		if asciiSpace(c) {
			gap = len(b) > 0
			continue
		}
		if gap {
			b = append(b, ' ')
			gap = false
		}
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		b = append(b, c)
	}
	return string(b)
}

func asciiSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'
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
