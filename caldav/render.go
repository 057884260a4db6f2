package caldav

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	ics "github.com/arran4/golang-ical"

	"github.com/koredyne/schedule/caldav/icalendar"
	"github.com/koredyne/schedule/engine"
	"github.com/koredyne/schedule/models"
	"github.com/koredyne/schedule/models/cache"
	"github.com/koredyne/schedule/models/locale"
)

// serial is how everything here is written: CRLF line ends and lines
// folded at 75 octets, as RFC 5545 requires (golang-ical writes LF unless
// told otherwise).
var serial = &ics.SerializationConfiguration{MaxLength: 75, PropertyMaxLength: 75, NewLine: "\r\n"}

// calendarStart is the opening of a VCALENDAR up to its components; name,
// when set, is the calendar's display name for clients that subscribe by URL.
func calendarStart(name string, loc *time.Location) string {
	cal := ics.NewCalendar()
	cal.SetProductId("-//Koredyne//Schedule//EN")
	cal.SetCalscale("GREGORIAN")
	if name != "" {
		cal.SetXWRCalName(name)
		cal.SetXWRTimezone(loc.String())
	}
	icalendar.SafeCalendar(cal)
	return strings.TrimSuffix(cal.Serialize(serial), "END:VCALENDAR\r\n")
}

var objectStart = calendarStart("", nil)

// event is one computed session as a calendar resource: its name, when it
// is, and its ETag, which a listing, a sync token and a 304 need and which
// come from what its VEVENT is written from (look), without writing it.
// The bytes (object) are written the first time something asks for them.
// An event holds no session and no pointer into the timetable, so the
// events a renderer keeps cost the collector next to nothing to scan.
type event struct {
	name       string // file name in a calendar collection: "s-2026-10-06-12-7.ics"
	date       engine.Date
	ref        engine.SessionRef // zero for a one-off
	oneOff     int64
	timeOff    int64     // a time off's event (busy.go): its id
	start, end time.Time // UTC
	modified   time.Time // UTC
	etag       string    // strong: the look's digest, hex
	obj        atomic.Pointer[object]
}

// object is an event written out: its VEVENT, and its VTIMEZONE, which
// make the CalDAV resource (text); its XML escape, the calendar-data of a
// REPORT, is made when first asked for (escaped).
type object struct {
	vevent  string // CRLF-terminated lines
	zone    *zoneText
	escaped atomic.Pointer[string]
}

// text is the CalDAV resource: a VCALENDAR with the VTIMEZONE and the
// VEVENT.
func (o *object) text() string { return objectStart + o.zone.text + o.vevent + objectEnd }

// size is the length of text.
func (o *object) size() int {
	return len(objectStart) + len(o.zone.text) + len(o.vevent) + len(objectEnd)
}

const objectEnd = "END:VCALENDAR\r\n"

// etagXML is the event's getetag: its ETag quoted, as XML text.
func (e *event) etagXML() string { return "&#34;" + e.etag + "&#34;" }

// renderer renders the sessions of one snapshot, the request's, and keeps
// what it has rendered in kept, which outlives the request: a snapshot
// never changes, so neither do its events. The snapshot is not kept with
// them, so renderings cached for a business whose snapshot has left the
// store's memory budget keep only what the budget counts for them alive.
type renderer struct {
	sn  *models.Snapshot
	loc *time.Location
	// words and lang are the business's words and language: event text is
	// in it.
	words locale.Vocabulary
	lang  *locale.Locale
	*kept
}

// kept is what the gateway keeps of a revision of a business, by business
// in the memory budget.
type kept struct {
	business, revision int64
	settings           string // what every event is written with: the UID domain, zone and words

	mu       sync.Mutex
	events   map[string]*event      // by session key
	zones    map[int64]*zoneText    // VTIMEZONE of one zone period, by its start
	listings map[string]*collected  // by calendar and window start
	feeds    map[string]*body       // by calendar and window start
	answers  map[string]*keptAnswer // gzipped calendar-query answers, by calendar, base, window start and body

	in *cache.Cache[int64, *kept] // the cache holding it, to count what it renders
}

