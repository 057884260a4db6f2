package solve

import (
	"cmp"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/koredyne/schedule/engine"
)

// state is a solution under construction: the option each session holds
// (-1: unplaced) and the occupancy and counts it makes.
type state struct {
	m        *model
	assign   []int32
	roomNew  []int16
	staffNew []int16
	newMin   []int
	newCount []int
	lines    []lineCount
	parts    [4]int
	unplaced int
	work     int64
}

// lineCount is what a line's preferences are scored from.
type lineCount struct {
	placed int
	rooms  []int
	crews  []int
	days   []int // by week*7 + weekday
}

func newState(m *model) *state {
	s := &state{
		m:        m,
		assign:   make([]int32, len(m.sessions)),
		roomNew:  make([]int16, len(m.roomCap)),
		staffNew: make([]int16, len(m.busy)),
		newMin:   make([]int, len(m.baseMin)),
		newCount: make([]int, len(m.baseMin)),
		unplaced: len(m.sessions),
	}
	for i := range s.assign {
		s.assign[i] = -1
	}
	for _, l := range m.lines {
		s.lines = append(s.lines, lineCount{rooms: make([]int, len(l.rooms)), crews: make([]int, len(l.crews)), days: make([]int, m.cycle*days)})
	}
	return s
}

func (s *state) load(si, w int) (minutes, count int) {
	return s.newMin[si*s.m.cycle+w], s.newCount[si*s.m.cycle+w]
}

// domain is the options session i may take.
func (s *state) domain(i int) []int32 {
	ss := s.m.sessions[i]
	l := &s.m.lines[ss.line]
	if ss.week >= 0 {
		return l.byWeek[ss.week]
	}
	return l.all()
}

func (l *line) all() []int32 {
	if l.byWeek == nil {
		return nil
	}
	var n int
	for _, w := range l.byWeek {
		n += len(w)
	}
	out := make([]int32, 0, n)
	for _, w := range l.byWeek {
		out = append(out, w...)
	}
	return out
}

// fits reports whether option o of line li can be added to what is placed
// (o has passed the constraints of the timetable already).
func (s *state) fits(li int, o *option) bool {
	m := s.m
	l := &m.lines[li]
	s.work++
	for _, si := range l.crews[o.crew] {
		base := m.at(si, int(o.week), int(o.wd), 0)
		r := 0
		if rest := m.staff[si].Rest; rest > 0 {
			r = ceilTick(engine.LocalTime(rest))
		}
		for t := max(int(o.st)-r, 0); t < min(int(o.en)+r, perDay); t++ {
			if s.staffNew[base+t] > 0 {
				return false
			}
		}
		mins, n := s.load(si, int(o.week))
		if m.overLimit(si, int(o.week), l.Minutes, mins, n) {
			return false
		}
	}
	need := int16(l.need[o.room])
	base := m.at(l.rooms[o.room], int(o.week), int(o.wd), 0)
	for t := int(o.st); t < int(o.en); t++ {
		if m.roomBase[base+t]+s.roomNew[base+t]+need > m.roomCap[base+t] {
			return false
		}
	}
	return true
}

