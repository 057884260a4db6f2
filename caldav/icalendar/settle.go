package icalendar

import (
	"slices"
	"sort"
	"time"

	"github.com/koredyne/schedule/engine"
)

// settle turns the weekly-periodic events into series, entries and day
// changes. Sessions of one class in one class time are one session in the
// engine, however many series hold them, so the events are first gathered
// by (class time, class) — a group — and each group's dates are the union
// of its events' dates. The entries of a group make a superset of those;
// what they make beyond it (the start of the first week before DTSTART, the
// end of the last week after UNTIL or COUNT, EXDATE) becomes cancelled day
// changes.
//
// A file this package wrote names the series of each event
// (X-KOREDYNE-SERIES); those series are restored as they were when their
// entries make exactly the group's dates (up to finitely many
// cancellations). Every other event becomes a series of its own, anchored
// on the week of its first date, with the rule's cycle.
func (im *importer) settle() {
	for changed := true; changed; {
		changed = false
		bad := im.badKeys()
		for _, e := range im.events {
			if e.meta && e.usesAny(bad) {
				e.meta, changed = false, true
			}
		}
		gs := im.groups()
		for _, g := range gs.list {
			if g.consistent(im.ws) {
				continue
			}
			for _, e := range g.events {
				if e.meta {
					e.meta, changed = false, true
				}
			}
		}
	}
	kept := im.events[:0]
	for _, e := range im.events {
		if !e.meta && e.period > engine.MaxCycle {
			im.imported--
			im.unsupported(e, im.tooLong(e.period), true)
			continue
		}
		kept = append(kept, e)
	}
	im.events = kept
	gs := im.groups()
	for _, e := range im.events {
		if !e.meta {
			im.derive(e, gs)
		}
	}
	im.rows(gs)
}

// maxCancels bounds the cancellations one group may need.
const maxCancels = 5000

func (e *event) usesAny(keys map[string]bool) bool {
	for _, d := range e.decls {
		if keys[d.key] {
			return true
		}
	}
	return false
}

// ctKey is a class time as an import knows it before it has an id.
type ctKey struct {
	room                    string // key of the room name
	wd                      time.Weekday
	start, end              int
	label, typ              string
	capacity, buffer, units int
	file                    string // X-KOREDYNE-CLASSTIME of a file this package wrote
}

func (e *event) ctKey(wd time.Weekday) ctKey {
	return ctKey{room: key(e.in.room), wd: wd, start: e.startB, end: e.endB, label: e.in.label, typ: e.in.typ,
		capacity: e.in.capacity, buffer: e.in.buffer, units: e.in.units, file: e.in.classTime}
}

type gkey struct {
	ct    ctKey
	class string
}

// pseries is a series to create.
type pseries struct {
	name        string
	anchor, end engine.Date
	cycle       int
	id          int64
}

type pentry struct {
	series *pseries
	week   int
}

type group struct {
	key     gkey
	events  []*event
	entries []pentry
	first   *event // supplies the room, class and class-time details
}

type groups struct {
	list   []*group
	by     map[gkey]*group
	series map[string]*pseries // by X-KOREDYNE-SERIES key
	order  []*pseries          // in the order they were made
}

func (gs *groups) get(k gkey, e *event) *group {
	g := gs.by[k]
	if g == nil {
		g = &group{key: k, first: e}
		gs.by[k] = g
		gs.list = append(gs.list, g)
	}
	return g
}

func (g *group) addEvent(e *event) {
	for _, x := range g.events {
		if x == e {
			return
		}
	}
	g.events = append(g.events, e)
}

func (g *group) addEntry(p pentry) {
	for _, x := range g.entries {
		if x == p {
			return
		}
	}
	g.entries = append(g.entries, p)
}

// groups gathers every event by (class time, class), with the declared
// entries of the events still trusted.
func (im *importer) groups() *groups {
	gs := &groups{by: map[gkey]*group{}, series: map[string]*pseries{}}
	for _, e := range im.events {
		for _, dr := range e.runs {
			g := gs.get(gkey{e.ctKey(dr.wd), e.classKey}, e)
			g.addEvent(e)
			if !e.meta {
				continue
			}
			for _, d := range e.decls {
				s := gs.series[d.key]
				if s == nil {
					s = &pseries{name: d.name, anchor: d.anchor, end: d.end, cycle: d.cycle}
					gs.series[d.key] = s
					gs.order = append(gs.order, s)
				}
				g.addEntry(pentry{s, d.week})
			}
		}
	}
	return gs
}

