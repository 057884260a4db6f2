package engine

import (
	"cmp"
	"container/heap"
	"slices"
	"time"
)

// A write's impact: the sessions it cancels, moves, re-times, puts in
// another room, re-staffs, gives another class, removes or pushes over
// capacity — the sessions that were on, with people on them, and are not
// what those people booked any more. Like the clash proof it is answered
// for every future date at once: between the dates where something
// changes for a session of one class time and class (a leg of a rotation
// begins or ends, a closure, a day change, a standing place or single
// bookings when its places are cut) its dates before and after the write
// are residue classes of weeks, so whether a date is affected repeats
// with the least common multiple of the rotations, and a stretch is
// answered by looking at one period of it, not at its weeks.

// ImpactMask is what a session's difference must hold for the people on
// it to be affected (a session only resized is affected when the places
// it has after are fewer than the places held on it before).
const ImpactMask = Cancelled | Removed | Moved | Retimed | Rehoused | Restaffed | Reclassed

// Booked is what the single bookings hold of the places of sessions: for
// a series session (by its class time and class) on each original date,
// and for a one-off.
type Booked struct {
	Series  map[Place]map[Date]int
	OneOffs map[int64]int
}

// AffectedRun is a run of the sessions a write affects: the series
// sessions of one class time and class on the original dates of a run
// (Until zero with Every set: every such date up to the end of time), or
// one one-off (its original date in First).
type AffectedRun struct {
	Place  Place
	OneOff int64
	Dates  DateRun
	// At is where a single session is before the write, when a day change
	// had moved it; zero: on its original date.
	At Date
}

// Count returns how many sessions r holds, and false for a run without end.
func (r *AffectedRun) Count() (int, bool) {
	if r.Dates.Every == 0 {
		return 1, true
	}
	if r.Dates.Until == 0 {
		return 0, false
	}
	return int(r.Dates.Until-r.Dates.First)/(7*r.Dates.Every) + 1, true
}

// CountAffected adds up runs that do not overlap (as Impact returns them):
// the number of sessions, and whether it is finite.
func CountAffected(runs []AffectedRun) (n int, finite bool) {
	finite = true
	for i := range runs {
		c, ok := runs[i].Count()
		n += c
		finite = finite && ok
	}
	return n, finite
}

// Impact returns the sessions that are on (not cancelled) in before on a
// date from from on (and up to until, when it is not zero) and that the
// write to after cancels, moves, re-times, re-rooms, re-staffs, re-classes,
// removes, or leaves with fewer places than were held on it (single
// bookings, as booked says, and before's standing places): exactly, as
// runs that do not overlap. booked is called only when some session has
// fewer places after, at most once.
func Impact(before, after *Timetable, booked func() Booked, from, until Date) []AffectedRun {
	im := impact{before: before, after: after, from: from, until: until, bookedFn: booked}
	if until == 0 {
		im.end = MaxDate + 1
	} else {
		im.end = min(until+1, MaxDate+1)
	}
	if from >= im.end {
		return nil
	}
	var out []AffectedRun
	closuresSame := slices.EqualFunc(before.state.Closures, after.state.Closures, func(a, b Closure) bool { return SameRow(&a, &b) })
	sameWeeks := before.ws == after.ws
	changed := map[groupKey]bool{}
	eachChanged(before.state.Changes, after.state.Changes, changeKey, func(c *DayChange) {
		changed[groupKey{c.Ref.ClassTimeID, c.Ref.ClassID}] = true
	})
	// A day change that gives a session another class gives it that
	// class's staff, which the write may change.
	for _, c := range before.changes {
		if c.ClassID != 0 {
			changed[groupKey{c.Ref.ClassTimeID, c.Ref.ClassID}] = true
		}
	}
	for gi := range before.groups {
		gb := &before.groups[gi]
		k := groupKey{gb.ct.ID, gb.class.ID}
		var ga *group
		if ai, ok := after.groupOf[k]; ok {
			ga = &after.groups[ai]
		}
		if ga != nil && closuresSame && sameWeeks && !changed[k] && sameGroup(gb, ga) {
			continue
		}
		out = im.group(out, gb, ga)
	}
	for i := range before.state.OneOffs {
		o := &before.state.OneOffs[i]
		if o.Cancelled || o.Date < from || o.Date >= im.end {
			continue
		}
		was, ok := before.sessionByID(sessionID{oneOff: o.ID})
		if !ok || was.Cancelled {
			continue
		}
		is, ok := after.sessionByID(sessionID{oneOff: o.ID})
		d, _ := diffOf(was, is, true, ok)
		if d.What&ImpactMask != 0 || (ok && im.cut(int(was.Capacity), int(is.Capacity)) &&
			pushed(int(was.Capacity), int(is.Capacity), im.booked().OneOffs[o.ID], 0, 0)) {
			out = append(out, AffectedRun{OneOff: o.ID, Dates: DateRun{First: o.Date}})
		}
	}
	return out
}

