package models

import (
	"context"
	"fmt"
	"slices"

	"github.com/uptrace/bun"

	"github.com/koredyne/schedule/engine"
)

// A write's impact (docs/standing.md) is computed from the same before
// and after as its clashes, in its transaction: the sessions it takes
// from the people on them (engine.Impact), counted for every future date,
// the first MaxImpactSessions of them with their single bookings and
// standing places, the clients on any of them, and the calendars whose
// events change. A dry run answers with it and stores nothing.

// MaxImpactSessions is how many affected sessions a write lists, the
// first from today; the totals count every one.
const MaxImpactSessions = 500

// Impact is what a write does to the people on the sessions it changes.
type Impact struct {
	// Sessions are the first MaxImpactSessions affected sessions from
	// today, by the date they are on before the write.
	Sessions ImpactSessions
	// TotalSessions counts every affected session from today on; when
	// Unbounded, the change reaches every week without end and Runs says
	// from when.
	TotalSessions int
	Unbounded     bool
	Runs          []engine.AffectedRun
	// TotalClients counts the clients with a single booking (holding a
	// place or waiting) or a standing place on any affected session.
	TotalClients int
	// The calendars whose events change: the business's (any session
	// added, changed or taken away), and those of these staff and rooms.
	Business     bool
	Staff, Rooms []int64
}

// ImpactSessions are the first affected sessions of a write with who is
// on them, kept as the engine lists them (engine.AffectedList: a run and
// a date each, resolved when read) and, for the sessions anyone is on,
// who: a write lists 500 without copying 1,000 sessions that its caller
// reads once.
type ImpactSessions struct {
	list   *engine.AffectedList
	slot   []int32 // by session: 1 + its index in on; 0, no one is on it
	on     []ImpactPeople
	onSlot []int32 // by entry of on: its session
}

// Len is how many sessions there are.
func (s *ImpactSessions) Len() int {
	if s.list == nil {
		return 0
	}
	return s.list.Len()
}

// At returns the i-th session.
func (s *ImpactSessions) At(i int) ImpactSession {
	out := ImpactSession{AffectedSession: s.list.At(i)}
	if len(s.slot) > 0 && s.slot[i] > 0 {
		out.ImpactPeople = s.on[s.slot[i]-1]
	}
	return out
}

// people returns who is on the i-th session, to be filled in.
func (s *ImpactSessions) people(i int) *ImpactPeople {
	if s.slot == nil {
		s.slot = make([]int32, s.list.Len())
	}
	if s.slot[i] == 0 {
		s.on = append(s.on, ImpactPeople{})
		s.onSlot = append(s.onSlot, int32(i))
		s.slot[i] = int32(len(s.on))
	}
	return &s.on[s.slot[i]-1]
}

// ImpactSession is one affected session, before and after, with who is on it
// before the write.
type ImpactSession struct {
	engine.AffectedSession
	ImpactPeople
}

// ImpactPeople is who is on an affected session before the write.
type ImpactPeople struct {
	// Bookings are its single bookings holding a place, Waitlist those
	// waiting (by position).
	Bookings, Waitlist []SessionBooking
	// Standing are the standing places that hold a place on it,
	// StandingWaitlist those that wait (engine.SplitPlaces).
	Standing, StandingWaitlist []engine.Standing
	// OverCapacity: it has fewer places after the write than were held
	// on it before.
	OverCapacity bool
}

// ImpactAsk is what a write's caller reads of its impact, which is
// computed only as far as it is read: the totals (and the runs), the
// first sessions with who is on them, the calendars. A caller that asks
// nothing gets none.
type ImpactAsk struct {
	Totals, Sessions, Calendars bool
}

