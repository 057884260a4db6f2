package engine

import (
	"cmp"
	"maps"
	"slices"
)

// Next validates s, a later revision of the state t was built from, and
// compiles it, doing again only what the rows that differ between the two
// reach: it returns exactly what New(s) returns, the same error or a
// timetable that answers the same (TestNextEqualsNew checks it over
// thousands of random edits, invalid ones too), at a cost that grows with
// the change rather than the business.
//
// It relies on t's state having been valid. A change to the business's
// settings, its rooms, series, closures, capacity rules, plans, clients or
// subscriptions, the removal of a staff member, an activity or a class, or
// a rename of either, reaches too far to follow: Next then validates and
// compiles s whole, as New does. So it does when the rows it checks find
// a problem, for the error to list every problem of s in New's order.
func (t *Timetable) Next(s State) (*Timetable, error) {
	d := diffStates(&t.state, &s)
	if !d.local {
		return New(s)
	}
	n := t.lookups(s, d)
	if !n.validAfter(t, d) {
		if err := Validate(s); err != nil {
			return nil, err
		}
		return compile(s), nil
	}
	if !n.compileAfter(t, d) {
		return compile(s), nil
	}
	return n, nil
}

// ValidateNext is Validate(s) for s, a later revision of the state t was
// built from: it checks only what the difference reaches (see Next).
func (t *Timetable) ValidateNext(s State) error {
	_, err := t.Check(s)
	return err
}

// rowPair is a row that differs between two revisions: was is nil for a
// row added, is for a row removed.
type rowPair[T any] struct{ was, is *T }

// pairsOf returns the rows that differ between before and after, found by
// key. Rows in the same places at the start and at the end of both, as an
// edited copy has them, are compared without a map, so the cost is a
// comparison a row and a map entry for each row in between.
func pairsOf[T any, K comparable](before, after []T, key func(*T) K, same func(a, b *T) bool) []rowPair[T] {
	var out []rowPair[T]
	n := min(len(before), len(after))
	i := 0
	for ; i < n && key(&before[i]) == key(&after[i]); i++ {
		if !same(&before[i], &after[i]) {
			out = append(out, rowPair[T]{&before[i], &after[i]})
		}
	}
	bj, aj := len(before), len(after)
	for bj > i && aj > i && key(&before[bj-1]) == key(&after[aj-1]) {
		bj, aj = bj-1, aj-1
		if !same(&before[bj], &after[aj]) {
			out = append(out, rowPair[T]{&before[bj], &after[aj]})
		}
	}
	if i == bj && i == aj {
		return out
	}
	was := make(map[K]*T, bj-i)
	for j := i; j < bj; j++ {
		was[key(&before[j])] = &before[j]
	}
	for j := i; j < aj; j++ {
		row := &after[j]
		k := key(row)
		if old, ok := was[k]; ok {
			delete(was, k)
			if !same(old, row) {
				out = append(out, rowPair[T]{old, row})
			}
			continue
		}
		out = append(out, rowPair[T]{nil, row})
	}
	for j := i; j < bj; j++ { // what is left, in before's order
		if old, ok := was[key(&before[j])]; ok && old == &before[j] {
			out = append(out, rowPair[T]{old, nil})
		}
	}
	return out
}

// sameKeys reports whether two lists hold rows of the same keys in the
// same order.
func sameKeys[T any, K comparable](a, b []T, key func(*T) K) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if key(&a[i]) != key(&b[i]) {
			return false
		}
	}
	return true
}

func eq[T comparable](a, b *T) bool { return *a == *b }

func sameList[T comparable](a, b []T) bool { return slices.Equal(a, b) && (a == nil) == (b == nil) }

