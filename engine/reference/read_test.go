package reference_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/koredyne/schedule/engine"
	"github.com/koredyne/schedule/engine/reference"
)

func readFile(t *testing.T, path string, opts reference.Options) *reference.Import {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	imp, err := reference.Read(f, opts)
	if err != nil {
		t.Fatalf("Read(%s): %v", path, err)
	}
	return imp
}

func seriesByID(st engine.State, id int64) engine.Series {
	for _, s := range st.Series {
		if s.ID == id {
			return s
		}
	}
	return engine.Series{}
}

func TestReadGym(t *testing.T) {
	imp := readFile(t, "testdata/gym.json", reference.Options{Location: zone(t, "Asia/Kuwait")})
	st := imp.State
	if err := engine.Validate(st); err != nil {
		t.Fatalf("Validate: got %v, want nil", err)
	}
	b := st.Business
	if b.Name != "Harbor Combat Club" || b.Kind != engine.Gym || b.Currency != "KD" || b.Location.String() != "Asia/Kuwait" || b.WeekStart != 0 {
		t.Errorf("business: got %+v", b)
	}
	if imp.ExportedAt != "2025-09-14T08:00:00Z" {
		t.Errorf("ExportedAt: got %q", imp.ExportedAt)
	}

	t.Run("counts", func(t *testing.T) {
		want := map[string]int{
			"settings": 3, "areas": 4, "coaches": 8, "activities": 7, "classes": 12, "class_coaches": 3, "slots": 21,
			"packages": 10, "package_entries": 37, "package_plans": 8, "members": 6, "package_members": 6,
			"one_offs": 3, "one_off_members": 5, "session_changes": 14,
		}
		for k, n := range want {
			if imp.Counts[k] != n {
				t.Errorf("Counts[%s]: got %d, want %d", k, imp.Counts[k], n)
			}
		}
		if got := [...]int{len(st.Rooms), len(st.Staff), len(st.Classes), len(st.ClassTimes), len(st.Series), len(st.Entries),
			len(st.Plans), len(st.Clients), len(st.Subscriptions), len(st.OneOffs), len(st.Changes)}; got != [...]int{4, 8, 12, 21, 12, 39, 8, 6, 6, 3, 13} {
			t.Errorf("rooms, staff, classes, class times, series, entries, plans, clients, subscriptions, one-offs, changes: got %v", got)
		}
	})

	t.Run("prices are exact thousandths", func(t *testing.T) {
		want := map[int64]engine.Money{1: 47500, 2: 120000, 3: 65750, 4: 650000, 5: 35125, 6: 40000, 7: 90000, 8: 25500}
		for _, p := range st.Plans {
			if p.Price != want[p.ID] {
				t.Errorf("plan %d: got %s, want %s", p.ID, p.Price, want[p.ID])
			}
		}
		if p := st.Plans[1]; p.PerMonth != 0 || p.Months != 3 || p.SeriesID != 1 {
			t.Errorf("plan 2 (unlimited, 3 months): got %+v", p)
		}
	})

	t.Run("clients, subscriptions, one-off members", func(t *testing.T) {
		if c := st.Clients[2]; c.Name != "Maryam Haddad" || c.Email != "" {
			t.Errorf("client 3: got %+v", c)
		}
		s := st.Subscriptions[2]
		if s.ClientID != 3 || s.SeriesID != 3 || s.PlanID != 6 || s.Start != day("2025-09-03") || s.End != 0 {
			t.Errorf("subscription 3: got %+v", s)
		}
		if s := st.Subscriptions[4]; s.ID != 5 || s.PlanID != 0 || s.End != day("2026-08-31") {
			t.Errorf("subscription 5 (no plan, inclusive end): got %+v", s)
		}
		if got := st.OneOffs[1].ClientIDs; !slices.Equal(got, []int64{1, 2}) {
			t.Errorf("one-off 2 members: got %v, want [1 2]", got)
		}
		if o := st.OneOffs[2]; o.ID != 4 || o.Label != "Fight camp" || o.Note != "Bring shin guards" || !slices.Equal(o.ClientIDs, []int64{4, 5}) {
			t.Errorf("one-off 4: got %+v", o)
		}
	})

	t.Run("classes keep their coaches in order", func(t *testing.T) {
		for _, c := range st.Classes {
			if c.ID == 10 && !slices.Equal(c.StaffIDs, []int64{8, 5}) {
				t.Errorf("class 10: got staff %v, want [8 5] (Kenji main by sort_order)", c.StaffIDs)
			}
		}
	})

	t.Run("packages starting or ending mid-week", func(t *testing.T) {
		cases := []struct {
			name        string
			id          int64
			anchor, end string
			cycle       int
			pkg         int64
			entries     int
		}{
			{"weekly from a Tuesday moves back to Sunday", 4, "2025-08-31", "", 1, 4, 2},
			{"weekly from a Thursday moves on to Sunday", 6, "2025-09-07", "", 1, 6, 1},
			{"2-week from a Wednesday starts the Sunday after", 3, "2025-09-07", "", 2, 3, 4},
			{"its first, partial week is a one-week series", 11, "2025-08-31", "2025-09-07", 1, 3, 1},
			{"ending on a Thursday stops the Sunday before", 10, "2026-02-15", "2026-03-15", 1, 10, 2},
			{"its last, partial week is a one-week series", 12, "2026-03-15", "2026-03-22", 1, 10, 1},
			{"a package on week starts is unchanged", 9, "2025-06-01", "2025-08-31", 1, 9, 1},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				s := seriesByID(st, c.id)
				var end engine.Date
				if c.end != "" {
					end = day(c.end)
				}
				n := 0
				for _, e := range st.Entries {
					if e.SeriesID == c.id {
						n++
					}
				}
				if s.Anchor != day(c.anchor) || s.End != end || s.Cycle != c.cycle || imp.Packages[c.id] != c.pkg || n != c.entries {
					t.Errorf("got %+v (package %d, %d entries), want anchor %s end %s cycle %d package %d, %d entries",
						s, imp.Packages[c.id], n, c.anchor, c.end, c.cycle, c.pkg, c.entries)
				}
			})
		}
		// BJJ's weeks run Wednesday to Tuesday; ours, from 7 Sep, Sunday to
		// Saturday, so its Wednesday and Saturday entries fall a week later
		// in our rotation and its Sunday and Monday ones stay.
		want := map[int64]int{9: 1, 10: 2, 11: 2, 12: 1}
		for _, e := range st.Entries {
			if w, ok := want[e.ID]; ok && e.Week != w {
				t.Errorf("entry %d: got week %d, want %d", e.ID, e.Week, w)
			}
		}
	})

	t.Run("notes", func(t *testing.T) {
		want := []string{
			"packages: package 3 ", "packages: package 4 ", "packages: package 6 ", "packages: package 10 ",
			"session_changes: session change 8 changes nothing",
			"session_changes: session change 9 names no session",
		}
		var got []string
		for _, n := range imp.Notes {
			got = append(got, n.String())
		}
		if len(got) != len(want) {
			t.Fatalf("got %d notes, want %d:\n%s", len(got), len(want), strings.Join(got, "\n"))
		}
		for i := range want {
			if !strings.HasPrefix(got[i], want[i]) {
				t.Errorf("note %d: got %q, want it to start %q", i, got[i], want[i])
			}
		}
	})

	t.Run("changes keep only what differs", func(t *testing.T) {
		for _, c := range st.Changes {
			switch {
			case c.Ref.Date == day("2025-09-07"): // moved to Saturday, same room
				if c.RoomID != 0 || c.Date != day("2025-09-06") || c.Start == nil || c.End == nil {
					t.Errorf("change 13: got %+v", c)
				}
			case c.Ref.Date == day("2025-09-09") && c.Ref.ClassTimeID == 8: // the class's own coaches
				if c.StaffIDs != nil || c.Note != "Bring gloves" {
					t.Errorf("change 14: got %+v", c)
				}
			}
		}
	})

	t.Run("clash-free", func(t *testing.T) {
		r, err := engine.Clashes(st, day("2024-06-01"))
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range r.Clashes {
			t.Errorf("got clash %s", c.Message)
		}
	})
}

