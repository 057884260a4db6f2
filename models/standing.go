package models

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/uptrace/bun"

	"github.com/koredyne/schedule/engine"
)

// Standing places (engine.Standing) are rules of the schedule, saved with
// it; the writes below decide them inside the guarded write, where single
// bookings are decided too, so the last place of a session is never given
// twice, by two servers or by a standing place and a single booking.

// groupRef is a series session by its class time and class, on any date.
type groupRef struct{ classTime, class int64 }

// singles counts the single bookings holding a place in the sessions of
// one class time and class (of every one, when ct is zero), by original
// date, from a date on.
func (e *Edit) singles(ctx context.Context, ct, class int64, from engine.Date) (map[groupRef]map[engine.Date]int, error) {
	var rows []struct {
		OrigDate    Day
		ClassTimeID int64
		ClassID     int64
		N           int
	}
	q := e.Tx.NewSelect().Model((*SessionBooking)(nil)).Column("orig_date", "class_time_id", "class_id").ColumnExpr("count(*) AS n").
		Where("business_id = ?", e.Business.ID).Where("status IN (?)", bun.In(holdsPlace)).
		Where("class_time_id IS NOT NULL").Where("orig_date >= ?", Day(from)).
		GroupExpr("orig_date, class_time_id, class_id")
	if ct != 0 {
		q = q.Where("class_time_id = ?", ct).Where("class_id = ?", class)
	}
	if err := q.Scan(ctx, &rows); err != nil {
		return nil, fmt.Errorf("counting single bookings: %w", err)
	}
	out := map[groupRef]map[engine.Date]int{}
	for _, r := range rows {
		k := groupRef{r.ClassTimeID, r.ClassID}
		if out[k] == nil {
			out[k] = map[engine.Date]int{}
		}
		out[k][engine.Date(r.OrigDate)] = r.N
	}
	return out, nil
}

// loadOf is what takes the places of one class time and class in s: the
// single bookings, and the standing rules keep says count.
func loadOf(s *engine.State, g groupRef, singles map[engine.Date]int, keep func(*engine.Standing) bool) engine.Load {
	l := engine.Load{Singles: singles}
	for i := range s.Standing {
		if r := &s.Standing[i]; r.ClassTimeID == g.classTime && r.ClassID == g.class && keep(r) {
			l.Rules = append(l.Rules, *r)
		}
	}
	for _, k := range s.StandingSkips {
		if slices.ContainsFunc(l.Rules, func(r engine.Standing) bool { return r.ID == k.StandingID }) {
			l.Skips = append(l.Skips, k)
		}
	}
	return l
}

func firm(r *engine.Standing) bool { return !r.Waitlist }
func every(*engine.Standing) bool  { return true }

// fullError is CAPACITY_FULL naming the dates a session would be overfull
// on: the first run's firstDate, repeatsEveryWeeks and until, and every
// run in dates.
func (e *Edit) fullError(field string, runs []engine.DateRun, capacity int) *engine.Error {
	w := e.words()
	r := runs[0]
	when := "on " + r.First.String()
	if r.Every > 0 {
		when = fmt.Sprintf("from %s every %s", r.First, engine.Word{One: "week", Many: "weeks"}.N(r.Every))
		if r.Every == 1 {
			when = fmt.Sprintf("every week from %s", r.First)
		}
		if r.Until != 0 {
			when += " until " + r.Until.String()
		}
	}
	if len(runs) > 1 {
		when += fmt.Sprintf(" (and %d more runs of dates)", len(runs)-1)
	}
	err := engine.Errorf(engine.Full, field, "This %s has no place left %s: its %d places are taken", w.Class.One, when, capacity)
	dates := make([]map[string]any, len(runs))
	for i, r := range runs {
		dates[i] = runJSON(r)
	}
	err.Details = runJSON(r)
	err.Details["capacity"] = capacity
	err.Details["dates"] = dates
	return err
}

func runJSON(r engine.DateRun) map[string]any {
	m := map[string]any{"firstDate": r.First.String()}
	if r.Every > 0 {
		m["repeatsEveryWeeks"] = r.Every
		if r.Until != 0 {
			m["until"] = r.Until.String()
		}
	}
	return m
}

// StandingInput is what a standing place is made or changed to.
type StandingInput struct {
	ClientID    int64
	ClassTimeID int64
	ClassID     int64
	From, Until engine.Date
	Waitlist    bool
}

// StandingResult is a standing place a write made or changed, with the
// dates its client waits on (those that were full).
type StandingResult struct {
	Standing engine.Standing
	Waiting  []engine.DateRun
}

