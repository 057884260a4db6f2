package icalendar

import (
	"sort"
	"time"

	"github.com/koredyne/schedule/engine"
)

// Weeks are numbered as the engine numbers them (engine.WeekOf): every
// series session of one class time falls on one weekday, so a set of its
// dates is a set of weeks. Where a series' weeks fall is the engine's
// rule (engine.Rotation: its position, legs between pauses and open end);
// this file only reasons about the resulting runs of weeks, as a file's
// rules and the entries they become.

// forever is the exclusive end of a run that does not end: past
// engine.NoEnd, so a run's weeks can be counted without meeting the end of
// dates.
const forever = 1 << 30

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

// count returns how many weeks of the run lie in [from, to).
func (r run) count(from, to int) int {
	from, to = max(from, r.from), min(to, r.to)
	if from >= to {
		return 0
	}
	first := from + mod(r.res-from, r.mod)
	if first >= to {
		return 0
	}
	return (to-1-first)/r.mod + 1
}

// weeks returns the weeks of the run in [from, to), at most limit of them.
func (r run) weeks(from, to, limit int) []int {
	from, to = max(from, r.from), min(to, r.to)
	var out []int
	for w := from + mod(r.res-from, r.mod); w < to && len(out) < limit; w += r.mod {
		out = append(out, w)
	}
	return out
}

// weeksOn returns the weeks [from, to) whose day wd lies in a..b
// (inclusive dates).
func weeksOn(a, b engine.Date, wd, ws time.Weekday) (from, to int) {
	if b < a {
		return 0, 0
	}
	off := engine.DayIn(0, wd, ws) - engine.WeekStartDay(0, ws) // wd's day in any week
	return engine.WeekOf(a-off+6, ws), engine.WeekOf(b-off, ws) + 1
}

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

// legRun is where week k of a series falls in one of its legs between
// pauses (engine.Rotation.Legs), as a run.
func legRun(r *engine.Rotation, l engine.Leg, k int) run {
	to := l.To
	if to >= engine.NoEnd {
		to = forever
	}
	return run{from: l.From, to: to, mod: r.Cycle(), res: r.Residue(l, k)}
}

// pausedWeeks lists the runs of weeks in [from, to) that the engine holds
// a series using rooms in (engine.PausedRuns).
func pausedWeeks(closures []engine.Closure, rooms map[int64]bool, from, to int, ws time.Weekday) []engine.WeekRun {
	return engine.PausedRuns(pointers(closures), rooms, from, to, ws)
}

func pointers(closures []engine.Closure) []*engine.Closure {
	ptrs := make([]*engine.Closure, len(closures))
	for i := range closures {
		ptrs[i] = &closures[i]
	}
	return ptrs
}
