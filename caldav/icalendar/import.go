package icalendar

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	ics "github.com/arran4/golang-ical"

	"github.com/koredyne/schedule/engine"
)

// ImportOptions say how to fill what a file leaves out.
type ImportOptions struct {
	// DefaultStaff names the staff member of events with no ORGANIZER or
	// ATTENDEE common name.
	DefaultStaff string
	// DefaultRoom names the room of events with no LOCATION.
	DefaultRoom string
	// ExpandUntil, when set, brings in the events whose repeat rule the
	// timetable cannot hold as one-offs, one for each date up to and
	// including it. When zero they are only reported.
	ExpandUntil engine.Date
	// Progress, when set, is called every so often with the number of
	// events read and the number in the file.
	Progress func(done, total int)
}

// Result is what an import makes of a file.
type Result struct {
	// State is the existing state with the imported rows added under
	// temporary, negative ids: the state to validate and write.
	State engine.State
	// Problems are the events, or parts of them, that could not be
	// imported, in file order.
	Problems []Problem
	// Events counts the events (overrides aside) imported whole or in
	// part; Series, OneOffs and Changes count the rows made from them.
	Events, Series, OneOffs, Changes int
}

// Problem is one event, or one part of it, that could not be imported.
type Problem struct {
	Line    int // of the event's BEGIN:VEVENT, 1-based; 0 when unknown
	UID     string
	Summary string
	Reason  string // in the business's words
}

func (p Problem) String() string {
	what := p.Summary
	if what == "" {
		what = p.UID
	}
	return fmt.Sprintf("line %d (%s): %s", p.Line, what, p.Reason)
}

// progressEvery is how many events pass between Progress calls.
const progressEvery = 200

// ImportMemory is the most heap Import holds at once to read file, beside
// the file itself: a copy of it, the parsed calendar (golang-ical keeps
// every content line as a property, its parameters in a map) and what the
// events become (a new room, staff member, class and series for a weekly
// event of its own). It is priced by the bytes and the content lines of
// the file; events expanded up to ImportOptions.ExpandUntil are not in it,
// since they grow with the dates, not the file. TestImportMemory measures
// it against the heap.
func ImportMemory(file string) int64 {
	return 3*int64(len(file)) + 420*int64(strings.Count(file, "\n")+1) + 64<<10
}

// Import reads an iCalendar file and returns the rules it describes merged
// into existing (see the package documentation for the mapping). Rooms,
// staff, activities and classes existing already has are reused by name;
// everything new gets a temporary negative id. An error means the file
// could not be read at all; what is wrong with single events is in
// Result.Problems.
func Import(r io.Reader, existing engine.State, opts ImportOptions) (*Result, error) {
	if existing.Business.Location == nil {
		return nil, errors.New("the business needs a time zone before a calendar can be imported")
	}
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("reading the calendar file: %w", err)
	}
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	cal, err := ics.ParseCalendar(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("the file is not an iCalendar file that can be read: %s", brief(err.Error()))
	}
	vs := cal.Events()
	lines := veventLines(data)
	if len(lines) != len(vs) {
		lines = nil // cannot pair them up: report line 0 rather than a wrong one
	}

	st := existing.Clone()
	im := &importer{
		opts: opts, biz: existing.Business.Location, ws: existing.Business.WeekStart, zones: zones{},
		words: engine.Words(existing.Business.Kind), st: &st, existing: existing,
	}
	im.cat = newCatalog(im.st)

	masters := map[string]*event{}
	var order []*event
	var overrides []*event
	for i, v := range vs {
		if opts.Progress != nil && i%progressEvery == 0 {
			opts.Progress(i, len(vs))
		}
		changed := scrub(v)
		e := &event{v: v, uid: text(v, ics.ComponentPropertyUniqueId), summary: text(v, ics.ComponentPropertySummary)}
		if lines != nil {
			e.line = lines[i]
		}
		if len(changed) > 0 {
			im.problem(e, "held control characters, invalid text or text too long in %s; imported with them replaced by spaces and cut to fit",
				strings.Join(changed, ", "))
		}
		if v.HasProperty(ics.ComponentPropertyRecurrenceId) {
			overrides = append(overrides, e)
			continue
		}
		if first, dup := masters[e.uid]; dup && e.uid != "" {
			im.problem(e, "has the same UID as the event on line %d; only the first is imported", first.line)
			continue
		}
		masters[e.uid] = e
		order = append(order, e)
	}
	for _, o := range overrides {
		m := masters[o.uid]
		if m == nil || o.uid == "" {
			im.problem(o, "changes one date of a repeating event that is not in the file")
			continue
		}
		m.overrides = append(m.overrides, o)
	}
	for _, e := range order {
		im.master(e)
	}
	im.settle()
	if opts.Progress != nil {
		opts.Progress(len(vs), len(vs))
	}
	sort.SliceStable(im.problems, func(i, j int) bool { return im.problems[i].Line < im.problems[j].Line })
	return &Result{State: st, Problems: im.problems, Events: im.imported,
		Series: im.series, OneOffs: im.oneOffs, Changes: im.changes}, nil
}