// SaveStanding makes a standing place (id 0) or changes one: the client
// must be one of the business's with a membership of a series that holds
// the session on its first date; the session must be a series session.
// Capacity is proved for every date it covers: single bookings and every
// standing place (those waiting too) plus this one never exceed the
// session's places, or the write is refused with the dates that are full
// (CAPACITY_FULL), unless waitlist lets the client wait on them.
func (e *Edit) SaveStanding(ctx context.Context, id int64, in StandingInput) (*StandingResult, error) {
	c, err := e.Client(ctx, in.ClientID)
	if err != nil {
		return nil, err
	}
	tt := e.Before.Timetable
	ct, ok := tt.ClassTime(in.ClassTimeID)
	if !ok {
		return nil, engine.Errorf(engine.NotFound, "sessionId", "There is no class time with id %d", in.ClassTimeID)
	}
	if in.Until != 0 && in.Until < in.From {
		return nil, engine.Errorf(engine.Invalid, "until", "A standing booking cannot end (%s) before it starts (%s)", in.Until, in.From)
	}
	var was engine.Standing
	if id != 0 {
		if was, err = e.Standing(id); err != nil {
			return nil, err
		}
	}
	if in.From < e.Today && (id == 0 || in.From != was.From) {
		return nil, engine.Errorf(engine.Invalid, "from", "A standing booking starts today or later, not on %s", in.From)
	}
	if in.Until != 0 && in.Until < e.Today && (id == 0 || in.Until != was.Until) {
		return nil, engine.Errorf(engine.Invalid, "until", "A standing booking ends today or later, not on %s: end it with endStandingBooking", in.Until)
	}
	first := max(in.From, e.Today)
	if err := e.member(ctx, c, in, first); err != nil {
		return nil, err
	}
	rule := engine.Standing{ID: id, ClientID: in.ClientID, ClassTimeID: in.ClassTimeID, ClassID: in.ClassID, From: in.From, Until: in.Until}
	i := -1
	if id == 0 {
		rule.ID = e.NewID()
	} else if i = slices.IndexFunc(e.State.Standing, func(r engine.Standing) bool { return r.ID == id }); i < 0 {
		return nil, engine.Errorf(engine.NotFound, "id", "There is no standing booking with id %d", id)
	}
	g := groupRef{in.ClassTimeID, in.ClassID}
	var full []engine.DateRun
	if ct.Capacity > 0 {
		singles, err := e.singles(ctx, g.classTime, g.class, first)
		if err != nil {
			return nil, err
		}
		others := loadOf(&e.State, g, singles[g], func(r *engine.Standing) bool { return r.ID != id })
		// The dates on which the others leave no place for this one.
		full = tt.Overfull(g.classTime, g.class, others, ct.Capacity-1, first, rule.Until)
	}
	if len(full) > 0 {
		if !in.Waitlist {
			return nil, e.fullError("sessionId", full, ct.Capacity)
		}
		rule.Waitlist = true
	}
	if i < 0 {
		e.State.Standing = append(e.State.Standing, rule)
	} else {
		if e.State.Standing[i] == rule {
			return &StandingResult{Standing: rule}, nil
		}
		e.State.Standing[i] = rule
		// Skips the new dates no longer cover go.
		e.State.StandingSkips = slices.DeleteFunc(e.State.StandingSkips, func(k engine.StandingSkip) bool {
			return k.StandingID == id && !rule.Covers(k.Date)
		})
	}
	return &StandingResult{Standing: rule, Waiting: full}, nil
}

// member checks that the client has a membership of a series that holds
// the session on the standing place's first date.
func (e *Edit) member(ctx context.Context, c engine.Client, in StandingInput, on engine.Date) error {
	var series []int64
	for _, en := range e.State.Entries {
		if en.ClassTimeID == in.ClassTimeID && en.ClassID == in.ClassID {
			series = append(series, en.SeriesID)
		}
	}
	if len(series) == 0 {
		return engine.Errorf(engine.Invalid, "sessionId", "A standing booking is for a session of a series, not a one-off")
	}
	n, err := e.Tx.NewSelect().Model((*Subscription)(nil)).Where("business_id = ?", e.Business.ID).Where("client_id = ?", c.ID).
		Where("series_id IN (?)", bun.In(series)).Where("start_date <= ?", Day(on)).
		WhereGroup(" AND ", func(q *bun.SelectQuery) *bun.SelectQuery {
			return q.Where("end_date IS NULL").WhereOr("end_date >= ?", Day(on))
		}).Count(ctx)
	if err != nil {
		return err
	}
	if n == 0 {
		w := e.words()
		return engine.Errorf(engine.Invalid, "clientId", "%s has no membership of %s with this %s on %s", c.Name, w.Series.A(), w.Class.One, on)
	}
	return nil
}

// Standing returns one standing place of the edited business.
func (e *Edit) Standing(id int64) (engine.Standing, error) {
	i := slices.IndexFunc(e.State.Standing, func(r engine.Standing) bool { return r.ID == id })
	if i < 0 {
		return engine.Standing{}, engine.Errorf(engine.NotFound, "id", "There is no standing booking with id %d", id)
	}
	return e.State.Standing[i], nil
}

