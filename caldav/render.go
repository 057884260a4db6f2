package caldav

import (
	"crypto/sha256"
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

// event is one computed session as iCalendar. Its VEVENT is the same bytes
// in a feed and in CalDAV: there is one rendering path.
type event struct {
	name       string // file name in a calendar collection: "s-2026-10-06-12-7.ics"
	start, end time.Time
	session    engine.Session
	vevent     string // the VEVENT, CRLF-terminated lines
	object     []byte // the CalDAV resource: VCALENDAR with its VTIMEZONE and the VEVENT
	escaped    string // object as XML text, for calendar-data
	etag       string // strong, of object
	etagXML    string // etag quoted, as XML text, for getetag
	modified   time.Time
}

// renderer renders the sessions of one snapshot and keeps what it has
// rendered: a snapshot never changes, so neither do its events.
type renderer struct {
	sn    *models.Snapshot
	loc   *time.Location
	words engine.Vocabulary

	mu       sync.Mutex
	events   map[string]*event
	days     map[engine.Date]*dayEvents
	held     int                    // sessions held in days
	zones    map[int64]string       // VTIMEZONE of one zone period, by its start
	listings map[string]*collected  // by calendar and window start
	feeds    map[string]*body       // by calendar and window start
	answers  map[string]*keptAnswer // gzipped calendar-query answers, by calendar, base, window start and body

	kept *cache.Cache[int64, *renderer] // the cache holding it, to count what it renders
}

func newRenderer(sn *models.Snapshot) *renderer {
	return &renderer{sn: sn, loc: sn.State.Business.Location, words: engine.Words(sn.State.Business.Kind),
		events: map[string]*event{}, days: map[engine.Date]*dayEvents{}, zones: map[int64]string{}, listings: map[string]*collected{}, feeds: map[string]*body{}, answers: map[string]*keptAnswer{}}
}

// What a renderer holds counts towards the memory budget: its base, and
// for each event its bytes (the VEVENT, the object and its XML escape)
// and its bookkeeping (the struct, the session it copies, the map entry);
// listings and feeds add their own (see Handler.feed and collect).
//
// The sessions of a date it keeps count too (TestRendererDaysSize measures
// them against the heap): a calendar's listing of 60 weeks of a business
// of 300 class times keeps 18,000 sessions, 8 MB that were held outside
// the budget.
const (
	rendererBase    = 4 << 10
	eventOverhead   = 512
	dayOverhead     = 128
	sessionOverhead = 600
)

// grow counts n more bytes held by the renderer, while it is cached.
func (r *renderer) grow(n int64) {
	if r.kept != nil {
		r.kept.Grow(r.sn.Business.ID, r, n)
	}
}

// carry takes over from old, a renderer of an older revision of the same
// business, the dates no write since can have changed (unchanged answers
// that, as models.Store.Unchanged does) with the events rendered on them:
// a write re-renders the dates it touched, not the whole calendar. It
// returns the bytes it took over, for the memory budget.
func (r *renderer) carry(old *renderer, unchanged func(business, since, now int64, from, to engine.Date) bool) int64 {
	if old.sn.Business.UIDDomain() != r.sn.Business.UIDDomain() || old.loc.String() != r.loc.String() || old.words != r.words {
		return 0 // the settings every event is written with differ
	}
	business, since, now := r.sn.Business.ID, old.sn.Business.Revision, r.sn.Business.Revision
	old.mu.Lock()
	days := make(map[engine.Date]*dayEvents, len(old.days))
	for d, dy := range old.days {
		days[d] = dy
	}
	zones := make(map[int64]string, len(old.zones))
	for k, z := range old.zones {
		zones[k] = z
	}
	old.mu.Unlock()
	var size int64
	r.mu.Lock()
	defer r.mu.Unlock()
	r.zones = zones // a function of the zone alone
	for d, dy := range days {
		if !unchanged(business, since, now, d, d+1) {
			continue
		}
		r.days[d] = dy
		r.held += len(dy.sessions)
		for i := range dy.events {
			// The events of a date are the same bytes at both revisions
			// when the date is: shared, not copied.
			if e := dy.events[i].Load(); e != nil && len(r.events) < maxCached {
				r.events[dy.sessions[i].Key()] = e
				size += int64(len(e.vevent)+len(e.object)+len(e.escaped)+len(e.name)) + eventOverhead
			}
		}
	}
	return size
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

// dayEvents is the sessions of a date and their events, each rendered the
// first time it is asked for: a listing asked again costs a look-up a date,
// not resolving the date and naming each session again.
type dayEvents struct {
	sessions []engine.Session
	events   []atomic.Pointer[event]
}

// day returns the sessions of date d, kept while the renderer holds fewer
// than maxCached of them.
func (r *renderer) day(d engine.Date) *dayEvents {
	r.mu.Lock()
	dy, ok := r.days[d]
	r.mu.Unlock()
	if ok {
		return dy
	}
	sessions := r.sn.Timetable.Day(d)
	dy = &dayEvents{sessions: sessions, events: make([]atomic.Pointer[event], len(sessions))}
	r.mu.Lock()
	if old, ok := r.days[d]; ok {
		dy = old
	} else if r.held < maxCached {
		r.days[d] = dy
		r.held += len(sessions)
		defer r.grow(dayOverhead + int64(len(sessions))*sessionOverhead)
	}
	r.mu.Unlock()
	return dy
}

// sessions renders the sessions of days from..to (to exclusive) that keep
// returns true for.
func (r *renderer) sessions(from, to engine.Date, keep func(*engine.Session) bool) []*event {
	var out []*event
	for d := from; d < to; d++ {
		dy := r.day(d)
		for i := range dy.sessions {
			if !keep(&dy.sessions[i]) {
				continue
			}
			e := dy.events[i].Load()
			if e == nil {
				e = r.event(&dy.sessions[i])
				dy.events[i].Store(e)
			}
			out = append(out, e)
		}
	}
	return out
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

// byName finds the event of a file name, if its session happens.
func (r *renderer) byName(name string) (*event, bool) {
	key, ok := strings.CutSuffix(name, ".ics")
	if !ok {
		return nil, false
	}
	tt := r.sn.Timetable
	if id, ok := strings.CutPrefix(key, "o-"); ok {
		n, err := strconv.ParseInt(id, 10, 64)
		if err != nil {
			return nil, false
		}
		for _, o := range r.sn.State.OneOffs {
			if o.ID == n {
				for _, s := range tt.Day(o.Date) {
					if s.OneOffID == n {
						return r.event(&s), true
					}
				}
			}
		}
		return nil, false
	}
	// s-YYYY-MM-DD-<class time>-<class>
	parts := strings.Split(strings.TrimPrefix(key, "s-"), "-")
	if !strings.HasPrefix(key, "s-") || len(parts) != 5 {
		return nil, false
	}
	date, err := engine.ParseDate(strings.Join(parts[:3], "-"))
	ct, err2 := strconv.ParseInt(parts[3], 10, 64)
	class, err3 := strconv.ParseInt(parts[4], 10, 64)
	if err != nil || err2 != nil || err3 != nil {
		return nil, false
	}
	s, ok := tt.Session(engine.SessionRef{Date: date, ClassTimeID: ct, ClassID: class})
	if !ok {
		return nil, false
	}
	return r.event(&s), true
}

func (r *renderer) event(s *engine.Session) *event {
	key := s.Key()
	r.mu.Lock()
	e, ok := r.events[key]
	r.mu.Unlock()
	if ok {
		return e
	}
	e = r.render(s, key)
	r.mu.Lock()
	kept := len(r.events) < maxCached
	if kept {
		r.events[key] = e
	}
	r.mu.Unlock()
	if kept {
		r.grow(int64(len(e.vevent)+len(e.object)+len(e.escaped)+len(e.name)) + eventOverhead)
	}
	return e
}

// maxCached bounds the events a renderer keeps: a client asking for range
// after range of years ahead renders them again rather than filling memory.
const maxCached = 50000

// render writes one session as a VEVENT. DTSTART and DTEND are wall-clock
// times in the business's zone (engine.Session.Instants): a time that does
// not exist (the spring-forward gap) is the instant RFC 5545 gives it,
// written with the local time that instant has; a time the clocks show
// twice is the first, written in UTC, since some readers (ical.js, libical)
// take the second.
func (r *renderer) render(s *engine.Session, key string) *event {
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

	ev := ics.NewEvent(r.uid(key))
	ev.SetDtStampTime(modified)
	r.setTime(ev, ics.ComponentPropertyDtStart, start)
	r.setTime(ev, ics.ComponentPropertyDtEnd, end)
	summary := activity.Name
	if s.Label != "" && !strings.EqualFold(s.Label, activity.Name) {
		summary += " · " + s.Label
	}
	ev.SetSummary(summary)
	ev.SetLocation(room.Name)

	var desc []string
	if len(staff) > 0 {
		w := r.words.Staff.Title()
		if len(staff) > 1 {
			w = capitalize(r.words.Staff.Many)
		}
		desc = append(desc, w+": "+strings.Join(staff, ", "))
	}
	for _, sw := range s.Series {
		sr, _ := tt.SeriesByID(sw.SeriesID)
		line := r.words.Series.Title() + ": " + sr.Name
		if sw.Cycle > 1 {
			line += fmt.Sprintf(" (W%d/%d)", sw.Week, sw.Cycle)
		}
		desc = append(desc, line)
	}
	if s.IsOneOff() {
		desc = append(desc, "One-off "+r.words.Class.One)
	}
	if s.Moved() {
		desc = append(desc, "Moved from "+s.Origin.Date.Short(0))
	}
	if s.Note != "" && s.Note != s.Reason {
		desc = append(desc, s.Note)
	}
	if s.Cancelled {
		line := "Cancelled"
		if s.Reason != "" {
			line += ": " + s.Reason
		}
		desc = append(desc, line)
	}
	ev.SetDescription(strings.Join(desc, "\n"))
	ev.AddCategory(activity.Name)
	if s.Cancelled {
		ev.SetStatus(ics.ObjectStatusCancelled)
	} else {
		ev.SetStatus(ics.ObjectStatusConfirmed)
	}
	ev.SetModifiedAt(modified)
	ev.SetSequence(int(version))

	icalendar.SafeComponent(ev)
	vevent := ev.Serialize(serial)
	object := objectStart + r.zone(start, end) + vevent + "END:VCALENDAR\r\n"
	sum := sha256.Sum256([]byte(object))
	etag := hex.EncodeToString(sum[:16])
	return &event{
		name: keyName(key), start: start, end: end, session: *s,
		vevent: vevent, object: []byte(object), escaped: escape(object), etag: etag, etagXML: escape(`"` + etag + `"`), modified: modified,
	}
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

// zone is the VTIMEZONE for an event: the zone period in force at its start
// and any change of offset before its end.
func (r *renderer) zone(start, end time.Time) string {
	ps, _ := start.In(r.loc).ZoneBounds()
	key := ps.Unix()
	r.mu.Lock()
	z, ok := r.zones[key]
	r.mu.Unlock()
	if ok && !crosses(start, end, r.loc) {
		return z
	}
	z = icalendar.VTimezone(r.loc, start, end).Serialize(serial)
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

// feed writes a whole calendar: one VTIMEZONE covering the events, and
// their VEVENTs, the same bytes CalDAV serves for each.
func (r *renderer) feed(name string, events []*event, from, to time.Time) []byte {
	var b strings.Builder
	b.WriteString(calendarStart(name, r.loc))
	b.WriteString(icalendar.VTimezone(r.loc, from, to).Serialize(serial))
	for _, e := range events {
		b.WriteString(e.vevent)
	}
	b.WriteString("END:VCALENDAR\r\n")
	return []byte(b.String())
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
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