type impact struct {
	before, after   *Timetable
	from, until     Date
	end             Date // exclusive
	bookedFn        func() Booked
	bookedV         *Booked
	skips, skipsNow map[StandingDate]bool
}

func (im *impact) booked() *Booked {
	if im.bookedV == nil {
		var b Booked
		if im.bookedFn != nil {
			b = im.bookedFn()
		}
		im.bookedV = &b
	}
	return im.bookedV
}

// cut reports whether a session with places was before and places is
// after may hold fewer places after.
func (im *impact) cut(was, is int) bool { return is > 0 && (was == 0 || is < was) }

// pushed reports whether the places held on a session before — single
// bookings, and of its standing places those that hold every date and
// those that wait and fit — are more than the places it has after.
func pushed(was, is, singles, firm, waiting int) bool {
	held := singles + firm + waiting
	if was > 0 {
		n := max(firm, min(firm+waiting, max(0, was-singles)))
		held = singles + n
	}
	return is > 0 && held > is
}

// sameGroup reports whether two compilations of one class time and class
// make the same sessions on the same weeks.
func sameGroup(a, b *group) bool {
	if *a.ct != *b.ct || !slices.Equal(a.class.StaffIDs, b.class.StaffIDs) || len(a.entries) != len(b.entries) {
		return false
	}
	for i := range a.entries {
		x, y := &a.entries[i], &b.entries[i]
		if x.week != y.week || *x.series != *y.series {
			return false
		}
	}
	return true
}

// weekOnOrAfter returns the first week whose weekday wd falls on or after d.
func weekOnOrAfter(d Date, wd, ws time.Weekday) int {
	w := WeekOf(d, ws)
	if DayIn(w, wd, ws) < d {
		w++
	}
	return w
}

