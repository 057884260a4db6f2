package reference

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/koredyne/schedule/engine"
)

type converter struct {
	d    *decoder
	opts Options
	st   engine.State
	ws   time.Weekday

	// id → index into the state's slice
	areas, coaches, activities, slots, oneOffs map[int64]int
	areaNames, activityNames                   map[string]int64
	areaSort                                   []int64                   // each room's sort, as st.Rooms
	present                                    map[string]map[int64]bool // ids each table holds, converted or not
	broken                                     map[string]bool           // tables with problems

	classes      map[int64]*classRow
	classOrder   []int64
	packages     map[int64]*packageRow
	packageOrder []int64
	entryOrder   []*entryRow
	plans        map[int64]int64 // plan → its package
	members      map[int64]bool
	changes      []*changeRow

	classOf   map[int64]int64 // duplicate class → the class it is merged into
	places    map[int64]int   // slot → how many twins made one share its places (twins.go)
	packageOf map[int64]int64 // series → package
	changeIDs []int64         // reference id of each State.Changes entry
}

type classRow struct {
	id, activity int64
	coaches      []link
}

// link is one coach of a class: the main coach (classes.coach_id) first,
// then the others of class_coaches by their sort and then their name, as the
// reference lists them.
type link struct {
	coach, order int64
	main         bool
	name         string
}

type packageRow struct {
	id         int64
	name       string
	start, end engine.Date // end exclusive; zero = open
	cycle      int
	entries    []*entryRow
}

type entryRow struct {
	id, pkg, slot, class int64
	week                 int
}

type changeRow struct {
	row               *row
	id                int64
	date              engine.Date
	slot, class       int64
	cancelled         bool
	newDate           engine.Date
	newArea, newClass int64
	newStart, newEnd  *engine.LocalTime
	note              string
}

func newConverter(d *decoder, opts Options) *converter {
	return &converter{
		d: d, opts: opts, areas: map[int64]int{}, coaches: map[int64]int{}, activities: map[int64]int{}, slots: map[int64]int{},
		oneOffs: map[int64]int{}, areaNames: map[string]int64{}, activityNames: map[string]int64{},
		classes: map[int64]*classRow{}, packages: map[int64]*packageRow{}, plans: map[int64]int64{},
		members: map[int64]bool{}, present: map[string]map[int64]bool{}, broken: map[string]bool{}, classOf: map[int64]int64{}, places: map[int64]int{}, packageOf: map[int64]int64{},
	}
}

// finish turns what the tables held into classes, series and day changes,
// the parts whose shape differs from the reference's.
func (c *converter) finish() {
	c.buildClasses()
	if len(c.d.problems) > 0 {
		return
	}
	for i := range c.st.OneOffs {
		c.st.OneOffs[i].ClassID = c.merged(c.st.OneOffs[i].ClassID)
	}
	c.buildSeries()
	c.buildChanges()
}

func (c *converter) merged(class int64) int64 {
	if to, ok := c.classOf[class]; ok {
		return to
	}
	return class
}

func (c *converter) coachName(id int64) string { return c.st.Staff[c.coaches[id]].Name }

func (c *converter) activityName(id int64) string { return c.st.Activities[c.activities[id]].Name }

