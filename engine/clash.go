package engine

import (
	"cmp"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
)

// ClashKind says what is double-booked.
type ClashKind int8

const (
	RoomClash ClashKind = iota + 1
	StaffClash
)

func (k ClashKind) String() string {
	switch k {
	case RoomClash:
		return "ROOM"
	case StaffClash:
		return "STAFF"
	}
	return "UNKNOWN"
}

// Clash is a set of sessions that cannot all happen: a room holding more
// units than it has, or a person in two places. It happens on First and then
// every Every weeks up to Until, inclusive; Until is zero when it repeats for
// every future date; Every is zero for a clash on First alone.
//
// A room clash names a minimal set of sessions: together they need more
// units than the room has, and without any one of them they fit. With rooms
// whose sessions use all of them, that is a pair.
type Clash struct {
	Kind     ClashKind
	RoomID   int64  // room clashes
	Staff    string // staff clashes: the person's name
	Sessions []Session
	// Bookings are the room bookings a room clash involves.
	Bookings []RoomBooking
	First    Date
	Every    int
	Until    Date
	Message  string
	// Facts are what Message says, for writing it in another language.
	Facts ClashFacts

	// keys are the clash's identities: what clashes with what, in words and
	// series weeks, never row ids or the dates a scan happened to look at.
	keys []string
}

// Report is the result of the clash proof. ProvenUntil is zero when the proof
// covers every future date.
type Report struct {
	Clashes     []Clash
	ProvenUntil Date
}

// Keys returns the clash's identities (what clashes with what), which
// NewClashes compares; a store keeps them to remember clashes it accepted.
func (c *Clash) Keys() []string { return c.keys }

// Dates returns the dates of the clash in [from, to).
func (c *Clash) Dates(from, to Date) []Date {
	var out []Date
	step := Date(7 * c.Every)
	last := c.Until
	if last == 0 {
		last = MaxDate
	}
	for d := c.First; d <= last && d < to; d += step {
		if d >= from {
			out = append(out, d)
		}
		if step == 0 {
			break
		}
	}
	return out
}

// Clashes validates a state and returns every clash on a date from the week
// of today on.
func Clashes(s State, today Date) (Report, error) {
	t, err := New(s)
	if err != nil {
		return Report{}, err
	}
	return t.Clashes(today), nil
}

// NewClashes returns the clashes of after that before did not have. A clash
// is known by what clashes with what (names, times, series and weeks), so
// saving the same data again under new ids, or adding something unrelated,
// finds nothing new; a clash that now also happens in a series week it did
// not clash in before is new.
func NewClashes(before, after Report) []Clash {
	known := make(map[string]bool)
	for _, c := range before.Clashes {
		for _, k := range c.keys {
			known[k] = true
		}
	}
	var out []Clash
	for _, c := range after.Clashes {
		for _, k := range c.keys {
			if !known[k] {
				out = append(out, c)
				break
			}
		}
	}
	return out
}

// Clashes proves, for every date from the week of today on, which sessions
// clash. It does not scan dates. Series sessions repeat with their rotation,
// so the weeks in which a set of them all happen is an intersection of
// residue classes — one residue class modulo the lcm of the cycles, or empty —
// computed directly for each set of sessions that could clash; pauses,
// closures and day changes cut those classes into finite pieces. Sessions a
// day change moves or re-times, and one-offs, happen on known dates, and only
// those dates are resolved one by one. The cost grows with the number of
// rules and exceptions, never with the lcm of the cycles or the distance to
// the last date.
func (t *Timetable) Clashes(today Date) Report {
	r, _ := t.ClashesOrStop(today, nil)
	return r
}

// ClashesOrStop is Clashes for a caller with a deadline: it asks stop, now
// and then, whether to go on, and returns ErrStopped as soon as stop
// reports true (a nil stop never does). The engine keeps no clock: the
// caller decides what "too late" is, from a request's context for example.
func (t *Timetable) ClashesOrStop(today Date, stop func() bool) (Report, error) {
	p, err := t.Prove(today, stop)
	if err != nil {
		return Report{}, err
	}
	return p.Report(), nil
}