// stateDiff is what differs between two revisions of a state, row by row.
type stateDiff struct {
	// local: nothing differs that Next does not follow.
	local bool

	staff      []rowPair[Staff]
	activities []rowPair[Activity]
	classes    []rowPair[Class]
	classTimes []rowPair[ClassTime]
	entries    []rowPair[Entry]
	oneOffs    []rowPair[OneOff]
	changes    []rowPair[DayChange]
	bookings   []rowPair[RoomBooking]
	// redated: the day changes, one-offs or room bookings differ, or stand
	// in another order (which the lists of a date keep).
	redated [3]bool
	// standing: the standing places or their skipped dates differ. They
	// make no session: only their own rules are checked again.
	standing bool
}

func diffStates(a, b *State) *stateDiff {
	d := &stateDiff{}
	ab, bb := a.Business, b.Business
	if ab.Kind != bb.Kind || ab.Name != bb.Name || ab.Currency != bb.Currency || ab.WeekStart != bb.WeekStart || ab.Locale != bb.Locale ||
		ab.Location != bb.Location {
		return d
	}
	if len(pairsOf(a.Rooms, b.Rooms, func(r *Room) int64 { return r.ID }, eq)) > 0 ||
		len(pairsOf(a.Series, b.Series, func(r *Series) int64 { return r.ID }, eq)) > 0 ||
		len(pairsOf(a.Plans, b.Plans, func(r *Plan) int64 { return r.ID }, eq)) > 0 ||
		len(pairsOf(a.Clients, b.Clients, func(r *Client) int64 { return r.ID }, eq)) > 0 ||
		len(pairsOf(a.Subscriptions, b.Subscriptions, func(r *Subscription) int64 { return r.ID }, eq)) > 0 ||
		len(pairsOf(a.Closures, b.Closures, func(r *Closure) int64 { return r.ID }, func(x, y *Closure) bool {
			return x.ID == y.ID && x.From == y.From && x.To == y.To && x.Reason == y.Reason && x.Pause == y.Pause && sameList(x.RoomIDs, y.RoomIDs)
		})) > 0 ||
		len(pairsOf(a.Capacity, b.Capacity, func(r *CapacityRule) int64 { return r.ID }, func(x, y *CapacityRule) bool {
			return x.ID == y.ID && x.RoomID == y.RoomID && x.From == y.From && x.To == y.To && x.Start == y.Start && x.End == y.End &&
				x.Units == y.Units && sameList(x.Weekdays, y.Weekdays)
		})) > 0 {
		return d
	}
	d.staff = pairsOf(a.Staff, b.Staff, func(r *Staff) int64 { return r.ID }, eq)
	d.activities = pairsOf(a.Activities, b.Activities, func(r *Activity) int64 { return r.ID }, eq)
	d.classes = pairsOf(a.Classes, b.Classes, func(r *Class) int64 { return r.ID }, func(x, y *Class) bool {
		return x.ID == y.ID && x.ActivityID == y.ActivityID && sameList(x.StaffIDs, y.StaffIDs)
	})
	for _, p := range d.staff {
		if p.was != nil {
			return d // a rename changes classes' keys; a removal, what they name
		}
	}
	for _, p := range d.activities {
		if p.was != nil {
			return d
		}
	}
	for _, p := range d.classes {
		if p.is == nil {
			return d
		}
	}
	d.classTimes = pairsOf(a.ClassTimes, b.ClassTimes, func(r *ClassTime) int64 { return r.ID }, eq)
	d.entries = pairsOf(a.Entries, b.Entries, func(r *Entry) int64 { return r.ID }, eq)
	d.oneOffs = pairsOf(a.OneOffs, b.OneOffs, func(r *OneOff) int64 { return r.ID }, func(x, y *OneOff) bool {
		return x.ID == y.ID && sameOneOff(x, y) && sameList(x.ClientIDs, y.ClientIDs)
	})
	d.changes = pairsOf(a.Changes, b.Changes, changeKey, sameChange)
	d.bookings = pairsOf(a.RoomBookings, b.RoomBookings, func(r *RoomBooking) int64 { return r.ID }, eq)
	d.standing = len(pairsOf(a.Standing, b.Standing, func(r *Standing) int64 { return r.ID }, eq)) > 0 ||
		len(pairsOf(a.StandingSkips, b.StandingSkips, func(r *StandingSkip) int64 { return r.ID }, eq)) > 0
	d.redated = [3]bool{len(d.changes) > 0 || !sameKeys(a.Changes, b.Changes, changeKey),
		len(d.oneOffs) > 0 || !sameKeys(a.OneOffs, b.OneOffs, func(r *OneOff) int64 { return r.ID }),
		len(d.bookings) > 0 || !sameKeys(a.RoomBookings, b.RoomBookings, func(r *RoomBooking) int64 { return r.ID })}
	// Checks below compare each changed row with every row of its table;
	// a change of many rows goes the whole way.
	if len(d.classes) > maxLocal || len(d.classTimes) > maxLocal || len(d.entries) > maxLocal || len(d.oneOffs) > maxLocal ||
		len(d.changes) > maxLocal || len(d.bookings) > maxLocal || len(d.staff) > maxLocal || len(d.activities) > maxLocal {
		return d
	}
	d.local = true
	return d
}

