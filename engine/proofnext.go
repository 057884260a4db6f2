package engine

import (
	"slices"
)

// Next proves the clashes of t, a later revision of the proof's timetable,
// from the week of the same today on: it proves again only the rooms and
// people the difference between the two can change, and carries every
// other resource's clashes over as they were. The report equals
// t.Clashes(today) exactly (TestProofNextEqualsFull checks it over
// thousands of random edits). What renames a room, a person or an
// activity, or changes the business's kind or week start, changes words in
// every clash, and Next proves everything again; so it does when today
// differs, and on a nil Proof.
func (p *Proof) Next(t *Timetable, today Date, stop func() bool) (*Proof, error) {
	if p == nil || today != p.today || everywhere(p.t, t) {
		return t.Prove(today, stop)
	}
	var d diff
	d.rows(p.t, t)
	return p.carry(t, today, stop, &d)
}

// carry proves t from p, again only for the resources the difference d
// between p's timetable and t reaches.
func (p *Proof) carry(t *Timetable, today Date, stop func() bool, d *diff) (*Proof, error) {
	if d.none() {
		// Nothing a clash is made of changed (a standing place made, a
		// date skipped): every clash carries over, and t's proof index,
		// which would only find that no resource is touched, is not
		// built.
		return &Proof{t: t, today: today, of: p.of, report: report(p.report.Clashes)}, nil
	}
	xs, set := touched(p.t, t, d)
	carry := make(map[resource][]Clash, len(p.of))
	for x, cs := range p.of {
		carry[x] = cs
	}
	for _, x := range xs {
		delete(carry, x) // proved again below, if t still has it
	}
	return t.prove(today, stop, t.resources(set), carry)
}

// everywhere reports whether a difference between two timetables changes
// the words of every clash: the business's kind, its week start, a room's
// name or capacity (the units of every session in it), a person's or an
// activity's name.
func everywhere(a, b *Timetable) bool {
	ab, bb := a.state.Business, b.state.Business
	if ab.Kind != bb.Kind || ab.WeekStart != bb.WeekStart || ab.Locale != bb.Locale {
		return true
	}
	for id, r := range b.rooms {
		if old, ok := a.rooms[id]; ok && *old != *r {
			return true
		}
	}
	for id, s := range b.staff {
		if old, ok := a.staff[id]; ok && old.Name != s.Name {
			return true
		}
	}
	for id, x := range b.activities {
		if old, ok := a.activities[id]; ok && old.Name != x.Name {
			return true
		}
	}
	return false
}

// touched returns the resources whose clashes may differ between a and b,
// which differ by d: every room and person that anything changed can put
// a session in, on either side.
func touched(a, b *Timetable, d *diff) ([]resource, *resourceSet) {
	set := map[resource]bool{}
	for _, t := range []*Timetable{a, b} {
		d.reach(t, set)
	}
	out := make([]resource, 0, len(set))
	rs := &resourceSet{rooms: map[int64]bool{}, people: map[string]bool{}}
	for x := range set {
		out = append(out, x)
		if x.person == "" {
			rs.rooms[x.room] = true
		} else {
			rs.people[x.person] = true
		}
	}
	return out, rs
}

// diff is what differs between two timetables, row by row.
type diff struct {
	classes, classTimes, series map[int64]bool
	groups                      map[groupKey]bool
	rooms                       map[int64]bool // bookings, capacity rules
	closed                      map[int64]bool // rooms whose closures differ
	allClosed                   bool           // a closure of every room differs
	changes                     map[SessionRef]bool
	oneOffs                     map[int64]bool
}

// none reports whether the difference reaches no room or person (see
// reach).
func (d *diff) none() bool {
	return len(d.classes) == 0 && len(d.classTimes) == 0 && len(d.series) == 0 && len(d.groups) == 0 && len(d.rooms) == 0 &&
		len(d.closed) == 0 && !d.allClosed && len(d.changes) == 0 && len(d.oneOffs) == 0
}

