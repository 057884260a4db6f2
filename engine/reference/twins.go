package reference

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/koredyne/schedule/engine"
)

// Twins are classes with one activity and one set of coaches. The
// reference's checks refuse them today (its API's findClass), but older
// versions made them and its database holds them; our classes need
// distinct activity and coaches. The reference resolves a date slot by slot
// and class by class (src/lib/schedule.js, resolveDate), so twins that run
// in one slot on one date are two sessions there: the same coaches twice in
// one room at one time, which is really one session of both packages.
//
// A twin becomes the class it repeats (the first of its kind, with the
// twins already merged into it) when that keeps every date exact:
//
//   - when they never run in one slot on one date, always (every session
//     keeps its identity);
//   - when they do, those sessions become one, which belongs to every
//     package of either, provided that on each such date their session
//     changes do the same (all cancelled, all moved alike, or none; notes
//     are joined), and that the slot's places (capacity, for each of the
//     reference's sessions) can be the places of all of them together on
//     every date: the slot holds no other class, and whenever one of them
//     runs there, the same number do. The slot's capacity is then multiplied
//     by that number. A slot without a capacity needs no such rule.
//
// Otherwise the twin stays a class of its own under an activity of its own,
// named for the class ("Boxing (class 14)", as names that repeat are
// renamed): its sessions are the reference's, two in one room at one time
// where the reference shows two, and that double booking comes along as a
// clash. Either way a Note says what was done.

// maxTwinWeeks bounds the weeks compared to tell whether twins run in step:
// the rotations of their packages repeat after the least common multiple
// of their lengths, after the last start or end. Twins whose rotations take
// longer are kept apart.
const maxTwinWeeks = 5000

// twinVerdict is what becomes of a twin.
type twinVerdict struct {
	merge bool
	// shared is the first slot and date where the twin and its class run
	// together; zero when they never do.
	sharedSlot  int64
	sharedFirst engine.Date
	slots       int // how many slots they run together in
	// places maps each slot whose capacity is to be multiplied to the
	// number of them that run there together.
	places map[int64]int
	why    string // why they are kept apart
}

// judgeTwin decides whether class twin can become class keeper, with the
// classes in group (keeper and the twins already merged into it).
func (c *converter) judgeTwin(twin int64, group []int64) twinVerdict {
	v := twinVerdict{merge: true, places: map[int64]int{}}
	all := append(slices.Clone(group), twin)
	for _, slot := range c.twinSlots(twin, group) {
		ct := c.st.ClassTimes[c.slots[slot]]
		if ct.Inactive {
			continue // gaps, not sessions
		}
		var pkgs []*packageRow
		for _, p := range c.packages {
			if slices.ContainsFunc(p.entries, func(e *entryRow) bool { return e.slot == slot && slices.Contains(all, e.class) }) {
				pkgs = append(pkgs, p)
			}
		}
		from, to, ok := twinSpan(pkgs, ct.Weekday)
		if !ok {
			return twinVerdict{why: fmt.Sprintf("the rotations of their packages in slot %d take more than %d weeks to repeat, too long to compare", slot, maxTwinWeeks)}
		}
		counts := map[int]bool{}
		var together engine.Date // the first date they run together here
		for d := from; d <= to; d += 7 {
			running := c.runningIn(slot, all, d)
			if len(running) == 0 {
				continue
			}
			counts[len(running)] = true
			if together == 0 && len(running) > 1 && slices.Contains(running, twin) {
				together = d
			}
		}
		if together == 0 {
			continue // never on one date: every session keeps its identity
		}
		v.slots++
		if v.sharedFirst == 0 || together < v.sharedFirst {
			v.sharedSlot, v.sharedFirst = slot, together
		}
		if why := c.changesAlike(slot, all, twin, group[0]); why != "" {
			return twinVerdict{sharedSlot: slot, sharedFirst: together, why: why}
		}
		if ct.Capacity > 0 {
			if len(counts) > 1 {
				return twinVerdict{sharedSlot: slot, sharedFirst: together, why: fmt.Sprintf(
					"slot %d gives each of the reference's sessions %d places, and they do not always run there together, "+
						"so no one number of places is theirs together on every date", slot, ct.Capacity)}
			}
			if other := c.otherClassIn(slot, all); other != 0 {
				return twinVerdict{sharedSlot: slot, sharedFirst: together, why: fmt.Sprintf(
					"slot %d gives each of the reference's sessions %d places and also holds class %d, "+
						"so its places cannot be theirs together alone", slot, ct.Capacity, other)}
			}
			for n := range counts {
				v.places[slot] = n
			}
		}
	}
	return v
}

// twinSlots lists the slots where twin and a class of group both have
// entries, in ascending order.
func (c *converter) twinSlots(twin int64, group []int64) []int64 {
	mine, theirs := map[int64]bool{}, map[int64]bool{}
	for _, p := range c.packages {
		for _, e := range p.entries {
			switch {
			case e.class == twin:
				mine[e.slot] = true
			case slices.Contains(group, e.class):
				theirs[e.slot] = true
			}
		}
	}
	var out []int64
	for s := range mine {
		if theirs[s] {
			out = append(out, s)
		}
	}
	slices.Sort(out)
	return out
}