// TestDoubleBookingsImport checks that the double bookings the reference let
// through import, and that the clash proof then finds each with its first
// date.
func TestDoubleBookingsImport(t *testing.T) {
	imp := readFile(t, "testdata/double_bookings.json", reference.Options{Location: zone(t, "Europe/Berlin"), WeekStart: time.Monday})
	// Yoga of 3 Mar moved onto its own next session, which the reference
	// shows as one session: here it is two, and a clash.
	if len(imp.Notes) != 1 || !strings.Contains(imp.Notes[0].String(), "session change 1 puts class 1 in slot 1 on 2025-03-10") {
		t.Errorf("notes: got %v, want one on session change 1", imp.Notes)
	}
	if imp.State.Business.WeekStart != 1 || imp.State.Business.Location.String() != "Europe/Berlin" {
		t.Errorf("business: got %+v", imp.State.Business)
	}
	tt, err := engine.New(imp.State)
	if err != nil {
		t.Fatal(err)
	}
	type clash struct {
		kind         engine.ClashKind
		what         string // room or person
		first, until string
		every        int
	}
	describe := func(r engine.Report) []clash {
		var out []clash
		for _, c := range r.Clashes {
			what := c.Staff
			if c.Kind == engine.RoomClash {
				room, _ := tt.Room(c.RoomID)
				what = room.Name
			}
			out = append(out, clash{c.Kind, what, c.First.String(), c.Until.String(), c.Every})
		}
		return out
	}
	cases := []struct {
		name  string
		today string
		want  []clash
	}{
		{"from before the first", "2023-12-04", []clash{
			// Boxfit Winter ran over the late Yoga in the Hall in early 2024.
			{engine.RoomClash, "Hall", "2024-01-03", "2024-03-27", 1},
			// Yoga of 3 Mar moved onto its own next occurrence.
			{engine.RoomClash, "Hall", "2025-03-10", "2025-03-10", 0},
			{engine.StaffClash, "Anna Schmidt", "2025-03-10", "2025-03-10", 0},
			// Pilates and Spinning both moved to the Studio on 15 Mar.
			{engine.RoomClash, "Studio", "2025-03-15", "2025-03-15", 0},
			// The 47- and 52-week Karate rotations first meet in week 301,
			// past the reference's 208-week scan, then every 2444 weeks.
			{engine.RoomClash, "Dojo", "2030-10-08", "", 47 * 52},
		}},
		{"from after the past ones", "2025-03-17", []clash{
			{engine.RoomClash, "Dojo", "2030-10-08", "", 47 * 52},
		}},
		{"from later in the week of a clash: the proof starts on the week start", "2025-03-12", []clash{
			{engine.RoomClash, "Hall", "2025-03-10", "2025-03-10", 0},
			{engine.StaffClash, "Anna Schmidt", "2025-03-10", "2025-03-10", 0},
			{engine.RoomClash, "Studio", "2025-03-15", "2025-03-15", 0},
			{engine.RoomClash, "Dojo", "2030-10-08", "", 47 * 52},
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := describe(tt.Clashes(day(c.today)))
			if !slices.Equal(got, c.want) {
				t.Errorf("Clashes(%s):\ngot  %v\nwant %v", c.today, got, c.want)
			}
		})
	}
}

