package solve

import (
	"math/rand/v2"
	"slices"
	"time"

	"github.com/koredyne/schedule/engine"
)

// Solve places the demand of p around the occupancy occ: a construction
// (the most constrained sessions first, each where it costs least), then a
// local search (moves and ejections, annealed) within the work budget. The
// answer depends only on p, occ, the seed and the budget — unless Stop
// ends the search first.
func Solve(p Problem, occ Occupancy, opt Options) (*Proposal, error) {
	m, err := compile(p, occ)
	if err != nil {
		return nil, err
	}
	budget := opt.Work
	if budget <= 0 {
		budget = DefaultWork
	}
	rng := rand.New(rand.NewPCG(opt.Seed, 0x6b6f7265))
	s := newState(m)
	s.construct(rng)
	best, stopped := s.search(rng, budget, opt.Stop, opt.Progress)
	s.restore(best)
	// A last pass: anything that fits now goes in.
	for i := range m.sessions {
		if s.assign[i] < 0 {
			if oi, _ := s.best(i, rng, -1); oi >= 0 {
				s.place(i, oi)
			}
		}
	}
	return s.proposal(stopped), nil
}

func (s *state) proposal(stopped bool) *Proposal {
	m := s.m
	p := &Proposal{Work: s.work, Stopped: stopped}
	missing := make([]int, len(m.lines))
	firstMissing := make([]int, len(m.lines))
	for i, oi := range s.assign {
		ss := m.sessions[i]
		if oi < 0 {
			if missing[ss.line] == 0 {
				firstMissing[ss.line] = i
			}
			missing[ss.line]++
			continue
		}
		l := &m.lines[ss.line]
		o := &l.opts[oi]
		var crew []int64
		for _, si := range l.crews[o.crew] {
			crew = append(crew, m.staff[si].ID)
		}
		p.Placements = append(p.Placements, Placement{
			Line: ss.line, Week: int(o.week) + 1, Weekday: time.Weekday(o.wd),
			Start: o.start, End: o.start + engine.LocalTime(l.Minutes),
			Room: m.rooms[l.rooms[o.room]].ID, Crew: crew,
		})
	}
	slices.SortStableFunc(p.Placements, func(a, b Placement) int {
		if a.Line != b.Line {
			return a.Line - b.Line
		}
		if a.Week != b.Week {
			return a.Week - b.Week
		}
		if a.Weekday != b.Weekday {
			return int(a.Weekday - b.Weekday)
		}
		return int(a.Start - b.Start)
	})
	for li, n := range missing {
		if n > 0 {
			p.Unplaced = append(p.Unplaced, Unplaced{Line: li, Missing: n, Reason: s.why(firstMissing[li])})
		}
	}
	p.Score = s.score()
	return p
}

func (s *state) score() Score {
	sc := Score{Unplaced: s.unplaced, Soft: s.soft()}
	for k, name := range prefKinds {
		sc.Parts = append(sc.Parts, Part{Name: name, Value: s.parts[k]})
	}
	return sc
}

// why finds the constraints that leave no room for session i, as they stand
// with everything else placed: every constraint any option breaks, then,
// one at a time, each that can be dropped and still leave no option is
// dropped (a deletion filter). What remains is irreducible: drop any one
// of it and some option fits.
func (s *state) why(i int) []Constraint {
	m := s.m
	ss := m.sessions[i]
	l := &m.lines[ss.line]
	if len(l.crews) == 0 {
		return []Constraint{{Kind: NoCrew}}
	}
	if len(l.rooms) == 0 {
		return []Constraint{{Kind: NoRoom}}
	}
	var all []Constraint
	index := map[Constraint]int{}
	// The line's own sessions are where they are: a slot one of them
	// takes is no candidate, rather than a reason.
	var own []*option
	for j, oi := range s.assign {
		if oi >= 0 && m.sessions[j].line == ss.line {
			own = append(own, &l.opts[oi])
		}
	}
	var broken [][]int // per option, the constraints it breaks
	m.each(ss.line, func(o option) {
		if ss.week >= 0 && int(o.week) != ss.week {
			return
		}
		for _, p := range own {
			if p.week == o.week && p.wd == o.wd && p.st < o.en && o.st < p.en && (l.rooms[p.room] == l.rooms[o.room] || shares(l.crews[p.crew], l.crews[o.crew])) {
				return
			}
		}
		var b []int
		found := func(c Constraint) {
			k, ok := index[c]
			if !ok {
				k = len(all)
				index[c] = k
				all = append(all, c)
			}
			b = append(b, k)
		}
		if !m.free(ss.line, o) {
			found(Constraint{Kind: Timetable})
		}
		m.violates(ss.line, o, s, found)
		broken = append(broken, b)
	})
	keep := make([]bool, len(all))
	for k := range keep {
		keep[k] = true
	}
	none := func() bool { // no option breaks none of the kept
		for _, b := range broken {
			ok := true
			for _, k := range b {
				if keep[k] {
					ok = false
					break
				}
			}
			if ok {
				return false
			}
		}
		return true
	}
	if !none() {
		return nil // room after all: the search ran out before it found it
	}
	for k := range all {
		keep[k] = false
		if !none() {
			keep[k] = true
		}
	}
	var out []Constraint
	for k, c := range all {
		if keep[k] {
			out = append(out, c)
		}
	}
	return out
}

func shares(a, b []int) bool {
	for _, x := range a {
		if slices.Contains(b, x) {
			return true
		}
	}
	return false
}
