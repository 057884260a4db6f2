package reference_test

import (
	"bytes"
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

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

// optsOf reads back with the zone and week start the state has.
func optsOf(st engine.State) reference.Options {
	return reference.Options{Location: st.Business.Location, WeekStart: st.Business.WeekStart}
}

var exportedAt = time.Date(2026, 12, 6, 12, 0, 0, 0, time.UTC)

func TestWriteReadsBack(t *testing.T) {
	for _, c := range []struct {
		path string
		opts reference.Options
	}{
		{"testdata/gym.json", reference.Options{Location: time.UTC}},
		{"testdata/double_bookings.json", reference.Options{Location: time.UTC, WeekStart: time.Monday}},
		{"testdata/reference/export-gym.json", reference.Options{Location: time.UTC}},
		{"testdata/reference/export-clinic.json", reference.Options{Location: time.UTC}},
		{"testdata/reference/export-office.json", reference.Options{Location: time.UTC}},
	} {
		t.Run(c.path, func(t *testing.T) {
			first := readFile(t, c.path, c.opts)
			b, err := reference.Write(first.State, exportedAt)
			if err != nil {
				t.Fatalf("Write: %v", err)
			}
			again, err := reference.Read(bytes.NewReader(b), c.opts)
			if err != nil {
				t.Fatalf("Read of what Write wrote: %v", err)
			}
			sameState(t, again.State, first.State)
			// The changes the reference reads differently are kept, so they
			// are noted again.
			for _, n := range again.Notes {
				if !strings.Contains(n.Message, "names no session") && !strings.Contains(n.Message, "already has a session") {
					t.Errorf("note on reading back: %s", n)
				}
			}
			// Written again, it is the same text.
			b2, err := reference.Write(again.State, exportedAt)
			if err != nil || !bytes.Equal(b, b2) {
				t.Errorf("second Write: got a different text (err %v)", err)
			}
		})
	}
}

// TestWriteWritesTheReferenceFormat compares what Write writes with what the
// reference itself wrote: the same top-level fields, the same tables, and
// in each the same columns.
func TestWriteWritesTheReferenceFormat(t *testing.T) {
	real := fixture(t, "testdata/reference/export-office.json")
	imp, err := reference.Read(bytes.NewReader(real), reference.Options{Location: time.UTC})
	if err != nil {
		t.Fatal(err)
	}
	ours, err := reference.Write(imp.State, exportedAt)
	if err != nil {
		t.Fatal(err)
	}
	shape := func(b []byte) map[string][]string {
		var x map[string]json.RawMessage
		if err := json.Unmarshal(b, &x); err != nil {
			t.Fatal(err)
		}
		out := map[string][]string{}
		for k := range x {
			out[""] = append(out[""], k)
		}
		var tables map[string][]map[string]any
		if err := json.Unmarshal(x["tables"], &tables); err != nil {
			t.Fatal(err)
		}
		for name, rows := range tables {
			out[name] = []string{}
			for _, r := range rows[:1] {
				for k := range r {
					out[name] = append(out[name], k)
				}
			}
		}
		for k := range out {
			slices.Sort(out[k])
		}
		return out
	}
	if got, want := shape(ours), shape(real); !reflect.DeepEqual(got, want) {
		t.Errorf("shape:\ngot  %v\nwant %v", got, want)
	}
}

func TestWriteDemos(t *testing.T) {
	week := engine.MustDate(2026, 10, 4)
	for _, k := range []engine.Kind{engine.Gym, engine.Office} {
		t.Run(string(k), func(t *testing.T) {
			st, _ := demo.ByKind(k, week)
			// What the format has no column for: phones, one-offs' places,
			// the assistant's time off and the covers given for it.
			for i := range st.Clients {
				st.Clients[i].Phone = ""
			}
			st.TimeOffs = nil
			st.Changes = slices.DeleteFunc(st.Changes, func(c engine.DayChange) bool { return c.StaffIDs != nil })
			for i := range st.OneOffs {
				st.OneOffs[i].Capacity, st.OneOffs[i].Buffer = 0, 0
			}
			b, err := reference.Write(st, exportedAt)
			if err != nil {
				t.Fatalf("Write: %v", err)
			}
			imp, err := reference.Read(bytes.NewReader(b), optsOf(st))
			if err != nil {
				t.Fatalf("Read: %v", err)
			}
			sameState(t, imp.State, st)
		})
	}
	t.Run("the clinic's pool lanes are refused, not dropped", func(t *testing.T) {
		st, _ := demo.ByKind(engine.Clinic, week)
		_, err := reference.Write(st, exportedAt)
		if err == nil || !strings.Contains(err.Error(), `room "Pool" has 6 units`) {
			t.Errorf("Write: got %v, want a refusal naming the pool", err)
		}
	})
}

func TestWriteRefuses(t *testing.T) {
	berlin := reference.Options{Location: zone(t, "Europe/Berlin"), WeekStart: time.Monday}
	st := readFile(t, "testdata/double_bookings.json", berlin).State
	st.Closures = []engine.Closure{{ID: 1, From: engine.MustDate(2025, 12, 24), To: engine.MustDate(2025, 12, 26), Reason: "Christmas"}}
	st.Rooms[0].Capacity = 3
	st.Clients[0].Phone = "+49 30 1234"
	_, err := reference.Write(st, exportedAt)
	for _, want := range []string{"closures", "3 units", "phone"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Write: got %v, want a refusal naming %s", err, want)
		}
	}
	st = readFile(t, "testdata/double_bookings.json", berlin).State
	st.Business.Location = nil
	if _, err := reference.Write(st, exportedAt); err == nil {
		t.Error("Write of a state without a time zone: got nil error")
	}
}
