package engine

import (
	"cmp"
	"slices"
)

// Step is a later revision of a timetable's state, checked against the
// timetable (Timetable.Check): the difference between the two states is
// found once and carried through the rest of a write, which used to find
// it again at each turn — the state as the database saved it (Saved), the
// new timetable (Timetable), the dates the write changes (ChangedRange)
// and the clash proof (Proof.Step). Each answers exactly what its
// counterpart on whole states answers: New, ChangedRange and the full
// proof stay the oracles (TestNextEqualsNew, TestProofNextEqualsFull).
type Step struct {
	t *Timetable
	s State
	// d is the difference when Next can follow it; nil when the states
	// differ further (s was validated whole and is compiled whole), or
	// when Saved could not find a changed row again (the difference is
	// then found anew).
	d     *stateDiff
	again bool // Saved lost the difference: Timetable is t.Next(s)
	keys  stepKeys
	n     *Timetable // built by Timetable
}

// stepKeys are the keys the rows a difference adds or changes had when
// it was checked: a save may rewrite their ids and reorder their lists.
type stepKeys struct {
	staff, activities, classes, classTimes, entries, oneOffs, bookings []int64
	changes                                                            []SessionRef
}

// Check validates s, a later revision of the state t was built from,
// as ValidateNext does, and returns the step to it.
func (t *Timetable) Check(s State) (*Step, error) {
	d := diffStates(&t.state, &s)
	if d.local {
		if n := t.lookups(s, d); n.validAfter(t, d) {
			st := &Step{t: t, s: s, d: d}
			st.pin()
			return st, nil
		}
	}
	// Beyond what Next follows, or a problem found: Validate says which.
	if err := Validate(s); err != nil {
		return nil, err
	}
	return &Step{t: t, s: s}, nil
}

// pin records the keys of the rows the difference adds or changes.
func (st *Step) pin() {
	d, k := st.d, &st.keys
	k.staff = keysOf(d.staff, func(r *Staff) int64 { return r.ID })
	k.activities = keysOf(d.activities, func(r *Activity) int64 { return r.ID })
	k.classes = keysOf(d.classes, func(r *Class) int64 { return r.ID })
	k.classTimes = keysOf(d.classTimes, func(r *ClassTime) int64 { return r.ID })
	k.entries = keysOf(d.entries, func(r *Entry) int64 { return r.ID })
	k.oneOffs = keysOf(d.oneOffs, func(r *OneOff) int64 { return r.ID })
	k.bookings = keysOf(d.bookings, func(r *RoomBooking) int64 { return r.ID })
	k.changes = keysOf(d.changes, changeKey)
}

func keysOf[T any, K any](ps []rowPair[T], key func(*T) K) []K {
	out := make([]K, len(ps))
	for i, p := range ps {
		if p.is != nil {
			out[i] = key(p.is)
		}
	}
	return out
}

