package solve

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/koredyne/schedule/engine"
)

// fixed is an Occupancy of listed spans.
type fixed struct {
	rooms map[[3]int64][]Use  // room, week, weekday
	staff map[[3]int64][]Busy // staff, week, weekday
}

func (f fixed) RoomUse(room int64, w int, wd time.Weekday) []Use {
	return f.rooms[[3]int64{room, int64(w), int64(wd)}]
}

func (f fixed) StaffBusy(staff int64, w int, wd time.Weekday) []Busy {
	return f.staff[[3]int64{staff, int64(w), int64(wd)}]
}

// slot is one session as the oracle places it.
type slot struct {
	line, week int // week 0-based
	wd         time.Weekday
	start, end int // minutes
	room       int64
	crew       []int64
}

// oracleOptions lists every slot of the grid for a session of line li in
// week w (-1: any week of the line) that breaks no rule on its own, checked
// minute by minute, apart from the solver's code.
func oracleOptions(p Problem, occ fixed, li, w int) []slot {
	l := p.Lines[li]
	step := max(p.Frame.Step, 15)
	if p.Frame.Step > 0 {
		step = p.Frame.Step
	}
	late := int(p.Frame.Latest)
	if late == 0 {
		late = 24 * 60
	}
	var weeks []int
	for k := range p.Frame.Cycle {
		if (len(l.Weeks) == 0 || slices.Contains(l.Weeks, k+1)) && (w < 0 || w == k) {
			weeks = append(weeks, k)
		}
	}
	rooms := l.Rooms
	if len(rooms) == 0 {
		for _, r := range p.Rooms {
			rooms = append(rooms, r.ID)
		}
	}
	var out []slot
	for _, wk := range weeks {
		for wd := range time.Weekday(7) {
			for start := int(p.Frame.Earliest); start+l.Minutes <= late; start += step {
				if start%step != 0 {
					continue
				}
				for _, room := range rooms {
					for _, crew := range l.Crews {
						s := slot{line: li, week: wk, wd: wd, start: start, end: start + l.Minutes, room: room, crew: crew}
						if oracleAlone(p, occ, s) {
							out = append(out, s)
						}
					}
				}
			}
		}
	}
	return out
}

func roomOf(p Problem, id int64) Room {
	for _, r := range p.Rooms {
		if r.ID == id {
			return r
		}
	}
	return Room{ID: id}
}

func staffOf(p Problem, id int64) Staff {
	for _, s := range p.Staff {
		if s.ID == id {
			return s
		}
	}
	return Staff{ID: id}
}

func unitsOf(p Problem, s slot) int {
	if u := p.Lines[s.line].Units; u > 0 {
		return u
	}
	return max(roomOf(p, s.room).Units, 1)
}

// oracleAlone checks a slot against the timetable and the limits.
func oracleAlone(p Problem, occ fixed, s slot) bool {
	r := roomOf(p, s.room)
	for m := s.start; m < s.end; m++ {
		used := unitsOf(p, s)
		for _, u := range occ.RoomUse(r.ID, s.week, s.wd) {
			if int(u.Start) <= m && m < int(u.End) {
				used += max(u.Units, 0)
				if u.Units == 0 {
					used += max(r.Units, 1)
				}
			}
		}
		if used > max(r.Units, 1) {
			return false
		}
	}
	for _, id := range s.crew {
		st := staffOf(p, id)
		for _, h := range st.Hours {
			if !h.Covers(s.wd, engine.LocalTime(s.start), engine.LocalTime(s.end)) {
				return false
			}
		}
		load, count := s.end-s.start, 1
		for wd := range time.Weekday(7) {
			for _, b := range occ.StaffBusy(id, s.week, wd) {
				if !b.Away {
					load += int(b.End - b.Start)
					count++
				}
				if wd != s.wd {
					continue
				}
				gap := 0
				if !b.Away {
					gap = st.Rest
				}
				if s.start < int(b.End)+gap && int(b.Start) < s.end+gap {
					return false
				}
			}
		}
		if (st.MaxMinutes > 0 && load > st.MaxMinutes) || (st.MaxSessions > 0 && count > st.MaxSessions) {
			return false
		}
	}
	return true
}

