// Package reference reads the JSON export of the reference system, the
// Node/SQLite "Koredyne Schedule" this product replaces, and converts it to
// an engine.State with clients, subscriptions and one-off attendees, ready to
// be written whole (models.Edit.ReplaceSchedule). Write produces the same
// format from a State.
//
// The format is the one the reference writes (its server/db.js, exportData,
// and the exports of its three demos in testdata/reference): nothing here is
// guessed. The conversion is faithful or it fails: for every date the engine
// computes the same real sessions the reference system did (its
// src/lib/schedule.js, resolveDate) — the same times, rooms, activities,
// coaches, cancellations and moves, and the same packages behind each
// session. What the reference allowed and our engine refuses is converted to
// an exact equivalent when one exists, with a Note saying what was done;
// when none exists Read returns an *Error naming the table, row and column.
// Read never runs the clash proof: the double bookings the reference let
// through import as they are, and the guarded write accepts them as already
// there. Unknown tables, columns and settings are reported as Notes, never
// dropped silently.
//
// # The export
//
// One JSON object, as the reference's GET /export sends it:
//
//	{
//	  "format": "recurring-scheduler-export",   required, exactly this
//	  "version": 1,                              required, exactly 1
//	  "exportedAt": "2026-12-06T12:00:00.000Z",  kept as text
//	  "tables": { "areas": [ {...}, ... ], ... } required
//	}
//
// "tables" holds every table of the reference's SQLite database, each a list
// of row objects with exactly its columns. SQLite's types show through:
// booleans are 0 or 1, absent values null, dates "YYYY-MM-DD", times "HH:MM",
// day 0 (Sunday) to 6 (Saturday), amounts plain numbers (a REAL, kept to the
// thousandth). Ids are the reference's and are kept as ours until the write
// numbers rows anew. Columns marked * are required.
//
// The export names no time zone (the reference runs on its server's clock)
// and no week start (the reference's weeks start on Sunday): Options gives
// both. Nor does it set a business's zone or week start when imported into
// an existing one.
//
// # Tables
//
// settings — key/value rows: kind (gym, clinic or office; anything else is
// a gym, as the reference shows it), name, currency (KD when unset, the
// reference's default).
//
// areas (our rooms): id*, name* (distinct without case), sort (display
// order: the rooms are put in it, so their new ids follow it). A session
// takes the whole area.
//
// coaches (our staff): id*, name*. Coaches with one name, without case, are
// one person to the clash rules, as in the reference.
//
// activities: id*, name* (distinct without case), color.
//
// classes: id*, activity_id*, coach_id* (the main coach).
//
// class_coaches: class_id*, coach_id*, sort — the other coaches of a class,
// after the main one by sort and then by name, as the reference lists them.
// Two classes with one activity and one set of coaches (twins: the reference
// refuses them today but older versions made them) are one class here when
// every date keeps its sessions: when they never run in one slot on one
// date; or when they do, where the reference shows the same coaches twice in
// one room at one time, which becomes one session of the packages of both,
// provided their session changes do the same there and the slot's places
// (multiplied by how many run together) can be theirs together on every date.
// Otherwise the twin is a class of its own under an activity of its own
// ("Boxing (class 14)"), two sessions as in the reference, whose double
// booking comes along as a clash. Either way with a Note (twins.go).
//
// slots (our class times): id*, area_id*, day*, start_time*, end_time*,
// label, capacity (members per session; null = no limit), type,
// buffer_minutes (cleaning time after the session), active (0: the slot's
// sessions are gaps, not sessions).
//
// packages (our series): id*, name*, anchor_date*, end_date (exclusive: the
// first day without the package; null = open), cycle_length* (1–52). A
// package is in week ⌊(date − anchor_date)/7⌋ mod cycle_length + 1 on every
// date from anchor_date until end_date. The reference anchors packages on
// Sundays; a package anchored or ending on another day (older versions),
// or imported into a business whose weeks start on Monday, becomes a series
// from the week start before or after with its entries' weeks shifted, when
// that gives every date the same sessions, or else also a one-week series
// holding exactly the sessions of the partial week (Import.Packages maps it
// back to its package).
//
// package_entries (our series entries): id*, package_id*, slot_id*,
// class_id*, week_position* (≥ 1): the class is in the slot in that week of
// the package's rotation. A class in one slot in several packages is one
// session listing all of them. An entry whose week_position is past the
// package's cycle never runs in the reference and is left out, with a Note.
//
// package_plans (our plans): id*, package_id*, label, classes_per_month
// (null = unlimited, else 1 or more), months (1 when null), price (for all
// the months together; null imports as free, with a Note).
//
// members (our clients): id*, name*, email.
//
// package_members (our subscriptions; no id column, so they are numbered in
// row order): package_id*, member_id*, plan_id (null = on the package without
// a plan; a plan of another package is dropped, with a Note), start_date
// (null: from the package's anchor date, with a Note), end_date (inclusive:
// the last day; null = open).
//
// one_offs: id*, date*, area_id*, class_id*, start_time*, end_time*, label,
// note.
//
// one_off_members: one_off_id*, member_id* — the members of a one-off.
//
// session_changes (our day changes): id*, then date*, slot_id* and class_id*
// name the session as its packages put it, so one change applies to every
// package that shares the session. Then what happens instead, each null for
// unchanged: cancelled (0/1), new_date, area_id (the new room), start_time,
// end_time (the new times), new_class_id, note. A change left with nothing is
// not imported. A change naming a session that does not happen on its date
// has no effect, in the reference and here, and is kept with a Note.
//
// # Where the reference is wrong
//
// The reference groups a date's sessions by slot and class. A session moved
// onto another session of its class in its slot (or given the class another
// session has in its slot) is therefore one session there, and its double
// booking is never seen; here they are two sessions and a clash, with a
// Note. The reference also checks no clash in past weeks nor past its
// 208-week scan; ours are proved for every date, and such clashes come along
// as clashes that were already there.
package reference
