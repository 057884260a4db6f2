package engine

import (
	"cmp"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"
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
	staffKey map[int64]string // NameKey of each staff member's name
	// landing are the day changes that move, re-time or re-staff a session
	// and do not cancel it, by the date the session lands on.
	landing map[Date][]*DayChange
	// closures naming rooms, by room; allRooms closes every room.
	closures map[int64][]*Closure
	allRooms []*Closure
	// rows are what the proof reads of each group's class time and class,
	// by group index, and staff the staff of their classes: a pass over
	// every group (as Next makes) reads them in order, not through
	// pointers.
	rows    []groupRow
	staff   []int64
	changed []*DayChange // the day changes of each group: see changesOf

	everyOnce sync.Once
	every     *resourceIndex // every resource's, see resources
}

// resourceIndex finds, for some resources, what can put something in them.
// Resources are numbered by their place in xs, so that the proof looks
// them up in slices, not maps.
type resourceIndex struct {
	xs []resource
	// groups[n] are the groups of active class times of xs[n] by weekday,
	// in the order of byWeekday (so by start).
	groups [][7][]int
	// dates[n] are the dates a dated thing lands in xs[n] on, ascending and
	// distinct.
	dates [][]Date
}

// groupRow is what the proof reads of a group's class time and class.
type groupRow struct {
	room, classTime, class int64
	start                  LocalTime
	weekday                int8  // -1 when the class time is inactive
	staff, staffEnd        int32 // its class's staff: proofIndex.staff[staff:staffEnd]
	changes, changesEnd    int32 // its day changes: proofIndex.changed[changes:changesEnd]
}

