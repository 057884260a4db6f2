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
// emersion/go-webdav answers discovery (the root and the principal, with
// current-user-principal and calendar-home-set) and matches prop filters.
// What it does not answer — collection ctag and sync-token, sync-collection,
// If-None-Match on GET, time ranges computed for any range, read-only
// refusals — the gateway answers itself, writing the XML in xml.go.
//
// The gateway reads through Backend, which it declares (as go-webdav's
// caldav.Backend): logins, feed tokens, snapshots and sync state.
// *models.Store satisfies it; the protocol tests also run on one held in
// memory (memory_test.go).
package caldav
