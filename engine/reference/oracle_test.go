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
	"time"

	"github.com/koredyne/schedule/engine"
	"github.com/koredyne/schedule/engine/reference"
	"github.com/koredyne/schedule/engine/reference/referencetest"
)

// refExport is the export as the reference's own state: its rows, with each
// class's coaches listed as getState lists them (the main coach, then
// class_coaches by sort and name).
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
			CoachID    int64 `json:"coach_id"`
		}
		ClassCoaches []struct {
			ClassID int64 `json:"class_id"`
			CoachID int64 `json:"coach_id"`
			Sort    int64 `json:"sort"`
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
			ID          int64
			Name        string
			AnchorDate  string  `json:"anchor_date"`
			EndDate     *string `json:"end_date"`
			CycleLength int     `json:"cycle_length"`
		}
		PackageEntries []struct {
			ID           int64
			PackageID    int64 `json:"package_id"`
			SlotID       int64 `json:"slot_id"`
			ClassID      int64 `json:"class_id"`
			WeekPosition int   `json:"week_position"`
		} `json:"package_entries"`
		OneOffs []struct {
			ID        int64
			ClassID   int64  `json:"class_id"`
			AreaID    int64  `json:"area_id"`
			Date      string `json:"date"`
			StartTime string `json:"start_time"`
			EndTime   string `json:"end_time"`
		} `json:"one_offs"`
		SessionChanges []struct {
			Date       string  `json:"date"`
			SlotID     int64   `json:"slot_id"`
			ClassID    int64   `json:"class_id"`
			Cancelled  any     `json:"cancelled"`
			NewDate    *string `json:"new_date"`
			AreaID     *int64  `json:"area_id"`
			StartTime  *string `json:"start_time"`
			EndTime    *string `json:"end_time"`
			NewClassID *int64  `json:"new_class_id"`
		} `json:"session_changes"`
	}
}

// truthy reads a reference boolean: 1/0 as SQLite stores them; absent is def.
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
	packages map[int64]string // id → name
	areas    map[int64]string
	activity map[int64]string   // class → activity name
	staff    map[int64][]string // class → coaches, main first
}