// oracleTogether checks that slots, each fine alone, are fine together.
func oracleTogether(p Problem, occ fixed, slots []slot) error {
	for i, a := range slots {
		for _, b := range slots[:i] {
			if a.week != b.week {
				continue
			}
			for _, id := range a.crew {
				if !slices.Contains(b.crew, id) {
					continue
				}
				if a.wd == b.wd {
					rest := staffOf(p, id).Rest
					if a.start < b.end+rest && b.start < a.end+rest {
						return fmt.Errorf("staff %d in %v and %v", id, a, b)
					}
				}
			}
		}
		// The room, minute by minute, with everything placed.
		r := roomOf(p, a.room)
		for m := a.start; m < a.end; m++ {
			used := 0
			for _, u := range occ.RoomUse(r.ID, a.week, a.wd) {
				if int(u.Start) <= m && m < int(u.End) {
					used += u.Units
				}
			}
			for _, b := range slots {
				if b.room == a.room && b.week == a.week && b.wd == a.wd && b.start <= m && m < b.end {
					used += unitsOf(p, b)
				}
			}
			if used > max(r.Units, 1) {
				return fmt.Errorf("room %d over capacity at %d in %v", r.ID, m, a)
			}
		}
	}
	// Limits a week.
	for _, st := range p.Staff {
		for w := range p.Frame.Cycle {
			load, count := 0, 0
			for wd := range time.Weekday(7) {
				for _, b := range occ.StaffBusy(st.ID, w, wd) {
					if !b.Away {
						load += int(b.End - b.Start)
						count++
					}
				}
			}
			for _, s := range slots {
				if s.week == w && slices.Contains(s.crew, st.ID) {
					load += s.end - s.start
					count++
				}
			}
			if (st.MaxMinutes > 0 && load > st.MaxMinutes) || (st.MaxSessions > 0 && count > st.MaxSessions) {
				return fmt.Errorf("staff %d over their week %d: %d minutes, %d sessions", st.ID, w, load, count)
			}
		}
	}
	return nil
}

// oracleSoft scores slots by the preferences, written out plainly.
func oracleSoft(p Problem, slots []slot) int {
	weight := func(k string) int {
		if w, ok := p.Frame.Weights[k]; ok {
			return w
		}
		return 1
	}
	total := 0
	for li, l := range p.Lines {
		lw := max(l.Weight, 1)
		var mine []slot
		for _, s := range slots {
			if s.line == li {
				mine = append(mine, s)
			}
		}
		rooms, crews := map[int64]bool{}, map[string]bool{}
		for i, s := range mine {
			if len(l.Windows) > 0 {
				in := false
				for _, w := range l.Windows {
					if (len(w.Weekdays) == 0 || slices.Contains(w.Weekdays, s.wd)) && int(w.Start) <= s.start && s.end <= int(w.End) {
						in = true
					}
				}
				if !in {
					total += lw * weight(PrefWindow)
				}
			}
			for _, o := range mine[:i] {
				d := abs(int(o.wd) - int(s.wd))
				if o.week == s.week && min(d, 7-d) < l.DaysApart {
					total += lw * weight(PrefDaysApart)
				}
			}
			rooms[s.room] = true
			crews[fmt.Sprint(s.crew)] = true
		}
		if l.SameRoom && len(rooms) > 1 {
			total += (len(rooms) - 1) * lw * weight(PrefSameRoom)
		}
		if l.SameCoach && len(crews) > 1 {
			total += (len(crews) - 1) * lw * weight(PrefSameCoach)
		}
	}
	return total
}