// maxLocal is the most rows of one table a change Next follows may touch.
const maxLocal = 64

// lookups starts the timetable of s from t: its maps by id are t's, with
// the rows d changes replaced. A changed row is copied on its own, so that
// a map never keeps a whole revision's list alive for one row of it.
func (t *Timetable) lookups(s State, d *stateDiff) *Timetable {
	return &Timetable{
		state: s, ws: t.ws,
		rooms: t.rooms, series: t.series, rot: t.rot,
		staff:      patched(t.staff, d.staff, func(r *Staff) int64 { return r.ID }),
		activities: patched(t.activities, d.activities, func(r *Activity) int64 { return r.ID }),
		classes:    patched(t.classes, d.classes, func(r *Class) int64 { return r.ID }),
		classTimes: patched(t.classTimes, d.classTimes, func(r *ClassTime) int64 { return r.ID }),
	}
}

func patched[T any](m map[int64]*T, ps []rowPair[T], id func(*T) int64) map[int64]*T {
	if len(ps) == 0 {
		return m
	}
	m = maps.Clone(m)
	for _, p := range ps {
		if p.is == nil {
			delete(m, id(p.was))
		}
	}
	for _, p := range ps {
		if p.is != nil {
			v := *p.is
			if c, ok := any(&v).(*Class); ok {
				// Its own staff list: the state's shares one array
				// with every class (State.Clone).
				c.StaffIDs = slices.Clone(c.StaffIDs)
			}
			m[id(&v)] = &v
		}
	}
	return m
}