// clashesByDays is the proof as it was first written: the periodic part for
// every weekday at once, and every date on which something dated falls
// resolved whole. It gives what Prove gives (TestProofEqualsWholeDays), more
// slowly, and stays as the oracle the proof room by room is checked with.
func (t *Timetable) clashesByDays(today Date, stop func() bool) (Report, error) {
	p := prover{t: t, today: today, w0: WeekOf(today, t.ws), found: map[string]*candidate{}, stop: stop}
	p.segmentEntries()
	p.periodic()
	if p.stopped {
		return Report{}, ErrStopped
	}
	p.dated()
	if p.stopped {
		return Report{}, ErrStopped
	}
	return report(p.clashes), nil
}

// report sorts clashes into a report: by first date, kind and message, and
// then by everything else that tells two clashes apart, so that the order
// depends on the clashes alone and never on the order they were found in.
func report(clashes []Clash) Report {
	out := make([]Clash, 0, len(clashes))
	out = append(out, clashes...)
	slices.SortFunc(out, func(a, b Clash) int { return compareClashes(&a, &b) })
	return Report{Clashes: out}
}

func compareClashes(a, b *Clash) int {
	if c := cmp.Or(cmp.Compare(a.First, b.First), cmp.Compare(a.Kind, b.Kind), strings.Compare(a.Message, b.Message),
		cmp.Compare(a.Every, b.Every), cmp.Compare(a.Until, b.Until), slices.Compare(a.keys, b.keys),
		cmp.Compare(a.RoomID, b.RoomID), strings.Compare(a.Staff, b.Staff),
		cmp.Compare(len(a.Sessions), len(b.Sessions)), cmp.Compare(len(a.Bookings), len(b.Bookings))); c != 0 {
		return c
	}
	for i := range a.Sessions {
		x, y := a.Sessions[i].Ref(), b.Sessions[i].Ref()
		if c := cmp.Or(cmp.Compare(x.Date, y.Date), cmp.Compare(x.ClassTimeID, y.ClassTimeID),
			cmp.Compare(x.ClassID, y.ClassID), cmp.Compare(a.Sessions[i].OneOffID, b.Sessions[i].OneOffID)); c != 0 {
			return c
		}
	}
	for i := range a.Bookings {
		if c := cmp.Compare(a.Bookings[i].ID, b.Bookings[i].ID); c != 0 {
			return c
		}
	}
	return 0
}

type prover struct {
	t     *Timetable
	rx    *resourceIndex // the resources a proof by resource proves
	today Date
	w0    int
	// stop, when set, is asked every stopEvery steps whether to give up;
	// stopped records that it said so.
	stop    func() bool
	steps   int
	stopped bool
	// segs[g][e] are the weeks in which entry e of group g yields a session
	// that the periodic part reasons about: running, not paused, not closed,
	// not changed, from week w0 on.
	segs [][][]segment
	// live, when the proof goes resource by resource, says for each group
	// whether its segs are computed (0: not yet) and hold a week (1) or
	// none (2); see isLive.
	live    []int8
	found   map[string]*candidate
	clashes []Clash

	// Buffers reused from one resource, weekday or date to the next, and
	// the chunks segments are handed out from (see takeSegments).
	removed, scratch, segChunk []segment
	listChunk                  [][]segment
	chunk                      int // the size of a chunk (see chunkFor)
	liveBuf                    []int
	lists                      [][][]segment
	spans                      []span
	dayBuf                     []Session
}

// stopEvery is how many steps of the proof go between two questions to
// the caller's stop function: cheap enough to ask often, rare enough not
// to show in the proof's time.
const stopEvery = 256

// halt counts a step and reports whether the proof must stop.
func (p *prover) halt() bool {
	if p.stopped {
		return true
	}
	if p.stop == nil {
		return false
	}
	if p.steps++; p.steps%stopEvery == 0 && p.stop() {
		p.stopped = true
	}
	return p.stopped
}

// candidate is a set of groups that clash whenever all of them happen.
type candidate struct {
	kind     ClashKind
	resource string // room id or person key
	staff    string // display name for staff clashes
	room     int64
	members  []int // group indices, ascending
	// A room clash holds under one capacity regime of its room: the weeks
	// allow (nil: every week) and, for a stretch of overrides, its name
	// in the clash's identity.
	allow  []segment
	regime string
}

