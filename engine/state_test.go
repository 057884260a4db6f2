package engine

import (
	"fmt"
	"reflect"
	"slices"
	"testing"
	"time"
)

// filled returns a State with every list, at every depth, holding two rows in
// descending order, and every other field set. It is built by reflection, so
// a list added to State (or to one of its rows) is filled without editing
// the tests below, and Clone and Canonical are tested on it at once.
func filled() State {
	var s State
	v := reflect.ValueOf(&s).Elem()
	for i := range v.NumField() {
		if v.Type().Field(i).Name != "Business" { // settings: no lists, and a shared *time.Location
			fill(v.Field(i), 1)
		}
	}
	return s
}

func fill(v reflect.Value, n int) {
	switch v.Kind() {
	case reflect.Struct:
		for i := range v.NumField() {
			fill(v.Field(i), n)
		}
	case reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 2, 2))
		fill(v.Index(0), n+1)
		fill(v.Index(1), n)
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		fill(v.Elem(), n)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(int64(n))
	case reflect.String:
		v.SetString(fmt.Sprint("row ", n))
	case reflect.Bool:
		v.SetBool(true)
	default:
		panic(fmt.Sprintf("filled: no value for a %s", v.Type()))
	}
}

// shared returns the path of every slice or pointer that a and b share.
func shared(path string, a, b reflect.Value) []string {
	var out []string
	switch a.Kind() {
	case reflect.Struct:
		for i := range a.NumField() {
			out = append(out, shared(path+"."+a.Type().Field(i).Name, a.Field(i), b.Field(i))...)
		}
	case reflect.Slice:
		if a.Len() > 0 && b.Len() > 0 && a.Index(0).Addr().Pointer() == b.Index(0).Addr().Pointer() {
			out = append(out, path)
		}
		for i := range min(a.Len(), b.Len()) {
			out = append(out, shared(fmt.Sprintf("%s[%d]", path, i), a.Index(i), b.Index(i))...)
		}
	case reflect.Pointer:
		if !a.IsNil() && a.Pointer() == b.Pointer() {
			out = append(out, path)
		}
		if !a.IsNil() && !b.IsNil() {
			out = append(out, shared(path, a.Elem(), b.Elem())...)
		}
	}
	return out
}

func TestClone(t *testing.T) {
	s := filled()
	s.Business = Business{Kind: Gym, Name: "Harbor", Location: time.UTC, WeekStart: time.Sunday}
	c := s.Clone()
	if !reflect.DeepEqual(c, s) {
		t.Fatalf("the copy differs:\ngot  %+v\nwant %+v", c, s)
	}
	cv, sv := reflect.ValueOf(c), reflect.ValueOf(s)
	var got []string
	for i := range cv.NumField() {
		if name := cv.Type().Field(i).Name; name != "Business" {
			got = append(got, shared(name, cv.Field(i), sv.Field(i))...)
		}
	}
	if len(got) > 0 {
		t.Errorf("the copy shares %v with the original; Clone must copy them", got)
	}
	if c.Business.Location != s.Business.Location {
		t.Error("the copy has another time zone value; a *time.Location is never changed and is shared")
	}
	var empty State
	if got := empty.Clone(); !reflect.DeepEqual(got, empty) {
		t.Errorf("the copy of an empty state is %+v", got)
	}
}

// sortKey is what Canonical orders rows by: the first field, or the first
// field of the first field (an id, or a day change's original date).
func sortKey(v reflect.Value) int64 {
	for v.Kind() == reflect.Struct {
		v = v.Field(0)
	}
	return v.Int()
}

