package engine

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"
)

// coprimeState is 30 series with cycles of 7, 11, 13, 17 and 19 weeks over 5
// rooms and 12 staff. Their weeks line up only every lcm = 323,323 weeks.
func coprimeState(week Date) State {
	r := rand.New(rand.NewPCG(7, 11))
	s := State{Business: Business{Kind: Gym, Name: "Coprime", Currency: "KD", Location: time.UTC}}
	for i := int64(1); i <= 5; i++ {
		s.Rooms = append(s.Rooms, Room{ID: i, Name: fmt.Sprintf("Room %d", i), Capacity: 1})
	}
	for i := int64(1); i <= 12; i++ {
		s.Staff = append(s.Staff, Staff{ID: i, Name: fmt.Sprintf("Coach %d", i)})
	}
	for i := int64(1); i <= 4; i++ {
		s.Activities = append(s.Activities, Activity{ID: i, Name: fmt.Sprintf("Activity %d", i)})
	}
	for i := int64(1); i <= 24; i++ {
		s.Classes = append(s.Classes, Class{ID: i, ActivityID: (i-1)/6 + 1, StaffIDs: []int64{(i-1)%12 + 1}})
	}
	id := int64(0)
	for room := int64(1); room <= 5; room++ {
		for wd := time.Sunday; wd <= time.Saturday; wd++ {
			for slot := 0; slot < 4; slot++ {
				id++
				start := LocalTime(7*60 + slot*150)
				s.ClassTimes = append(s.ClassTimes, ClassTime{
					ID: id, RoomID: room, Weekday: wd, Start: start, End: start + 60, Buffer: 15,
				})
			}
		}
	}
	cycles := []int{7, 11, 13, 17, 19}
	anchor := week.AddDays(-7 * 30)
	seen := map[[3]int64]bool{}
	for i := int64(1); i <= 30; i++ {
		cycle := cycles[(i-1)%5]
		s.Series = append(s.Series, Series{ID: i, Name: fmt.Sprintf("Series %d", i), Anchor: anchor.AddDays(7 * r.IntN(20)), Cycle: cycle})
		for week := 1; week <= cycle; week++ {
			for n := 0; n < 2; n++ {
				ct := s.ClassTimes[r.IntN(len(s.ClassTimes))].ID
				if seen[[3]int64{i, ct, int64(week)}] {
					continue
				}
				seen[[3]int64{i, ct, int64(week)}] = true
				s.Entries = append(s.Entries, Entry{
					ID: int64(len(s.Entries) + 1), SeriesID: i, ClassTimeID: ct, ClassID: int64(1 + r.IntN(24)), Week: week,
				})
			}
		}
	}
	return s
}

// TestCoprimeAgainstOracle checks the benchmark's business against the
// oracle for 340 weeks: every pair of its cycles meets within 19 × 17 = 323
// weeks of the latest anchor, so the window holds a date of every clash.
func TestCoprimeAgainstOracle(t *testing.T) {
	if testing.Short() {
		t.Skip("scans 340 weeks with the oracle")
	}
	week := MustParse("2026-11-29")
	s := coprimeState(week)
	tt, err := New(s)
	if err != nil {
		t.Fatal(err)
	}
	to := week + 7*340
	o := newOracle(s)
	var want, got []clashKey
	for d := week; d < to; d++ {
		want = append(want, o.clashes(d)...)
	}
	r := tt.Clashes(week)
	for _, c := range r.Clashes {
		got = append(got, expand(c, week, to)...)
	}
	if diff := diffKeys(got, want); diff != "" {
		t.Fatal(diff)
	}
	if len(r.Clashes) == 0 || !r.ProvenUntil.IsZero() {
		t.Fatalf("%d clashes, proven until %s", len(r.Clashes), r.ProvenUntil)
	}
	t.Logf("%d clashes, %d clash-dates in 340 weeks", len(r.Clashes), len(want))
}

// TestFarTripleOverload puts three one-lane sessions in a two-lane pool, in
// rotations of 7, 11 and 13 weeks: any two fit, all three happen together
// once every 1001 weeks, nearly twenty years apart.
func TestFarTripleOverload(t *testing.T) {
	f := newFx()
	f.Rooms[2].Capacity = 2
	for i, cycle := range []int{7, 11, 13} {
		s := f.series(fmt.Sprintf("Lane %d", i+1), "2026-10-05", cycle, "")
		f.entry(s, f.ct(pool, "Tue 09:00-10:00", units(1)), f.class(swim, []int64{mei, ahmed, laura}[i]), cycle-i)
	}
	tt := f.timetable(t)
	today := MustParse("2026-10-05")
	r := tt.Clashes(today)
	// Brute force: the first week w with w ≡ 6 (mod 7), 9 (mod 11), 10 (mod 13).
	w := 0
	for w%7 != 6 || w%11 != 9 || w%13 != 10 {
		w++
	}
	first := today + Date(7*w+1)
	if len(r.Clashes) != 1 || r.Clashes[0].First != first || r.Clashes[0].Every != 1001 || r.Clashes[0].Until != 0 || len(r.Clashes[0].Sessions) != 3 {
		t.Fatalf("got %+v, want one clash of 3 sessions first on %s, every 1001 weeks", r.Clashes, first)
	}
	want := "Room Pool over capacity (3 of 2 units): Swim (Pool, 9 AM – 10 AM, Lane 1 W7), Swim (Pool, 9 AM – 10 AM, Lane 2 W10) & Swim (Pool, 9 AM – 10 AM, Lane 3 W11), first " + first.Short(today)
	if r.Clashes[0].Message != want {
		t.Errorf("got %q\nwant %q", r.Clashes[0].Message, want)
	}
	o := newOracle(f.State)
	var oracle []clashKey
	for d := today; d < first+7*1001+7; d += 7 {
		oracle = append(oracle, o.clashes(d+1)...)
	}
	if diff := diffKeys(expand(r.Clashes[0], today, first+7*1002), oracle); diff != "" {
		t.Fatal(diff)
	}
}
