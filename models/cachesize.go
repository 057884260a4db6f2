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

// traced is how much more a snapshot costs the process than the heap it
// takes. A snapshot is pointers (maps, slices, the strings of its rows and
// indexes), which the collector follows on every cycle, where it passes
// over the bytes of a cached body without reading them; and its cost in
// collection grows with how often cycles come, which is how little room
// the heap has left under the soft memory limit (cmd/koredyne sets it from
// the budget). A budget that counted snapshots at their heap filled with
// them: in the 10,000-business load test the snapshots held 171 MB of the
// 256 MiB, the heap stood 40 MB under the limit, and the collector took
// half of the server's CPU (526 cycles in the first 80 seconds); counted
// at twice their heap, the same run collected 194 times in those seconds,
// and the p99 of every kind of request fell 2 to 5 times against the code
// before the calendars stopped overcounting (docs/operations.md, "Many businesses").
const traced = 2

// heap estimates the bytes sn holds; sn.mu is held.
func (sn *Snapshot) heap() int64 {
	n := int64(snapshotBase) + int64(rows(&sn.State))*bytesPerRow
	for _, r := range sn.reports {
		n += reportSize(r)
	}
	return n
}

// size is what sn counts for in the memory budget; sn.mu is held.
func (sn *Snapshot) size() int64 { return traced * sn.heap() }

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
// It keeps the businesses that changed most recently, at most
// keptBusinesses: a process that hears every write of thousands of
// businesses holds a bounded log, and a business forgotten only has its
// next cached answer computed again (Unchanged says false).
type changeLog struct {
	by   map[int64]*changes
	tick uint64
}

type changes struct {
	list []Change // sorted by revision
	used uint64   // the log's tick when a change was last added
}

// keptChanges is how many changes of a business the log keeps: an answer
// older than that many revisions is computed again.
const keptChanges = 64

// keptBusinesses is how many businesses' changes the log keeps, at most
// keptChanges each (a Change is 40 bytes: 10 MiB at the very most).
const keptBusinesses = 4096

func (l *changeLog) add(c Change) {
	if l.by == nil {
		l.by = map[int64]*changes{}
	}
	cs := l.by[c.Business]
	if cs == nil {
		if len(l.by) >= keptBusinesses {
			l.trim()
		}
		cs = &changes{}
		l.by[c.Business] = cs
	}
	l.tick++
	cs.used = l.tick
	if i, found := slices.BinarySearchFunc(cs.list, c.Revision, func(c Change, r int64) int { return int(c.Revision - r) }); !found {
		cs.list = slices.Insert(cs.list, i, c)
	}
	if len(cs.list) > keptChanges {
		cs.list = slices.Delete(cs.list, 0, len(cs.list)-keptChanges)
	}
}

// trim forgets the half of the businesses that changed least recently,
// so that its cost is spread over the keptBusinesses/2 adds before the next.
func (l *changeLog) trim() {
	ticks := make([]uint64, 0, len(l.by))
	for _, cs := range l.by {
		ticks = append(ticks, cs.used)
	}
	slices.Sort(ticks)
	cut := ticks[len(ticks)/2]
	for id, cs := range l.by {
		if cs.used < cut {
			delete(l.by, id)
		}
	}
}

// of returns the changes kept of a business, oldest first.
func (l *changeLog) of(business int64) []Change {
	if cs := l.by[business]; cs != nil {
		return cs.list
	}
	return nil
}

// record logs a committed change.
func (s *Store) record(c Change) {
	s.tokens.saw(c.Business, c.Revision)
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
	cs := s.log.of(business)
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
