package engine

import (
	"slices"
	"time"
)

// Placements: where can a new class time of a class go, so that it adds no
// clash and leaves no one away on any future date?
//
// A placement is a new class time (a room, a weekday, a start) and an entry
// for the class in a new series of Cycle weeks anchored on the week of From,
// in one week of that rotation. The weeks its sessions happen in are the
// segments of the clash proof: the new rotation's legs (a pausing closure of
// its room holds it), less the weeks a closure closes the room on that
// weekday. For each room and weekday the answer is found as the proof finds
// clashes, never by scanning dates:
//
//   - the periodic part: the room's class times of that weekday, and the
//     class times of that weekday of everyone in the class, each with its
//     weeks as segments; a class time meets the placement's week k when
//     their residue classes meet within their segments (the Chinese
//     remainder theorem, meetAll), and then the starts its span overlaps are
//     blocked in week k — for a room with fungible units, the minimal
//     overloads (overloads) whose members all meet in one week;
//   - time off and working hours, as ranges of weeks met the same way;
//   - the dated part: every date of that weekday on which something dated
//     (a day change, a one-off, a room booking) lands in the room or on one
//     of the class's people, resolved exactly, room and people alone.
//
// A start is a placement in week k when nothing blocks it there. The rules
// are the proof's own (the same span, level and overload helpers), so a
// placement's write adds no clash, and every start left out adds one or
// leaves a staff member away (TestPlacementsAgainstTheWrite).

// MaxPlacementCycle is the longest rotation placements are asked for.
const MaxPlacementCycle = 8

// PlacementRequest asks where a new class time of a class could go.
type PlacementRequest struct {
	ClassID int64
	// Minutes is how long a session lasts, 1 to 24 hours.
	Minutes int
	// Cycle is the length in weeks of the new series' rotation, 1 to
	// MaxPlacementCycle; zero is 1.
	Cycle int
	// Weeks are the weeks of the rotation (1..Cycle) to answer for; nil is
	// every week.
	Weeks []int
	// RoomIDs are the rooms to try; nil is every room.
	RoomIDs []int64
	// Weekdays are the days to try; nil is every day.
	Weekdays []time.Weekday
	// A session starts at Earliest or later and ends by Latest; both zero
	// is 06:00–22:00.
	Earliest, Latest LocalTime
	// Step is the minutes between two starts tried; zero is 15.
	Step int
	// Units is how much of the room a session takes (zero: all of it) and
	// Buffer its cleaning time, as for a class time (see ClassShape).
	Units, Buffer int
	// From is a date of the week the new series is anchored on; zero is
	// today.
	From Date
}

// Placement is one place a new class time can go: a room, a weekday, a
// span, and the week of the new rotation its series entry is in.
type Placement struct {
	RoomID     int64
	Weekday    time.Weekday
	Start, End LocalTime
	Week       int
}

// ClassShape returns the units and cleaning buffer of the class's sessions:
// those of its first class time (by id), or zero (the whole room, no
// buffer) for a class that has none. A placement takes them by default.
func (t *Timetable) ClassShape(classID int64) (units, buffer int) {
	var first *ClassTime
	for gi := range t.groups {
		g := &t.groups[gi]
		if g.class.ID == classID && (first == nil || g.ct.ID < first.ID) {
			first = g.ct
		}
	}
	if first == nil {
		return 0, 0
	}
	return first.Units, first.Buffer
}

