package solve

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/koredyne/schedule/engine"
)

// tick is the grain of the solver's day: every span is held in 5-minute
// ticks, what the engine's own times are rounded out to (a session of the
// timetable from 09:07 takes the tick from 09:05: the solver may refuse a
// slot the engine would allow, never the reverse).
const (
	tick    = 5
	perDay  = 24 * 60 / tick
	days    = 7
	maxLine = 200
)

// option is one way of placing a session: a week (0-based), a weekday, a
// start and end in ticks, a room and a crew (indices).
type option struct {
	week, wd int8
	st, en   int16 // ticks
	start    engine.LocalTime
	room     int16
	crew     int16
	out      bool // outside every window of its line
}

// line is a Line compiled.
type line struct {
	Line
	rooms  []int   // room indices
	crews  [][]int // staff indices
	weeks  []int   // 0-based
	weight int
	need   []int // units needed per room index of rooms
	opts   []option
	byWeek [][]int32 // option indices per week
}

// session is one session to place: of line, in week (-1: any of its weeks).
type session struct {
	line int
	week int
}

// model is a Problem compiled: the occupancy the timetable brings, as
// arrays over (resource, week, weekday, tick).
type model struct {
	p       Problem
	cycle   int
	step    int
	early   int // ticks
	late    int
	weights [4]int

	rooms    []Room
	roomIx   map[int64]int
	roomCap  []int16 // capacity by levels
	roomBase []int16 // taken by the timetable

	staff     []Staff
	staffIx   map[int64]int
	away      []bool // time off
	busy      []bool // the timetable's sessions
	baseMin   []int  // per staff and week
	baseCount []int

	lines    []line
	sessions []session
	slots    Slots // nil: the occupancy knows no better than its spans
}

func (m *model) at(res, w, wd, t int) int { return ((res*m.cycle+w)*days+wd)*perDay + t }

func (m *model) validate() error {
	p := m.p
	switch {
	case p.Frame.Cycle < 1 || p.Frame.Cycle > MaxCycle:
		return fmt.Errorf("cycle: %d weeks is not 1 to %d", p.Frame.Cycle, MaxCycle)
	case p.Frame.Step < 0 || p.Frame.Step%tick != 0 || p.Frame.Step > 24*60:
		return fmt.Errorf("step: %d minutes is not a multiple of %d", p.Frame.Step, tick)
	case p.Frame.Earliest < 0 || p.Frame.Latest < 0 || p.Frame.Latest > engine.EndOfDay || (p.Frame.Latest != 0 && p.Frame.Latest <= p.Frame.Earliest):
		return errors.New("earliest and latest: the day must end after it starts")
	case len(p.Lines) > maxLine:
		return fmt.Errorf("lines: at most %d", maxLine)
	}
	for i, l := range p.Lines {
		switch {
		case l.Sessions < 1 || l.Sessions > 7*MaxCycle*4:
			return fmt.Errorf("line %d: sessions %d", i, l.Sessions)
		case l.Minutes < 1 || l.Minutes > 24*60:
			return fmt.Errorf("line %d: minutes %d", i, l.Minutes)
		case l.Units < 0 || l.Weight < 0 || l.DaysApart < 0:
			return fmt.Errorf("line %d: negative units, weight or days apart", i)
		}
		for _, w := range l.Weeks {
			if w < 1 || w > p.Frame.Cycle {
				return fmt.Errorf("line %d: week %d is not in the rotation", i, w)
			}
		}
		for _, w := range l.Windows {
			if w.End <= w.Start {
				return fmt.Errorf("line %d: a window ends before it starts", i)
			}
		}
	}
	return nil
}