// twinSpan is the dates of weekday wd to compare for packages pkgs: from
// the first start to one whole turn of all their rotations after the last
// start or end, after which every date repeats one before it.
func twinSpan(pkgs []*packageRow, wd time.Weekday) (from, to engine.Date, ok bool) {
	weeks := 1
	var last engine.Date
	for i, p := range pkgs {
		weeks = lcm(weeks, p.cycle)
		if weeks > maxTwinWeeks {
			return 0, 0, false
		}
		if i == 0 || p.start < from {
			from = p.start
		}
		last = max(last, p.start, p.end)
	}
	from = from.AddDays((int(wd) - int(from.Weekday()) + 7) % 7)
	return from, last.AddDays(7 * weeks), true
}

func lcm(a, b int) int {
	g, y := a, b
	for y != 0 {
		g, y = y, g%y
	}
	return a / g * b
}

// runningIn lists the classes of all that the packages put in slot on date
// d (before session changes), each once.
func (c *converter) runningIn(slot int64, all []int64, d engine.Date) []int64 {
	var out []int64
	for _, id := range c.packageOrder {
		p := c.packages[id]
		for _, e := range p.entries {
			if e.slot == slot && slices.Contains(all, e.class) && !slices.Contains(out, e.class) && c.refActive(p, e, d) {
				out = append(out, e.class)
			}
		}
	}
	return out
}

// otherClassIn returns a class outside all that has an entry in slot, or 0.
func (c *converter) otherClassIn(slot int64, all []int64) int64 {
	for _, id := range c.packageOrder {
		for _, e := range c.packages[id].entries {
			if e.slot == slot && !slices.Contains(all, e.class) {
				return e.class
			}
		}
	}
	return 0
}

// changesAlike checks that on every date where several of all run in
// slot, a session change of one is a change of each that does the same,
// with twin taken as keeper; it says why not, or "".
func (c *converter) changesAlike(slot int64, all []int64, twin, keeper int64) string {
	as := func(class int64) int64 {
		if class == twin {
			return keeper
		}
		return c.merged(class)
	}
	for _, ch := range c.changes {
		if ch.slot != slot || !slices.Contains(all, ch.class) {
			continue
		}
		running := c.runningIn(slot, all, ch.date)
		if len(running) < 2 || !slices.Contains(running, ch.class) {
			continue
		}
		mine := c.dayChange(ch, as)
		for _, other := range running {
			if other == ch.class {
				continue
			}
			i := slices.IndexFunc(c.changes, func(o *changeRow) bool { return o.date == ch.date && o.slot == slot && o.class == other })
			if i < 0 {
				return fmt.Sprintf("on %s session change %d changes class %d's session in slot %d and nothing changes class %d's",
					ch.date, ch.id, ch.class, slot, other)
			}
			if theirs := c.dayChange(c.changes[i], as); !sameEffect(mine, theirs) {
				return fmt.Sprintf("on %s session changes %d and %d change their sessions in slot %d differently", ch.date, ch.id, c.changes[i].id, slot)
			}
		}
	}
	return ""
}

// sameEffect reports whether two day changes of one session do the same,
// their notes aside.
func sameEffect(a, b engine.DayChange) bool {
	same := func(x, y *engine.LocalTime) bool { return (x == nil) == (y == nil) && (x == nil || *x == *y) }
	return a.Cancelled == b.Cancelled && a.Date == b.Date && a.RoomID == b.RoomID && same(a.Start, b.Start) &&
		same(a.End, b.End) && a.ClassID == b.ClassID && slices.Equal(a.StaffIDs, b.StaffIDs)
}

// joinNotes joins the notes of changes made one, each once.
func joinNotes(a, b string) string {
	switch {
	case b == "" || a == b || slices.Contains(strings.Split(a, "; "), b):
		return a
	case a == "":
		return b
	}
	return a + "; " + b
}

// someOf lists ids for a note: all of them up to five, else the first
// four and how many more.
func someOf(ids []int64) string {
	var b strings.Builder
	for i, id := range ids {
		switch {
		case i > 0 && len(ids) > 5 && i == 4:
			fmt.Fprintf(&b, " and %d more", len(ids)-4)
			return b.String()
		case i > 0 && i == len(ids)-1:
			b.WriteString(" and ")
		case i > 0:
			b.WriteString(", ")
		}
		fmt.Fprint(&b, id)
	}
	return b.String()
}

// apartName is the activity a twin kept apart is imported under.
func (c *converter) apartName(base string, class int64) string {
	name := fmt.Sprintf("%s (class %d)", base, class)
	for n := 2; ; n++ {
		if _, taken := c.activityNames[engine.NameKey(name)]; !taken {
			return name
		}
		name = fmt.Sprintf("%s (class %d, %d)", base, class, n)
	}
}
