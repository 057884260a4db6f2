package engine

import (
	"reflect"
)

// ChangedRange returns the dates whose sessions may differ between two
// states of a business: from up to the exclusive to, or every date from
// from on when open. It is what a front end watching the schedule must
// fetch again after a write, so it may say too much but never too little.
//
// Dated rows say their own dates: a one-off, a room booking or a closure
// that does not pause rotations changes only the dates it is on, and a day
// change the session's original date and the date it is moved to. Anything
// else changes rules (rooms, staff, activities, classes, class times,
// series and their entries, capacity rules, pausing closures, the
// business's settings), and a rule holds on every date it makes sessions
// on, past ones included: the range then opens at the first date either
// state holds a session (or today, if that is earlier). A pausing closure
// only moves the rotation of the weeks after its start, so it opens at its
// start.
//
// Time off changes what the sessions of its dates show (who needs cover),
// working hours every date from theirs on. Plans, clients, subscriptions
// and qualifications change no session. When nothing dated
// or ruled differs the range is empty: from == to == today.
func ChangedRange(before, after State, today Date) (from, to Date, open bool) {
	r := dateRange{}
	if rulesDiffer(before, after) {
		r.open(min(today, firstSession(before), firstSession(after)))
	}
	eachChanged(before.OneOffs, after.OneOffs, func(o *OneOff) int64 { return o.ID }, func(o *OneOff) {
		r.add(o.Date, o.Date+1)
	})
	eachChanged(before.RoomBookings, after.RoomBookings, func(b *RoomBooking) int64 { return b.ID }, func(b *RoomBooking) {
		r.add(b.Date, b.Date+1)
	})
	eachChanged(before.Changes, after.Changes, changeKey, func(c *DayChange) {
		r.add(c.Ref.Date, c.Ref.Date+1)
		if c.Date != 0 {
			r.add(c.Date, c.Date+1)
		}
	})
	eachChanged(before.Closures, after.Closures, func(c *Closure) int64 { return c.ID }, func(c *Closure) {
		if c.Pause {
			r.open(c.From)
		} else {
			r.add(c.From, c.To+1)
		}
	})
	// A standing place is on every session its rule reaches, and a day
	// change may have moved one of them to any date: the range opens at
	// the rule's first date or the earliest date a session is moved to.
	eachChanged(before.Standing, after.Standing, func(s *Standing) int64 { return s.ID }, func(s *Standing) {
		r.open(min(s.From, movedTo(before), movedTo(after)))
	})
	eachChanged(before.StandingSkips, after.StandingSkips, func(s *StandingSkip) int64 { return s.ID }, func(s *StandingSkip) {
		r.add(s.Date, s.Date+1)
		for _, st := range []State{before, after} {
			for i := range st.Changes {
				if c := &st.Changes[i]; c.Ref.Date == s.Date && c.Date != 0 {
					r.add(c.Date, c.Date+1)
				}
			}
		}
	})
	coverChanged(&r, &before, &after)
	if r.empty() {
		return today, today, false
	}
	return r.from, r.to, r.isOpen
}

// movedTo returns the earliest date a day change of s moves a session to,
// MaxDate when none does.
func movedTo(s State) Date {
	first := MaxDate
	for i := range s.Changes {
		if c := &s.Changes[i]; c.Date != 0 {
			first = min(first, c.Date)
		}
	}
	return first
}

// coverChanged adds the dates whose sessions' cover may differ: a time off
// its own dates, working hours every date from theirs on. The sessions
// are the same; what they show (Session.needsCover, a calendar event's
// status) is not.
func coverChanged(r *dateRange, before, after *State) {
	eachChanged(before.TimeOffs, after.TimeOffs, func(o *TimeOff) int64 { return o.ID }, func(o *TimeOff) {
		r.add(o.From, o.To+1)
	})
	eachChanged(before.Hours, after.Hours, func(h *WorkingHours) int64 { return h.ID }, func(h *WorkingHours) {
		r.open(h.From)
	})
}

// dateRange is the smallest range holding every date added to it.
type dateRange struct {
	from, to Date // to exclusive; from == to == 0 while empty
	isOpen   bool
}

func (r *dateRange) empty() bool { return r.from == r.to && !r.isOpen }

func (r *dateRange) add(from, to Date) {
	if r.empty() {
		r.from, r.to = from, to
		return
	}
	r.from, r.to = min(r.from, from), max(r.to, to)
}

func (r *dateRange) open(from Date) {
	r.add(from, from+1)
	r.isOpen = true
}

// firstSession returns the first date a state can hold a session on: the
// first anchor of a series, one-off or day change (a change may move a
// session before its series starts). A state without any has none, and
// MaxDate stands for that.
func firstSession(s State) Date {
	first := MaxDate
	for _, sr := range s.Series {
		first = min(first, sr.Anchor)
	}
	for _, o := range s.OneOffs {
		first = min(first, o.Date)
	}
	for _, c := range s.Changes {
		first = min(first, c.Ref.Date)
		if c.Date != 0 {
			first = min(first, c.Date)
		}
	}
	return first
}

