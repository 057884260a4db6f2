package engine

import (
	"sort"
	"time"
)

// Weeks are numbered from a fixed origin so that week arithmetic is integer
// arithmetic: week w starts on day 7w + weekStart (Rata Die). A date's week is
// the week holding it; ⌊(date − anchor)/7⌋ is the difference of week numbers
// because anchors fall on the week start. They are exported for code that
// reasons about weeks as the engine does (the iCalendar export).

// WeekOf returns the number of the week holding d, for weeks starting on ws.
func WeekOf(d Date, ws time.Weekday) int { return (int(d) - int(ws)) / 7 }

// WeekStartDay returns the first day of week w.
func WeekStartDay(w int, ws time.Weekday) Date { return Date(7*w + int(ws)) }

// DayIn returns the date of weekday wd in week w.
func DayIn(w int, wd, ws time.Weekday) Date {
	return WeekStartDay(w, ws) + Date((int(wd)-int(ws)+7)%7)
}

// NoEnd is the first week that may hold a day past MaxDate: an open-ended
// series runs until it, which is as far as any date can go.
var NoEnd = WeekOf(MaxDate, time.Sunday) - 1

// Rotation is a series compiled for week arithmetic: the one home of the
// rotation rule (position = ⌊(date − anchor)/7⌋ mod N + 1 while anchor ≤
// date < end, paused weeks not counted), for the timetable and for code
// that writes a series' weeks as rules (the iCalendar export).
type Rotation struct {
	anchor, end int       // week numbers; end exclusive (NoEnd when open)
	cycle       int       // weeks
	paused      []WeekRun // paused weeks inside [anchor, end), ascending, apart
	before      []int     // before[i]: paused weeks in paused[:i]
}

// WeekRun is the weeks [From, To), numbered as WeekOf numbers them.
type WeekRun struct{ From, To int }

// RotationOf compiles series sr, for weeks starting on ws: it does not
// advance in the weeks a pausing closure of closures covers whole for every
// room of rooms, the rooms its entries use (see PausedRuns).
func RotationOf(sr *Series, closures []*Closure, rooms map[int64]bool, ws time.Weekday) *Rotation {
	r := &Rotation{anchor: WeekOf(sr.Anchor, ws), end: NoEnd, cycle: sr.Cycle}
	if sr.End != 0 {
		r.end = WeekOf(sr.End, ws)
	}
	r.paused = PausedRuns(closures, rooms, r.anchor, r.end, ws)
	r.before = make([]int, len(r.paused)+1)
	for i, p := range r.paused {
		r.before[i+1] = r.before[i] + p.To - p.From
	}
	return r
}

// Cycle returns the length of the rotation in weeks.
func (r *Rotation) Cycle() int { return r.cycle }

// Paused returns the runs of weeks in which the series does not advance,
// ascending and apart; the caller must not change them.
func (r *Rotation) Paused() []WeekRun { return r.paused }

// Position returns the series' week (1..cycle) in week w, or 0 when the
// series does not run then. A paused week does not advance the rotation: it
// shows the position the series resumes with (its sessions are cancelled by
// the closure that pauses it).
func (r *Rotation) Position(w int) int {
	if w < r.anchor || w >= r.end {
		return 0
	}
	p := w - r.anchor - r.pausedBefore(w)
	return p%r.cycle + 1
}

// pausedBefore counts the paused weeks before w, by binary search over the
// runs: a closure of a century costs what a closure of a week does.
func (r *Rotation) pausedBefore(w int) int {
	if len(r.paused) == 0 {
		return 0
	}
	i := sort.Search(len(r.paused), func(i int) bool { return r.paused[i].To > w })
	n := r.before[i]
	if i < len(r.paused) && r.paused[i].From < w {
		n += w - r.paused[i].From
	}
	return n
}

// Leg is the weeks [From, To) of a series between two of its pauses (or
// its anchor and end): in it the series is a plain rotation that started
// Skipped weeks late. To is NoEnd when the series does not end.
type Leg struct{ From, To, Skipped int }

// Legs returns the legs of the series in order, one more than its pauses;
// a leg is empty when a pause starts at the anchor or reaches the end, and
// kept so that the i-th leg is the same for every week of the series.
func (r *Rotation) Legs() []Leg {
	out := make([]Leg, 0, len(r.paused)+1)
	from, skipped := r.anchor, 0
	for _, p := range r.paused {
		out = append(out, Leg{From: from, To: p.From, Skipped: skipped})
		skipped += p.To - p.From
		from = p.To
	}
	return append(out, Leg{From: from, To: r.end, Skipped: skipped})
}

// Residue returns where week k of the series falls in leg s: in the weeks
// w of s with w ≡ Residue (mod Cycle), and in no other.
func (r *Rotation) Residue(s Leg, k int) int {
	return mod(r.anchor+s.Skipped+k-1, r.cycle)
}

// segment is a stretch of weeks [from, to) in which something happens in
// every week w with w ≡ res (mod mod).
type segment struct {
	from, to int
	mod, res int
}

// segments returns, for week k of the series, the non-empty legs as the
// weeks in which it is active. Each is a plain residue class: the pauses are
// what make the rotation piecewise periodic.
func (r *Rotation) segments(k int) []segment {
	var out []segment
	for _, s := range r.Legs() {
		if s.From < s.To {
			out = append(out, segment{from: s.From, to: s.To, mod: r.cycle, res: r.Residue(s, k)})
		}
	}
	return out
}

// fullWeeks returns the weeks entirely inside from..to (inclusive dates).
func fullWeeks(from, to Date, ws time.Weekday) WeekRun {
	return WeekRun{From: ceilDiv(int(from)-int(ws), 7), To: floorDiv(int(to)-6-int(ws), 7) + 1}
}