// placementRequest validates a request and fills in its defaults.
func (t *Timetable) placementRequest(today Date, q PlacementRequest) (PlacementRequest, error) {
	if t.classes[q.ClassID] == nil {
		return q, Errorf(Invalid, "classId", "There is no class with id %d", q.ClassID)
	}
	if q.Minutes < 1 || q.Minutes > 24*60 {
		return q, Errorf(Invalid, "minutes", "A placement lasts 1 to 1440 minutes, not %d", q.Minutes)
	}
	if q.Cycle == 0 {
		q.Cycle = 1
	}
	if q.Cycle < 1 || q.Cycle > MaxPlacementCycle {
		return q, Errorf(Invalid, "cycleWeeks", "A placement's rotation is 1 to %d weeks, not %d", MaxPlacementCycle, q.Cycle)
	}
	if q.Weeks == nil {
		for k := 1; k <= q.Cycle; k++ {
			q.Weeks = append(q.Weeks, k)
		}
	}
	for _, k := range q.Weeks {
		if k < 1 || k > q.Cycle {
			return q, Errorf(Invalid, "weeks", "Week %d is not a week of a rotation of %d weeks", k, q.Cycle)
		}
	}
	if q.RoomIDs == nil {
		for _, r := range t.state.Rooms {
			q.RoomIDs = append(q.RoomIDs, r.ID)
		}
	}
	for _, id := range q.RoomIDs {
		if t.rooms[id] == nil {
			return q, Errorf(Invalid, "roomIds", "There is no room with id %d", id)
		}
	}
	if q.Weekdays == nil {
		for i := range 7 {
			q.Weekdays = append(q.Weekdays, (t.ws+time.Weekday(i))%7)
		}
	}
	for _, wd := range q.Weekdays {
		if wd < time.Sunday || wd > time.Saturday {
			return q, Errorf(Invalid, "weekdays", "A placement names a day of the week that does not exist")
		}
	}
	if q.Earliest == 0 && q.Latest == 0 {
		q.Earliest, q.Latest = 6*60, 22*60
	}
	if !q.Earliest.Valid() || !q.Latest.Valid() || q.Earliest >= q.Latest {
		return q, Errorf(Invalid, "earliest", "The earliest start (%s) must come before the latest end (%s)", q.Earliest, q.Latest)
	}
	if q.Step == 0 {
		q.Step = 15
	}
	if q.Step < 1 || q.Step > 24*60 {
		return q, Errorf(Invalid, "step", "The step between starts is 1 to 1440 minutes, not %d", q.Step)
	}
	if q.Units < 0 || q.Units > MaxUnits {
		return q, Errorf(Invalid, "units", "A placement uses 0 (the whole room) to %d units, not %d", MaxUnits, q.Units)
	}
	if q.Buffer < 0 || q.Buffer > 24*60 {
		return q, Errorf(Invalid, "bufferMinutes", "The cleaning time must be between 0 and 1440 minutes, not %d", q.Buffer)
	}
	if q.From == 0 {
		q.From = today
	}
	if !q.From.Valid() {
		return q, Errorf(Invalid, "from", "The first date of a placement is not a date")
	}
	return q, nil
}

// Placements returns every placement of req from the week of today on: each
// (room, weekday, start, week of the rotation) where the new class time and
// series entry would add no clash — room units and buffers, everyone in the
// class — and leave no staff member of the class away or outside their
// hours, on any future date. Closed dates hold no session, so they never
// block. A room that never has the units asked for holds none. They come by room (in req's order), weekday (in req's order),
// start and week. stop is as for ClashesOrStop. A request out of bounds is
// an *Error naming its field.
func (t *Timetable) Placements(today Date, req PlacementRequest, stop func() bool) ([]Placement, error) {
	q, err := t.placementRequest(today, req)
	if err != nil {
		return nil, err
	}
	pl := newPlacer(t, today, q, stop)
	var out []Placement
	for _, room := range q.RoomIDs {
		if q.Units > peakUnits(t.rooms[room], t.rules[room]) {
			continue // more units than the room ever has: no class time may ask for them
		}
		for _, wd := range q.Weekdays {
			pl.place(room, wd)
			if pl.p.stopped {
				return nil, ErrStopped
			}
			for i, s := range pl.starts {
				for _, k := range q.Weeks {
					if !pl.blocked[(k-1)*len(pl.starts)+i] {
						out = append(out, Placement{RoomID: room, Weekday: wd, Start: s, End: s + LocalTime(q.Minutes), Week: k})
					}
				}
			}
		}
	}
	return out, nil
}

