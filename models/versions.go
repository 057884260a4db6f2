package models

import (
	"maps"
	"sort"
	"time"

	"github.com/uptrace/bun"

	"github.com/koredyne/schedule/engine"
)

// Versions says which revision last wrote each part of a schedule, and
// when each revision was committed. From it a session tells the revision
// that last changed it (calendar feeds publish that as LAST-MODIFIED and
// SEQUENCE) without any history of the rules being kept.
type Versions struct {
	Settings int64
	rows     map[Table]map[int64]int64
	groups   map[[2]int64]int64 // (class time, class) → newest entry or removal
	changes  map[engine.SessionRef]int64
	ranges   []dated // closures and removed closures
	pauses   []dated // pausing ones, by From, with the running maximum
	times    map[int64]int64
}

type dated struct {
	from, to engine.Date
	rev      int64
}

func newVersions() *Versions {
	return &Versions{rows: map[Table]map[int64]int64{}, groups: map[[2]int64]int64{}, changes: map[engine.SessionRef]int64{}, times: map[int64]int64{}}
}

func (v *Versions) setRow(t Table, id, rev int64) {
	m := v.rows[t]
	if m == nil {
		m = map[int64]int64{}
		v.rows[t] = m
	}
	m[id] = rev
}

func (v *Versions) row(t Table, id int64) int64 { return v.rows[t][id] }

func (v *Versions) bump(m map[[2]int64]int64, k [2]int64, rev int64) {
	m[k] = max(m[k], rev)
}

// Time is when a revision was committed (the zero time when unknown).
func (v *Versions) Time(rev int64) time.Time {
	if u, ok := v.times[rev]; ok {
		return time.Unix(u, 0).UTC()
	}
	return time.Time{}
}

// Session returns the revision that last changed what the session is: the
// newest write of anything it is made from (its room, class, activity,
// staff, class time, series and entries, day change, one-off, the closures
// on its date and the pauses before it) and of anything removed from it.
// Where a rule is broad (a pause shifts every later week) it errs towards a
// newer revision, never an older one.
func (v *Versions) Session(tt *engine.Timetable, s *engine.Session) int64 {
	rev := v.Settings
	use := func(r int64) { rev = max(rev, r) }
	class := func(id int64) {
		use(v.row(ClassesTable, id))
		if c, ok := tt.Class(id); ok {
			use(v.row(ActivitiesTable, c.ActivityID))
			for _, p := range c.StaffIDs {
				use(v.row(StaffTable, p))
			}
		}
	}
	use(v.row(RoomsTable, s.RoomID))
	class(s.ClassID)
	for _, p := range s.StaffIDs {
		use(v.row(StaffTable, p))
	}
	if o := s.Origin(); o != nil {
		use(v.row(RoomsTable, o.RoomID))
		class(o.ClassID)
	}
	if s.IsOneOff() {
		use(v.row(OneOffsTable, s.OneOffID))
	} else {
		ref := s.Ref()
		use(v.row(ClassTimesTable, ref.ClassTimeID))
		use(v.groups[[2]int64{ref.ClassTimeID, ref.ClassID}])
		use(v.changes[ref])
		for _, w := range s.Series {
			use(v.row(SeriesTable, w.SeriesID))
		}
		// A pause before the date may have shifted the rotation.
		if i := sort.Search(len(v.pauses), func(i int) bool { return v.pauses[i].from > ref.Date }); i > 0 {
			use(v.pauses[i-1].rev)
		}
	}
	for _, d := range v.ranges {
		if d.from <= s.Date && s.Date <= d.to {
			use(d.rev)
		}
	}
	return rev
}

// prepare sorts the pauses and keeps their running maximum.
func (v *Versions) prepare() {
	sort.Slice(v.pauses, func(i, j int) bool { return v.pauses[i].from < v.pauses[j].from })
	for i := 1; i < len(v.pauses); i++ {
		v.pauses[i].rev = max(v.pauses[i].rev, v.pauses[i-1].rev)
	}
}

// clone copies v for a write to change.
func (v *Versions) clone() *Versions {
	c := &Versions{Settings: v.Settings, rows: map[Table]map[int64]int64{}, groups: maps.Clone(v.groups),
		changes: maps.Clone(v.changes), ranges: append([]dated(nil), v.ranges...), pauses: append([]dated(nil), v.pauses...),
		times: maps.Clone(v.times)}
	for t, m := range v.rows {
		c.rows[t] = maps.Clone(m)
	}
	return c
}

// addClosure notes a closure (or a removed one) written at rev.
func (v *Versions) addClosure(c engine.Closure, rev int64) {
	v.ranges = append(v.ranges, dated{c.From, c.To, rev})
	if c.Pause {
		v.pauses = append(v.pauses, dated{c.From, c.To, rev})
	}
}

// loadVersions reads what the rows of a state do not carry: removals and
// the times of revisions.
func loadVersions(rd rowReader, v *Versions) error {
	var stones []Tombstone
	var times []RevisionTime
	ofBusiness := func(q *bun.SelectQuery, business any) *bun.SelectQuery { return q.Where("business_id = ?", business) }
	if err := rd.read(&stones, ofBusiness, func() error {
		for _, t := range stones {
			v.addTombstone(t)
		}
		return nil
	}); err != nil {
		return err
	}
	return rd.read(&times, ofBusiness, func() error {
		for _, t := range times {
			v.times[t.Revision] = t.CommittedUnix
		}
		v.prepare()
		return nil
	})
}

func (v *Versions) addTombstone(t Tombstone) {
	switch t.Kind {
	case "group":
		v.bump(v.groups, [2]int64{t.ClassTimeID, t.ClassID}, t.Revision)
	case "change":
		ref := engine.SessionRef{Date: engine.Date(t.OrigDate), ClassTimeID: t.ClassTimeID, ClassID: t.ClassID}
		v.changes[ref] = max(v.changes[ref], t.Revision)
	case "closure", "pause":
		v.addClosure(engine.Closure{From: engine.Date(t.FromDate), To: engine.Date(t.ToDate), Pause: t.Kind == "pause"}, t.Revision)
	}
}

// TimeOff returns the revision that last changed a time off, or the
// business's settings, which its calendar event is written with.
func (v *Versions) TimeOff(id int64) int64 {
	return max(v.Settings, v.row(TimeOffsTable, id))
}