func newOracle(t *testing.T, b []byte) *oracle {
	t.Helper()
	o := &oracle{packages: map[int64]string{}, areas: map[int64]string{}, activity: map[int64]string{}, staff: map[int64][]string{}}
	if err := json.Unmarshal(b, &o.x); err != nil {
		t.Fatal(err)
	}
	tb := &o.x.Tables
	for _, p := range tb.Packages {
		o.packages[p.ID] = p.Name
	}
	for _, a := range tb.Areas {
		o.areas[a.ID] = a.Name
	}
	coaches := map[int64]string{}
	for _, c := range tb.Coaches {
		coaches[c.ID] = c.Name
	}
	acts := map[int64]string{}
	for _, a := range tb.Activities {
		acts[a.ID] = a.Name
	}
	links := slices.Clone(tb.ClassCoaches)
	sort.SliceStable(links, func(i, j int) bool {
		a, b := links[i], links[j]
		if a.Sort != b.Sort {
			return a.Sort < b.Sort
		}
		return coaches[a.CoachID] < coaches[b.CoachID]
	})
	for _, c := range tb.Classes {
		o.activity[c.ID] = acts[c.ActivityID]
		o.staff[c.ID] = []string{coaches[c.CoachID]}
		for _, l := range links {
			if l.ClassID == c.ID && l.CoachID != c.CoachID {
				o.staff[c.ID] = append(o.staff[c.ID], coaches[l.CoachID])
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

// refSession is one row of the reference's resolveDate: one package entry
// on a date (with its day change applied), or a one-off.
type refSession struct {
	slot, class, pkg, area int64
	start, end             string
	gap, cancelled         bool
	origin                 engine.Date // the date the package puts it on
	originClass            int64       // the class the package puts there
	oneOff                 int64
}

// packageSessions is the reference's packageSessions: every entry whose
// package is running and in its week on x, on a slot of x's weekday.
func (o *oracle) packageSessions(x engine.Date) []refSession {
	tb := &o.x.Tables
	entries := slices.Clone(tb.PackageEntries)
	sort.SliceStable(entries, func(i, j int) bool {
		a, b := entries[i], entries[j]
		if a.PackageID != b.PackageID {
			return a.PackageID < b.PackageID
		}
		if a.SlotID != b.SlotID {
			return a.SlotID < b.SlotID
		}
		return a.WeekPosition < b.WeekPosition
	})
	var out []refSession
	for _, e := range entries {
		for _, p := range tb.Packages {
			if p.ID != e.PackageID {
				continue
			}
			anchor := day(p.AnchorDate)
			if x < anchor || (p.EndDate != nil && x >= day(*p.EndDate)) || int(x-anchor)/7%p.CycleLength+1 != e.WeekPosition {
				continue
			}
			for _, sl := range tb.Slots {
				if sl.ID == e.SlotID && sl.Day == int(x.Weekday()) {
					out = append(out, refSession{slot: sl.ID, class: e.ClassID, pkg: p.ID, area: sl.AreaID, start: sl.StartTime,
						end: sl.EndTime, gap: !truthy(sl.Active, true), origin: x, originClass: e.ClassID})
				}
			}
		}
	}
	return out
}

// resolveDate is the reference's resolveDate: the package sessions with
// their changes, those moved in from other dates, then the one-offs.
func (o *oracle) resolveDate(x engine.Date) []refSession {
	tb := &o.x.Tables
	apply := func(s refSession, i int) refSession {
		ch := tb.SessionChanges[i]
		if ch.AreaID != nil {
			s.area = *ch.AreaID
		}
		if ch.StartTime != nil {
			s.start = *ch.StartTime
		}
		if ch.EndTime != nil {
			s.end = *ch.EndTime
		}
		if ch.NewClassID != nil {
			s.class = *ch.NewClassID
		}
		s.cancelled = truthy(ch.Cancelled, false)
		return s
	}
	change := func(d engine.Date, slot, class int64) int {
		for i, ch := range tb.SessionChanges {
			if day(ch.Date) == d && ch.SlotID == slot && ch.ClassID == class {
				return i
			}
		}
		return -1
	}
	var out []refSession
	for _, s := range o.packageSessions(x) {
		switch i := change(x, s.slot, s.class); {
		case i < 0:
			out = append(out, s)
		case tb.SessionChanges[i].NewDate == nil || day(*tb.SessionChanges[i].NewDate) == x:
			out = append(out, apply(s, i))
		}
	}
	for i, ch := range tb.SessionChanges {
		if ch.NewDate == nil || day(*ch.NewDate) != x {
			continue
		}
		for _, s := range o.packageSessions(day(ch.Date)) {
			if s.slot == ch.SlotID && s.class == ch.ClassID {
				out = append(out, apply(s, i))
			}
		}
	}
	for _, oo := range tb.OneOffs {
		if day(oo.Date) == x {
			out = append(out, refSession{class: oo.ClassID, area: oo.AreaID, start: oo.StartTime, end: oo.EndTime, oneOff: oo.ID, origin: x})
		}
	}
	return out
}

// day returns the real sessions of date x: the reference's rows without the
// gaps (sessions on switched-off slots), one per session with every package
// it belongs to. The reference groups its rows by slot and class; a session
// moved onto another of its class and slot, or given the class of another
// in its slot, is a session of its own here (the double booking the
// reference misses), so rows are told apart by their original date and
// class too.
func (o *oracle) day(x engine.Date) []string {
	type key struct {
		slot, class, oneOff int64
		origin              engine.Date
		originClass         int64
	}
	byKey := map[key]*referencetest.Session{}
	var order []key
	for _, s := range o.resolveDate(x) {
		if s.gap {
			continue
		}
		k := key{s.slot, s.class, s.oneOff, s.origin, s.originClass}
		if out, ok := byKey[k]; ok {
			if name := o.packages[s.pkg]; !slices.Contains(out.Packages, name) {
				out.Packages = append(out.Packages, name)
			}
			continue
		}
		out := &referencetest.Session{Date: x.String(), Start: s.start, End: s.end, Room: o.areas[s.area], Activity: o.activity[s.class],
			Staff: strings.Join(o.staff[s.class], ", "), Cancelled: s.cancelled}
		if s.origin != x {
			out.From = s.origin.String()
		}
		if s.pkg != 0 {
			out.Packages = []string{o.packages[s.pkg]}
		}
		byKey[k] = out
		order = append(order, k)
	}
	out := make([]referencetest.Session, len(order))
	for i, k := range order {
		out[i] = *byKey[k]
	}
	return referencetest.Canonical(out)
}

type span struct{ from, to string } // to exclusive

// stats counts what a comparison covered, so a test can show it compared
// something real.
type stats struct {
	dates, sessions, shared, cancelled, oneOffs int
	failed                                      int
}

func compareDays(t *testing.T, b []byte, opts reference.Options, spans ...span) stats {
	t.Helper()
	return compareDaysApart(t, b, opts, nil, spans...)
}

// compareDaysApart is compareDays for an export holding twin classes the
// importer kept apart: the sessions of each class in apart show the
// activity it names.
func compareDaysApart(t *testing.T, b []byte, opts reference.Options, apart map[int64]string, spans ...span) stats {
	t.Helper()
	imp, err := reference.Read(bytes.NewReader(b), opts)
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	tt, err := engine.New(imp.State)
	if err != nil {
		t.Fatalf("engine.New: %v", err)
	}
	o := newOracle(t, b)
	for class, activity := range apart {
		o.activity[class] = activity
	}
	var st stats
	for _, sp := range spans {
		for x := day(sp.from); x < day(sp.to); x++ {
			got, want := describe(tt, imp, x), o.day(x)
			st.dates++
			if !slices.Equal(got, want) {
				t.Errorf("%s (%s):\ngot\n\t%s\nwant\n\t%s", x, x.Weekday(), strings.Join(got, "\n\t"), strings.Join(want, "\n\t"))
				if st.failed++; st.failed > 5 {
					t.FailNow()
				}
				continue
			}
			for _, s := range tt.Day(x) {
				st.sessions++
				if len(s.Series) > 1 {
					st.shared++
				}
				if s.Cancelled {
					st.cancelled++
				}
				if s.IsOneOff() {
					st.oneOffs++
				}
			}
		}
	}
	return st
}

func fixture(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// zone loads an IANA zone for a test.
func zone(t *testing.T, name string) *time.Location {
	t.Helper()
	loc, err := time.LoadLocation(name)
	if err != nil {
		t.Fatal(err)
	}
	return loc
}

func TestDaysMatchTheReference(t *testing.T) {
	kuwait := reference.Options{Location: zone(t, "Asia/Kuwait"), WeekStart: time.Sunday}
	t.Run("gym", func(t *testing.T) {
		st := compareDays(t, fixture(t, "testdata/gym.json"), kuwait, span{"2024-09-01", "2027-09-01"})
		t.Logf("compared %d dates, %d sessions (%d shared by several packages, %d cancelled, %d one-offs)",
			st.dates, st.sessions, st.shared, st.cancelled, st.oneOffs)
		if st.dates != 1095 || st.sessions < 1500 || st.shared < 400 || st.cancelled < 3 || st.oneOffs != 3 {
			t.Errorf("the comparison covered too little: %+v", st)
		}
	})
	berlin := reference.Options{Location: zone(t, "Europe/Berlin"), WeekStart: time.Monday}
	t.Run("double bookings", func(t *testing.T) {
		st := compareDays(t, fixture(t, "testdata/double_bookings.json"), berlin,
			span{"2023-06-01", "2026-06-01"}, span{"2030-09-01", "2030-11-01"})
		t.Logf("compared %d dates, %d sessions", st.dates, st.sessions)
		if st.dates != 1096+61 || st.sessions < 450 {
			t.Errorf("the comparison covered too little: %+v", st)
		}
	})
	// Into a business whose weeks start on Monday, every package's Sunday
	// anchor is the last day of one of our weeks.
	t.Run("gym into a business of Monday weeks", func(t *testing.T) {
		st := compareDays(t, fixture(t, "testdata/gym.json"), reference.Options{Location: kuwait.Location, WeekStart: time.Monday},
			span{"2024-09-01", "2027-09-01"})
		if st.sessions < 1500 {
			t.Errorf("the comparison covered too little: %+v", st)
		}
	})
	t.Run("double bookings into a business of Sunday weeks", func(t *testing.T) {
		compareDays(t, fixture(t, "testdata/double_bookings.json"), reference.Options{Location: berlin.Location, WeekStart: time.Sunday},
			span{"2023-06-01", "2026-06-01"})
	})
}