// placer answers a placement request room by room and weekday by weekday.
type placer struct {
	t      *Timetable
	p      *prover
	q      PlacementRequest
	rx     *resourceIndex
	roomNo map[int64]int // resource number of each room
	people []int         // resource numbers of the class's people
	ruled  []*staffRules // time off and hours of the class's staff
	anchor int           // week the new series is anchored on
	starts []LocalTime
	// blocked[(k-1)·len(starts)+i]: start i adds a problem in week k.
	blocked []bool
	// weeks[k-1] are the weeks the new session happens in, in week k of
	// the rotation, as one entry's segments (see meetAll).
	weeks [][][]segment
	lists [][][]segment
	spans []span
	day   []Session
}

func newPlacer(t *Timetable, today Date, q PlacementRequest, stop func() bool) *placer {
	rx := t.everyResource()
	pl := &placer{t: t, p: newProver(t, rx, today, stop), q: q, rx: rx, roomNo: map[int64]int{}, anchor: WeekOf(q.From, t.ws)}
	ix := t.proofIndex()
	class := t.classes[q.ClassID]
	keys := ix.appendPeople(nil, class.StaffIDs)
	for n, x := range rx.xs {
		if x.person == "" {
			pl.roomNo[x.room] = n
		} else if slices.Contains(keys, x.person) {
			pl.people = append(pl.people, n)
		}
	}
	rules := t.coverRules()
	seen := map[int64]bool{}
	for _, id := range class.StaffIDs {
		if r := rules[id]; r != nil && !seen[id] {
			seen[id] = true
			pl.ruled = append(pl.ruled, r)
		}
	}
	for s := q.Earliest; s+LocalTime(q.Minutes) <= q.Latest; s += LocalTime(q.Step) {
		pl.starts = append(pl.starts, s)
	}
	pl.blocked = make([]bool, q.Cycle*len(pl.starts))
	pl.weeks = make([][][]segment, q.Cycle)
	return pl
}

// place finds the blocked starts of room on weekday wd.
func (pl *placer) place(room int64, wd time.Weekday) {
	t, q := pl.t, pl.q
	clear(pl.blocked)
	if len(pl.starts) == 0 {
		return
	}
	rot := RotationOf(&Series{Anchor: WeekStartDay(pl.anchor, t.ws), Cycle: q.Cycle}, t.closures, map[int64]bool{room: true}, t.ws)
	closed := mergeSorted(t.appendClosed(nil, room, wd))
	for k := 1; k <= q.Cycle; k++ {
		var segs []segment
		for _, s := range rot.segments(k) {
			s.from = max(s.from, pl.p.w0)
			segs = appendCut(segs, s, closed)
		}
		pl.weeks[k-1] = [][]segment{segs}
	}
	pl.busy(wd)
	pl.room(room, wd)
	pl.cover(wd)
	pl.dated(room, wd)
}

// meet reports whether the new session in week k and the things whose
// weeks others hold all happen in one week of allow (nil: any week).
func (pl *placer) meet(k int, allow []segment, others ...[][]segment) bool {
	lists := append(append(pl.lists[:0], pl.weeks[k]), others...)
	pl.lists = lists
	return meetAll(lists, allow, 0, progression{}, pl.p.halt)
}

// block blocks, in week k (0-based), every start of a session of length
// minutes that would overlap [a, b).
func (pl *placer) block(k int, a, b LocalTime, length int) {
	e, step, n := int(pl.q.Earliest), pl.q.Step, len(pl.starts)
	lo := max(floorDiv(int(a)-length-e, step)+1, 0)
	hi := min(ceilDiv(int(b)-e, step)-1, n-1)
	for i := lo; i <= hi; i++ {
		pl.blocked[k*n+i] = true
	}
}