// group appends the runs of group gb of before that the write affects;
// ga is the group in after, nil when it has gone.
func (im *impact) group(out []AffectedRun, gb, ga *group) []AffectedRun {
	b, a := im.before, im.after
	if gb.ct.Inactive {
		return out
	}
	wd, ws := gb.ct.Weekday, b.ws
	key := groupKey{gb.ct.ID, gb.class.ID}
	place := Place{gb.ct.ID, gb.class.ID}
	lo, hi := weekOnOrAfter(im.from, wd, ws), weekOnOrAfter(im.end, wd, ws) // weeks [lo, hi)
	open := im.end == MaxDate+1
	if open {
		// An open series runs until NoEnd: the weeks past it, a few at
		// the end of time, are left out, so that an open run has no end.
		hi = min(hi, NoEnd-1)
	}
	// The after group makes sessions on the same dates only on the same
	// weekday; its weeks are ours shifted by delta.
	if ga != nil && (ga.ct.Inactive || ga.ct.Weekday != wd) {
		ga = nil
	}
	delta := 0
	if ga != nil {
		delta = WeekOf(DayIn(lo, wd, ws), a.ws) - lo
	}
	// What every regular date keeps or loses, apart from closures.
	var base What
	var sb, sa Session
	gb.fill(&sb, 0, nil)
	if ga != nil {
		ga.fill(&sa, 0, nil)
		base = differs(&sb, &sa) & ImpactMask
	}
	capCut := ga != nil && im.cut(int(sb.Capacity), int(sa.Capacity))
	cuts := []int{lo, hi}
	cut := func(p, q int) {
		if p < hi && q > lo {
			cuts = append(cuts, max(p, lo), min(q, hi))
		}
	}
	for _, e := range gb.entries {
		for _, s := range e.rot.segments(e.week) {
			cut(s.from, s.to)
		}
	}
	if ga != nil {
		for _, e := range ga.entries {
			for _, s := range e.rot.segments(e.week) {
				cut(s.from-delta, s.to-delta)
			}
		}
	}
	closures := func(t *Timetable, room int64) {
		for _, c := range t.closures {
			if c.ClosesRoom(room) {
				cut(weekOnOrAfter(c.From, wd, ws), weekOnOrAfter(c.To+1, wd, ws))
			}
		}
	}
	closures(b, sb.RoomID)
	if ga != nil {
		closures(a, sa.RoomID)
	}
	// Day changes: the dates they touch are answered one by one.
	special := map[int]bool{}
	var refs []SessionRef
	for _, t := range []*Timetable{b, a} {
		for _, c := range t.byGroupChanges(key.classTime, key.class) {
			if !slices.Contains(refs, c.Ref) {
				refs = append(refs, c.Ref)
			}
			if c.Ref.Date.Weekday() == wd {
				w := WeekOf(c.Ref.Date, ws)
				special[w] = true
				cut(w, w+1)
			}
		}
	}
	var rules []Standing
	var singles map[Date]int
	if capCut {
		rules = b.standingIx().byGroup[key]
		for _, r := range rules {
			if r.Until == 0 {
				cut(weekOnOrAfter(r.From, wd, ws), hi)
			} else {
				cut(weekOnOrAfter(r.From, wd, ws), weekOnOrAfter(r.Until+1, wd, ws))
			}
		}
		for _, k := range b.state.StandingSkips {
			if ruleByID(rules, k.StandingID) != nil && k.Date.Weekday() == wd {
				w := WeekOf(k.Date, ws)
				cut(w, w+1)
			}
		}
		singles = im.booked().Series[place]
		for d, n := range singles {
			if n > 0 && d.Weekday() == wd {
				w := WeekOf(d, ws)
				cut(w, w+1)
			}
		}
	}
	slices.Sort(cuts)
	cuts = slices.Compact(cuts)
	for i := 0; i+1 < len(cuts); i++ {
		p, q := cuts[i], cuts[i+1]
		if p < lo || q > hi || special[p] {
			continue
		}
		d := DayIn(p, wd, ws)
		if closedOn(b, d, sb.RoomID) {
			continue // cancelled before: no one is on it
		}
		var resB, resA []segment
		for _, e := range gb.entries {
			for _, s := range e.rot.segments(e.week) {
				if s.from <= p && q <= s.to {
					resB = append(resB, s)
				}
			}
		}
		if len(resB) == 0 {
			continue
		}
		all := ga == nil || base != 0 || closedOn(a, d, sa.RoomID)
		if !all && capCut {
			firm, waiting := 0, 0
			for _, r := range rules {
				if r.Covers(d) && !b.Skipped(r.ID, d) {
					if r.Waitlist {
						waiting++
					} else {
						firm++
					}
				}
			}
			all = pushed(int(sb.Capacity), int(sa.Capacity), singles[d], firm, waiting)
		}
		if !all {
			for _, e := range ga.entries {
				for _, s := range e.rot.segments(e.week) {
					if s.from <= p+delta && q+delta <= s.to {
						s.res -= delta
						resA = append(resA, s)
					}
				}
			}
		}
		period := 1
		for _, s := range resB {
			period = lcm(period, s.mod)
		}
		for _, s := range resA {
			period = lcm(period, s.mod)
		}
		in := func(w int, segs []segment) bool {
			return slices.ContainsFunc(segs, func(s segment) bool { return mod(w-s.res, s.mod) == 0 })
		}
		for w := p; w < min(q, p+period); w++ {
			if !in(w, resB) || (!all && in(w, resA)) {
				continue
			}
			last := w + (q-1-w)/period*period
			r := DateRun{First: DayIn(w, wd, ws), Every: period, Until: DayIn(last, wd, ws)}
			if open && q == hi && last+period >= hi {
				r.Until = 0
			}
			if last == w {
				r.Every, r.Until = 0, r.First
			}
			out = append(out, AffectedRun{Place: place, Dates: r})
		}
	}
	for _, ref := range refs {
		if run, ok := im.one(ref); ok {
			out = append(out, run)
		}
	}
	return out
}