// validAfter reports whether n's state, t's with the changes d, is valid:
// t's was, so only the rows d changes and what refers to them can break a
// rule. False may mean only that a problem was found; Validate then says
// which.
func (n *Timetable) validAfter(t *Timetable, d *stateDiff) bool {
	s := &n.state
	v := validator{s: s, words: Words(s.Business.Kind), rooms: n.rooms, staff: n.staff, activities: n.activities,
		classes: n.classes, classTimes: n.classTimes, series: n.series}
	v.peaks()
	// Ids: a row added under an id its table held before, or under one
	// another added row takes, is a second row with that id.
	if !newIDs(d.staff, t.staff, func(r *Staff) int64 { return r.ID }) ||
		!newIDs(d.activities, t.activities, func(r *Activity) int64 { return r.ID }) ||
		!newIDs(d.classes, t.classes, func(r *Class) int64 { return r.ID }) ||
		!newIDs(d.classTimes, t.classTimes, func(r *ClassTime) int64 { return r.ID }) ||
		!newIDs(d.changes, t.changes, changeKey) ||
		!onceEach(d.entries, s.Entries, func(r *Entry) int64 { return r.ID }) ||
		!onceEach(d.oneOffs, s.OneOffs, func(r *OneOff) int64 { return r.ID }) ||
		!onceEach(d.bookings, s.RoomBookings, func(r *RoomBooking) int64 { return r.ID }) {
		return false
	}
	for _, p := range d.staff {
		v.checkStaff(*p.is)
	}
	for _, p := range d.activities {
		a := p.is
		v.checkActivity(*a)
		k := NameKey(a.Name)
		if k == "" {
			return false
		}
		for i := range s.Activities {
			if o := &s.Activities[i]; o.ID != a.ID && NameKey(o.Name) == k {
				return false
			}
		}
	}
	if !v.classesAfter(d) {
		return false
	}
	// A class time removed must be named by nothing; one changed re-checks
	// the day changes of its sessions (their times may lean on its own).
	var gone, edited []int64
	for _, p := range d.classTimes {
		switch {
		case p.is == nil:
			gone = append(gone, p.was.ID)
		case p.was != nil:
			edited = append(edited, p.is.ID)
		}
		if p.is != nil {
			v.checkClassTime(*p.is)
		}
	}
	if len(gone) > 0 {
		for i := range s.Entries {
			if slices.Contains(gone, s.Entries[i].ClassTimeID) {
				return false
			}
		}
	}
	for _, p := range d.entries {
		if p.is != nil {
			v.checkEntry(*p.is)
		}
	}
	if !v.slotsOnce(d) {
		return false
	}
	for i := range s.Changes {
		c := &s.Changes[i]
		if slices.Contains(gone, c.Ref.ClassTimeID) {
			return false
		}
		if slices.Contains(edited, c.Ref.ClassTimeID) {
			ct, ok := v.checkChangeRef(*c)
			v.checkChangeRest(*c, ct, ok)
		}
	}
	for _, p := range d.changes {
		if p.is != nil {
			ct, ok := v.checkChangeRef(*p.is)
			v.checkChangeRest(*p.is, ct, ok)
		}
	}
	for _, p := range d.oneOffs {
		if p.is != nil && len(p.is.ClientIDs) > 0 && v.clients == nil {
			v.clients = make(map[int64]*Client, len(s.Clients))
			for i := range s.Clients {
				v.clients[s.Clients[i].ID] = &s.Clients[i]
			}
		}
		if p.is != nil {
			v.checkOneOff(*p.is)
		}
	}
	for _, p := range d.bookings {
		if p.is != nil {
			v.checkRoomBooking(*p.is)
		}
	}
	if d.standing || (len(gone) > 0 && len(s.Standing) > 0) {
		v.checkStanding()
	}
	// Time off and working hours are few and refer to staff alone: they
	// are checked whole.
	v.checkCover()
	v.checkQualifications()
	return len(v.problems) == 0
}

// newIDs reports whether the rows ps adds take ids (non-zero ones) that
// neither before (the ids of the revision before) nor another added row
// holds.
func newIDs[T any, K comparable](ps []rowPair[T], before map[K]*T, key func(*T) K) bool {
	var zero K
	var added []K
	for _, p := range ps {
		if p.is == nil {
			continue
		}
		k := key(p.is)
		if k == zero {
			return false
		}
		if p.was != nil {
			continue
		}
		if _, ok := before[k]; ok || slices.Contains(added, k) {
			return false
		}
		added = append(added, k)
	}
	return true
}

// onceEach reports whether the ids of the rows ps adds or changes are
// non-zero and held by one row of rows each.
func onceEach[T any](ps []rowPair[T], rows []T, id func(*T) int64) bool {
	var ids []int64
	for _, p := range ps {
		if p.is != nil {
			if id(p.is) == 0 {
				return false
			}
			ids = append(ids, id(p.is))
		}
	}
	if len(ids) == 0 {
		return true
	}
	seen := make([]int, len(ids))
	for i := range rows {
		k := id(&rows[i])
		for j, x := range ids {
			if x == k {
				if seen[j]++; seen[j] > 1 {
					return false
				}
			}
		}
	}
	return true
}

