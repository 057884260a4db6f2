package engine

import (
	"cmp"
	mathbits "math/bits"
	"slices"
)

// Level is how many units a room has over [From, To): an absolute level, not
// an addition. Time with no level has none. The unit of time is the
// caller's (seconds of Unix time, minutes of a day): the answers are exact
// to it, with no grid.
type Level struct {
	From, To int64
	Units    int
}

// Use is units of a room taken over [From, To): a session (with its
// cleaning buffer) or a room booking.
type Use struct {
	From, To int64
	Units    int
}

// Stretch is a part of a timeline over which nothing changes.
type Stretch struct {
	From, To int64
	Capacity int
	Used     int
	Free     int // Capacity − Used; negative when over capacity
}

// Window is a maximal interval in which the units asked for stay free for
// at least the duration asked for; a booking can start anywhere from From to
// LatestStart.
type Window struct {
	From, To    int64
	LatestStart int64
}

// Timeline sweeps the change points of levels and uses over [from, to) and
// returns the stretches between them, merged where nothing changes:
// O((C+R) log(C+R)) time and O(C+R) memory for C levels and R uses. Levels
// must not overlap (Validate refuses overlapping declarations).
func Timeline(levels []Level, uses []Use, from, to int64) []Stretch {
	if to <= from {
		return nil
	}
	changes := make([]change, 0, 2*(len(levels)+len(uses)))
	for _, l := range levels {
		if a, b := max(l.From, from), min(l.To, to); a < b {
			changes = append(changes, change{a, l.Units, 0}, change{b, -l.Units, 0})
		}
	}
	for _, u := range uses {
		if a, b := max(u.From, from), min(u.To, to); a < b {
			changes = append(changes, change{a, 0, u.Units}, change{b, 0, -u.Units})
		}
	}
	order := byTime(changes, from, to)
	out := make([]Stretch, 0, len(changes)+1)
	capacity, used, at := 0, 0, from
	emit := func(until int64) {
		if until <= at {
			return
		}
		if n := len(out); n > 0 && out[n-1].To == at && out[n-1].Capacity == capacity && out[n-1].Used == used {
			out[n-1].To = until
		} else {
			out = append(out, Stretch{From: at, To: until, Capacity: capacity, Used: used, Free: capacity - used})
		}
		at = until
	}
	for i := 0; i < len(order); {
		t := changes[order[i]].at
		emit(t)
		for ; i < len(order) && changes[order[i]].at == t; i++ {
			c := &changes[order[i]]
			capacity += c.capacity
			used += c.used
		}
	}
	emit(to)
	return out
}

// Availability returns every maximal interval of [from, to) in which units
// stay free for at least duration, each with its latest start.
func Availability(levels []Level, uses []Use, from, to int64, units int, duration int64) []Window {
	var out []Window
	var run Window // the free run being grown, while open
	open := false
	flush := func() {
		if open && run.To-run.From >= duration {
			run.LatestStart = run.To - duration
			out = append(out, run)
		}
		open = false
	}
	for _, s := range Timeline(levels, uses, from, to) {
		if s.Free < units {
			flush()
			continue
		}
		if open && run.To == s.From {
			run.To = s.To
		} else {
			flush()
			run, open = Window{From: s.From, To: s.To}, true
		}
	}
	flush()
	return out
}

// CanBook reports whether units stay free over all of [from, to).
func CanBook(levels []Level, uses []Use, from, to int64, units int) bool {
	if to <= from {
		return false
	}
	for _, s := range Timeline(levels, uses, from, to) {
		if s.Free < units {
			return false
		}
	}
	return true
}

// change is a point of a timeline where the capacity or the use changes by
// the amounts given.
type change struct {
	at       int64
	capacity int
	used     int
}

// byTime returns the indices of changes, all in [from, to], in the order of
// their times, ties in any order. Sorting is most of the work of a sweep:
// when the times span less than 2⁴³ units and there are fewer than 2²⁰ of
// them, each time and its index pack into one integer, and integers sort
// several times quicker than values through a comparison function.
func byTime(changes []change, from, to int64) []int64 {
	const bits = 20
	order := make([]int64, len(changes))
	if len(changes) >= 1<<bits || uint64(to)-uint64(from) >= 1<<(63-bits) {
		for i := range order {
			order[i] = int64(i)
		}
		slices.SortFunc(order, func(a, b int64) int { return cmp.Compare(changes[a].at, changes[b].at) })
		return order
	}
	for i, c := range changes {
		order[i] = (c.at-from)<<bits | int64(i)
	}
	if len(order) < radixFrom {
		slices.Sort(order)
	} else {
		radixSort(order, bits, bits+64-mathbits.LeadingZeros64(uint64(to-from)))
	}
	for i := range order {
		order[i] &= 1<<bits - 1
	}
	return order
}

// radixFrom is how many keys make a radix sort quicker than slices.Sort.
const radixFrom = 128

// radixSort sorts non-negative keys by their bits lo to hi (bits below lo
// are ignored, and ties on the rest keep their order): a least significant
// digit radix sort, a byte a pass, which for the thousand change points of
// a busy room's week is a few times quicker than comparing.
func radixSort(keys []int64, lo, hi int) {
	tmp := make([]int64, len(keys))
	src, dst := keys, tmp
	for shift := lo; shift < hi; shift += 8 {
		var count [257]int
		for _, k := range src {
			count[k>>shift&0xff+1]++
		}
		if count[src[0]>>shift&0xff+1] == len(src) {
			continue // one digit for all
		}
		for i := 1; i < len(count); i++ {
			count[i] += count[i-1]
		}
		for _, k := range src {
			d := k >> shift & 0xff
			dst[count[d]] = k
			count[d]++
		}
		src, dst = dst, src
	}
	if &src[0] != &keys[0] {
		copy(keys, src)
	}
}
