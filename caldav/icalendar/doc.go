// Package icalendar converts between a timetable's rules (engine.State)
// and iCalendar files (RFC 5545) with repeating events, for importing a
// schedule kept elsewhere and for handing one to calendar programs as
// rules rather than as expanded sessions (package caldav serves those).
// Both directions are pure functions: no clock, no I/O beyond the reader
// given, no time zone but the business's and the file's. The package
// imports neither models nor the gateway (package caldav uses its zone
// and text writers, VTimezone and SafeCalendar, so a feed and an export
// agree): the guarded write around an import is its caller's, which runs
// Import on the edited state inside models.Store.Write and keeps
// Result.State, so the import is checked under the write's lock like any
// other edit and one that would add a clash is refused whole.
//
// # Export
//
// Export writes, for each class in each class time (the engine's one real
// session, however many series sell it), VEVENTs with
//
//	DTSTART;TZID=<business zone>:<first date><start>
//	RRULE:FREQ=WEEKLY;INTERVAL=<cycle>;BYDAY=<weekday>;WKST=<week start>;UNTIL=<UTC>
//
// one per stretch of a series entry: a series paused by a closure
// resumes off its arithmetic, so each stretch between pauses is an event of
// its own, and a paused week's sessions are single events. When several
// series hold the same class in the same class time, each date goes to one
// event only (the later entries keep the residues of the common period the
// earlier ones leave free, with INTERVAL set to that period), so no reader
// sees a shared session twice. UNTIL is UTC as RFC 5545 requires with a
// TZID; it is the end of the day after the last date, which no reader can
// misplace across a change of clocks. Cancelled dates (cancelled day
// changes, closures) are EXDATEs, except that a closure cancelling more than
// 26 of an event's sessions ends its rule before the closure and starts a
// new event after it (and a pause that long writes only the sessions a day
// change moves out of it), so the file grows with the rules and never with
// the dates a closure spans; moved, re-timed, re-roomed, re-staffed
// or annotated sessions are RECURRENCE-ID overrides at their new place;
// one-offs are single events. SUMMARY is the activity (with the class
// time's label), LOCATION the room, ORGANIZER the main staff member and
// ATTENDEE (ROLE=REQ-PARTICIPANT) the others, all with CN. A VTIMEZONE for
// the business's zone (VTimezone) covers the file's dates and a year
// past the last. UIDs come from row ids ("e<entry>-<first date>@<domain>",
// "o-<one-off>@…"), never from time or order; DTSTAMP is an option.
//
// X-KOREDYNE-* properties carry what RFC 5545 has no place for: the
// activity and its colour, the class time (its id, label, places, type,
// cleaning buffer, units) and the room's capacity, notes, the reason of a
// cancelled date (X-KOREDYNE-CANCEL-NOTE;X-DATE=…), and the series each
// event's sessions belong to (X-KOREDYNE-SERIES;X-KEY;X-ANCHOR;X-END;
// X-CYCLE;X-WEEK, one per entry of the class in that class time). Reading
// the file back restores the series with their names, cycles, anchors and
// ends; a series cut by pauses comes back as one series per stretch.
//
// # Import
//
// Import reads a file into the rules of an existing business and returns
// the merged state, new rows under temporary negative ids, for the caller
// to validate and write. Rooms, staff, activities and classes are matched
// by name without case or extra space and reused; a class is an activity
// and a set of staff. Staff are the ORGANIZER and every ATTENDEE with a
// common name (CN) whose role is CHAIR or REQ-PARTICIPANT (the default
// role) and who has not declined; optional and non-participants (clients)
// and attendees of type ROOM or RESOURCE are not staff, and a ROOM
// attendee names the room when there is no LOCATION. ImportOptions give
// the staff member and room of events that name none. A class time is
// reused when an identical one exists and none of the imported classes
// already has sessions in it (sharing it would merge their sessions and
// let their changes apply to each other); otherwise one is created.
//
// Times keep their wall clock: an event in the business's zone, or
// floating, is read as written, so "every Thursday 10:00 Europe/Berlin"
// stays 10:00 across daylight-saving changes. A single event in another
// zone or in UTC is moved onto the business's clock. A repeating one is
// kept only when the two clocks differ by the same amount at every date it
// has (New York and Chicago; UTC in Kuwait); otherwise its sessions would
// drift on the business's clock and it is reported. All-day events,
// events without an end, longer than a day or across midnight are
// reported.
//
// A weekly-periodic rule — FREQ=WEEKLY with any INTERVAL, BYDAY and WKST,
// or FREQ=DAILY with any INTERVAL (and BYDAY as a filter), every k days
// being a rotation of k/gcd(k,7) weeks — becomes a series: anchored on the
// business's week start of its first date, with the rule's period as its
// cycle and an entry for each weekday in its week of the rotation, worked
// out from one period of dates on the business's weeks (so WKST and the
// business's week start may differ). The series ends on the week start
// after the last date UNTIL or COUNT allows. What the entries make beyond
// the rule — the days of the first week before DTSTART, the days of the
// last week after the last date — and each EXDATE become cancelled day
// changes, so the sessions are exactly the rule's. Events of one class in
// one class time become one group of shared sessions: a date is cancelled
// only when no event of the group has it. A RECURRENCE-ID override is a
// day change of the session it names (moved, re-timed, in another room,
// with another class or staff, cancelled); an override of a date the
// event does not have is reported. A DTSTART the rule does not give is a
// one-off of its own (RFC 5545 counts it as the first occurrence,
// COUNT included). A pausing closure of the existing business would hold
// an imported rotation, so such a series is cut around the paused weeks.
//
// Rules a weekly timetable cannot hold (MONTHLY, YEARLY, BYMONTH,
// BYMONTHDAY, BYSETPOS, RDATE, HOURLY and finer, rotations beyond 52
// weeks, clocks that drift) are reported with the line of their
// BEGIN:VEVENT. With ImportOptions.ExpandUntil set, those whose dates can
// be worked out (daily to yearly, BYDAY with numbers, BYMONTHDAY,
// BYMONTH, BYSETPOS, RDATE dates, EXDATE and overrides; not BYWEEKNO,
// BYYEARDAY, sub-daily rules or EXRULE) come in as one-offs up to that date,
// and the report says how many.
//
// # Limits
//
// UNTIL given as a date keeps that whole day. Staff are told apart by
// name, so two staff rows sharing a name become one person, as the clash
// rules already treat them. A common name with characters a parameter
// must quote (a comma, a colon) is written as golang-ical writes it, with
// backslashes, which this package reads back but other readers may not. A
// session starting in the hour the clocks repeat in autumn is, by RFC
// 5545, the first of the two; some readers (python-dateutil with pytz)
// take the second. Closures, plans, clients and bookings are not part of
// the file; what a closure cancels is, as EXDATEs.
package icalendar
