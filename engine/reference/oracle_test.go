package reference_test

// The oracle: the reference system's rules read straight from the export's
// JSON, one date at a time. It shares nothing with the importer or the
// engine beyond engine.Date, so the comparison is between two independent
// readings of the same export.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/koredyne/schedule/engine"
	"github.com/koredyne/schedule/engine/reference"
)

type refExport struct {
	Tables struct {
		Areas []struct {
			ID   int64
			Name string
		}
		Coaches []struct {
			ID   int64
			Name string
		}
		Activities []struct {
			ID   int64
			Name string
		}
		Classes []struct {
			ID         int64
			ActivityID int64 `json:"activity_id"`
		}
		ClassCoaches []struct {
			ClassID   int64 `json:"class_id"`
			CoachID   int64 `json:"coach_id"`
			SortOrder int64 `json:"sort_order"`
		} `json:"class_coaches"`
		Slots []struct {
			ID        int64
			AreaID    int64  `json:"area_id"`
			Day       int    `json:"day"`
			StartTime string `json:"start_time"`
			EndTime   string `json:"end_time"`
			Active    any    `json:"active"`
		}
		Packages []struct {
			ID         int64
			StartDate  string  `json:"start_date"`
			EndDate    *string `json:"end_date"`
			CycleWeeks int     `json:"cycle_weeks"`
		}
		PackageEntries []struct {
			PackageID int64 `json:"package_id"`
			SlotID    int64 `json:"slot_id"`
			ClassID   int64 `json:"class_id"`
			Week      int
		} `json:"package_entries"`
		OneOffs []struct {
			ClassID   int64  `json:"class_id"`
			AreaID    int64  `json:"area_id"`
			Date      string `json:"date"`
			StartTime string `json:"start_time"`
			EndTime   string `json:"end_time"`
			Cancelled any    `json:"cancelled"`
		} `json:"one_offs"`
		SessionChanges []struct {
			Date         string  `json:"date"`
			SlotID       int64   `json:"slot_id"`
			ClassID      int64   `json:"class_id"`
			Cancelled    any     `json:"cancelled"`
			NewDate      *string `json:"new_date"`
			NewAreaID    *int64  `json:"new_area_id"`
			NewStartTime *string `json:"new_start_time"`
			NewEndTime   *string `json:"new_end_time"`
			NewClassID   *int64  `json:"new_class_id"`
			NewCoachIDs  []int64 `json:"new_coach_ids"`
		} `json:"session_changes"`
	}
}

// truthy reads a reference boolean: true/false or 1/0; absent is def.
func truthy(v any, def bool) bool {
	switch v := v.(type) {
	case nil:
		return def
	case bool:
		return v
	case float64:
		return v != 0
	}
	panic(fmt.Sprintf("not a boolean: %v", v))
}

type oracle struct {
	x        refExport
	areas    map[int64]string
	coaches  map[int64]string
	activity map[int64]string // class → activity name
	staff    map[int64][]string
}

func newOracle(t *testing.T, b []byte) *oracle {
	t.Helper()
	o := &oracle{areas: map[int64]string{}, coaches: map[int64]string{}, activity: map[int64]string{}, staff: map[int64][]string{}}
	if err := json.Unmarshal(b, &o.x); err != nil {
		t.Fatal(err)
	}
	tb := &o.x.Tables
	for _, a := range tb.Areas {
		o.areas[a.ID] = a.Name
	}
	for _, c := range tb.Coaches {
		o.coaches[c.ID] = c.Name
	}
	acts := map[int64]string{}
	for _, a := range tb.Activities {
		acts[a.ID] = a.Name
	}
	for _, c := range tb.Classes {
		o.activity[c.ID] = acts[c.ActivityID]
		links := slices.Clone(tb.ClassCoaches)
		sort.Slice(links, func(i, j int) bool { return links[i].SortOrder < links[j].SortOrder })
		for _, l := range links {
			if l.ClassID == c.ID {
				o.staff[c.ID] = append(o.staff[c.ID], o.coaches[l.CoachID])
			}
		}
	}
	return o
}

func day(s string) engine.Date {
	d, err := engine.ParseDate(s)
	if err != nil {
		panic(err)
	}
	return d
}

// session is what both sides are compared on.
type session struct {
	date, start, end, room, activity, staff string
	cancelled                               bool
	packages                                []int64
}

