// Package engine is the timetable engine: the rules a business sets and the
// exceptions it makes, and every date computed from them. It stores nothing
// and does no I/O: values go in (a State, a date, "today", a time zone) and
// values come out. It never reads the clock or the machine's time zone.
//
// # The model
//
// A business (State.Business) has rooms, staff, activities and clients. A
// Class is an activity given by an ordered list of staff (the first is the
// main one), and is told apart by its activity and its set of staff, names
// compared without case (ClassKey, State.ClassWith): no two classes share
// them; a ClassTime is a room, a weekday and a wall-clock span. A Series
// is what is sold: it starts on an anchor week, may end (exclusively) on a
// later week, and rotates through Cycle weeks. An Entry puts a class in a
// class time in week k of a series — the week lives on the entry, so the same
// class can be week 1 of one series and week 3 of another. Plans (how a series
// is sold) and subscriptions (a client on a plan of a series) are separate
// from the series.
//
// Dates are civil dates (Date) and times are wall-clock times (LocalTime);
// "Sunday 18:00" stays 18:00 across daylight-saving changes. Only Date.At
// turns one into an instant, by the rules of RFC 5545. A timetable holds
// dates from MinDate (1900-01-01) to MaxDate (2199-12-31): NewDate,
// ParseDate and Validate refuse others (see civil.go for why).
//
// # Rotation
//
// In week w a series is in week ⌊(w − anchor)/7⌋ mod N + 1 of its rotation,
// while anchor ≤ date < end. Anchors and ends fall on the business's week
// start (Sunday or Monday). A closure that covers a whole week, pauses
// rotations and closes every room a series uses does not advance that
// series: the week after shows the position the paused week would have had.
//
// # Resolving a date
//
// Timetable.Day works in a fixed order: (1) the series sessions of the date —
// one session per (class time, class), listing every series that includes it
// with its week, so a class sold in several series is one real session; (2)
// the date's day changes, keyed by (original date, class time, class) and so
// shared by all those series; (3) sessions moved in from other dates; (4)
// one-offs; (5) closures, which cancel what falls in them — cancelled sessions
// are kept, flagged, with the reason. A DayChange holds only the difference
// from the original (MergeChange drops fields equal to it, and a change left
// with nothing is deleted); a changed session carries its Origin. A change
// that names no session of its date (the series changed since) is ignored.
//
// # Clashes
//
// A room cannot hold more units at once than its capacity; a session uses
// ClassTime.Units of it (all of it by default), and its cleaning buffer
// keeps the room taken after it ends (up to midnight). A person — staff
// compared by name, without case — cannot be in two overlapping sessions.
// Back-to-back is fine; cancelled sessions and inactive class times never
// clash. A room clash is a minimal set of sessions that need more units than
// the room has at a shared instant (for rooms that sessions use whole, a
// pair); a staff clash is a pair of sessions and the person they share.
//
// Timetable.Clashes proves every clash from the week of today on, for every
// date a Date can hold, without scanning dates. The weeks an entry is active
// form residue classes modulo its cycle, cut into pieces by pauses, closures
// and day changes; the weeks in which a set of sessions all happen are the
// intersection of such classes (the Chinese remainder theorem), one residue
// class modulo the lcm of the cycles or nothing. Which sets could clash is
// decided from the class times alone, once per weekday and capacity regime
// of each room: its weekly rules, or one stretch of its overrides, whose
// weeks are one more residue class to meet. Moved, re-timed and re-staffed
// sessions, one-offs and room bookings have known dates, and only those
// dates are resolved one by one. So the cost grows with the rules and
// exceptions, not with the lcm of the cycles, how far ahead anything is
// dated or how long a closure or override lasts, and
// Report.ProvenUntil is always zero: the proof is never cut short
// (ClashesOrStop stops it when the caller's deadline passes, and then
// says so with ErrStopped rather than answering). Each
// Clash is one arithmetic progression of dates (First, every Every weeks,
// Until); the same sessions can appear in two clashes when two different
// rotation combinations make them meet.
//
// A clash is known by what clashes with what — names, times, series and
// weeks — never by row ids or by the dates a scan looked at; NewClashes
// compares two reports that way, so a write is refused only for the clashes
// it adds.
//
// Every clash double-books one room or one person, so the proof goes
// resource by resource (Timetable.Prove): the dated part resolves only the
// sessions of one room or person on the dates something dated lands in it,
// never a whole day of the business. A Proof keeps each resource's clashes,
// and Proof.Next proves a later revision by proving again only the rooms and
// people the difference between the two reaches, carrying the rest; its
// report equals a proof from scratch exactly. A guarded write so costs in
// proportion to what it changes. Resources are independent, so the proof
// of a business with many of them runs on as many goroutines as GOMAXPROCS
// allows, and its report is the same whichever proved what. The first
// proof, which resolves whole days, stays in the tests as the oracle of
// both.
//
// # Cover
//
// Time off (a staff member away from a date and time to another) and
// working hours (weekly spans from a date on, until the next set) are rules
// like closures, read for any date (cover.go): Timetable.NeedsCover says who
// of a session's staff is missing and why. Timetable.Uncovered proves, for
// every date from the week of today on, which sessions the rules leave
// without their staff, by the same arithmetic as the clash proof: an
// entry's weeks (its segments) meet a time off's or a set of hours' range
// of weeks in one progression; dated sessions are resolved one by one.
// NewUncovered keeps what a write adds, known by rule and sessions, as
// NewClashes does.
//
// # Placements
//
// Timetable.Placements answers where a new class time of a class can go:
// every room, weekday, start and week of a new rotation where the class
// time and a series entry would add no clash and leave no one away, on any
// future date (placements.go). It proposes with the proof's own pieces —
// the new entry's segments met with every class time's by meetAll, the
// minimal overloads of a room, time off and hours as ranges of weeks, and
// the dated dates resolved — and the guarded write decides as ever.
//
// # Editing
//
// The rules of changing a state that are more than setting a field live here
// too, so every adapter applies them alike: what may be removed and what goes
// with it (State.RemoveClass and the like), hand-overs
// (State.ReplaceSeriesFrom), and how a running series is edited without
// rewriting the weeks that already happened (State.EditSeries).
//
// # Words
//
// Words gives the vocabulary of a kind of business (a gym's coaches and
// packages, a clinic's practitioners and programmes, an office's hosts and
// series); messages and validation problems are written with it.
package engine