// badKeys are the declared series that cannot be restored as written:
// their declarations disagree, or a pausing closure of the existing state
// would hold their rotation.
func (im *importer) badKeys() map[string]bool {
	bad := map[string]bool{}
	first := map[string]decl{}
	rooms := map[string]map[int64]bool{}
	fake := int64(0)
	roomID := map[string]int64{}
	for _, e := range im.events {
		if !e.meta {
			continue
		}
		for _, d := range e.decls {
			if f, ok := first[d.key]; ok && (f.name != d.name || f.anchor != d.anchor || f.end != d.end || f.cycle != d.cycle) {
				bad[d.key] = true
			} else if !ok {
				first[d.key] = d
			}
			id, ok := roomID[key(e.in.room)]
			if !ok {
				if id = im.cat.existingRoom(e.in.room); id == 0 {
					fake--
					id = fake // a new room: no closure of the existing state names it
				}
				roomID[key(e.in.room)] = id
			}
			if rooms[d.key] == nil {
				rooms[d.key] = map[int64]bool{}
			}
			rooms[d.key][id] = true
		}
	}
	for k, d := range first {
		end := engine.NoEnd
		if d.end != 0 {
			end = engine.WeekOf(d.end, im.ws)
		}
		if len(pausedWeeks(im.existing.Closures, rooms[k], engine.WeekOf(d.anchor, im.ws), end, im.ws)) > 0 {
			bad[k] = true
		}
	}
	return bad
}

// produced is what the group's entries make, week by week.
func (g *group) produced(ws time.Weekday) []run {
	var out []run
	for _, p := range g.entries {
		r := engine.RotationOf(&engine.Series{Anchor: p.series.anchor, End: p.series.end, Cycle: p.series.cycle}, nil, nil, ws)
		rn := legRun(r, r.Legs()[0], p.week) // no closure: one leg
		if p.series.end != 0 {
			rn.to = engine.WeekOf(p.series.end, ws)
		}
		out = append(out, rn)
	}
	return out
}

// desired is what the group's events give (EXDATE aside); metaOnly
// leaves out the events whose declared series are not trusted.
func (g *group) desired(metaOnly bool) []run {
	var out []run
	for _, e := range g.events {
		if metaOnly && !e.meta {
			continue
		}
		if r, ok := e.runOn(g.key.ct.wd); ok {
			out = append(out, r)
		}
	}
	return out
}

// consistent reports whether the declared entries of a group make every
// date its events give, and beyond them only finitely many.
func (g *group) consistent(ws time.Weekday) bool {
	if len(g.entries) == 0 {
		return true
	}
	missing, ok := minus(g.desired(true), g.produced(ws), 0)
	if !ok || len(missing) > 0 {
		return false
	}
	_, ok = minus(g.produced(ws), g.desired(true), maxCancels)
	return ok
}

// derive makes an event a series of its own: anchored on the week of its
// first date, ending after the week of its last, with the rule's cycle.
// A pausing closure of the existing state would hold the rotation, so the
// series is cut at its paused weeks and each piece starts afresh.
func (im *importer) derive(e *event, gs *groups) {
	if len(e.runs) == 0 {
		return
	}
	from, to := forever, 0
	for _, dr := range e.runs {
		w, _ := dr.run.first()
		from = min(from, w)
		if dr.run.to >= forever {
			to = engine.NoEnd
		} else if to != engine.NoEnd {
			l, _ := dr.run.last()
			to = max(to, l+1)
		}
	}
	room := im.cat.existingRoom(e.in.room)
	rooms := map[int64]bool{room: true}
	if room == 0 {
		rooms = map[int64]bool{-1: true}
	}
	paused := pausedWeeks(im.existing.Closures, rooms, from, to, im.ws)
	name := e.summary
	if name == "" {
		name = e.in.activity
	}
	cut := func(a, b int) {
		if a >= b {
			return
		}
		s := &pseries{name: name, anchor: engine.WeekStartDay(a, im.ws), cycle: e.period}
		if b < engine.NoEnd && engine.WeekStartDay(b, im.ws) <= engine.MaxDate {
			s.end = engine.WeekStartDay(b, im.ws)
		}
		made := false
		for _, dr := range e.runs {
			r := dr.run
			r.from, r.to = max(r.from, a), min(r.to, b)
			if r.empty() {
				continue
			}
			g := gs.get(gkey{e.ctKey(dr.wd), e.classKey}, e)
			g.addEvent(e)
			g.addEntry(pentry{s, mod(dr.run.res-a, e.period) + 1})
			made = true
		}
		if made {
			gs.order = append(gs.order, s)
		}
	}
	for _, p := range paused {
		cut(from, p.From)
		from = p.To
	}
	cut(from, to)
}