func compile(p Problem, occ Occupancy) (*model, error) {
	m := &model{p: p, cycle: p.Frame.Cycle, step: p.Frame.Step}
	if err := m.validate(); err != nil {
		return nil, err
	}
	if m.step == 0 {
		m.step = 15
	}
	m.early = int(p.Frame.Earliest) / tick
	m.late = perDay
	if p.Frame.Latest != 0 {
		m.late = int(p.Frame.Latest) / tick
	}
	m.weights = weightsOf(p.Frame)
	if occ == nil {
		occ = Nothing{}
	}
	m.slots, _ = occ.(Slots)
	// Rooms and their capacity.
	m.index()
	cells := m.cycle * days * perDay
	m.roomCap = make([]int16, len(m.rooms)*cells)
	m.roomBase = make([]int16, len(m.rooms)*cells)
	for ri, r := range m.rooms {
		units := max(r.Units, 1)
		for wd := range days {
			var level [perDay]int16
			if len(r.Levels) == 0 {
				for t := range level {
					level[t] = int16(units)
				}
			}
			for _, l := range r.Levels {
				if len(l.Weekdays) > 0 && !slices.Contains(l.Weekdays, time.Weekday(wd)) {
					continue
				}
				for t := int(l.Start) / tick; t < ceilTick(l.End); t++ {
					// Inside a level only whole ticks count.
					if t*tick >= int(l.Start) && (t+1)*tick <= int(l.End) {
						level[t] = int16(l.Units)
					}
				}
			}
			for w := range m.cycle {
				copy(m.roomCap[m.at(ri, w, wd, 0):], level[:])
				for _, u := range occ.RoomUse(r.ID, w, time.Weekday(wd)) {
					n := u.Units
					if n <= 0 {
						n = units
					}
					for t := int(u.Start) / tick; t < ceilTick(u.End); t++ {
						m.roomBase[m.at(ri, w, wd, t)] += int16(n)
					}
				}
			}
		}
	}
	m.away = make([]bool, len(m.staff)*cells)
	m.busy = make([]bool, len(m.staff)*cells)
	m.baseMin = make([]int, len(m.staff)*m.cycle)
	m.baseCount = make([]int, len(m.staff)*m.cycle)
	for si, s := range m.staff {
		for w := range m.cycle {
			for wd := range days {
				for _, b := range occ.StaffBusy(s.ID, w, time.Weekday(wd)) {
					grid := m.busy
					if b.Away {
						grid = m.away
					} else {
						m.baseMin[si*m.cycle+w] += int(b.End - b.Start)
						m.baseCount[si*m.cycle+w]++
					}
					for t := int(b.Start) / tick; t < ceilTick(b.End); t++ {
						grid[m.at(si, w, wd, t)] = true
					}
				}
			}
		}
	}
	// Lines, their sessions and the options each may take.
	for i, l := range p.Lines {
		cl, err := m.line(i, l)
		if err != nil {
			return nil, err
		}
		m.lines = append(m.lines, cl)
		m.options(i)
		if l.PerRotation {
			for range l.Sessions {
				m.sessions = append(m.sessions, session{line: i, week: -1})
			}
			continue
		}
		for _, w := range cl.weeks {
			for range l.Sessions {
				m.sessions = append(m.sessions, session{line: i, week: w})
			}
		}
	}
	return m, nil
}

// weightsOf is the weight of each kind of preference, in the order of
// prefKinds: the frame's, or 1.
func weightsOf(f Frame) [4]int {
	var w [4]int
	for i, k := range prefKinds {
		w[i] = 1
		if v, ok := f.Weights[k]; ok {
			w[i] = v
		}
	}
	return w
}

// index numbers the rooms and the staff: every staff member of the
// problem, with limits where given, then anyone else a crew names.
func (m *model) index() {
	p := m.p
	m.rooms = slices.Clone(p.Rooms)
	m.roomIx = map[int64]int{}
	for i, r := range m.rooms {
		m.roomIx[r.ID] = i
	}
	m.staffIx = map[int64]int{}
	for _, s := range p.Staff {
		if _, ok := m.staffIx[s.ID]; !ok {
			m.staffIx[s.ID] = len(m.staff)
			m.staff = append(m.staff, s)
		}
	}
	for _, l := range p.Lines {
		for _, c := range l.Crews {
			for _, id := range c {
				if _, ok := m.staffIx[id]; !ok {
					m.staffIx[id] = len(m.staff)
					m.staff = append(m.staff, Staff{ID: id})
				}
			}
		}
	}
}