// slotsOnce reports whether no entry added or changed takes the slot (a
// series' class time in a week) of another.
func (v *validator) slotsOnce(d *stateDiff) bool {
	type slot struct {
		series, classTime int64
		week              int
	}
	var slots []slot
	for _, p := range d.entries {
		if e := p.is; e != nil {
			slots = append(slots, slot{e.SeriesID, e.ClassTimeID, e.Week})
		}
	}
	if len(slots) == 0 {
		return true
	}
	seen := make([]int, len(slots))
	for i := range v.s.Entries {
		e := &v.s.Entries[i]
		k := slot{e.SeriesID, e.ClassTimeID, e.Week}
		for j, x := range slots {
			if x == k {
				if seen[j]++; seen[j] > 1 {
					return false
				}
			}
		}
	}
	return true
}

// classesAfter checks the classes d adds or changes, and that no other
// class has the activity and the staff of one of them.
func (v *validator) classesAfter(d *stateDiff) bool {
	if len(d.classes) == 0 {
		return true
	}
	v.staffKey = map[int64]string{}
	key := func(id int64) string {
		k, ok := v.staffKey[id]
		if !ok {
			if p := v.staff[id]; p != nil {
				k = NameKey(p.Name)
			}
			v.staffKey[id] = k
		}
		return k
	}
	for _, p := range d.classes {
		for _, id := range p.is.StaffIDs {
			key(id)
		}
	}
	for _, p := range d.classes {
		c := p.is
		k, ok := v.checkClass(c)
		if !ok {
			continue
		}
		for i := range v.s.Classes {
			o := &v.s.Classes[i]
			if o.ID == c.ID || o.ActivityID != c.ActivityID || len(o.StaffIDs) != len(c.StaffIDs) {
				continue
			}
			for _, id := range o.StaffIDs {
				key(id)
			}
			if ok, ko := v.checkClassQuiet(o); ok && ko == k {
				return false
			}
		}
	}
	return true
}

// checkClassQuiet is checkClass's key of a class already checked.
func (v *validator) checkClassQuiet(c *Class) (bool, string) {
	n := len(v.problems)
	k, ok := v.checkClass(c)
	v.problems = v.problems[:n]
	return ok, k
}

// compileAfter compiles n's state from t's timetable, sharing every part
// the changes d do not reach. It returns false when a change moves a
// series' rotation (a room newly used under a pausing closure): s is then
// compiled whole.
func (n *Timetable) compileAfter(t *Timetable, d *stateDiff) bool {
	n.closures, n.rules, n.levels = t.closures, t.rules, t.levels
	if !n.rotationsKept(t, d) {
		return false
	}
	n.groupsAfter(t, d)
	n.changes, n.byOrigin, n.movedIn, n.oneOffs, n.bookings = t.changes, t.byOrigin, t.movedIn, t.oneOffs, t.bookings
	if d.redated[0] {
		n.compileChanges()
	}
	if d.redated[1] {
		n.compileOneOffs()
	}
	if d.redated[2] {
		n.compileBookings()
	}
	n.dated = t.dated
	if d.redated[0] || d.redated[1] {
		n.buildDated()
	}
	return true
}