// newRenderer is the renderer of sn with nothing rendered yet.
func newRenderer(sn *models.Snapshot) *renderer {
	b := sn.State.Business
	k := &kept{business: sn.Business.ID, revision: sn.Business.Revision,
		settings: sn.Business.UIDDomain() + "\x00" + b.Location.String() + "\x00" + string(b.Kind) + "\x00" + fmt.Sprint(b.Locale),
		events:   map[string]*event{}, zones: map[int64]*zoneText{}, listings: map[string]*collected{}, feeds: map[string]*body{}, answers: map[string]*keptAnswer{}}
	return k.of(sn)
}

// of is the renderer of snapshot sn, whose revision k holds.
func (k *kept) of(sn *models.Snapshot) *renderer {
	b := sn.State.Business
	l := locale.ForBusiness(b, "")
	return &renderer{sn: sn, loc: b.Location, words: l.Words(b.Kind), lang: l, kept: k}
}

// What a renderer holds counts towards the memory budget: its base, for
// each event its bookkeeping (the struct, its name and ETag, the map
// entry) and, once written, its bytes (the VEVENT, the object and its XML
// escape); listings and feeds add their own (see Handler.feed and collect).
const (
	rendererBase  = 4 << 10
	eventOverhead = 384
)

// keepFirst stores v under key in m, one of k's maps, unless another
// request stored one meanwhile, and counts size bytes for it; it returns
// the one kept.
func keepFirst[V any](k *kept, m map[string]V, key string, v V, size int64) V {
	k.mu.Lock()
	old, had := m[key]
	if !had {
		m[key] = v
	}
	k.mu.Unlock()
	if had {
		return old
	}
	k.grow(size)
	return v
}

// grow counts n more bytes held, while they are cached.
func (k *kept) grow(n int64) {
	if k.in != nil {
		k.in.Grow(k.business, k, n)
	}
}

// carry takes over from old, a renderer of an older revision of the same
// business, the events it has written on dates no write since can have
// changed (unchanged answers that, as models.Store.Unchanged does): a write
// re-renders the dates it touched, not the whole calendar. It returns the
// bytes it took over, for the memory budget.
func (r *renderer) carry(old *kept, unchanged func(business, since, now int64, from, to engine.Date) bool) int64 {
	if old.settings != r.settings {
		return 0 // the settings every event is written with differ
	}
	business, since, now := r.business, old.revision, r.revision
	old.mu.Lock()
	events := make([]*event, 0, len(old.events))
	for _, e := range old.events {
		if e.obj.Load() != nil && e.timeOff == 0 { // time off is cheap to write again
			events = append(events, e)
		}
	}
	zones := make(map[int64]*zoneText, len(old.zones))
	for k, z := range old.zones {
		zones[k] = z
	}
	old.mu.Unlock()
	var size int64
	r.mu.Lock()
	defer r.mu.Unlock()
	r.zones = zones // a function of the zone alone
	same := map[engine.Date]bool{}
	for _, e := range events {
		ok, asked := same[e.date]
		if !asked {
			ok = unchanged(business, since, now, e.date, e.date+1)
			same[e.date] = ok
		}
		if ok && len(r.events) < maxCached {
			// An event of a date that is the same at both revisions is
			// the same bytes at both: shared, not copied.
			r.events[keyOf(e)] = e
			size += e.size()
		}
	}
	return size
}

// size is what an event holds, for the memory budget.
func (e *event) size() int64 {
	n := int64(len(e.name)+len(e.etag)) + eventOverhead
	if o := e.obj.Load(); o != nil {
		n += int64(len(o.vevent))
		if x := o.escaped.Load(); x != nil {
			n += int64(len(*x))
		}
	}
	return n
}

// keptAnswer is a calendar-query answered once, gzipped, and the units of work
// it cost, which a client asking it again is counted for again.
type keptAnswer struct {
	gzipped []byte
	work    float64
}

// A renderer keeps at most maxAnswers answers, each to a body of at most
// maxAnswerKey bytes (and at most maxKeptPlain long): the queries calendar
// apps send, not whatever a client makes up.
const (
	maxAnswers   = 64
	maxAnswerKey = 4 << 10
)