// oracleWith checks that slot s, fine alone, is fine beside chosen.
func oracleWith(p Problem, occ fixed, chosen []slot, s slot) bool {
	for _, b := range chosen {
		if b.week != s.week || b.wd != s.wd {
			continue
		}
		for _, id := range s.crew {
			if slices.Contains(b.crew, id) {
				rest := staffOf(p, id).Rest
				if s.start < b.end+rest && b.start < s.end+rest {
					return false
				}
			}
		}
	}
	r := roomOf(p, s.room)
	for m := s.start; m < s.end; m++ {
		used := unitsOf(p, s)
		for _, u := range occ.RoomUse(r.ID, s.week, s.wd) {
			if int(u.Start) <= m && m < int(u.End) {
				used += u.Units
			}
		}
		for _, b := range chosen {
			if b.room == s.room && b.week == s.week && b.wd == s.wd && b.start <= m && m < b.end {
				used += unitsOf(p, b)
			}
		}
		if used > max(r.Units, 1) {
			return false
		}
	}
	for _, id := range s.crew {
		st := staffOf(p, id)
		if st.MaxMinutes == 0 && st.MaxSessions == 0 {
			continue
		}
		load, count := s.end-s.start, 1
		for wd := range time.Weekday(7) {
			for _, b := range occ.StaffBusy(id, s.week, wd) {
				if !b.Away {
					load += int(b.End - b.Start)
					count++
				}
			}
		}
		for _, b := range chosen {
			if b.week == s.week && slices.Contains(b.crew, id) {
				load += b.end - b.start
				count++
			}
		}
		if (st.MaxMinutes > 0 && load > st.MaxMinutes) || (st.MaxSessions > 0 && count > st.MaxSessions) {
			return false
		}
	}
	return true
}

// exhaustive finds the most sessions that can be placed, and the least
// soft cost with that many, by trying everything (sessions of one line and
// week are interchangeable, so their options are taken in order). It gives
// up (ok false) after limit steps.
func exhaustive(p Problem, occ fixed, limit int) (placed, soft int, ok bool) {
	type sess struct {
		line, week int
		opts       []slot
	}
	var ss []sess
	for li, l := range p.Lines {
		if l.PerRotation {
			o := oracleOptions(p, occ, li, -1)
			for range l.Sessions {
				ss = append(ss, sess{li, -1, o})
			}
			continue
		}
		for w := range p.Frame.Cycle {
			if len(l.Weeks) > 0 && !slices.Contains(l.Weeks, w+1) {
				continue
			}
			o := oracleOptions(p, occ, li, w)
			for range l.Sessions {
				ss = append(ss, sess{li, w, o})
			}
		}
	}
	bestPlaced, bestSoft, steps := -1, 0, 0
	var chosen []slot
	var dfs func(i, from, placedSoFar int)
	dfs = func(i, from, placedSoFar int) {
		if steps++; steps > limit || placedSoFar+len(ss)-i < bestPlaced {
			return
		}
		soft := oracleSoft(p, chosen)
		if placedSoFar+len(ss)-i == bestPlaced && soft >= bestSoft {
			return
		}
		if i == len(ss) {
			if placedSoFar > bestPlaced || soft < bestSoft {
				bestPlaced, bestSoft = placedSoFar, soft
			}
			return
		}
		same := i > 0 && ss[i-1].line == ss[i].line && ss[i-1].week == ss[i].week
		if !same {
			from = 0
		}
		for k := from; k < len(ss[i].opts); k++ {
			if oracleWith(p, occ, chosen, ss[i].opts[k]) {
				chosen = append(chosen, ss[i].opts[k])
				dfs(i+1, k+1, placedSoFar+1)
				chosen = chosen[:len(chosen)-1]
			}
		}
		// Unplaced: the rest of its kind are unplaced too.
		j := i + 1
		for j < len(ss) && ss[j].line == ss[i].line && ss[j].week == ss[i].week {
			j++
		}
		dfs(j, 0, placedSoFar)
	}
	dfs(0, 0, 0)
	return bestPlaced, bestSoft, steps <= limit
}

// slotsOf turns a proposal into the oracle's slots.
func slotsOf(pr *Proposal) []slot {
	var out []slot
	for _, pl := range pr.Placements {
		out = append(out, slot{line: pl.Line, week: pl.Week - 1, wd: pl.Weekday, start: int(pl.Start), end: int(pl.End), room: pl.Room, crew: pl.Crew})
	}
	return out
}

