// Package reference reads the JSON export of the reference system, the
// Node/SQLite "Koredyne Schedule" this product replaces, and converts it to
// an engine.State with clients, subscriptions and one-off attendees, ready to
// be written whole (models.Edit.ReplaceSchedule). Write produces the same
// format from a State.
//
// The conversion is faithful or it fails: for every date the engine computes
// the same real sessions the reference system did — the same times, rooms,
// activities, coaches, cancellations and moves, and the same packages behind
// each session. What the reference allowed and our engine refuses is
// converted to an exact equivalent when one exists, with a Note saying what
// was done; when none exists Read returns an *Error saying why. Read never
// runs the clash proof: the double bookings the reference let through
// (sessions moved onto each other, clashes past its 208-week scan, clashes
// in past weeks) import as they are, and the guarded write accepts them as
// already there. Unknown tables, fields and settings are reported as Notes,
// never dropped silently.
//
// # The export
//
// One JSON object:
//
//	{
//	  "format": "recurring-scheduler-export",   required, exactly this
//	  "version": 1,                              required, exactly 1
//	  "exported_at": "2025-09-14T08:00:00Z",     optional, kept as text
//	  "tables": { "areas": [ {...}, ... ], ... } required
//	}
//
// The tables sit under "tables", never at the top level. Each table is a
// list of row objects; a table that is absent or null is empty. Rows name
// each other by the reference's integer ids, which must be positive and are
// kept as our ids (a package's id is its series' id, and so on).
//
// Conventions: dates are "YYYY-MM-DD" and times "HH:MM" on a 24-hour clock
// (an end may be "24:00"), both local to the business; day is 0 (Sunday) to
// 6 (Saturday); booleans are true/false or 1/0 as SQLite stores them;
// amounts are plain JSON numbers in the business currency (47.5), read
// exactly from their text to the thousandth; null means absent. Fields
// marked * are required.
//
// # Tables
//
// settings — key/value rows {"key": ..., "value": ...}, values always text:
//
//	business_name*   the business's name
//	business_kind    gym (default), clinic or office
//	currency*        the currency prices are in: KD, EUR
//	time_zone*       IANA zone: Asia/Kuwait, Europe/Berlin
//	week_start       first day of the week, "0" (Sunday, default) to "6";
//	                 our weeks start on Sunday or Monday, so 2–6 become Sunday
//	                 (rotations count from each package's start, so no date
//	                 changes)
//
// areas (our rooms): id*, name* (distinct without case). A session takes the
// whole area.
//
// coaches (our staff): id*, name*. Coaches with one name, without case, are
// one person to the clash rules, as in the reference.
//
// activities: id*, name* (distinct without case), color ("#d62828").
//
// classes: id*, activity_id*. A class's coaches are its class_coaches rows.
//
// class_coaches: class_id*, coach_id*, sort_order* (whole number; the lowest
// is the main coach; two coaches of one class may not share it). Every class
// in use needs a coach; an unused class without one is left out.
//
// slots (our class times): id*, area_id*, day*, start_time*, end_time*,
// label, capacity (members per session; 0 or absent = no limit),
// session_type, buffer_minutes (cleaning time after the session, 0–1440),
// active (default true; an inactive slot holds no sessions).
//
// packages (our series): id*, name*, start_date*, end_date (exclusive: the
// first day without the package; null = open), cycle_weeks* (1–52). In the
// reference a package is in week ⌊(date − start_date)/7⌋ mod cycle_weeks + 1
// on every date from start_date until end_date. Our series start and end on
// the week start; a package that starts or ends mid-week becomes a series
// from the week start before or after with its entries' weeks shifted, when
// that gives every date the same sessions, or else also a one-week series
// holding exactly the sessions of the partial week (Import.Packages maps it
// back to its package).
//
// package_entries (our series entries): id*, package_id*, slot_id*,
// class_id*, week* (1..cycle_weeks): the class is in the slot in that week of
// the package's rotation. A class in one slot in several packages is one
// session listing all of them. A package holds one class per slot and week.
//
// package_plans (our plans): id*, package_id*, name, sessions_per_month (null
// = unlimited, else 1 or more), months* (1 or more), price* (0 or more, at
// most three decimals).
//
// members (our clients): id*, name*, email, phone.
//
// package_members (our subscriptions): id*, member_id*, package_id*,
// package_plan_id (a plan of that package; null = on the package without a
// plan), start_date*, end_date (inclusive: the last day; null = open).
//
// one_offs: id*, class_id*, area_id*, date*, start_time*, end_time*, label,
// capacity, buffer_minutes, cancelled (default false), note.
//
// one_off_members: one_off_id*, member_id* — the members of a one-off.
//
// session_changes (our day changes): id*, date*, slot_id*, class_id* name
// the session by its original date, slot and class, so one change applies to
// every package that shares the session. Then cancelled, new_date,
// new_area_id, new_start_time, new_end_time, new_class_id, new_coach_ids (a
// list of coach ids: a cover), note — each null or equal to the original
// means unchanged, and a change left with nothing is not imported. A change
// naming a session that does not happen on its date has no effect, in the
// reference and here, and is kept with a Note.
package reference