// closedOn reports whether a closure of t cancels the sessions of room on d.
func closedOn(t *Timetable, d Date, room int64) bool {
	return slices.ContainsFunc(t.closures, func(c *Closure) bool { return c.From <= d && d <= c.To && c.ClosesRoom(room) })
}

// one answers one series session on its own: one a day change touches.
func (im *impact) one(ref SessionRef) (AffectedRun, bool) {
	was, ok := im.before.Session(ref)
	if !ok || was.Cancelled || was.Date < im.from || was.Date >= im.end {
		return AffectedRun{}, false
	}
	is, ok := im.after.Session(ref)
	d, _ := diffOf(&was, &is, true, ok)
	place := Place{ref.ClassTimeID, ref.ClassID}
	if d.What&ImpactMask == 0 {
		if !ok || !im.cut(int(was.Capacity), int(is.Capacity)) {
			return AffectedRun{}, false
		}
		firm, waiting := 0, 0
		for _, r := range im.before.StandingOn(ref) {
			if r.Waitlist {
				waiting++
			} else {
				firm++
			}
		}
		if !pushed(int(was.Capacity), int(is.Capacity), im.booked().Series[place][ref.Date], firm, waiting) {
			return AffectedRun{}, false
		}
	}
	run := AffectedRun{Place: place, Dates: DateRun{First: ref.Date, Until: ref.Date}}
	if was.Date != ref.Date {
		run.At = was.Date
	}
	return run, true
}

func lcm(a, b int) int {
	x, y := a, b
	for y != 0 {
		x, y = y, x%y
	}
	return a / x * b
}

// at is where the n-th date of a run is before the write.
func (r *AffectedRun) at(d Date) Date {
	if r.At != 0 {
		return r.At
	}
	return d
}

// AffectedSession is one session a write affects, as before and after.
type AffectedSession struct {
	SessionDiff
	// Ref is the series session's original date, class time and class;
	// zero for a one-off.
	Ref SessionRef
}

// FirstAffected returns the first n sessions of runs, in the order of
// the dates they are on before the write (then by id), with what the
// write does to each: ListAffected's sessions, each resolved.
func FirstAffected(before, after *Timetable, runs []AffectedRun, n int) []AffectedSession {
	l := ListAffected(before, after, runs, n)
	out := make([]AffectedSession, l.Len())
	for i := range out {
		l.into(&out[i], i)
	}
	return out
}

// AffectedList is the first sessions of a write's runs, as FirstAffected
// orders them, kept as their runs and original dates, a few bytes each
// and no pointer: a session is resolved when it is read (At), from its
// run's class time and class found once (affectedSide), so that a list of
// 500 costs neither two sessions' copies each nor the collector's time
// over them. It holds the timetables and runs it was made from, which
// must not change.
type AffectedList struct {
	before, after *Timetable
	listed        []listedRun // the runs that have a session listed
	at            []affectedAt
}

type affectedAt struct {
	listed int32 // in listed
	date   Date  // the original date of a series session
}

// listedRun is a run with a session listed and how its sessions are
// resolved before and after the write.
type listedRun struct {
	run   *AffectedRun
	sides [2]affectedSide
}

// ListAffected lists the first n sessions of runs (see FirstAffected).
func ListAffected(before, after *Timetable, runs []AffectedRun, n int) *AffectedList {
	h := &runHeap{}
	for i := range runs {
		h.items = append(h.items, runCursor{run: &runs[i], next: runs[i].Dates.First, listed: -1})
	}
	heap.Init(h)
	if total, finite := CountAffected(runs); finite {
		n = min(n, total)
	}
	l := &AffectedList{before: before, after: after, at: make([]affectedAt, 0, n)}
	for h.Len() > 0 && len(l.at) < n {
		c := &h.items[0]
		r, d := c.run, c.next
		if c.listed < 0 {
			c.listed = int32(len(l.listed))
			lr := listedRun{run: r}
			if r.OneOff == 0 {
				lr.sides = [2]affectedSide{before.affectedSide(r), after.affectedSide(r)}
			}
			l.listed = append(l.listed, lr)
		}
		l.at = append(l.at, affectedAt{listed: c.listed, date: d})
		if r.Dates.Every > 0 && (r.Dates.Until == 0 || d+Date(7*r.Dates.Every) <= r.Dates.Until) && d+Date(7*r.Dates.Every) <= MaxDate {
			c.next = d + Date(7*r.Dates.Every)
			heap.Fix(h, 0)
		} else {
			heap.Pop(h)
		}
	}
	return l
}