func (r *renderer) answer(key string) (*keptAnswer, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	a, ok := r.answers[key]
	return a, ok
}

func (r *renderer) keepAnswer(key string, a *keptAnswer) {
	r.mu.Lock()
	_, had := r.answers[key]
	kept := !had && len(r.answers) < maxAnswers
	if kept {
		r.answers[key] = a
	}
	r.mu.Unlock()
	if kept {
		r.grow(int64(len(a.gzipped)+len(key)) + 128)
	}
}

// keyName is the file name of the session of a key: its identity, so a
// moved or changed session keeps its resource and updates in place.
func keyName(key string) string { return strings.ReplaceAll(key, "/", "-") + ".ics" }

// uid is the identity of the session of that key, stable across edits and
// unique across businesses.
func (r *renderer) uid(key string) string {
	return strings.ReplaceAll(key, "/", "-") + "@" + r.sn.Business.UIDDomain()
}

// sessions returns the events of the sessions of days from..to (to
// exclusive) that keep returns true for. The dates are resolved one at a
// time into one buffer: nothing of a date is kept but the events of the
// sessions kept.
func (r *renderer) sessions(from, to engine.Date, keep func(*engine.Session) bool) []*event {
	var out []*event
	r.walk(from, to, func(s *engine.Session) {
		if keep(s) {
			out = append(out, r.event(s))
		}
	})
	return out
}

// walk calls f with each session of days from..to (to exclusive), in
// order; the session is f's to look at only while f runs.
func (r *renderer) walk(from, to engine.Date, f func(s *engine.Session)) {
	var day []engine.Session
	for d := from; d < to; d++ {
		day = r.sn.Timetable.AppendDay(day[:0], d)
		for i := range day {
			f(&day[i])
		}
	}
}

// inRange renders the sessions that overlap the instants [start, end), the
// test of RFC 4791 §9.9: an event that ends exactly at start is out.
func (r *renderer) inRange(start, end time.Time, keep func(*engine.Session) bool) []*event {
	from := engine.DateOf(start.In(r.loc)).AddDays(-1)
	to := engine.DateOf(end.In(r.loc)).AddDays(1)
	var out []*event
	for _, e := range r.sessions(from, to, keep) {
		if e.start.Before(end) && e.end.After(start) {
			out = append(out, e)
		}
	}
	return out
}

// byName finds the session of a file name, if it happens.
func (r *renderer) byName(name string) (engine.Session, bool) {
	key, ok := strings.CutSuffix(name, ".ics")
	if !ok {
		return engine.Session{}, false
	}
	if id, ok := strings.CutPrefix(key, "o-"); ok {
		n, err := strconv.ParseInt(id, 10, 64)
		if err != nil {
			return engine.Session{}, false
		}
		return r.oneOff(n)
	}
	// s-YYYY-MM-DD-<class time>-<class>
	parts := strings.Split(strings.TrimPrefix(key, "s-"), "-")
	if !strings.HasPrefix(key, "s-") || len(parts) != 5 {
		return engine.Session{}, false
	}
	date, err := engine.ParseDate(strings.Join(parts[:3], "-"))
	ct, err2 := strconv.ParseInt(parts[3], 10, 64)
	class, err3 := strconv.ParseInt(parts[4], 10, 64)
	if err != nil || err2 != nil || err3 != nil {
		return engine.Session{}, false
	}
	return r.sn.Timetable.Session(engine.SessionRef{Date: date, ClassTimeID: ct, ClassID: class})
}

// oneOff finds one-off n's session, if the business has it.
func (r *renderer) oneOff(n int64) (engine.Session, bool) {
	for _, o := range r.sn.State.OneOffs {
		if o.ID == n {
			for _, s := range r.sn.Timetable.Day(o.Date) {
				if s.OneOffID == n {
					return s, true
				}
			}
		}
	}
	return engine.Session{}, false
}

// keyOf is an event's key: its session's, or its time off's.
func keyOf(e *event) string {
	if e.timeOff != 0 {
		return timeOffKey(e.timeOff)
	}
	return engine.SessionKey(e.ref, e.oneOff)
}