func (s session) String() string {
	return fmt.Sprintf("%s %s–%s %s | %s | %s | cancelled=%v | packages %v", s.date, s.start, s.end, s.room, s.activity, s.staff, s.cancelled, s.packages)
}

type slotClass struct{ slot, class int64 }

// regular returns the package sessions of date x as the rules make them:
// one per (slot, class), listing every package whose week holds it.
func (o *oracle) regular(x engine.Date) map[slotClass][]int64 {
	out := map[slotClass][]int64{}
	tb := &o.x.Tables
	for _, sl := range tb.Slots {
		if sl.Day != int(x.Weekday()) || !truthy(sl.Active, true) {
			continue
		}
		for _, e := range tb.PackageEntries {
			if e.SlotID != sl.ID {
				continue
			}
			for _, p := range tb.Packages {
				if p.ID != e.PackageID {
					continue
				}
				start := day(p.StartDate)
				if x < start || (p.EndDate != nil && x >= day(*p.EndDate)) {
					continue
				}
				if (int(x-start)/7)%p.CycleWeeks+1 == e.Week {
					k := slotClass{sl.ID, e.ClassID}
					if !slices.Contains(out[k], p.ID) {
						out[k] = append(out[k], p.ID)
					}
				}
			}
		}
	}
	return out
}

func (o *oracle) slot(id int64) (area int64, start, end string) {
	for _, s := range o.x.Tables.Slots {
		if s.ID == id {
			return s.AreaID, s.StartTime, s.EndTime
		}
	}
	panic("no slot")
}

// day returns the sessions of date x: the regular ones with their changes,
// those moved in from other dates, and the one-offs.
func (o *oracle) day(x engine.Date) []session {
	var out []session
	tb := &o.x.Tables
	build := func(orig engine.Date, k slotClass, pkgs []int64) (session, bool) {
		area, start, end := o.slot(k.slot)
		class := k.class
		s := session{date: orig.String(), start: start, end: end, packages: slices.Clone(pkgs)}
		var staff []string
		for _, ch := range tb.SessionChanges {
			if day(ch.Date) != orig || ch.SlotID != k.slot || ch.ClassID != k.class {
				continue
			}
			if ch.NewDate != nil {
				s.date = *ch.NewDate
			}
			if ch.NewAreaID != nil {
				area = *ch.NewAreaID
			}
			if ch.NewStartTime != nil {
				s.start = *ch.NewStartTime
			}
			if ch.NewEndTime != nil {
				s.end = *ch.NewEndTime
			}
			if ch.NewClassID != nil {
				class = *ch.NewClassID
			}
			if ch.NewCoachIDs != nil {
				for _, id := range ch.NewCoachIDs {
					staff = append(staff, o.coaches[id])
				}
			}
			s.cancelled = truthy(ch.Cancelled, false)
		}
		if staff == nil {
			staff = o.staff[class]
		}
		s.room, s.activity, s.staff = o.areas[area], o.activity[class], strings.Join(staff, ", ")
		return s, s.date == x.String()
	}
	for k, pkgs := range o.regular(x) {
		if s, ok := build(x, k, pkgs); ok {
			out = append(out, s)
		}
	}
	for _, ch := range tb.SessionChanges {
		if ch.NewDate == nil || day(*ch.NewDate) != x || day(ch.Date) == x {
			continue
		}
		k := slotClass{ch.SlotID, ch.ClassID}
		if pkgs, ok := o.regular(day(ch.Date))[k]; ok {
			s, _ := build(day(ch.Date), k, pkgs)
			out = append(out, s)
		}
	}
	for _, oo := range tb.OneOffs {
		if day(oo.Date) == x {
			out = append(out, session{date: oo.Date, start: oo.StartTime, end: oo.EndTime, room: o.areas[oo.AreaID],
				activity: o.activity[oo.ClassID], staff: strings.Join(o.staff[oo.ClassID], ", "), cancelled: truthy(oo.Cancelled, false)})
		}
	}
	return canonical(out)
}

func canonical(ss []session) []session {
	for i := range ss {
		slices.Sort(ss[i].packages)
	}
	sort.Slice(ss, func(i, j int) bool { return ss[i].String() < ss[j].String() })
	return ss
}

