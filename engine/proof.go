package engine

import (
	"slices"
	"sort"
	"sync"
	"time"
)

// The clash proof, room by room and person by person.
//
// Every clash double-books one resource: a room (too many units at once)
// or a person (in two places). What clashes in one room depends only on
// what can put a session or a booking in that room, and what clashes for
// one person only on what can put that person in a session; so the proof
// is the union of one proof per resource. A resource's proof has the two
// parts of the whole-day proof (clashByDays): the periodic part, over the
// resource's class times weekday by weekday, and the dated part, which
// resolves only the dates on which something dated (a day change, a
// one-off, a room booking) lands in the resource, and only the sessions of
// that resource on them. Nothing resolves a whole day of the business.
//
// A Proof keeps each resource's clashes, so the proof of the next revision
// (Proof.Next) proves again only the resources a write can change and
// carries the rest.

// resource is what a clash double-books: a room, or a person by the key of
// their name (two staff rows with one name are one person).
type resource struct {
	room   int64
	person string // NameKey of the name; "" for a room
}

// proofIndex is what the proof looks up in a timetable beyond what
// compile keeps: built on first use and kept with the timetable. Its cost
// grows with the staff and the exceptions, not with the class times.
type proofIndex struct {
	staffKey  map[int64]string // NameKey of each staff member's name
	changesOf map[groupKey][]*DayChange
	// landing are the day changes that move, re-time or re-staff a session
	// and do not cancel it, by the date the session lands on.
	landing map[Date][]*DayChange
	// closures naming rooms, by room; allRooms closes every room.
	closures map[int64][]*Closure
	allRooms []*Closure

	everyOnce sync.Once
	every     *resourceIndex // every resource's, see resources
}

// resourceIndex finds, for some resources, what can put something in them.
type resourceIndex struct {
	// groups are the groups of active class times by resource and weekday,
	// in the order of byWeekday.
	groups map[resource]*[7][]int
	// dates are the dates a dated thing lands in each resource on,
	// ascending and distinct.
	dates map[resource][]Date
}

type lazyIndex struct {
	once sync.Once
	ix   *proofIndex
}

func (t *Timetable) proofIndex() *proofIndex {
	t.proofIx.once.Do(func() { t.proofIx.ix = t.buildProofIndex() })
	return t.proofIx.ix
}

// everyResource returns the resource index of every room and person, built
// once per timetable.
func (t *Timetable) everyResource() *resourceIndex {
	ix := t.proofIndex()
	ix.everyOnce.Do(func() { ix.every = t.resources(nil) })
	return ix.every
}

// resourceSet is a set of rooms and people.
type resourceSet struct {
	rooms  map[int64]bool
	people map[string]bool
}

func (rs *resourceSet) has(x resource) bool {
	if x.person == "" {
		return rs.rooms[x.room]
	}
	return rs.people[x.person]
}

