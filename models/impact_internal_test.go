package models

import (
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/koredyne/schedule/engine"
	"github.com/koredyne/schedule/engine/demo"
	"github.com/koredyne/schedule/engine/enginetest"
)

// listSessionsOneByOne is listSessions the long way, its oracle: every
// session resolved (engine.FirstAffected), and its bookings, standing
// places and split looked up on their own.
func listSessionsOneByOne(before, after *engine.Timetable, runs []engine.AffectedRun, bookings []SessionBooking) []ImpactSession {
	first := engine.FirstAffected(before, after, runs, MaxImpactSessions)
	out := make([]ImpactSession, len(first))
	for i := range first {
		s := &out[i]
		s.AffectedSession = first[i]
		a := &s.AffectedSession
		for _, b := range bookings {
			on := b.OneOffID == a.Before.OneOffID
			if b.OneOffID == 0 {
				on = a.Before.OneOffID == 0 && (engine.SessionRef{Date: engine.Date(b.OrigDate), ClassTimeID: b.ClassTimeID, ClassID: b.ClassID}) == a.Ref
			}
			switch {
			case !on:
			case b.Status == Waitlisted:
				s.Waitlist = append(s.Waitlist, b)
			default:
				s.Bookings = append(s.Bookings, b)
			}
		}
		slices.SortFunc(s.Waitlist, func(x, y SessionBooking) int { return x.Position - y.Position })
		if a.Before.OneOffID == 0 {
			s.Standing, s.StandingWaitlist = engine.SplitPlaces(before.StandingOn(a.Ref), int(a.Before.Capacity), len(s.Bookings))
		}
		s.OverCapacity = a.Is && a.After.Capacity > 0 && len(s.Bookings)+len(s.Standing) > int(a.After.Capacity)
	}
	return out
}

// TestListSessionsAgainstOracle compares the sessions a write's impact
// lists (listSessions: the engine's list, and who is on the sessions
// anyone is on) with the sessions resolved and their people looked up one
// by one, on random businesses with standing places (some waiting, some
// ended, some with skipped dates), single bookings holding places and
// waiting, and random writes, places cut among them.
func TestListSessionsAgainstOracle(t *testing.T) {
	r := rand.New(rand.NewPCG(32, 500))
	today := engine.MustDate(2026, 12, 1)
	listed, people, over := 0, 0, 0
	for round := range 60 {
		var s engine.State
		if round%3 == 0 {
			s = demo.Gym(today)
		} else {
			s = enginetest.Business(enginetest.Options{ClassTimes: 20 + r.IntN(60), Seed: uint64(round), Today: today})
		}
		for i := range s.ClassTimes {
			s.ClassTimes[i].Capacity = 1 + r.IntN(6)
		}
		s.Clients = append(s.Clients, engine.Client{ID: 9001, Name: "Standing"})
		var bookings []SessionBooking
		for _, e := range s.Entries {
			ct := s.ClassTimes[slices.IndexFunc(s.ClassTimes, func(c engine.ClassTime) bool { return c.ID == e.ClassTimeID })]
			day := func(within int) engine.Date {
				d := today + engine.Date(r.IntN(within))
				return d + engine.Date((int(ct.Weekday)-int(d.Weekday())+7)%7)
			}
			for range r.IntN(3) {
				rule := engine.Standing{ID: int64(len(s.Standing) + 1), ClientID: 9001, ClassTimeID: e.ClassTimeID, ClassID: e.ClassID,
					From: today - 30 + engine.Date(r.IntN(60)), Waitlist: r.IntN(3) == 0}
				if r.IntN(2) == 0 {
					rule.Until = rule.From + engine.Date(r.IntN(200))
				}
				s.Standing = append(s.Standing, rule)
				if d := day(120); r.IntN(2) == 0 && rule.Covers(d) {
					s.StandingSkips = append(s.StandingSkips, engine.StandingSkip{ID: int64(len(s.StandingSkips) + 1), StandingID: rule.ID, Date: d})
				}
			}
			for range r.IntN(6) {
				b := SessionBooking{ID: int64(len(bookings) + 1), ClientID: int64(1 + r.IntN(5)), OrigDate: Day(day(21)), ClassTimeID: e.ClassTimeID, ClassID: e.ClassID, Status: Booked}
				if r.IntN(3) == 0 {
					b.Status, b.Position = Waitlisted, 1+r.IntN(9)
				}
				bookings = append(bookings, b)
			}
		}
		for _, o := range s.OneOffs {
			if r.IntN(2) == 0 {
				bookings = append(bookings, SessionBooking{ID: int64(len(bookings) + 1), ClientID: 1, OrigDate: Day(o.Date), OneOffID: o.ID, Status: Booked})
			}
		}
		before, err := engine.New(s)
		if err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		after := s.Clone()
		for n := 1 + r.IntN(3); n > 0; {
			edited := after.Clone()
			if r.IntN(3) == 0 {
				edited.ClassTimes[r.IntN(len(edited.ClassTimes))].Capacity = r.IntN(3)
			} else {
				enginetest.RandomEdit(r, &edited, today)
			}
			if engine.Validate(edited) == nil {
				after, n = edited, n-1
			}
		}
		ta, err := engine.New(after)
		if err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		runs := engine.Impact(before, ta, func() engine.Booked { return countHeld(bookings) }, today, 0)
		affects := engine.IndexAffected(runs)
		on := slices.DeleteFunc(slices.Clone(bookings), func(b SessionBooking) bool {
			return !affects.Holds(engine.SessionRef{Date: engine.Date(b.OrigDate), ClassTimeID: b.ClassTimeID, ClassID: b.ClassID}, b.OneOffID)
		})
		got, want := listSessions(before, ta, runs, on), listSessionsOneByOne(before, ta, runs, on)
		if got.Len() != len(want) {
			t.Fatalf("round %d: %d sessions, oracle %d", round, got.Len(), len(want))
		}
		for i := range want {
			if g := got.At(i); !reflect.DeepEqual(g, want[i]) {
				t.Fatalf("round %d, session %d:\ngot    %+v\noracle %+v", round, i, g, want[i])
			}
			if w := &want[i]; len(w.Bookings)+len(w.Waitlist)+len(w.Standing)+len(w.StandingWaitlist) > 0 {
				people++
			}
			if want[i].OverCapacity {
				over++
			}
		}
		listed += len(want)
	}
	if people == 0 || over == 0 {
		t.Fatalf("%d sessions listed, %d with people on them, %d over capacity: the test compares too little", listed, people, over)
	}
	t.Logf("%d sessions listed, %d with people on them, %d over capacity", listed, people, over)
}
