package engine

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// fx builds small states for table tests. Its business is a business centre
// whose weeks start on Monday: rooms "Room A" and "Room B" (1 unit each) and
// "Pool" (6 lanes); staff Mei Chen, Ahmed Rahim, Laura Becker and a second
// record "mei chen" for the same person; four activities.
type fx struct {
	State
}

const (
	roomA int64 = iota + 1
	roomB
	pool
)

const (
	mei int64 = iota + 1
	ahmed
	laura
	meiAgain
)

const (
	standup int64 = iota + 1
	interview
	swim
	board
)

func newFx() *fx {
	return &fx{State{
		Business: Business{Kind: Office, Name: "Meridian", Currency: "USD", Location: time.UTC, WeekStart: time.Monday},
		Rooms:    []Room{{ID: roomA, Name: "Room A", Capacity: 1}, {ID: roomB, Name: "Room B"}, {ID: pool, Name: "Pool", Capacity: 6}},
		Staff:    []Staff{{ID: mei, Name: "Mei Chen"}, {ID: ahmed, Name: "Ahmed Rahim"}, {ID: laura, Name: "Laura Becker"}, {ID: meiAgain, Name: "mei chen"}},
		Activities: []Activity{
			{ID: standup, Name: "Standup"}, {ID: interview, Name: "Interview"}, {ID: swim, Name: "Swim"}, {ID: board, Name: "Board meeting"},
		},
	}}
}

func (f *fx) class(activity int64, staff ...int64) int64 {
	id := int64(len(f.Classes) + 1)
	f.Classes = append(f.Classes, Class{ID: id, ActivityID: activity, StaffIDs: staff})
	return id
}

// ct adds a class time: "Tue 09:00-10:00".
func (f *fx) ct(room int64, when string, opts ...func(*ClassTime)) int64 {
	var wd string
	var start, end string
	if _, err := fmt.Sscanf(strings.NewReplacer("-", " ").Replace(when), "%s %s %s", &wd, &start, &end); err != nil {
		panic(err)
	}
	c := ClassTime{ID: int64(len(f.ClassTimes) + 1), RoomID: room, Weekday: weekdayNamed(wd), Start: MustTime(start), End: MustTime(end)}
	for _, o := range opts {
		o(&c)
	}
	f.ClassTimes = append(f.ClassTimes, c)
	return c.ID
}

func weekdayNamed(s string) time.Weekday {
	for d := time.Sunday; d <= time.Saturday; d++ {
		if d.String()[:3] == s {
			return d
		}
	}
	panic("no weekday " + s)
}

func buffer(min int) func(*ClassTime) { return func(c *ClassTime) { c.Buffer = min } }
func units(n int) func(*ClassTime)    { return func(c *ClassTime) { c.Units = n } }
func inactive(c *ClassTime)           { c.Inactive = true }

// series adds a series; end "" is open.
func (f *fx) series(name, anchor string, cycle int, end string) int64 {
	id := int64(len(f.Series) + 1)
	s := Series{ID: id, Name: name, Anchor: MustParse(anchor), Cycle: cycle}
	if end != "" {
		s.End = MustParse(end)
	}
	f.Series = append(f.Series, s)
	return id
}

func (f *fx) entry(series, classTime, class int64, week int) {
	f.Entries = append(f.Entries, Entry{ID: int64(len(f.Entries) + 1), SeriesID: series, ClassTimeID: classTime, ClassID: class, Week: week})
}

// weekly adds a one-week series holding one class in a new class time.
func (f *fx) weekly(name string, room int64, when string, class int64, opts ...func(*ClassTime)) int64 {
	ct := f.ct(room, when, opts...)
	f.entry(f.series(name, "2026-10-05", 1, ""), ct, class, 1)
	return ct
}

func (f *fx) change(c DayChange) { f.Changes = append(f.Changes, c) }

func (f *fx) oneOff(o OneOff) {
	o.ID = int64(len(f.OneOffs) + 1)
	f.OneOffs = append(f.OneOffs, o)
}

func (f *fx) closure(c Closure) {
	c.ID = int64(len(f.Closures) + 1)
	f.Closures = append(f.Closures, c)
}

func (f *fx) timetable(t testing.TB) *Timetable {
	t.Helper()
	tt, err := New(f.State)
	if err != nil {
		t.Fatalf("invalid fixture: %v", err)
	}
	return tt
}

// MustParse is ParseDate for test literals.
func MustParse(s string) Date {
	d, err := ParseDate(s)
	if err != nil {
		panic(err)
	}
	return d
}

func at(s string) *LocalTime { t := MustTime(s); return &t }

// describeSession writes a session for comparison in tests:
// "09:00-10:00 Room A Standup (Mei Chen) Acme W1/2 cancelled: flu".
func describeSession(tt *Timetable, s Session) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s-%s %s %s (", s.Start, s.End, tt.rooms[s.RoomID].Name, tt.activities[tt.classes[s.ClassID].ActivityID].Name)
	for i, id := range s.StaffIDs {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(tt.staff[id].Name)
	}
	b.WriteString(")")
	for _, sw := range s.Series {
		fmt.Fprintf(&b, " %s W%d/%d", tt.series[sw.SeriesID].Name, sw.Week, sw.Cycle)
	}
	if s.IsOneOff() {
		b.WriteString(" one-off")
	}
	if s.Moved() {
		fmt.Fprintf(&b, " moved from %s", s.Origin().Date)
	}
	if s.Changed && !s.Moved() {
		fmt.Fprintf(&b, " changed from %s-%s %s", s.Origin().Start, s.Origin().End, tt.rooms[s.Origin().RoomID].Name)
	}
	if s.Cancelled {
		fmt.Fprintf(&b, " cancelled: %s", s.Reason())
	}
	if s.Note() != "" && !s.Cancelled {
		fmt.Fprintf(&b, " note: %s", s.Note())
	}
	return b.String()
}

// describeClash writes a clash's kind and pattern: "ROOM 2026-10-06 every 2
// forever" or "STAFF 2026-10-13 once".
func describeClash(c Clash) string {
	switch {
	case c.Every == 0:
		return fmt.Sprintf("%s %s once", c.Kind, c.First)
	case c.Until == 0:
		return fmt.Sprintf("%s %s every %d forever", c.Kind, c.First, c.Every)
	}
	return fmt.Sprintf("%s %s every %d until %s", c.Kind, c.First, c.Every, c.Until)
}