// line compiles line i of the problem but for its options: its rooms and
// crews as indices, the units it needs of each room, its weeks.
func (m *model) line(i int, l Line) (line, error) {
	cl := line{Line: l, weight: max(l.Weight, 1)}
	if len(l.Rooms) == 0 {
		for ri := range m.rooms {
			cl.rooms = append(cl.rooms, ri)
		}
	}
	for _, id := range l.Rooms {
		ri, ok := m.roomIx[id]
		if !ok {
			return line{}, fmt.Errorf("line %d: room %d is not in the problem", i, id)
		}
		if !slices.Contains(cl.rooms, ri) {
			cl.rooms = append(cl.rooms, ri)
		}
	}
	for _, c := range l.Crews {
		var crew []int
		for _, id := range c {
			crew = append(crew, m.staffIx[id])
		}
		cl.crews = append(cl.crews, crew)
	}
	for _, ri := range cl.rooms {
		need := l.Units
		if need == 0 {
			need = max(m.rooms[ri].Units, 1)
		}
		cl.need = append(cl.need, need)
	}
	if len(l.Weeks) == 0 {
		for w := range m.cycle {
			cl.weeks = append(cl.weeks, w)
		}
	}
	for _, w := range l.Weeks {
		if !slices.Contains(cl.weeks, w-1) {
			cl.weeks = append(cl.weeks, w-1)
		}
	}
	slices.Sort(cl.weeks)
	return cl, nil
}

func ceilTick(t engine.LocalTime) int { return (int(t) + tick - 1) / tick }

// each calls fn with every option of a line the frame's grid allows,
// whatever the constraints say.
func (m *model) each(li int, fn func(o option)) {
	l := &m.lines[li]
	length := ceilTick(engine.LocalTime(l.Minutes))
	for _, w := range l.weeks {
		for wd := range days {
			for start := 0; start+l.Minutes <= 24*60; start += m.step {
				st := start / tick
				out := l.outside(time.Weekday(wd), engine.LocalTime(start))
				for rk := range l.rooms {
					for ck := range l.crews {
						fn(option{week: int8(w), wd: int8(wd), st: int16(st), en: int16(st + length), start: engine.LocalTime(start), room: int16(rk), crew: int16(ck), out: out})
					}
				}
			}
		}
	}
}

// outside reports whether a session of l starting at start on wd is
// outside every window of l (a line with none has no such preference).
func (l *line) outside(wd time.Weekday, start engine.LocalTime) bool {
	return len(l.Windows) > 0 && !inWindows(l.Windows, wd, start, start+engine.LocalTime(l.Minutes))
}

func inWindows(ws []Window, wd time.Weekday, start, end engine.LocalTime) bool {
	for _, w := range ws {
		if (len(w.Weekdays) == 0 || slices.Contains(w.Weekdays, wd)) && w.Start <= start && end <= w.End {
			return true
		}
	}
	return false
}

// options lists the options of line li that no constraint rules out before
// any session is placed: the day's bounds, hours, time off, the
// timetable's sessions, the rooms' capacity, the staff's limits.
func (m *model) options(li int) {
	l := &m.lines[li]
	l.byWeek = make([][]int32, m.cycle)
	m.each(li, func(o option) {
		if m.violates(li, o, nil, nil) || !m.free(li, o) {
			return
		}
		l.byWeek[o.week] = append(l.byWeek[o.week], int32(len(l.opts)))
		l.opts = append(l.opts, o)
	})
}