func (d *diff) rows(a, b *Timetable) {
	d.classes, d.classTimes, d.series = map[int64]bool{}, map[int64]bool{}, map[int64]bool{}
	d.groups, d.rooms, d.closed = map[groupKey]bool{}, map[int64]bool{}, map[int64]bool{}
	d.changes, d.oneOffs = map[SessionRef]bool{}, map[int64]bool{}
	sa, sb := &a.state, &b.state
	differ(sa.Classes, sb.Classes, func(c *Class) int64 { return c.ID }, func(x, y *Class) bool {
		return x.ActivityID == y.ActivityID && slices.Equal(x.StaffIDs, y.StaffIDs)
	}, func(c *Class) { d.classes[c.ID] = true })
	differ(sa.ClassTimes, sb.ClassTimes, func(c *ClassTime) int64 { return c.ID }, func(x, y *ClassTime) bool { return *x == *y },
		func(c *ClassTime) { d.classTimes[c.ID] = true })
	differ(sa.Series, sb.Series, func(s *Series) int64 { return s.ID }, func(x, y *Series) bool { return *x == *y },
		func(s *Series) { d.series[s.ID] = true })
	// A series whose rotation moved (a pausing closure, a room added to
	// it) moves every session it holds.
	for id, r := range b.rot {
		if old, ok := a.rot[id]; ok && !sameRotation(old, r) {
			d.series[id] = true
		}
	}
	differ(sa.Entries, sb.Entries, func(e *Entry) int64 { return e.ID }, func(x, y *Entry) bool { return *x == *y },
		func(e *Entry) { d.groups[groupKey{e.ClassTimeID, e.ClassID}] = true })
	differ(sa.Changes, sb.Changes, func(c *DayChange) SessionRef { return c.Ref }, sameChange,
		func(c *DayChange) { d.changes[c.Ref] = true })
	differ(sa.OneOffs, sb.OneOffs, func(o *OneOff) int64 { return o.ID }, sameOneOff,
		func(o *OneOff) { d.oneOffs[o.ID] = true })
	differ(sa.RoomBookings, sb.RoomBookings, func(r *RoomBooking) int64 { return r.ID }, func(x, y *RoomBooking) bool { return *x == *y },
		func(r *RoomBooking) { d.rooms[r.RoomID] = true })
	differ(sa.Capacity, sb.Capacity, func(r *CapacityRule) int64 { return r.ID }, func(x, y *CapacityRule) bool {
		return x.RoomID == y.RoomID && x.From == y.From && x.To == y.To && x.Start == y.Start && x.End == y.End &&
			x.Units == y.Units && slices.Equal(x.Weekdays, y.Weekdays)
	}, func(r *CapacityRule) { d.rooms[r.RoomID] = true })
	differ(sa.Closures, sb.Closures, func(c *Closure) int64 { return c.ID }, func(x, y *Closure) bool {
		return x.From == y.From && x.To == y.To && x.Reason == y.Reason && x.Pause == y.Pause && slices.Equal(x.RoomIDs, y.RoomIDs)
	}, func(c *Closure) {
		if len(c.RoomIDs) == 0 {
			d.allClosed = true
		}
		for _, r := range c.RoomIDs {
			d.closed[r] = true
		}
	})
}

