package engine

import (
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
	type change struct {
		at       int64
		capacity int
		used     int
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
	slices.SortFunc(changes, func(a, b change) int {
		switch {
		case a.at < b.at:
			return -1
		case a.at > b.at:
			return 1
		}
		return 0
	})
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
	for i := 0; i < len(changes); {
		emit(changes[i].at)
		for t := changes[i].at; i < len(changes) && changes[i].at == t; i++ {
			capacity += changes[i].capacity
			used += changes[i].used
		}
	}
	emit(to)
	return out
}

// Availability returns every maximal interval of [from, to) in which units
// stay free for at least duration, each with its latest start.
func Availability(levels []Level, uses []Use, from, to int64, units int, duration int64) []Window {
	var out []Window
	var run *Window
	flush := func() {
		if run != nil && run.To-run.From >= duration {
			run.LatestStart = run.To - duration
			out = append(out, *run)
		}
		run = nil
	}
	for _, s := range Timeline(levels, uses, from, to) {
		if s.Free < units {
			flush()
			continue
		}
		if run != nil && run.To == s.From {
			run.To = s.To
		} else {
			flush()
			run = &Window{From: s.From, To: s.To}
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