type importer struct {
	opts     ImportOptions
	biz      *time.Location
	ws       time.Weekday
	words    engine.Vocabulary
	st       *engine.State
	existing engine.State
	cat      *catalog
	zones    zones

	events   []*event // weekly-periodic ones, in file order
	problems []Problem

	imported, series, oneOffs, changes int
}

// event is one VEVENT: a master (no RECURRENCE-ID) with its overrides, or
// one override.
type event struct {
	v            *ics.VEvent
	line         int
	uid, summary string
	overrides    []*event

	in    info
	start stamp // DTSTART as written
	dur   int   // minutes, on the event's own clock
	raw   string
	rule  *ics.RecurrenceRule

	// A weekly-periodic event: runs of business weeks per weekday, all at
	// startB–endB on the business's clock, shift days after the dates of
	// the event's own clock.
	period       int
	startB, endB int
	shift        int
	runs         []dayRun
	exdates      map[engine.Date]bool // business dates of rule dates taken out
	cancelNotes  map[engine.Date]string
	extra        engine.Date // DTSTART when the rule does not give it: a one-off
	extraOneOff  int         // index in State.OneOffs of that one-off, +1
	decls        []decl
	meta         bool // decls are trusted: the series are restored as declared
	class        int64
	classKey     string
}

type dayRun struct {
	wd  time.Weekday
	run run
}

// decl is one X-KOREDYNE-SERIES property: this event's sessions are week
// Week of a Cycle-week series (identified in the file by Key) that runs
// from Anchor to End.
type decl struct {
	key, name   string
	anchor, end engine.Date
	cycle, week int
}

func (im *importer) problem(e *event, format string, args ...any) {
	im.problems = append(im.problems, Problem{Line: e.line, UID: e.uid, Summary: e.summary, Reason: brief(fmt.Sprintf(format, args...))})
}

// briefLength is the most bytes of a reason kept: a reason may quote the
// value it could not read, and a value can be as long as the file (a
// 9 MB line was sent back whole in the answer).
const briefLength = 500