// reach adds to set the resources of t that the differences reach. The
// sets of a diff are usually a row or two: they are looked through as
// idSets, and a whole kind of row is skipped when nothing of it differs.
func (d *diff) reach(t *Timetable, set map[resource]bool) {
	ix := t.proofIndex()
	addStaff := func(ids []int64) {
		for _, id := range ids {
			if k, ok := ix.staffKey[id]; ok {
				set[resource{person: k}] = true
			}
		}
	}
	addChange := func(c *DayChange) {
		room, staff := t.changedTo(c)
		if room != 0 {
			set[resource{room: room}] = true
		}
		addStaff(staff)
		// The session it changes leaves its class time's room and people
		// on its original date.
		if ct := t.classTimes[c.Ref.ClassTimeID]; ct != nil {
			set[resource{room: ct.RoomID}] = true
		}
		if cl := t.classes[c.Ref.ClassID]; cl != nil {
			addStaff(cl.StaffIDs)
		}
	}
	addGroup := func(gi int) {
		g := &t.groups[gi]
		set[resource{room: g.ct.RoomID}] = true
		addStaff(g.class.StaffIDs)
		for _, c := range ix.changesOf(gi) {
			addChange(c)
		}
	}
	classTimes, classes, series, closed := newIDSet(d.classTimes), newIDSet(d.classes), newIDSet(d.series), newIDSet(d.closed)
	closing := d.allClosed || !closed.empty()
	closedRoom := func(room int64) bool { return d.allClosed || closed.has(room) }
	for k := range d.groups {
		if gi, ok := t.groupOf[k]; ok {
			addGroup(gi)
		}
	}
	if !classTimes.empty() || !classes.empty() || !series.empty() || closing {
		for gi := range ix.rows {
			r := &ix.rows[gi]
			hit := classTimes.has(r.classTime) || classes.has(r.class) || closing && closedRoom(r.room)
			if !hit && !series.empty() {
				for _, e := range t.groups[gi].entries {
					if series.has(e.series.ID) {
						hit = true
						break
					}
				}
			}
			if hit {
				addGroup(gi)
			}
		}
	}
	for i := range t.state.Changes {
		c := &t.state.Changes[i]
		hit := len(d.changes) > 0 && d.changes[c.Ref] || classes.has(c.ClassID) || classes.has(c.Ref.ClassID)
		if !hit && closing {
			room, _ := t.changedTo(c)
			hit = closedRoom(room)
		}
		if hit {
			addChange(c)
		}
	}
	for i := range t.state.OneOffs {
		o := &t.state.OneOffs[i]
		if len(d.oneOffs) > 0 && d.oneOffs[o.ID] || classes.has(o.ClassID) || closing && closedRoom(o.RoomID) {
			set[resource{room: o.RoomID}] = true
			if cl := t.classes[o.ClassID]; cl != nil {
				addStaff(cl.StaffIDs)
			}
		}
	}
	for r := range d.rooms {
		set[resource{room: r}] = true
	}
	for r := range d.closed {
		set[resource{room: r}] = true
	}
	if d.allClosed {
		for r := range t.rooms {
			set[resource{room: r}] = true
		}
	}
}

// differ calls changed with both versions of every row, found by key,
// that was added, removed or edited between before and after. Rows in the
// same places with the same keys, as a copy edited in place has them, are
// compared without a map.
func differ[T any, K comparable](before, after []T, key func(*T) K, same func(a, b *T) bool, changed func(*T)) {
	n := min(len(before), len(after))
	i := 0
	for ; i < n; i++ {
		a, b := &before[i], &after[i]
		if key(a) != key(b) {
			break
		}
		if !same(a, b) {
			changed(a)
			changed(b)
		}
	}
	if i == len(before) && i == len(after) {
		return
	}
	was := make(map[K]*T, len(before)-i)
	for j := i; j < len(before); j++ {
		was[key(&before[j])] = &before[j]
	}
	for j := i; j < len(after); j++ {
		row := &after[j]
		k := key(row)
		old, ok := was[k]
		if ok {
			delete(was, k)
			if same(old, row) {
				continue
			}
			changed(old)
		}
		changed(row)
	}
	for _, old := range was {
		changed(old)
	}
}

func sameRotation(a, b *Rotation) bool {
	return a.anchor == b.anchor && a.end == b.end && a.cycle == b.cycle && slices.Equal(a.paused, b.paused)
}

func sameChange(a, b *DayChange) bool {
	eqTime := func(x, y *LocalTime) bool { return x == nil && y == nil || x != nil && y != nil && *x == *y }
	return a.Ref == b.Ref && a.Cancelled == b.Cancelled && a.Date == b.Date && a.RoomID == b.RoomID &&
		eqTime(a.Start, b.Start) && eqTime(a.End, b.End) && a.ClassID == b.ClassID &&
		slices.Equal(a.StaffIDs, b.StaffIDs) && (a.StaffIDs == nil) == (b.StaffIDs == nil) && a.Note == b.Note
}

// sameOneOff compares what the proof reads of a one-off (its clients are
// not part of it).
func sameOneOff(a, b *OneOff) bool {
	return a.ClassID == b.ClassID && a.RoomID == b.RoomID && a.Date == b.Date && a.Start == b.Start && a.End == b.End &&
		a.Label == b.Label && a.Capacity == b.Capacity && a.Buffer == b.Buffer && a.Units == b.Units &&
		a.Cancelled == b.Cancelled && a.Note == b.Note
}
