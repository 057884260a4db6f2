package icalendar

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	ics "github.com/arran4/golang-ical"

	"github.com/koredyne/schedule/engine"
)

// ExportOptions tune what Export writes around the events.
type ExportOptions struct {
	// ProdID is the calendar's PRODID; empty: "-//Koredyne//Schedule//EN".
	ProdID string
	// Domain ends every UID ("…@Domain"), so UIDs of two businesses never
	// meet; empty: "koredyne".
	Domain string
	// Stamp is the DTSTAMP every event must carry (RFC 5545 §3.8.7.2); it
	// is taken as given, never from the clock, so the same state always
	// writes the same bytes. Zero: 1970-01-01T00:00:00Z.
	Stamp time.Time
	// Stop, when set, is asked between events whether to give up: Export
	// then returns engine.ErrStopped.
	Stop func() bool
	// StaffLine writes an event's DESCRIPTION from the names of its staff
	// in the business's language, as the calendar gateway's events say it
	// (locale.Locale.StaffLine); nil: in English, in the engine's words
	// of the business's kind ("Coach: Omar").
	StaffLine func(names []string) string
	// Language is the LANGUAGE parameter (RFC 5545 §3.2.10) of every
	// DESCRIPTION, the language StaffLine writes; "": none.
	Language string
}

// serial is how files are written: CRLF line ends and lines folded at 75
// octets, as RFC 5545 requires.
var serial = &ics.SerializationConfiguration{MaxLength: 75, PropertyMaxLength: 75, NewLine: "\r\n"}

// Export writes the timetable of st as recurring events: one VEVENT with a
// weekly RRULE for each stretch of each series entry, EXDATE for its
// cancelled dates, a RECURRENCE-ID override for each changed session, and
// one single VEVENT for each one-off (see the package documentation). The
// file gives exactly the sessions engine.Timetable.Day computes.
func Export(st engine.State, opts ExportOptions) ([]byte, error) {
	tt, err := engine.New(st)
	if err != nil {
		return nil, err
	}
	x := &exporter{st: st, tt: tt, loc: st.Business.Location, ws: st.Business.WeekStart,
		words: engine.Words(st.Business.Kind), opts: opts}
	if x.opts.Domain == "" {
		x.opts.Domain = "koredyne"
	}
	if x.opts.Stamp.IsZero() {
		x.opts.Stamp = time.Unix(0, 0).UTC()
	}
	x.index()
	x.seriesEvents()
	x.oneOffEvents()
	if x.stopped() {
		return nil, engine.ErrStopped
	}

	cal := ics.NewCalendar()
	prod := opts.ProdID
	if prod == "" {
		prod = "-//Koredyne//Schedule//EN"
	}
	cal.SetProductId(prod)
	cal.SetCalscale("GREGORIAN")
	if st.Business.Name != "" {
		cal.SetXWRCalName(st.Business.Name)
	}
	if x.minDate != 0 {
		from := x.minDate.At(0, x.loc)
		to := (x.maxDate + 366).At(0, x.loc)
		cal.AddVTimezone(VTimezone(x.loc, from, to))
	}
	for _, ev := range x.events {
		cal.AddVEvent(ev)
	}
	SafeCalendar(cal)
	return []byte(cal.Serialize(serial)), nil
}

type exporter struct {
	st    engine.State
	tt    *engine.Timetable
	loc   *time.Location
	ws    time.Weekday
	words engine.Vocabulary
	opts  ExportOptions

	rooms      map[int64]engine.Room
	staff      map[int64]engine.Staff
	activities map[int64]engine.Activity
	classes    map[int64]engine.Class
	series     map[int64]engine.Series
	rot        map[int64]*engine.Rotation
	legs       map[int64][]engine.Leg
	changes    map[[2]int64][]engine.Date // original dates of the changes of a (class time, class)

	events           []*ics.VEvent
	minDate, maxDate engine.Date
	stop             bool
}