// busy blocks what the class's people are already in: their class times
// of the weekday in the weeks they meet the new session.
func (pl *placer) busy(wd time.Weekday) {
	t, p := pl.t, pl.p
	for _, n := range pl.people {
		for _, gi := range pl.rx.groups[n][wd] {
			if !p.isLive(gi) {
				continue
			}
			ct := t.groups[gi].ct
			for k := range pl.weeks {
				if pl.meet(k, nil, p.segs[gi]) {
					pl.block(k, ct.Start, ct.End, pl.q.Minutes)
				}
			}
		}
	}
}

// newSpan is the span the new session starting at s takes of its room.
func (pl *placer) newSpan(room int64, s LocalTime) span {
	return span{start: s, end: occupiedUntil(s+LocalTime(pl.q.Minutes), pl.q.Buffer), units: pl.t.units(pl.q.Units, room),
		whole: pl.q.Units == 0, id: -1}
}

// allDay returns the level of levels when it is one level of a unit or more
// all day long, and 0 otherwise.
func allDay(levels []Level) int {
	if len(levels) == 1 && levels[0].From <= 0 && levels[0].To >= int64(EndOfDay) {
		return levels[0].Units
	}
	return 0
}

// room blocks the starts at which the new session would overload the room
// with its class times of the weekday, capacity regime by regime.
func (pl *placer) room(room int64, wd time.Weekday) {
	t, p := pl.t, pl.p
	n := pl.roomNo[room]
	var live []int
	for _, gi := range pl.rx.groups[n][wd] {
		if p.isLive(gi) {
			live = append(live, gi)
		}
	}
	length := pl.q.Minutes + pl.q.Buffer
	for _, rg := range p.regimes(room, wd) {
		for k := range pl.weeks {
			if !pl.meet(k, rg.allow) {
				continue // the new session never happens under these levels
			}
			var co []span // the class times that meet it
			for _, gi := range live {
				if pl.meet(k, rg.allow, p.segs[gi]) {
					g := &t.groups[gi]
					co = append(co, span{start: g.ct.Start, end: occupiedUntil(g.ct.End, g.ct.Buffer), units: g.units, whole: g.ct.Units == 0, id: gi})
				}
			}
			if level := allDay(rg.levels); level >= 1 && pl.q.Units == 0 {
				// A session taking the whole room of a level all day clashes
				// with each that overlaps it and fits alone.
				for _, s := range co {
					if s.whole || s.units <= level {
						pl.block(k, s.start, s.end, length)
					}
				}
				continue
			}
			pl.overloads(room, k, co, rg.levels, func(members []int) bool {
				if len(members) <= 1 {
					return true // met already
				}
				lists := make([][][]segment, len(members))
				for i, gi := range members {
					lists[i] = p.segs[gi]
				}
				return pl.meet(k, rg.allow, lists...)
			})
		}
	}
}

// overloads blocks, in week k, each start not yet blocked at which the new
// session and some of spans make a minimal overload of levels (see
// overloads) for which happens(the other members' ids) holds.
func (pl *placer) overloads(room int64, k int, spans []span, levels []Level, happens func(members []int) bool) {
	n := len(pl.starts)
	for i, s := range pl.starts {
		if pl.blocked[k*n+i] || pl.p.halt() {
			continue
		}
		mine := pl.newSpan(room, s)
		in := append(pl.spans[:0], mine)
		for _, x := range spans {
			if x.start < mine.end && mine.start < x.end {
				in = append(in, x)
			}
		}
		pl.spans = in
		overloads(in, levels, pl.p.halt, func(ids []int) {
			if pl.blocked[k*n+i] || !slices.Contains(ids, -1) {
				return
			}
			if happens(slices.DeleteFunc(slices.Clone(ids), func(id int) bool { return id == -1 })) {
				pl.blocked[k*n+i] = true
			}
		})
	}
}

