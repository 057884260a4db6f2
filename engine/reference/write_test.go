package reference_test

import (
	"bytes"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/koredyne/schedule/engine"
	"github.com/koredyne/schedule/engine/demo"
	"github.com/koredyne/schedule/engine/reference"
)

// sameState compares two states, time zones by name and room capacities
// of 0 and 1 (the default) as the same.
func sameState(t *testing.T, got, want engine.State) {
	t.Helper()
	for _, st := range []*engine.State{&got, &want} {
		st.Rooms = slices.Clone(st.Rooms)
		for i := range st.Rooms {
			if st.Rooms[i].Capacity == 1 {
				st.Rooms[i].Capacity = 0
			}
		}
	}
	if got.Business.Location.String() != want.Business.Location.String() {
		t.Errorf("time zone: got %s, want %s", got.Business.Location, want.Business.Location)
	}
	got.Business.Location, want.Business.Location = nil, nil
	g, w := reflect.ValueOf(got), reflect.ValueOf(want)
	for i := range g.NumField() {
		if !reflect.DeepEqual(g.Field(i).Interface(), w.Field(i).Interface()) {
			t.Errorf("%s:\ngot  %+v\nwant %+v", g.Type().Field(i).Name, g.Field(i).Interface(), w.Field(i).Interface())
		}
	}
}

func TestWriteReadsBack(t *testing.T) {
	for _, path := range []string{"testdata/gym.json", "testdata/double_bookings.json"} {
		t.Run(path, func(t *testing.T) {
			first := readFile(t, path)
			b, err := reference.Write(first.State)
			if err != nil {
				t.Fatalf("Write: %v", err)
			}
			again, err := reference.Read(bytes.NewReader(b))
			if err != nil {
				t.Fatalf("Read of what Write wrote: %v", err)
			}
			sameState(t, again.State, first.State)
			// The change that names no session is kept, so it is noted again.
			for _, n := range again.Notes {
				if !strings.Contains(n.Message, "names no session") {
					t.Errorf("note on reading back: %s", n)
				}
			}
			// Written again, it is the same text.
			b2, err := reference.Write(again.State)
			if err != nil || !bytes.Equal(b, b2) {
				t.Errorf("second Write: got a different text (err %v)", err)
			}
		})
	}
}

func TestWriteDemos(t *testing.T) {
	week := engine.MustDate(2026, 10, 4)
	for _, k := range []engine.Kind{engine.Gym, engine.Office} {
		t.Run(string(k), func(t *testing.T) {
			st, _ := demo.ByKind(k, week)
			b, err := reference.Write(st)
			if err != nil {
				t.Fatalf("Write: %v", err)
			}
			imp, err := reference.Read(bytes.NewReader(b))
			if err != nil {
				t.Fatalf("Read: %v", err)
			}
			sameState(t, imp.State, st)
		})
	}
	t.Run("the clinic's pool lanes are refused, not dropped", func(t *testing.T) {
		st, _ := demo.ByKind(engine.Clinic, week)
		_, err := reference.Write(st)
		if err == nil || !strings.Contains(err.Error(), `room "Pool" has 6 units`) {
			t.Errorf("Write: got %v, want a refusal naming the pool", err)
		}
	})
}

func TestWriteRefuses(t *testing.T) {
	st := readFile(t, "testdata/double_bookings.json").State
	st.Closures = []engine.Closure{{ID: 1, From: engine.MustDate(2025, 12, 24), To: engine.MustDate(2025, 12, 26), Reason: "Christmas"}}
	st.Rooms[0].Capacity = 3
	_, err := reference.Write(st)
	if err == nil || !strings.Contains(err.Error(), "closures") || !strings.Contains(err.Error(), "3 units") {
		t.Errorf("Write: got %v, want a refusal naming the closures and the room", err)
	}
	st = readFile(t, "testdata/double_bookings.json").State
	st.Business.Location = nil
	if _, err := reference.Write(st); err == nil {
		t.Error("Write of a state without a time zone: got nil error")
	}
}
