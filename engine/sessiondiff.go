package engine

import "slices"

// What is what a write did to one session, as a set: the structure its
// events are made of (a webhook's session.cancelled, session.moved,
// session.changed); the words are the caller's.
type What uint16

const (
	// Cancelled: it was on and is cancelled, or no longer exists (its
	// series ended, its class time or one-off was removed).
	Cancelled What = 1 << iota
	// Restored: it was cancelled and is on again.
	Restored
	// Moved: it is on another date.
	Moved
	// Retimed: it starts or ends at another time.
	Retimed
	// Rehoused: it is in another room.
	Rehoused
	// Restaffed: other staff run it.
	Restaffed
	// Reclassed: it is another class (another activity, or the same
	// activity with other staff).
	Reclassed
	// Resized: it has another number of places.
	Resized
	// Removed, beside Cancelled: the session no longer exists at all.
	Removed
	// Added: the session is new (a new one-off, an entry that makes it).
	Added
)

// Has reports whether w holds every bit of x.
func (w What) Has(x What) bool { return w&x == x }

// SessionDiff is one session a write changed: the session before and
// after (one of them absent for a session added or removed), and what
// changed.
type SessionDiff struct {
	Before, After Session
	// Was and Is report whether the session exists before and after.
	Was, Is bool
	What    What
}

// Key is the session's identity (Session.Key), the same before and after.
func (d *SessionDiff) Key() string {
	if d.Was {
		return d.Before.Key()
	}
	return d.After.Key()
}

// sessionID is a session's identity as a map key: its ref, or its one-off.
type sessionID struct {
	ref    SessionRef
	oneOff int64
}

func idOf(s *Session) sessionID { return sessionID{s.Ref(), s.OneOffID} }

// DiffSessions compares the sessions of two timetables of one business,
// a revision apart, on the dates from up to the exclusive to: every
// session that is on one of those dates in either timetable and differs
// between them is reported once, by its first date in the range. A
// session moved out of the range, or into it, is found where it went by
// its identity, so a move is a move, not a removal and an addition. Only
// what a session's events tell is compared: its date, times, room, staff,
// class, places and whether it is cancelled (a label or a note is not).
// Dates where both timetables resolve the same sessions cost one pass
// over them; the caller bounds the range (ChangedRange says which dates
// can differ).
func DiffSessions(before, after *Timetable, from, to Date) []SessionDiff {
	var out []SessionDiff
	var a, b []Session
	done := map[sessionID]bool{}
	for d := from; d < to; d++ {
		a, b = before.AppendDay(a[:0], d), after.AppendDay(b[:0], d)
		if sameDay(a, b) {
			continue
		}
		for i := range a {
			id := idOf(&a[i])
			if done[id] {
				continue
			}
			done[id] = true
			is, ok := find(b, id)
			if !ok {
				is, ok = after.sessionByID(id)
			}
			if diff, changed := diffOf(&a[i], is, true, ok); changed {
				out = append(out, diff)
			}
		}
		for i := range b {
			id := idOf(&b[i])
			if done[id] {
				continue
			}
			done[id] = true
			was, ok := before.sessionByID(id)
			if diff, changed := diffOf(was, &b[i], ok, true); changed {
				out = append(out, diff)
			}
		}
	}
	return out
}

// sameDay reports whether two resolutions of a date hold the same
// sessions, in the same order, equal as DiffSessions compares them.
func sameDay(a, b []Session) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if idOf(&a[i]) != idOf(&b[i]) || differs(&a[i], &b[i]) != 0 {
			return false
		}
	}
	return true
}

// find returns the session with id among day's.
func find(day []Session, id sessionID) (*Session, bool) {
	for i := range day {
		if idOf(&day[i]) == id {
			return &day[i], true
		}
	}
	return nil, false
}

// sessionByID finds a session by its identity wherever it is: a series
// session where a day change put it, a one-off on its date.
func (t *Timetable) sessionByID(id sessionID) (*Session, bool) {
	if id.oneOff == 0 {
		s, ok := t.Session(id.ref)
		return &s, ok
	}
	i := slices.IndexFunc(t.state.OneOffs, func(o OneOff) bool { return o.ID == id.oneOff })
	if i < 0 {
		return nil, false
	}
	return find(t.Day(t.state.OneOffs[i].Date), id)
}

// diffOf is the difference between a session before (was: it
// exists) and after (is: it exists), and whether there is any.
func diffOf(before, after *Session, was, is bool) (SessionDiff, bool) {
	d := SessionDiff{Was: was, Is: is}
	if was {
		d.Before = *before
	}
	if is {
		d.After = *after
	}
	d.judge()
	return d, d.What != 0
}

// judge sets What from the sessions before and after.
func (d *SessionDiff) judge() {
	switch {
	case d.Was && !d.Is:
		d.What = Removed
		if !d.Before.Cancelled {
			d.What |= Cancelled
		}
	case !d.Was && d.Is:
		d.What = Added
	default:
		d.What = differs(&d.Before, &d.After)
	}
}

// differs is what differs between two versions of one session.
func differs(a, b *Session) What {
	var w What
	switch {
	case !a.Cancelled && b.Cancelled:
		w |= Cancelled
	case a.Cancelled && !b.Cancelled:
		w |= Restored
	}
	if a.Date != b.Date {
		w |= Moved
	}
	if a.Start != b.Start || a.End != b.End {
		w |= Retimed
	}
	if a.RoomID != b.RoomID {
		w |= Rehoused
	}
	if !slices.Equal(a.StaffIDs, b.StaffIDs) {
		w |= Restaffed
	}
	if a.ClassID != b.ClassID {
		w |= Reclassed
	}
	if a.Capacity != b.Capacity {
		w |= Resized
	}
	return w
}
