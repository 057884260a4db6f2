package caldav

import (
	"encoding/xml"
	"net/http"
	"strings"
	"time"
)

// RFC 4791 §9.6.5: a calendar-query or calendar-multiget may ask, inside
// DAV:prop's CALDAV:calendar-data, for CALDAV:expand start=… end=…. The
// server then answers each recurrence set as its instances in that range,
// one component each, without RRULE, RDATE, EXRULE or EXDATE, without
// VTIMEZONE, and with every local time converted to UTC.
//
// The gateway publishes no recurrence sets: every session is its own
// resource, already one instance (no RRULE, no RECURRENCE-ID, a cancelled
// session an event with STATUS:CANCELLED). Expanding one is therefore
// writing its DTSTART and DTEND in UTC and leaving out its VTIMEZONE, and
// answering only the events that overlap the expand range (§9.9). Errata
// 4155 and 4156 show the same for a non-recurring event in §7.8.3: UTC
// times, no RECURRENCE-ID.

// expandReq is the part of a REPORT body that asks for expansion.
type expandReq struct {
	Prop struct {
		CalendarData struct {
			Expand *timeRange `xml:"urn:ietf:params:xml:ns:caldav expand"`
		} `xml:"urn:ietf:params:xml:ns:caldav calendar-data"`
	} `xml:"DAV: prop"`
}

// expansion is an expand range, or nil when the REPORT asks for none.
type expansion struct {
	start, end time.Time
}

// expandOf reads the expand element of a calendar-query or
// calendar-multiget body. Both bounds are required UTC date-times (the
// RFC's DTD: #REQUIRED) and the range may not be empty.
func expandOf(body []byte) (*expansion, error) {
	var req expandReq
	if err := xml.Unmarshal(body, &req); err != nil {
		return nil, fail(http.StatusBadRequest, "the REPORT is not well-formed: %v", err)
	}
	tr := req.Prop.CalendarData.Expand
	if tr == nil {
		return nil, nil
	}
	if tr.Start == "" || tr.End == "" {
		return nil, fail(http.StatusBadRequest, "CALDAV:expand needs both start and end, such as start=\"20261001T000000Z\" end=\"20261101T000000Z\"")
	}
	start, err := parseTime(tr.Start)
	if err != nil {
		return nil, err
	}
	end, err := parseTime(tr.End)
	if err != nil {
		return nil, err
	}
	if !end.After(start) {
		return nil, fail(http.StatusBadRequest, "the expand range ends (%s) before it starts (%s)", end.Format(time.RFC3339), start.Format(time.RFC3339))
	}
	return &expansion{start: start, end: end}, nil
}

// overlaps reports whether an event overlaps the expand range (RFC 4791
// §9.9: it starts before the range ends and ends after it starts).
func (x *expansion) overlaps(e *event) bool {
	return e.start.Before(x.end) && e.end.After(x.start)
}

// calendarData is an event's calendar-data as XML text: the stored object,
// or with x its single instance in UTC and no VTIMEZONE (none at all when
// it is outside the range).
func (x *expansion) calendarData(rd *renderer, e *event) string {
	if x == nil {
		return rd.escaped(e)
	}
	o := rd.object(e)
	var b strings.Builder
	b.Grow(len(objectStart) + len(o.vevent) + 16)
	b.WriteString(objectStart)
	if !x.overlaps(e) {
		// A multiget may name an event outside the range: it has no
		// instance there, so its calendar holds no component.
		b.WriteString(objectEnd)
		return escape(b.String())
	}
	for line := range strings.SplitAfterSeq(o.vevent, "\r\n") {
		switch {
		case isProp(line, "DTSTART"):
			line = "DTSTART:" + e.start.UTC().Format("20060102T150405Z") + "\r\n"
		case isProp(line, "DTEND"):
			line = "DTEND:" + e.end.UTC().Format("20060102T150405Z") + "\r\n"
		}
		b.WriteString(line)
	}
	b.WriteString(objectEnd)
	return escape(b.String())
}

// isProp reports whether a content line is the property name (with
// parameters or not); a folded continuation starts with a space.
func isProp(line, name string) bool {
	return len(line) > len(name) && strings.EqualFold(line[:len(name)], name) && (line[len(name)] == ':' || line[len(name)] == ';')
}