// rows writes the import into the state: rooms, staff, activities and
// classes by name, class times (reusing an identical existing one when
// that is safe), series and entries, the cancellations that make each
// group's dates exact, the overrides as day changes, and the one-offs of
// DTSTARTs outside their rule.
func (im *importer) rows(gs *groups) {
	for _, e := range im.events {
		e.class = im.cat.class(e.in.activity, e.in.color, e.in.staff)
	}
	ctIDs := im.classTimes(gs)
	for _, s := range gs.order {
		s.id = im.cat.id()
		im.st.Series = append(im.st.Series, engine.Series{ID: s.id, Name: s.name, Anchor: s.anchor, End: s.end, Cycle: s.cycle})
		im.series++
	}
	taken := map[engine.SessionRef]bool{}
	for _, g := range gs.list {
		if len(g.entries) == 0 {
			continue
		}
		ct := ctIDs[g.key.ct]
		class := g.first.class
		for _, p := range g.entries {
			im.st.Entries = append(im.st.Entries, engine.Entry{ID: im.cat.id(), SeriesID: p.series.id, ClassTimeID: ct, ClassID: class, Week: p.week})
		}
		produced, desired := g.produced(im.ws), g.desired(false)
		extra, _ := minus(produced, desired, maxCancels)
		cancel := map[int]bool{}
		for _, w := range extra {
			cancel[w] = true
		}
		for _, e := range g.events {
			for b := range e.exdates {
				if b.Weekday() == g.key.ct.wd && inAny(produced, engine.WeekOf(b, im.ws)) {
					cancel[engine.WeekOf(b, im.ws)] = true
				}
			}
		}
		weeks := make([]int, 0, len(cancel))
		for w := range cancel {
			if !g.wanted(w, im.ws) {
				weeks = append(weeks, w)
			}
		}
		sort.Ints(weeks)
		for _, w := range weeks {
			d := engine.DayIn(w, g.key.ct.wd, im.ws)
			c := engine.DayChange{Ref: engine.SessionRef{Date: d, ClassTimeID: ct, ClassID: class}, Cancelled: true}
			for _, e := range g.events {
				if n := e.cancelNotes[d]; n != "" {
					c.Note = n
				}
			}
			taken[c.Ref] = true
			im.st.Changes = append(im.st.Changes, c)
			im.changes++
		}
	}
	for _, e := range im.events {
		if e.extra != 0 {
			if sp, why := im.businessSpan(e.start, e.dur); why == "" {
				e.extraOneOff = im.addOneOff(e.in, sp, false) + 1
			}
		}
		for _, o := range e.overrides {
			im.override(e, o, ctIDs, taken)
		}
	}
}

// wanted reports whether an event of the group gives week w (and does not
// take it out).
func (g *group) wanted(w int, ws time.Weekday) bool {
	d := engine.DayIn(w, g.key.ct.wd, ws)
	for _, e := range g.events {
		if r, ok := e.runOn(g.key.ct.wd); ok && r.has(w) && !e.exdates[d] {
			return true
		}
	}
	return false
}

// classTimes gives every class time key an id: an existing class time
// with the same room, weekday, span and label (and, for a file this
// package wrote, the same places, type, buffer and units) when none of the
// classes placed in it already has sessions or changes there — sharing it
// would merge the imported sessions with the existing ones and let their
// changes apply to each other — and a new class time otherwise.
func (im *importer) classTimes(gs *groups) map[ctKey]int64 {
	used := map[[2]int64]bool{}
	for _, e := range im.existing.Entries {
		used[[2]int64{e.ClassTimeID, e.ClassID}] = true
	}
	for _, c := range im.existing.Changes {
		used[[2]int64{c.Ref.ClassTimeID, c.Ref.ClassID}] = true
	}
	var keys []ctKey
	first := map[ctKey]*event{}
	classes := map[ctKey][]int64{}
	for _, g := range gs.list {
		k := g.key.ct
		if _, ok := first[k]; !ok {
			first[k] = g.first
			keys = append(keys, k)
		}
		classes[k] = append(classes[k], g.first.class)
	}
	// Overrides of events with no entries of their own still need a class
	// time for their ref; every event's weekdays are in some group.
	ids := map[ctKey]int64{}
	claimed := map[int64]bool{}
	for _, k := range keys {
		e := first[k]
		room := im.cat.room(e.in.room, e.in.roomCapacity)
		id := int64(0)
	search:
		for _, ct := range im.existing.ClassTimes {
			if claimed[ct.ID] || ct.Inactive || ct.RoomID != room || ct.Weekday != k.wd || int(ct.Start) != k.start ||
				int(ct.End) != k.end || ct.Label != k.label {
				continue
			}
			if k.file != "" && (ct.Capacity != k.capacity || ct.Type != k.typ || ct.Buffer != k.buffer || ct.Units != k.units) {
				continue
			}
			for _, c := range classes[k] {
				if used[[2]int64{ct.ID, c}] {
					continue search
				}
			}
			id = ct.ID
			break
		}
		if id == 0 {
			id = im.cat.id()
			im.st.ClassTimes = append(im.st.ClassTimes, engine.ClassTime{
				ID: id, RoomID: room, Weekday: k.wd, Start: engine.LocalTime(k.start), End: engine.LocalTime(k.end),
				Label: k.label, Capacity: k.capacity, Type: k.typ, Buffer: k.buffer, Units: k.units,
			})
		}
		claimed[id] = true
		ids[k] = id
	}
	return ids
}

