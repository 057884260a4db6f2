package engine

import (
	"math/rand/v2"
	"testing"
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
