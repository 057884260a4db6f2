package solve

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/koredyne/schedule/engine"
)

// gym makes a gym-size instance from a seed: 6 rooms, 12 coaches with
// working hours, each qualified for a few of 12 activities, and a two-week
// rotation of 60–120 sessions a week with windows, days apart, same room
// and same coach.
func gym(seed uint64) Problem { return gymOf(seed, 60, 120) }

// gymOf is gym with lo to hi sessions a week.
func gymOf(seed uint64, lo, hi int) Problem {
	rng := rand.New(rand.NewPCG(seed, 35))
	p := Problem{Frame: Frame{Cycle: 2, Earliest: engine.MustTime("06:00"), Latest: engine.MustTime("22:00"), Step: 15}}
	for r := range 6 {
		units := 1
		if r == 5 {
			units = 6 // the pool's lanes
		}
		p.Rooms = append(p.Rooms, Room{ID: int64(100 + r), Name: fmt.Sprint("Room ", r+1), Units: units})
	}
	shifts := [][2]string{{"06:00", "14:00"}, {"10:00", "18:00"}, {"14:00", "22:00"}, {"07:00", "21:00"}}
	qualified := make([][]int64, 12) // activity → coaches
	for c := range 12 {
		s := Staff{ID: int64(200 + c), Name: fmt.Sprint("Coach ", c+1), MaxSessions: 12 + rng.IntN(8)}
		if rng.IntN(3) == 0 {
			s.Rest = 15
		}
		sh := shifts[rng.IntN(len(shifts))]
		var spans []engine.HoursSpan
		off := rng.IntN(7)
		for wd := range 7 {
			if wd == off || wd == (off+1)%7 {
				continue
			}
			spans = append(spans, engine.HoursSpan{Weekday: time.Weekday(wd), Start: engine.MustTime(sh[0]), End: engine.MustTime(sh[1])})
		}
		s.Hours = []engine.WorkingHours{{Spans: spans}}
		p.Staff = append(p.Staff, s)
		for _, a := range rng.Perm(12)[:3+rng.IntN(2)] {
			qualified[a] = append(qualified[a], s.ID)
		}
	}
	evenings := Window{Weekdays: []time.Weekday{1, 2, 3, 4, 5}, Start: engine.MustTime("17:00"), End: engine.MustTime("21:00")}
	mornings := Window{Start: engine.MustTime("06:00"), End: engine.MustTime("10:00")}
	target := lo + rng.IntN(hi-lo+1)
	for week, li := 0, 0; week < target; li++ {
		a := li % 12
		l := Line{Name: fmt.Sprint("Activity ", a+1), Sessions: 1 + rng.IntN(5), Minutes: []int{45, 60, 60, 90}[rng.IntN(4)]}
		for _, c := range qualified[a] {
			l.Crews = append(l.Crews, []int64{c})
		}
		if len(l.Crews) == 0 {
			l.Crews = [][]int64{{int64(200 + rng.IntN(12))}}
		}
		switch rng.IntN(4) {
		case 0:
			l.Rooms = []int64{105}
			l.Units = 1 + rng.IntN(3)
		case 1:
			l.Rooms = []int64{int64(100 + rng.IntN(5)), int64(100 + rng.IntN(5))}
		}
		switch rng.IntN(3) {
		case 0:
			l.Windows = []Window{evenings}
		case 1:
			l.Windows = []Window{mornings}
		}
		if l.Sessions >= 3 {
			l.DaysApart = 2
		} else if l.Sessions == 2 {
			l.DaysApart = 1
		}
		l.SameRoom = rng.IntN(2) == 0
		l.SameCoach = rng.IntN(2) == 0
		l.Weight = 1 + rng.IntN(3)
		if rng.IntN(5) == 0 {
			l.Weeks = []int{1 + rng.IntN(2)} // alternating weeks
		}
		p.Lines = append(p.Lines, l)
		week += l.Sessions
	}
	return p
}

func sessionsOf(p Problem) int {
	n := 0
	for _, l := range p.Lines {
		switch {
		case l.PerRotation:
			n += l.Sessions
		case len(l.Weeks) > 0:
			n += l.Sessions * len(l.Weeks)
		default:
			n += l.Sessions * p.Frame.Cycle
		}
	}
	return n
}