// export builds a small valid export in the reference's format, as data,
// for tests that change one thing in it.
func export() map[string]any {
	return map[string]any{
		"format": "recurring-scheduler-export", "version": 1, "exportedAt": "2025-09-01T08:00:00.000Z",
		"tables": map[string]any{
			"settings": []any{
				map[string]any{"key": "kind", "value": "gym"},
				map[string]any{"key": "name", "value": "Test Gym"},
				map[string]any{"key": "currency", "value": "KD"},
			},
			"areas":         []any{map[string]any{"id": 1, "name": "Ring", "sort": 0}},
			"coaches":       []any{map[string]any{"id": 1, "name": "Marco Reyes"}},
			"activities":    []any{map[string]any{"id": 1, "name": "Boxing", "color": "#e5484d"}},
			"classes":       []any{map[string]any{"id": 1, "activity_id": 1, "coach_id": 1}},
			"class_coaches": []any{},
			"slots": []any{map[string]any{"id": 1, "area_id": 1, "day": 0, "start_time": "18:00", "end_time": "19:00", "label": "Adults",
				"capacity": 20, "type": "group", "buffer_minutes": 0, "active": 1}},
			"packages": []any{map[string]any{"id": 1, "name": "Boxing", "anchor_date": "2025-08-31", "end_date": nil, "cycle_length": 2}},
			"package_entries": []any{
				map[string]any{"id": 1, "package_id": 1, "slot_id": 1, "class_id": 1, "week_position": 1},
			},
			"package_plans": []any{map[string]any{"id": 1, "package_id": 1, "label": nil, "classes_per_month": 8, "months": 1, "price": 47.5}},
			"members":       []any{map[string]any{"id": 1, "name": "Noor", "email": "noor@example.com"}},
			"package_members": []any{
				map[string]any{"package_id": 1, "member_id": 1, "plan_id": 1, "start_date": "2025-09-01", "end_date": nil},
			},
			"one_offs": []any{map[string]any{"id": 1, "date": "2025-09-04", "area_id": 1, "class_id": 1, "start_time": "10:00", "end_time": "11:00",
				"label": "Private lesson", "note": nil}},
			"one_off_members": []any{map[string]any{"one_off_id": 1, "member_id": 1}},
			"session_changes": []any{
				map[string]any{"id": 1, "date": "2025-09-14", "slot_id": 1, "class_id": 1, "cancelled": 1, "new_date": nil,
					"area_id": nil, "start_time": nil, "end_time": nil, "new_class_id": nil, "note": nil},
			},
		},
	}
}

// add appends rows to a table.
func add(x map[string]any, table string, rows ...map[string]any) {
	tb := x["tables"].(map[string]any)
	list, _ := tb[table].([]any)
	for _, r := range rows {
		list = append(list, r)
	}
	tb[table] = list
}

// set changes one field of one row: set(x, "areas", 0, "name", "Hall"); a
// nil value deletes the field.
func set(x map[string]any, table string, i int, field string, v any) {
	r := x["tables"].(map[string]any)[table].([]any)[i].(map[string]any)
	if v == nil {
		delete(r, field)
		return
	}
	r[field] = v
}

func read(t *testing.T, x map[string]any) (*reference.Import, error) {
	t.Helper()
	b, err := json.Marshal(x)
	if err != nil {
		t.Fatal(err)
	}
	return reference.Read(strings.NewReader(string(b)), reference.Options{Location: time.UTC})
}

func TestUnknownsAreReported(t *testing.T) {
	cases := []struct {
		name  string
		edit  func(x map[string]any)
		table string
		field string
	}{
		{"a table", func(x map[string]any) { x["tables"].(map[string]any)["bookings"] = []any{} }, "bookings", ""},
		{"a column", func(x map[string]any) { set(x, "areas", 0, "colour", "red") }, "areas", "colour"},
		{"a column of a link table", func(x map[string]any) { set(x, "one_off_members", 0, "role", "guest") }, "one_off_members", "role"},
		{"a setting", func(x map[string]any) { add(x, "settings", map[string]any{"key": "logo_url", "value": "x.png"}) }, "settings", "logo_url"},
		{"a top-level field", func(x map[string]any) { x["schema"] = "v1" }, "", "schema"},
		{"a null column", func(x map[string]any) { set(x, "members", 0, "birthday", json.RawMessage("null")) }, "members", "birthday"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			x := export()
			c.edit(x)
			imp, err := read(t, x)
			if err != nil {
				t.Fatalf("Read: %v", err)
			}
			if len(imp.Notes) != 1 || imp.Notes[0].Table != c.table || imp.Notes[0].Field != c.field {
				t.Fatalf("notes: got %v, want one for %q/%q", imp.Notes, c.table, c.field)
			}
			t.Log(imp.Notes[0])
		})
	}
	t.Run("the plain export has none", func(t *testing.T) {
		imp, err := read(t, export())
		if err != nil {
			t.Fatal(err)
		}
		if len(imp.Notes) != 0 {
			t.Errorf("notes: got %v", imp.Notes)
		}
	})
}