// Len is how many sessions l lists.
func (l *AffectedList) Len() int { return len(l.at) }

// Ref returns the i-th session's ref, zero for a one-off, and its one-off.
func (l *AffectedList) Ref(i int) (SessionRef, int64) {
	a := l.at[i]
	r := l.listed[a.listed].run
	if r.OneOff != 0 {
		return SessionRef{}, r.OneOff
	}
	return SessionRef{Date: a.date, ClassTimeID: r.Place.ClassTime, ClassID: r.Place.Class}, 0
}

// At returns the i-th session, before and after, with what the write does
// to it.
func (l *AffectedList) At(i int) AffectedSession {
	var s AffectedSession
	l.into(&s, i)
	return s
}

// into sets s, a zero AffectedSession, to the i-th session.
func (l *AffectedList) into(s *AffectedSession, i int) {
	a := l.at[i]
	lr := &l.listed[a.listed]
	r := lr.run
	if r.OneOff != 0 {
		was, _ := l.before.sessionByID(sessionID{oneOff: r.OneOff})
		is, ok := l.after.sessionByID(sessionID{oneOff: r.OneOff})
		s.SessionDiff, _ = diffOf(was, is, true, ok)
		return
	}
	s.Ref = SessionRef{Date: a.date, ClassTimeID: r.Place.ClassTime, ClassID: r.Place.Class}
	l.before.sessionInto(&s.Before, &lr.sides[0], s.Ref)
	s.Was, s.Is = true, l.after.sessionInto(&s.After, &lr.sides[1], s.Ref)
	s.judge()
}

// Standing calls fn with the standing places before the write on each
// listed series session that has any, as StandingOn returns them, in one
// pass: the rules of a class time and class are found once for the
// sessions of it that come one after another, and the skipped dates
// looked at only when there are any. The lists share one array, each
// capped, so that an append to one never reaches another; fn may keep
// them.
func (l *AffectedList) Standing(fn func(i int, on []Standing)) {
	x := l.before.standingIx()
	if len(x.byGroup) == 0 {
		return
	}
	var buf []Standing
	var k groupKey
	var rules []Standing
	for i := range l.at {
		ref, oneOff := l.Ref(i)
		if oneOff != 0 {
			continue
		}
		if g := (groupKey{ref.ClassTimeID, ref.ClassID}); g != k {
			k, rules = g, x.byGroup[g]
		}
		start := len(buf)
		for j := range rules {
			if r := &rules[j]; x.on(r, ref.Date) {
				buf = append(buf, *r)
			}
		}
		if len(buf) > start {
			fn(i, buf[start:len(buf):len(buf)])
		}
	}
}

// affectedSide is what resolving the sessions of one run in one
// timetable needs: the group of its class time and class (nil: none),
// and whether a closure may cancel one of them, which sends each to
// Session.
type affectedSide struct {
	g      *group
	closed bool
}

func (t *Timetable) affectedSide(r *AffectedRun) affectedSide {
	gi, ok := t.groupOf[groupKey{r.Place.ClassTime, r.Place.Class}]
	if !ok {
		return affectedSide{}
	}
	side := affectedSide{g: &t.groups[gi]}
	last := r.Dates.Until
	if last == 0 {
		last = MaxDate
	}
	for _, c := range t.closures {
		if c.From > last {
			break
		}
		if c.To >= r.Dates.First && c.ClosesRoom(side.g.ct.RoomID) {
			side.closed = true
			break
		}
	}
	return side
}