// resources indexes the resources of want, or every resource when want is
// nil: one pass over the class times and the exceptions.
func (t *Timetable) resources(want *resourceSet) *resourceIndex {
	ix := t.proofIndex()
	rx := &resourceIndex{groups: make(map[resource]*[7][]int), dates: make(map[resource][]Date)}
	keep := func(x resource) bool { return want == nil || want.has(x) }
	add := func(x resource, wd int, gi int) {
		l := rx.groups[x]
		if l == nil {
			l = new([7][]int)
			rx.groups[x] = l
		}
		l[wd] = append(l[wd], gi)
	}
	// For a few resources, the staff rows of the people wanted tell,
	// without a key's hash, which classes can matter.
	var wantStaff map[int64]bool
	if want != nil {
		wantStaff = make(map[int64]bool)
		for id, k := range ix.staffKey {
			if want.people[k] {
				wantStaff[id] = true
			}
		}
	}
	var keys []string
	for wd := range t.byWeekday {
		for _, gi := range t.byWeekday[wd] {
			g := &t.groups[gi]
			if x := (resource{room: g.ct.RoomID}); keep(x) {
				add(x, wd, gi)
			}
			if want != nil && !slices.ContainsFunc(g.class.StaffIDs, func(id int64) bool { return wantStaff[id] }) {
				continue
			}
			keys = ix.appendPeople(keys[:0], g.class.StaffIDs)
			for _, k := range keys {
				if x := (resource{person: k}); keep(x) {
					add(x, wd, gi)
				}
			}
		}
	}
	note := func(x resource, d Date) {
		if keep(x) {
			rx.dates[x] = append(rx.dates[x], d)
		}
	}
	for d, cs := range ix.landing {
		for _, c := range cs {
			room, staff := t.changedTo(c)
			if room != 0 {
				note(resource{room: room}, d)
			}
			for _, k := range ix.appendPeople(keys[:0], staff) {
				note(resource{person: k}, d)
			}
		}
	}
	for i := range t.state.OneOffs {
		o := &t.state.OneOffs[i]
		if o.Cancelled {
			continue
		}
		note(resource{room: o.RoomID}, o.Date)
		for _, k := range ix.appendPeople(keys[:0], t.classes[o.ClassID].StaffIDs) {
			note(resource{person: k}, o.Date)
		}
	}
	for i := range t.state.RoomBookings {
		if b := &t.state.RoomBookings[i]; !b.Cancelled {
			note(resource{room: b.RoomID}, b.Date)
		}
	}
	for x, ds := range rx.dates {
		slices.Sort(ds)
		rx.dates[x] = slices.Compact(ds)
	}
	return rx
}

func (t *Timetable) buildProofIndex() *proofIndex {
	ix := &proofIndex{
		staffKey:  make(map[int64]string, len(t.staff)),
		changesOf: make(map[groupKey][]*DayChange),
		landing:   make(map[Date][]*DayChange),
		closures:  make(map[int64][]*Closure),
	}
	for id, p := range t.staff {
		ix.staffKey[id] = NameKey(p.Name)
	}
	for i := range t.state.Changes {
		c := &t.state.Changes[i]
		k := groupKey{c.Ref.ClassTimeID, c.Ref.ClassID}
		ix.changesOf[k] = append(ix.changesOf[k], c)
		if !c.Cancelled && affectsTimetable(c) {
			ix.landing[landsOn(c)] = append(ix.landing[landsOn(c)], c)
		}
	}
	for _, c := range t.closures {
		if len(c.RoomIDs) == 0 {
			ix.allRooms = append(ix.allRooms, c)
		}
		for _, r := range c.RoomIDs {
			ix.closures[r] = append(ix.closures[r], c)
		}
	}
	return ix
}

// landsOn is the date a changed session happens on.
func landsOn(c *DayChange) Date {
	if c.Date != 0 {
		return c.Date
	}
	return c.Ref.Date
}

// changedTo returns the room and the staff of the session a day change
// makes, as far as the change and the rows it names tell (zero and nil for
// what they do not).
func (t *Timetable) changedTo(c *DayChange) (room int64, staff []int64) {
	room = c.RoomID
	if ct := t.classTimes[c.Ref.ClassTimeID]; room == 0 && ct != nil {
		room = ct.RoomID
	}
	switch {
	case c.StaffIDs != nil:
		staff = c.StaffIDs
	case c.ClassID != 0 && t.classes[c.ClassID] != nil:
		staff = t.classes[c.ClassID].StaffIDs
	case t.classes[c.Ref.ClassID] != nil:
		staff = t.classes[c.Ref.ClassID].StaffIDs
	}
	return room, staff
}

// appendPeople appends the distinct person keys of a staff list to out.
func (ix *proofIndex) appendPeople(out []string, ids []int64) []string {
	for _, id := range ids {
		if k := ix.staffKey[id]; !slices.Contains(out, k) {
			out = append(out, k)
		}
	}
	return out
}

// holds reports whether a session is in resource x.
func (ix *proofIndex) holds(x resource, s *Session) bool {
	if x.person == "" {
		return s.RoomID == x.room
	}
	return slices.ContainsFunc(s.StaffIDs, func(id int64) bool { return ix.staffKey[id] == x.person })
}

