package engine

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"
)

// randomState builds a small, valid business full of opportunities to clash:
// few rooms and weekdays, rotations of 1–12 weeks, shared and multi-staff
// classes, buffers, units, day changes, moves across dates, one-offs and
// closures with and without pauses. It returns the state, "today" and the
// window the oracle scans.
func randomState(r *rand.Rand) (State, Date, Date, Date) {
	ws := time.Sunday
	if r.IntN(2) == 1 {
		ws = time.Monday
	}
	today := MustDate(2026, 1, 1) + Date(r.IntN(365))
	from := today.WeekStart(ws)
	weeks := 60 + r.IntN(60)
	to := from + Date(7*weeks)
	s := State{Business: Business{Kind: Gym, Name: "Random", Currency: "KD", Location: time.UTC, WeekStart: ws}}

	for i := 1; i <= 1+r.IntN(3); i++ {
		c := 1
		if r.IntN(3) == 0 {
			c = 2 + r.IntN(3)
		}
		s.Rooms = append(s.Rooms, Room{ID: int64(i), Name: fmt.Sprintf("Room %d", i), Capacity: c})
	}
	names := []string{"Ana", "ana", "Ben", "Cleo", "Dev"}
	for i := 1; i <= 2+r.IntN(4); i++ {
		s.Staff = append(s.Staff, Staff{ID: int64(i), Name: names[i-1]})
	}
	for i := 1; i <= 1+r.IntN(3); i++ {
		s.Activities = append(s.Activities, Activity{ID: int64(i), Name: fmt.Sprintf("Activity %d", i)})
	}
	for i := 1; i <= 2+r.IntN(4); i++ {
		staff := []int64{int64(1 + r.IntN(len(s.Staff)))}
		if r.IntN(3) == 0 {
			if other := int64(1 + r.IntN(len(s.Staff))); other != staff[0] {
				staff = append(staff, other)
			}
		}
		s.Classes = append(s.Classes, Class{ID: int64(i), ActivityID: int64(1 + r.IntN(len(s.Activities))), StaffIDs: staff})
	}
	days := []time.Weekday{ws, (ws + 1) % 7, (ws + 6) % 7}
	for i := 1; i <= 2+r.IntN(7); i++ {
		room := s.Rooms[r.IntN(len(s.Rooms))]
		start := LocalTime(8*60 + 15*r.IntN(13))
		ct := ClassTime{
			ID: int64(i), RoomID: room.ID, Weekday: days[r.IntN(len(days))],
			Start: start, End: start + LocalTime(30+15*r.IntN(7)),
		}
		if r.IntN(3) == 0 {
			ct.Buffer = 10 * (1 + r.IntN(3))
		}
		if room.Capacity > 1 && r.IntN(2) == 0 {
			ct.Units = 1 + r.IntN(room.Capacity)
		}
		if r.IntN(12) == 0 {
			ct.Inactive = true
		}
		if r.IntN(15) == 0 {
			ct.Start, ct.End = MustTime("23:00"), EndOfDay // the buffer meets midnight
		}
		s.ClassTimes = append(s.ClassTimes, ct)
	}
	for i := 1; i <= 1+r.IntN(4); i++ {
		cycle := 1 + r.IntN(4)
		if r.IntN(3) == 0 {
			cycle = 1 + r.IntN(12)
		}
		sr := Series{ID: int64(i), Name: fmt.Sprintf("Series %d", i), Cycle: cycle, Anchor: from + Date(7*(r.IntN(40)-20))}
		if r.IntN(3) == 0 {
			sr.End = sr.Anchor + Date(7*(1+r.IntN(60)))
		}
		s.Series = append(s.Series, sr)
	}
	seen := map[[3]int64]bool{}
	id := int64(0)
	for _, sr := range s.Series {
		for n := 1 + r.IntN(6); n > 0; n-- {
			ct := s.ClassTimes[r.IntN(len(s.ClassTimes))].ID
			week := 1 + r.IntN(sr.Cycle)
			if seen[[3]int64{sr.ID, ct, int64(week)}] {
				continue
			}
			seen[[3]int64{sr.ID, ct, int64(week)}] = true
			id++
			s.Entries = append(s.Entries, Entry{ID: id, SeriesID: sr.ID, ClassTimeID: ct, ClassID: s.Classes[r.IntN(len(s.Classes))].ID, Week: week})
		}
	}
	// Share classes: copy some entries into other series.
	for n := r.IntN(4); n > 0 && len(s.Entries) > 0; n-- {
		e := s.Entries[r.IntN(len(s.Entries))]
		sr := s.Series[r.IntN(len(s.Series))]
		e.SeriesID, e.Week = sr.ID, 1+r.IntN(sr.Cycle)
		if seen[[3]int64{sr.ID, e.ClassTimeID, int64(e.Week)}] {
			continue
		}
		seen[[3]int64{sr.ID, e.ClassTimeID, int64(e.Week)}] = true
		id++
		e.ID = id
		s.Entries = append(s.Entries, e)
	}
	refs := map[SessionRef]bool{}
	for n := r.IntN(6); n > 0 && len(s.Entries) > 0; n-- {
		e := s.Entries[r.IntN(len(s.Entries))]
		ct := s.ClassTimes[e.ClassTimeID-1]
		d := DayIn(WeekOf(from, ws)+r.IntN(weeks), ct.Weekday, ws) - Date(7*r.IntN(2))
		c := DayChange{Ref: SessionRef{Date: d, ClassTimeID: ct.ID, ClassID: e.ClassID}}
		if refs[c.Ref] {
			continue
		}
		refs[c.Ref] = true
		if r.IntN(4) == 0 {
			c.Cancelled = true
		}
		if r.IntN(3) == 0 {
			c.Date = d + Date(r.IntN(15)-7)
			if c.Date == d {
				c.Date = 0
			}
		}
		if r.IntN(4) == 0 {
			c.RoomID = s.Rooms[r.IntN(len(s.Rooms))].ID
		}
		if r.IntN(4) == 0 {
			st := LocalTime(8*60 + 15*r.IntN(13))
			en := st + LocalTime(30+15*r.IntN(5))
			c.Start, c.End = &st, &en
		}
		if r.IntN(6) == 0 {
			c.ClassID = s.Classes[r.IntN(len(s.Classes))].ID
		}
		if r.IntN(6) == 0 {
			c.StaffIDs = []int64{s.Staff[r.IntN(len(s.Staff))].ID}
		}
		if r.IntN(4) == 0 {
			c.Note = "note"
		}
		s.Changes = append(s.Changes, c)
	}
	for i := 1; i <= r.IntN(4); i++ {
		start := LocalTime(8*60 + 15*r.IntN(13))
		room := s.Rooms[r.IntN(len(s.Rooms))]
		o := OneOff{
			ID: int64(i), ClassID: s.Classes[r.IntN(len(s.Classes))].ID, RoomID: room.ID,
			Date: from + Date(r.IntN(7*weeks)), Start: start, End: start + LocalTime(30+15*r.IntN(5)),
			Cancelled: r.IntN(8) == 0,
		}
		if room.Capacity > 1 && r.IntN(2) == 0 {
			o.Units = 1 + r.IntN(room.Capacity)
		}
		s.OneOffs = append(s.OneOffs, o)
	}
	for i := 1; i <= r.IntN(3); i++ {
		c := Closure{ID: int64(i), From: from + Date(r.IntN(7*weeks)-14), Reason: "closed", Pause: r.IntN(2) == 0}
		c.To = c.From + Date(r.IntN(25))
		if r.IntN(2) == 0 {
			c.RoomIDs = []int64{s.Rooms[r.IntN(len(s.Rooms))].ID}
		}
		s.Closures = append(s.Closures, c)
	}
	// Capacity that varies: weekly levels for some rooms, an override for
	// some, and room bookings.
	for _, room := range s.Rooms {
		if r.IntN(3) != 0 {
			continue
		}
		rule := func(start LocalTime) CapacityRule {
			return CapacityRule{ID: int64(len(s.Capacity) + 1), RoomID: room.ID, Start: start,
				End: start + LocalTime(60+15*r.IntN(12)), Units: r.IntN(room.Units() + 2)}
		}
		a := rule(LocalTime(7*60 + 15*r.IntN(8)))
		a.Weekdays = []time.Weekday{days[r.IntN(len(days))], days[r.IntN(len(days))]}
		s.Capacity = append(s.Capacity, a)
		if r.IntN(2) == 0 {
			b := rule(a.End)
			b.Weekdays = a.Weekdays
			s.Capacity = append(s.Capacity, b)
		}
		if r.IntN(3) == 0 {
			o := rule(LocalTime(8*60 + 15*r.IntN(8)))
			o.From = from + Date(r.IntN(7*weeks))
			o.To = o.From + Date(r.IntN(20))
			s.Capacity = append(s.Capacity, o)
		}
	}
	for i := 1; i <= r.IntN(4); i++ {
		room := s.Rooms[r.IntN(len(s.Rooms))]
		start := LocalTime(8*60 + 15*r.IntN(13))
		b := RoomBooking{ID: int64(i), RoomID: room.ID, Date: from + Date(r.IntN(7*weeks)), Start: start,
			End: start + LocalTime(15+15*r.IntN(6)), Cancelled: r.IntN(8) == 0}
		if r.IntN(2) == 0 {
			b.Units = 1 + r.IntN(room.Units())
		}
		s.RoomBookings = append(s.RoomBookings, b)
	}
	return s, today, from, to
}