func TestBadExports(t *testing.T) {
	type where struct {
		table string
		id    int64
		row   int
		field string
	}
	cases := []struct {
		name string
		edit func(x map[string]any)
		want where
		msg  string // part of the problem's message
	}{
		{"another format", func(x map[string]any) { x["format"] = "csv-dump" }, where{"", 0, 0, "format"}, `"csv-dump"`},
		{"another version", func(x map[string]any) { x["version"] = 2 }, where{"", 0, 0, "version"}, "is 2"},
		{"no version", func(x map[string]any) { delete(x, "version") }, where{"", 0, 0, "version"}, "is missing"},
		{"no tables", func(x map[string]any) { delete(x, "tables") }, where{"", 0, 0, "tables"}, "is missing"},
		{"a table that is not a list", func(x map[string]any) { x["tables"].(map[string]any)["areas"] = map[string]any{} }, where{"areas", 0, 0, ""}, "list of rows"},
		{"a row that is not an object", func(x map[string]any) { x["tables"].(map[string]any)["areas"] = []any{7} }, where{"areas", 0, 1, ""}, "not an object"},
		{"a missing id", func(x map[string]any) { set(x, "areas", 0, "id", nil) }, where{"areas", 0, 1, "id"}, "is missing"},
		{"a zero id", func(x map[string]any) { set(x, "coaches", 0, "id", 0) }, where{"coaches", 0, 1, "id"}, "positive"},
		{"a repeated id", func(x map[string]any) { add(x, "coaches", map[string]any{"id": 1, "name": "Sami"}) }, where{"coaches", 1, 0, "id"}, "two rows"},
		{"an id as text", func(x map[string]any) { set(x, "slots", 0, "area_id", "1") }, where{"slots", 1, 0, "area_id"}, "not the text"},
		{"a fractional id", func(x map[string]any) { set(x, "slots", 0, "area_id", 1.5) }, where{"slots", 1, 0, "area_id"}, "whole number"},
		{"a missing name", func(x map[string]any) { set(x, "areas", 0, "name", nil) }, where{"areas", 1, 0, "name"}, "is missing"},
		{"a blank name", func(x map[string]any) { set(x, "activities", 0, "name", "  ") }, where{"activities", 1, 0, "name"}, "is empty"},
		{"a class without its main coach", func(x map[string]any) { set(x, "classes", 0, "coach_id", nil) }, where{"classes", 1, 0, "coach_id"}, "is missing"},
		{"a class of no coach", func(x map[string]any) { set(x, "classes", 0, "coach_id", 7) }, where{"classes", 1, 0, "coach_id"}, "coach 7"},
		{"another coach who is not a coach", func(x map[string]any) {
			add(x, "class_coaches", map[string]any{"class_id": 1, "coach_id": 9, "sort": 0})
		}, where{"class_coaches", 0, 1, "coach_id"}, "coach 9"},
		{"a day out of range", func(x map[string]any) { set(x, "slots", 0, "day", 7) }, where{"slots", 1, 0, "day"}, "0 (Sunday) to 6"},
		{"a bad time", func(x map[string]any) { set(x, "slots", 0, "start_time", "6pm") }, where{"slots", 1, 0, "start_time"}, "HH:MM"},
		{"an end before the start", func(x map[string]any) { set(x, "slots", 0, "end_time", "17:00") }, where{"slots", 1, 0, "end_time"}, "after the start"},
		{"a slot in no area", func(x map[string]any) { set(x, "slots", 0, "area_id", 9) }, where{"slots", 1, 0, "area_id"}, "area 9"},
		{"a bad boolean", func(x map[string]any) { set(x, "slots", 0, "active", "yes") }, where{"slots", 1, 0, "active"}, "true or false"},
		{"a date that does not exist", func(x map[string]any) { set(x, "packages", 0, "anchor_date", "2025-02-30") }, where{"packages", 1, 0, "anchor_date"}, "not a real date"},
		{"a date in another format", func(x map[string]any) { set(x, "packages", 0, "anchor_date", "31/08/2025") }, where{"packages", 1, 0, "anchor_date"}, "YYYY-MM-DD"},
		{"a package ending before it starts", func(x map[string]any) { set(x, "packages", 0, "end_date", "2025-08-31") }, where{"packages", 1, 0, "end_date"}, "after the anchor date"},
		{"a rotation too long", func(x map[string]any) { set(x, "packages", 0, "cycle_length", 53) }, where{"packages", 1, 0, "cycle_length"}, "1 to 52"},
		{"no rotation", func(x map[string]any) { set(x, "packages", 0, "cycle_length", nil) }, where{"packages", 1, 0, "cycle_length"}, "is missing"},
		{"an entry in week 0", func(x map[string]any) { set(x, "package_entries", 0, "week_position", 0) }, where{"package_entries", 1, 0, "week_position"}, "count from 1"},
		{"an entry for no package", func(x map[string]any) { set(x, "package_entries", 0, "package_id", 4) }, where{"package_entries", 1, 0, "package_id"}, "package 4"},
		{"two classes in one slot and week", func(x map[string]any) {
			add(x, "coaches", map[string]any{"id": 2, "name": "Sami"})
			add(x, "classes", map[string]any{"id": 2, "activity_id": 1, "coach_id": 2})
			add(x, "package_entries", map[string]any{"id": 2, "package_id": 1, "slot_id": 1, "class_id": 2, "week_position": 1})
		}, where{"package_entries", 2, 0, "class_id"}, "one class per class time"},
		{"a negative price", func(x map[string]any) { set(x, "package_plans", 0, "price", -5) }, where{"package_plans", 1, 0, "price"}, "0 or more"},
		{"a price as text", func(x map[string]any) { set(x, "package_plans", 0, "price", "47.5") }, where{"package_plans", 1, 0, "price"}, "number"},
		{"zero classes a month", func(x map[string]any) { set(x, "package_plans", 0, "classes_per_month", 0) }, where{"package_plans", 1, 0, "classes_per_month"}, "null for unlimited"},
		{"a subscription to no package", func(x map[string]any) { set(x, "package_members", 0, "package_id", 3) }, where{"package_members", 0, 1, "package_id"}, "package 3"},
		{"a subscription on no plan", func(x map[string]any) { set(x, "package_members", 0, "plan_id", 5) }, where{"package_members", 0, 1, "plan_id"}, "plan 5"},
		{"a subscription ending before it starts", func(x map[string]any) { set(x, "package_members", 0, "end_date", "2025-08-31") }, where{"package_members", 0, 1, "end_date"}, "before the start date"},
		{"a one-off member who is not a member", func(x map[string]any) { set(x, "one_off_members", 0, "member_id", 5) }, where{"one_off_members", 0, 1, "member_id"}, "member 5"},
		{"a change to no slot", func(x map[string]any) { set(x, "session_changes", 0, "slot_id", 3) }, where{"session_changes", 1, 0, "slot_id"}, "slot 3"},
		{"a change to no room", func(x map[string]any) { set(x, "session_changes", 0, "area_id", 3) }, where{"session_changes", 1, 0, "area_id"}, "area 3"},
		{"a change ending before it starts", func(x map[string]any) { set(x, "session_changes", 0, "start_time", "19:30") }, where{"session_changes", 1, 0, "end_time"}, "19:30–19:00"},
		{"a change to a bad date", func(x map[string]any) { set(x, "session_changes", 0, "new_date", "2025-13-01") }, where{"session_changes", 1, 0, "new_date"}, "2025-13-01"},
		{"two changes of one session", func(x map[string]any) {
			add(x, "session_changes", map[string]any{"id": 2, "date": "2025-09-14", "slot_id": 1, "class_id": 1, "note": "x"})
		}, where{"session_changes", 2, 0, "date"}, "already changes"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			x := export()
			c.edit(x)
			imp, err := read(t, x)
			var e *reference.Error
			if !errors.As(err, &e) {
				t.Fatalf("Read: got %v, %v; want a *reference.Error", imp, err)
			}
			p := e.Problems[0]
			if got := (where{p.Table, p.ID, p.Row, p.Field}); got != c.want || !strings.Contains(p.Message, c.msg) {
				t.Errorf("got %+v %q, want %+v and a message with %q", got, p.Message, c.want, c.msg)
			}
			t.Log(err)
		})
	}
	t.Run("not JSON", func(t *testing.T) {
		for _, in := range []string{"[1, 2]", `{"format": "recurring-scheduler-export"} {}`, "", "{"} {
			if _, err := reference.Read(strings.NewReader(in), reference.Options{Location: time.UTC}); err == nil {
				t.Errorf("Read(%q): got nil error", in)
			}
		}
	})
	t.Run("no time zone", func(t *testing.T) {
		b, _ := json.Marshal(export())
		for _, opts := range []reference.Options{{}, {Location: time.Local}, {Location: time.UTC, WeekStart: time.Wednesday}} {
			if _, err := reference.Read(strings.NewReader(string(b)), opts); err == nil {
				t.Errorf("Read with %+v: got nil error", opts)
			}
		}
	})
}