// event returns the event of a session, with its ETag; its bytes are
// written when first asked for (object).
func (r *renderer) event(s *engine.Session) *event {
	key := s.Key()
	return r.cached(key, func() *event {
		l := r.look(s, key)
		return &event{name: keyName(key), date: s.Date, ref: s.Ref(), oneOff: s.OneOffID,
			start: l.start.UTC(), end: l.end.UTC(), modified: l.modified.UTC(), etag: l.etag(r.loc)}
	})
}

// cached returns the event of a key the renderer keeps, or makes it and
// keeps it while there is room.
func (r *renderer) cached(key string, build func() *event) *event {
	r.mu.Lock()
	e, ok := r.events[key]
	r.mu.Unlock()
	if ok {
		return e
	}
	e = build()
	r.mu.Lock()
	if old, ok := r.events[key]; ok {
		r.mu.Unlock()
		return old
	}
	kept := len(r.events) < maxCached
	if kept {
		r.events[key] = e
	}
	r.mu.Unlock()
	if kept {
		r.grow(e.size())
	}
	return e
}

// maxCached bounds the events a renderer keeps: a client asking for range
// after range of years ahead renders them again rather than filling memory.
const maxCached = 50000

// object returns the event written out, writing it the first time. The
// session is found again by its identity in the renderer's snapshot, where
// the event was listed (events carried over from an older snapshot are
// carried written), so it is the look the ETag was taken from.
func (r *renderer) object(e *event) *object {
	if o := e.obj.Load(); o != nil {
		return o
	}
	if e.timeOff != 0 {
		t, _ := r.timeOffByID(e.timeOff)
		l := r.timeOffLook(t)
		return r.keepObject(e, r.writeTimeOff(&l))
	}
	var s engine.Session
	if e.oneOff != 0 {
		s, _ = r.oneOff(e.oneOff)
	} else {
		s, _ = r.sn.Timetable.Session(e.ref)
	}
	l := r.look(&s, keyOf(e))
	return r.keepObject(e, r.write(&l))
}

// keepObject stores an event's bytes, unless another request did first.
func (r *renderer) keepObject(e *event, o *object) *object {
	if !e.obj.CompareAndSwap(nil, o) {
		return e.obj.Load()
	}
	r.account(e, len(o.vevent))
	return o
}

// escaped is an event's resource as XML text, made the first time it is
// asked for.
func (r *renderer) escaped(e *event) string {
	o := r.object(e)
	if x := o.escaped.Load(); x != nil {
		return *x
	}
	x := escape(o.text())
	if !o.escaped.CompareAndSwap(nil, &x) {
		return *o.escaped.Load()
	}
	r.account(e, len(x))
	return x
}

// account counts n more bytes of an event, while the renderer keeps it.
func (r *renderer) account(e *event, n int) {
	r.mu.Lock()
	kept := r.events[keyOf(e)] == e
	r.mu.Unlock()
	if kept {
		r.grow(int64(n))
	}
}

// look is everything an event's VEVENT is written from: the event is a
// function of it (and of the zone's rules, whose VTIMEZONE it holds), so
// its digest is the event's ETag and a listing knows every ETag without
// writing a single event.
type look struct {
	uid                  string
	start, end, modified time.Time
	sequence             int64
	summary, location    string
	description          string
	category             string
	cancelled            bool
	// tentative: one of its staff is missing (Session.needsCover); the
	// description says who.
	tentative bool
	zone      *zoneText
	// lang is the language description is in, a BCP 47 tag; "" for
	// English, whose events are written as they always were.
	lang string
	// busy: a time off's event (busy.go), written by writeTimeOff;
	// allDay ones are the dates from..to, inclusive.
	busy, allDay bool
	from, to     engine.Date
}

// renderVersion is a part of every ETag: bump it whenever what write makes
// of a look changes, so clients fetch the events again
// (TestGoldenFeeds fails until it is bumped).
const renderVersion = 1