// rulesDiffer reports whether anything that makes sessions on many dates
// differs, in any order of the rows.
func rulesDiffer(a, b State) bool {
	ab, bb := a.Business, b.Business
	if ab.Kind != bb.Kind || ab.Name != bb.Name || ab.Currency != bb.Currency || ab.WeekStart != bb.WeekStart || ab.Locale != bb.Locale ||
		ab.Location.String() != bb.Location.String() {
		return true
	}
	differ := false
	eachChanged(a.Rooms, b.Rooms, func(r *Room) int64 { return r.ID }, func(*Room) { differ = true })
	eachChanged(a.Staff, b.Staff, func(p *Staff) int64 { return p.ID }, func(*Staff) { differ = true })
	eachChanged(a.Activities, b.Activities, func(x *Activity) int64 { return x.ID }, func(*Activity) { differ = true })
	eachChanged(a.Classes, b.Classes, func(c *Class) int64 { return c.ID }, func(*Class) { differ = true })
	eachChanged(a.ClassTimes, b.ClassTimes, func(ct *ClassTime) int64 { return ct.ID }, func(*ClassTime) { differ = true })
	eachChanged(a.Series, b.Series, func(s *Series) int64 { return s.ID }, func(*Series) { differ = true })
	eachChanged(a.Entries, b.Entries, func(e *Entry) int64 { return e.ID }, func(*Entry) { differ = true })
	eachChanged(a.Capacity, b.Capacity, func(c *CapacityRule) int64 { return c.ID }, func(*CapacityRule) { differ = true })
	return differ
}

// eachChanged calls changed with both versions of every row, found by key,
// that was added, removed or edited between before and after. Rows in the
// same places at the start and the end of both lists, as an edited copy
// has them, are compared in place (pairsOf), so a write pays a map entry
// only for the rows between.
func eachChanged[T any, K comparable](before, after []T, key func(*T) K, changed func(*T)) {
	for _, p := range pairsOf(before, after, key, SameRow[T]) {
		if p.was != nil {
			changed(p.was)
		}
		if p.is != nil {
			changed(p.is)
		}
	}
}

// SameRow reports whether two rows of a state are equal in every field,
// as reflect.DeepEqual says (a nil list and an empty one differ, times
// pointed to are compared), for every row type of a State, without
// reflection: the rows that hold no lists compare with ==, the others
// field by field. TestSameRowIsDeepEqual holds it to reflect.DeepEqual.
func SameRow[T any](a, b *T) bool {
	switch x := any(a).(type) {
	case *Entry:
		return *x == *any(b).(*Entry)
	case *ClassTime:
		return *x == *any(b).(*ClassTime)
	case *Staff:
		return *x == *any(b).(*Staff)
	case *Room:
		return *x == *any(b).(*Room)
	case *Activity:
		return *x == *any(b).(*Activity)
	case *Series:
		return *x == *any(b).(*Series)
	case *RoomBooking:
		return *x == *any(b).(*RoomBooking)
	case *Standing:
		return *x == *any(b).(*Standing)
	case *StandingSkip:
		return *x == *any(b).(*StandingSkip)
	case *Plan:
		return *x == *any(b).(*Plan)
	case *Client:
		return *x == *any(b).(*Client)
	case *Subscription:
		return *x == *any(b).(*Subscription)
	case *TimeOff:
		return *x == *any(b).(*TimeOff)
	case *Qualification:
		return *x == *any(b).(*Qualification)
	case *WorkingHours:
		y := any(b).(*WorkingHours)
		return x.ID == y.ID && x.StaffID == y.StaffID && x.From == y.From && sameList(x.Spans, y.Spans)
	case *Class:
		y := any(b).(*Class)
		return x.ID == y.ID && x.ActivityID == y.ActivityID && sameList(x.StaffIDs, y.StaffIDs)
	case *DayChange:
		return sameChange(x, any(b).(*DayChange))
	case *OneOff:
		y := any(b).(*OneOff)
		return x.ID == y.ID && sameOneOff(x, y) && sameList(x.ClientIDs, y.ClientIDs)
	case *Closure:
		y := any(b).(*Closure)
		return x.ID == y.ID && x.From == y.From && x.To == y.To && x.Reason == y.Reason && x.Pause == y.Pause &&
			sameList(x.RoomIDs, y.RoomIDs)
	case *CapacityRule:
		y := any(b).(*CapacityRule)
		return x.ID == y.ID && x.RoomID == y.RoomID && x.From == y.From && x.To == y.To && x.Start == y.Start &&
			x.End == y.End && x.Units == y.Units && sameList(x.Weekdays, y.Weekdays)
	}
	return reflect.DeepEqual(*a, *b)
}

func changeKey(c *DayChange) SessionRef { return c.Ref }
