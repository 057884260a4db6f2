package demo

import (
	"maps"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/koredyne/schedule/engine"
)

var kinds = []engine.Kind{engine.Gym, engine.Clinic, engine.Office}

// Weeks around the 2026 daylight-saving changes (Berlin and New York spring
// forward on 29 Mar and 8 Mar, fall back on 25 Oct and 1 Nov), given as
// Sundays and Mondays, and one plain December week.
var weeks = []string{"2026-03-08", "2026-03-29", "2026-03-30", "2026-10-25", "2026-10-26", "2026-11-01", "2026-12-06"}

func date(t *testing.T, s string) engine.Date {
	t.Helper()
	d, err := engine.ParseDate(s)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func build(t *testing.T, k engine.Kind, week engine.Date) engine.State {
	t.Helper()
	s, ok := ByKind(k, week)
	if !ok {
		t.Fatalf("ByKind(%q) found no demo", k)
	}
	return s
}

func TestDemosAreValidAndClashFree(t *testing.T) {
	for _, w := range weeks {
		for _, k := range kinds {
			t.Run(string(k)+"/"+w, func(t *testing.T) {
				week := date(t, w)
				s := build(t, k, week)
				if err := engine.Validate(s); err != nil {
					t.Fatalf("Validate: got %v, want nil", err)
				}
				for _, today := range []engine.Date{week, week.AddDays(-7 * 13), week.AddDays(7 * 9)} {
					r, err := engine.Clashes(s, today)
					if err != nil {
						t.Fatalf("Clashes(%s): %v", today, err)
					}
					for _, c := range r.Clashes {
						t.Errorf("Clashes(%s): got clash %s", today, c.Message)
					}
					if r.ProvenUntil != 0 {
						t.Errorf("Clashes(%s): got ProvenUntil %s, want zero (proven forever)", today, r.ProvenUntil)
					}
				}
			})
		}
	}
}

func TestByKind(t *testing.T) {
	if _, ok := ByKind("bakery", date(t, "2026-03-29")); ok {
		t.Errorf(`ByKind("bakery"): got a demo, want none`)
	}
	for _, k := range kinds {
		if s := build(t, k, date(t, "2026-03-29")); s.Business.Kind != k {
			t.Errorf("ByKind(%q): got a %q business", k, s.Business.Kind)
		}
	}
}

// Any day of a week builds the same demo, and building again gives the same
// ids and values.
func TestDemosAreDeterministic(t *testing.T) {
	for _, k := range kinds {
		a := build(t, k, date(t, "2026-10-28"))
		b := build(t, k, date(t, "2026-10-28").WeekStart(a.Business.WeekStart))
		if a.Business.Location.String() != b.Business.Location.String() {
			t.Errorf("%s: got zone %s, then %s", k, a.Business.Location, b.Business.Location)
		}
		a.Business.Location, b.Business.Location = nil, nil
		if !reflect.DeepEqual(a, b) {
			t.Errorf("%s: built for a Wednesday and for its week start, the demos differ", k)
		}
	}
}

func TestDemoBusinesses(t *testing.T) {
	tests := []struct {
		kind      engine.Kind
		name      string
		currency  string
		zone      string
		weekStart time.Weekday
	}{
		{engine.Gym, "Harbor Combat Club", "KD", "Asia/Kuwait", time.Sunday},
		{engine.Clinic, "Spreeufer Physio & Rehab", "EUR", "Europe/Berlin", time.Monday},
		{engine.Office, "Meridian Business Centre", "USD", "America/New_York", time.Monday},
	}
	for _, tt := range tests {
		t.Run(string(tt.kind), func(t *testing.T) {
			week := date(t, "2026-03-29")
			b := build(t, tt.kind, week).Business
			got := []any{b.Name, b.Currency, b.Location.String(), b.WeekStart}
			want := []any{tt.name, tt.currency, tt.zone, tt.weekStart}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("got %v, want %v", got, want)
			}
			for _, sr := range build(t, tt.kind, week).Series {
				if sr.Anchor.Weekday() != tt.weekStart || (sr.End != 0 && sr.End.Weekday() != tt.weekStart) {
					t.Errorf("series %q: got anchor %s end %s, want both on a %s", sr.Name, sr.Anchor, sr.End, tt.weekStart)
				}
			}
		})
	}
}