// EndStanding ends a standing place: it holds no date from from on. A
// place that has not started goes; ending it where it ends already
// changes nothing.
func (e *Edit) EndStanding(id int64, from engine.Date) (engine.Standing, error) {
	r, err := e.Standing(id)
	if err != nil {
		return r, err
	}
	if from < e.Today {
		return r, engine.Errorf(engine.Invalid, "from", "A standing booking ends today or later, not on %s: dates that passed stay as they were", from)
	}
	if r.Until != 0 && from > r.Until {
		return r, nil // ends before that already
	}
	i := slices.IndexFunc(e.State.Standing, func(x engine.Standing) bool { return x.ID == id })
	if from <= r.From {
		e.State.Standing = slices.Delete(e.State.Standing, i, i+1)
		e.State.StandingSkips = slices.DeleteFunc(e.State.StandingSkips, func(k engine.StandingSkip) bool { return k.StandingID == id })
		r.Until = r.From - 1
		return r, nil
	}
	r.Until = from - 1
	e.State.Standing[i] = r
	e.State.StandingSkips = slices.DeleteFunc(e.State.StandingSkips, func(k engine.StandingSkip) bool {
		return k.StandingID == id && !r.Covers(k.Date)
	})
	return r, nil
}

// SkipStanding gives up a standing place on one date (the session's
// original date). Within LateCancelWindow of its start it is late and
// counts on the plan as a late cancellation does. A session that has
// started cannot be skipped.
func (e *Edit) SkipStanding(id int64, d engine.Date, now time.Time) (engine.StandingSkip, error) {
	r, err := e.Standing(id)
	if err != nil {
		return engine.StandingSkip{}, err
	}
	w := e.words()
	if !r.Covers(d) {
		return engine.StandingSkip{}, engine.Errorf(engine.Invalid, "date", "The standing booking does not cover %s", d)
	}
	s, ok := e.Before.Timetable.Session(engine.SessionRef{Date: d, ClassTimeID: r.ClassTimeID, ClassID: r.ClassID})
	if !ok {
		return engine.StandingSkip{}, engine.Errorf(engine.Invalid, "date", "There is no %s on %s to skip", w.Class.One, d)
	}
	for _, k := range e.State.StandingSkips {
		if k.StandingID == id && k.Date == d {
			return k, nil // skipped already
		}
	}
	start, _ := s.Instants(e.State.Business.Location)
	if !start.After(now) {
		return engine.StandingSkip{}, engine.Errorf(engine.Invalid, "date", "This %s has already started", w.Class.One)
	}
	k := engine.StandingSkip{ID: e.NewID(), StandingID: id, Date: d, Late: now.After(start.Add(-LateCancelWindow))}
	e.State.StandingSkips = append(e.State.StandingSkips, k)
	return k, nil
}

// proveStanding refuses a write after which single bookings and the
// standing places that hold every date would overfill a session on some
// date from today on where they did not before: a capacity cut, a class
// time edit, a change of the rotation.
func proveStanding(ctx context.Context, e *Edit, before, after *Snapshot) error {
	if !slices.ContainsFunc(after.State.Standing, func(r engine.Standing) bool { return !r.Waitlist }) {
		return nil
	}
	all, touched := engine.PlacesTouched(before.State, after.State)
	var singles map[groupRef]map[engine.Date]int
	seen := map[groupRef]bool{}
	for _, r := range after.State.Standing {
		g := groupRef{r.ClassTimeID, r.ClassID}
		if r.Waitlist || seen[g] || (!all && !touched[engine.Place{ClassTime: g.classTime, Class: g.class}]) {
			continue
		}
		seen[g] = true
		ct, ok := after.Timetable.ClassTime(g.classTime)
		if !ok || ct.Capacity == 0 {
			continue
		}
		if singles == nil {
			var err error
			if singles, err = e.singles(ctx, 0, 0, e.Today); err != nil {
				return err
			}
		}
		runs := after.Timetable.Overfull(g.classTime, g.class, loadOf(&after.State, g, singles[g], firm), ct.Capacity, e.Today, 0)
		if len(runs) == 0 {
			continue
		}
		was := -1
		if old, ok := before.Timetable.ClassTime(g.classTime); ok && old.Capacity > 0 {
			was = old.Capacity
		}
		known := before.Timetable.Overfull(g.classTime, g.class, loadOf(&before.State, g, singles[g], firm), was, e.Today, 0)
		runs = slices.DeleteFunc(runs, func(r engine.DateRun) bool { return slices.Contains(known, r) })
		if len(runs) > 0 {
			return e.fullError("capacity", runs, ct.Capacity)
		}
	}
	return nil
}