// TestWhatTheReferenceAllows covers data the reference's own checks would
// refuse but a real database can hold (rows from older versions or written
// by hand): it imports, with a note saying what was done.
func TestWhatTheReferenceAllows(t *testing.T) {
	cases := []struct {
		name  string
		edit  func(x map[string]any)
		check func(t *testing.T, st engine.State)
		note  string // part of the one note
	}{
		{"an entry past its cycle never runs", func(x map[string]any) {
			add(x, "package_entries", map[string]any{"id": 2, "package_id": 1, "slot_id": 1, "class_id": 1, "week_position": 3})
		}, func(t *testing.T, st engine.State) {
			if len(st.Entries) != 1 {
				t.Errorf("entries: got %v, want entry 1 alone", st.Entries)
			}
		}, "entry 2 is in week 3 of package 1, which has a 2-week rotation, so it never runs"},
		{"a subscription without dates starts with its package", func(x map[string]any) {
			set(x, "package_members", 0, "start_date", json.RawMessage("null"))
		}, func(t *testing.T, st engine.State) {
			if s := st.Subscriptions[0]; s.Start != day("2025-08-31") || s.End != 0 || s.PlanID != 1 {
				t.Errorf("subscription: got %+v", s)
			}
		}, "no start date"},
		{"a subscription on a plan of another package keeps no plan", func(x map[string]any) {
			add(x, "packages", map[string]any{"id": 2, "name": "Other", "anchor_date": "2025-08-31", "end_date": nil, "cycle_length": 1})
			set(x, "package_members", 0, "package_id", 2)
		}, func(t *testing.T, st engine.State) {
			if s := st.Subscriptions[0]; s.SeriesID != 2 || s.PlanID != 0 {
				t.Errorf("subscription: got %+v", s)
			}
		}, "plan of package 1"},
		{"a plan without a price is free", func(x map[string]any) { set(x, "package_plans", 0, "price", json.RawMessage("null")) },
			func(t *testing.T, st engine.State) {
				if p := st.Plans[0]; p.Price != 0 || p.PerMonth != 8 || p.Months != 1 {
					t.Errorf("plan: got %+v", p)
				}
			}, "no price"},
		{"a price in binary floating point is kept to the thousandth", func(x map[string]any) {
			set(x, "package_plans", 0, "price", json.RawMessage("33.333333333333336"))
		}, func(t *testing.T, st engine.State) {
			if p := st.Plans[0]; p.Price != 33333 {
				t.Errorf("price: got %s, want 33.333", p.Price)
			}
		}, "kept to the thousandth, as 33.333"},
		{"a kind the reference does not know is a gym", func(x map[string]any) { set(x, "settings", 0, "value", "spa") },
			func(t *testing.T, st engine.State) {
				if st.Business.Kind != engine.Gym {
					t.Errorf("kind: got %q", st.Business.Kind)
				}
			}, `"spa" is not a kind`},
		{"no currency is KD", func(x map[string]any) {
			x["tables"].(map[string]any)["settings"] = []any{
				map[string]any{"key": "name", "value": "Test Gym"}}
		},
			func(t *testing.T, st engine.State) {
				if st.Business.Currency != "KD" || st.Business.Kind != engine.Gym {
					t.Errorf("business: got %+v", st.Business)
				}
			}, "prices are in KD"},
		{"a business without a name takes the one given", func(x map[string]any) { set(x, "settings", 1, "value", "") },
			func(t *testing.T, st engine.State) {
				if st.Business.Name != "Fallback" {
					t.Errorf("name: got %q", st.Business.Name)
				}
			}, `called "Fallback"`},
		{"two areas of one name are told apart", func(x map[string]any) { add(x, "areas", map[string]any{"id": 2, "name": "ring", "sort": 1}) },
			func(t *testing.T, st engine.State) {
				if st.Rooms[1].Name != "ring (area 2)" {
					t.Errorf("rooms: got %+v", st.Rooms)
				}
			}, `area 2 is called "ring", as area 1 is`},
		{"the main coach listed again among the others counts once", func(x map[string]any) {
			add(x, "class_coaches", map[string]any{"class_id": 1, "coach_id": 1, "sort": 0})
		}, func(t *testing.T, st engine.State) {
			if c := st.Classes[0]; !slices.Equal(c.StaffIDs, []int64{1}) {
				t.Errorf("class: got %+v", c)
			}
		}, "lists coach 1 (Marco Reyes) twice"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			x := export()
			c.edit(x)
			b, _ := json.Marshal(x)
			imp, err := reference.Read(strings.NewReader(string(b)), reference.Options{Location: time.UTC, Name: "Fallback"})
			if err != nil {
				t.Fatalf("Read: %v", err)
			}
			c.check(t, imp.State)
			if len(imp.Notes) != 1 || !strings.Contains(imp.Notes[0].String(), c.note) {
				t.Errorf("notes: got %v, want one with %q", imp.Notes, c.note)
			}
			if err := engine.Validate(imp.State); err != nil {
				t.Error(err)
			}
		})
	}
	t.Run("coaches after the main one come by sort, then name", func(t *testing.T) {
		x := export()
		add(x, "coaches", map[string]any{"id": 2, "name": "Zed"}, map[string]any{"id": 3, "name": "Amy"}, map[string]any{"id": 4, "name": "Bo"})
		add(x, "class_coaches", map[string]any{"class_id": 1, "coach_id": 2, "sort": 0}, map[string]any{"class_id": 1, "coach_id": 3, "sort": 1},
			map[string]any{"class_id": 1, "coach_id": 4, "sort": 0})
		imp, err := read(t, x)
		if err != nil {
			t.Fatal(err)
		}
		if got := imp.State.Classes[0].StaffIDs; !slices.Equal(got, []int64{1, 4, 2, 3}) {
			t.Errorf("staff: got %v, want [1 4 2 3] (Marco, then Bo and Zed at sort 0, then Amy)", got)
		}
	})
}