// rotationsKept reports whether every series' rotation stays what t
// worked out: a rotation pauses only for closures of every room its
// series uses, so it can move only when entries or class times change
// with a pausing closure in place.
func (n *Timetable) rotationsKept(t *Timetable, d *stateDiff) bool {
	if !slices.ContainsFunc(n.closures, func(c *Closure) bool { return c.Pause }) {
		return true
	}
	var touched, cts []int64 // series, class times
	for _, p := range d.classTimes {
		if p.was != nil && (p.is == nil || p.is.RoomID != p.was.RoomID) {
			cts = append(cts, p.was.ID)
		}
	}
	for _, p := range d.entries {
		for _, e := range []*Entry{p.was, p.is} {
			if e != nil && !slices.Contains(touched, e.SeriesID) {
				touched = append(touched, e.SeriesID)
			}
		}
	}
	s := &n.state
	if len(cts) > 0 {
		for i := range s.Entries {
			if e := &s.Entries[i]; slices.Contains(cts, e.ClassTimeID) && !slices.Contains(touched, e.SeriesID) {
				touched = append(touched, e.SeriesID)
			}
		}
	}
	if len(touched) == 0 {
		return true
	}
	rooms := map[int64]map[int64]bool{}
	for i := range s.Entries {
		e := &s.Entries[i]
		if slices.Contains(touched, e.SeriesID) {
			if rooms[e.SeriesID] == nil {
				rooms[e.SeriesID] = map[int64]bool{}
			}
			rooms[e.SeriesID][n.classTimes[e.ClassTimeID].RoomID] = true
		}
	}
	for _, id := range touched {
		sr := n.series[id]
		if sr == nil {
			continue
		}
		if !sameRotation(RotationOf(sr, n.closures, rooms[id], n.ws), t.rot[id]) {
			return false
		}
	}
	return true
}