// buildClasses orders each class's coaches and merges classes our engine
// would see as one (twins.go).
func (c *converter) buildClasses() {
	type seen struct {
		id      int64
		ordered string
		group   []int64 // the class and the twins merged into it
	}
	bySet := map[string]*seen{}
	for _, id := range c.classOrder {
		cl := c.classes[id]
		sort.SliceStable(cl.coaches, func(i, j int) bool {
			a, b := cl.coaches[i], cl.coaches[j]
			if a.main != b.main {
				return a.main
			}
			if a.order != b.order {
				return a.order < b.order
			}
			return a.name < b.name
		})
		staff := make([]int64, len(cl.coaches))
		names := make([]string, len(cl.coaches))
		keys := make([]string, len(cl.coaches))
		for i, l := range cl.coaches {
			staff[i], names[i] = l.coach, c.coachName(l.coach)
			keys[i] = engine.NameKey(names[i])
		}
		if dup := firstRepeat(keys); dup != "" {
			c.d.problems = append(c.d.problems, Problem{Table: "classes", ID: id, Field: "class_coaches",
				Message: fmt.Sprintf("lists two coaches called %q; our engine treats people with one name as one person", dup)})
			continue
		}
		ordered := strings.Join(keys, "|")
		setKey := engine.ClassKey(c.activityName(cl.activity), names)
		other, dup := bySet[setKey]
		if !dup {
			bySet[setKey] = &seen{id: id, ordered: ordered, group: []int64{id}}
			c.st.Classes = append(c.st.Classes, engine.Class{ID: id, ActivityID: cl.activity, StaffIDs: staff})
			continue
		}
		v := c.judgeTwin(id, other.group)
		if !v.merge {
			c.keepApart(id, cl, staff, other.id, v)
			continue
		}
		c.classOf[id] = other.id
		other.group = append(other.group, id)
		order := ""
		if other.ordered != ordered {
			order = fmt.Sprintf(" (its sessions list the coaches in the order of class %d, main coach first)", other.id)
		}
		what := fmt.Sprintf("class %d is %s with the same coaches as class %d; our classes need distinct activity and coaches",
			id, c.activityName(cl.activity), other.id)
		if v.sharedFirst == 0 {
			c.d.note("classes", "", "%s, and the two never run in one slot on one date, so class %d is imported as class %d%s", what, id, other.id, order)
			continue
		}
		// The places of the one session, by how many the slots gave each.
		bySize := map[[2]int][]int64{}
		for _, slot := range slices.Sorted(maps.Keys(v.places)) {
			c.places[slot] = v.places[slot]
			each := c.st.ClassTimes[c.slots[slot]].Capacity
			size := [2]int{each, each * v.places[slot]}
			bySize[size] = append(bySize[size], slot)
		}
		var places strings.Builder
		for _, size := range slices.SortedFunc(maps.Keys(bySize), func(a, b [2]int) int { return cmp.Compare(a[1], b[1]) }) {
			slots := bySize[size]
			word := "slot"
			if len(slots) > 1 {
				word = "slots"
			}
			fmt.Fprintf(&places, "; it has the places of their sessions together, %d in %s %s, which give each of the reference's sessions %d",
				size[1], word, someOf(slots), size[0])
		}
		where := fmt.Sprintf("in slot %d (first on %s)", v.sharedSlot, v.sharedFirst)
		if v.slots > 1 {
			where = fmt.Sprintf("in %d slots (first in slot %d on %s)", v.slots, v.sharedSlot, v.sharedFirst)
		}
		c.d.note("classes", "", "%s. The two run together %s, where the reference shows two sessions, "+
			"the same coaches twice in one room at one time, which is one session: class %d is imported as class %d, "+
			"and a session of both belongs to the packages of both%s%s", what, where, id, other.id, places.String(), order)
	}
	for slot, n := range c.places {
		c.st.ClassTimes[c.slots[slot]].Capacity *= n
	}
}

// keepApart imports a twin that cannot become the class it repeats as a
// class of its own, under an activity of its own (twins.go).
func (c *converter) keepApart(id int64, cl *classRow, staff []int64, keeper int64, v twinVerdict) {
	base := c.st.Activities[c.activities[cl.activity]]
	a := engine.Activity{Name: c.apartName(base.Name, id), Color: base.Color}
	for _, x := range c.st.Activities {
		a.ID = max(a.ID, x.ID+1)
	}
	c.activities[a.ID] = len(c.st.Activities)
	c.activityNames[engine.NameKey(a.Name)] = a.ID
	c.st.Activities = append(c.st.Activities, a)
	c.st.Classes = append(c.st.Classes, engine.Class{ID: id, ActivityID: a.ID, StaffIDs: staff})
	c.d.note("classes", "", "class %d is %s with the same coaches as class %d; our classes need distinct activity and coaches. "+
		"The two run together in slot %d (first on %s), and they cannot be one session there because %s; "+
		"so class %d is imported under an activity of its own, %q: its sessions are two in one room at one time, as in the reference, "+
		"and that double booking comes along as a clash", id, base.Name, keeper, v.sharedSlot, v.sharedFirst, v.why, id, a.Name)
}

func firstRepeat(keys []string) string {
	for i, k := range keys {
		if slices.Contains(keys[:i], k) {
			return k
		}
	}
	return ""
}