// impactOf is the impact of a write from before to after, from today on,
// as far as ask asks: one read of the bookings at most (every future one
// when some session's places are cut, else those of the sessions
// affected).
func impactOf(ctx context.Context, e *Edit, before, after *Snapshot, today engine.Date, ask ImpactAsk) (*Impact, error) {
	im := &Impact{}
	var err error
	var rows []SessionBooking
	loaded := false
	booked := func() engine.Booked {
		if err != nil {
			return engine.Booked{}
		}
		rows, err = futureBookings(ctx, e.Tx, e.Business.ID, nil, nil, today-7) // from a week back: a session moved on from the week before
		loaded = true
		e.bookingsRead = &bookingsRead{rows: rows, all: true, from: today - 7}
		return countHeld(rows)
	}
	runs := engine.Impact(before.Timetable, after.Timetable, booked, today, 0)
	if err != nil {
		return nil, err
	}
	im.Runs = runs
	n, finite := engine.CountAffected(runs)
	im.TotalSessions, im.Unbounded = n, !finite
	if ask.Calendars {
		calendars(im, before.Timetable, after.Timetable, runs, today)
	}
	if len(runs) == 0 {
		return im, nil
	}
	if !loaded {
		var classTimes, oneOffs []int64
		first := today
		for _, r := range runs {
			if r.OneOff != 0 {
				oneOffs = append(oneOffs, r.OneOff)
			} else {
				classTimes = append(classTimes, r.Place.ClassTime)
				first = min(first, r.Dates.First)
			}
		}
		classTimes = compactSorted(classTimes)
		if rows, err = futureBookings(ctx, e.Tx, e.Business.ID, classTimes, oneOffs, first); err != nil {
			return nil, err
		}
		e.bookingsRead = &bookingsRead{rows: rows, from: first, classTimes: classTimes}
	}
	affects := engine.IndexAffected(runs)
	var bookings []SessionBooking // rows stays as read, for the write's events
	for _, b := range rows {
		if affects.Holds(b.Ref(), b.OneOffID) {
			bookings = append(bookings, b)
		}
	}
	clients := map[int64]bool{}
	for _, b := range bookings {
		clients[b.ClientID] = true
	}
	for _, r := range engine.StandingAffected(before.Timetable, runs) {
		clients[r.ClientID] = true
	}
	im.TotalClients = len(clients)
	if !ask.Sessions {
		return im, nil
	}
	im.Sessions = listSessions(before.Timetable, after.Timetable, runs, bookings)
	return im, nil
}

// listSessions lists the first MaxImpactSessions sessions of runs with who
// is on them before the write: the bookings are the single bookings on the
// sessions of runs.
func listSessions(before, after *engine.Timetable, runs []engine.AffectedRun, bookings []SessionBooking) ImpactSessions {
	type key struct {
		ref    engine.SessionRef
		oneOff int64
	}
	byKey := map[key][]SessionBooking{}
	for _, b := range bookings {
		k := key{b.Ref(), b.OneOffID}
		if b.OneOffID != 0 {
			k.ref = engine.SessionRef{}
		}
		byKey[k] = append(byKey[k], b)
	}
	l := engine.ListAffected(before, after, runs, MaxImpactSessions)
	ss := ImpactSessions{list: l}
	if len(byKey) > 0 {
		for i := range l.Len() {
			ref, oneOff := l.Ref(i)
			bs := byKey[key{ref, oneOff}]
			if len(bs) == 0 {
				continue
			}
			p := ss.people(i)
			for _, b := range bs {
				if b.Status == Waitlisted {
					p.Waitlist = append(p.Waitlist, b)
				} else {
					p.Bookings = append(p.Bookings, b)
				}
			}
			slices.SortFunc(p.Waitlist, func(x, y SessionBooking) int { return x.Position - y.Position })
		}
	}
	l.Standing(func(i int, on []engine.Standing) { ss.people(i).Standing = on })
	// The standing places are split, and all the places counted against
	// the places after, once the single bookings are known; a session no
	// one is on has none to split or count.
	for j := range ss.on {
		p, a := &ss.on[j], l.At(int(ss.onSlot[j]))
		if a.Before.OneOffID == 0 {
			p.Standing, p.StandingWaitlist = engine.SplitPlaces(p.Standing, int(a.Before.Capacity), len(p.Bookings))
		}
		p.OverCapacity = a.Is && a.After.Capacity > 0 && len(p.Bookings)+len(p.Standing) > int(a.After.Capacity)
	}
	return ss
}

