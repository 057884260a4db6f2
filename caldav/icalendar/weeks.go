package icalendar

import (
	"sort"
	"time"

	"github.com/koredyne/schedule/engine"
)

// Weeks are numbered as the engine numbers them (engine.WeekOf): every
// series session of one class time falls on one weekday, so a set of its
// dates is a set of weeks.

// forever is the exclusive end of a run that does not end.
const forever = 1 << 30

// noEnd is the week an open-ended series runs until in the engine
// (engine/rotation.go): as far as any date can go.
var noEnd = engine.WeekOf(engine.MaxDate, time.Sunday) - 1

// run is the weeks w in [from, to) with w ≡ res (mod mod): what one entry of
// a series makes between pauses, and what one weekday of a weekly-periodic
// rule makes between its first and last date.
type run struct {
	from, to int // to == forever: no end
	mod, res int
}

func mod(a, m int) int { return ((a % m) + m) % m }

func (r run) has(w int) bool { return w >= r.from && w < r.to && mod(w, r.mod) == r.res }

// first returns the first week of the run.
func (r run) first() (int, bool) {
	w := r.from + mod(r.res-r.from, r.mod)
	return w, w < r.to
}

// last returns the last week of a run that ends.
func (r run) last() (int, bool) {
	if r.to >= forever {
		return 0, false
	}
	w := r.to - 1 - mod(r.to-1-r.res, r.mod)
	return w, w >= r.from
}

func (r run) empty() bool { _, ok := r.first(); return !ok }

func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

func lcm(a, b int) int { return a / gcd(a, b) * b }

// maxPeriod bounds the common period of runs this package reasons about
// (enough for any two rotations of up to 52 weeks).
const maxPeriod = 52 * 52

// inAny reports whether any run holds w.
func inAny(rs []run, w int) bool {
	for _, r := range rs {
		if r.has(w) {
			return true
		}
	}
	return false
}

// minus returns the weeks of a that no run of b holds, in order, or false
// when there are more than limit of them (or infinitely many). It reasons
// over the common period of the runs between their ends instead of
// scanning every week, so open runs cost a period, not forever.
func minus(a, b []run, limit int) ([]int, bool) {
	cuts := map[int]bool{}
	for _, r := range a {
		cuts[r.from], cuts[r.to] = true, true
	}
	for _, r := range b {
		cuts[r.from], cuts[r.to] = true, true
	}
	points := make([]int, 0, len(cuts))
	for p := range cuts {
		points = append(points, p)
	}
	sort.Ints(points)
	var out []int
	for i := 0; i+1 < len(points); i++ {
		x, y := points[i], points[i+1]
		var as, bs []run
		period := 1
		for _, r := range a {
			if r.from <= x && r.to >= y {
				as = append(as, r)
				period = min(lcm(period, r.mod), maxPeriod+1)
			}
		}
		if len(as) == 0 {
			continue
		}
		for _, r := range b {
			if r.from <= x && r.to >= y {
				bs = append(bs, r)
				period = min(lcm(period, r.mod), maxPeriod+1)
			}
		}
		end := y
		if period <= maxPeriod && y-x > period {
			// Periodic in [x, y): clean over one period means clean throughout.
			clean := true
			for w := x; w < x+period; w++ {
				if inAny(as, w) && !inAny(bs, w) {
					clean = false
					break
				}
			}
			if clean {
				continue
			}
		}
		if end >= forever {
			return nil, false
		}
		for w := x; w < end; w++ {
			if inAny(as, w) && !inAny(bs, w) {
				if len(out) == limit {
					return nil, false
				}
				out = append(out, w)
			}
		}
	}
	return out, true
}

// rotation is a series as the engine rotates it (engine/rotation.go): week
// numbers, an exclusive end, and the weeks a pausing closure holds it.
type rotation struct {
	anchor, end int
	cycle       int
	paused      []int // ascending, inside [anchor, end)
}

func newRotation(sr engine.Series, ws time.Weekday) *rotation {
	r := &rotation{anchor: engine.WeekOf(sr.Anchor, ws), end: noEnd, cycle: sr.Cycle}
	if sr.End != 0 {
		r.end = engine.WeekOf(sr.End, ws)
	}
	return r
}

// position is the series' week (1..cycle) in week w, or 0 when it does not
// run: a paused week shows the position the series resumes with.
func (r *rotation) position(w int) int {
	if w < r.anchor || w >= r.end {
		return 0
	}
	return mod(w-r.anchor-sort.SearchInts(r.paused, w), r.cycle) + 1
}

// segment is a stretch of a series between pauses: in it the series is a
// plain rotation that started skipped weeks late.
type segment struct {
	from, to int
	skipped  int
}

func (r *rotation) segments() []segment {
	var out []segment
	from, skipped := r.anchor, 0
	for i := 0; i < len(r.paused); {
		j := i
		for j+1 < len(r.paused) && r.paused[j+1] == r.paused[j]+1 {
			j++
		}
		out = append(out, segment{from, r.paused[i], skipped})
		skipped += j - i + 1
		from = r.paused[j] + 1
		i = j + 1
	}
	return append(out, segment{from, r.end, skipped})
}

// runOf is where week k of the series falls in a segment.
func (r *rotation) runOf(s segment, k int) run {
	to := s.to
	if to >= noEnd {
		to = forever
	}
	return run{from: s.from, to: to, mod: r.cycle, res: mod(r.anchor+s.skipped+k-1, r.cycle)}
}

// pausedWeeks lists the weeks in [from, to) that the engine holds a series
// using rooms in (engine.PausedWeeks).
func pausedWeeks(closures []engine.Closure, rooms map[int64]bool, from, to int, ws time.Weekday) []int {
	ptrs := make([]*engine.Closure, len(closures))
	for i := range closures {
		ptrs[i] = &closures[i]
	}
	return engine.PausedWeeks(ptrs, rooms, from, to, ws)
}