// gain is what adding option o to line li costs each kind of preference,
// unweighted.
func (s *state) gain(li int, o *option) (g [4]int) {
	l := &s.m.lines[li]
	c := &s.lines[li]
	if o.out {
		g[0] = 1
	}
	if d := l.DaysApart; d > 0 {
		for wd := range days {
			dist := abs(wd - int(o.wd))
			dist = min(dist, days-dist)
			if dist < d {
				g[1] += c.days[int(o.week)*days+wd]
			}
		}
	}
	if l.SameRoom && c.placed > 0 && c.rooms[o.room] == 0 {
		g[2] = 1
	}
	if l.SameCoach && c.placed > 0 && c.crews[o.crew] == 0 {
		g[3] = 1
	}
	return g
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// cost is gain weighted.
func (s *state) cost(li int, g [4]int) int {
	w := s.m.lines[li].weight
	n := 0
	for k, v := range g {
		n += v * w * s.m.weights[k]
	}
	return n
}

func (s *state) soft() int { return s.parts[0] + s.parts[1] + s.parts[2] + s.parts[3] }

// objective orders solutions: fewer unplaced first, then less soft cost.
func (s *state) objective() int64 { return int64(s.unplaced)<<32 + int64(s.soft()) }

func (s *state) place(i int, oi int32) {
	li := s.m.sessions[i].line
	o := &s.m.lines[li].opts[oi]
	s.weigh(li, o, 1)
	s.mark(li, o, 1)
	s.assign[i] = oi
	s.unplaced--
}

func (s *state) remove(i int) {
	li := s.m.sessions[i].line
	o := &s.m.lines[li].opts[s.assign[i]]
	s.mark(li, o, -1)
	s.weigh(li, o, -1)
	s.assign[i] = -1
	s.unplaced++
}

// weigh adds (d = 1) or takes away (d = -1) what option o of line li costs
// the preferences as the line's sessions stand without it.
func (s *state) weigh(li int, o *option, d int) {
	w := s.m.lines[li].weight
	for k, v := range s.gain(li, o) {
		s.parts[k] += d * v * w * s.m.weights[k]
	}
}

// mark adds (d = 1) or takes away (d = -1) what option o occupies and
// counts.
func (s *state) mark(li int, o *option, d int) {
	m := s.m
	l := &m.lines[li]
	for _, si := range l.crews[o.crew] {
		base := m.at(si, int(o.week), int(o.wd), 0)
		for t := int(o.st); t < int(o.en); t++ {
			s.staffNew[base+t] += int16(d)
		}
		s.newMin[si*m.cycle+int(o.week)] += d * l.Minutes
		s.newCount[si*m.cycle+int(o.week)] += d
	}
	base := m.at(l.rooms[o.room], int(o.week), int(o.wd), 0)
	need := int16(d * l.need[o.room])
	for t := int(o.st); t < int(o.en); t++ {
		s.roomNew[base+t] += need
	}
	s.lines[li].count(o, d)
}

// count adds (d = 1) or takes away (d = -1) option o in what a line's
// preferences are scored from.
func (c *lineCount) count(o *option, d int) {
	c.placed += d
	c.rooms[o.room] += d
	c.crews[o.crew] += d
	c.days[int(o.week)*days+int(o.wd)] += d
}

// best returns the option of session i that fits with the least cost, or
// -1; ties are broken at random.
func (s *state) best(i int, rng *rand.Rand, skip int32) (int32, int) {
	li := s.m.sessions[i].line
	l := &s.m.lines[li]
	bestO, bestC, ties := int32(-1), math.MaxInt, 0
	for _, oi := range s.domain(i) {
		if oi == skip {
			continue
		}
		o := &l.opts[oi]
		if !s.fits(li, o) {
			continue
		}
		c := s.cost(li, s.gain(li, o))
		switch {
		case c < bestC:
			bestO, bestC, ties = oi, c, 1
		case c == bestC:
			ties++
			if rng.IntN(ties) == 0 {
				bestO = oi
			}
		}
	}
	return bestO, bestC
}

// construct places the sessions most constrained first, each where it
// costs least.
func (s *state) construct(rng *rand.Rand) {
	order := make([]int, len(s.m.sessions))
	size := make([]int, len(order))
	for i := range order {
		order[i] = i
		size[i] = len(s.domain(i))
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(size[a], size[b]) })
	for _, i := range order {
		if oi, _ := s.best(i, rng, -1); oi >= 0 {
			s.place(i, oi)
		}
	}
}

type change struct {
	session int
	was     int32
}