func (x *exporter) index() {
	s := &x.st
	x.rooms = map[int64]engine.Room{}
	for _, r := range s.Rooms {
		x.rooms[r.ID] = r
	}
	x.staff = map[int64]engine.Staff{}
	for _, p := range s.Staff {
		x.staff[p.ID] = p
	}
	x.activities = map[int64]engine.Activity{}
	for _, a := range s.Activities {
		x.activities[a.ID] = a
	}
	x.classes = map[int64]engine.Class{}
	for _, c := range s.Classes {
		x.classes[c.ID] = c
	}
	cts := map[int64]engine.ClassTime{}
	for _, ct := range s.ClassTimes {
		cts[ct.ID] = ct
	}
	rooms := map[int64]map[int64]bool{}
	for _, e := range s.Entries {
		if rooms[e.SeriesID] == nil {
			rooms[e.SeriesID] = map[int64]bool{}
		}
		rooms[e.SeriesID][cts[e.ClassTimeID].RoomID] = true
	}
	x.series = map[int64]engine.Series{}
	x.rot = map[int64]*engine.Rotation{}
	x.legs = map[int64][]engine.Leg{}
	closures := pointers(s.Closures)
	for _, sr := range s.Series {
		x.series[sr.ID] = sr
		r := engine.RotationOf(&sr, closures, rooms[sr.ID], x.ws)
		x.rot[sr.ID] = r
		x.legs[sr.ID] = r.Legs()
	}
	x.changes = map[[2]int64][]engine.Date{}
	for _, c := range s.Changes {
		k := [2]int64{c.Ref.ClassTimeID, c.Ref.ClassID}
		x.changes[k] = append(x.changes[k], c.Ref.Date)
	}
}

// stopped reports whether the caller's stop function asks to give up.
func (x *exporter) stopped() bool {
	if !x.stop && x.opts.Stop != nil && x.opts.Stop() {
		x.stop = true
	}
	return x.stop
}

func (x *exporter) dated(d engine.Date) {
	if x.minDate == 0 || d < x.minDate {
		x.minDate = d
	}
	x.maxDate = max(x.maxDate, d)
}

// entryRun is one stretch of one entry between its series' pauses.
type entryRun struct {
	entry engine.Entry
	seg   int
	run   run
}

// piece is a stretch of weeks one VEVENT covers: every mod weeks from the
// first week ≡ res in [from, to), for entry.
type piece struct {
	entry int // index in the group's entries
	run   run
}

// seriesEvents writes the series sessions, (class time, class) by (class
// time, class): the engine makes one session of a class in a class time
// however many series hold it, so the entries of such a group share their
// dates out and each date is in one VEVENT only.
func (x *exporter) seriesEvents() {
	type gk struct{ ct, class int64 }
	byGroup := map[gk][]engine.Entry{}
	var keys []gk
	cts := map[int64]engine.ClassTime{}
	for _, ct := range x.st.ClassTimes {
		cts[ct.ID] = ct
	}
	for _, e := range x.st.Entries {
		if cts[e.ClassTimeID].Inactive {
			continue
		}
		k := gk{e.ClassTimeID, e.ClassID}
		if byGroup[k] == nil {
			keys = append(keys, k)
		}
		byGroup[k] = append(byGroup[k], e)
	}
	sort.Slice(keys, func(i, j int) bool {
		return keys[i].ct < keys[j].ct || keys[i].ct == keys[j].ct && keys[i].class < keys[j].class
	})
	for _, k := range keys {
		if x.stopped() {
			return
		}
		entries := byGroup[k]
		sort.SliceStable(entries, func(i, j int) bool {
			a, b := entries[i], entries[j]
			return a.SeriesID < b.SeriesID || a.SeriesID == b.SeriesID && a.Week < b.Week
		})
		x.group(cts[k.ct], x.classes[k.class], entries)
	}
}