// groupsAfter builds n's groups from t's: the groups the changed entries,
// class times and classes reach are built again from n's entries, the
// others are t's, and all keep the order compile gives them (by their
// first entry), so that the numbers of two groups compare as they would.
func (n *Timetable) groupsAfter(t *Timetable, d *stateDiff) {
	hit := map[groupKey]bool{}
	for _, p := range d.entries {
		for _, e := range []*Entry{p.was, p.is} {
			if e != nil {
				hit[groupKey{e.ClassTimeID, e.ClassID}] = true
			}
		}
	}
	var cts, classes []int64
	for _, p := range d.classTimes {
		if p.was != nil {
			cts = append(cts, p.was.ID)
		}
	}
	for _, p := range d.classes {
		if p.was != nil {
			classes = append(classes, p.was.ID)
		}
	}
	if len(cts)+len(classes) > 0 {
		for gi := range t.groups {
			g := &t.groups[gi]
			if slices.Contains(cts, g.ct.ID) || slices.Contains(classes, g.class.ID) {
				hit[groupKey{g.ct.ID, g.class.ID}] = true
			}
		}
	}
	if len(hit) == 0 {
		n.groups, n.groupOf, n.byWeekday, n.dayOrder, n.weekTotal = t.groups, t.groupOf, t.byWeekday, t.dayOrder, t.weekTotal
		return
	}

	// The groups hit, built again from their entries.
	var hitCTs []int64
	for k := range hit {
		if !slices.Contains(hitCTs, k.classTime) {
			hitCTs = append(hitCTs, k.classTime)
		}
	}
	byKey := map[groupKey][]Entry{}
	s := &n.state
	for i := range s.Entries {
		e := &s.Entries[i]
		if !slices.Contains(hitCTs, e.ClassTimeID) {
			continue
		}
		if k := (groupKey{e.ClassTimeID, e.ClassID}); hit[k] {
			byKey[k] = append(byKey[k], *e)
		}
	}
	fresh := make([]group, 0, len(byKey))
	for k, es := range byKey {
		slices.SortFunc(es, func(a, b Entry) int {
			return cmp.Or(cmp.Compare(a.SeriesID, b.SeriesID), cmp.Compare(a.Week, b.Week), cmp.Compare(a.ID, b.ID))
		})
		g := group{ct: n.classTimes[k.classTime], class: n.classes[k.class]}
		for _, e := range es {
			sr := n.series[e.SeriesID]
			g.entries = append(g.entries, groupEntry{series: sr, rot: n.rot[e.SeriesID], week: e.Week})
			g.weeks = append(g.weeks, SeriesWeek{SeriesID: sr.ID, Week: e.Week, Cycle: sr.Cycle})
		}
		g.weeks = slices.Clip(g.weeks)
		g.setEvery()
		g.units = n.units(g.ct.Units, g.ct.RoomID)
		fresh = append(fresh, g)
	}
	slices.SortFunc(fresh, func(a, b group) int { return groupOrder(&a, &b) })

	// Merge them with the groups kept, both in order; old numbers map to
	// new ones, and both keep their order.
	n.groups = make([]group, 0, len(t.groups)-len(hit)+len(fresh)+1)
	renum := make([]int, len(t.groups)) // -1: dropped
	var added []int
	f, run := 0, 0         // the next fresh group; the first kept group not yet in
	keep := func(to int) { // the kept groups from run up to to, in one copy
		for gi := run; gi < to; gi++ {
			renum[gi] = len(n.groups) + gi - run
		}
		n.groups = append(n.groups, t.groups[run:to]...)
		run = to
	}
	for gi := range t.groups {
		g := &t.groups[gi]
		if slices.Contains(hitCTs, g.ct.ID) && hit[groupKey{g.ct.ID, g.class.ID}] {
			keep(gi)
			renum[gi], run = -1, gi+1
			continue
		}
		if f < len(fresh) && groupOrder(&fresh[f], g) < 0 {
			keep(gi)
			for ; f < len(fresh) && groupOrder(&fresh[f], g) < 0; f++ {
				added = append(added, len(n.groups))
				n.groups = append(n.groups, fresh[f])
			}
		}
	}
	keep(len(t.groups))
	for ; f < len(fresh); f++ {
		added = append(added, len(n.groups))
		n.groups = append(n.groups, fresh[f])
	}
	if len(n.groups) == 0 {
		n.groups = nil
	}
	// t's numbers, changed where a group moved.
	n.groupOf = maps.Clone(t.groupOf)
	for k := range hit {
		delete(n.groupOf, k)
	}
	for gi, x := range renum {
		if x >= 0 && x != gi {
			g := &t.groups[gi]
			n.groupOf[groupKey{g.ct.ID, g.class.ID}] = x
		}
	}
	for _, gi := range added {
		g := &n.groups[gi]
		n.groupOf[groupKey{g.ct.ID, g.class.ID}] = gi
	}
	byStart := func(a, b int) int {
		return cmp.Or(cmp.Compare(n.groups[a].ct.Start, n.groups[b].ct.Start), cmp.Compare(a, b))
	}
	byDay := func(a, b int) int { return cmp.Or(daySort(&n.groups[a], &n.groups[b]), cmp.Compare(a, b)) }
	for wd := range n.byWeekday {
		n.byWeekday[wd] = relist(t.byWeekday[wd], renum, added, n.groups, wd, byStart)
		n.dayOrder[wd] = relist(t.dayOrder[wd], renum, added, n.groups, wd, byDay)
		n.weekTotal += len(n.dayOrder[wd])
	}
}

// groupOrder orders groups as compile numbers them: by their first entry's
// series, week, class time and class.
func groupOrder(a, b *group) int {
	x, y := &a.entries[0], &b.entries[0]
	return cmp.Or(cmp.Compare(x.series.ID, y.series.ID), cmp.Compare(x.week, y.week), cmp.Compare(a.ct.ID, b.ct.ID), cmp.Compare(a.class.ID, b.class.ID))
}

// relist renumbers a weekday's list of groups, drops the groups no longer
// in it and places the added groups of active class times on the weekday
// by order.
func relist(old, renum, added []int, groups []group, wd int, order func(a, b int) int) []int {
	out := make([]int, 0, len(old)+len(added))
	for _, gi := range old {
		if x := renum[gi]; x >= 0 {
			out = append(out, x)
		}
	}
	for _, gi := range added {
		if ct := groups[gi].ct; ct.Inactive || int(ct.Weekday) != wd {
			continue
		}
		i, _ := slices.BinarySearchFunc(out, gi, order)
		out = slices.Insert(out, i, gi)
	}
	if len(out) == 0 {
		return nil
	}
	return out
}