// buildSeries converts each package to a series. Our series start and end
// on the week start; the reference counts weeks from the package's own start
// date. A package that starts or ends mid-week converts to a series from the
// week start before or after, with its entries' weeks shifted so every date
// keeps its sessions, whenever that is exact; when neither way is (a
// session would appear before the start or vanish from the first week), the
// partial week becomes a one-week series of its own holding exactly its
// sessions.
func (c *converter) buildSeries() {
	nextSeries, nextEntry := int64(0), int64(0)
	for _, p := range c.packages {
		nextSeries = max(nextSeries, p.id)
		for _, e := range p.entries {
			nextEntry = max(nextEntry, e.id)
		}
	}
	// Entries keep the export's order; those of the one-week series follow.
	mainWeek := map[*entryRow]int{}
	var extra []engine.Entry
	for _, id := range c.packageOrder {
		p := c.packages[id]
		for _, e := range p.entries {
			e.class = c.merged(e.class)
		}
		pieces := c.pieces(p)
		if pieces == nil {
			c.d.problems = append(c.d.problems, Problem{Table: "packages", ID: p.id, Message: "could not be converted exactly; this is a bug in the importer"})
			continue
		}
		for _, pc := range pieces {
			sr := engine.Series{ID: p.id, Name: p.name, Anchor: pc.anchor, End: pc.end, Cycle: p.cycle}
			if !pc.main {
				nextSeries++
				sr.ID, sr.Name, sr.Cycle = nextSeries, fmt.Sprintf("%s (week of %s)", p.name, pc.anchor), 1
			}
			c.st.Series = append(c.st.Series, sr)
			c.packageOf[sr.ID] = p.id
			for _, e := range pc.entries {
				if pc.main {
					mainWeek[e] = pc.weeks[e]
					continue
				}
				nextEntry++
				extra = append(extra, engine.Entry{ID: nextEntry, SeriesID: sr.ID, ClassTimeID: e.slot, ClassID: e.class, Week: pc.weeks[e]})
			}
		}
	}
	for _, e := range c.entryOrder {
		if w, ok := mainWeek[e]; ok {
			c.st.Entries = append(c.st.Entries, engine.Entry{ID: e.id, SeriesID: e.pkg, ClassTimeID: e.slot, ClassID: e.class, Week: w})
		}
	}
	c.st.Entries = append(c.st.Entries, extra...)
}

// piece is one series a package becomes.
type piece struct {
	main        bool // carries the package's id, name and cycle
	anchor, end engine.Date
	entries     []*entryRow
	weeks       map[*entryRow]int // our week of each entry
}

func (c *converter) weekday(e *entryRow) time.Weekday {
	return c.st.ClassTimes[c.slots[e.slot]].Weekday
}

// refActive reports whether the reference holds entry e on date x.
func (c *converter) refActive(p *packageRow, e *entryRow, x engine.Date) bool {
	if x.Weekday() != c.weekday(e) || x < p.start || (p.end != 0 && x >= p.end) {
		return false
	}
	return x.Sub(p.start)/7%p.cycle+1 == e.week
}

// ourWeek is the week entry e has in a series anchored on a (a week start)
// that runs in step with the package: the reference's week of a date is
// ⌊(date − start)/7⌋, ours ⌊(date − anchor)/7⌋, and for one weekday the two
// differ by the same number of weeks on every date.
func (c *converter) ourWeek(p *packageRow, e *entryRow, a engine.Date) int {
	x := a.AddDays((int(c.weekday(e)) - int(c.ws) + 7) % 7)
	shift := -floorDiv(x.Sub(p.start), 7)
	return mod(e.week-1+shift, p.cycle) + 1
}