// groupSegments computes the segments of group gi as segmentEntries does,
// from the group's own changes and its room's closures.
func (p *prover) groupSegments(gi int) [][]segment {
	t, ix := p.t, p.t.proofIndex()
	g := &t.groups[gi]
	if g.ct.Inactive {
		return nil
	}
	var removed []segment
	for _, c := range ix.changesOf[groupKey{g.ct.ID, g.class.ID}] {
		if !c.Cancelled && !affectsTimetable(c) || g.ct.Weekday != c.Ref.Date.Weekday() {
			continue
		}
		w := WeekOf(c.Ref.Date, t.ws)
		removed = append(removed, segment{from: w, to: w + 1})
	}
	for _, list := range [2][]*Closure{ix.allRooms, ix.closures[g.ct.RoomID]} {
		for _, c := range list {
			if from, to := weeksOn(c.From, c.To, g.ct.Weekday, t.ws); from < to {
				removed = append(removed, segment{from: from, to: to})
			}
		}
	}
	return p.entrySegments(g, removed)
}

// Proof is the clash proof of one timetable from the week of one date on,
// kept room by room and person by person so that the proof of a later
// revision can carry what the write did not touch (see Next). It is
// immutable and safe for concurrent use.
type Proof struct {
	t      *Timetable
	today  Date
	of     map[resource][]Clash // only resources with clashes
	report Report
}

// Report returns the proof's clashes, as Timetable.Clashes returns them.
func (p *Proof) Report() Report { return p.report }

// Prove proves the clashes of every room and person from the week of today
// on (see Clashes); stop is as for ClashesOrStop.
func (t *Timetable) Prove(today Date, stop func() bool) (*Proof, error) {
	ix := t.proofIndex()
	xs := make([]resource, 0, len(t.rooms)+len(ix.staffKey))
	for id := range t.rooms {
		xs = append(xs, resource{room: id})
	}
	seen := map[string]bool{}
	for _, k := range ix.staffKey {
		if !seen[k] {
			seen[k] = true
			xs = append(xs, resource{person: k})
		}
	}
	return t.prove(today, stop, xs, t.everyResource(), nil)
}

// prove proves the resources xs and takes every other resource's clashes
// from carry.
func (t *Timetable) prove(today Date, stop func() bool, xs []resource, rx *resourceIndex, carry map[resource][]Clash) (*Proof, error) {
	p := prover{t: t, rx: rx, today: today, w0: WeekOf(today, t.ws), found: map[string]*candidate{}, stop: stop,
		segs: make([][][]segment, len(t.groups)), segDone: make([]bool, len(t.groups))}
	of := make(map[resource][]Clash, len(carry))
	for x, cs := range carry {
		of[x] = cs
	}
	for _, x := range xs {
		delete(of, x)
		n := len(p.clashes)
		p.resourceClashes(x)
		if p.stopped {
			return nil, ErrStopped
		}
		if len(p.clashes) > n {
			of[x] = p.clashes[n:len(p.clashes):len(p.clashes)]
		}
	}
	var all []Clash
	for _, cs := range of {
		all = append(all, cs...)
	}
	return &Proof{t: t, today: today, of: of, report: report(all)}, nil
}

// resourceClashes appends the clashes of resource x to p.clashes.
func (p *prover) resourceClashes(x resource) {
	t := p.t
	clear(p.found)
	if gs := p.rx.groups[x]; gs != nil {
		for wd := range gs {
			var live []int
			for _, gi := range gs[wd] {
				if p.hasWeeks(gi) {
					live = append(live, gi)
				}
			}
			if len(live) == 0 {
				continue
			}
			if x.person == "" {
				p.roomCandidates(time.Weekday(wd), live)
			} else {
				p.staffCandidates(live, x.person)
			}
		}
		p.solveFound()
	}
	dates := p.rx.dates[x]
	from := WeekStartDay(p.w0, t.ws)
	for _, d := range dates[sort.Search(len(dates), func(i int) bool { return dates[i] >= from }):] {
		if p.halt() {
			return
		}
		p.datedIn(x, d)
	}
}