func (x *exporter) group(ct engine.ClassTime, class engine.Class, entries []engine.Entry) {
	var runs [][]entryRun
	cuts := map[int]bool{}
	for _, e := range entries {
		r := x.rot[e.SeriesID]
		var rs []entryRun
		for i, l := range x.legs[e.SeriesID] {
			rn := legRun(r, l, e.Week)
			if !rn.empty() {
				rs = append(rs, entryRun{e, i, rn})
				cuts[rn.from], cuts[rn.to] = true, true
			}
		}
		runs = append(runs, rs)
	}
	points := make([]int, 0, len(cuts))
	for p := range cuts {
		points = append(points, p)
	}
	sort.Ints(points)

	// Share the weeks out: in each stretch between the ends of any run,
	// an entry keeps the weeks no earlier entry has.
	var pieces []piece
	for i := 0; i+1 < len(points); i++ {
		a, b := points[i], points[i+1]
		var earlier []run
		for j, rs := range runs {
			var rn run
			found := false
			for _, er := range rs {
				if er.run.from <= a && er.run.to >= b {
					rn, found = er.run, true
				}
			}
			if !found {
				continue
			}
			rn.from, rn.to = a, b
			pieces = append(pieces, share(j, rn, earlier)...)
			earlier = append(earlier, rn)
		}
	}
	pieces = x.cutLongClosures(ct, mergePieces(pieces))

	var all []run
	for _, p := range pieces {
		all = append(all, p.run)
	}
	for _, p := range pieces {
		x.pieceEvent(ct, class, entries, runs, p)
	}
	// A paused week shows sessions (cancelled by the pausing closure, or
	// moved out of it) at a position no arithmetic rule gives: they go out
	// one by one. A pause longer than maxListed weeks writes only the
	// sessions a day change moves or changes: the rest are cancelled, and a
	// calendar has no use for years of cancelled events.
	seen := map[int]bool{}
	changed := map[int]bool{}
	for _, d := range x.changes[[2]int64{ct.ID, class.ID}] {
		if d.Weekday() == ct.Weekday {
			changed[engine.WeekOf(d, x.ws)] = true
		}
	}
	for _, e := range entries {
		r := x.rot[e.SeriesID]
		for _, p := range r.Paused() {
			weeks := make([]int, 0, min(p.To-p.From, maxListed))
			if p.To-p.From <= maxListed {
				for w := p.From; w < p.To; w++ {
					weeks = append(weeks, w)
				}
			} else {
				for w := range changed {
					if p.From <= w && w < p.To {
						weeks = append(weeks, w)
					}
				}
				sort.Ints(weeks)
			}
			for _, w := range weeks {
				if seen[w] || inAny(all, w) || r.Position(w) != e.Week {
					continue
				}
				seen[w] = true
				ref := engine.SessionRef{Date: engine.DayIn(w, ct.Weekday, x.ws), ClassTimeID: ct.ID, ClassID: class.ID}
				if s, ok := x.session(ref); ok {
					uid := fmt.Sprintf("p-%d-%d-%s@%s", ct.ID, class.ID, icsDate(ref.Date), x.opts.Domain)
					ev := x.sessionEvent(uid, &s, ct, s.Cancelled)
					x.events = append(x.events, ev)
				}
			}
		}
	}
}

// maxListed is the most dates of one closure an event lists one by one
// (as EXDATEs, or as the single events of paused weeks): half a year of
// weekly sessions. A longer closure ends the event's rule before it and
// starts it again after, so the file grows with the closures, never with
// the dates they span.
const maxListed = 26

// cutLongClosures cuts, out of each piece, the weeks of every closure of
// its room that would cancel more than maxListed of its sessions.
func (x *exporter) cutLongClosures(ct engine.ClassTime, pieces []piece) []piece {
	for _, c := range x.st.Closures {
		if !c.ClosesRoom(ct.RoomID) {
			continue
		}
		from, to := weeksOn(c.From, c.To, ct.Weekday, x.ws)
		if to >= engine.NoEnd {
			to = forever // nothing happens after the last date there is
		}
		var out []piece
		for _, p := range pieces {
			if p.run.count(from, to) <= maxListed {
				out = append(out, p)
				continue
			}
			before, after := p, p
			before.run.to = min(p.run.to, from)
			after.run.from = max(p.run.from, to)
			for _, q := range []piece{before, after} {
				if !q.run.empty() {
					out = append(out, q)
				}
			}
		}
		pieces = out
	}
	return pieces
}

// share returns the pieces of rn (entry j's run in one stretch) that no
// earlier run of the stretch covers: all of it when they meet nowhere,
// else one piece per free residue of the common period. Rotations whose
// common period is beyond maxPeriod keep the whole run (their shared dates
// then appear twice in the file; importing it still makes one session).
func share(j int, rn run, earlier []run) []piece {
	if len(earlier) == 0 {
		return []piece{{j, rn}}
	}
	l := rn.mod
	for _, e := range earlier {
		l = lcm(l, e.mod)
		if l > maxPeriod {
			return []piece{{j, rn}}
		}
	}
	var free []int
	for t := 0; t < l/rn.mod; t++ {
		q := mod(rn.res+t*rn.mod, l)
		taken := false
		for _, e := range earlier {
			if mod(q, e.mod) == e.res {
				taken = true
				break
			}
		}
		if !taken {
			free = append(free, q)
		}
	}
	if len(free) == l/rn.mod {
		return []piece{{j, rn}}
	}
	var out []piece
	for _, q := range free {
		out = append(out, piece{j, run{from: rn.from, to: rn.to, mod: l, res: q}})
	}
	return out
}