// small makes a small random instance: a few hours of a few days, so that
// the exhaustive search can finish.
func small(rng *rand.Rand) (Problem, fixed) {
	p := Problem{Frame: Frame{Cycle: 1 + rng.IntN(2), Earliest: engine.MustTime("09:00"), Latest: engine.MustTime("12:00"), Step: 60}}
	occ := fixed{rooms: map[[3]int64][]Use{}, staff: map[[3]int64][]Busy{}}
	for r := range 2 {
		p.Rooms = append(p.Rooms, Room{ID: int64(10 + r), Units: 1 + rng.IntN(2)})
	}
	for s := range 3 {
		st := Staff{ID: int64(20 + s)}
		// Two or three days of hours.
		var spans []engine.HoursSpan
		for _, wd := range rng.Perm(7)[:2+rng.IntN(2)] {
			spans = append(spans, engine.HoursSpan{Weekday: time.Weekday(wd), Start: engine.MustTime("09:00"), End: engine.MustTime("12:00")})
		}
		st.Hours = []engine.WorkingHours{{Spans: spans}}
		if rng.IntN(3) == 0 {
			st.MaxSessions = 2 + rng.IntN(3)
		}
		if rng.IntN(4) == 0 {
			st.Rest = 60
		}
		p.Staff = append(p.Staff, st)
		if rng.IntN(2) == 0 {
			k := [3]int64{st.ID, int64(rng.IntN(p.Frame.Cycle)), int64(rng.IntN(7))}
			occ.staff[k] = append(occ.staff[k], Busy{Start: engine.MustTime("10:00"), End: engine.MustTime("11:00"), Away: rng.IntN(2) == 0})
		}
	}
	if rng.IntN(2) == 0 {
		k := [3]int64{10, int64(rng.IntN(p.Frame.Cycle)), int64(rng.IntN(7))}
		occ.rooms[k] = append(occ.rooms[k], Use{Start: engine.MustTime("09:00"), End: engine.MustTime("11:00"), Units: 1})
	}
	lines := 2 + rng.IntN(2)
	for li := range lines {
		l := Line{Name: fmt.Sprint("L", li), Sessions: 1 + rng.IntN(3), Minutes: 60 * (1 + rng.IntN(2)), Units: rng.IntN(2)}
		for _, s := range rng.Perm(3)[:1+rng.IntN(2)] {
			l.Crews = append(l.Crews, []int64{int64(20 + s)})
		}
		if rng.IntN(3) == 0 {
			l.Rooms = []int64{int64(10 + rng.IntN(2))}
		}
		if rng.IntN(2) == 0 {
			l.Windows = []Window{{Start: engine.MustTime("09:00"), End: engine.MustTime("11:00")}}
		}
		l.DaysApart = rng.IntN(3)
		l.SameRoom = rng.IntN(2) == 0
		l.SameCoach = rng.IntN(2) == 0
		l.Weight = 1 + rng.IntN(3)
		if p.Frame.Cycle == 2 && rng.IntN(3) == 0 {
			l.Weeks = []int{1 + rng.IntN(2)}
		}
		if rng.IntN(4) == 0 {
			l.PerRotation = true
		}
		p.Lines = append(p.Lines, l)
	}
	return p, occ
}

// TestSolveMatchesExhaustiveSearch: on small random instances the solver
// places as many sessions as can be placed, at the least soft cost, and
// what it places breaks no rule.
func TestSolveMatchesExhaustiveSearch(t *testing.T) {
	n := 80
	if testing.Short() {
		n = 20
	}
	compared, skipped := 0, 0
	defer func() {
		t.Logf("compared %d instances with the exhaustive search; %d too large for it", compared, skipped)
	}()
	for seed := range uint64(n) {
		rng := rand.New(rand.NewPCG(seed, 1))
		p, occ := small(rng)
		total := 0
		for _, l := range p.Lines {
			if l.PerRotation {
				total += l.Sessions
			} else if len(l.Weeks) > 0 {
				total += l.Sessions * len(l.Weeks)
			} else {
				total += l.Sessions * p.Frame.Cycle
			}
		}
		if total > 20 {
			continue
		}
		wantPlaced, wantSoft, ok := exhaustive(p, occ, 300_000)
		if !ok {
			skipped++
			continue
		}
		compared++
		pr, err := Solve(p, occ, Options{Seed: seed, Work: 200_000})
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		got := slotsOf(pr)
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
		if len(got) != wantPlaced || pr.Score.Soft != wantSoft {
			t.Errorf("seed %d (%d sessions): placed %d soft %d, want placed %d soft %d", seed, total, len(got), pr.Score.Soft, wantPlaced, wantSoft)
		}
	}
}