// etag is the look's digest: 16 bytes of SHA-256, hex.
func (l *look) etag(loc *time.Location) string {
	var stack [512]byte // most looks fit: one digest, no allocation
	b := stack[:0]
	text := func(s string) []byte { return append(binary.LittleEndian.AppendUint64(b, uint64(len(s))), s...) }
	b = binary.LittleEndian.AppendUint64(b, renderVersion)
	b = text(loc.String())
	b = text(l.uid)
	b = binary.LittleEndian.AppendUint64(b, uint64(l.start.Unix()))
	b = binary.LittleEndian.AppendUint64(b, uint64(l.end.Unix()))
	b = binary.LittleEndian.AppendUint64(b, uint64(l.modified.UnixNano()))
	b = binary.LittleEndian.AppendUint64(b, uint64(l.sequence))
	b = text(l.summary)
	b = text(l.location)
	b = text(l.description)
	b = text(l.category)
	if l.cancelled {
		b = append(b, 1)
	} else {
		b = append(b, 0)
	}
	b = append(b, l.zone.sum[:]...)
	if l.lang != "" { // English ETags are what they were
		b = text(l.lang)
	}
	if l.busy { // sessions' ETags are what they were
		b = append(b, 'T')
		if l.allDay {
			b = binary.LittleEndian.AppendUint64(b, uint64(l.from))
			b = binary.LittleEndian.AppendUint64(b, uint64(l.to))
		}
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:16])
}

// look gathers what the event of a session is written from. DTSTART and
// DTEND are wall-clock times in the business's zone (engine.Session.Instants).
func (r *renderer) look(s *engine.Session, key string) look {
	tt := r.sn.Timetable
	start, end := s.Instants(r.loc)
	version := r.sn.Versions.Session(tt, s)
	modified := r.sn.Versions.Time(version)
	if modified.IsZero() {
		modified = time.Unix(0, 0).UTC()
	}

	class, _ := tt.Class(s.ClassID)
	activity, _ := tt.Activity(class.ActivityID)
	room, _ := tt.Room(s.RoomID)
	var staff []string
	for _, id := range s.StaffIDs {
		if p, ok := tt.StaffMember(id); ok {
			staff = append(staff, p.Name)
		}
	}
	summary := activity.Name
	if s.Label != "" && !strings.EqualFold(s.Label, activity.Name) {
		summary += " · " + s.Label
	}
	l := r.lang
	var desc []string
	if len(staff) > 0 {
		desc = append(desc, l.StaffLine(r.words.Staff, staff))
	}
	for _, sw := range s.Series {
		sr, _ := tt.SeriesByID(sw.SeriesID)
		line := l.Capitalize(r.words.Series.One) + ": " + sr.Name
		if sw.Cycle > 1 {
			line += l.Text("event.week", map[string]any{"Week": l.Number(sw.Week), "Cycle": l.Number(sw.Cycle)})
		}
		desc = append(desc, line)
	}
	if s.IsOneOff() {
		desc = append(desc, l.Text("event.oneOff", map[string]any{"Class": r.words.Class.One}))
	}
	if s.Moved() {
		desc = append(desc, l.Text("page.movedFrom", map[string]any{"Date": l.DayMonth(s.Origin().Date, 0)}))
	}
	if n := s.Note(); n != "" && n != s.Reason() {
		desc = append(desc, n)
	}
	if s.Cancelled {
		line := l.Text("event.cancelled", nil)
		if r := s.Reason(); r != "" {
			line += ": " + r
		}
		desc = append(desc, line)
	}
	// Who is missing, never why beyond the rule: a time off's reason is
	// the business's, not every subscriber's.
	away := tt.NeedsCover(s)
	for _, a := range away {
		p, _ := tt.StaffMember(a.StaffID)
		why := l.Text("event.timeOff", nil)
		if a.Reason == engine.OutsideHours {
			why = l.Text("event.outsideHours", nil)
		}
		desc = append(desc, l.Text("event.needsCover", map[string]any{"Staff": p.Name, "Why": why}))
	}
	return look{uid: r.uid(key), start: start, end: end, modified: modified, sequence: version,
		summary: summary, location: room.Name, description: strings.Join(desc, "\n"), category: activity.Name,
		cancelled: s.Cancelled, tentative: len(away) > 0, zone: r.zone(start, end), lang: r.lang.EventLanguage()}
}

