package engine

// The brute-force oracle: resolves dates straight from the rules, one date
// and one week at a time, and finds clashes by trying every subset of the
// sessions of a day. It shares no code with the timetable or the clash proof
// beyond the value types and civil arithmetic, so that the randomized tests
// compare two independent readings of the rules.

import (
	"fmt"
	"sort"
	"strings"
)

type oracle struct {
	s   State
	pos map[[2]int64]int // (series id, week start) → weeks counted so far
}

func newOracle(s State) *oracle { return &oracle{s: s, pos: map[[2]int64]int{}} }

func (o *oracle) room(id int64) Room {
	for _, r := range o.s.Rooms {
		if r.ID == id {
			return r
		}
	}
	panic("no room")
}

func (o *oracle) classTime(id int64) ClassTime {
	for _, c := range o.s.ClassTimes {
		if c.ID == id {
			return c
		}
	}
	panic("no class time")
}

func (o *oracle) class(id int64) Class {
	for _, c := range o.s.Classes {
		if c.ID == id {
			return c
		}
	}
	panic("no class")
}

func (o *oracle) staffName(id int64) string {
	for _, p := range o.s.Staff {
		if p.ID == id {
			return p.Name
		}
	}
	panic("no staff")
}

// paused reports whether the week starting ws is a paused week of series sr.
func (o *oracle) paused(sr Series, ws Date) bool {
	for _, c := range o.s.Closures {
		if !c.Pause || c.From > ws || c.To < ws+6 {
			continue
		}
		all := true
		for _, e := range o.s.Entries {
			if e.SeriesID != sr.ID {
				continue
			}
			room := o.classTime(e.ClassTimeID).RoomID
			in := len(c.RoomIDs) == 0
			for _, r := range c.RoomIDs {
				in = in || r == room
			}
			all = all && in
		}
		if all {
			return true
		}
	}
	return false
}

// position counts the unpaused weeks from the anchor, one by one.
func (o *oracle) position(sr Series, d Date) int {
	if d < sr.Anchor || (sr.End != 0 && d >= sr.End) {
		return 0
	}
	target := d.WeekStart(o.s.Business.WeekStart)
	key := [2]int64{sr.ID, int64(target)}
	if n, ok := o.pos[key]; ok {
		return n%sr.Cycle + 1
	}
	n := 0
	for ws := sr.Anchor; ws < target; ws += 7 {
		if !o.paused(sr, ws) {
			n++
		}
	}
	o.pos[key] = n
	return n%sr.Cycle + 1
}

func (o *oracle) seriesByID(id int64) Series {
	for _, s := range o.s.Series {
		if s.ID == id {
			return s
		}
	}
	panic("no series")
}

type oracleSession struct {
	key        string // identity: s/<orig date>/<ct>/<class> or o/<id>
	date       Date
	start, end LocalTime
	room       int64
	class      int64
	staff      []int64
	units      int
	whole      bool // asks for all of the room
	buffer     int
	series     []SeriesWeek
	cancelled  bool
	reason     string
	changed    bool
	note       string
}

// unitsOr0 keeps zero ("the whole room") and clamps the rest to the room.
func unitsOr0(want int, r Room) int {
	if want == 0 {
		return 0
	}
	return unitsIn(want, r)
}

func unitsIn(want int, r Room) int {
	c := r.Capacity
	if c <= 0 {
		c = 1
	}
	if want <= 0 || want > c {
		return c
	}
	return want
}

// ruleSessions lists the series sessions the rules make on d, before any
// change: one per (class time, class), listing every series that has it.
func (o *oracle) ruleSessions(d Date) []oracleSession {
	var out []oracleSession
	idx := map[string]int{}
	for _, e := range o.s.Entries {
		ct := o.classTime(e.ClassTimeID)
		if ct.Inactive || ct.Weekday != d.Weekday() {
			continue
		}
		sr := o.seriesByID(e.SeriesID)
		if o.position(sr, d) != e.Week {
			continue
		}
		key := fmt.Sprintf("s/%s/%d/%d", d, ct.ID, e.ClassID)
		if i, ok := idx[key]; ok {
			out[i].series = append(out[i].series, SeriesWeek{sr.ID, e.Week, sr.Cycle})
			continue
		}
		idx[key] = len(out)
		out = append(out, oracleSession{
			key: key, date: d, start: ct.Start, end: ct.End, room: ct.RoomID, class: e.ClassID,
			staff: o.class(e.ClassID).StaffIDs, units: unitsIn(ct.Units, o.room(ct.RoomID)), whole: ct.Units == 0, buffer: ct.Buffer,
			series: []SeriesWeek{{sr.ID, e.Week, sr.Cycle}},
		})
	}
	for i := range out {
		sort.Slice(out[i].series, func(a, b int) bool { return out[i].series[a].SeriesID < out[i].series[b].SeriesID })
	}
	return out
}