// TestRandomAgainstOracle compares the timetable and the exact clash proof
// with the brute-force oracle on thousands of generated businesses: every
// date of the window resolves to the same sessions, and the proof's clashes,
// expanded over the window, are exactly the ones the oracle finds by trying
// every subset of every day's sessions.
func TestRandomAgainstOracle(t *testing.T) {
	const want = 2000
	r := rand.New(rand.NewPCG(1, 2))
	valid, dates, clashDates := 0, 0, 0
	for tries := 0; valid < want; tries++ {
		if tries > 4*want {
			t.Fatalf("only %d of %d generated states were valid", valid, tries)
		}
		s, today, from, to := randomState(r)
		if Validate(s) != nil {
			continue
		}
		valid++
		tt, err := New(s)
		if err != nil {
			t.Fatal(err)
		}
		o := newOracle(s)
		var oracleClashes []clashKey
		for d := from; d < to; d++ {
			dates++
			compareDay(t, valid, tt, o, d)
			// A session looked up by its ref is the one the day holds.
			for _, x := range tt.Day(d) {
				if x.IsOneOff() {
					continue
				}
				if y, ok := tt.Session(x.Ref()); !ok || describeSession(tt, y) != describeSession(tt, x) {
					t.Fatalf("state %d, %s: Session(%v) = %s, the day holds %s", valid, d, x.Ref(), describeSession(tt, y), describeSession(tt, x))
				}
			}
			oracleClashes = append(oracleClashes, o.clashes(d)...)
		}
		report := tt.Clashes(today)
		if !report.ProvenUntil.IsZero() {
			t.Fatalf("state %d: proof stopped at %s", valid, report.ProvenUntil)
		}
		var proven []clashKey
		for _, c := range report.Clashes {
			if c.First < from {
				t.Fatalf("state %d: clash before the week of today: %s", valid, c.Message)
			}
			proven = append(proven, expand(c, from, to)...)
		}
		clashDates += len(oracleClashes)
		if diff := diffKeys(proven, oracleClashes); diff != "" {
			t.Fatalf("state %d (today %s, window %s..%s): proof and oracle disagree:\n%s\nstate: %+v", valid, today, from, to, diff, s)
		}
	}
	t.Logf("%d states, %d dates resolved, %d clash-dates matched", valid, dates, clashDates)
}