// changesOf returns the day changes of group gi, in the order of the
// state.
func (ix *proofIndex) changesOf(gi int) []*DayChange {
	r := &ix.rows[gi]
	return ix.changed[r.changes:r.changesEnd]
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

// idSet is a set of ids that is usually tiny: a look through a few ids is
// quicker than hashing one, and a look-up in an empty set costs nothing.
type idSet struct {
	few  []int64
	many map[int64]bool
}

func newIDSet(ids map[int64]bool) idSet {
	if len(ids) > 8 {
		return idSet{many: ids}
	}
	s := idSet{few: make([]int64, 0, len(ids))}
	for id := range ids {
		s.few = append(s.few, id)
	}
	return s
}

func (s *idSet) has(id int64) bool {
	if s.many != nil {
		return s.many[id]
	}
	for _, x := range s.few {
		if x == id {
			return true
		}
	}
	return false
}

func (s *idSet) empty() bool { return s.many == nil && len(s.few) == 0 }

// idIndex numbers the ids of some rows: a slice indexed by id when the
// ids are small, as the ones a database hands out are, or else a map.
// Ids never set are numbered -1.
type idIndex struct {
	small []int32
	big   map[int64]int32
}

func newIDIndex[T any](rows []T, id func(*T) int64) idIndex {
	var most int64
	for i := range rows {
		if v := id(&rows[i]); v < 0 {
			return idIndex{big: make(map[int64]int32, len(rows))}
		} else {
			most = max(most, v)
		}
	}
	if most > int64(4*len(rows)+1024) {
		return idIndex{big: make(map[int64]int32, len(rows))}
	}
	x := idIndex{small: make([]int32, most+1)}
	for i := range x.small {
		x.small[i] = -1
	}
	return x
}

func (x *idIndex) set(id int64, n int32) {
	if x.big != nil {
		x.big[id] = n
		return
	}
	x.small[id] = n
}

func (x *idIndex) get(id int64) int32 {
	if x.big != nil {
		if n, ok := x.big[id]; ok {
			return n
		}
		return -1
	}
	if id < 0 || id >= int64(len(x.small)) {
		return -1
	}
	return x.small[id]
}

// resources indexes the resources of want, or every resource when want is
// nil: one pass over the class times and the exceptions. The groups of
// each resource and weekday, and the dates of each resource, are laid out
// in one slice each (bucketed by resource and weekday, in the order they
// are met), so the index costs a few allocations however many resources
// it holds.
func (t *Timetable) resources(want *resourceSet) *resourceIndex {
	ix := t.proofIndex()
	rx := &resourceIndex{}
	// Number the resources: rooms by id, people by key; staffNo gives a
	// staff member's person, -1 for one not wanted.
	roomNo := newIDIndex(t.state.Rooms, func(r *Room) int64 { return r.ID })
	for i := range t.state.Rooms {
		if id := t.state.Rooms[i].ID; want == nil || want.rooms[id] {
			roomNo.set(id, int32(len(rx.xs)))
			rx.xs = append(rx.xs, resource{room: id})
		}
	}
	personNo := make(map[string]int32)
	staffNo := newIDIndex(t.state.Staff, func(s *Staff) int64 { return s.ID })
	wantRooms, wantStaff := map[int64]bool{}, map[int64]bool{}
	for i := range t.state.Staff {
		id := t.state.Staff[i].ID
		k := ix.staffKey[id]
		if want != nil && !want.people[k] {
			continue
		}
		n, ok := personNo[k]
		if !ok {
			n = int32(len(rx.xs))
			personNo[k] = n
			rx.xs = append(rx.xs, resource{person: k})
		}
		staffNo.set(id, n)
		if want != nil {
			wantStaff[id] = true
		}
	}
	rooms, staff := idSet{}, idSet{}
	if want != nil {
		for _, x := range rx.xs {
			if x.person == "" {
				wantRooms[x.room] = true
			}
		}
		rooms, staff = newIDSet(wantRooms), newIDSet(wantStaff)
	}
	// hits are (resource·7 + weekday, group), in the order of byWeekday.
	type hit struct{ bucket, gi int32 }
	var hits []hit
	var people []int32
	hitsOf := func(gi int, wd int32) {
		r := &ix.rows[gi]
		if want == nil || rooms.has(r.room) {
			hits = append(hits, hit{roomNo.get(r.room)*7 + wd, int32(gi)})
		}
		if want != nil && staff.empty() {
			return
		}
		people = people[:0]
		for _, id := range ix.staff[r.staff:r.staffEnd] {
			if want != nil && !staff.has(id) {
				continue
			}
			if n := staffNo.get(id); !slices.Contains(people, n) {
				people = append(people, n)
				hits = append(hits, hit{n*7 + wd, int32(gi)})
			}
		}
	}
	if want == nil {
		hits = make([]hit, 0, 2*len(t.groups))
		for wd := range t.byWeekday {
			for _, gi := range t.byWeekday[wd] {
				hitsOf(gi, int32(wd))
			}
		}
	} else {
		// A few resources: go through the groups in memory order and put
		// the few hits in the order of byWeekday (by start, then index).
		for gi := range ix.rows {
			if wd := ix.rows[gi].weekday; wd >= 0 {
				hitsOf(gi, int32(wd))
			}
		}
		slices.SortFunc(hits, func(a, b hit) int {
			return cmp.Or(cmp.Compare(a.bucket, b.bucket), cmp.Compare(ix.rows[a.gi].start, ix.rows[b.gi].start), cmp.Compare(a.gi, b.gi))
		})
	}
	// Bucket the hits, keeping their order within a bucket.
	starts := make([]int32, 7*len(rx.xs)+1)
	for _, h := range hits {
		starts[h.bucket+1]++
	}
	for i := 1; i < len(starts); i++ {
		starts[i] += starts[i-1]
	}
	flat := make([]int, len(hits))
	next := slices.Clone(starts[:len(starts)-1])
	for _, h := range hits {
		flat[next[h.bucket]] = int(h.gi)
		next[h.bucket]++
	}
	rx.groups = make([][7][]int, len(rx.xs))
	for n := range rx.groups {
		for wd := range 7 {
			b := 7*n + wd
			if starts[b] < starts[b+1] {
				rx.groups[n][wd] = flat[starts[b]:starts[b+1]:starts[b+1]]
			}
		}
	}

	// The dates, as (resource, date) packed in one integer to sort.
	var dated []uint64
	note := func(n int32, d Date) { dated = append(dated, uint64(n)<<32|uint64(uint32(d))) }
	noteRoom := func(id int64, d Date) {
		if n := roomNo.get(id); n >= 0 {
			note(n, d)
		}
	}
	notePeople := func(ids []int64, d Date) {
		people = people[:0]
		for _, id := range ids {
			if n := staffNo.get(id); n >= 0 && !slices.Contains(people, n) {
				people = append(people, n)
				note(n, d)
			}
		}
	}
	for d, cs := range ix.landing {
		for _, c := range cs {
			room, staff := t.changedTo(c)
			if room != 0 {
				noteRoom(room, d)
			}
			notePeople(staff, d)
		}
	}
	for i := range t.state.OneOffs {
		o := &t.state.OneOffs[i]
		if o.Cancelled {
			continue
		}
		noteRoom(o.RoomID, o.Date)
		notePeople(t.classes[o.ClassID].StaffIDs, o.Date)
	}
	for i := range t.state.RoomBookings {
		if b := &t.state.RoomBookings[i]; !b.Cancelled {
			noteRoom(b.RoomID, b.Date)
		}
	}
	slices.Sort(dated)
	dated = slices.Compact(dated)
	dates := make([]Date, len(dated))
	rx.dates = make([][]Date, len(rx.xs))
	for i := 0; i < len(dated); {
		n := dated[i] >> 32
		j := i
		for ; j < len(dated) && dated[j]>>32 == n; j++ {
			dates[j] = Date(int32(uint32(dated[j])))
		}
		rx.dates[n] = dates[i:j:j]
		i = j
	}
	return rx
}

func (t *Timetable) buildProofIndex() *proofIndex {
	ix := &proofIndex{
		staffKey: make(map[int64]string, len(t.staff)),
		landing:  make(map[Date][]*DayChange),
		closures: make(map[int64][]*Closure),
		rows:     make([]groupRow, len(t.groups)),
		staff:    make([]int64, 0, 2*len(t.groups)),
	}
	for id, p := range t.staff {
		ix.staffKey[id] = NameKey(p.Name)
	}
	for gi := range t.groups {
		g := &t.groups[gi]
		r := &ix.rows[gi]
		*r = groupRow{room: g.ct.RoomID, classTime: g.ct.ID, class: g.class.ID, start: g.ct.Start, weekday: int8(g.ct.Weekday),
			staff: int32(len(ix.staff))}
		if g.ct.Inactive {
			r.weekday = -1
		}
		ix.staff = append(ix.staff, g.class.StaffIDs...)
		r.staffEnd = int32(len(ix.staff))
	}
	// Each group's day changes, in the state's order: counted by group,
	// then placed (a counting sort, where a stable sort of a thousand
	// changes cost a write more than its proof).
	of := make([]int32, len(t.state.Changes)) // the group of each change, -1 for none
	end := make([]int32, len(t.groups)+1)     // counts, then where each group's changes end
	for i := range t.state.Changes {
		c := &t.state.Changes[i]
		of[i] = -1
		if gi, ok := t.groupOf[groupKey{c.Ref.ClassTimeID, c.Ref.ClassID}]; ok {
			of[i] = int32(gi)
			end[gi+1]++
		}
		if !c.Cancelled && affectsTimetable(c) {
			ix.landing[landsOn(c)] = append(ix.landing[landsOn(c)], c)
		}
	}
	for gi := range t.groups {
		end[gi+1] += end[gi]
		ix.rows[gi].changes, ix.rows[gi].changesEnd = end[gi], end[gi]
	}
	ix.changed = make([]*DayChange, end[len(t.groups)])
	for i, gi := range of {
		if gi >= 0 {
			r := &ix.rows[gi]
			ix.changed[r.changesEnd] = &t.state.Changes[i]
			r.changesEnd++
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
// from the group's own changes and its room's closures. The segments are
// laid out in slices the prover hands out in chunks; a series without
// pauses (the usual) is one leg, computed without asking for its legs.
func (p *prover) groupSegments(gi int) [][]segment {
	t, ix := p.t, p.t.proofIndex()
	g := &t.groups[gi]
	if g.ct.Inactive {
		return nil
	}
	removed := p.removed[:0]
	for _, c := range ix.changesOf(gi) {
		if !c.Cancelled && !affectsTimetable(c) || g.ct.Weekday != c.Ref.Date.Weekday() {
			continue
		}
		w := WeekOf(c.Ref.Date, t.ws)
		removed = append(removed, segment{from: w, to: w + 1})
	}
	removed = t.appendClosed(removed, g.ct.RoomID, g.ct.Weekday)
	var cuts []segment
	if len(removed) > 0 {
		cuts = mergeSorted(removed)
	}
	p.removed = removed
	out := p.takeLists(len(g.entries))
	for ei, e := range g.entries {
		buf := p.scratch[:0]
		r := e.rot
		if len(r.paused) == 0 {
			if s := (segment{from: max(r.anchor, p.w0), to: r.end, mod: r.cycle, res: mod(r.anchor+e.week-1, r.cycle)}); s.from < s.to {
				buf = appendCut(buf, s, cuts)
			}
		} else {
			for _, s := range r.segments(e.week) {
				s.from = max(s.from, p.w0)
				buf = appendCut(buf, s, cuts)
			}
		}
		p.scratch = buf
		out[ei] = p.takeSegments(buf)
	}
	return out
}

// appendClosed appends to out the weeks [from, to) in which a closure
// closes room on weekday wd.
func (t *Timetable) appendClosed(out []segment, room int64, wd time.Weekday) []segment {
	ix := t.proofIndex()
	if len(ix.allRooms)+len(ix.closures) == 0 {
		return out
	}
	for _, list := range [2][]*Closure{ix.allRooms, ix.closures[room]} {
		for _, c := range list {
			if from, to := weeksOn(c.From, c.To, wd, t.ws); from < to {
				out = append(out, segment{from: from, to: to})
			}
		}
	}
	return out
}

// mergeSorted merges ranges in place, as mergeRanges does, without the
// reflection of sort.Slice.
func mergeSorted(rs []segment) []segment {
	slices.SortFunc(rs, func(a, b segment) int { return cmp.Compare(a.from, b.from) })
	out := rs[:0]
	for _, r := range rs {
		if n := len(out); n > 0 && r.from <= out[n-1].to {
			out[n-1].to = max(out[n-1].to, r.to)
			continue
		}
		out = append(out, r)
	}
	return out
}

// proofChunk is how many segments (or lists of them) the prover allocates
// at once, at most.
const proofChunk = 1024

// chunkFor is the size of the chunks of a prover of t: the number of its
// entries, the lists a whole proof takes and about the segments, up to
// proofChunk, so that a small business's proof does not allocate and clear
// chunks ten times the size it fills.
func chunkFor(t *Timetable) int {
	n := 0
	for gi := range t.groups {
		if n += len(t.groups[gi].entries); n >= proofChunk {
			return proofChunk
		}
	}
	return max(n, 16)
}

// takeSegments copies s into the prover's current chunk of segments.
func (p *prover) takeSegments(s []segment) []segment {
	if len(s) == 0 {
		return nil
	}
	if cap(p.segChunk)-len(p.segChunk) < len(s) {
		p.segChunk = make([]segment, 0, max(p.chunk, len(s)))
	}
	n := len(p.segChunk)
	p.segChunk = append(p.segChunk, s...)
	return p.segChunk[n:len(p.segChunk):len(p.segChunk)]
}

// takeLists returns n empty lists of segments from the prover's current
// chunk.
func (p *prover) takeLists(n int) [][]segment {
	if cap(p.listChunk)-len(p.listChunk) < n {
		p.listChunk = make([][]segment, 0, max(p.chunk, n))
	}
	m := len(p.listChunk)
	p.listChunk = p.listChunk[:m+n]
	return p.listChunk[m : m+n : m+n]
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
	return t.prove(today, stop, t.everyResource(), nil)
}

// proveAlone is the number of resources below which a proof runs on one
// goroutine: fewer are not worth starting others for (a write's proof by
// Next proves a handful). A variable so that a test can send small
// businesses through the proof on goroutines.
var proveAlone = 256

// prove proves the resources of rx and takes every other resource's
// clashes from carry. Resources are independent, so a proof of many goes
// on as many goroutines as GOMAXPROCS allows: each proves the resources it
// takes and keeps their clashes by resource number, so the report is the
// same whichever goroutine proved what.
func (t *Timetable) prove(today Date, stop func() bool, rx *resourceIndex, carry map[resource][]Clash) (*Proof, error) {
	found := make([][]Clash, len(rx.xs))
	workers := min(runtime.GOMAXPROCS(0), len(rx.xs)/proveAlone)
	var err error
	if workers <= 1 {
		p := newProver(t, rx, today, stop)
		for n := range rx.xs {
			k := len(p.clashes)
			p.resourceClashes(n)
			if p.stopped {
				return nil, ErrStopped
			}
			found[n] = p.clashes[k:len(p.clashes):len(p.clashes)]
		}
	} else {
		err = t.proveOn(workers, today, stop, rx, found)
	}
	if err != nil {
		return nil, err
	}
	of := make(map[resource][]Clash, len(carry))
	for x, cs := range carry {
		of[x] = cs
	}
	for n, x := range rx.xs {
		delete(of, x)
		if len(found[n]) > 0 {
			of[x] = found[n]
		}
	}
	var all []Clash
	for _, cs := range of {
		all = append(all, cs...)
	}
	return &Proof{t: t, today: today, of: of, report: report(all)}, nil
}

func newProver(t *Timetable, rx *resourceIndex, today Date, stop func() bool) *prover {
	return &prover{t: t, rx: rx, today: today, w0: WeekOf(today, t.ws), found: map[string]*candidate{}, stop: stop,
		segs: make([][][]segment, len(t.groups)), live: make([]int8, len(t.groups)), chunk: chunkFor(t)}
}

// proveOn proves the resources of rx on n goroutines into found. First the
// segments of every group, each goroutine a stretch of the groups; then
// the resources, taken a few at a time. The provers share the segments,
// which no one writes once the first step is over, and ask stop one at a
// time.
func (t *Timetable) proveOn(n int, today Date, stop func() bool, rx *resourceIndex, found [][]Clash) error {
	if stop != nil {
		var mu sync.Mutex
		var said atomic.Bool
		caller := stop
		stop = func() bool {
			if said.Load() {
				return true
			}
			mu.Lock()
			defer mu.Unlock()
			if caller() {
				said.Store(true)
			}
			return said.Load()
		}
	}
	first := newProver(t, rx, today, stop)
	ps := make([]*prover, n)
	for i := range ps {
		p := *first
		p.found = map[string]*candidate{}
		ps[i] = &p
	}
	var wg sync.WaitGroup
	for i, p := range ps {
		wg.Go(func() {
			from, to := len(t.groups)*i/n, len(t.groups)*(i+1)/n
			for gi := from; gi < to && !p.halt(); gi++ {
				p.isLive(gi)
			}
		})
	}
	wg.Wait()
	const take = 16
	var next atomic.Int64
	for _, p := range ps {
		wg.Go(func() {
			for {
				from := int(next.Add(take)) - take
				if from >= len(rx.xs) || p.stopped {
					return
				}
				for r := from; r < min(from+take, len(rx.xs)); r++ {
					k := len(p.clashes)
					p.resourceClashes(r)
					if p.stopped {
						return
					}
					found[r] = p.clashes[k:len(p.clashes):len(p.clashes)]
				}
			}
		})
	}
	wg.Wait()
	for _, p := range ps {
		if p.stopped {
			return ErrStopped
		}
	}
	return nil
}

// isLive reports whether group gi yields a session in some week the
// periodic part reasons about, computing its segments on first use.
func (p *prover) isLive(gi int) bool {
	if p.live[gi] == 0 {
		p.live[gi] = 2
		p.segs[gi] = p.groupSegments(gi)
		for _, s := range p.segs[gi] {
			if len(s) > 0 {
				p.live[gi] = 1
				break
			}
		}
	}
	return p.live[gi] == 1
}

// resourceClashes appends the clashes of resource number n of p.rx to
// p.clashes.
func (p *prover) resourceClashes(n int) {
	t := p.t
	x := p.rx.xs[n]
	clear(p.found)
	gs := &p.rx.groups[n]
	for wd := range gs {
		live := p.liveBuf[:0]
		for _, gi := range gs[wd] {
			if p.isLive(gi) {
				live = append(live, gi)
			}
		}
		p.liveBuf = live
		if len(live) == 0 {
			continue
		}
		if x.person == "" {
			p.roomLive(x.room, time.Weekday(wd), live)
		} else {
			p.personLive(live, x.person)
		}
	}
	if len(p.found) > 0 {
		p.solveFound()
	}
	dates := p.rx.dates[n]
	from := WeekStartDay(p.w0, t.ws)
	for _, d := range dates[sort.Search(len(dates), func(i int) bool { return dates[i] >= from }):] {
		if p.halt() {
			return
		}
		p.datedIn(n, d)
	}
}

// roomLive finds the sets of live groups of one room and weekday that
// could overload it, as roomCandidates does for every room. Groups that
// are one at a time in a room with one level all day (its capacity, or a
// weekly rule from 00:00 to 24:00) that each fits cannot overload it: that
// is the usual case, seen from the starts alone, and it costs no
// allocation.
func (p *prover) roomLive(room int64, wd time.Weekday, live []int) {
	t := p.t
	spans := p.spans[:0]
	for _, gi := range live {
		g := &t.groups[gi]
		spans = append(spans, span{start: g.ct.Start, end: occupiedUntil(g.ct.End, g.ct.Buffer), units: g.units, whole: g.ct.Units == 0, id: gi})
	}
	p.spans = spans
	add := func(members []int, rg *regime) {
		p.add(&candidate{kind: RoomClash, resource: strconv.FormatInt(room, 10), room: room, members: members,
			allow: rg.allow, regime: rg.name})
	}
	l := t.levels[room]
	if ls := l.weekly[wd]; !l.overrides && len(ls) == 1 && ls[0].From <= 0 && ls[0].To >= int64(EndOfDay) && ls[0].Units >= 1 &&
		!slices.ContainsFunc(spans, func(s span) bool { return !s.whole && s.units > ls[0].Units }) {
		// One level all day that each fits: one at a time never overloads.
		if apart(spans) {
			return
		}
		// Sessions that take the whole room need all of it, so two that
		// overlap are the minimal overloads, and only they.
		if !slices.ContainsFunc(spans, func(s span) bool { return !s.whole }) {
			rg := &regime{levels: ls}
			var pair [2]int
			overlappingPairs(spans, func(a, b int) {
				pair[0], pair[1] = min(a, b), max(a, b)
				if p.meets(pair[:], nil) {
					add([]int{pair[0], pair[1]}, rg)
				}
			})
			return
		}
	}
	for _, rg := range p.regimes(room, wd) {
		overloads(spans, rg.levels, p.halt, func(members []int) {
			if p.meets(members, rg.allow) {
				add(members, &rg)
			}
		})
	}
}

// apart reports whether spans sorted by start never overlap.
func apart(spans []span) bool {
	var end LocalTime
	for i, s := range spans {
		if i > 0 && s.start < end {
			return false
		}
		end = max(end, s.end)
	}
	return true
}

// personLive finds the pairs of live groups of one weekday, every one of
// which the person with key person is in, that overlap, as
// staffCandidates does for every person.
func (p *prover) personLive(live []int, person string) {
	t := p.t
	spans := p.spans[:0]
	for _, gi := range live {
		g := &t.groups[gi]
		spans = append(spans, span{start: g.ct.Start, end: g.ct.End, id: gi})
	}
	p.spans = spans
	if apart(spans) {
		return
	}
	// The name shown is the first live group's (staffCandidates's).
	ix := t.proofIndex()
	name := ""
	for _, id := range t.groups[live[0]].class.StaffIDs {
		if ix.staffKey[id] == person {
			name = t.staff[id].Name
			break
		}
	}
	var pair [2]int
	overlappingPairs(spans, func(a, b int) {
		pair[0], pair[1] = min(a, b), max(a, b)
		if p.meets(pair[:], nil) {
			p.add(&candidate{kind: StaffClash, resource: person, staff: name, members: []int{pair[0], pair[1]}})
		}
	})
}

// datedIn reports the clashes of resource number n of p.rx on date d that
// involve something dated, as dated does for the whole day.
func (p *prover) datedIn(n int, d Date) {
	t, ix := p.t, p.t.proofIndex()
	x := p.rx.xs[n]
	sessions := t.resourceDay(p.dayBuf[:0], p.rx, n, d)
	p.dayBuf = sessions
	dated := func(m int) bool {
		if m >= len(sessions) {
			return true // a room booking
		}
		s := &sessions[m]
		return s.IsOneOff() || s.Changed
	}
	if !slices.ContainsFunc(sessions, func(s Session) bool { return !s.Cancelled && (s.IsOneOff() || s.Changed) }) &&
		(x.person != "" || !slices.ContainsFunc(t.bookings[d], func(b *RoomBooking) bool { return b.RoomID == x.room && !b.Cancelled })) {
		return // nothing dated is left on the date: what is, is the periodic part's
	}
	found := func(kind ClashKind, resource, staff string, members []int) {
		if slices.ContainsFunc(members, dated) {
			p.emitDated(d, sessions, nil, kind, resource, staff, members)
		}
	}
	if x.person != "" {
		spans := p.spans[:0]
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
		p.spans = spans
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
	spans := p.spans[:0]
	for i := range sessions {
		if s := &sessions[i]; !s.Cancelled {
			spans = append(spans, span{start: s.Start, end: occupiedUntil(s.End, int(s.Buffer)), units: int(s.Units), whole: t.takesWholeRoom(s), id: i})
		}
	}
	for i, b := range bookings {
		spans = append(spans, span{start: b.Start, end: b.End, units: t.units(b.Units, b.RoomID), whole: b.Units == 0, id: len(sessions) + i})
	}
	p.spans = spans
	overloads(spans, t.dayLevels(x.room, d), p.halt, func(members []int) {
		if slices.ContainsFunc(members, dated) {
			p.emitDated(d, sessions, bookings, RoomClash, "", "", members)
		}
	})
}

// resourceDay appends to out the sessions of date d in resource number n
// of rx, as Day resolves them and in its order, but without resolving the
// rest of the day.
func (t *Timetable) resourceDay(out []Session, rx *resourceIndex, n int, d Date) []Session {
	ix := t.proofIndex()
	x := rx.xs[n]
	w := WeekOf(d, t.ws)
	mine := rx.groups[n][d.Weekday()]
	xd := t.dated[d]
	for _, gi := range mine {
		g := &t.groups[gi]
		weeks := g.activeIn(w)
		if weeks == nil {
			continue
		}
		s := t.regular(g, d, weeks)
		if c := xd.change(t, s.Ref()); c != nil {
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