func (o *oracle) applyChange(s *oracleSession, c DayChange) {
	if c.Date != 0 && c.Date != c.Ref.Date {
		s.date = c.Date
		s.changed = true
	}
	if c.RoomID != 0 {
		s.room = c.RoomID
		s.units = unitsIn(o.classTime(c.Ref.ClassTimeID).Units, o.room(c.RoomID))
		s.changed = true
	}
	if c.Start != nil {
		s.start = *c.Start
		s.changed = true
	}
	if c.End != nil {
		s.end = *c.End
		s.changed = true
	}
	if c.ClassID != 0 {
		s.class = c.ClassID
		s.staff = o.class(c.ClassID).StaffIDs
		s.changed = true
	}
	if c.StaffIDs != nil {
		s.staff = c.StaffIDs
		s.changed = true
	}
	s.note = c.Note
	if c.Cancelled {
		s.cancelled = true
		s.reason = c.Note
	}
}

func (o *oracle) day(d Date) []oracleSession {
	var out []oracleSession
	// (1) and (2): the date's own series sessions with their changes.
	for _, s := range o.ruleSessions(d) {
		for _, c := range o.s.Changes {
			if fmt.Sprintf("s/%s/%d/%d", c.Ref.Date, c.Ref.ClassTimeID, c.Ref.ClassID) == s.key {
				o.applyChange(&s, c)
			}
		}
		if s.date == d {
			out = append(out, s)
		}
	}
	// (3) sessions moved in from another date, if that date has them.
	for _, c := range o.s.Changes {
		if c.Date != d || c.Ref.Date == d {
			continue
		}
		for _, s := range o.ruleSessions(c.Ref.Date) {
			if s.key == fmt.Sprintf("s/%s/%d/%d", c.Ref.Date, c.Ref.ClassTimeID, c.Ref.ClassID) {
				o.applyChange(&s, c)
				out = append(out, s)
			}
		}
	}
	// (4) one-offs.
	for _, x := range o.s.OneOffs {
		if x.Date != d {
			continue
		}
		out = append(out, oracleSession{
			key: fmt.Sprintf("o/%d", x.ID), date: d, start: x.Start, end: x.End, room: x.RoomID, class: x.ClassID,
			staff: o.class(x.ClassID).StaffIDs, units: unitsIn(x.Units, o.room(x.RoomID)), whole: x.Units == 0, buffer: x.Buffer,
			cancelled: x.Cancelled, reason: x.Note, note: x.Note,
		})
	}
	// (5) closures.
	for _, c := range o.s.Closures {
		if d < c.From || d > c.To {
			continue
		}
		for i := range out {
			in := len(c.RoomIDs) == 0
			for _, r := range c.RoomIDs {
				in = in || r == out[i].room
			}
			if in && !out[i].cancelled {
				out[i].cancelled = true
				out[i].reason = c.Reason
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].key < out[j].key })
	return out
}

// level is the units a room has at minute m of date d, read from its rules
// one by one: overrides holding on d, else weekly rules of the weekday, else
// the room's plain capacity.
func (o *oracle) level(room int64, d Date, m int64) int {
	var rules, overrides []CapacityRule
	for _, r := range o.s.Capacity {
		if r.RoomID != room {
			continue
		}
		rules = append(rules, r)
		if r.From != 0 && r.From <= d && d <= r.To {
			overrides = append(overrides, r)
		}
	}
	if len(rules) == 0 {
		return unitsIn(0, o.room(room))
	}
	for _, r := range rules {
		applies := false
		if len(overrides) > 0 {
			applies = r.From != 0 && r.From <= d && d <= r.To
		} else if r.From == 0 {
			for _, wd := range r.Weekdays {
				applies = applies || wd == d.Weekday()
			}
		}
		if applies && int64(r.Start) <= m && m < int64(r.End) {
			return r.Units
		}
	}
	return 0
}

// occupant is what takes units of a room on a date.
type occupant struct {
	key        string
	start, end int64 // minutes, end including the cleaning buffer
	units      int   // 0: the whole room
}