func (p *prover) segmentEntries() {
	t := p.t
	removed := make([][]segment, len(t.groups)) // [from, to) week ranges
	for ref, c := range t.changes {
		if !c.Cancelled && !affectsTimetable(c) {
			continue // a note leaves the session as it is
		}
		gi, ok := t.groupOf[groupKey{ref.ClassTimeID, ref.ClassID}]
		if !ok || t.groups[gi].ct.Weekday != ref.Date.Weekday() {
			continue
		}
		w := WeekOf(ref.Date, t.ws)
		removed[gi] = append(removed[gi], segment{from: w, to: w + 1})
	}
	p.segs = make([][][]segment, len(t.groups))
	for gi := range t.groups {
		g := &t.groups[gi]
		if g.ct.Inactive {
			continue
		}
		for _, c := range t.closures {
			if c.ClosesRoom(g.ct.RoomID) {
				if from, to := weeksOn(c.From, c.To, g.ct.Weekday, t.ws); from < to {
					removed[gi] = append(removed[gi], segment{from: from, to: to})
				}
			}
		}
		p.segs[gi] = p.entrySegments(g, removed[gi])
	}
}

// entrySegments returns the weeks each entry of a group yields a session
// in, from week w0 on, less the weeks removed.
func (p *prover) entrySegments(g *group, removed []segment) [][]segment {
	cuts := mergeRanges(removed)
	out := make([][]segment, len(g.entries))
	for ei, e := range g.entries {
		for _, s := range e.rot.segments(e.week) {
			s.from = max(s.from, p.w0)
			out[ei] = appendCut(out[ei], s, cuts)
		}
	}
	return out
}

// seg returns the segments of group gi, computing them on first use when
// the proof goes room by room and person by person.
func (p *prover) seg(gi int) [][]segment {
	if p.live != nil {
		p.isLive(gi)
	}
	return p.segs[gi]
}

// weeksOn returns the weeks [from, to) whose day wd lies in a..b
// (inclusive dates).
func weeksOn(a, b Date, wd, ws time.Weekday) (from, to int) {
	off := int(DayIn(0, wd, ws) - WeekStartDay(0, ws))
	return ceilDiv(int(a)-int(ws)-off, 7), floorDiv(int(b)-int(ws)-off, 7) + 1
}