func floorDiv(a, b int) int {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

func mod(a, m int) int { return (a%m + m) % m }

// pieces returns the series a package becomes, preferring one series, and
// one moved as little as possible, to one-week series for partial weeks.
func (c *converter) pieces(p *packageRow) []*piece {
	ws := c.ws
	sf := p.start.WeekStart(ws)
	sc := sf
	if sc != p.start {
		sc += 7
	}
	var ef, ec engine.Date
	if p.end != 0 {
		ef = p.end.WeekStart(ws)
		ec = ef
		if ec != p.end {
			ec += 7
		}
	}
	type side struct {
		at   engine.Date
		edge bool // the partial week is a series of its own
	}
	starts := []side{{at: sf}}
	if sc != sf {
		starts = append(starts, side{at: sc}, side{at: sc, edge: true})
	}
	ends := []side{{}}
	if p.end != 0 {
		ends = []side{{at: ef}}
		if ec != ef {
			ends = append(ends, side{at: ec}, side{at: ef, edge: true})
		}
	}
	// The weeks where the reference's weeks and ours are not in step.
	var partial []engine.Date
	if sf != p.start {
		partial = append(partial, sf)
	}
	if p.end != 0 && ef != p.end && !slices.Contains(partial, ef) {
		partial = append(partial, ef)
	}
	for edges := 0; edges <= 2; edges++ {
		for _, s := range starts {
			for _, e := range ends {
				if b2i(s.edge)+b2i(e.edge) != edges {
					continue
				}
				var edgeWeeks []engine.Date
				if s.edge {
					edgeWeeks = append(edgeWeeks, sf)
				}
				if e.edge && !slices.Contains(edgeWeeks, ef) {
					edgeWeeks = append(edgeWeeks, ef)
				}
				if out := c.tryPieces(p, s.at, e.at, partial, edgeWeeks); out != nil {
					c.explain(p, out)
					return out
				}
			}
		}
	}
	return nil // unreachable: a one-week series for each partial week is always exact
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// tryPieces builds a series from a to b (b zero: open) plus one-week series
// for edgeWeeks, and returns them if they hold exactly the reference's
// sessions in the partial weeks, or nil.
func (c *converter) tryPieces(p *packageRow, a, b engine.Date, partial, edgeWeeks []engine.Date) []*piece {
	var out []*piece
	if b == 0 || a < b {
		m := &piece{main: true, anchor: a, end: b, entries: p.entries, weeks: map[*entryRow]int{}}
		for _, e := range p.entries {
			m.weeks[e] = c.ourWeek(p, e, a)
		}
		out = append(out, m)
	} else if len(edgeWeeks) == 0 {
		return nil
	}
	for _, w := range edgeWeeks {
		pc := &piece{anchor: w, end: w + 7, weeks: map[*entryRow]int{}}
		for _, e := range p.entries {
			if c.refActive(p, e, w.AddDays((int(c.weekday(e))-int(c.ws)+7)%7)) {
				pc.entries = append(pc.entries, e)
				pc.weeks[e] = 1
			}
		}
		if len(pc.entries) > 0 || len(out) == 0 {
			out = append(out, pc)
		}
	}
	if !out[0].main {
		out[0].main = true // the package is shorter than its partial weeks
	}
	for _, w := range partial {
		for x := w; x < w+7; x++ {
			for _, e := range p.entries {
				if c.refActive(p, e, x) != (x.Weekday() == c.weekday(e) && piecesActive(out, p, e, x)) {
					return nil
				}
			}
		}
	}
	return out
}

// piecesActive reports whether one of the pieces holds entry e in the week
// of x; the caller checks the weekday.
func piecesActive(pieces []*piece, p *packageRow, e *entryRow, x engine.Date) bool {
	for _, pc := range pieces {
		wk, ok := pc.weeks[e]
		if !ok || x < pc.anchor || (pc.end != 0 && x >= pc.end) {
			continue
		}
		cycle := p.cycle
		if !pc.main {
			cycle = 1
		}
		if x.Sub(pc.anchor)/7%cycle+1 == wk {
			return true
		}
	}
	return false
}

// explain notes how a package was converted when it was not one series
// with the same dates and weeks.
func (c *converter) explain(p *packageRow, out []*piece) {
	m := out[0]
	shifted := false
	for _, e := range m.entries {
		if m.weeks[e] != e.week {
			shifted = true
		}
	}
	if len(out) == 1 && m.anchor == p.start && m.end == p.end && !shifted {
		return
	}
	var b strings.Builder
	fmt.Fprintf(&b, "package %d %q runs from %s (a %s)", p.id, p.name, p.start, p.start.Weekday())
	if p.end != 0 {
		fmt.Fprintf(&b, " until %s (a %s)", p.end, p.end.Weekday())
	}
	fmt.Fprintf(&b, "; our series start and end on the first day of the week (%s), so here it runs from %s", c.ws, m.anchor)
	if m.end != 0 {
		fmt.Fprintf(&b, " until %s", m.end)
	}
	if shifted {
		b.WriteString(", with the weeks of its entries shifted to stay in step with the package's own weeks")
	}
	for _, pc := range out[1:] {
		fmt.Fprintf(&b, "; the week of %s, which no such series holds exactly, is its own one-week series", pc.anchor)
	}
	if len(out) > 1 {
		b.WriteString(" (plans and subscriptions stay on the package)")
	}
	b.WriteString(". Every date keeps exactly its sessions")
	c.d.note("packages", "", "%s", b.String())
}

// dayChange is a session change as a day change: what differs from the
// session as its slot and class make it, the classes named as as has them.
func (c *converter) dayChange(ch *changeRow, as func(int64) int64) engine.DayChange {
	ct := c.st.ClassTimes[c.slots[ch.slot]]
	class := as(ch.class)
	dc := engine.DayChange{Ref: engine.SessionRef{Date: ch.date, ClassTimeID: ch.slot, ClassID: class}, Cancelled: ch.cancelled, Note: ch.note}
	if ch.newDate != 0 && ch.newDate != ch.date {
		dc.Date = ch.newDate
	}
	if ch.newArea != 0 && ch.newArea != ct.RoomID {
		dc.RoomID = ch.newArea
	}
	if ch.newStart != nil && *ch.newStart != ct.Start {
		dc.Start = ch.newStart
	}
	if ch.newEnd != nil && *ch.newEnd != ct.End {
		dc.End = ch.newEnd
	}
	if ch.newClass != 0 {
		if nc := as(ch.newClass); nc != class {
			dc.ClassID = nc
		}
	}
	return dc
}

// buildChanges converts session changes to day changes, keeping only what
// differs from the session as its slot and class make it. The changes of
// twins made one session, which do the same (twins.go), are one change with
// their notes.
func (c *converter) buildChanges() {
	byRef := map[engine.SessionRef]int{} // → index in the state's changes
	for _, ch := range c.changes {
		dc := c.dayChange(ch, c.merged)
		if !dc.Cancelled && dc.Date == 0 && dc.RoomID == 0 && dc.Start == nil && dc.End == nil && dc.ClassID == 0 && dc.StaffIDs == nil && dc.Note == "" {
			c.d.note("session_changes", "", "session change %d changes nothing about its session; not imported", ch.id)
			continue
		}
		if i, dup := byRef[dc.Ref]; dup {
			if prev := &c.st.Changes[i]; ch.class != dc.Ref.ClassID && sameEffect(*prev, dc) {
				prev.Note = joinNotes(prev.Note, dc.Note)
				continue
			}
			c.d.fail(ch.row, "date", "session change %d already changes the session of class %d in slot %d on %s; a session has one change",
				c.changeIDs[i], ch.class, ch.slot, ch.date)
			continue
		}
		byRef[dc.Ref] = len(c.st.Changes)
		c.st.Changes = append(c.st.Changes, dc)
		c.changeIDs = append(c.changeIDs, ch.id)
	}
}

// checkChanges notes the changes the reference reads differently from us.
// A change that names no session on its date has no effect, in the
// reference and here, and is kept. A change that puts a session where the
// same class already has one in the same slot that day (moved onto its own
// next session, or given the class of the other) makes two sessions; the
// reference shows them as one and never sees the double booking, which we
// report as a clash that came with the import.
func (c *converter) checkChanges() {
	t, err := engine.New(c.st)
	if err != nil {
		return // Read validated the state already
	}
	for i, dc := range c.st.Changes {
		s, ok := t.Session(dc.Ref)
		if !ok {
			c.d.note("session_changes", "", "session change %d names no session (class %d in slot %d on %s, a %s); "+
				"it has no effect, as in the reference system, and is kept", c.changeIDs[i], dc.Ref.ClassID, dc.Ref.ClassTimeID, dc.Ref.Date, dc.Ref.Date.Weekday())
			continue
		}
		if s.Cancelled || (dc.Date == 0 && dc.ClassID == 0) {
			continue
		}
		for _, o := range t.Day(s.Date) {
			if o.Ref() != s.Ref() && o.ClassTimeID == s.ClassTimeID && o.ClassID == s.ClassID && !o.Cancelled {
				c.d.note("session_changes", "", "session change %d puts class %d in slot %d on %s, where it already has a session; "+
					"the reference system shows the two as one session, here they are two, and the double booking is reported as a clash",
					c.changeIDs[i], s.ClassID, s.ClassTimeID, s.Date)
				break
			}
		}
	}
}