// clashKey is one clash on one date, as the oracle and the tests name it.
type clashKey struct {
	kind     ClashKind
	resource string // room id, or a person's name in lower case
	members  string // sorted session keys
	date     Date
}

func (k clashKey) String() string {
	return fmt.Sprintf("%s %s on %s: %s", k.kind, k.resource, k.date, k.members)
}

// clashes tries every subset of the sessions of each room and every pair of
// sessions of each person.
func (o *oracle) clashes(d Date) []clashKey {
	var live []oracleSession
	for _, s := range o.day(d) {
		if !s.cancelled {
			live = append(live, s)
		}
	}
	var out []clashKey
	for _, r := range o.s.Rooms {
		var in []occupant
		for _, s := range live {
			if s.room == r.ID {
				until := int64(s.end) + int64(s.buffer)
				if until > int64(EndOfDay) {
					until = int64(EndOfDay)
				}
				u := s.units
				if s.whole {
					u = 0
				}
				in = append(in, occupant{s.key, int64(s.start), until, u})
			}
		}
		for _, b := range o.s.RoomBookings {
			if b.RoomID == r.ID && b.Date == d && !b.Cancelled {
				in = append(in, occupant{fmt.Sprintf("b/%d", b.ID), int64(b.Start), int64(b.End), unitsOr0(b.Units, r)})
			}
		}
		// Every subset, tried at every moment anything changes.
		var cuts []int64
		for _, x := range in {
			cuts = append(cuts, x.start, x.end)
		}
		for _, rule := range o.s.Capacity {
			if rule.RoomID == r.ID {
				cuts = append(cuts, int64(rule.Start), int64(rule.End))
			}
		}
		over := make([]bool, 1<<len(in))
		for mask := 1; mask < 1<<len(in); mask++ {
			for _, m := range cuts {
				sum, all := 0, true
				lvl := o.level(r.ID, d, m)
				for i, x := range in {
					if mask&(1<<i) == 0 {
						continue
					}
					if m < x.start || m >= x.end {
						all = false
						break
					}
					if x.units == 0 {
						sum += max(lvl, 1)
					} else {
						sum += x.units
					}
				}
				if all && sum > lvl {
					over[mask] = true
					break
				}
			}
		}
		for mask := 1; mask < 1<<len(in); mask++ {
			if !over[mask] {
				continue
			}
			minimal := true
			for sub := (mask - 1) & mask; sub > 0; sub = (sub - 1) & mask {
				minimal = minimal && !over[sub]
			}
			if !minimal {
				continue
			}
			var keys []string
			for i, x := range in {
				if mask&(1<<i) != 0 {
					keys = append(keys, x.key)
				}
			}
			sort.Strings(keys)
			out = append(out, clashKey{RoomClash, fmt.Sprint(r.ID), strings.Join(keys, " & "), d})
		}
	}
	for i := range live {
		for j := i + 1; j < len(live); j++ {
			a, b := live[i], live[j]
			if !(a.start < b.end && b.start < a.end) {
				continue
			}
			people := map[string]bool{}
			for _, x := range a.staff {
				for _, y := range b.staff {
					if strings.EqualFold(o.staffName(x), o.staffName(y)) {
						people[strings.ToLower(o.staffName(x))] = true
					}
				}
			}
			for p := range people {
				keys := []string{a.key, b.key}
				sort.Strings(keys)
				out = append(out, clashKey{StaffClash, p, strings.Join(keys, " & "), d})
			}
		}
	}
	return out
}

// expand turns a proven clash into the clash keys of its dates in [from, to).
func expand(c Clash, from, to Date) []clashKey {
	var out []clashKey
	res := fmt.Sprint(c.RoomID)
	if c.Kind == StaffClash {
		res = strings.ToLower(c.Staff)
	}
	for _, d := range c.Dates(from, to) {
		keys := make([]string, 0, len(c.Sessions)+len(c.Bookings))
		for _, s := range c.Sessions {
			k := s.Key()
			if ref := s.Ref(); !s.IsOneOff() && ref.Date == c.First {
				ref.Date = d // a repeating clash names the same rule sessions each time
				k = ref.Key()
			}
			keys = append(keys, k)
		}
		for _, b := range c.Bookings {
			keys = append(keys, fmt.Sprintf("b/%d", b.ID))
		}
		sort.Strings(keys)
		out = append(out, clashKey{c.Kind, res, strings.Join(keys, " & "), d})
	}
	return out
}