func timetable(t *testing.T, s engine.State) *engine.Timetable {
	t.Helper()
	tt, err := engine.New(s)
	if err != nil {
		t.Fatal(err)
	}
	return tt
}

// find returns the sessions on d with the given label.
func find(tt *engine.Timetable, d engine.Date, label string) []engine.Session {
	var out []engine.Session
	for _, s := range tt.Day(d) {
		if s.Label == label {
			out = append(out, s)
		}
	}
	return out
}

func seriesOf(s engine.Session) []int64 {
	var out []int64
	for _, sw := range s.Series {
		out = append(out, sw.SeriesID)
	}
	return out
}

func TestGym(t *testing.T) {
	week := date(t, "2026-03-29")
	s := Gym(week)

	if got := len(s.Rooms); got != 3 {
		t.Errorf("rooms: got %d, want 3", got)
	}
	if got := len(s.ClassTimes); got < 95 || got > 110 {
		t.Errorf("class times: got %d, want 95–110", got)
	}
	if got := len(s.Activities); got != 10 {
		t.Errorf("activities: got %d, want 10", got)
	}
	if got := len(s.Staff); got != 11 {
		t.Errorf("coaches: got %d, want 11", got)
	}
	if got := len(s.Series); got != 17 {
		t.Errorf("packages: got %d, want 17", got)
	}
	for _, sr := range s.Series {
		if sr.Cycle != 1 {
			t.Errorf("package %q: got cycle %d, want 1", sr.Name, sr.Cycle)
		}
	}
	pairs := 0
	for _, c := range s.Classes {
		if len(c.StaffIDs) == 2 {
			pairs++
		}
	}
	if pairs < 2 {
		t.Errorf("classes with two coaches: got %d, want at least 2", pairs)
	}
	if got := len(s.Clients); got < 18 || got > 22 {
		t.Errorf("members: got %d, want about 20", got)
	}
	if len(s.Subscriptions) < len(s.Clients) {
		t.Errorf("subscriptions: got %d for %d members", len(s.Subscriptions), len(s.Clients))
	}

	// An all-access package shares most of its sessions with the discipline
	// packages: the same class in the same class time.
	type slot struct{ classTime, class int64 }
	inSeries := map[slot][]int64{}
	for _, e := range s.Entries {
		k := slot{e.ClassTimeID, e.ClassID}
		inSeries[k] = append(inSeries[k], e.SeriesID)
	}
	allAccess := 0
	for _, sr := range s.Series {
		var total, shared int
		for _, e := range s.Entries {
			if e.SeriesID != sr.ID {
				continue
			}
			total++
			if len(inSeries[slot{e.ClassTimeID, e.ClassID}]) > 1 {
				shared++
			}
		}
		if total >= 20 && shared*10 >= total*9 {
			allAccess++
		}
	}
	if allAccess < 2 {
		t.Errorf("all-access packages sharing most sessions: got %d, want at least 2", allAccess)
	}
	for _, d := range []time.Weekday{time.Sunday, time.Monday, time.Tuesday, time.Wednesday, time.Thursday, time.Saturday} {
		var morning, evening bool
		for _, ct := range s.ClassTimes {
			if ct.Weekday == d {
				morning = morning || ct.Start < engine.MustTime("12:00")
				evening = evening || ct.Start >= engine.MustTime("17:00")
			}
			if ct.Weekday == time.Friday {
				t.Errorf("class time %d is on a Friday, the day off", ct.ID)
			}
		}
		if !morning || !evening {
			t.Errorf("%s: got morning %v evening %v, want both", d, morning, evening)
		}
	}

	tt := timetable(t, s)
	monday, tuesday := week.AddDays(1), week.AddDays(2)
	private := find(tt, monday, "Private lesson")
	if len(private) != 1 || !private[0].IsOneOff() || len(s.OneOffs[0].ClientIDs) != 1 {
		t.Errorf("private lesson on %s: got %+v, want one one-off with one member", monday, private)
	}
	var cancelled []engine.Session
	for _, ss := range tt.Day(tuesday) {
		if ss.Cancelled {
			cancelled = append(cancelled, ss)
		}
	}
	if len(cancelled) != 1 || cancelled[0].Reason() == "" || len(cancelled[0].Series) < 2 {
		t.Errorf("cancellation on %s: got %+v, want one cancelled shared session with a reason", tuesday, cancelled)
	}

	// Nok is away from Thursday for a week: Thursday's and Saturday's Muay
	// Thai are covered, next week's need cover; no other session does.
	covered, open := map[engine.Date]int{}, map[engine.Date]int{}
	for _, d := range tt.Days(week, week.AddDays(14)) {
		for _, ss := range d.Sessions {
			if ss.ClassID != 4 { // Muay Thai with Nok
				if len(tt.NeedsCover(&ss)) != 0 {
					t.Errorf("%s %s: needs cover, want only Nok's classes to", d.Date, ss.Start)
				}
				continue
			}
			switch {
			case len(tt.NeedsCover(&ss)) != 0:
				open[d.Date]++
			case !slices.Contains(ss.StaffIDs, 3):
				covered[d.Date]++
			}
		}
	}
	thursday, saturday := week.AddDays(4), week.AddDays(6)
	if want := map[engine.Date]int{thursday: 2, saturday: 1}; !maps.Equal(covered, want) {
		t.Errorf("covered Muay Thai: got %v, want %v", covered, want)
	}
	if want := map[engine.Date]int{week.AddDays(7): 2, week.AddDays(8): 2, week.AddDays(9): 2, week.AddDays(10): 2}; !maps.Equal(open, want) {
		t.Errorf("Muay Thai needing cover: got %v, want %v", open, want)
	}
}