// sessionInto sets s, a zero session, to the session ref names, as
// Session returns it, and reports whether there is one. A session with
// neither a day change nor a closure that may cancel it is its group's
// rule on its date: the group found once for the run stands for the map
// lookups of Session.
func (t *Timetable) sessionInto(s *Session, side *affectedSide, ref SessionRef) bool {
	if side.closed || (len(t.dated) > 0 && t.dated[ref.Date].change(t, ref) != nil) {
		var ok bool
		*s, ok = t.Session(ref)
		return ok
	}
	g := side.g
	if g == nil || g.ct.Inactive || g.ct.Weekday != ref.Date.Weekday() {
		return false
	}
	weeks := g.activeIn(WeekOf(ref.Date, t.ws))
	if weeks == nil {
		return false
	}
	g.fill(s, ref.Date, weeks)
	return true
}

type runCursor struct {
	run    *AffectedRun
	next   Date
	listed int32 // in AffectedList.listed; -1 before its first session
}

type runHeap struct{ items []runCursor }

func (h *runHeap) Len() int { return len(h.items) }
func (h *runHeap) Less(i, j int) bool {
	a, b := &h.items[i], &h.items[j]
	return cmp.Or(cmp.Compare(a.run.at(a.next), b.run.at(b.next)), cmp.Compare(a.run.Place.ClassTime, b.run.Place.ClassTime),
		cmp.Compare(a.run.Place.Class, b.run.Place.Class), cmp.Compare(a.run.OneOff, b.run.OneOff), cmp.Compare(a.next, b.next)) < 0
}
func (h *runHeap) Swap(i, j int) { h.items[i], h.items[j] = h.items[j], h.items[i] }
func (h *runHeap) Push(x any)    { h.items = append(h.items, x.(runCursor)) }
func (h *runHeap) Pop() any {
	x := h.items[len(h.items)-1]
	h.items = h.items[:len(h.items)-1]
	return x
}

// holds reports whether d is one of the run's dates.
func (r DateRun) holds(d Date) bool {
	if d < r.First || (r.Until != 0 && d > r.Until) {
		return false
	}
	if r.Every == 0 {
		return d == r.First
	}
	return int(d-r.First)%(7*r.Every) == 0
}

// StandingAffected returns the standing places of t (the timetable before
// the write) that hold, or wait for, a place on some session of runs: a
// date a rule covers and does not skip.
func StandingAffected(t *Timetable, runs []AffectedRun) []Standing {
	x := t.standingIx()
	var out []Standing
	for _, rules := range x.byGroup {
		for _, r := range rules {
			if slices.ContainsFunc(runs, func(a AffectedRun) bool {
				return a.OneOff == 0 && a.Place == Place{r.ClassTimeID, r.ClassID} && x.reaches(&r, a.Dates)
			}) {
				out = append(out, r)
			}
		}
	}
	slices.SortFunc(out, func(a, b Standing) int { return cmp.Compare(a.ID, b.ID) })
	return out
}

// reaches reports whether rule r covers a date of run that it does not
// skip: its skipped dates are few, so the run's dates from the rule's
// first on are tried until one is not skipped.
func (x *standingIndex) reaches(r *Standing, run DateRun) bool {
	d := run.First
	if run.Every > 0 && d < r.From {
		step := Date(7 * run.Every)
		d += (r.From - d + step - 1) / step * step
	}
	for ; run.holds(d) && r.Covers(d); d += Date(7 * run.Every) {
		if !x.skipped[StandingDate{r.ID, d}] {
			return true
		}
		if run.Every == 0 {
			break
		}
	}
	return false
}

// AffectedSet is a set of affected sessions, for asking of many whether
// they are in it.
type AffectedSet struct {
	series  map[Place][]DateRun
	oneOffs map[int64]bool
}

// IndexAffected indexes runs by session.
func IndexAffected(runs []AffectedRun) AffectedSet {
	s := AffectedSet{series: map[Place][]DateRun{}, oneOffs: map[int64]bool{}}
	for _, r := range runs {
		if r.OneOff != 0 {
			s.oneOffs[r.OneOff] = true
		} else {
			s.series[r.Place] = append(s.series[r.Place], r.Dates)
		}
	}
	return s
}

// Holds reports whether the set holds one-off oneOff or, when it is zero,
// the series session ref names.
func (s AffectedSet) Holds(ref SessionRef, oneOff int64) bool {
	if oneOff != 0 {
		return s.oneOffs[oneOff]
	}
	return slices.ContainsFunc(s.series[Place{ref.ClassTimeID, ref.ClassID}], func(r DateRun) bool { return r.holds(ref.Date) })
}