func TestCanonical(t *testing.T) {
	t.Run("every list of rows in order", func(t *testing.T) {
		s := filled()
		s.Canonical()
		v := reflect.ValueOf(s)
		for i := range v.NumField() {
			f := v.Field(i)
			if f.Kind() != reflect.Slice {
				continue
			}
			var got []int64
			for j := range f.Len() {
				got = append(got, sortKey(f.Index(j)))
			}
			if !slices.IsSorted(got) || len(got) != 2 {
				t.Errorf("%s: got rows %v, want 2 rows in ascending order", v.Type().Field(i).Name, got)
			}
		}
	})
	t.Run("every empty list nil", func(t *testing.T) {
		s := filled()
		emptyLists(reflect.ValueOf(&s).Elem())
		s.Canonical()
		if got := nonNilEmpty("State", reflect.ValueOf(s)); len(got) > 0 {
			t.Errorf("empty but not nil: %v", got)
		}
		var top State
		emptyTop := reflect.ValueOf(&top).Elem()
		for i := range emptyTop.NumField() {
			if f := emptyTop.Field(i); f.Kind() == reflect.Slice {
				f.Set(reflect.MakeSlice(f.Type(), 0, 0))
			}
		}
		top.Canonical()
		if got := nonNilEmpty("State", reflect.ValueOf(top)); len(got) > 0 {
			t.Errorf("empty but not nil: %v", got)
		}
	})

	tue, mon := time.Tuesday, time.Monday
	tests := []struct {
		name string
		in   State
		want State
	}{
		{
			name: "closure rooms and capacity weekdays are sets",
			in: State{
				Closures: []Closure{{ID: 1, RoomIDs: []int64{3, 1, 3}}},
				Capacity: []CapacityRule{{ID: 1, Weekdays: []time.Weekday{tue, mon, tue}}},
			},
			want: State{
				Closures: []Closure{{ID: 1, RoomIDs: []int64{1, 3}}},
				Capacity: []CapacityRule{{ID: 1, Weekdays: []time.Weekday{mon, tue}}},
			},
		},
		{
			name: "staff, covers and one-off clients keep their order",
			in: State{
				Classes: []Class{{ID: 1, StaffIDs: []int64{2, 1}}},
				Changes: []DayChange{{Ref: SessionRef{Date: MustParse("2026-10-06")}, StaffIDs: []int64{5, 4}}},
				OneOffs: []OneOff{{ID: 1, ClientIDs: []int64{9, 8}}},
			},
			want: State{
				Classes: []Class{{ID: 1, StaffIDs: []int64{2, 1}}},
				Changes: []DayChange{{Ref: SessionRef{Date: MustParse("2026-10-06")}, StaffIDs: []int64{5, 4}}},
				OneOffs: []OneOff{{ID: 1, ClientIDs: []int64{9, 8}}},
			},
		},
		{
			name: "day changes by date, then class time, then class",
			in: State{Changes: []DayChange{
				{Ref: SessionRef{Date: MustParse("2026-10-07"), ClassTimeID: 1, ClassID: 1}},
				{Ref: SessionRef{Date: MustParse("2026-10-06"), ClassTimeID: 2, ClassID: 1}},
				{Ref: SessionRef{Date: MustParse("2026-10-06"), ClassTimeID: 1, ClassID: 2}},
				{Ref: SessionRef{Date: MustParse("2026-10-06"), ClassTimeID: 1, ClassID: 1}},
			}},
			want: State{Changes: []DayChange{
				{Ref: SessionRef{Date: MustParse("2026-10-06"), ClassTimeID: 1, ClassID: 1}},
				{Ref: SessionRef{Date: MustParse("2026-10-06"), ClassTimeID: 1, ClassID: 2}},
				{Ref: SessionRef{Date: MustParse("2026-10-06"), ClassTimeID: 2, ClassID: 1}},
				{Ref: SessionRef{Date: MustParse("2026-10-07"), ClassTimeID: 1, ClassID: 1}},
			}},
		},
	}
	for _, c := range tests {
		t.Run(c.name, func(t *testing.T) {
			got := c.in.Clone()
			got.Canonical()
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("got  %+v\nwant %+v", got, c.want)
			}
			again := got.Clone()
			again.Canonical()
			if !reflect.DeepEqual(again, got) {
				t.Errorf("not idempotent: %+v, then %+v", got, again)
			}
		})
	}
}

// emptyLists empties every list below the top level of v.
func emptyLists(v reflect.Value) {
	for i := range v.NumField() {
		f := v.Field(i)
		if f.Kind() != reflect.Slice {
			continue
		}
		for j := range f.Len() {
			emptyNested(f.Index(j))
		}
	}
}

func emptyNested(v reflect.Value) {
	switch v.Kind() {
	case reflect.Struct:
		for i := range v.NumField() {
			emptyNested(v.Field(i))
		}
	case reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 0, 0))
	}
}

func nonNilEmpty(path string, v reflect.Value) []string {
	var out []string
	switch v.Kind() {
	case reflect.Struct:
		for i := range v.NumField() {
			out = append(out, nonNilEmpty(path+"."+v.Type().Field(i).Name, v.Field(i))...)
		}
	case reflect.Slice:
		if !v.IsNil() && v.Len() == 0 {
			out = append(out, path)
		}
		for i := range v.Len() {
			out = append(out, nonNilEmpty(fmt.Sprintf("%s[%d]", path, i), v.Index(i))...)
		}
	}
	return out
}
