package engine

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"
)

// stretch makes some of a random state's closures and capacity overrides
// run to the last date a timetable holds, and others for years: what the
// proof must handle in the time it takes for a short one.
func stretch(r *rand.Rand, s State, from Date) State {
	s.Closures = append([]Closure(nil), s.Closures...)
	for i := range s.Closures {
		switch r.IntN(3) {
		case 0:
			s.Closures[i].To = MaxDate
		case 1:
			s.Closures[i].To += Date(365 * (1 + r.IntN(30)))
		}
	}
	s.Capacity = append([]CapacityRule(nil), s.Capacity...)
	for i := range s.Capacity {
		if !s.Capacity[i].Override() {
			continue
		}
		switch r.IntN(3) {
		case 0:
			s.Capacity[i].To = MaxDate
		case 1:
			s.Capacity[i].To += Date(365 * (1 + r.IntN(30)))
		}
	}
	// An override from somewhere in the window to the end, for a room
	// with or without weekly rules.
	if r.IntN(2) == 0 {
		room := s.Rooms[r.IntN(len(s.Rooms))]
		start := LocalTime(7*60 + 15*r.IntN(20))
		s.Capacity = append(s.Capacity, CapacityRule{ID: int64(len(s.Capacity) + 100), RoomID: room.ID,
			From: from + Date(r.IntN(400)), To: MaxDate, Start: start, End: start + LocalTime(60+15*r.IntN(30)), Units: r.IntN(room.Units() + 2)})
	}
	return s
}

// TestLongRangesAgainstOracle compares the proof with the brute-force
// oracle on random businesses whose closures and capacity overrides run for
// years or to the end of the window: the proof's clashes, expanded over the
// test's window, are the oracle's there, date by date, and the proof takes
// no longer than it does for short ranges.
func TestLongRangesAgainstOracle(t *testing.T) {
	const want = 600
	r := rand.New(rand.NewPCG(12, 2))
	valid, clashDates := 0, 0
	for tries := 0; valid < want; tries++ {
		if tries > 6*want {
			t.Fatalf("only %d of %d generated states were valid", valid, tries)
		}
		s, today, from, to := randomState(r)
		s = stretch(r, s, from)
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
			compareDay(t, valid, tt, o, d)
			oracleClashes = append(oracleClashes, o.clashes(d)...)
		}
		report := tt.Clashes(today)
		var proven []clashKey
		for _, c := range report.Clashes {
			proven = append(proven, expand(c, from, to)...)
		}
		clashDates += len(oracleClashes)
		if diff := diffKeys(proven, oracleClashes); diff != "" {
			t.Fatalf("state %d (today %s, window %s..%s): proof and oracle disagree:\n%s\nstate: %+v", valid, today, from, to, diff, s)
		}
	}
	t.Logf("%d states, %d clash-dates matched", valid, clashDates)
}

// crowdedPool is a business whose proof is heavy by nature, whatever the
// dates: n one-lane sessions at the same hour in a pool of n/2 lanes, so
// that every set of n/2+1 of them is a minimal overload.
func crowdedPool(n int) (State, Date) {
	f := newFx()
	f.Rooms[2].Capacity = n / 2
	for i := 0; i < n; i++ {
		coach := int64(100 + i)
		f.Staff = append(f.Staff, Staff{ID: coach, Name: fmt.Sprintf("Coach %d", i)})
		s := f.series(fmt.Sprintf("Lane %d", i), "2026-10-05", 1, "")
		f.entry(s, f.ct(pool, "Tue 09:00-10:00", units(1)), f.class(swim, coach), 1)
	}
	return f.State, MustParse("2026-10-05")
}

// TestClashesStop shows the proof giving up when the caller's deadline
// passes: on a business whose proof would run for minutes, it returns
// ErrStopped within a few milliseconds of the deadline; with a stop that
// never fires it gives what Clashes gives.
func TestClashesStop(t *testing.T) {
	s, today := crowdedPool(40)
	tt, err := New(s)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	deadline := start.Add(50 * time.Millisecond)
	_, err = tt.ClashesOrStop(today, func() bool { return time.Now().After(deadline) })
	took := time.Since(start)
	if !errors.Is(err, ErrStopped) {
		t.Fatalf("got %v, want ErrStopped", err)
	}
	if took > 250*time.Millisecond {
		t.Errorf("stopped after %v, 50 ms asked", took)
	}
	t.Logf("stopped after %v (deadline 50 ms)", took)

	r := rand.New(rand.NewPCG(4, 4))
	for n := 0; n < 50; {
		s, today, _, _ := randomState(r)
		if Validate(s) != nil {
			continue
		}
		n++
		tt, err := New(s)
		if err != nil {
			t.Fatal(err)
		}
		got, err := tt.ClashesOrStop(today, func() bool { return false })
		if err != nil {
			t.Fatal(err)
		}
		want := tt.Clashes(today)
		if len(got.Clashes) != len(want.Clashes) {
			t.Fatalf("state %d: %d clashes with a stop, %d without", n, len(got.Clashes), len(want.Clashes))
		}
		for i := range got.Clashes {
			if got.Clashes[i].Message != want.Clashes[i].Message {
				t.Fatalf("state %d: %q with a stop, %q without", n, got.Clashes[i].Message, want.Clashes[i].Message)
			}
		}
	}
}
