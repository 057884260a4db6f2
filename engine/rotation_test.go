package engine

import (
	"fmt"
	"testing"
	"time"
)

// TestRotationLegs: where a series' weeks fall — its position in a week, its
// legs between pauses and the residue of each of its weeks in a leg — on
// the rule of the design (§3): ⌊(date − anchor)/7⌋ mod N + 1 while anchor ≤
// date < end, a paused week not advancing it. Every case also checks that
// Legs and Residue give exactly the weeks Position gives.
func TestRotationLegs(t *testing.T) {
	type leg struct {
		from, to string // week start dates; to "" is NoEnd
		skipped  int
	}
	const ws = time.Monday
	for _, tc := range []struct {
		name      string
		anchor    string
		end       string
		cycle     int
		closures  []Closure
		positions map[string]int // any day of a week → its position
		legs      []leg
	}{
		{
			name: "an open three-week rotation", anchor: "2026-10-05", cycle: 3,
			positions: map[string]int{"2026-09-28": 0, "2026-10-05": 1, "2026-10-14": 2, "2026-10-25": 3, "2026-10-26": 1, "2027-10-04": 2},
			legs:      []leg{{"2026-10-05", "", 0}},
		},
		{
			name: "the end is exclusive", anchor: "2026-10-05", end: "2026-10-19", cycle: 2,
			positions: map[string]int{"2026-10-05": 1, "2026-10-18": 2, "2026-10-19": 0},
			legs:      []leg{{"2026-10-05", "2026-10-19", 0}},
		},
		{
			name: "a paused week holds the rotation", anchor: "2026-10-05", cycle: 3,
			closures:  []Closure{{From: MustParse("2026-10-12"), To: MustParse("2026-10-18"), Reason: "Eid", Pause: true}},
			positions: map[string]int{"2026-10-05": 1, "2026-10-12": 2, "2026-10-19": 2, "2026-10-26": 3, "2026-11-02": 1},
			legs:      []leg{{"2026-10-05", "2026-10-12", 0}, {"2026-10-19", "", 1}},
		},
		{
			name: "a pause at the anchor leaves an empty first leg", anchor: "2026-10-05", cycle: 2,
			closures:  []Closure{{From: MustParse("2026-10-03"), To: MustParse("2026-10-11"), Pause: true}},
			positions: map[string]int{"2026-10-05": 1, "2026-10-12": 1, "2026-10-19": 2},
			legs:      []leg{{"2026-10-05", "2026-10-05", 0}, {"2026-10-12", "", 1}},
		},
		{
			name: "a pause up to the end leaves an empty last leg", anchor: "2026-10-05", end: "2026-10-26", cycle: 2,
			closures:  []Closure{{From: MustParse("2026-10-19"), To: MustParse("2026-11-08"), Pause: true}},
			positions: map[string]int{"2026-10-05": 1, "2026-10-12": 2, "2026-10-19": 1, "2026-10-26": 0},
			legs:      []leg{{"2026-10-05", "2026-10-19", 0}, {"2026-10-26", "2026-10-26", 1}},
		},
		{
			name: "two pauses, merged where they touch", anchor: "2026-10-05", cycle: 4,
			closures: []Closure{
				{From: MustParse("2026-10-12"), To: MustParse("2026-10-18"), Pause: true},
				{From: MustParse("2026-10-19"), To: MustParse("2026-10-25"), Pause: true},
				{From: MustParse("2026-11-09"), To: MustParse("2026-11-15"), Pause: true},
			},
			positions: map[string]int{"2026-10-05": 1, "2026-10-26": 2, "2026-11-02": 3, "2026-11-09": 4, "2026-11-16": 4, "2026-11-23": 1},
			legs:      []leg{{"2026-10-05", "2026-10-12", 0}, {"2026-10-26", "2026-11-09", 2}, {"2026-11-16", "", 3}},
		},
		{
			name: "a closure that does not pause, of part of a week or of another room, moves nothing", anchor: "2026-10-05", cycle: 2,
			closures: []Closure{
				{From: MustParse("2026-10-12"), To: MustParse("2026-10-18"), Reason: "holiday"},
				{From: MustParse("2026-10-19"), To: MustParse("2026-10-24"), Pause: true},
				{From: MustParse("2026-10-26"), To: MustParse("2026-11-01"), RoomIDs: []int64{2}, Pause: true},
			},
			positions: map[string]int{"2026-10-05": 1, "2026-10-12": 2, "2026-10-19": 1, "2026-10-26": 2},
			legs:      []leg{{"2026-10-05", "", 0}},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sr := Series{Anchor: MustParse(tc.anchor), Cycle: tc.cycle}
			if tc.end != "" {
				sr.End = MustParse(tc.end)
			}
			var closures []*Closure
			for i := range tc.closures {
				closures = append(closures, &tc.closures[i])
			}
			r := RotationOf(&sr, closures, map[int64]bool{1: true}, ws)
			for day, want := range tc.positions {
				if got := r.Position(WeekOf(MustParse(day), ws)); got != want {
					t.Errorf("position on %s: got %d, want %d", day, got, want)
				}
			}
			week := func(s string) int {
				if s == "" {
					return NoEnd
				}
				return WeekOf(MustParse(s), ws)
			}
			var want []Leg
			for _, l := range tc.legs {
				want = append(want, Leg{From: week(l.from), To: week(l.to), Skipped: l.skipped})
			}
			if got := r.Legs(); fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("legs: got %v, want %v", got, want)
			}
			paused := func(w int) bool {
				for _, p := range r.Paused() {
					if p.From <= w && w < p.To {
						return true
					}
				}
				return false
			}
			a := WeekOf(sr.Anchor, ws)
			for w := a - 3; w < a+3*52; w++ {
				for k := 1; k <= tc.cycle; k++ {
					inLegs := false
					for _, l := range r.Legs() {
						inLegs = inLegs || l.From <= w && w < l.To && mod(w-r.Residue(l, k), tc.cycle) == 0
					}
					if byPosition := r.Position(w) == k && !paused(w); inLegs != byPosition {
						t.Fatalf("week %d of the series on %s: in its legs %v, by position %v", k, WeekStartDay(w, ws), inLegs, byPosition)
					}
				}
			}
		})
	}
}