// Saved tells the step the form its state was saved in: the state
// checked with every temporary id replaced (id returns a row's saved id)
// and put in canonical form, as models.SaveState leaves it. The rows the
// difference holds are found again in s by their keys (s's lists are in
// canonical order, so by a binary search each), and rows a save made
// equal to their revision before drop out of it. Nothing is validated
// again: a save renames new rows and puts lists in order, which no rule
// reads.
func (st *Step) Saved(s State, id func(int64) int64) {
	st.s = s
	if st.d == nil {
		return
	}
	d, k := st.d, &st.keys
	mapped := func(x int64) int64 { return id(x) }
	ref := func(r SessionRef) SessionRef {
		return SessionRef{Date: r.Date, ClassTimeID: id(r.ClassTimeID), ClassID: id(r.ClassID)}
	}
	var ok bool
	d.staff, ok = refind(d.staff, k.staff, s.Staff, func(r *Staff) int64 { return r.ID }, mapped, cmp.Compare[int64])
	if ok {
		d.activities, ok = refind(d.activities, k.activities, s.Activities, func(r *Activity) int64 { return r.ID }, mapped, cmp.Compare[int64])
	}
	if ok {
		d.classes, ok = refind(d.classes, k.classes, s.Classes, func(r *Class) int64 { return r.ID }, mapped, cmp.Compare[int64])
	}
	if ok {
		d.classTimes, ok = refind(d.classTimes, k.classTimes, s.ClassTimes, func(r *ClassTime) int64 { return r.ID }, mapped, cmp.Compare[int64])
	}
	if ok {
		d.entries, ok = refind(d.entries, k.entries, s.Entries, func(r *Entry) int64 { return r.ID }, mapped, cmp.Compare[int64])
	}
	if ok {
		d.oneOffs, ok = refind(d.oneOffs, k.oneOffs, s.OneOffs, func(r *OneOff) int64 { return r.ID }, mapped, cmp.Compare[int64])
	}
	if ok {
		d.bookings, ok = refind(d.bookings, k.bookings, s.RoomBookings, func(r *RoomBooking) int64 { return r.ID }, mapped, cmp.Compare[int64])
	}
	if ok {
		d.changes, ok = refind(d.changes, k.changes, s.Changes, changeKey, ref, compareRefs)
	}
	if !ok {
		st.d, st.again = nil, true
		return
	}
	// The lists of a date keep their order, which the save may have
	// changed (a state before that was not in canonical order).
	b := &st.t.state
	d.redated = [3]bool{len(d.changes) > 0 || !sameKeys(b.Changes, s.Changes, changeKey),
		len(d.oneOffs) > 0 || !sameKeys(b.OneOffs, s.OneOffs, func(r *OneOff) int64 { return r.ID }),
		len(d.bookings) > 0 || !sameKeys(b.RoomBookings, s.RoomBookings, func(r *RoomBooking) int64 { return r.ID })}
	st.pin() // the keys as saved, should it be saved again
}

func compareRefs(a, b SessionRef) int {
	return cmp.Or(cmp.Compare(a.Date, b.Date), cmp.Compare(a.ClassTimeID, b.ClassTimeID), cmp.Compare(a.ClassID, b.ClassID))
}

// refind points the pairs' new rows at the rows of list with their keys
// (through saved), which list holds in the order compare gives, and drops
// the pairs whose rows are now equal. It reports false when a row is not
// found.
func refind[T any, K any](ps []rowPair[T], keys []K, list []T, key func(*T) K, saved func(K) K, compare func(a, b K) int) ([]rowPair[T], bool) {
	out := ps[:0]
	for i, p := range ps {
		if p.is != nil {
			k := saved(keys[i])
			j, ok := slices.BinarySearchFunc(list, k, func(row T, k K) int { return compare(key(&row), k) })
			if !ok {
				return nil, false
			}
			p.is = &list[j]
			if p.was != nil && SameRow(p.was, p.is) {
				continue
			}
		}
		out = append(out, p)
	}
	if len(out) == 0 {
		out = nil
	}
	return out, true
}

// Timetable is the timetable of the step's state: what New returns for
// it, compiled from the timetable before where the difference allows (as
// Next does), without validating it again.
func (st *Step) Timetable() (*Timetable, error) {
	if st.n != nil {
		return st.n, nil
	}
	switch {
	case st.again:
		n, err := st.t.Next(st.s)
		if err != nil {
			return nil, err
		}
		st.n = n
	case st.d == nil:
		st.n = compile(st.s)
	default:
		n := st.t.lookups(st.s, st.d)
		if !n.compileAfter(st.t, st.d) {
			n = compile(st.s)
		}
		st.n = n
	}
	return st.n, nil
}

