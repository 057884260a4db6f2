package solve

import (
	"fmt"
	"time"

	"github.com/koredyne/schedule/engine"
)

// MaxWindowWeeks caps the weeks Occupied resolves: LCM(cycles) can reach
// hundreds of weeks; beyond the cap what repeats is not seen, and the
// clash proof of the write, which sees everything, is the judge.
const MaxWindowWeeks = 104

// key of an occupancy: resource, week of the rotation, weekday.
type occKey struct {
	id int64
	w  int
	wd time.Weekday
}

// seen is an Occupancy read off a timetable.
type seen struct {
	rooms map[occKey][]Use
	staff map[occKey][]Busy
}

func (s *seen) RoomUse(room int64, w int, wd time.Weekday) []Use {
	return s.rooms[occKey{room, w, wd}]
}

func (s *seen) StaffBusy(staff int64, w int, wd time.Weekday) []Busy {
	return s.staff[occKey{staff, w, wd}]
}

// Occupied is what tt runs, seen from a cycle-week rotation that starts on
// from: every date of one window of LCM(cycle, the series' cycles) weeks
// (at most MaxWindowWeeks) resolved by the engine, each session folded onto
// its week of the rotation (its room taken until its cleaning is done, its
// staff busy); and every time off from from on, on the weeks its dates
// fall in. Dated exceptions beyond the window (a one-off next year) are not
// seen: the write's clash proof is.
func Occupied(tt *engine.Timetable, from engine.Date, cycle int) Occupancy {
	s := &seen{rooms: map[occKey][]Use{}, staff: map[occKey][]Busy{}}
	st := tt.State()
	weeks := cycle
	for _, se := range st.Series {
		if se.End != 0 && se.End <= from {
			continue
		}
		weeks = lcm(weeks, max(se.Cycle, 1))
		if weeks > MaxWindowWeeks {
			weeks = MaxWindowWeeks / cycle * cycle
			break
		}
	}
	var day []engine.Session
	for i := range weeks * 7 {
		d := from.AddDays(i)
		w := (i / 7) % cycle
		day = tt.AppendDay(day[:0], d)
		for _, x := range day {
			if x.Cancelled {
				continue
			}
			room := occKey{x.RoomID, w, d.Weekday()}
			end := min(x.End.Add(int(x.Buffer)), engine.EndOfDay)
			s.rooms[room] = append(s.rooms[room], Use{Start: x.Start, End: end, Units: int(x.Units)})
			for _, id := range x.StaffIDs {
				k := occKey{id, w, d.Weekday()}
				s.staff[k] = append(s.staff[k], Busy{Start: x.Start, End: x.End})
			}
		}
	}
	for _, o := range st.TimeOffs {
		if o.To < from {
			continue
		}
		for d := max(o.From, from); d <= o.To && d < from.AddDays(7*52*3); d++ {
			a, b, ok := o.Away(d)
			if !ok {
				continue
			}
			k := occKey{o.StaffID, (d.Sub(from) / 7) % cycle, d.Weekday()}
			s.staff[k] = append(s.staff[k], Busy{Start: a, End: b, Away: true})
		}
	}
	return s
}

func lcm(a, b int) int {
	x, y := a, b
	for y != 0 {
		x, y = y, x%y
	}
	return a / x * b
}

// HoursFrom are the working hours of staff member id a session from from
// on must fit: the set in force on from and every later one.
func HoursFrom(st *engine.State, id int64, from engine.Date) []engine.WorkingHours {
	var in *engine.WorkingHours
	var out []engine.WorkingHours
	for i := range st.Hours {
		h := &st.Hours[i]
		if h.StaffID != id {
			continue
		}
		if h.From > from {
			out = append(out, *h)
		} else if in == nil || h.From > in.From {
			in = h
		}
	}
	if in != nil {
		out = append(out, *in)
	}
	return out
}

// Slots is an Occupancy that also knows exactly where a crew may start a
// session of a length, using units of a room, in week w (0-based) of the
// rotation: every future date considered, not one window of them.
type Slots interface {
	Free(crew []int64, minutes, units int, room int64, w int, wd time.Weekday, start engine.LocalTime) bool
}

// exact is Occupied with the engine's placement search behind it.
type exact struct {
	Occupancy
	tt      *engine.Timetable
	today   engine.Date
	from    engine.Date
	cycle   int
	step    int
	classes map[string]int64 // crew → its class in tt
	free    map[string]map[slotKey]bool
	err     error
}

type slotKey struct {
	room  int64
	w     int
	wd    time.Weekday
	start engine.LocalTime
}

// Exact is the occupancy of st seen from a cycle-week rotation from from:
// Occupied for the load of rooms and staff, and the engine's Placements —
// where a new class time of each crew adds no clash and leaves no one
// away, exact for every future date — for where a session may start.
// Each crew gets a class of its own in a copy of st (under an activity of
// its own, so no class is the same as one st has). step is the grid starts
// fall on.
func Exact(st engine.State, today, from engine.Date, cycle, step int, crews [][]int64) (Occupancy, error) {
	base, err := engine.New(st)
	if err != nil {
		return nil, err
	}
	st = st.Clone()
	next := int64(-1)
	for _, c := range st.Classes {
		next = min(next, c.ID-1)
	}
	for _, a := range st.Activities {
		next = min(next, a.ID-1)
	}
	activity := next
	// A name no activity has: the classes' activity is theirs alone.
	st.Activities = append(st.Activities, engine.Activity{ID: activity, Name: fmt.Sprintf("proposed %d", -activity)})
	e := &exact{today: today, from: from, cycle: cycle, step: step, classes: map[string]int64{}, free: map[string]map[slotKey]bool{}}
	for _, c := range crews {
		k := fmt.Sprint(c)
		if _, ok := e.classes[k]; ok {
			continue
		}
		next--
		st.Classes = append(st.Classes, engine.Class{ID: next, ActivityID: activity, StaffIDs: c})
		e.classes[k] = next
	}
	if e.tt, err = engine.New(st); err != nil {
		return nil, err
	}
	e.Occupancy = Occupied(base, from, cycle)
	return e, nil
}

func (e *exact) Free(crew []int64, minutes, units int, room int64, w int, wd time.Weekday, start engine.LocalTime) bool {
	k := fmt.Sprint(crew, minutes, units)
	free, ok := e.free[k]
	if !ok {
		free = map[slotKey]bool{}
		e.free[k] = free
		class, ok := e.classes[fmt.Sprint(crew)]
		if ok {
			ps, err := e.tt.Placements(e.today, engine.PlacementRequest{ClassID: class, Minutes: minutes, Cycle: e.cycle,
				Earliest: 0, Latest: engine.EndOfDay, Step: e.step, Units: units, From: e.from}, nil)
			if err != nil {
				e.err = err
			}
			for _, p := range ps {
				free[slotKey{p.RoomID, p.Week - 1, p.Weekday, p.Start}] = true
			}
		}
	}
	return free[slotKey{room, w, wd, start}]
}