// mergePieces joins pieces of one entry with the same rule that meet, and
// drops empty ones.
func mergePieces(ps []piece) []piece {
	sort.SliceStable(ps, func(i, j int) bool {
		a, b := ps[i], ps[j]
		if a.entry != b.entry {
			return a.entry < b.entry
		}
		if a.run.mod != b.run.mod {
			return a.run.mod < b.run.mod
		}
		if a.run.res != b.run.res {
			return a.run.res < b.run.res
		}
		return a.run.from < b.run.from
	})
	var out []piece
	for _, p := range ps {
		if n := len(out); n > 0 {
			q := &out[n-1]
			if q.entry == p.entry && q.run.mod == p.run.mod && q.run.res == p.run.res && q.run.to == p.run.from {
				q.run.to = p.run.to
				continue
			}
		}
		out = append(out, p)
	}
	ps = out[:0]
	for _, p := range out {
		if !p.run.empty() {
			ps = append(ps, p)
		}
	}
	return ps
}

// pieceEvent writes one piece as a recurring VEVENT with its EXDATEs and
// overrides.
func (x *exporter) pieceEvent(ct engine.ClassTime, class engine.Class, entries []engine.Entry, runs [][]entryRun, p piece) {
	w0, _ := p.run.first()
	first := engine.DayIn(w0, ct.Weekday, x.ws)
	uid := fmt.Sprintf("e%d-%s@%s", entries[p.entry].ID, icsDate(first), x.opts.Domain)
	ev := ics.NewEvent(uid)
	ev.SetDtStampTime(x.opts.Stamp)
	ev.SetProperty(ics.ComponentPropertyDtStart, icsLocal(first, ct.Start), ics.WithTZID(x.loc.String()))
	// Every occurrence lasts as long as the first (RFC 5545 §3.8.5.3): a
	// first date whose clocks change during the session would set the
	// wrong length for all of them, so it gets the length on the clock.
	wallLength := time.Duration(ct.End-ct.Start) * time.Minute
	if at(first, int(ct.End), x.loc).Sub(at(first, int(ct.Start), x.loc)) != wallLength {
		ev.SetProperty(ics.ComponentPropertyDuration, fmt.Sprintf("PT%dM", int(ct.End-ct.Start)))
	} else {
		ev.SetProperty(ics.ComponentPropertyDtEnd, icsLocal(first, ct.End), ics.WithTZID(x.loc.String()))
	}
	rule := fmt.Sprintf("FREQ=WEEKLY;INTERVAL=%d;BYDAY=%s;WKST=%s", p.run.mod, dayCodes[ct.Weekday], dayCodes[x.ws])
	last := engine.MaxDate
	x.dated(first)
	if wl, ok := p.run.last(); ok {
		last = engine.DayIn(wl, ct.Weekday, x.ws)
		// UNTIL is UTC when DTSTART has a zone (RFC 5545 §3.3.10). Any
		// instant from the last occurrence to the next one ends the rule
		// there; the end of the day after the last date leaves no doubt
		// even for readers that compare a late-evening occurrence with
		// UNTIL at DTSTART's UTC offset across a change of clocks
		// (python-dateutil with pytz zones does).
		until := (last + 2).At(0, x.loc).Add(-time.Second).UTC()
		rule += ";UNTIL=" + until.Format("20060102T150405Z")
		x.dated(last)
	}
	ev.AddRrule(rule)
	x.describe(ev, ct.Label, class, class.StaffIDs, ct.RoomID, false)
	x.classTimeProps(ev, ct)
	x.declare(ev, entries, runs, p.run)

	// The dates something happens to: changed sessions and closures.
	special := slices.Clone(x.changes[[2]int64{ct.ID, class.ID}])
	for _, c := range x.st.Closures {
		if !c.ClosesRoom(ct.RoomID) {
			continue
		}
		from, to := weeksOn(max(c.From, first), min(c.To, last), ct.Weekday, x.ws)
		for _, w := range p.run.weeks(from, to, maxListed) {
			special = append(special, engine.DayIn(w, ct.Weekday, x.ws))
		}
	}
	slices.Sort(special)
	special = slices.Compact(special)
	var overrides []*ics.VEvent
	for _, d := range special {
		if d < first || d > last || d.Weekday() != ct.Weekday || !p.run.has(engine.WeekOf(d, x.ws)) {
			continue
		}
		s, ok := x.session(engine.SessionRef{Date: d, ClassTimeID: ct.ID, ClassID: class.ID})
		if !ok {
			continue
		}
		switch {
		case s.Changed || s.Note() != "" && !s.Cancelled:
			o := x.sessionEvent(uid, &s, ct, s.Cancelled)
			o.SetProperty(ics.ComponentPropertyRecurrenceId, icsLocal(d, ct.Start), ics.WithTZID(x.loc.String()))
			overrides = append(overrides, o)
		case s.Cancelled:
			ev.AddExdate(icsLocal(d, ct.Start), ics.WithTZID(x.loc.String()))
			if r := s.Reason(); r != "" {
				ev.AddProperty(xCancelNote, r, &ics.KeyValues{Key: "X-DATE", Value: []string{icsDate(d)}})
			}
		}
	}
	x.events = append(x.events, ev)
	x.events = append(x.events, overrides...)
}