// engineDay is the same date as our engine computes it from the import.
func engineDay(tt *engine.Timetable, imp *reference.Import, x engine.Date) []session {
	var out []session
	for _, s := range tt.Day(x) {
		room, _ := tt.Room(s.RoomID)
		class, _ := tt.Class(s.ClassID)
		act, _ := tt.Activity(class.ActivityID)
		var staff []string
		for _, id := range s.StaffIDs {
			p, _ := tt.StaffMember(id)
			staff = append(staff, p.Name)
		}
		es := session{date: s.Date.String(), start: s.Start.String(), end: s.End.String(), room: room.Name,
			activity: act.Name, staff: strings.Join(staff, ", "), cancelled: s.Cancelled}
		for _, sw := range s.Series {
			es.packages = append(es.packages, imp.Packages[sw.SeriesID])
		}
		out = append(out, es)
	}
	return canonical(out)
}

type span struct{ from, to string } // to exclusive

// stats counts what a comparison covered, so a test can show it compared
// something real.
type stats struct {
	dates, sessions, shared, cancelled, oneOffs int
	failed                                      int
}

func compareDays(t *testing.T, b []byte, spans ...span) stats {
	t.Helper()
	imp, err := reference.Read(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	tt, err := engine.New(imp.State)
	if err != nil {
		t.Fatalf("engine.New: %v", err)
	}
	o := newOracle(t, b)
	var st stats
	for _, sp := range spans {
		for x := day(sp.from); x < day(sp.to); x++ {
			got, want := engineDay(tt, imp, x), o.day(x)
			st.dates++
			if !slices.EqualFunc(got, want, func(a, b session) bool { return a.String() == b.String() }) {
				t.Errorf("%s (%s):\ngot\n\t%s\nwant\n\t%s", x, x.Weekday(), join(got), join(want))
				if st.failed++; st.failed > 5 {
					t.FailNow()
				}
				continue
			}
			for _, s := range want {
				st.sessions++
				if len(s.packages) > 1 {
					st.shared++
				}
				if s.cancelled {
					st.cancelled++
				}
				if s.date != x.String() {
					t.Errorf("%s: a session dated %s", x, s.date)
				}
				if len(s.packages) == 0 {
					st.oneOffs++
				}
			}
		}
	}
	return st
}

func join(ss []session) string {
	parts := make([]string, len(ss))
	for i, s := range ss {
		parts[i] = s.String()
	}
	return strings.Join(parts, "\n\t")
}

func fixture(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// withWeekStart returns the export with its week_start setting replaced.
func withWeekStart(t *testing.T, b []byte, ws string) []byte {
	t.Helper()
	var x map[string]any
	if err := json.Unmarshal(b, &x); err != nil {
		t.Fatal(err)
	}
	for _, r := range x["tables"].(map[string]any)["settings"].([]any) {
		if r := r.(map[string]any); r["key"] == "week_start" {
			r["value"] = ws
		}
	}
	out, err := json.Marshal(x)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestDaysMatchTheReference(t *testing.T) {
	t.Run("gym", func(t *testing.T) {
		st := compareDays(t, fixture(t, "testdata/gym.json"), span{"2024-09-01", "2027-09-01"})
		t.Logf("compared %d dates, %d sessions (%d shared by several packages, %d cancelled, %d one-offs)",
			st.dates, st.sessions, st.shared, st.cancelled, st.oneOffs)
		if st.dates != 1095 || st.sessions < 1500 || st.shared < 400 || st.cancelled < 3 || st.oneOffs != 4 {
			t.Errorf("the comparison covered too little: %+v", st)
		}
	})
	t.Run("double bookings", func(t *testing.T) {
		st := compareDays(t, fixture(t, "testdata/double_bookings.json"),
			span{"2023-06-01", "2026-06-01"}, span{"2030-09-01", "2030-11-01"})
		t.Logf("compared %d dates, %d sessions", st.dates, st.sessions)
		if st.dates != 1096+61 || st.sessions < 450 {
			t.Errorf("the comparison covered too little: %+v", st)
		}
	})
	// With other week starts every package start and end falls elsewhere in
	// our weeks: Sunday starts are the last day of a Monday week.
	for _, ws := range []string{"1", "3", "6"} {
		t.Run("gym with week_start "+ws, func(t *testing.T) {
			st := compareDays(t, withWeekStart(t, fixture(t, "testdata/gym.json"), ws), span{"2024-09-01", "2027-09-01"})
			if st.sessions < 1500 {
				t.Errorf("the comparison covered too little: %+v", st)
			}
		})
		t.Run("double bookings with week_start "+ws, func(t *testing.T) {
			compareDays(t, withWeekStart(t, fixture(t, "testdata/double_bookings.json"), ws), span{"2023-06-01", "2026-06-01"})
		})
	}
}