// override makes one RECURRENCE-ID event a day change of the session it
// names: moved, re-timed, in another room, with another class or staff,
// cancelled, or with a note.
func (im *importer) override(e, o *event, ctIDs map[ctKey]int64, taken map[engine.SessionRef]bool) {
	rid, why := im.rid(o)
	if why != "" {
		im.problem(o, "%s", why)
		return
	}
	d, ok := e.onEventClock(rid)
	b := d + engine.Date(e.shift)
	if !ok {
		w := onClock(rid, e.start.loc)
		im.problem(o, "changes the date of %s %s, which the repeating event does not have (its sessions start at %s)",
			shortDate(w.date), clock(w.min), clock(e.start.min))
		return
	}
	orig := e.start
	orig.date = d
	os, dur, in, why := im.overrideSpan(e, o, orig)
	if why == "" {
		var sp span
		if sp, why = im.businessSpan(os, dur); why == "" {
			if b == e.extra && e.extraOneOff > 0 {
				oo := &im.st.OneOffs[e.extraOneOff-1]
				oo.Date, oo.Start, oo.End = sp.date, engine.LocalTime(sp.start), engine.LocalTime(sp.end)
				oo.RoomID = im.cat.room(in.room, in.roomCapacity)
				oo.ClassID = im.cat.class(in.activity, in.color, in.staff)
				oo.Cancelled, oo.Note = in.cancelled, in.note
				return
			}
			if !e.occurs(b, im.ws) || e.exdates[b] {
				im.problem(o, "changes the date of %s %s, which the repeating event does not have", shortDate(b), clock(e.startB))
				return
			}
			im.change(e, b, sp, in, ctIDs, taken, o)
			return
		}
	}
	im.problem(o, "%s", why)
}

func (im *importer) change(e *event, b engine.Date, sp span, in info, ctIDs map[ctKey]int64, taken map[engine.SessionRef]bool, o *event) {
	k := e.ctKey(b.Weekday())
	ct, ok := ctIDs[k]
	if !ok {
		im.problem(o, "changes the date of %s %s, which the repeating event does not have", shortDate(b), clock(e.startB))
		return
	}
	ref := engine.SessionRef{Date: b, ClassTimeID: ct, ClassID: e.class}
	if taken[ref] {
		im.problem(o, "changes the %s of %s a second time", im.words.Class.One, shortDate(b))
		return
	}
	c := engine.DayChange{Ref: ref, Cancelled: in.cancelled, Note: in.note}
	if sp.date != b {
		c.Date = sp.date
	}
	if sp.start != k.start {
		t := engine.LocalTime(sp.start)
		c.Start = &t
	}
	if sp.end != k.end {
		t := engine.LocalTime(sp.end)
		c.End = &t
	}
	if room := im.cat.room(in.room, in.roomCapacity); room != im.cat.room(e.in.room, e.in.roomCapacity) {
		c.RoomID = room
	}
	if key(in.activity) != key(e.in.activity) {
		c.ClassID = im.cat.class(in.activity, in.color, in.staff)
	} else if staff := im.cat.people(in.staff); !slices.Equal(staff, im.cat.staffOf(e.class)) {
		c.StaffIDs = staff
	}
	if !c.Cancelled && c.Date == 0 && c.Start == nil && c.End == nil && c.RoomID == 0 && c.ClassID == 0 && c.StaffIDs == nil && c.Note == "" {
		return // the override is the occurrence as it is
	}
	taken[ref] = true
	im.st.Changes = append(im.st.Changes, c)
	im.changes++
}