// brief cuts s to briefLength bytes, at a character's start, marking the
// cut with an ellipsis.
func brief(s string) string {
	if len(s) <= briefLength {
		return s
	}
	cut := briefLength
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// span is where and when one session falls on the business's clock.
type span struct {
	date       engine.Date
	start, end int
}

// businessSpan puts an occurrence starting at s and lasting dur minutes
// (on s's clock) on the business's clock: as written when s is on it (or
// floating), through the instant otherwise. It fails for a session that
// would cross midnight.
func (im *importer) businessSpan(s stamp, dur int) (span, string) {
	bs := onClock(s, im.biz)
	var be wall
	if s.form == floating || sameZone(s.loc, im.biz) {
		be = bs.add(dur)
	} else {
		t := s.instant().Add(time.Duration(dur) * time.Minute).In(im.biz)
		be = wall{engine.DateOf(t), t.Hour()*60 + t.Minute()}
	}
	end := be.min
	switch {
	case be.date == bs.date:
	case be.date == bs.date+1 && be.min == 0:
		end = 1440
	default:
		return span{}, fmt.Sprintf("runs past midnight (%s %s to %s %s); %s must start and end on the same day",
			shortDate(bs.date), clock(bs.min), shortDate(be.date), clock(be.min), im.words.Class.A())
	}
	if end <= bs.min {
		return span{}, "has no length on the business's clock"
	}
	return span{bs.date, bs.min, end}, ""
}

// duration reads DTEND or DURATION as minutes on the start's clock.
func (im *importer) duration(v *ics.VEvent, start stamp) (int, string) {
	dur := 0
	switch {
	case v.HasProperty(ics.ComponentPropertyDtEnd):
		ends, err := parseStamps(v.GetProperty(ics.ComponentPropertyDtEnd), im.biz, im.zones)
		if err != nil || len(ends) != 1 {
			return 0, fmt.Sprintf("has an end (DTEND) that cannot be read: %v", errOr(err, "more than one value"))
		}
		end := ends[0]
		if end.form == dateOnly {
			return 0, "ends on a date without a time (DTEND), as all-day events do; the timetable only holds sessions with a start and end time"
		}
		if end.sec != 0 {
			return 0, fmt.Sprintf("ends at a time with seconds (%s:%02d); times are kept to the minute", clock(end.min), end.sec)
		}
		if sameClock(start, end) {
			dur = end.date.Sub(start.date)*1440 + end.min - start.min
		} else {
			dur = int(end.instant().Sub(start.instant()) / time.Minute)
		}
	case v.HasProperty(ics.ComponentPropertyDuration):
		m, sec, err := parseDuration(v.GetProperty(ics.ComponentPropertyDuration).Value)
		if err != nil {
			return 0, fmt.Sprintf("has a length (DURATION) that cannot be read: %v", err)
		}
		if sec != 0 {
			return 0, "lasts a length with seconds; times are kept to the minute"
		}
		dur = m
	default:
		return 0, "has no end time (DTEND or DURATION)"
	}
	switch {
	case dur <= 0:
		return 0, "ends before it starts"
	case dur > 1440:
		return 0, fmt.Sprintf("lasts longer than a day (%d h %02d min); %s must start and end on the same day", dur/60, dur%60, im.words.Class.A())
	}
	return dur, ""
}

func errOr(err error, s string) string {
	if err != nil {
		return err.Error()
	}
	return s
}

// master reads one event and its overrides: a one-off, a weekly-periodic
// event kept for settle, one-offs expanded from a rule the timetable cannot
// hold, or problems.
func (im *importer) master(e *event) {
	v := e.v
	e.in = readInfo(v)
	if e.in.activity == "" {
		im.problem(e, "has no title (SUMMARY) to name its %s", im.words.Activity.One)
		return
	}
	if e.in.room == "" {
		e.in.room = strings.TrimSpace(im.opts.DefaultRoom)
	}
	if e.in.room == "" {
		im.problem(e, "has no place (LOCATION) and no default room was given")
		return
	}
	if len(e.in.staff) == 0 && strings.TrimSpace(im.opts.DefaultStaff) != "" {
		e.in.staff = []string{strings.Join(strings.Fields(im.opts.DefaultStaff), " ")}
	}
	if len(e.in.staff) == 0 {
		im.problem(e, "names no organizer or attendee to run it, and no default %s was given", im.words.Staff.One)
		return
	}
	p := v.GetProperty(ics.ComponentPropertyDtStart)
	if p == nil {
		im.problem(e, "has no start (DTSTART)")
		return
	}
	starts, err := parseStamps(p, im.biz, im.zones)
	if err != nil || len(starts) != 1 {
		var ze *zoneError
		if errors.As(err, &ze) {
			im.problem(e, "uses the time zone %q, which is not known", ze.tzid)
			return
		}
		im.problem(e, "has a start (DTSTART) that cannot be read: %v", errOr(err, "more than one value"))
		return
	}
	e.start = starts[0]
	if e.start.form == dateOnly {
		im.problem(e, "is an all-day event; the timetable only holds %s with a start and end time", im.words.Class.Many)
		return
	}
	if e.start.sec != 0 {
		im.problem(e, "starts at a time with seconds (%s:%02d); times are kept to the minute", clock(e.start.min), e.start.sec)
		return
	}
	dur, why := im.duration(v, e.start)
	if why != "" {
		im.problem(e, "%s", why)
		return
	}
	e.dur = dur
	e.classKey = engine.ClassKey(e.in.activity, e.in.staff)

	recurring := v.HasProperty(ics.ComponentPropertyRrule) || v.HasProperty(ics.ComponentPropertyRdate)
	if !recurring {
		for _, o := range e.overrides {
			im.problem(o, "changes one date of an event that does not repeat")
		}
		sp, why := im.businessSpan(e.start, e.dur)
		if why != "" {
			im.problem(e, "%s", why)
			return
		}
		im.addOneOff(e.in, sp, e.in.cancelled)
		im.imported++
		return
	}
	if e.in.cancelled {
		im.problem(e, "is cancelled as a whole (STATUS:CANCELLED); nothing to import")
		return
	}
	reason, expandable := im.weekly(e)
	if reason == "" {
		im.events = append(im.events, e)
		im.imported++
		return
	}
	im.unsupported(e, reason, expandable)
}

// unsupported reports an event the timetable cannot hold, and brings its
// dates in as one-offs when it can and the import asks for it.
func (im *importer) unsupported(e *event, reason string, expandable bool) {
	if !expandable {
		if im.opts.ExpandUntil != 0 {
			reason += fmt.Sprintf("; its dates cannot be brought in as one-off %s either", im.words.Class.Many)
		}
		im.problem(e, "%s", reason)
		return
	}
	if im.opts.ExpandUntil == 0 {
		im.problem(e, "%s; give an end date for the import to bring its dates in as one-off %s", reason, im.words.Class.Many)
		return
	}
	n, why := im.expand(e)
	if why != "" {
		im.problem(e, "%s; %s", reason, why)
		return
	}
	im.problem(e, "%s; imported as %d one-off %s up to %s", reason, n, plural(im.words.Class, n), shortDate(im.opts.ExpandUntil))
	if n > 0 {
		im.imported++
	}
}

func plural(w engine.Word, n int) string {
	if n == 1 {
		return w.One
	}
	return w.Many
}

func (im *importer) addOneOff(in info, sp span, cancelled bool) int {
	room := im.cat.room(in.room, in.roomCapacity)
	class := im.cat.class(in.activity, in.color, in.staff)
	im.st.OneOffs = append(im.st.OneOffs, engine.OneOff{
		ID: im.cat.id(), ClassID: class, RoomID: room, Date: sp.date,
		Start: engine.LocalTime(sp.start), End: engine.LocalTime(sp.end),
		Label: in.label, Capacity: in.capacity, Buffer: in.buffer, Units: in.units,
		Cancelled: cancelled, Note: in.note,
	})
	im.oneOffs++
	return len(im.st.OneOffs) - 1
}

// rule reads the event's single RRULE (nil when it has only RDATEs).
func (im *importer) rule(e *event) (*ics.RecurrenceRule, string) {
	props := e.v.GetProperties(ics.ComponentPropertyRrule)
	if len(props) == 0 {
		return nil, ""
	}
	if len(props) > 1 {
		return nil, "has more than one repeat rule (RRULE)"
	}
	e.raw = props[0].Value
	r, err := ics.ParseRecurrenceRule(e.raw)
	if err != nil {
		return nil, fmt.Sprintf("has a repeat rule (RRULE) that cannot be read: %v", err)
	}
	if _, err := cutoff(e.raw, e.start); err != nil {
		return nil, fmt.Sprintf("has a repeat rule whose end (UNTIL) cannot be read: %v", err)
	}
	normalize(r, e.start.min, e.start.sec)
	return r, ""
}

var freqWords = map[ics.Frequency]string{
	ics.FrequencyMonthly: "monthly", ics.FrequencyYearly: "yearly", ics.FrequencyHourly: "hourly",
	ics.FrequencyMinutely: "every minute", ics.FrequencySecondly: "every second",
}

// weekly makes a weekly-periodic event of e, or says why the timetable
// cannot hold it and whether its dates can still be expanded.
func (im *importer) weekly(e *event) (reason string, expandable bool) {
	r, why := im.rule(e)
	if why != "" {
		return why, false
	}
	if e.v.HasProperty(ics.ComponentPropertyExrule) {
		return "takes dates out by a rule (EXRULE, no longer part of iCalendar)", false
	}
	e.rule = r
	if e.v.HasProperty(ics.ComponentPropertyRdate) {
		if r == nil {
			return "happens on a list of dates (RDATE) rather than by a weekly rule", true
		}
		return "has extra dates (RDATE) besides its repeat rule", expandErr(r) == nil
	}
	canExpand := expandErr(r) == nil
	switch {
	case r.Freq != ics.FrequencyWeekly && r.Freq != ics.FrequencyDaily:
		return fmt.Sprintf("repeats %s (FREQ=%s), which a weekly rotation cannot hold", freqWords[r.Freq], r.Freq), canExpand
	case len(r.ByMonth) > 0:
		return "repeats only in some months (BYMONTH), which a weekly rotation cannot hold", canExpand
	case len(r.ByMonthDay) > 0:
		return "repeats on days of the month (BYMONTHDAY), which a weekly rotation cannot hold", canExpand
	case len(r.BySetPos) > 0:
		return "picks dates by their position (BYSETPOS), which a weekly rotation cannot hold", canExpand
	case len(r.ByYearDay) > 0 || len(r.ByWeekNo) > 0:
		return "picks weeks or days of the year by number (BYWEEKNO or BYYEARDAY), which a weekly rotation cannot hold", false
	case len(r.ByHour) > 0 || len(r.ByMinute) > 0 || len(r.BySecond) > 0:
		return "repeats at several times of day (BYHOUR, BYMINUTE or BYSECOND); a class time has one", false
	case !canExpand:
		return fmt.Sprintf("has a repeat rule that cannot be worked out: %v", expandErr(r)), false
	}
	p := r.Interval
	if r.Freq == ics.FrequencyDaily {
		p = r.Interval / gcd(r.Interval, 7)
	}
	if p > engine.MaxCycle && (!e.v.HasProperty(xSeries) || p > maxPeriod) {
		return im.tooLong(p), true
	}
	e.period = p

	// One period from DTSTART holds every residue of the rule's dates.
	var firstPeriod []engine.Date
	if err := expandDates(r, e.start.date, e.start.date+engine.Date(7*p-1), func(d engine.Date) bool {
		firstPeriod = append(firstPeriod, d)
		return true
	}); err != nil {
		return err.Error(), false
	}
	synced := len(firstPeriod) > 0 && firstPeriod[0] == e.start.date
	last, _ := cutoff(e.raw, e.start)
	if r.Count > 0 {
		n := r.Count
		if !synced {
			n-- // RFC 5545: DTSTART counts as the first occurrence
		}
		var lastDate engine.Date
		if n > 0 && len(firstPeriod) > 0 {
			_ = expandDates(r, e.start.date, last, func(d engine.Date) bool {
				lastDate = d
				n--
				return n > 0
			})
		}
		if lastDate == 0 {
			last = e.start.date - 1 // the rule adds nothing to DTSTART
		} else {
			last = min(last, lastDate)
		}
	}

	// The business's clock: the same as the event's, or one that keeps a
	// constant difference from it over every date of the rule.
	if e.start.form != floating && !sameZone(e.start.loc, im.biz) {
		first := e.start.date
		if !synced && len(firstPeriod) > 0 {
			first = min(first, firstPeriod[0])
		}
		from := at(first, e.start.min, e.start.loc)
		to := from.AddDate(100, 0, 0)
		if last < engine.MaxDate {
			to = at(max(last, first), e.start.min, e.start.loc)
		}
		offsets := map[int]bool{}
		for _, d := range firstPeriod {
			offsets[d.Sub(e.start.date)] = true
		}
		occurs := func(d engine.Date) bool {
			return d == e.start.date || d >= e.start.date && d <= last && offsets[mod(d.Sub(e.start.date), 7*p)]
		}
		hits := func(lo, hi time.Time) bool {
			for d := engine.DateOf(lo.In(e.start.loc)) - 1; d <= engine.DateOf(hi.In(e.start.loc))+1; d++ {
				if occurs(d) {
					if t := at(d, e.start.min, e.start.loc); !t.Before(lo) && t.Before(hi) {
						return true
					}
				}
			}
			return false
		}
		if !offsetsAgree(e.start.loc, im.biz, from, to, hits) {
			if e.start.form == utc {
				return fmt.Sprintf("repeats at a fixed UTC time (%s UTC), which moves on the business's clock when %s changes to or from daylight-saving time",
					clock(e.start.min), im.biz), true
			}
			return fmt.Sprintf("repeats on the clock of %s, which changes to or from daylight-saving time on other dates than %s: its sessions would not keep one time here",
				e.start.loc, im.biz), true
		}
		t := from.In(im.biz)
		bw := wall{engine.DateOf(t), t.Hour()*60 + t.Minute()}
		delta := bw.date.Sub(first)*1440 + bw.min - e.start.min
		total := e.start.min + delta
		e.shift = total / 1440
		if total < 0 && total%1440 != 0 {
			e.shift--
		}
		e.startB = total - e.shift*1440
	} else {
		e.startB = e.start.min
	}
	e.endB = e.startB + e.dur
	if e.endB > 1440 {
		return fmt.Sprintf("runs past midnight (%s for %d h %02d min on the business's clock); %s must start and end on the same day",
			clock(e.startB), e.dur/60, e.dur%60, im.words.Class.A()), false
	}
	shift := engine.Date(e.shift)
	if !synced {
		e.extra = e.start.date + shift
	}
	openEnded := last >= engine.MaxDate
	cutB := last + shift
	for _, d := range firstPeriod {
		if d > last {
			continue
		}
		b := d + shift
		rn := run{from: engine.WeekOf(b, im.ws), to: forever, mod: p, res: mod(engine.WeekOf(b, im.ws), p)}
		if !openEnded {
			w := engine.WeekOf(cutB, im.ws)
			if engine.DayIn(w, b.Weekday(), im.ws) > cutB {
				w--
			}
			w -= mod(w-rn.res, p)
			rn.to = w + 1
		}
		if !rn.empty() {
			e.runs = append(e.runs, dayRun{wd: b.Weekday(), run: rn})
		}
	}
	// EXDATE cancels: an event whose every date is taken out still
	// comes in, as cancelled sessions, as the file has them.
	im.exdatesOf(e)
	im.readDecls(e)
	return "", false
}

// tooLong is why a rule repeating every p weeks cannot be a series of its
// own. A file this package wrote can still hold one: a class shared by
// series of different cycles repeats on their common period, and it names
// the series it belongs to.
func (im *importer) tooLong(p int) string {
	return fmt.Sprintf("repeats every %d weeks; %s rotation can be at most %d weeks long", p, im.words.Series.A(), engine.MaxCycle)
}

func expandErr(r *ics.RecurrenceRule) error {
	if r == nil {
		return nil
	}
	return expandable(r)
}

// runOn returns the event's run on a weekday.
func (e *event) runOn(wd time.Weekday) (run, bool) {
	for _, dr := range e.runs {
		if dr.wd == wd {
			return dr.run, true
		}
	}
	return run{}, false
}

// occurs reports whether the rule gives business date b (EXDATE aside).
func (e *event) occurs(b engine.Date, ws time.Weekday) bool {
	r, ok := e.runOn(b.Weekday())
	return ok && r.has(engine.WeekOf(b, ws))
}

// onEventClock turns a stamp naming one of e's dates (EXDATE,
// RECURRENCE-ID) into that date on the event's clock, or false when it
// names another time of day.
func (e *event) onEventClock(s stamp) (engine.Date, bool) {
	if s.form == dateOnly {
		return s.date, true
	}
	w := onClock(s, e.start.loc)
	return w.date, w.min == e.start.min
}

func (im *importer) exdatesOf(e *event) {
	e.exdates = map[engine.Date]bool{}
	e.cancelNotes = map[engine.Date]string{}
	for _, p := range e.v.GetProperties(ics.ComponentPropertyExdate) {
		xs, err := parseStamps(p, im.biz, im.zones)
		if err != nil {
			continue // an EXDATE that cannot be read takes nothing out
		}
		for _, x := range xs {
			d, ok := e.onEventClock(x)
			if !ok {
				continue
			}
			b := d + engine.Date(e.shift)
			switch {
			case b == e.extra:
				e.extra = 0
			case e.occurs(b, im.ws):
				e.exdates[b] = true
			}
		}
	}
	for _, p := range e.v.GetProperties(xCancelNote) {
		if d, err := parseStamp(param(p, "X-DATE"), nil, "", im.biz); err == nil {
			e.cancelNotes[d.date+engine.Date(e.shift)] = strings.TrimSpace(p.Value)
		}
	}
}

// readDecls reads the X-KOREDYNE-SERIES properties of a file this package
// wrote. They are trusted only on the business's own clock and when every
// one of them makes sense; settle checks them against the dates.
func (im *importer) readDecls(e *event) {
	props := e.v.GetProperties(xSeries)
	if len(props) == 0 || e.shift != 0 || e.start.form != floating && !sameZone(e.start.loc, im.biz) {
		return
	}
	for _, p := range props {
		d := decl{key: param(p, "X-KEY"), name: strings.TrimSpace(p.Value)}
		d.cycle, _ = strconv.Atoi(param(p, "X-CYCLE"))
		d.week, _ = strconv.Atoi(param(p, "X-WEEK"))
		a, err := parseStamp(param(p, "X-ANCHOR"), nil, "", im.biz)
		if err != nil || a.form != dateOnly || a.date.Weekday() != im.ws {
			return
		}
		d.anchor = a.date
		if v := param(p, "X-END"); v != "" {
			end, err := parseStamp(v, nil, "", im.biz)
			if err != nil || end.form != dateOnly || end.date.Weekday() != im.ws || end.date <= d.anchor {
				return
			}
			d.end = end.date
		}
		if d.key == "" || d.name == "" || d.cycle < 1 || d.cycle > engine.MaxCycle || d.week < 1 || d.week > d.cycle {
			return
		}
		e.decls = append(e.decls, d)
	}
	e.meta = true
}

// expand brings an event the timetable cannot hold in as one-offs: each
// date its rule (and RDATE) gives from DTSTART up to ExpandUntil, less
// EXDATE, with its overrides applied.
func (im *importer) expand(e *event) (int, string) {
	limit := im.opts.ExpandUntil
	var occs []wall
	seen := map[wall]bool{}
	addOcc := func(w wall) {
		if !seen[w] {
			seen[w] = true
			occs = append(occs, w)
		}
	}
	addOcc(e.start.wall())
	if r := e.rule; r != nil {
		last, _ := cutoff(e.raw, e.start)
		n := r.Count
		err := expandDates(r, e.start.date, min(last, limit+2), func(d engine.Date) bool {
			if d == e.start.date {
				return true // DTSTART, counted below
			}
			if r.Count > 0 {
				n--
				if n <= 0 {
					return false
				}
			}
			addOcc(wall{d, e.start.min})
			return true
		})
		if err != nil {
			return 0, "its dates cannot be worked out either: " + err.Error()
		}
	}
	for _, p := range e.v.GetProperties(ics.ComponentPropertyRdate) {
		if strings.EqualFold(param(p, "VALUE"), "PERIOD") {
			return 0, "its dates cannot be worked out either: extra dates given as periods (RDATE;VALUE=PERIOD)"
		}
		xs, err := parseStamps(p, im.biz, im.zones)
		if err != nil {
			return 0, "its extra dates (RDATE) cannot be read: " + err.Error()
		}
		for _, x := range xs {
			if x.form == dateOnly {
				addOcc(wall{x.date, e.start.min})
			} else {
				addOcc(onClock(x, e.start.loc))
			}
		}
	}
	for _, p := range e.v.GetProperties(ics.ComponentPropertyExdate) {
		xs, err := parseStamps(p, im.biz, im.zones)
		if err != nil {
			continue
		}
		for _, x := range xs {
			for i := 0; i < len(occs); i++ {
				if x.form == dateOnly && occs[i].date == x.date || x.form != dateOnly && occs[i] == onClock(x, e.start.loc) {
					occs = append(occs[:i], occs[i+1:]...)
					i--
				}
			}
		}
	}
	sort.Slice(occs, func(i, j int) bool { return occs[i].less(occs[j]) })

	byWall := map[wall]*event{}
	for _, o := range e.overrides {
		rid, why := im.rid(o)
		if why != "" {
			im.problem(o, "%s", why)
			continue
		}
		var w wall
		if rid.form == dateOnly {
			w = wall{rid.date, e.start.min}
		} else {
			w = onClock(rid, e.start.loc)
		}
		if byWall[w] != nil {
			im.problem(o, "changes the date of %s a second time", shortDate(w.date))
			continue
		}
		byWall[w] = o
	}
	n := 0
	skipped := 0
	for _, w := range occs {
		s := e.start
		s.date, s.min = w.date, w.min
		in, dur, cancelled := e.in, e.dur, false
		if o := byWall[w]; o != nil {
			delete(byWall, w)
			os, odur, oin, why := im.overrideSpan(e, o, s)
			if why != "" {
				im.problem(o, "%s", why)
				continue
			}
			s, dur, in, cancelled = os, odur, oin, oin.cancelled
		}
		sp, why := im.businessSpan(s, dur)
		if why != "" {
			skipped++
			continue
		}
		if sp.date > limit {
			continue
		}
		im.addOneOff(in, sp, cancelled)
		n++
	}
	for w, o := range byWall {
		if w.date <= limit {
			im.problem(o, "changes the date of %s %s, which the repeating event does not have", shortDate(w.date), clock(w.min))
		}
	}
	if skipped > 0 && n == 0 {
		return 0, "every date runs past midnight on the business's clock"
	}
	return n, ""
}

// rid reads an override's RECURRENCE-ID.
func (im *importer) rid(o *event) (stamp, string) {
	xs, err := parseStamps(o.v.GetProperty(ics.ComponentPropertyRecurrenceId), im.biz, im.zones)
	if err != nil || len(xs) != 1 {
		return stamp{}, fmt.Sprintf("names the date it changes (RECURRENCE-ID) in a way that cannot be read: %v", errOr(err, "more than one value"))
	}
	return xs[0], ""
}

// overrideSpan reads what an override makes of one occurrence (orig, on
// the master's clock): its own start and length, or the master's when it
// leaves them out, and its own what, where and who, or the master's.
func (im *importer) overrideSpan(m, o *event, orig stamp) (stamp, int, info, string) {
	s, dur := orig, m.dur
	if p := o.v.GetProperty(ics.ComponentPropertyDtStart); p != nil {
		xs, err := parseStamps(p, im.biz, im.zones)
		if err != nil || len(xs) != 1 || xs[0].form == dateOnly {
			return stamp{}, 0, info{}, fmt.Sprintf("has a start (DTSTART) that cannot be read as a date and time: %v", errOr(err, "not a time"))
		}
		s = xs[0]
		if s.sec != 0 {
			return stamp{}, 0, info{}, "starts at a time with seconds; times are kept to the minute"
		}
	}
	if o.v.HasProperty(ics.ComponentPropertyDtEnd) || o.v.HasProperty(ics.ComponentPropertyDuration) {
		d, why := im.duration(o.v, s)
		if why != "" {
			return stamp{}, 0, info{}, why
		}
		dur = d
	}
	in := readInfo(o.v)
	mi := m.in
	mi.cancelled, mi.note = in.cancelled, in.note
	if in.activity != "" {
		mi.activity = in.activity
	}
	if in.room != "" {
		mi.room = in.room
	}
	if len(in.staff) > 0 {
		mi.staff = in.staff
	}
	return s, dur, mi, ""
}
