package engine

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// TestClassWith: a class is its activity and its set of staff, by name and
// without case; Validate refuses a second class exactly when ClassWith
// finds the first.
func TestClassWith(t *testing.T) {
	f := newFx()
	pair := f.class(board, laura, ahmed) // Laura Becker is the main host
	solo := f.class(standup, mei)
	f.class(interview, ahmed)
	base := f.State
	tests := []struct {
		name     string
		activity int64
		staff    []int64
		want     int64 // 0: none
	}{
		{"same order", board, []int64{laura, ahmed}, pair},
		{"other order", board, []int64{ahmed, laura}, pair},
		{"another record of the same name", standup, []int64{meiAgain}, solo},
		{"a subset", board, []int64{laura}, 0},
		{"a superset", board, []int64{laura, ahmed, mei}, 0},
		{"another activity", interview, []int64{laura, ahmed}, 0},
		{"a staff member who does not exist", board, []int64{laura, 99}, 0},
		{"an activity that does not exist", 99, []int64{laura, ahmed}, 0},
		{"no staff", board, nil, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, ok := base.ClassWith(tc.activity, tc.staff)
			if got := map[bool]int64{true: c.ID}[ok]; got != tc.want {
				t.Fatalf("ClassWith(%d, %v) = class %d, want %d", tc.activity, tc.staff, got, tc.want)
			}
			if ok && c.StaffIDs[0] != base.Classes[c.ID-1].StaffIDs[0] {
				t.Errorf("the class came back with %v first", c.StaffIDs[0])
			}
			// Adding the described class is refused as a duplicate exactly
			// when ClassWith found one.
			s := base.Clone()
			s.Classes = append(s.Classes, Class{ID: 50, ActivityID: tc.activity, StaffIDs: tc.staff})
			err := Validate(s)
			if dup := err != nil && strings.Contains(err.Error(), "already exists"); dup != ok {
				t.Errorf("Validate says duplicate=%v (%v), ClassWith found=%v", dup, err, ok)
			}
		})
	}
}

func TestClassKey(t *testing.T) {
	tests := []struct {
		name string
		a, b []string // activity first, then staff
		same bool
	}{
		{"order of staff", []string{"Boxing", "Marco Reyes", "Sami Al-Otaibi"}, []string{"Boxing", "Sami Al-Otaibi", "Marco Reyes"}, true},
		{"case and spaces", []string{"boxing ", "marco  reyes"}, []string{"Boxing", "Marco Reyes"}, true},
		{"another activity", []string{"Boxing", "Marco Reyes"}, []string{"Kickboxing", "Marco Reyes"}, false},
		{"a name split differently", []string{"Boxing", "Marco", "Reyes"}, []string{"Boxing", "Marco Reyes"}, false},
		{"one staff member fewer", []string{"Boxing", "Marco Reyes", "Sami Al-Otaibi"}, []string{"Boxing", "Marco Reyes"}, false},
		{"an activity name holding a staff name", []string{"Boxing Marco Reyes"}, []string{"Boxing", "Marco Reyes"}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a, b := ClassKey(tc.a[0], tc.a[1:]), ClassKey(tc.b[0], tc.b[1:])
			if got := a == b; got != tc.same {
				t.Errorf("ClassKey(%q) == ClassKey(%q) is %v, want %v", tc.a, tc.b, got, tc.same)
			}
		})
	}
}

// TestNameKeyFastPath compares NameKey with the rule it implements, on
// random names of letters, spaces of every kind and a few non-ASCII
// characters.
func TestNameKeyFastPath(t *testing.T) {
	slow := func(s string) string { return strings.ToLower(strings.Join(strings.Fields(s), " ")) }
	r := rand.New(rand.NewPCG(1, 1))
	alphabet := []string{"a", "B", "z", "Q", " ", " ", "\t", "\n", "\v", "\f", "\r", "1", "-", "É", "ß", "\u00a0", "\u0085", "İ"}
	for range 20000 {
		var b strings.Builder
		for range r.IntN(12) {
			b.WriteString(alphabet[r.IntN(len(alphabet))])
		}
		if got, want := NameKey(b.String()), slow(b.String()); got != want {
			t.Fatalf("NameKey(%q) = %q, want %q", b.String(), got, want)
		}
	}
}