func TestClinic(t *testing.T) {
	week := date(t, "2026-03-30")
	s := Clinic(week)
	tt := timetable(t, s)

	units := map[int64]int{}
	for _, r := range s.Rooms {
		units[r.ID] = r.Units()
	}
	if got := []int{units[1], units[2], units[3], units[4]}; !slices.Equal(got, []int{1, 1, 8, 6}) {
		t.Errorf("room units: got %v, want [1 1 8 6]", got)
	}

	// Back Care: the same Tuesday slot alternates studio (week 1) and pool
	// (week 2); this week is week 2.
	for i, want := range []int64{4, 3, 4} {
		d := week.AddDays(7*i + 1)
		got := find(tt, d, "Back Care: water work")
		got = append(got, find(tt, d, "Back Care: mat work")...)
		if len(got) != 1 || got[0].RoomID != want || got[0].Start != engine.MustTime("17:00") {
			t.Errorf("Back Care on %s: got %+v, want one 17:00 session in room %d", d, got, want)
		}
	}

	// The knee programme: six weeks of stage 1, then stage 2 from the very
	// week it ends.
	var stage1, stage2 engine.Series
	for _, sr := range s.Series {
		switch sr.Name {
		case "Knee Rehab — Stage 1":
			stage1 = sr
		case "Knee Rehab — Stage 2":
			stage2 = sr
		}
	}
	if stage1.End.Sub(stage1.Anchor) != 42 || stage2.Anchor != stage1.End || stage2.Anchor <= week {
		t.Errorf("knee programme: got stage 1 %s–%s, stage 2 from %s; want six weeks handing over after %s",
			stage1.Anchor, stage1.End, stage2.Anchor, week)
	}
	last, first := stage1.End.AddDays(-7), stage1.End // Mondays
	if got := find(tt, last, "Stage 1: strength"); len(got) != 1 {
		t.Errorf("stage 1 in its last week (%s): got %d sessions, want 1", last, len(got))
	}
	if got := find(tt, first, "Stage 1: strength"); len(got) != 0 {
		t.Errorf("stage 1 after its end (%s): got %d sessions, want 0", first, len(got))
	}
	if got := find(tt, first, "Stage 2: water loading"); len(got) != 1 {
		t.Errorf("stage 2 in its first week (%s): got %d sessions, want 1", first, len(got))
	}

	var assessments int
	for _, o := range s.OneOffs {
		if len(o.ClientIDs) == 1 && find(tt, o.Date, o.Label) != nil {
			assessments++
		}
	}
	if assessments != 2 {
		t.Errorf("assessments: got %d, want 2", assessments)
	}
	multiMonth := 0
	for _, p := range s.Plans {
		if p.Months > 1 {
			multiMonth++
		}
	}
	if multiMonth < 3 {
		t.Errorf("multi-month plans: got %d, want several", multiMonth)
	}

	cover := tt.Day(week)
	var covered bool
	for _, ss := range cover {
		if ss.Changed && ss.Origin() != nil && !slices.Equal(ss.StaffIDs, ss.Origin().StaffIDs) {
			covered = true
		}
	}
	if !covered {
		t.Errorf("cover on %s: got no session with other staff", week)
	}
	var cancelled bool
	for _, ss := range tt.Day(week.AddDays(10)) {
		cancelled = cancelled || ss.Cancelled
	}
	if !cancelled {
		t.Errorf("cancellation on %s: got none", week.AddDays(10))
	}
}

