package solve

import (
	"fmt"
	"testing"
)

// TestRescore: the score of what a solve placed, rescored, is the solve's
// own; the score of a part of it (every third place dropped, as the
// server drops what the clash proof refuses) is the oracle's count of
// that part, with the dropped counted unplaced.
func TestRescore(t *testing.T) {
	for seed := range uint64(3) {
		p := gym(seed)
		pr, err := Solve(p, Nothing{}, Options{Seed: seed, Work: 300_000})
		if err != nil {
			t.Fatal(err)
		}
		got, err := Rescore(p, pr.Placements)
		if err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(got) != fmt.Sprint(pr.Score) {
			t.Errorf("seed %d: rescored %v, the solve scored %v", seed, got, pr.Score)
		}
		var part []Placement
		for i, pl := range pr.Placements {
			if i%3 != 0 {
				part = append(part, pl)
			}
		}
		got, err = Rescore(p, part)
		if err != nil {
			t.Fatal(err)
		}
		want := oracleSoft(p, slotsOf(&Proposal{Placements: part}))
		if got.Soft != want || got.Unplaced != sessionsOf(p)-len(part) {
			t.Errorf("seed %d: a part rescored %v; want soft %d (the oracle's), %d unplaced", seed, got, want, sessionsOf(p)-len(part))
		}
		if got.Soft == pr.Score.Soft {
			t.Errorf("seed %d: dropping a third left the soft score %d: the test proves nothing", seed, got.Soft)
		}
		sum := 0
		for _, part := range got.Parts {
			sum += part.Value
		}
		if sum != got.Soft {
			t.Errorf("seed %d: parts %v sum to %d, total %d", seed, got.Parts, sum, got.Soft)
		}
	}
	// A place the line cannot have is an error, not a score.
	p := gym(0)
	pr, _ := Solve(p, Nothing{}, Options{Seed: 0, Work: 10_000})
	bad := append([]Placement(nil), pr.Placements[0])
	bad[0].Room = -1
	if _, err := Rescore(p, bad); err == nil {
		t.Error("a place in a room the problem does not have was scored")
	}
}

// TestProgress: the search reports its work and its best so far before
// each check of Stop, and once at the end; a Stop that answers true ends
// it at once, and the proposal is the best found by then.
func TestProgress(t *testing.T) {
	p := gym(1)
	var seen []Progress
	stopAt := -1
	pr, err := Solve(p, Nothing{}, Options{Seed: 1, Work: 1_000_000,
		Progress: func(g Progress) {
			seen = append(seen, g)
			if g.Work > 0 && stopAt < 0 {
				stopAt = len(seen)
			}
		},
		Stop: func() bool { return stopAt > 0 }})
	if err != nil {
		t.Fatal(err)
	}
	if !pr.Stopped || len(seen) != stopAt+1 {
		t.Fatalf("stopped %v after %d reports; want stopped at the report with work (%d), then one last", pr.Stopped, len(seen), stopAt)
	}
	first, last := seen[0], seen[len(seen)-1]
	if first.Work != 0 || first.Budget != 1_000_000 || first.Placed+first.Unplaced != sessionsOf(p) {
		t.Errorf("first report %+v: want no work yet of the budget, every session counted", first)
	}
	if last.Work == 0 || last.Work >= last.Budget || last.Placed < first.Placed || last.Unplaced == first.Unplaced && last.Soft > first.Soft {
		t.Errorf("last report %+v after %+v: want some work, and a best no worse", last, first)
	}
	// The best so far is what the proposal is, before its last pass
	// places what fits.
	if len(pr.Placements) < last.Placed {
		t.Errorf("the proposal places %d, the best so far %d", len(pr.Placements), last.Placed)
	}
	// Without a stop, the last report has spent the budget.
	seen = nil
	pr, _ = Solve(p, Nothing{}, Options{Seed: 1, Work: 100_000, Progress: func(g Progress) { seen = append(seen, g) }})
	if last := seen[len(seen)-1]; pr.Stopped || last.Work < last.Budget || last.Soft != pr.Score.Soft && last.Placed == len(pr.Placements) {
		t.Errorf("a search run to its budget ends with %+v, proposes %v", last, pr.Score)
	}
}