// conflicts lists the placed sessions that keep option o of line li out:
// in its room or with one of its staff at overlapping times (their rest
// counted), or giving their week's most.
func (s *state) conflicts(li int, o *option, out []int) []int {
	m := s.m
	l := &m.lines[li]
	staff := l.crews[o.crew]
	room := l.rooms[o.room]
	for j, a := range s.assign {
		if a < 0 {
			continue
		}
		lj := m.sessions[j].line
		p := &m.lines[lj].opts[a]
		if p.week != o.week {
			continue
		}
		hit := false
		if p.wd == o.wd && m.lines[lj].rooms[p.room] == room && p.st < o.en && o.st < p.en {
			hit = true
		}
		for _, si := range m.lines[lj].crews[p.crew] {
			if !slices.Contains(staff, si) {
				continue
			}
			r := int16(0)
			if rest := m.staff[si].Rest; rest > 0 {
				r = int16(ceilTick(engine.LocalTime(rest)))
			}
			if p.wd == o.wd && p.st < o.en+r && o.st < p.en+r {
				hit = true
			}
			if m.staff[si].MaxMinutes > 0 || m.staff[si].MaxSessions > 0 {
				mins, n := s.load(si, int(o.week))
				if m.overLimit(si, int(o.week), l.Minutes, mins, n) {
					hit = true
				}
			}
		}
		if hit {
			out = append(out, j)
		}
	}
	return out
}

// search improves s until the work budget is spent or stop says so,
// keeping the best solution seen in best; progress, when set, hears how it
// goes before each check of stop, and when it ends.
func (s *state) search(rng *rand.Rand, budget int64, stop func() bool, progress func(Progress)) (best []int32, stopped bool) {
	m := s.m
	best = slices.Clone(s.assign)
	bestObj := s.objective()
	start := s.work
	report := func() {
		if progress != nil {
			unplaced := int(bestObj >> 32)
			progress(Progress{Work: s.work - start, Budget: budget, Placed: len(m.sessions) - unplaced, Unplaced: unplaced, Soft: int(bestObj & (1<<32 - 1))})
		}
	}
	defer report()
	var placeable []int // sessions with any option at all
	for i := range m.sessions {
		if len(s.domain(i)) > 0 {
			placeable = append(placeable, i)
		}
	}
	if len(placeable) == 0 {
		return best, false
	}
	// The sessions of each session's line and week (of its line, for a
	// line counted per rotation).
	peers := make([][]int, len(m.sessions))
	mates := make([][]int, len(m.sessions)) // and of every week
	group := map[session][]int{}
	byLine := make([][]int, len(m.lines))
	for i, ss := range m.sessions {
		group[ss] = append(group[ss], i)
		byLine[ss.line] = append(byLine[ss.line], i)
	}
	for i, ss := range m.sessions {
		peers[i] = group[ss]
		mates[i] = byLine[ss.line]
	}
	var log []change
	var hits []int
	for iter := 0; ; iter++ {
		if s.work-start >= budget || (s.unplacedPlaceable(placeable) == 0 && s.soft() == 0) {
			break
		}
		if iter%64 == 0 {
			report()
			if stop != nil && stop() {
				return best, true
			}
		}
		// Anneal in runs of at most the default budget, each from where
		// the last left off: a deadline that cuts a long budget short
		// then loses at most part of one run, rather than stopping a
		// single long run while it is still hot.
		run := min(budget, DefaultWork)
		spent := float64((s.work-start)%run) / float64(run)
		temp := 2.0*(1-spent) + 0.05
		before := s.objective()
		log = log[:0]
		i := placeable[rng.IntN(len(placeable))]
		if s.unplaced > 0 && rng.IntN(2) == 0 {
			// Try an unplaced session.
			for range 8 {
				j := placeable[rng.IntN(len(placeable))]
				if s.assign[j] < 0 {
					i = j
					break
				}
			}
		}
		li := m.sessions[i].line
		l := &m.lines[li]
		dom := s.domain(i)
		s.work += int64(len(dom)) / 16 // drawing and bookkeeping
		switch {
		case s.assign[i] < 0:
			if oi, _ := s.best(i, rng, -1); oi >= 0 {
				s.place(i, oi)
				log = append(log, change{i, -1})
				break
			}
			// Eject what keeps it out of a random option, then
			// put the ejected back where they fit best.
			oi := dom[rng.IntN(len(dom))]
			hits = s.conflicts(li, &l.opts[oi], hits[:0])
			if len(hits) == 0 || len(hits) > 3 {
				continue
			}
			var ok bool
			if log, ok = s.ejectInto(i, li, oi, hits, log, rng); !ok {
				continue
			}
			log = append(log, change{i, -1})
		case rng.IntN(8) == 0:
			// Take out its line's sessions of the week and put them back
			// one by one in a random order, each where it costs least:
			// days apart asks for a new pattern of days, which moves of
			// one session at a time rarely reach.
			ps := peers[i]
			if rng.IntN(2) == 0 {
				ps = mates[i]
			}
			for _, j := range ps {
				log = append(log, change{j, s.assign[j]})
				if s.assign[j] >= 0 {
					s.remove(j)
				}
			}
			for _, k := range rng.Perm(len(ps)) {
				j := ps[k]
				if oj, _ := s.best(j, rng, -1); oj >= 0 {
					s.place(j, oj)
				}
			}
		case rng.IntN(3) == 0:
			// Move it where it fits best elsewhere.
			was := s.assign[i]
			s.remove(i)
			log = append(log, change{i, was})
			if oi, _ := s.best(i, rng, was); oi >= 0 {
				s.place(i, oi)
			} else {
				s.place(i, was)
			}
		default:
			// Move it to a random option, ejecting what is in the way.
			was := s.assign[i]
			oi := dom[rng.IntN(len(dom))]
			if oi == was {
				continue
			}
			s.remove(i)
			log = append(log, change{i, was})
			hits = s.conflicts(li, &l.opts[oi], hits[:0])
			if len(hits) > 2 {
				s.undo(log)
				continue
			}
			var ok bool
			if log, ok = s.ejectInto(i, li, oi, hits, log, rng); !ok {
				continue
			}
		}
		after := s.objective()
		if after > before {
			worse := after - before
			if s.unplaced > int(before>>32) || rng.Float64() >= math.Exp(-float64(worse)/temp) {
				s.undo(log)
				continue
			}
		}
		if after < bestObj {
			bestObj = after
			copy(best, s.assign)
		}
	}
	return best, false
}