// write writes a look as a VEVENT and the CalDAV resource that holds it. A
// wall-clock time that does not exist (the spring-forward gap) is the
// instant RFC 5545 gives it, written with the local time that instant has;
// a time the clocks show twice is the first, written in UTC, since some
// readers (ical.js, libical) take the second.
func (r *renderer) write(l *look) *object {
	ev := ics.NewEvent(l.uid)
	ev.SetDtStampTime(l.modified)
	r.setTime(ev, ics.ComponentPropertyDtStart, l.start)
	r.setTime(ev, ics.ComponentPropertyDtEnd, l.end)
	ev.SetSummary(l.summary)
	ev.SetLocation(l.location)
	if l.lang == "" {
		ev.SetDescription(l.description) // as it always was, byte for byte
	} else {
		// The text written here is in the business's language (RFC 5545
		// §3.8.1.5 and §3.2.10 let DESCRIPTION say so); SUMMARY, LOCATION
		// and CATEGORIES hold the business's own names, whose language is
		// not known, and say none.
		ev.SetDescription(l.description, &ics.KeyValues{Key: string(ics.ParameterLanguage), Value: []string{l.lang}})
	}
	ev.AddCategory(l.category)
	switch {
	case l.cancelled:
		ev.SetStatus(ics.ObjectStatusCancelled)
	case l.tentative:
		ev.SetStatus(ics.ObjectStatusTentative)
	default:
		ev.SetStatus(ics.ObjectStatusConfirmed)
	}
	ev.SetModifiedAt(l.modified)
	ev.SetSequence(int(l.sequence))

	icalendar.SafeComponent(ev)
	return &object{vevent: ev.Serialize(serial), zone: l.zone}
}

// setTime writes an instant as the local time with TZID, or in UTC when
// that local time occurs twice.
func (r *renderer) setTime(ev *ics.VEvent, p ics.ComponentProperty, at time.Time) {
	local := at.In(r.loc)
	wall, _ := engine.NewLocalTime(local.Hour(), local.Minute())
	if engine.DateOf(local).Ambiguous(wall, r.loc) {
		ev.SetProperty(p, at.UTC().Format("20060102T150405Z"))
		return
	}
	ev.SetProperty(p, local.Format("20060102T150405"), ics.WithTZID(r.loc.String()))
}

// zoneText is a VTIMEZONE and its digest, which every ETag of an event
// written with it holds.
type zoneText struct {
	text string
	sum  [32]byte
}

func newZoneText(text string) *zoneText {
	return &zoneText{text: text, sum: sha256.Sum256([]byte(text))}
}

// zone is the VTIMEZONE for an event: the zone period in force at its start
// and any change of offset before its end.
func (r *renderer) zone(start, end time.Time) *zoneText {
	ps, _ := start.In(r.loc).ZoneBounds()
	key := ps.Unix()
	r.mu.Lock()
	z, ok := r.zones[key]
	r.mu.Unlock()
	if ok && !crosses(start, end, r.loc) {
		return z
	}
	z = newZoneText(icalendar.VTimezone(r.loc, start, end).Serialize(serial))
	if !crosses(start, end, r.loc) {
		r.mu.Lock()
		r.zones[key] = z
		r.mu.Unlock()
	}
	return z
}

// crosses reports whether the offset changes between start and end.
func crosses(start, end time.Time, loc *time.Location) bool {
	_, zoneEnd := start.In(loc).ZoneBounds()
	return !zoneEnd.IsZero() && zoneEnd.Before(end)
}

// feed writes a whole calendar: its head (feedHead) and the VEVENTs of
// its events, the same bytes CalDAV serves for each.
func (r *renderer) feed(head string, events []*event) []byte {
	var b strings.Builder
	b.WriteString(head)
	for _, e := range events {
		b.WriteString(r.object(e).vevent)
	}
	b.WriteString(objectEnd)
	return []byte(b.String())
}

// sortEvents orders events by start, then name, so listings are stable.
func sortEvents(es []*event) {
	if !slices.IsSortedFunc(es, compareEvents) {
		slices.SortFunc(es, compareEvents)
	}
}

func compareEvents(a, b *event) int {
	if c := a.start.Compare(b.start); c != 0 {
		return c
	}
	return strings.Compare(a.name, b.name)
}