func TestDuplicateClasses(t *testing.T) {
	// twin adds class 2: Boxing with the given coaches, the first the main one.
	twin := func(x map[string]any, coaches ...int) {
		add(x, "classes", map[string]any{"id": 2, "activity_id": 1, "coach_id": coaches[0]})
		for i, c := range coaches[1:] {
			add(x, "class_coaches", map[string]any{"class_id": 2, "coach_id": c, "sort": i})
		}
	}
	slot2 := func(x map[string]any) {
		add(x, "slots", map[string]any{"id": 2, "area_id": 1, "day": 1, "start_time": "18:00", "end_time": "19:00", "active": 1})
	}
	t.Run("both in use, never in one slot: merged", func(t *testing.T) {
		x := export()
		twin(x, 1)
		slot2(x)
		add(x, "package_entries", map[string]any{"id": 2, "package_id": 1, "slot_id": 2, "class_id": 2, "week_position": 1})
		set(x, "one_offs", 0, "class_id", 2)
		b, _ := json.Marshal(x)
		imp, err := read(t, x)
		if err != nil {
			t.Fatal(err)
		}
		if len(imp.State.Classes) != 1 || imp.State.OneOffs[0].ClassID != 1 || imp.State.Entries[1].ClassID != 1 {
			t.Errorf("got classes %v, entries %v and one-off class %d, want class 1 alone", imp.State.Classes, imp.State.Entries, imp.State.OneOffs[0].ClassID)
		}
		if len(imp.Notes) != 1 || !strings.Contains(imp.Notes[0].Message, "class 2 is imported as class 1") {
			t.Errorf("notes: got %v", imp.Notes)
		}
		compareDays(t, b, reference.Options{Location: time.UTC}, span{"2025-08-01", "2026-01-01"})
	})
	t.Run("coaches in another order: merged, and said", func(t *testing.T) {
		x := export()
		add(x, "coaches", map[string]any{"id": 2, "name": "Sami"})
		add(x, "class_coaches", map[string]any{"class_id": 1, "coach_id": 2, "sort": 0})
		twin(x, 2, 1)
		slot2(x)
		add(x, "package_entries", map[string]any{"id": 2, "package_id": 1, "slot_id": 2, "class_id": 2, "week_position": 2})
		imp, err := read(t, x)
		if err != nil {
			t.Fatal(err)
		}
		if len(imp.State.Classes) != 1 || len(imp.Notes) != 1 || !strings.Contains(imp.Notes[0].Message, "in the order of class 1") {
			t.Errorf("got classes %v, notes %v", imp.State.Classes, imp.Notes)
		}
	})
	t.Run("in one slot on other weeks: merged", func(t *testing.T) {
		x := export()
		twin(x, 1)
		add(x, "package_entries", map[string]any{"id": 2, "package_id": 1, "slot_id": 1, "class_id": 2, "week_position": 2})
		b, _ := json.Marshal(x)
		imp, err := read(t, x)
		if err != nil {
			t.Fatal(err)
		}
		if len(imp.State.Classes) != 1 || imp.State.ClassTimes[0].Capacity != 20 || len(imp.Notes) != 1 ||
			!strings.Contains(imp.Notes[0].Message, "never run in one slot on one date, so class 2 is imported as class 1") {
			t.Errorf("got classes %v, capacity %d, notes %v", imp.State.Classes, imp.State.ClassTimes[0].Capacity, imp.Notes)
		}
		compareDays(t, b, reference.Options{Location: time.UTC}, span{"2025-08-01", "2026-01-01"})
	})
	t.Run("a third in one slot with the second on other weeks: merged", func(t *testing.T) {
		x := export()
		twin(x, 1)
		add(x, "classes", map[string]any{"id": 3, "activity_id": 1, "coach_id": 1})
		slot2(x)
		add(x, "package_entries",
			map[string]any{"id": 2, "package_id": 1, "slot_id": 2, "class_id": 2, "week_position": 1},
			map[string]any{"id": 3, "package_id": 1, "slot_id": 2, "class_id": 3, "week_position": 2})
		b, _ := json.Marshal(x)
		imp, err := read(t, x)
		if err != nil || len(imp.State.Classes) != 1 || len(imp.Notes) != 2 {
			t.Fatalf("Read: %v, classes %v, notes %v", err, imp.State.Classes, imp.Notes)
		}
		compareDays(t, b, reference.Options{Location: time.UTC}, span{"2025-08-01", "2026-01-01"})
	})

	// A second package (weekly, from the same Sunday) puts the twin in slot
	// 1 in every week; the Boxing package (every other week) puts class 1
	// there in its week 1.
	inStep := func(x map[string]any, cycle int) {
		twin(x, 1)
		add(x, "packages", map[string]any{"id": 2, "name": "All Access", "anchor_date": "2025-08-31", "end_date": nil, "cycle_length": cycle})
		add(x, "package_entries", map[string]any{"id": 2, "package_id": 2, "slot_id": 1, "class_id": 2, "week_position": 1})
	}
	sharedSession := func(t *testing.T, imp *reference.Import, date string) {
		t.Helper()
		tt, err := engine.New(imp.State)
		if err != nil {
			t.Fatal(err)
		}
		ss := tt.Day(day(date))
		if len(ss) != 1 || ss[0].ClassID != 1 || len(ss[0].Series) != 2 {
			t.Errorf("%s: got %+v, want one session of class 1 in both packages", date, ss)
		}
	}
	t.Run("in one slot on one date, always together: one session with the places of both", func(t *testing.T) {
		x := export()
		set(x, "packages", 0, "cycle_length", 1)
		inStep(x, 1)
		add(x, "session_changes", map[string]any{"id": 2, "date": "2025-09-14", "slot_id": 1, "class_id": 2, "cancelled": 1, "note": "Holiday"})
		imp, err := read(t, x)
		if err != nil {
			t.Fatal(err)
		}
		if len(imp.State.Classes) != 1 || imp.State.ClassTimes[0].Capacity != 40 || len(imp.Notes) != 1 ||
			!strings.Contains(imp.Notes[0].Message, "which is one session: class 2 is imported as class 1") ||
			!strings.Contains(imp.Notes[0].Message, "40 in slot 1, which give each of the reference's sessions 20") {
			t.Errorf("got classes %v, capacity %d, notes %v", imp.State.Classes, imp.State.ClassTimes[0].Capacity, imp.Notes)
		}
		sharedSession(t, imp, "2025-09-07")
		// Both sessions of 2025-09-14 are cancelled: one change.
		if len(imp.State.Changes) != 1 || !imp.State.Changes[0].Cancelled || imp.State.Changes[0].Note != "Holiday" {
			t.Errorf("changes: %+v", imp.State.Changes)
		}
	})
	t.Run("in one slot on one date, not always together, without places: one session", func(t *testing.T) {
		x := export()
		set(x, "slots", 0, "capacity", nil)
		set(x, "session_changes", 0, "date", "2025-09-07") // a week class 2 runs alone
		inStep(x, 1)
		imp, err := read(t, x)
		if err != nil {
			t.Fatal(err)
		}
		if len(imp.State.Classes) != 1 || imp.State.ClassTimes[0].Capacity != 0 || len(imp.Notes) != 1 {
			t.Errorf("got classes %v, capacity %d, notes %v", imp.State.Classes, imp.State.ClassTimes[0].Capacity, imp.Notes)
		}
		sharedSession(t, imp, "2025-08-31")
	})
	for _, c := range []struct {
		name, why string
		edit      func(x map[string]any)
	}{
		{"not always together, with places", "they do not always run there together", func(x map[string]any) {
			set(x, "session_changes", 0, "date", "2025-09-07")
		}},
		{"a change of one only", "session change 1 changes class 1's session in slot 1 and nothing changes class 2's", func(x map[string]any) {
			set(x, "packages", 0, "cycle_length", 1)
		}},
		{"the slot holds another class", "also holds class 3", func(x map[string]any) {
			set(x, "packages", 0, "cycle_length", 1)
			set(x, "session_changes", 0, "class_id", 2)
			add(x, "session_changes", map[string]any{"id": 2, "date": "2025-09-14", "slot_id": 1, "class_id": 1, "cancelled": 1})
			add(x, "coaches", map[string]any{"id": 2, "name": "Sami"})
			add(x, "classes", map[string]any{"id": 3, "activity_id": 1, "coach_id": 2})
			add(x, "packages", map[string]any{"id": 3, "name": "Sparring", "anchor_date": "2030-01-06", "end_date": nil, "cycle_length": 1})
			add(x, "package_entries", map[string]any{"id": 3, "package_id": 3, "slot_id": 1, "class_id": 3, "week_position": 1})
		}},
	} {
		t.Run("in one slot on one date, "+c.name+": kept apart", func(t *testing.T) {
			x := export()
			inStep(x, 1)
			c.edit(x)
			b, _ := json.Marshal(x)
			imp, err := read(t, x)
			if err != nil {
				t.Fatal(err)
			}
			said := slices.ContainsFunc(imp.Notes, func(n reference.Note) bool {
				return strings.Contains(n.Message, "so class 2 is imported under an activity of its own") && strings.Contains(n.Message, c.why)
			})
			if len(imp.State.Classes) < 2 || len(imp.State.Activities) < 2 || imp.State.Activities[len(imp.State.Activities)-1].Name != "Boxing (class 2)" ||
				!said || imp.State.ClassTimes[0].Capacity != 20 {
				t.Errorf("got classes %v, activities %v, notes %v", imp.State.Classes, imp.State.Activities, imp.Notes)
			}
			st := compareDaysApart(t, b, reference.Options{Location: time.UTC}, map[int64]string{2: "Boxing (class 2)"}, span{"2025-08-01", "2026-01-01"})
			if st.sessions < 25 {
				t.Errorf("compared %+v", st)
			}
		})
	}
}