func (s *state) unplacedPlaceable(placeable []int) int {
	n := 0
	for _, i := range placeable {
		if s.assign[i] < 0 {
			n++
		}
	}
	return n
}

// ejectInto puts session i (of line li) into option oi after taking out
// the sessions hits that are in its way (each logged), then puts those back
// where they now fit best. When i still does not fit, it undoes log and
// answers false.
func (s *state) ejectInto(i, li int, oi int32, hits []int, log []change, rng *rand.Rand) ([]change, bool) {
	for _, j := range hits {
		log = append(log, change{j, s.assign[j]})
		s.remove(j)
	}
	if !s.fits(li, &s.m.lines[li].opts[oi]) {
		s.undo(log)
		return log, false
	}
	s.place(i, oi)
	for _, j := range hits {
		if oj, _ := s.best(j, rng, -1); oj >= 0 {
			s.place(j, oj)
		}
	}
	return log, true
}

// undo takes back the changes of log, last first.
func (s *state) undo(log []change) {
	// Remove everything the move placed, then put back what it moved.
	for _, c := range log {
		if s.assign[c.session] >= 0 {
			s.remove(c.session)
		}
	}
	for _, c := range log {
		if c.was >= 0 && s.assign[c.session] < 0 {
			s.place(c.session, c.was)
		}
	}
}

// restore sets s to the assignment a.
func (s *state) restore(a []int32) {
	for i := range s.assign {
		if s.assign[i] >= 0 && s.assign[i] != a[i] {
			s.remove(i)
		}
	}
	for i, oi := range a {
		if oi >= 0 && s.assign[i] < 0 {
			s.place(i, oi)
		}
	}
}