// ChangedRange is ChangedRange(before, after, today) for the states
// before and after the step, from the difference it holds.
func (st *Step) ChangedRange(today Date) (from, to Date, open bool) {
	d := st.d
	if d == nil {
		return ChangedRange(st.t.state, st.s, today)
	}
	r := dateRange{}
	// Within what Next follows, rooms, series, capacity rules, closures
	// and the settings are as they were: the rules that can differ are
	// staff, activities, classes, class times and entries.
	if len(d.staff)+len(d.activities)+len(d.classes)+len(d.classTimes)+len(d.entries) > 0 {
		r.open(min(today, firstSession(st.t.state), firstSession(st.s)))
	}
	for _, p := range d.oneOffs {
		for _, o := range []*OneOff{p.was, p.is} {
			if o != nil {
				r.add(o.Date, o.Date+1)
			}
		}
	}
	for _, p := range d.bookings {
		for _, b := range []*RoomBooking{p.was, p.is} {
			if b != nil {
				r.add(b.Date, b.Date+1)
			}
		}
	}
	for _, p := range d.changes {
		for _, c := range []*DayChange{p.was, p.is} {
			if c != nil {
				r.add(c.Ref.Date, c.Ref.Date+1)
				if c.Date != 0 {
					r.add(c.Date, c.Date+1)
				}
			}
		}
	}
	coverChanged(&r, &st.t.state, &st.s)
	if r.empty() {
		return today, today, false
	}
	return r.from, r.to, r.isOpen
}

// Step proves the clashes of the step's timetable (Step.Timetable) from
// the week of today on, as Next does, reading what changed from the step
// instead of comparing the two timetables again. The proof must be of the
// timetable the step starts from; another is proven by Next.
func (p *Proof) Step(st *Step, today Date, stop func() bool) (*Proof, error) {
	t, err := st.Timetable()
	if err != nil {
		return nil, err
	}
	if st.d == nil || p == nil || p.t != st.t || today != p.today {
		return p.Next(t, today, stop)
	}
	// Within what Next follows nothing is renamed, and the business's
	// kind, week start and rooms are as they were (see everywhere).
	var d diff
	d.fromStep(p.t, t, st.d)
	return p.carry(t, today, stop, &d)
}

// fromStep is rows for two timetables a step apart, from the step's
// difference.
func (d *diff) fromStep(a, b *Timetable, sd *stateDiff) {
	d.classes, d.classTimes, d.series = map[int64]bool{}, map[int64]bool{}, map[int64]bool{}
	d.groups, d.rooms, d.closed = map[groupKey]bool{}, map[int64]bool{}, map[int64]bool{}
	d.changes, d.oneOffs = map[SessionRef]bool{}, map[int64]bool{}
	for _, p := range sd.classes {
		for _, c := range []*Class{p.was, p.is} {
			if c != nil {
				d.classes[c.ID] = true
			}
		}
	}
	for _, p := range sd.classTimes {
		for _, c := range []*ClassTime{p.was, p.is} {
			if c != nil {
				d.classTimes[c.ID] = true
			}
		}
	}
	for id, r := range b.rot {
		if old, ok := a.rot[id]; ok && !sameRotation(old, r) {
			d.series[id] = true
		}
	}
	for _, p := range sd.entries {
		for _, e := range []*Entry{p.was, p.is} {
			if e != nil {
				d.groups[groupKey{e.ClassTimeID, e.ClassID}] = true
			}
		}
	}
	for _, p := range sd.changes {
		for _, c := range []*DayChange{p.was, p.is} {
			if c != nil && (p.was == nil || p.is == nil || !sameChange(p.was, p.is)) {
				d.changes[c.Ref] = true
			}
		}
	}
	for _, p := range sd.oneOffs {
		for _, o := range []*OneOff{p.was, p.is} {
			if o != nil && (p.was == nil || p.is == nil || !sameOneOff(p.was, p.is)) {
				d.oneOffs[o.ID] = true
			}
		}
	}
	for _, p := range sd.bookings {
		for _, r := range []*RoomBooking{p.was, p.is} {
			if r != nil {
				d.rooms[r.RoomID] = true
			}
		}
	}
}