// calendars notes the calendars whose events a write changes: those of
// the rooms and staff of the sessions it affects, before and after, and
// of the sessions it adds or brings back (the impact the other way).
func calendars(im *Impact, before, after *engine.Timetable, runs []engine.AffectedRun, today engine.Date) {
	staff, rooms := map[int64]bool{}, map[int64]bool{}
	note := func(s *engine.Session) {
		rooms[s.RoomID] = true
		for _, id := range s.StaffIDs {
			staff[id] = true
		}
	}
	for _, set := range []struct {
		a, b *engine.Timetable
		runs []engine.AffectedRun
	}{{before, after, runs}, {after, before, nil}} {
		if set.runs == nil {
			set.runs = engine.Impact(set.a, set.b, nil, today, 0)
		}
		for i := range set.runs {
			for _, s := range engine.FirstAffected(set.a, set.b, set.runs[i:i+1], 1) {
				if s.What&engine.ImpactMask == 0 {
					continue // fewer places: the events stay as they are
				}
				im.Business = true
				if s.Was {
					note(&s.Before)
				}
				if s.Is {
					note(&s.After)
				}
			}
		}
	}
	for id := range staff {
		im.Staff = append(im.Staff, id)
	}
	for id := range rooms {
		im.Rooms = append(im.Rooms, id)
	}
	slices.Sort(im.Staff)
	slices.Sort(im.Rooms)
}

// bookingsRead is what a write's impact read of the bookings (holding a
// place or waiting): every series session's from from on and every
// one-off's (all), or those of the series sessions of classTimes from
// from on and of some one-offs. The write's events find who is booked on
// the sessions they name there, rather than read again, when it holds
// them all (bookedClients).
type bookingsRead struct {
	rows       []SessionBooking
	all        bool
	from       engine.Date
	classTimes []int64 // sorted
}

// holds reports whether the read holds every booking of the series
// session ref.
func (r *bookingsRead) holds(ref engine.SessionRef) bool {
	if ref.Date < r.from {
		return false
	}
	if r.all {
		return true
	}
	_, found := slices.BinarySearch(r.classTimes, ref.ClassTimeID)
	return found
}

// futureBookings reads the single bookings holding a place or waiting,
// of original date from from on: of the class times and one-offs given,
// or of every session when both are nil.
func futureBookings(ctx context.Context, tx bun.IDB, business int64, classTimes, oneOffs []int64, from engine.Date) ([]SessionBooking, error) {
	var rows []SessionBooking
	q := tx.NewSelect().Model(&rows).Column("id", "client_id", "orig_date", "class_time_id", "class_id", "one_off_id", "status", "position").
		Where("business_id = ?", business).Where("status IN (?)", bun.In(append(slices.Clone(holdsPlace), Waitlisted)))
	if classTimes == nil && oneOffs == nil {
		q = q.WhereGroup(" AND ", func(q *bun.SelectQuery) *bun.SelectQuery {
			return q.Where("orig_date >= ?", Day(from)).WhereOr("one_off_id IS NOT NULL")
		})
	} else {
		q = q.WhereGroup(" AND ", func(q *bun.SelectQuery) *bun.SelectQuery {
			q = q.Where("1 = 0")
			if len(classTimes) > 0 {
				q = q.WhereOr("class_time_id IN (?) AND orig_date >= ?", bun.In(classTimes), Day(from))
			}
			if len(oneOffs) > 0 {
				q = q.WhereOr("one_off_id IN (?)", bun.In(oneOffs))
			}
			return q
		})
	}
	if err := q.OrderExpr("id").Scan(ctx); err != nil {
		return nil, fmt.Errorf("reading the bookings a write affects: %w", err)
	}
	return rows, nil
}

// countHeld counts the places the bookings hold, by session.
func countHeld(rows []SessionBooking) engine.Booked {
	out := engine.Booked{Series: map[engine.Place]map[engine.Date]int{}, OneOffs: map[int64]int{}}
	for _, b := range rows {
		switch {
		case b.Status == Waitlisted:
		case b.OneOffID != 0:
			out.OneOffs[b.OneOffID]++
		default:
			p := engine.Place{ClassTime: b.ClassTimeID, Class: b.ClassID}
			if out.Series[p] == nil {
				out.Series[p] = map[engine.Date]int{}
			}
			out.Series[p][engine.Date(b.OrigDate)]++
		}
	}
	return out
}

func compactSorted(ids []int64) []int64 {
	slices.Sort(ids)
	return slices.Compact(ids)
}
