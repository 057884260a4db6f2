package engine

import (
	"reflect"
	"testing"
)

// TestSameRowIsDeepEqual holds SameRow to reflect.DeepEqual for every row
// type of a State: rows that differ in one field, or in two, by each of a
// few values of the field's type (a nil list, an empty one, lists of one
// and two, a nil time, two pointers to one time, a pointer to another).
func TestSameRowIsDeepEqual(t *testing.T) {
	check := func(name string, rows []any, same func(a, b any) bool) {
		for _, a := range rows {
			for _, b := range rows {
				if got, want := same(a, b), reflect.DeepEqual(a, b); got != want {
					t.Fatalf("%s: SameRow(%+v, %+v) = %v, reflect.DeepEqual says %v", name, a, b, got, want)
				}
			}
		}
	}
	sameAs := func(zero any) func(a, b any) bool {
		switch zero.(type) {
		case Room:
			return func(a, b any) bool { x, y := a.(Room), b.(Room); return SameRow(&x, &y) }
		case Staff:
			return func(a, b any) bool { x, y := a.(Staff), b.(Staff); return SameRow(&x, &y) }
		case Activity:
			return func(a, b any) bool { x, y := a.(Activity), b.(Activity); return SameRow(&x, &y) }
		case Class:
			return func(a, b any) bool { x, y := a.(Class), b.(Class); return SameRow(&x, &y) }
		case ClassTime:
			return func(a, b any) bool { x, y := a.(ClassTime), b.(ClassTime); return SameRow(&x, &y) }
		case Series:
			return func(a, b any) bool { x, y := a.(Series), b.(Series); return SameRow(&x, &y) }
		case Entry:
			return func(a, b any) bool { x, y := a.(Entry), b.(Entry); return SameRow(&x, &y) }
		case Plan:
			return func(a, b any) bool { x, y := a.(Plan), b.(Plan); return SameRow(&x, &y) }
		case Client:
			return func(a, b any) bool { x, y := a.(Client), b.(Client); return SameRow(&x, &y) }
		case Subscription:
			return func(a, b any) bool { x, y := a.(Subscription), b.(Subscription); return SameRow(&x, &y) }
		case OneOff:
			return func(a, b any) bool { x, y := a.(OneOff), b.(OneOff); return SameRow(&x, &y) }
		case DayChange:
			return func(a, b any) bool { x, y := a.(DayChange), b.(DayChange); return SameRow(&x, &y) }
		case Closure:
			return func(a, b any) bool { x, y := a.(Closure), b.(Closure); return SameRow(&x, &y) }
		case CapacityRule:
			return func(a, b any) bool { x, y := a.(CapacityRule), b.(CapacityRule); return SameRow(&x, &y) }
		case RoomBooking:
			return func(a, b any) bool { x, y := a.(RoomBooking), b.(RoomBooking); return SameRow(&x, &y) }
		case Standing:
			return func(a, b any) bool { x, y := a.(Standing), b.(Standing); return SameRow(&x, &y) }
		case StandingSkip:
			return func(a, b any) bool { x, y := a.(StandingSkip), b.(StandingSkip); return SameRow(&x, &y) }
		case Qualification:
			return func(a, b any) bool { x, y := a.(Qualification), b.(Qualification); return SameRow(&x, &y) }
		case TimeOff:
			return func(a, b any) bool { x, y := a.(TimeOff), b.(TimeOff); return SameRow(&x, &y) }
		case WorkingHours:
			return func(a, b any) bool { x, y := a.(WorkingHours), b.(WorkingHours); return SameRow(&x, &y) }
		}
		return nil
	}
	// Every list of a State, so that a row type added to it is checked too.
	st := reflect.TypeFor[State]()
	for i := range st.NumField() {
		f := st.Field(i)
		if f.Type.Kind() != reflect.Slice {
			continue
		}
		zero := reflect.Zero(f.Type.Elem()).Interface()
		same := sameAs(zero)
		if same == nil {
			t.Fatalf("no SameRow case for %s", f.Type.Elem())
		}
		check(f.Type.Elem().Name(), variants(f.Type.Elem()), same)
	}
}

// variants are rows of type rt: the zero row, and rows with one or two
// fields set to each of a few values.
func variants(rt reflect.Type) []any {
	base := reflect.New(rt).Elem()
	out := []any{base.Interface()}
	var one []reflect.Value
	for i := range rt.NumField() {
		for _, v := range fieldValues(rt.Field(i).Type) {
			r := reflect.New(rt).Elem()
			r.Field(i).Set(v)
			out = append(out, r.Interface())
			one = append(one, r)
		}
	}
	for i := range rt.NumField() { // a second field on top of each
		for _, r := range one {
			for _, v := range fieldValues(rt.Field(i).Type) {
				c := reflect.New(rt).Elem()
				c.Set(r)
				c.Field(i).Set(v)
				out = append(out, c.Interface())
			}
		}
	}
	return out
}

func fieldValues(ft reflect.Type) []reflect.Value {
	switch ft.Kind() {
	case reflect.Slice:
		empty := reflect.MakeSlice(ft, 0, 0)
		// A list of structs (a set of hours' spans) differs in its
		// elements' first field.
		setNum := func(v reflect.Value, n int64) {
			if v.Kind() == reflect.Struct {
				v = v.Field(0)
			}
			v.SetInt(n)
		}
		one := reflect.MakeSlice(ft, 1, 1)
		setNum(one.Index(0), 3)
		two := reflect.MakeSlice(ft, 2, 2)
		setNum(two.Index(0), 3)
		setNum(two.Index(1), 4)
		return []reflect.Value{reflect.Zero(ft), empty, one, two}
	case reflect.Pointer:
		p, q, r := reflect.New(ft.Elem()), reflect.New(ft.Elem()), reflect.New(ft.Elem())
		p.Elem().SetInt(600)
		q.Elem().SetInt(600)
		r.Elem().SetInt(660)
		return []reflect.Value{reflect.Zero(ft), p, q, r}
	case reflect.Struct:
		var out []reflect.Value
		for i := range ft.NumField() {
			for _, v := range fieldValues(ft.Field(i).Type) {
				s := reflect.New(ft).Elem()
				s.Field(i).Set(v)
				out = append(out, s)
			}
		}
		return out
	case reflect.String:
		return []reflect.Value{reflect.ValueOf("a").Convert(ft), reflect.ValueOf("b").Convert(ft)}
	case reflect.Bool:
		return []reflect.Value{reflect.ValueOf(true)}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return []reflect.Value{reflect.ValueOf(int64(1)).Convert(ft), reflect.ValueOf(int64(2)).Convert(ft)}
	}
	return nil
}