// session returns the session a ref names where a day change has put it,
// as Timetable.Day resolves that date: closures included, which
// Timetable.Session leaves out (it closes a copy of the session).
func (x *exporter) session(ref engine.SessionRef) (engine.Session, bool) {
	s, ok := x.tt.Session(ref)
	if !ok {
		return s, false
	}
	for _, d := range x.tt.Day(s.Date) {
		if d.OneOffID == 0 && d.Ref() == ref {
			return d, true
		}
	}
	return s, true
}

// sessionEvent writes one session as a single VEVENT at its date (an
// override when the caller adds RECURRENCE-ID).
func (x *exporter) sessionEvent(uid string, s *engine.Session, ct engine.ClassTime, cancelled bool) *ics.VEvent {
	ev := ics.NewEvent(uid)
	ev.SetDtStampTime(x.opts.Stamp)
	ev.SetProperty(ics.ComponentPropertyDtStart, icsLocal(s.Date, s.Start), ics.WithTZID(x.loc.String()))
	ev.SetProperty(ics.ComponentPropertyDtEnd, icsLocal(s.Date, s.End), ics.WithTZID(x.loc.String()))
	x.dated(s.Date)
	x.describe(ev, s.Label, x.classes[s.ClassID], s.StaffIDs, s.RoomID, cancelled)
	if ct.ID != 0 {
		x.classTimeProps(ev, ct)
	}
	if n := s.Note(); n != "" {
		ev.SetProperty(xNote, n)
	}
	return ev
}

// describe writes what, where and who.
func (x *exporter) describe(ev *ics.VEvent, label string, class engine.Class, staff []int64, room int64, cancelled bool) {
	act := x.activities[class.ActivityID]
	summary := act.Name
	if label != "" && !strings.EqualFold(label, act.Name) {
		summary += " · " + label
	}
	ev.SetSummary(summary)
	ev.SetProperty(xActivity, act.Name)
	if act.Color != "" {
		ev.SetProperty(xColor, act.Color)
	}
	r := x.rooms[room]
	ev.SetLocation(r.Name)
	if r.Capacity != 0 {
		ev.SetProperty(xRoomCapacity, strconv.Itoa(r.Capacity))
	}
	var names []string
	for i, id := range staff {
		p := x.staff[id]
		names = append(names, p.Name)
		addr := fmt.Sprintf("mailto:staff-%d@%s.invalid", id, x.opts.Domain)
		if i == 0 {
			ev.SetOrganizer(addr, ics.WithCN(p.Name))
			continue
		}
		ev.AddAttendee(addr, ics.WithCN(p.Name), ics.ParticipationRoleReqParticipant, ics.CalendarUserTypeIndividual)
	}
	switch {
	case len(names) == 0:
	case x.opts.StaffLine == nil:
		w := x.words.Staff.Title()
		if len(names) > 1 {
			w = strings.ToUpper(x.words.Staff.Many[:1]) + x.words.Staff.Many[1:]
		}
		ev.SetDescription(w + ": " + strings.Join(names, ", "))
	case x.opts.Language == "":
		ev.SetDescription(x.opts.StaffLine(names))
	default:
		ev.SetDescription(x.opts.StaffLine(names), &ics.KeyValues{Key: string(ics.ParameterLanguage), Value: []string{x.opts.Language}})
	}
	if cancelled {
		ev.SetStatus(ics.ObjectStatusCancelled)
	} else {
		ev.SetStatus(ics.ObjectStatusConfirmed)
	}
}