// cover blocks what would leave a staff member of the class away: their
// time off, and the starts their working hours do not hold, in the weeks
// those meet the new session.
func (pl *placer) cover(wd time.Weekday) {
	t, q := pl.t, pl.q
	for _, r := range pl.ruled {
		for _, o := range r.timeOff {
			from, to := weeksOn(o.From, o.To, wd, t.ws)
			if from >= to {
				continue
			}
			// The first and last days may be partial; the days between are
			// away whole.
			piece := func(wf, wt int) {
				a, b, ok := o.Away(DayIn(wf, wd, t.ws))
				if !ok {
					return
				}
				weeks := [][]segment{{{from: wf, to: wt, mod: 1}}}
				for k := range pl.weeks {
					if pl.meet(k, nil, weeks) {
						pl.block(k, a, b, q.Minutes)
					}
				}
			}
			piece(from, from+1)
			if to-1 > from {
				piece(to-1, to)
			}
			if to-1 > from+1 {
				piece(from+1, to-1)
			}
		}
		for i, h := range r.hours {
			from, to := weeksOn(h.From, r.hoursUntil(i), wd, t.ws)
			if from >= to {
				continue
			}
			weeks := [][]segment{{{from: from, to: to, mod: 1}}}
			for k := range pl.weeks {
				if !pl.meet(k, nil, weeks) {
					continue
				}
				for j, s := range pl.starts {
					if !h.Covers(wd, s, s+LocalTime(q.Minutes)) {
						pl.blocked[k*len(pl.starts)+j] = true
					}
				}
			}
		}
	}
}

// dated resolves every date of the weekday from the week of today on on
// which something dated lands in the room or on one of the class's people,
// and blocks, in the weeks of the rotation the new session happens in then,
// the starts that would clash with that day as it is.
func (pl *placer) dated(room int64, wd time.Weekday) {
	t := pl.t
	from := WeekStartDay(pl.p.w0, t.ws)
	var dates []Date
	for _, n := range append([]int{pl.roomNo[room]}, pl.people...) {
		for _, d := range pl.rx.dates[n] {
			if d >= from && d.Weekday() == wd {
				dates = append(dates, d)
			}
		}
	}
	slices.Sort(dates)
	dates = slices.Compact(dates)
	var ks []int
	for _, d := range dates {
		if pl.p.halt() {
			return
		}
		w := WeekOf(d, t.ws)
		ks = ks[:0]
		for k := range pl.weeks {
			if slices.ContainsFunc(pl.weeks[k][0], func(s segment) bool { return s.from <= w && w < s.to && mod(w-s.res, s.mod) == 0 }) {
				ks = append(ks, k)
			}
		}
		if len(ks) == 0 {
			continue
		}
		for _, n := range pl.people {
			pl.day = t.resourceDay(pl.day[:0], pl.rx, n, d)
			for i := range pl.day {
				if s := &pl.day[i]; !s.Cancelled {
					for _, k := range ks {
						pl.block(k, s.Start, s.End, pl.q.Minutes)
					}
				}
			}
		}
		pl.day = t.resourceDay(pl.day[:0], pl.rx, pl.roomNo[room], d)
		var spans []span
		for i := range pl.day {
			if s := &pl.day[i]; !s.Cancelled {
				spans = append(spans, span{start: s.Start, end: occupiedUntil(s.End, int(s.Buffer)), units: int(s.Units), whole: t.takesWholeRoom(s), id: i})
			}
		}
		for j, b := range t.bookings[d] {
			if b.RoomID == room && !b.Cancelled {
				spans = append(spans, span{start: b.Start, end: b.End, units: t.units(b.Units, room), whole: b.Units == 0, id: len(pl.day) + j})
			}
		}
		levels := t.dayLevels(room, d)
		for _, k := range ks {
			if level := allDay(levels); level >= 1 && pl.q.Units == 0 {
				for _, s := range spans {
					if s.whole || s.units <= level {
						pl.block(k, s.start, s.end, pl.q.Minutes+pl.q.Buffer)
					}
				}
				continue
			}
			pl.overloads(room, k, spans, levels, func([]int) bool { return true })
		}
	}
}
