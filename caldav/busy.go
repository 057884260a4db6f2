package caldav

import (
	"cmp"
	"slices"
	"strconv"
	"strings"
	"time"

	ics "github.com/arran4/golang-ical"

	"github.com/koredyne/schedule/caldav/icalendar"
	"github.com/koredyne/schedule/engine"
)

// A staff member's own calendar shows their time off as busy time: one
// VEVENT with TRANSP:OPAQUE (RFC 5545 §3.8.2.7) per time off, whole days
// as DATE values (§3.6.1: DTEND the day after the last), a time off that
// starts or ends within a day as wall-clock times with TZID, as sessions
// are. Its summary says "Time off" in the business's language and nothing
// else: the reason is the business's, and no calendar shows it. The
// business's calendar, rooms' and other staff's do not list it.

// timeOffKey is the key of a time off's event ("t/12"), whose file name is
// "t-12.ics" and whose UID is "t-12@…": stable across edits of it.
func timeOffKey(id int64) string { return "t/" + strconv.FormatInt(id, 10) }

// timeOffSpan is the instants [start, end) a time off covers, in the
// business's zone.
func timeOffSpan(o *engine.TimeOff, loc *time.Location) (start, end time.Time) {
	start = o.From.At(o.FromTime, loc)
	if o.ToTime == 0 {
		end = o.To.AddDays(1).At(0, loc)
	} else {
		end = o.To.At(o.ToTime, loc)
	}
	return start, end
}

// wholeDays reports whether a time off is written as DATE values.
func wholeDays(o *engine.TimeOff) bool { return o.FromTime == 0 && o.ToTime == 0 }

// timeOffs returns the events of a staff member's time off that overlap
// the instants [start, end).
func (r *renderer) timeOffs(staff int64, start, end time.Time) []*event {
	var out []*event
	for i := range r.sn.State.TimeOffs {
		o := &r.sn.State.TimeOffs[i]
		if o.StaffID != staff {
			continue
		}
		if s, e := timeOffSpan(o, r.loc); s.Before(end) && e.After(start) {
			out = append(out, r.timeOffEvent(o))
		}
	}
	return out
}

// timeOffByID finds a time off of the snapshot.
func (r *renderer) timeOffByID(id int64) (*engine.TimeOff, bool) {
	for i := range r.sn.State.TimeOffs {
		if o := &r.sn.State.TimeOffs[i]; o.ID == id {
			return o, true
		}
	}
	return nil, false
}

// timeOffEvent returns the event of a time off, with its ETag; its bytes
// are written when first asked for (object).
func (r *renderer) timeOffEvent(o *engine.TimeOff) *event {
	key := timeOffKey(o.ID)
	return r.cached(key, func() *event {
		l := r.timeOffLook(o)
		return &event{name: keyName(key), date: o.From, timeOff: o.ID,
			start: l.start.UTC(), end: l.end.UTC(), modified: l.modified.UTC(), etag: l.etag(r.loc)}
	})
}

// noZone is the VTIMEZONE of an event of DATE values: none.
var noZone = newZoneText("")

// timeOffLook gathers what the event of a time off is written from.
func (r *renderer) timeOffLook(o *engine.TimeOff) look {
	start, end := timeOffSpan(o, r.loc)
	version := r.sn.Versions.TimeOff(o.ID)
	modified := r.sn.Versions.Time(version)
	if modified.IsZero() {
		modified = time.Unix(0, 0).UTC()
	}
	l := look{uid: r.uid(timeOffKey(o.ID)), start: start, end: end, modified: modified, sequence: version,
		summary: r.lang.Text("event.timeOffSummary", nil), busy: true, lang: r.lang.EventLanguage()}
	if wholeDays(o) {
		l.allDay, l.from, l.to, l.zone = true, o.From, o.To, noZone
	} else {
		l.zone = r.zone(start, end)
	}
	return l
}

// writeTimeOff writes a time off's look as a VEVENT and the CalDAV
// resource that holds it.
func (r *renderer) writeTimeOff(l *look) *object {
	ev := ics.NewEvent(l.uid)
	ev.SetDtStampTime(l.modified)
	if l.allDay {
		ev.SetAllDayStartAt(l.from.At(0, time.UTC))
		ev.SetAllDayEndAt(l.to.AddDays(1).At(0, time.UTC))
	} else {
		r.setTime(ev, ics.ComponentPropertyDtStart, l.start)
		r.setTime(ev, ics.ComponentPropertyDtEnd, l.end)
	}
	if l.lang == "" {
		ev.SetSummary(l.summary)
	} else {
		ev.SetSummary(l.summary, &ics.KeyValues{Key: string(ics.ParameterLanguage), Value: []string{l.lang}})
	}
	ev.SetTimeTransparency(ics.TransparencyOpaque)
	ev.SetStatus(ics.ObjectStatusConfirmed)
	ev.SetModifiedAt(l.modified)
	ev.SetSequence(int(l.sequence))
	icalendar.SafeComponent(ev)
	return &object{vevent: ev.Serialize(serial), zone: l.zone}
}

// find returns the event of a file name in calendar c, if c lists it: a
// session of the calendar, or a time off of its staff member.
func (r *renderer) find(c calendar, name string) (*event, bool) {
	if rest, ok := strings.CutPrefix(name, "t-"); ok {
		id, err := strconv.ParseInt(strings.TrimSuffix(rest, ".ics"), 10, 64)
		if err != nil || !strings.HasSuffix(rest, ".ics") || c.staff == 0 {
			return nil, false
		}
		o, ok := r.timeOffByID(id)
		if !ok || o.StaffID != c.staff {
			return nil, false
		}
		return r.timeOffEvent(o), true
	}
	s, ok := r.byName(name)
	if !ok || !c.keep(&s) {
		return nil, false
	}
	return r.event(&s), true
}

// withTimeOffs adds to a staff calendar's events, by date, its staff
// member's time off that overlaps the instants [start, end).
func (r *renderer) withTimeOffs(c calendar, events []*event, start, end time.Time) []*event {
	if c.staff == 0 {
		return events
	}
	offs := r.timeOffs(c.staff, start, end)
	if len(offs) == 0 {
		return events
	}
	events = append(events, offs...)
	slices.SortStableFunc(events, func(a, b *event) int { return cmp.Compare(a.date, b.date) })
	return events
}