func floorDiv(a, b int) int {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

// mergeRanges merges ranges into sorted, disjoint ones, leaving rs as it
// is (mergeSorted does it in place).
func mergeRanges(rs []segment) []segment {
	return mergeSorted(slices.Clone(rs))
}

// appendCut appends s minus the sorted, disjoint ranges cuts.
func appendCut(out []segment, s segment, cuts []segment) []segment {
	for _, c := range cuts {
		if c.to <= s.from || s.from >= s.to {
			continue
		}
		if c.from >= s.to {
			break
		}
		if c.from > s.from {
			part := s
			part.to = c.from
			out = append(out, part)
		}
		s.from = c.to
	}
	if s.from < s.to {
		out = append(out, s)
	}
	return out
}

// periodic finds every set of series sessions that would clash if they all
// happened, from the class times alone, then the weeks in which they do.
func (p *prover) periodic() {
	t := p.t
	for wd := range t.byWeekday {
		if p.halt() {
			return
		}
		var live []int
		for _, gi := range t.byWeekday[wd] {
			if p.hasWeeks(gi) {
				live = append(live, gi)
			}
		}
		p.roomCandidates(time.Weekday(wd), live)
		p.staffCandidates(live, "")
	}
	p.solveFound()
}

func (p *prover) hasWeeks(gi int) bool {
	for _, s := range p.seg(gi) {
		if len(s) > 0 {
			return true
		}
	}
	return false
}

func (p *prover) roomCandidates(wd time.Weekday, live []int) {
	t := p.t
	byRoom := map[int64][]span{}
	for _, gi := range live {
		ct := t.groups[gi].ct
		byRoom[ct.RoomID] = append(byRoom[ct.RoomID], span{
			start: ct.Start, end: occupiedUntil(ct.End, ct.Buffer),
			units: t.units(ct.Units, ct.RoomID), whole: ct.Units == 0, id: gi,
		})
	}
	for room, spans := range byRoom {
		for _, rg := range p.regimes(room, wd) {
			overloads(spans, rg.levels, p.halt, func(members []int) {
				p.add(&candidate{kind: RoomClash, resource: strconv.FormatInt(room, 10), room: room, members: members,
					allow: rg.allow, regime: rg.name})
			})
		}
	}
}

// regime is a room's capacity over some weeks, on one weekday: its weekly
// rules outside its overrides, or the overrides of one stretch of dates.
type regime struct {
	levels []Level
	allow  []segment // nil: every week
	name   string    // "" for the weekly rules
}

// regimes splits a room's weeks on weekday wd by the capacity that holds
// on that day: the stretches between the ends of its overrides each have
// one set of overrides, so one set of levels, and the weeks no override
// touches have the weekly levels. The count grows with the overrides, not
// with the dates they span.
func (p *prover) regimes(room int64, wd time.Weekday) []regime {
	t := p.t
	weekly := regime{levels: t.weeklyLevels(room, wd)}
	var overrides []*CapacityRule
	for _, r := range t.rules[room] {
		if r.Override() {
			overrides = append(overrides, r)
		}
	}
	if len(overrides) == 0 {
		return []regime{weekly}
	}
	points := make([]Date, 0, 2*len(overrides))
	for _, r := range overrides {
		points = append(points, r.From, r.To+1)
	}
	slices.Sort(points)
	points = slices.Compact(points)
	var out []regime
	var taken []segment
	for i := 0; i+1 < len(points); i++ {
		a, b := points[i], points[i+1]-1
		from, to := weeksOn(a, b, wd, t.ws)
		if from >= to {
			continue
		}
		var levels []Level
		held := false
		for _, r := range overrides {
			if r.From <= a && b <= r.To {
				held = true
				levels = append(levels, Level{From: int64(r.Start), To: int64(r.End), Units: r.Units})
			}
		}
		if !held {
			continue
		}
		slices.SortFunc(levels, func(x, y Level) int { return int(x.From - y.From) })
		allow := []segment{{from: from, to: to, mod: 1}}
		taken = append(taken, allow[0])
		out = append(out, regime{levels: levels, allow: allow, name: "capacity " + a.String() + ".." + b.String()})
	}
	// The weekly rules hold in the weeks between.
	weekly.allow = appendCut(nil, segment{from: p.w0, to: NoEnd, mod: 1}, mergeRanges(taken))
	return append(out, weekly)
}

// staffCandidates finds the pairs of live groups of one weekday that share
// a person: every person's, or only the one whose key is only.
func (p *prover) staffCandidates(live []int, only string) {
	t := p.t
	byPerson := map[string][]span{}
	names := map[string]string{}
	for _, gi := range live {
		g := &t.groups[gi]
		for _, k := range p.people(g.class.StaffIDs, names) {
			if only != "" && k != only {
				continue
			}
			byPerson[k] = append(byPerson[k], span{start: g.ct.Start, end: g.ct.End, id: gi})
		}
	}
	for k, spans := range byPerson {
		overlappingPairs(spans, func(a, b int) {
			p.add(&candidate{kind: StaffClash, resource: k, staff: names[k], members: []int{a, b}})
		})
	}
}

// people returns the distinct person keys of a staff list, noting a display
// name for each.
func (p *prover) people(ids []int64, names map[string]string) []string {
	out := make([]string, 0, len(ids))
	for _, id := range ids {
		name := p.t.staff[id].Name
		k := NameKey(name)
		if !slices.Contains(out, k) {
			out = append(out, k)
		}
		if _, ok := names[k]; !ok {
			names[k] = name
		}
	}
	return out
}

func (p *prover) add(c *candidate) {
	sort.Ints(c.members)
	k := c.kind.String() + "|" + c.resource + "|" + c.regime
	for _, m := range c.members {
		k += "|" + strconv.Itoa(m)
	}
	if _, ok := p.found[k]; !ok {
		p.found[k] = c
	}
}

// occurrence is one way a candidate happens: a progression of weeks and the
// identities (choices of series entries) that produce it.
type occurrence struct {
	weeks progression
	keys  []string
}

// solve finds the weeks in which every member of a candidate happens: for
// each choice of one entry per member and one segment per entry, the
// intersection of their residue classes.
func (p *prover) solve(c *candidate) {
	if !p.meets(c.members, c.allow) {
		return // the usual end: its members never all happen in one week
	}
	var occ []occurrence
	choice := make([]int, len(c.members))
	var walk func(i int, weeks progression)
	walk = func(i int, weeks progression) {
		if p.halt() {
			return
		}
		if i == len(c.members) {
			if c.allow == nil {
				occ = addOccurrence(occ, weeks, p.identity(c, choice))
				return
			}
			for _, a := range c.allow {
				if w, ok := weeks.meet(a); ok {
					occ = addOccurrence(occ, w, p.identity(c, choice))
				}
			}
			return
		}
		gi := c.members[i]
		for ei, segs := range p.seg(gi) {
			choice[i] = ei
			for _, s := range segs {
				var next progression
				var ok bool
				if i == 0 {
					next, ok = startProgression(s)
				} else {
					next, ok = weeks.meet(s)
				}
				if ok {
					walk(i+1, next)
				}
			}
		}
	}
	walk(0, progression{})
	occ = dropContained(occ)
	for _, o := range occ {
		p.emitPeriodic(c, o)
	}
}

// meets reports whether solve finds anything for a candidate of these
// members and weeks allowed (nil: every week): whether the members all
// happen in some week, and in an allowed one.
func (p *prover) meets(members []int, allow []segment) bool {
	lists := p.lists[:0]
	for _, gi := range members {
		lists = append(lists, p.seg(gi))
	}
	p.lists = lists
	return meetAll(lists, allow, 0, progression{}, p.halt)
}

// meetAll reports whether the things whose weeks lists hold (for each,
// its entries' segments) all happen in some week of weeks (any week when
// i is 0), from the i-th on, and in a week of allow (nil: every week). It
// walks as solve does, but stops at the first week found and names
// nothing; halt, asked at each step, ends it with false.
func meetAll(lists [][][]segment, allow []segment, i int, weeks progression, halt func() bool) bool {
	if halt() {
		return false
	}
	if i == len(lists) {
		if allow == nil {
			return true
		}
		return slices.ContainsFunc(allow, func(a segment) bool { _, ok := weeks.meet(a); return ok })
	}
	for _, segs := range lists[i] {
		for _, s := range segs {
			var next progression
			var ok bool
			if i == 0 {
				next, ok = startProgression(s)
			} else {
				next, ok = weeks.meet(s)
			}
			if ok && meetAll(lists, allow, i+1, next, halt) {
				return true
			}
		}
	}
	return false
}

func addOccurrence(occ []occurrence, weeks progression, key string) []occurrence {
	for i := range occ {
		if occ[i].weeks == weeks {
			occ[i].keys = appendKey(occ[i].keys, key)
			return occ
		}
	}
	return append(occ, occurrence{weeks: weeks, keys: []string{key}})
}

func appendKey(keys []string, k string) []string {
	if slices.Contains(keys, k) {
		return keys
	}
	return append(keys, k)
}

// dropContained folds an occurrence whose weeks another one holds into that
// one, so a clash is reported once with all its identities.
func dropContained(occ []occurrence) []occurrence {
	sort.SliceStable(occ, func(i, j int) bool { return occ[i].weeks.count() > occ[j].weeks.count() })
	var out []occurrence
next:
	for _, o := range occ {
		for i := range out {
			if out[i].weeks.contains(o.weeks) {
				for _, k := range o.keys {
					out[i].keys = appendKey(out[i].keys, k)
				}
				continue next
			}
		}
		out = append(out, o)
	}
	return out
}

// identity names a clash by its content: kind, resource, and for each
// session the class, class time and the series week chosen for it.
func (p *prover) identity(c *candidate, choice []int) string {
	parts := make([]string, len(c.members))
	for i, gi := range c.members {
		g := &p.t.groups[gi]
		e := g.entries[choice[i]]
		parts[i] = p.groupContent(g) + "@" + NameKey(e.series.Name) + "#" + strconv.Itoa(e.week)
	}
	k := p.resourceKey(c) + "|" + sortedJoin(parts)
	if c.regime != "" {
		k += "|" + c.regime
	}
	return k
}

func (p *prover) resourceKey(c *candidate) string {
	if c.kind == RoomClash {
		return "room|" + NameKey(p.t.rooms[c.room].Name)
	}
	return "staff|" + c.resource
}

func (p *prover) groupContent(g *group) string {
	return p.content(g.class.ActivityID, g.class.StaffIDs, g.ct.RoomID, g.ct.Start, g.ct.End) + "|" + g.ct.Weekday.String()
}

func (p *prover) content(activity int64, staff []int64, room int64, start, end LocalTime) string {
	names := make([]string, len(staff))
	for i, id := range staff {
		names[i] = NameKey(p.t.staff[id].Name)
	}
	return NameKey(p.t.activities[activity].Name) + "/" + sortedJoin(names) + "/" +
		NameKey(p.t.rooms[room].Name) + "/" + start.String() + "-" + end.String()
}

func sortedJoin(parts []string) string {
	sort.Strings(parts)
	return strings.Join(parts, "&")
}

func (p *prover) emitPeriodic(c *candidate, o occurrence) {
	t := p.t
	wd := t.groups[c.members[0]].ct.Weekday
	first := DayIn(o.weeks.first, wd, t.ws)
	cl := Clash{Kind: c.kind, RoomID: c.room, Staff: c.staff, First: first, Until: first, keys: o.keys}
	if o.weeks.step > 0 {
		cl.Every = o.weeks.step
		if o.weeks.last+o.weeks.step < NoEnd {
			cl.Until = DayIn(o.weeks.last, wd, t.ws)
		} else {
			cl.Until = 0
		}
	}
	for _, gi := range c.members {
		g := &t.groups[gi]
		cl.Sessions = append(cl.Sessions, t.regular(g, first, g.activeIn(o.weeks.first)))
	}
	cl.Message = t.clashMessage(&cl, p.today)
	p.clashes = append(p.clashes, cl)
}

// dated resolves each date on which something is dated — a day change, a
// one-off, a room booking — and reports the clashes that involve it.
// Clashes among series sessions as their rules make them, under the
// capacity their room has then (weekly rules or overrides), are the
// periodic part's.
func (p *prover) dated() {
	t := p.t
	from := WeekStartDay(p.w0, t.ws)
	seen := map[Date]bool{}
	var dates []Date
	note := func(d Date) {
		if d >= from && !seen[d] {
			seen[d] = true
			dates = append(dates, d)
		}
	}
	for _, c := range t.state.Changes {
		if !c.Cancelled && affectsTimetable(&c) {
			if c.Date != 0 {
				note(c.Date)
			} else {
				note(c.Ref.Date)
			}
		}
	}
	for _, o := range t.state.OneOffs {
		if !o.Cancelled {
			note(o.Date)
		}
	}
	for _, b := range t.state.RoomBookings {
		if !b.Cancelled {
			note(b.Date)
		}
	}
	sort.Slice(dates, func(i, j int) bool { return dates[i] < dates[j] })
	for _, d := range dates {
		if p.halt() {
			return
		}
		sessions := t.Day(d)
		bookings := t.bookings[d]
		dated := func(m int) bool {
			if m >= len(sessions) {
				return true // a room booking
			}
			s := &sessions[m]
			return s.IsOneOff() || s.Changed
		}
		dayClashes(t, d, sessions, bookings, p.halt, func(kind ClashKind, resource, staff string, members []int) {
			if slices.ContainsFunc(members, dated) {
				p.emitDated(d, sessions, bookings, kind, resource, staff, members)
			}
		})
	}
}

// emitDated reports a clash of date d among members, indices into sessions
// or, from len(sessions) on, into bookings.
func (p *prover) emitDated(d Date, sessions []Session, bookings []*RoomBooking, kind ClashKind, resource, staff string, members []int) {
	t := p.t
	cl := Clash{Kind: kind, Staff: staff, First: d, Until: d}
	parts := make([]string, len(members))
	for i, m := range members {
		if m >= len(sessions) {
			b := *bookings[m-len(sessions)]
			cl.Bookings = append(cl.Bookings, b)
			parts[i] = fmt.Sprintf("booking/%s/%s-%s/%d/%d", NameKey(t.rooms[b.RoomID].Name), b.Start, b.End, b.Units, b.ClientID)
			cl.RoomID = b.RoomID
			continue
		}
		s := sessions[m]
		cl.Sessions = append(cl.Sessions, s)
		parts[i] = p.sessionContent(&s)
		if kind == RoomClash {
			cl.RoomID = s.RoomID
		}
	}
	resKey := "staff|" + resource
	if kind == RoomClash {
		resKey = "room|" + NameKey(t.rooms[cl.RoomID].Name)
	}
	cl.keys = []string{resKey + "|" + sortedJoin(parts) + "|" + d.String()}
	cl.Message = t.clashMessage(&cl, p.today)
	p.clashes = append(p.clashes, cl)
}

func (p *prover) sessionContent(s *Session) string {
	k := p.content(p.t.classes[s.ClassID].ActivityID, s.StaffIDs, s.RoomID, s.Start, s.End)
	if s.IsOneOff() {
		return k + "|one-off:" + NameKey(s.Label)
	}
	ref := s.Ref()
	g := &p.t.groups[p.t.groupOf[groupKey{ref.ClassTimeID, ref.ClassID}]]
	return k + "|from:" + ref.Date.String() + ":" + p.groupContent(g)
}

// dayClashes finds the clashes among the sessions and room bookings of date
// d that are not cancelled, calling found with indices into sessions, or
// len(sessions)+i for bookings[i].
func dayClashes(t *Timetable, d Date, sessions []Session, bookings []*RoomBooking, halt func() bool, found func(kind ClashKind, resource, staff string, members []int)) {
	byRoom := map[int64][]span{}
	byPerson := map[string][]span{}
	names := map[string]string{}
	for i := range sessions {
		s := &sessions[i]
		if s.Cancelled {
			continue
		}
		byRoom[s.RoomID] = append(byRoom[s.RoomID], span{start: s.Start, end: occupiedUntil(s.End, int(s.Buffer)), units: int(s.Units), whole: t.takesWholeRoom(s), id: i})
		var keys []string
		for _, id := range s.StaffIDs {
			name := t.staff[id].Name
			k := NameKey(name)
			if slices.Contains(keys, k) {
				continue
			}
			keys = append(keys, k)
			if _, ok := names[k]; !ok {
				names[k] = name
			}
			byPerson[k] = append(byPerson[k], span{start: s.Start, end: s.End, id: i})
		}
	}
	for i, b := range bookings {
		if !b.Cancelled {
			byRoom[b.RoomID] = append(byRoom[b.RoomID], span{start: b.Start, end: b.End, units: t.units(b.Units, b.RoomID), whole: b.Units == 0, id: len(sessions) + i})
		}
	}
	rooms := make([]int64, 0, len(byRoom))
	for r := range byRoom {
		rooms = append(rooms, r)
	}
	sort.Slice(rooms, func(i, j int) bool { return rooms[i] < rooms[j] })
	for _, r := range rooms {
		overloads(byRoom[r], t.dayLevels(r, d), halt, func(members []int) {
			found(RoomClash, strconv.FormatInt(r, 10), "", members)
		})
	}
	people := make([]string, 0, len(byPerson))
	for k := range byPerson {
		people = append(people, k)
	}
	sort.Strings(people)
	for _, k := range people {
		overlappingPairs(byPerson[k], func(a, b int) {
			found(StaffClash, k, names[k], []int{min(a, b), max(a, b)})
		})
	}
}

// occupiedUntil is when a room is free again after a session: its end plus
// the cleaning buffer, at most midnight.
func occupiedUntil(end LocalTime, buffer int) LocalTime {
	return min(end+LocalTime(buffer), EndOfDay)
}

// span is a half-open stretch [start, end) of one day that uses units of a
// room (or a person), for the thing with the given id.
type span struct {
	start, end LocalTime
	units      int
	whole      bool // takes the whole room: the level of the moment
	id         int
}

// overlappingPairs calls found for each pair of spans that overlap;
// back-to-back spans do not.
func overlappingPairs(spans []span, found func(a, b int)) {
	byStart := func(a, b span) int { return cmp.Compare(a.start, b.start) }
	if !slices.IsSortedFunc(spans, byStart) {
		slices.SortStableFunc(spans, byStart)
	}
	for i := range spans {
		for j := i + 1; j < len(spans) && spans[j].start < spans[i].end; j++ {
			if spans[i].id != spans[j].id {
				found(spans[i].id, spans[j].id)
			}
		}
	}
}

// overloads calls found once for each minimal set of spans that share an
// instant at which they need more units than the room's level then: the
// set is over capacity and no smaller one within it is, anywhere. levels
// are the room's units over the day, in minutes. A span that takes the whole
// room needs the level of the moment, and at least one unit.
//
// The day is cut at every start, end and change of level; in each piece the
// spans present are fixed, and the subsets of them that first go over the
// level are found by minimalOverloads. A set can be minimal in one piece
// yet hold a set that is over capacity in another, so what is kept are the
// minimal sets among all pieces'. halt, asked at each step of the
// enumeration (whose size can grow with the binomial coefficients of the
// spans present), ends it early.
func overloads(spans []span, levels []Level, halt func() bool, found func(ids []int)) {
	cuts := make([]int64, 0, 2*len(spans)+2*len(levels))
	for _, s := range spans {
		cuts = append(cuts, int64(s.start), int64(s.end))
	}
	for _, l := range levels {
		cuts = append(cuts, l.From, l.To)
	}
	slices.Sort(cuts)
	cuts = slices.Compact(cuts)
	seen := map[string][]int{}
	var present []int
	need := make([]int, len(spans))
	for i := 0; i+1 < len(cuts); i++ {
		a := cuts[i]
		level := levelAt(levels, a)
		present = present[:0]
		total := 0
		for k, s := range spans {
			if int64(s.start) <= a && a < int64(s.end) {
				present = append(present, k)
				need[k] = s.units
				if s.whole {
					need[k] = max(level, 1)
				}
				total += need[k]
			}
		}
		if total <= level {
			continue
		}
		minimalOverloads(need, present, level, halt, func(set []int) {
			ids := make([]int, len(set))
			for k, i := range set {
				ids[k] = spans[i].id
			}
			sort.Ints(ids)
			seen[intsKey(ids)] = ids
		})
		if halt() {
			return
		}
	}
	keys := make([]string, 0, len(seen))
	for k := range seen {
		keys = append(keys, k)
	}
	sort.Strings(keys)
next:
	for _, k := range keys {
		if halt() {
			return
		}
		for k2, other := range seen {
			if k2 != k && len(other) < len(seen[k]) && subset(other, seen[k]) {
				continue next
			}
		}
		found(seen[k])
	}
}

// subset reports whether every id of a (sorted) is in b (sorted).
func subset(a, b []int) bool {
	j := 0
	for _, x := range a {
		for j < len(b) && b[j] < x {
			j++
		}
		if j == len(b) || b[j] != x {
			return false
		}
	}
	return true
}

// minimalOverloads enumerates the subsets of members that need more than
// level units and fit once any member is taken away. Taking the members in
// falling order of need, a subset is minimal exactly when it first goes over
// the level with its last (smallest) member, so each is found once.
func minimalOverloads(need []int, members []int, level int, halt func() bool, found func([]int)) {
	order := append([]int(nil), members...)
	sort.SliceStable(order, func(a, b int) bool { return need[order[a]] > need[order[b]] })
	set := make([]int, 0, len(order))
	var walk func(from, sum int)
	walk = func(from, sum int) {
		for j := from; j < len(order); j++ {
			if halt() {
				return
			}
			u := need[order[j]]
			set = append(set, order[j])
			if sum+u > level {
				found(set)
			} else {
				walk(j+1, sum+u)
			}
			set = set[:len(set)-1]
		}
	}
	walk(0, 0)
}

func intsKey(ids []int) string {
	var b strings.Builder
	for _, id := range ids {
		b.WriteString(strconv.Itoa(id))
		b.WriteByte(',')
	}
	return b.String()
}

// solveFound solves the candidates found, in the order of their keys, so
// that a report comes out the same every time.
func (p *prover) solveFound() {
	keys := make([]string, 0, len(p.found))
	for k := range p.found {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if p.halt() {
			return
		}
		p.solve(p.found[k])
	}
}