// datedIn reports the clashes of resource x on date d that involve
// something dated, as dated does for the whole day.
func (p *prover) datedIn(x resource, d Date) {
	t, ix := p.t, p.t.proofIndex()
	sessions := t.resourceDay(p.rx, x, d)
	dated := func(m int) bool {
		if m >= len(sessions) {
			return true // a room booking
		}
		s := &sessions[m]
		return s.IsOneOff() || s.Changed
	}
	found := func(kind ClashKind, resource, staff string, members []int) {
		if slices.ContainsFunc(members, dated) {
			p.emitDated(d, sessions, nil, kind, resource, staff, members)
		}
	}
	if x.person != "" {
		var spans []span
		name := ""
		for i := range sessions {
			s := &sessions[i]
			if s.Cancelled {
				continue
			}
			for _, id := range s.StaffIDs {
				if ix.staffKey[id] == x.person {
					if name == "" {
						name = t.staff[id].Name
					}
					spans = append(spans, span{start: s.Start, end: s.End, id: i})
					break
				}
			}
		}
		overlappingPairs(spans, func(a, b int) {
			found(StaffClash, x.person, name, []int{min(a, b), max(a, b)})
		})
		return
	}
	var bookings []*RoomBooking
	for _, b := range t.bookings[d] {
		if b.RoomID == x.room && !b.Cancelled {
			bookings = append(bookings, b)
		}
	}
	spans := make([]span, 0, len(sessions)+len(bookings))
	for i := range sessions {
		if s := &sessions[i]; !s.Cancelled {
			spans = append(spans, span{start: s.Start, end: occupiedUntil(s.End, s.Buffer), units: s.Units, whole: t.takesWholeRoom(s), id: i})
		}
	}
	for i, b := range bookings {
		spans = append(spans, span{start: b.Start, end: b.End, units: t.units(b.Units, b.RoomID), whole: b.Units == 0, id: len(sessions) + i})
	}
	overloads(spans, t.dayLevels(x.room, d), p.halt, func(members []int) {
		if slices.ContainsFunc(members, dated) {
			p.emitDated(d, sessions, bookings, RoomClash, "", "", members)
		}
	})
}

// resourceDay returns the sessions of date d in resource x, as Day resolves
// them and in its order, but without resolving the rest of the day.
func (t *Timetable) resourceDay(rx *resourceIndex, x resource, d Date) []Session {
	ix := t.proofIndex()
	w := WeekOf(d, t.ws)
	var out []Session
	var mine []int
	if gs := rx.groups[x]; gs != nil {
		mine = gs[d.Weekday()]
	}
	for _, gi := range mine {
		g := &t.groups[gi]
		weeks := g.activeIn(w)
		if weeks == nil {
			continue
		}
		s := t.regular(g, d, weeks)
		if c := t.changes[s.Ref]; c != nil {
			if c.Date != 0 && c.Date != d {
				continue // moved away
			}
			t.apply(&s, c)
		}
		if ix.holds(x, &s) {
			out = append(out, s)
		}
	}
	// Sessions a change brings in: moved from another date, or changed on
	// this date from a class time that is not x's.
	for _, c := range ix.landing[d] {
		if c.Date == 0 || c.Date == c.Ref.Date {
			if gi, ok := t.groupOf[groupKey{c.Ref.ClassTimeID, c.Ref.ClassID}]; ok && slices.Contains(mine, gi) {
				continue // resolved above
			}
		}
		s, ok := t.original(c.Ref)
		if !ok {
			continue
		}
		t.apply(&s, c)
		if ix.holds(x, &s) {
			out = append(out, s)
		}
	}
	for _, o := range t.oneOffs[d] {
		if s := t.oneOff(o); ix.holds(x, &s) {
			out = append(out, s)
		}
	}
	t.close(d, out)
	sortSessions(out)
	return out
}