func compareDay(t *testing.T, n int, tt *Timetable, o *oracle, d Date) {
	t.Helper()
	got := tt.Day(d)
	want := o.day(d)
	sort.Slice(got, func(i, j int) bool { return got[i].Key() < got[j].Key() })
	if len(got) != len(want) {
		t.Fatalf("state %d, %s: got %d sessions, want %d:\n got %+v\nwant %+v", n, d, len(got), len(want), got, want)
	}
	for i := range got {
		g, w := got[i], want[i]
		if g.Key() != w.key || g.Date != w.date || g.Start != w.start || g.End != w.end || g.RoomID != w.room ||
			g.ClassID != w.class || !slices.Equal(g.StaffIDs, w.staff) || int(g.Units) != w.units || int(g.Buffer) != w.buffer ||
			!slices.Equal(g.Series, w.series) || g.Cancelled != w.cancelled || g.Reason() != w.reason ||
			g.Changed != w.changed || g.Note() != w.note {
			t.Fatalf("state %d, %s: session %d differs:\n got %+v\nwant %+v", n, d, i, g, w)
		}
		if g.Changed && g.Origin() == nil {
			t.Fatalf("state %d, %s: changed session without its origin: %+v", n, d, g)
		}
	}
}

// diffKeys compares clash-dates as sets: one clash of the same sessions may
// come from two rotation combinations whose progressions share some dates.
func diffKeys(got, want []clashKey) string {
	set := func(ks []clashKey) map[clashKey]bool {
		m := map[clashKey]bool{}
		for _, k := range ks {
			m[k] = true
		}
		return m
	}
	g, w := set(got), set(want)
	var lines []string
	for k := range g {
		if !w[k] {
			lines = append(lines, "  only the proof: "+k.String())
		}
	}
	for k := range w {
		if !g[k] {
			lines = append(lines, "  only the oracle: "+k.String())
		}
	}
	sort.Strings(lines)
	if len(lines) > 20 {
		lines = append(lines[:20], fmt.Sprintf("  … and %d more", len(lines)-20))
	}
	if len(lines) == 0 {
		return ""
	}
	return fmt.Sprint(len(lines), " differences:\n") + strings.Join(lines, "\n")
}
