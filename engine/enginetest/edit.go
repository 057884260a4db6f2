package enginetest

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/koredyne/schedule/engine"
)

// RandomEdit changes s the way writes do, at random and with no care for
// clashes: it adds, removes or edits one class time, entry, series, class,
// day change, one-off, room booking, closure or capacity rule, or now and
// then renames something. Dates fall within half a year of today. It
// returns what it did, for a test's failure message. The result may be
// invalid (an entry past its series' new cycle, say): the caller checks
// with engine.Validate and keeps the state before when it is.
func RandomEdit(r *rand.Rand, s *engine.State, today engine.Date) string {
	ws := s.Business.WeekStart
	date := func() engine.Date { return today.AddDays(r.IntN(180) - 14) }
	clock := func() engine.LocalTime { return engine.LocalTime(7*60 + 15*r.IntN(52)) }
	room := func() int64 { return s.Rooms[r.IntN(len(s.Rooms))].ID }
	class := func() int64 { return s.Classes[r.IntN(len(s.Classes))].ID }
	staff := func() int64 { return s.Staff[r.IntN(len(s.Staff))].ID }
	id := func(n int, of func(int) int64) int64 { return nextID(n, of) }
	switch k := r.IntN(30); {
	case k < 4 && len(s.ClassTimes) > 0: // edit a class time
		ct := &s.ClassTimes[r.IntN(len(s.ClassTimes))]
		switch r.IntN(6) {
		case 0:
			ct.Start = clock()
			ct.End = ct.Start + engine.LocalTime(30+15*r.IntN(4))
		case 1:
			ct.RoomID, ct.Units = room(), 0
		case 2:
			ct.Weekday = time.Weekday(r.IntN(7))
		case 3:
			ct.Inactive = !ct.Inactive
		case 4:
			ct.Buffer = 15 * r.IntN(3)
		default:
			ct.Units = r.IntN(3)
		}
		return fmt.Sprintf("edit class time %d: %+v", ct.ID, *ct)
	case k < 7: // add a class time with an entry
		start := clock()
		ct := engine.ClassTime{ID: id(len(s.ClassTimes), func(i int) int64 { return s.ClassTimes[i].ID }), RoomID: room(),
			Weekday: time.Weekday(r.IntN(7)), Start: start, End: start + engine.LocalTime(30+15*r.IntN(4))}
		s.ClassTimes = append(s.ClassTimes, ct)
		sr := s.Series[r.IntN(len(s.Series))]
		e := engine.Entry{ID: id(len(s.Entries), func(i int) int64 { return s.Entries[i].ID }), SeriesID: sr.ID,
			ClassTimeID: ct.ID, ClassID: class(), Week: 1 + r.IntN(sr.Cycle)}
		s.Entries = append(s.Entries, e)
		return fmt.Sprintf("add class time %+v with entry %+v", ct, e)
	case k < 9 && len(s.ClassTimes) > 0: // remove a class time, its entries and changes
		i := r.IntN(len(s.ClassTimes))
		ct := s.ClassTimes[i]
		s.ClassTimes = slices.Delete(s.ClassTimes, i, i+1)
		s.Entries = slices.DeleteFunc(s.Entries, func(e engine.Entry) bool { return e.ClassTimeID == ct.ID })
		s.Changes = slices.DeleteFunc(s.Changes, func(c engine.DayChange) bool { return c.Ref.ClassTimeID == ct.ID })
		return fmt.Sprintf("remove class time %d", ct.ID)
	case k < 11 && len(s.ClassTimes) > 0: // add an entry
		sr := s.Series[r.IntN(len(s.Series))]
		e := engine.Entry{ID: id(len(s.Entries), func(i int) int64 { return s.Entries[i].ID }), SeriesID: sr.ID,
			ClassTimeID: s.ClassTimes[r.IntN(len(s.ClassTimes))].ID, ClassID: class(), Week: 1 + r.IntN(sr.Cycle)}
		s.Entries = append(s.Entries, e)
		return fmt.Sprintf("add entry %+v", e)
	case k < 13 && len(s.Entries) > 0: // remove or edit an entry
		i := r.IntN(len(s.Entries))
		if r.IntN(2) == 0 {
			e := s.Entries[i]
			s.Entries = slices.Delete(s.Entries, i, i+1)
			return fmt.Sprintf("remove entry %+v", e)
		}
		e := &s.Entries[i]
		e.ClassID = class()
		return fmt.Sprintf("edit entry %+v", *e)
	case k < 14: // edit a series
		sr := &s.Series[r.IntN(len(s.Series))]
		switch r.IntN(3) {
		case 0:
			sr.Cycle = 1 + r.IntN(8)
		case 1:
			sr.Anchor = today.WeekStart(ws).AddDays(7 * (r.IntN(20) - 15))
		default:
			sr.End = 0
			if r.IntN(2) == 0 {
				sr.End = today.WeekStart(ws).AddDays(7 * (1 + r.IntN(20)))
			}
		}
		return fmt.Sprintf("edit series %+v", *sr)
	case k < 15: // give a class other staff
		c := &s.Classes[r.IntN(len(s.Classes))]
		c.StaffIDs = []int64{staff()}
		return fmt.Sprintf("edit class %+v", *c)
	case k < 20 && len(s.Entries) > 0: // add or replace a day change
		e := s.Entries[r.IntN(len(s.Entries))]
		var ct engine.ClassTime
		for _, x := range s.ClassTimes {
			if x.ID == e.ClassTimeID {
				ct = x
			}
		}
		d := engine.DayIn(engine.WeekOf(date(), ws), ct.Weekday, ws)
		c := engine.DayChange{Ref: engine.SessionRef{Date: d, ClassTimeID: ct.ID, ClassID: e.ClassID}}
		switch r.IntN(6) {
		case 0:
			c.Cancelled = true
		case 1:
			c.Date = d.AddDays(r.IntN(15) - 7)
			if c.Date == d {
				c.Date = 0
			}
		case 2:
			c.RoomID = room()
		case 3:
			start := clock()
			end := start + 45
			c.Start, c.End = &start, &end
		case 4:
			c.StaffIDs = []int64{staff()}
		default:
			c.ClassID = class()
		}
		if r.IntN(4) == 0 {
			c.Note = "note"
		}
		s.Changes = slices.DeleteFunc(s.Changes, func(x engine.DayChange) bool { return x.Ref == c.Ref })
		s.Changes = append(s.Changes, c)
		return fmt.Sprintf("day change %+v", c)
	case k < 21 && len(s.Changes) > 0:
		i := r.IntN(len(s.Changes))
		c := s.Changes[i]
		s.Changes = slices.Delete(s.Changes, i, i+1)
		return fmt.Sprintf("remove day change %+v", c.Ref)
	case k < 23: // add, move or remove a one-off
		if len(s.OneOffs) > 0 && r.IntN(3) == 0 {
			i := r.IntN(len(s.OneOffs))
			if r.IntN(2) == 0 {
				s.OneOffs = slices.Delete(s.OneOffs, i, i+1)
				return "remove a one-off"
			}
			o := &s.OneOffs[i]
			o.Date, o.Cancelled = date(), r.IntN(5) == 0
			return fmt.Sprintf("edit one-off %+v", *o)
		}
		start := clock()
		o := engine.OneOff{ID: id(len(s.OneOffs), func(i int) int64 { return s.OneOffs[i].ID }), ClassID: class(), RoomID: room(),
			Date: date(), Start: start, End: start + engine.LocalTime(30+15*r.IntN(4))}
		s.OneOffs = append(s.OneOffs, o)
		return fmt.Sprintf("add one-off %+v", o)
	case k < 24: // add or remove a room booking
		if len(s.RoomBookings) > 0 && r.IntN(2) == 0 {
			i := r.IntN(len(s.RoomBookings))
			s.RoomBookings = slices.Delete(s.RoomBookings, i, i+1)
			return "remove a room booking"
		}
		start := clock()
		b := engine.RoomBooking{ID: id(len(s.RoomBookings), func(i int) int64 { return s.RoomBookings[i].ID }), RoomID: room(),
			Date: date(), Start: start, End: start + 30, Units: r.IntN(2)}
		s.RoomBookings = append(s.RoomBookings, b)
		return fmt.Sprintf("add room booking %+v", b)
	case k < 26: // add or remove a closure
		if len(s.Closures) > 0 && r.IntN(2) == 0 {
			i := r.IntN(len(s.Closures))
			s.Closures = slices.Delete(s.Closures, i, i+1)
			return "remove a closure"
		}
		from := date()
		c := engine.Closure{ID: id(len(s.Closures), func(i int) int64 { return s.Closures[i].ID }), From: from,
			To: from.AddDays(r.IntN(16)), Reason: "closed", Pause: r.IntN(2) == 0}
		if r.IntN(4) != 0 {
			c.RoomIDs = []int64{room()}
		}
		s.Closures = append(s.Closures, c)
		return fmt.Sprintf("add closure %+v", c)
	case k < 27: // add or remove a capacity rule
		if len(s.Capacity) > 0 && r.IntN(2) == 0 {
			i := r.IntN(len(s.Capacity))
			s.Capacity = slices.Delete(s.Capacity, i, i+1)
			return "remove a capacity rule"
		}
		start := clock()
		c := engine.CapacityRule{ID: id(len(s.Capacity), func(i int) int64 { return s.Capacity[i].ID }), RoomID: room(),
			Start: start, End: start + 120, Units: 1 + r.IntN(3)}
		if r.IntN(2) == 0 {
			c.Weekdays = []time.Weekday{time.Weekday(r.IntN(7))}
		} else {
			c.From = date()
			c.To = c.From.AddDays(r.IntN(10))
		}
		s.Capacity = append(s.Capacity, c)
		return fmt.Sprintf("add capacity rule %+v", c)
	case k < 28: // rename a room, a person or an activity
		switch r.IntN(3) {
		case 0:
			x := &s.Rooms[r.IntN(len(s.Rooms))]
			x.Name += "+"
		case 1:
			x := &s.Staff[r.IntN(len(s.Staff))]
			x.Name += "+"
		default:
			x := &s.Activities[r.IntN(len(s.Activities))]
			x.Name += "+"
		}
		return "rename"
	case k < 29: // a room's capacity
		x := &s.Rooms[r.IntN(len(s.Rooms))]
		x.Capacity = 1 + r.IntN(3)
		return fmt.Sprintf("room %d holds %d", x.ID, x.Capacity)
	}
	// Rows outside the schedule's clashes: a plan, a note.
	if len(s.Changes) > 0 {
		c := &s.Changes[r.IntN(len(s.Changes))]
		c.Note = "noted"
		return fmt.Sprintf("note on %+v", c.Ref)
	}
	return "nothing"
}