// TestGymProposalsBreakNoRule: what the solver places on gym-size
// instances the oracle finds clash-free, and scores as the solver does.
func TestGymProposalsBreakNoRule(t *testing.T) {
	for seed := range uint64(4) {
		p := gym(seed)
		pr, err := Solve(p, Nothing{}, Options{Seed: seed, Work: 2_000_000})
		if err != nil {
			t.Fatal(err)
		}
		got := slotsOf(pr)
		occ := fixed{}
		for _, s := range got {
			if !oracleAlone(p, occ, s) {
				t.Fatalf("seed %d: %+v breaks a rule on its own", seed, s)
			}
		}
		if err := oracleTogether(p, occ, got); err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		if soft := oracleSoft(p, got); soft != pr.Score.Soft {
			t.Errorf("seed %d: the solver scores %d, the oracle %d", seed, pr.Score.Soft, soft)
		}
		t.Logf("seed %d: %d sessions, placed %d, soft %d %v, work %d", seed, sessionsOf(p), len(got), pr.Score.Soft, pr.Score.Parts, pr.Work)
	}
}

// TestSameSeedSameProposal: the answer depends on the input, the seed and
// the budget alone.
func TestSameSeedSameProposal(t *testing.T) {
	p := gym(7)
	a, err := Solve(p, Nothing{}, Options{Seed: 3, Work: 500_000})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Solve(p, Nothing{}, Options{Seed: 3, Work: 500_000})
	if fmt.Sprint(a) != fmt.Sprint(b) {
		t.Errorf("two solves of one input and seed differ:\n%v\n%v", a, b)
	}
}

// TestUnplacedSaysWhy: Yoga needs 3 a week; Coach B's hours and the
// Studio's Thursday closure leave room for 2.
func TestUnplacedSaysWhy(t *testing.T) {
	b := Staff{ID: 2, Name: "Coach B", Hours: []engine.WorkingHours{{Spans: []engine.HoursSpan{
		{Weekday: time.Tuesday, Start: engine.MustTime("09:00"), End: engine.MustTime("10:00")},
		{Weekday: time.Thursday, Start: engine.MustTime("09:00"), End: engine.MustTime("10:00")},
		{Weekday: time.Saturday, Start: engine.MustTime("09:00"), End: engine.MustTime("10:00")},
	}}}}
	studio := Room{ID: 9, Name: "Studio", Units: 1, Levels: []Level{{Weekdays: []time.Weekday{0, 1, 2, 3, 5, 6}, Start: 0, End: engine.EndOfDay, Units: 1}}}
	p := Problem{
		Frame: Frame{Cycle: 1},
		Staff: []Staff{b},
		Rooms: []Room{studio},
		Lines: []Line{{Name: "Yoga", Sessions: 3, Minutes: 60, Crews: [][]int64{{2}}, DaysApart: 1}},
	}
	pr, err := Solve(p, Nothing{}, Options{Seed: 1, Work: 100_000})
	if err != nil {
		t.Fatal(err)
	}
	want := []Unplaced{{Line: 0, Missing: 1, Reason: []Constraint{{Kind: Hours, Staff: 2}, {Kind: RoomCapacity, Room: 9}}}}
	if fmt.Sprint(pr.Unplaced) != fmt.Sprint(want) || len(pr.Placements) != 2 {
		t.Errorf("got %d placed, unplaced %v, want 2 and %v", len(pr.Placements), pr.Unplaced, want)
	}
	// No one to give it.
	p.Lines[0].Crews = nil
	pr, _ = Solve(p, Nothing{}, Options{Seed: 1, Work: 100_000})
	if len(pr.Unplaced) != 1 || pr.Unplaced[0].Missing != 3 || fmt.Sprint(pr.Unplaced[0].Reason) != fmt.Sprint([]Constraint{{Kind: NoCrew}}) {
		t.Errorf("without a crew: %v", pr.Unplaced)
	}
}

func BenchmarkGymFirstProposal(b *testing.B) {
	p := gym(1)
	for b.Loop() {
		pr, err := Solve(p, Nothing{}, Options{Seed: 1, Work: 1})
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(len(pr.Placements)), "placed")
		b.ReportMetric(float64(pr.Score.Soft), "soft")
	}
}

func BenchmarkGymDefault(b *testing.B) {
	p := gym(1)
	for b.Loop() {
		pr, err := Solve(p, Nothing{}, Options{Seed: 1})
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(len(pr.Placements)), "placed")
		b.ReportMetric(float64(pr.Score.Soft), "soft")
	}
}