// TestControlCharactersRefused: a name holding a control character is
// refused with the engine's words, never stored.
func TestControlCharactersRefused(t *testing.T) {
	x := export()
	set(x, "coaches", 0, "name", "Marco\u0000Reyes")
	if _, err := read(t, x); err == nil || !strings.Contains(err.Error(), "U+0000") {
		t.Fatalf("got %v, want the NUL refused", err)
	}
}

// TestAlikeProblemsCounted breaks every slot of the reference's own gym
// export the same way (their area is gone): the error lists every problem
// in Problems, but writes the first three of the kind and counts the rest,
// while a problem of another kind is still written out.
func TestAlikeProblemsCounted(t *testing.T) {
	b, err := os.ReadFile("testdata/reference/export-gym.json")
	if err != nil {
		t.Fatal(err)
	}
	var x map[string]any
	if err := json.Unmarshal(b, &x); err != nil {
		t.Fatal(err)
	}
	tables := x["tables"].(map[string]any)
	tables["areas"] = []any{}
	slots := len(tables["slots"].([]any))
	tables["packages"].([]any)[0].(map[string]any)["cycle_length"] = 0
	_, err = read(t, x)
	var e *reference.Error
	if !errors.As(err, &e) {
		t.Fatalf("Read: %v, want a *reference.Error", err)
	}
	if len(e.Problems) < slots+1 {
		t.Errorf("%d problems, want one for each of the %d slots and more", len(e.Problems), slots)
	}
	lines := e.Lines()
	more := fmt.Sprintf("and %d more like these in slots, area_id", slots-reference.Alike)
	i := slices.Index(lines, more)
	if i != reference.Alike || !strings.HasPrefix(lines[0], "slots id 1, area_id: names area") {
		t.Errorf("the slots' problems are written\n%s\nwant three and %q", strings.Join(lines, "\n"), more)
	}
	if !slices.ContainsFunc(lines, func(l string) bool { return strings.HasPrefix(l, "packages id 1, cycle_length:") }) {
		t.Errorf("the package's problem is not written out:\n%s", strings.Join(lines, "\n"))
	}
	if len(lines) > 12 || len(err.Error()) > 2000 {
		t.Errorf("%d lines, %d bytes:\n%s", len(lines), len(err.Error()), err)
	}
	t.Logf("%d problems in %d bytes:\n%s", len(e.Problems), len(err.Error()), strings.Join(lines, "\n"))
}

