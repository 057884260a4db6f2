package engine

import (
	"cmp"
	"slices"
	"sync"
)

// Standing places: a client's place in every occurrence of one series
// session, stored as one rule (Standing) and the dates it was given up
// (StandingSkip). Who holds a place on a date is computed like every
// other fact of a session, and whether the places ever overfill a session
// is proved for every future date at once, the way clashes are: between
// the dates where something changes (a rule starts or ends, a date is
// skipped or has single bookings, a day change or closure touches the
// session) the count of places is constant, and the session's dates there
// are a few residue classes of weeks (Rotation.segments), so each stretch
// is answered with arithmetic, not by walking its weeks.

// DateRun is a set of dates: First, then every Every weeks up to Until
// inclusive (zero: no end). Every is zero for First alone.
type DateRun struct {
	First Date
	Every int
	Until Date
}

// Dates returns the run's dates in [from, to).
func (r DateRun) Dates(from, to Date) []Date {
	var out []Date
	last := r.Until
	if last == 0 {
		last = MaxDate
	}
	for d := r.First; d <= last && d < to; d += Date(7 * r.Every) {
		if d >= from {
			out = append(out, d)
		}
		if r.Every == 0 {
			break
		}
	}
	return out
}

// Load is what takes the places of one series session, by its original
// dates: the single bookings holding a place, and standing rules with the
// dates they skip.
type Load struct {
	Singles map[Date]int
	Rules   []Standing
	Skips   []StandingSkip
}

// Overfull returns, for every original date d from from on (and up to
// until, when it is not zero) on which the session of class time ct and
// class happens and is not cancelled, the dates on which the single
// bookings of d and the rules of load that cover d and do not skip it
// are more than limit: exactly, for every future date, as runs ordered
// by first date. A session with no limit (limit < 0) is never overfull.
func (t *Timetable) Overfull(ct, class int64, load Load, limit int, from, until Date) []DateRun {
	gi, ok := t.groupOf[groupKey{ct, class}]
	if !ok || limit < 0 {
		return nil
	}
	g := &t.groups[gi]
	if g.ct.Inactive {
		return nil
	}
	end := MaxDate + 1 // exclusive
	if until != 0 {
		end = min(end, until+1)
	}
	if from >= end {
		return nil
	}
	cuts := []Date{from, end}
	cut := func(a, b Date) {
		if a < end && b > from {
			cuts = append(cuts, max(a, from), min(b, end))
		}
	}
	for i := range load.Rules {
		r := &load.Rules[i]
		if r.Until == 0 {
			cut(r.From, end)
		} else {
			cut(r.From, r.Until+1)
		}
	}
	skipped := make(map[Date]int, len(load.Skips))
	for _, k := range load.Skips {
		if rule := ruleByID(load.Rules, k.StandingID); rule != nil && rule.Covers(k.Date) {
			skipped[k.Date]++
			cut(k.Date, k.Date+1)
		}
	}
	for d, n := range load.Singles {
		if n > 0 {
			cut(d, d+1)
		}
	}
	special := map[Date]bool{}
	for _, c := range t.byGroupChanges(ct, class) {
		special[c.Ref.Date] = true
		cut(c.Ref.Date, c.Ref.Date+1)
	}
	var closed []*Closure
	for _, c := range t.closures {
		if c.ClosesRoom(g.ct.RoomID) {
			closed = append(closed, c)
			cut(c.From, c.To+1)
		}
	}
	slices.Sort(cuts)
	cuts = slices.Compact(cuts)
	var out []DateRun
	for i := 0; i+1 < len(cuts); i++ {
		p, q := cuts[i], cuts[i+1]
		if p < from || q > end {
			continue
		}
		n := -skipped[p]
		if q == p+1 {
			n += load.Singles[p]
		}
		for j := range load.Rules {
			if load.Rules[j].Covers(p) {
				n++
			}
		}
		if n <= limit {
			continue
		}
		if special[p] {
			if s, ok := t.Session(SessionRef{Date: p, ClassTimeID: ct, ClassID: class}); ok && !s.Cancelled {
				out = append(out, DateRun{First: p, Until: p})
			}
			continue
		}
		if slices.ContainsFunc(closed, func(c *Closure) bool { return c.From <= p && p <= c.To }) {
			continue
		}
		out = append(out, t.runsIn(g, p, q, q == MaxDate+1)...)
	}
	slices.SortFunc(out, func(a, b DateRun) int {
		return cmp.Or(cmp.Compare(a.First, b.First), cmp.Compare(a.Every, b.Every), cmp.Compare(a.Until, b.Until))
	})
	return slices.Compact(out)
}

