package solve

import (
	"fmt"
	"slices"
)

// Rescore is the score of placements, a part of what a solve of p placed:
// the server drops the places the guarded write's proof refuses, and what
// it proposes then must be scored as it is. It is the search's own count
// (gain, weighed place by place), replayed without the occupancy, which
// the score does not depend on. A placement no option of its line could
// be (a line, week, room or crew the line does not have) is an error.
func Rescore(p Problem, placements []Placement) (Score, error) {
	m := &model{p: p, cycle: p.Frame.Cycle, weights: weightsOf(p.Frame)}
	if err := m.validate(); err != nil {
		return Score{}, err
	}
	m.index()
	s := &state{m: m}
	for i, l := range p.Lines {
		cl, err := m.line(i, l)
		if err != nil {
			return Score{}, err
		}
		m.lines = append(m.lines, cl)
		s.lines = append(s.lines, lineCount{rooms: make([]int, len(cl.rooms)), crews: make([]int, len(cl.crews)), days: make([]int, m.cycle*days)})
		if l.PerRotation {
			s.unplaced += l.Sessions
		} else {
			s.unplaced += l.Sessions * len(cl.weeks)
		}
	}
	for i, pl := range placements {
		if pl.Line < 0 || pl.Line >= len(m.lines) {
			return Score{}, fmt.Errorf("placement %d: no line %d", i, pl.Line)
		}
		l := &m.lines[pl.Line]
		room := slices.IndexFunc(l.rooms, func(ri int) bool { return m.rooms[ri].ID == pl.Room })
		crew := slices.IndexFunc(l.crews, func(c []int) bool {
			return slices.EqualFunc(c, pl.Crew, func(si int, id int64) bool { return m.staff[si].ID == id })
		})
		if !slices.Contains(l.weeks, pl.Week-1) || room < 0 || crew < 0 {
			return Score{}, fmt.Errorf("placement %d: line %d has no week %d, room %d or crew %v", i, pl.Line, pl.Week, pl.Room, pl.Crew)
		}
		o := option{week: int8(pl.Week - 1), wd: int8(pl.Weekday), start: pl.Start, room: int16(room), crew: int16(crew),
			out: l.outside(pl.Weekday, pl.Start)}
		s.weigh(pl.Line, &o, 1)
		s.lines[pl.Line].count(&o, 1)
		s.unplaced--
	}
	return s.score(), nil
}