// TestBrokenJSONPlaced cuts the reference's gym export short, and breaks a
// character in it: the error says where, by line, column and byte offset, as
// counted in the file.
func TestBrokenJSONPlaced(t *testing.T) {
	b, err := os.ReadFile("testdata/reference/export-gym.json")
	if err != nil {
		t.Fatal(err)
	}
	opts := reference.Options{Location: time.UTC}
	cut := len(b) / 3
	_, err = reference.Read(strings.NewReader(string(b[:cut])), opts)
	lines := strings.Count(string(b[:cut]), "\n")
	col := cut - strings.LastIndex(string(b[:cut]), "\n")
	want := fmt.Sprintf("ends early, at line %d, column %d (byte offset %d)", lines+1, col, cut)
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("cut short: %v, want %q", err, want)
	}
	at := strings.Index(string(b), `"start_time"`) + len(`"start_time": `)
	bad := []byte(string(b))
	bad[at] = '@'
	lines = strings.Count(string(b[:at]), "\n")
	col = at - strings.LastIndex(string(b[:at]), "\n")
	want = fmt.Sprintf("not valid JSON at line %d, column %d (byte offset %d): invalid character '@'", lines+1, col, at)
	if _, err := reference.Read(strings.NewReader(string(bad)), opts); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("a wrong character: %v, want %q", err, want)
	}
}
