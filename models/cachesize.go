package models

import (
	"slices"

	"github.com/koredyne/schedule/engine"
)

// The sizes the store's cache counts are estimates: a compiled snapshot
// holds the schedule's rows, the timetable's indexes over them and the
// reports proven from it, and the Go heap they take grows with the number
// of rows. The per-row cost below is what TestSnapshotSizeEstimate
// measures with runtime.MemStats over the demos and generated businesses,
// rounded up; the test fails when the estimate falls below the heap a
// snapshot really takes, or more than three times above it.
const (
	snapshotBase  = 12 << 10 // a business with no rows: maps, the zone, the vocabulary
	bytesPerRow   = 192      // a row in the state, the per-weekday and proof indexes
	reportBase    = 64
	bytesPerClash = 512 // a clash, its sessions and its message
)

// size estimates the bytes sn holds; sn.mu is held.
func (sn *Snapshot) size() int64 {
	n := int64(snapshotBase) + int64(rows(&sn.State))*bytesPerRow
	for _, r := range sn.reports {
		n += reportSize(r)
	}
	return n
}

// rows counts the rows of a schedule.
func rows(s *engine.State) int {
	return len(s.Rooms) + len(s.Staff) + len(s.Activities) + len(s.Classes) + len(s.ClassTimes) +
		len(s.Series) + len(s.Entries) + len(s.Plans) + len(s.Clients) + len(s.Subscriptions) +
		len(s.OneOffs) + len(s.Changes) + len(s.Closures) + len(s.Capacity) + len(s.RoomBookings)
}

func reportSize(r engine.Report) int64 {
	n := int64(reportBase)
	for _, c := range r.Clashes {
		n += bytesPerClash + int64(len(c.Message)) + int64(len(c.Sessions))*128
	}
	return n
}

// changeLog keeps the last changes of each business (its own writes and,
// on PostgreSQL once Listen runs, those of other processes), so that a
// cached answer can be carried over a write that cannot have changed it.
type changeLog map[int64][]Change

// keptChanges is how many changes of a business the log keeps: an answer
// older than that many revisions is computed again.
const keptChanges = 64

func (l *changeLog) add(c Change) {
	if *l == nil {
		*l = changeLog{}
	}
	cs := (*l)[c.Business]
	if i, found := slices.BinarySearchFunc(cs, c.Revision, func(c Change, r int64) int { return int(c.Revision - r) }); !found {
		cs = slices.Insert(cs, i, c)
	}
	if len(cs) > keptChanges {
		cs = slices.Delete(cs, 0, len(cs)-keptChanges)
	}
	(*l)[c.Business] = cs
}

// record logs a committed change.
func (s *Store) record(c Change) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.log.add(c)
}

// Unchanged reports whether the dates from..to (exclusive) of a business
// show the same at revision now as at revision since: true only when this
// store knows every write between them and none may have changed one of
// those dates (engine.ChangedRange, and the dates bookings touched). A
// write it did not hear of (another process's on SQLite, or one missed
// while the live connection was down) makes it false.
func (s *Store) Unchanged(business, since, now int64, from, to engine.Date) bool {
	if since == now {
		return true
	}
	if since > now {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	cs := s.log[business]
	i, found := slices.BinarySearchFunc(cs, since+1, func(c Change, r int64) int { return int(c.Revision - r) })
	n := int(now - since)
	// The log's revisions are distinct and sorted, so these are exactly
	// since+1 … now when the last of them is now.
	if !found || len(cs)-i < n || cs[i+n-1].Revision != now {
		return false
	}
	for _, c := range cs[i : i+n] {
		if c.overlaps(from, to) {
			return false
		}
	}
	return true
}

// overlaps reports whether the change may have changed a date in from..to
// (exclusive).
func (c Change) overlaps(from, to engine.Date) bool {
	if from >= to {
		return false
	}
	if c.Open {
		return c.From < to
	}
	return c.From < c.To && c.From < to && from < c.To
}
