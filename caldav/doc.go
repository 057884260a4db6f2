// Package caldav is the read-only calendar gateway: CalDAV (RFC 4791) with
// collection synchronisation (RFC 6578) over the computed sessions, and the
// same calendars as plain .ics files (RFC 5545) for clients that only
// subscribe by URL.
//
// Every session is one expanded VEVENT. Its UID and file name come from the
// session's identity (original date, class time and class, or the one-off),
// so a moved session updates in place; its ETag comes from its bytes; its
// LAST-MODIFIED and SEQUENCE from the revision that last changed it
// (models.Versions). Events are written with arran4/golang-ical, their
// text made safe and their VTIMEZONE generated from Go's zone database by
// the file format package icalendar, the same writers the export uses.
//
// The gateway answers WebDAV itself, from discovery (the root and the
// principal, RFC 6764 and RFC 5397) to sync-collection, writing the XML in
// xml.go: every multistatus with one Content-Type, the properties calendar
// apps ask for (go-webdav's discovery answered few, and its answers lost
// their Content-Type once compressed), ctag and sync-token, If-None-Match
// on GET, time ranges computed for any range, read-only refusals.
// emersion/go-webdav matches prop filters (RFC 4791 §9.7), and its client
// is the first the tests walk the gateway with.
//
// Answers are compressed by the server around the gateway; what the
// gateway keeps (feeds, calendar-query answers) it keeps gzipped, with
// ETags of their own, and sends as they are.
//
// The gateway reads through Backend, which it declares (as go-webdav's
// caldav.Backend): logins, feed tokens, snapshots and sync state.
// *models.Store satisfies it; the protocol tests also run on one held in
// memory (memory_test.go).
package caldav