func TestOffice(t *testing.T) {
	week := date(t, "2026-03-30")
	s := Office(week)
	tt := timetable(t, s)

	for d := week; d < week.AddDays(7); d++ {
		got := find(tt, d, "Daily standup")
		want := 1
		if d.Weekday() == time.Saturday || d.Weekday() == time.Sunday {
			want = 0
		}
		if len(got) != want {
			t.Errorf("standup on %s: got %d, want %d", d, len(got), want)
		}
	}
	// Sprint: planning in week 1 (this week), review and retro in week 2.
	for i, want := range []bool{true, false, true} {
		mon, fri := week.AddDays(7*i), week.AddDays(7*i+4)
		planning := len(find(tt, mon, "Sprint planning")) == 1
		review := len(find(tt, fri, "Sprint review")) == 1
		if planning != want || review == want {
			t.Errorf("sprint week of %s: got planning %v review %v, want planning %v", mon, planning, review, want)
		}
	}
	// Board: every fourth Tuesday, hosted by two.
	var boards []engine.Date
	for d := week; d < week.AddDays(12*7); d += 7 {
		for _, ss := range find(tt, d.AddDays(1), "Board meeting") {
			if len(ss.StaffIDs) == 2 {
				boards = append(boards, ss.Date)
			}
		}
	}
	if len(boards) != 3 || boards[1].Sub(boards[0]) != 28 || boards[2].Sub(boards[1]) != 28 {
		t.Errorf("board meetings over 12 weeks: got %v, want 3, four weeks apart", boards)
	}
	// The course hands over: series A ends where series B starts.
	byName := map[string]engine.Series{}
	for _, sr := range s.Series {
		byName[sr.Name] = sr
	}
	a, b := byName["Data Skills 1: Spreadsheets"], byName["Data Skills 2: Dashboards"]
	if a.End == 0 || b.Anchor != a.End {
		t.Errorf("course hand-over: got A ending %s, B from %s", a.End, b.Anchor)
	}
	if len(find(tt, a.End.AddDays(-6), "Spreadsheets")) != 1 || len(find(tt, b.Anchor.AddDays(1), "Dashboards")) != 1 ||
		len(find(tt, b.Anchor.AddDays(1), "Spreadsheets")) != 0 {
		t.Errorf("course hand-over: the Tuesdays either side of %s do not show A then B", a.End)
	}
	if len(s.OneOffs) < 2 {
		t.Errorf("one-off bookings: got %d, want a few", len(s.OneOffs))
	}
	for _, o := range s.OneOffs {
		if len(o.ClientIDs) == 0 {
			t.Errorf("one-off %q: got no client company", o.Label)
		}
	}

	wed := week.AddDays(2)
	moved := find(tt, wed, "Daily standup")
	if len(moved) != 1 || moved[0].Origin() == nil || moved[0].RoomID == moved[0].Origin().RoomID {
		t.Errorf("standup on %s: got %+v, want it moved to another room", wed, moved)
	}
	retro := find(tt, week.AddDays(11), "Retro")
	if len(retro) != 1 || !retro[0].Cancelled {
		t.Errorf("retro on %s: got %+v, want it cancelled", week.AddDays(11), retro)
	}
}
