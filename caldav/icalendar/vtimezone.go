package icalendar

import (
	"fmt"
	"time"

	ics "github.com/arran4/golang-ical"
)

// VTimezone builds the VTIMEZONE of loc for [from, to] from Go's zone
// database (golang-ical builds none): the observance in force at from and
// one STANDARD or DAYLIGHT component for each change of offset up to to.
// Each component names its own onset, so no recurrence rule has to guess
// the zone's future. It is the one zone writer, so the export and the
// gateway's feeds (package caldav) agree.
func VTimezone(loc *time.Location, from, to time.Time) *ics.VTimezone {
	tz := ics.NewTimezone(loc.String())
	t := from.In(loc)
	prevOffset := offsetBefore(t)
	for {
		start, end := t.ZoneBounds()
		name, offset := t.Zone()
		onset := start
		if onset.IsZero() { // no change of offset before: the zone has always been so
			onset = time.Date(1970, 1, 1, 0, 0, 0, 0, time.UTC)
			prevOffset = offset
		}
		var comp *ics.ComponentBase
		if t.IsDST() {
			d := &ics.Daylight{}
			tz.Components = append(tz.Components, d)
			comp = &d.ComponentBase
		} else {
			comp = &tz.AddStandard().ComponentBase
		}
		// DTSTART is the local time of the onset on the clock that was in
		// force before it (RFC 5545 §3.6.5).
		comp.AddProperty(ics.ComponentPropertyDtStart, onset.In(time.FixedZone("", prevOffset)).Format("20060102T150405"))
		comp.AddProperty(ics.ComponentProperty("TZOFFSETFROM"), utcOffset(prevOffset))
		comp.AddProperty(ics.ComponentProperty("TZOFFSETTO"), utcOffset(offset))
		comp.AddProperty(ics.ComponentProperty("TZNAME"), name)
		if end.IsZero() || !end.Before(to) {
			break
		}
		prevOffset = offset
		t = end.In(loc)
	}
	return tz
}

// offsetBefore is the UTC offset in force just before the zone period that
// holds t began.
func offsetBefore(t time.Time) int {
	start, _ := t.ZoneBounds()
	if start.IsZero() {
		_, off := t.Zone()
		return off
	}
	_, off := start.Add(-time.Second).Zone()
	return off
}

// utcOffset writes an offset as RFC 5545 does: +0100, -0500, +053328.
func utcOffset(seconds int) string {
	sign := "+"
	if seconds < 0 {
		sign, seconds = "-", -seconds
	}
	s := fmt.Sprintf("%s%02d%02d", sign, seconds/3600, seconds/60%60)
	if sec := seconds % 60; sec != 0 {
		s += fmt.Sprintf("%02d", sec)
	}
	return s
}