// violates reports whether option o of line li breaks a constraint before
// anything is placed; with found, it reports every one it breaks instead
// of stopping at the first.
func (m *model) violates(li int, o option, st *state, found func(Constraint)) bool {
	l := &m.lines[li]
	bad := false
	hit := func(c Constraint) bool {
		bad = true
		if found != nil {
			found(c)
			return false
		}
		return true
	}
	if int(o.st) < m.early || int(o.en) > m.late {
		if hit(Constraint{Kind: DayBounds}) {
			return true
		}
	}
	end := o.start + engine.LocalTime(l.Minutes)
	for _, si := range l.crews[o.crew] {
		s := &m.staff[si]
		for _, h := range s.Hours {
			if !h.Covers(time.Weekday(o.wd), o.start, end) {
				if hit(Constraint{Kind: Hours, Staff: s.ID}) {
					return true
				}
				break
			}
		}
		base := m.at(si, int(o.week), int(o.wd), 0)
		for t := o.st; t < o.en; t++ {
			if m.away[base+int(t)] {
				if hit(Constraint{Kind: TimeOff, Staff: s.ID}) {
					return true
				}
				break
			}
		}
		for t := o.st; t < o.en; t++ {
			if m.busy[base+int(t)] || (st != nil && st.staffNew[base+int(t)] > 0) {
				if hit(Constraint{Kind: StaffBusy, Staff: s.ID}) {
					return true
				}
				break
			}
		}
		newMin, newCount := 0, 0
		if st != nil {
			newMin, newCount = st.load(si, int(o.week))
		}
		if m.overLimit(si, int(o.week), l.Minutes, newMin, newCount) || m.restBroken(base, s.Rest, o, st) {
			if hit(Constraint{Kind: StaffLimit, Staff: s.ID}) {
				return true
			}
		}
	}
	ri := l.rooms[o.room]
	need := int16(l.need[o.room])
	base := m.at(ri, int(o.week), int(o.wd), 0)
	capBad, busyBad := false, false
	for t := o.st; t < o.en; t++ {
		c, used := m.roomCap[base+int(t)], m.roomBase[base+int(t)]
		if st != nil {
			used += st.roomNew[base+int(t)]
		}
		if need > c {
			capBad = true
		}
		if used > 0 && used+need > c {
			busyBad = true
		}
	}
	if capBad && hit(Constraint{Kind: RoomCapacity, Room: m.rooms[ri].ID}) {
		return true
	}
	if busyBad && hit(Constraint{Kind: RoomBusy, Room: m.rooms[ri].ID}) {
		return true
	}
	return bad
}

// free asks the occupancy, when it knows exactly (Slots), whether the
// timetable leaves option o of line li free on every future date.
func (m *model) free(li int, o option) bool {
	if m.slots == nil {
		return true
	}
	l := &m.lines[li]
	crew := make([]int64, len(l.crews[o.crew]))
	for i, si := range l.crews[o.crew] {
		crew[i] = m.staff[si].ID
	}
	return m.slots.Free(crew, l.Minutes, l.Units, m.rooms[l.rooms[o.room]].ID, int(o.week), time.Weekday(o.wd), o.start)
}

// overLimit reports whether giving one more session of minutes in week w
// puts staff si over their most a week, on top of what they give there.
func (m *model) overLimit(si, w, minutes, newMin, newCount int) bool {
	s := &m.staff[si]
	k := si*m.cycle + w
	return (s.MaxMinutes > 0 && m.baseMin[k]+newMin+minutes > s.MaxMinutes) ||
		(s.MaxSessions > 0 && m.baseCount[k]+newCount+1 > s.MaxSessions)
}

// restBroken reports whether a session at o leaves less than rest minutes
// to another session of the staff member whose day starts at base: the
// timetable's, or with st one the solver placed.
func (m *model) restBroken(base, rest int, o option, st *state) bool {
	if rest <= 0 {
		return false
	}
	r := ceilTick(engine.LocalTime(rest))
	for t := max(int(o.st)-r, 0); t < min(int(o.en)+r, perDay); t++ {
		if (t < int(o.st) || t >= int(o.en)) && (m.busy[base+t] || (st != nil && st.staffNew[base+t] > 0)) {
			return true
		}
	}
	return false
}
