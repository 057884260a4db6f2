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
	Sessions []ImpactSession
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

// ImpactSession is one affected session, before and after, with who is on it
// before the write.
type ImpactSession struct {
	engine.AffectedSession
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

// impactOf is the impact of a write from before to after, from today on.
func impactOf(ctx context.Context, e *Edit, before, after *Snapshot, today engine.Date) (*Impact, error) {
	im := &Impact{}
	var err error
	booked := func() engine.Booked {
		var b engine.Booked
		if err != nil {
			return b
		}
		b, err = bookedCounts(ctx, e.Tx, e.Business.ID, today)
		return b
	}
	runs := engine.Impact(before.Timetable, after.Timetable, booked, today, 0)
	if err != nil {
		return nil, err
	}
	im.Runs = runs
	n, finite := engine.CountAffected(runs)
	im.TotalSessions, im.Unbounded = n, !finite
	if err := calendars(im, before.Timetable, after.Timetable, runs, today); err != nil {
		return nil, err
	}
	if len(runs) == 0 {
		return im, nil
	}
	first := engine.FirstAffected(before.Timetable, after.Timetable, runs, MaxImpactSessions)
	bookings, err := impactBookings(ctx, e.Tx, e.Business.ID, runs, today)
	if err != nil {
		return nil, err
	}
	clients := map[int64]bool{}
	for _, b := range bookings {
		clients[b.ClientID] = true
	}
	for _, r := range engine.StandingAffected(before.Timetable, runs) {
		clients[r.ClientID] = true
	}
	im.TotalClients = len(clients)
	byKey := map[string][]SessionBooking{}
	for _, b := range bookings {
		byKey[b.Key()] = append(byKey[b.Key()], b)
	}
	for _, a := range first {
		s := ImpactSession{AffectedSession: a}
		for _, b := range byKey[a.Key()] {
			if b.Status == Waitlisted {
				s.Waitlist = append(s.Waitlist, b)
			} else {
				s.Bookings = append(s.Bookings, b)
			}
		}
		slices.SortFunc(s.Waitlist, func(x, y SessionBooking) int { return x.Position - y.Position })
		if a.Before.OneOffID == 0 {
			s.Standing, s.StandingWaitlist = engine.SplitPlaces(before.Timetable.StandingOn(a.Ref), int(a.Before.Capacity), len(s.Bookings))
		}
		s.OverCapacity = a.Is && a.After.Capacity > 0 && len(s.Bookings)+len(s.Standing) > int(a.After.Capacity)
		im.Sessions = append(im.Sessions, s)
	}
	return im, nil
}

// calendars notes the calendars whose events a write changes: those of
// the rooms and staff of the sessions it affects, before and after, and
// of the sessions it adds or brings back (the impact the other way).
func calendars(im *Impact, before, after *engine.Timetable, runs []engine.AffectedRun, today engine.Date) error {
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
	return nil
}

// bookedCounts counts the single bookings holding a place in every
// session from today on, for engine.Impact.
func bookedCounts(ctx context.Context, tx bun.IDB, business int64, today engine.Date) (engine.Booked, error) {
	var rows []struct {
		OrigDate    Day
		ClassTimeID int64
		ClassID     int64
		OneOffID    int64
		N           int
	}
	// From a week back: a session moved on from the week before.
	err := tx.NewSelect().Model((*SessionBooking)(nil)).Column("orig_date", "class_time_id", "class_id", "one_off_id").ColumnExpr("count(*) AS n").
		Where("business_id = ?", business).Where("status IN (?)", bun.In(holdsPlace)).Where("orig_date >= ?", Day(today-7)).
		GroupExpr("orig_date, class_time_id, class_id, one_off_id").Scan(ctx, &rows)
	if err != nil {
		return engine.Booked{}, fmt.Errorf("counting single bookings: %w", err)
	}
	out := engine.Booked{Series: map[engine.Place]map[engine.Date]int{}, OneOffs: map[int64]int{}}
	for _, r := range rows {
		if r.OneOffID != 0 {
			out.OneOffs[r.OneOffID] += r.N
			continue
		}
		p := engine.Place{ClassTime: r.ClassTimeID, Class: r.ClassID}
		if out.Series[p] == nil {
			out.Series[p] = map[engine.Date]int{}
		}
		out.Series[p][engine.Date(r.OrigDate)] = r.N
	}
	return out, nil
}

// impactBookings reads the single bookings (holding a place or waiting)
// of the sessions runs hold.
func impactBookings(ctx context.Context, tx bun.IDB, business int64, runs []engine.AffectedRun, today engine.Date) ([]SessionBooking, error) {
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
	var rows []SessionBooking
	q := tx.NewSelect().Model(&rows).Where("business_id = ?", business).
		Where("status IN (?)", bun.In(append(slices.Clone(holdsPlace), Waitlisted))).
		WhereGroup(" AND ", func(q *bun.SelectQuery) *bun.SelectQuery {
			q = q.Where("1 = 0")
			if len(classTimes) > 0 {
				q = q.WhereOr("class_time_id IN (?) AND orig_date >= ?", bun.In(compactSorted(classTimes)), Day(first))
			}
			if len(oneOffs) > 0 {
				q = q.WhereOr("one_off_id IN (?)", bun.In(oneOffs))
			}
			return q
		}).OrderExpr("id")
	if err := q.Scan(ctx); err != nil {
		return nil, fmt.Errorf("reading the bookings a write affects: %w", err)
	}
	return slices.DeleteFunc(rows, func(b SessionBooking) bool {
		if b.OneOffID != 0 {
			return !slices.Contains(oneOffs, b.OneOffID)
		}
		return !engine.Affects(runs, engine.Place{ClassTime: b.ClassTimeID, Class: b.ClassID}, engine.Date(b.OrigDate))
	}), nil
}

func compactSorted(ids []int64) []int64 {
	slices.Sort(ids)
	return slices.Compact(ids)
}