func ruleByID(rules []Standing, id int64) *Standing {
	for i := range rules {
		if rules[i].ID == id {
			return &rules[i]
		}
	}
	return nil
}

// byGroupChanges returns the day changes of the sessions of one class time
// and class.
func (t *Timetable) byGroupChanges(ct, class int64) []*DayChange {
	var out []*DayChange
	for ref, c := range t.changes {
		if ref.ClassTimeID == ct && ref.ClassID == class {
			out = append(out, c)
		}
	}
	return out
}

// runsIn returns the dates in [p, q) on which group g's rule makes a
// session, as one run for each leg of each entry: the weeks of a leg in
// which an entry is active are one residue class. open: q is the end of
// time, so a run of an open leg has no end.
func (t *Timetable) runsIn(g *group, p, q Date, open bool) []DateRun {
	wd := g.ct.Weekday
	first := p + Date((int(wd)-int(p.Weekday())+7)%7)
	last := (q - 1) - Date((int((q-1).Weekday())-int(wd)+7)%7)
	if last < first {
		return nil
	}
	lo, hi := WeekOf(first, t.ws), WeekOf(last, t.ws)+1
	var out []DateRun
	for _, e := range g.entries {
		for _, s := range e.rot.segments(e.week) {
			a, b := max(lo, s.from), min(hi, s.to)
			if a >= b {
				continue
			}
			w0 := a + mod(s.res-a, s.mod)
			if w0 >= b {
				continue
			}
			w1 := b - 1 - mod(b-1-s.res, s.mod)
			r := DateRun{First: DayIn(w0, wd, t.ws), Every: s.mod, Until: DayIn(w1, wd, t.ws)}
			if open && s.to == NoEnd && b == s.to {
				r.Until = 0
			}
			if w0 == w1 {
				r.Every = 0
			}
			out = append(out, r)
		}
	}
	return out
}

// standingIndex is a timetable's standing places by session, built on
// first use.
type standingIndex struct {
	once    sync.Once
	byGroup map[groupKey][]Standing // in the order places are given
	skipped map[StandingDate]bool
}

// StandingDate is one date of one standing place.
type StandingDate struct {
	StandingID int64
	Date       Date
}

// on reports whether rule r holds a place on date d: it covers d and
// does not skip it.
func (x *standingIndex) on(r *Standing, d Date) bool {
	return r.Covers(d) && (len(x.skipped) == 0 || !x.skipped[StandingDate{r.ID, d}])
}

func (t *Timetable) standingIx() *standingIndex {
	x := &t.standing
	x.once.Do(func() {
		x.byGroup = map[groupKey][]Standing{}
		for _, r := range t.state.Standing {
			k := groupKey{r.ClassTimeID, r.ClassID}
			x.byGroup[k] = append(x.byGroup[k], r)
		}
		for _, rules := range x.byGroup {
			slices.SortFunc(rules, placeOrder)
		}
		x.skipped = make(map[StandingDate]bool, len(t.state.StandingSkips))
		for _, k := range t.state.StandingSkips {
			x.skipped[StandingDate{k.StandingID, k.Date}] = true
		}
	})
	return x
}

// placeOrder is the order standing places are given a session's places
// in: the ones that hold every date first, then those that accepted to
// wait, each oldest first.
func placeOrder(a, b Standing) int {
	if a.Waitlist != b.Waitlist {
		if a.Waitlist {
			return 1
		}
		return -1
	}
	return cmp.Compare(a.ID, b.ID)
}

// StandingOn returns the standing places on the series session ref names
// (by its original date, wherever a day change puts it), in the order
// they are given places; the places skipped that date are left out.
func (t *Timetable) StandingOn(ref SessionRef) []Standing {
	x := t.standingIx()
	rules := x.byGroup[groupKey{ref.ClassTimeID, ref.ClassID}]
	n := 0
	for i := range rules {
		if x.on(&rules[i], ref.Date) {
			n++
		}
	}
	if n == 0 {
		return nil
	}
	out := make([]Standing, 0, n) // one allocation, not a slice grown place by place
	for i := range rules {
		if x.on(&rules[i], ref.Date) {
			out = append(out, rules[i])
		}
	}
	return out
}

