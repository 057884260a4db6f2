package solve

import (
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