func (x *exporter) classTimeProps(ev *ics.VEvent, ct engine.ClassTime) {
	ev.SetProperty(xClassTime, strconv.FormatInt(ct.ID, 10))
	if ct.Label != "" {
		ev.SetProperty(xLabel, ct.Label)
	}
	if ct.Type != "" {
		ev.SetProperty(xType, ct.Type)
	}
	for _, p := range []struct {
		prop ics.ComponentProperty
		v    int
	}{{xCapacity, ct.Capacity}, {xBuffer, ct.Buffer}, {xUnits, ct.Units}} {
		if p.v != 0 {
			ev.SetProperty(p.prop, strconv.Itoa(p.v))
		}
	}
}

// declare names, on a piece, every entry of its group whose series is
// running then: the series (or the stretch of it between pauses, as a
// series of its own), its cycle and the entry's week. An entry whose dates
// other entries of the group already carry is named here too, so reading
// the file back restores it.
func (x *exporter) declare(ev *ics.VEvent, entries []engine.Entry, runs [][]entryRun, p run) {
	for j, e := range entries {
		sr := x.series[e.SeriesID]
		legs := x.legs[e.SeriesID]
		r := x.rot[e.SeriesID]
		for i, l := range legs {
			rn := legRun(r, l, e.Week)
			if l.From >= p.to || p.from >= rn.to || !runsHave(runs[j], i) {
				continue
			}
			k := strconv.FormatInt(sr.ID, 10)
			anchor := sr.Anchor
			week := e.Week
			if len(legs) > 1 {
				k += "." + strconv.Itoa(i)
				anchor = engine.WeekStartDay(l.From, x.ws)
				week = mod(rn.res-l.From, sr.Cycle) + 1 // the entry's week in a rotation anchored there
			}
			params := []ics.PropertyParameter{
				&ics.KeyValues{Key: "X-KEY", Value: []string{k}},
				&ics.KeyValues{Key: "X-ANCHOR", Value: []string{icsDate(anchor)}},
				&ics.KeyValues{Key: "X-CYCLE", Value: []string{strconv.Itoa(sr.Cycle)}},
				&ics.KeyValues{Key: "X-WEEK", Value: []string{strconv.Itoa(week)}},
			}
			if rn.to < forever {
				params = append(params, &ics.KeyValues{Key: "X-END", Value: []string{icsDate(engine.WeekStartDay(l.To, x.ws))}})
			} else if sr.End != 0 {
				params = append(params, &ics.KeyValues{Key: "X-END", Value: []string{icsDate(sr.End)}})
			}
			ev.AddProperty(xSeries, sr.Name, params...)
		}
	}
}

func runsHave(rs []entryRun, seg int) bool {
	for _, r := range rs {
		if r.seg == seg {
			return true
		}
	}
	return false
}

// oneOffEvents writes each one-off as a single VEVENT.
func (x *exporter) oneOffEvents() {
	offs := append([]engine.OneOff(nil), x.st.OneOffs...)
	sort.Slice(offs, func(i, j int) bool { return offs[i].ID < offs[j].ID })
	for _, o := range offs {
		if x.stopped() {
			return
		}
		for _, s := range x.tt.Day(o.Date) {
			if s.OneOffID != o.ID {
				continue
			}
			ev := x.sessionEvent(fmt.Sprintf("o-%d@%s", o.ID, x.opts.Domain), &s, engine.ClassTime{}, s.Cancelled)
			if o.Label != "" {
				ev.SetProperty(xLabel, o.Label)
			}
			for _, p := range []struct {
				prop ics.ComponentProperty
				v    int
			}{{xCapacity, o.Capacity}, {xBuffer, o.Buffer}, {xUnits, o.Units}} {
				if p.v != 0 {
					ev.SetProperty(p.prop, strconv.Itoa(p.v))
				}
			}
			x.events = append(x.events, ev)
		}
	}
}