// HasStanding reports whether the state holds any standing place.
func (t *Timetable) HasStanding() bool { return len(t.state.Standing) > 0 }

// Skipped reports whether a standing place is given up on a date.
func (t *Timetable) Skipped(id int64, d Date) bool {
	return t.standingIx().skipped[StandingDate{id, d}]
}

// SplitPlaces splits the standing places of a session (as StandingOn
// orders them) into those that hold a place and those that wait, given
// its capacity (zero: no limit) and the places single bookings hold.
func SplitPlaces(rules []Standing, capacity, singles int) (hold, wait []Standing) {
	firm := 0
	for _, r := range rules {
		if !r.Waitlist {
			firm++
		}
	}
	n := holding(len(rules), firm, capacity, singles)
	return rules[:n:n], rules[n:]
}

// holding is how many of n standing places on a session, firm of which
// hold every date, hold a place there beside the places single bookings
// hold: the rest wait.
func holding(n, firm, capacity, singles int) int {
	if capacity <= 0 {
		return n
	}
	free := max(0, capacity-singles)
	return max(firm, min(n, free)) // a place that holds every date: the proof keeps room for it
}

// PlacesOn counts the standing places on the series session ref names
// that hold a place and those that wait, as SplitPlaces splits
// StandingOn(ref), without making the list: what a session's placesTaken
// and waitlist ask of every session of a week.
func (t *Timetable) PlacesOn(ref SessionRef, capacity, singles int) (hold, wait int) {
	x := t.standingIx()
	rules := x.byGroup[groupKey{ref.ClassTimeID, ref.ClassID}]
	n, firm := 0, 0
	for i := range rules {
		if r := &rules[i]; x.on(r, ref.Date) {
			n++
			if !r.Waitlist {
				firm++
			}
		}
	}
	hold = holding(n, firm, capacity, singles)
	return hold, n - hold
}

// Place is a series session on every date, where standing places are held: its class time and class.
type Place struct{ ClassTime, Class int64 }

// PlacesTouched returns the series sessions whose places, or whose dates,
// may differ between two states: those of a class time, entry, day change,
// standing place or skipped date that differs. all is true when a change
// reaches every session (a series, a closure, the business's settings);
// sessions, when a class time, entry or day change differs (not only
// standing places).
func PlacesTouched(a, b State) (all, sessions bool, touched map[Place]bool) {
	if a.Business != b.Business || rowsDiffer(a.Series, b.Series, func(s *Series) int64 { return s.ID }) ||
		rowsDiffer(a.Closures, b.Closures, func(c *Closure) int64 { return c.ID }) {
		return true, true, nil
	}
	touched = map[Place]bool{}
	var classTimes []int64
	eachChanged(a.ClassTimes, b.ClassTimes, func(c *ClassTime) int64 { return c.ID }, func(c *ClassTime) { classTimes = append(classTimes, c.ID) })
	if len(classTimes) > 0 {
		for _, s := range []State{a, b} {
			for _, e := range s.Entries {
				if slices.Contains(classTimes, e.ClassTimeID) {
					touched[Place{e.ClassTimeID, e.ClassID}] = true
				}
			}
		}
	}
	eachChanged(a.Entries, b.Entries, func(e *Entry) int64 { return e.ID }, func(e *Entry) { touched[Place{e.ClassTimeID, e.ClassID}] = true })
	eachChanged(a.Changes, b.Changes, changeKey, func(c *DayChange) { touched[Place{c.Ref.ClassTimeID, c.Ref.ClassID}] = true })
	if len(touched) > 0 || len(classTimes) > 0 {
		sessions = true
	}
	eachChanged(a.Standing, b.Standing, func(r *Standing) int64 { return r.ID }, func(r *Standing) { touched[Place{r.ClassTimeID, r.ClassID}] = true })
	var skipped []int64
	eachChanged(a.StandingSkips, b.StandingSkips, func(k *StandingSkip) int64 { return k.ID }, func(k *StandingSkip) { skipped = append(skipped, k.StandingID) })
	if len(skipped) > 0 {
		for _, s := range []State{a, b} {
			for _, r := range s.Standing {
				if slices.Contains(skipped, r.ID) {
					touched[Place{r.ClassTimeID, r.ClassID}] = true
				}
			}
		}
	}
	return false, sessions, touched
}

func rowsDiffer[T any](a, b []T, id func(*T) int64) bool {
	differ := false
	eachChanged(a, b, id, func(*T) { differ = true })
	return differ
}
