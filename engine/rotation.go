package engine

import (
	"sort"
	"time"
)

// Weeks are numbered from a fixed origin so that week arithmetic is integer
// arithmetic: week w starts on day 7w + weekStart (Rata Die). A date's week is
// the week holding it; ⌊(date − anchor)/7⌋ is the difference of week numbers
// because anchors fall on the week start. They are exported for code that
// reasons about rotations as the engine does (the iCalendar export).

// WeekOf returns the number of the week holding d, for weeks starting on ws.
func WeekOf(d Date, ws time.Weekday) int { return (int(d) - int(ws)) / 7 }

// WeekStartDay returns the first day of week w.
func WeekStartDay(w int, ws time.Weekday) Date { return Date(7*w + int(ws)) }

// DayIn returns the date of weekday wd in week w.
func DayIn(w int, wd, ws time.Weekday) Date {
	return WeekStartDay(w, ws) + Date((int(wd)-int(ws)+7)%7)
}

// noEnd is the first week that may hold a day past MaxDate: an open-ended
// series runs until it, which is as far as any date can go.
var noEnd = WeekOf(MaxDate, time.Sunday) - 1

// rotation is a series compiled for week arithmetic.
type rotation struct {
	anchor, end int       // week numbers; end exclusive (noEnd when open)
	cycle       int       // weeks
	paused      []WeekRun // paused weeks inside [anchor, end), ascending, apart
	before      []int     // before[i]: paused weeks in paused[:i]
}

// WeekRun is the weeks [From, To), numbered as WeekOf numbers them.
type WeekRun struct{ From, To int }

func (r *rotation) setPaused(runs []WeekRun) {
	r.paused = runs
	r.before = make([]int, len(runs)+1)
	for i, p := range runs {
		r.before[i+1] = r.before[i] + p.To - p.From
	}
}

// position returns the series' week (1..cycle) in week w, or 0 when the
// series does not run then. A paused week does not advance the rotation: it
// shows the position the series resumes with (its sessions are cancelled by
// the closure that pauses it).
func (r *rotation) position(w int) int {
	if w < r.anchor || w >= r.end {
		return 0
	}
	p := w - r.anchor - r.pausedBefore(w)
	return p%r.cycle + 1
}

// pausedBefore counts the paused weeks before w, by binary search over the
// runs: a closure of a century costs what a closure of a week does.
func (r *rotation) pausedBefore(w int) int {
	i := sort.Search(len(r.paused), func(i int) bool { return r.paused[i].To > w })
	n := r.before[i]
	if i < len(r.paused) && r.paused[i].From < w {
		n += w - r.paused[i].From
	}
	return n
}

// segment is a stretch of weeks [from, to) in which something happens in
// every week w with w ≡ res (mod mod).
type segment struct {
	from, to int
	mod, res int
}

// segments returns, for week k of the series, the stretches of weeks in which
// it is active, between pauses. Each is a plain residue class: the pauses are
// what make the rotation piecewise periodic.
func (r *rotation) segments(k int) []segment {
	var out []segment
	from, skipped := r.anchor, 0
	emit := func(to int) {
		if from < to {
			res := ((r.anchor+skipped+k-1)%r.cycle + r.cycle) % r.cycle
			out = append(out, segment{from: from, to: to, mod: r.cycle, res: res})
		}
	}
	for _, p := range r.paused {
		emit(p.From)
		skipped += p.To - p.From
		from = p.To
	}
	emit(r.end)
	return out
}

// fullWeeks returns the weeks entirely inside from..to (inclusive dates).
func fullWeeks(from, to Date, ws time.Weekday) WeekRun {
	return WeekRun{From: ceilDiv(int(from)-int(ws), 7), To: floorDiv(int(to)-6-int(ws), 7) + 1}
}
