package models

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/uptrace/bun"

	"github.com/koredyne/schedule/engine"
	"github.com/koredyne/schedule/models/webhook"
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
	var rows []singleCount
	if err := e.singlesQuery(ct, class, from).Scan(ctx, &rows); err != nil {
		return nil, fmt.Errorf("counting single bookings: %w", err)
	}
	return singlesOf(rows), nil
}

// singleCount is a row of singlesQuery.
type singleCount struct {
	OrigDate    Day
	ClassTimeID int64
	ClassID     int64
	N           int
}

// singlesQuery is the query of singles, for a batch of reads (txReads).
func (e *Edit) singlesQuery(ct, class int64, from engine.Date) *bun.SelectQuery {
	q := e.Tx.NewSelect().Model((*SessionBooking)(nil)).Column("orig_date", "class_time_id", "class_id").ColumnExpr("count(*) AS n").
		Where("business_id = ?", e.Business.ID).Where("status IN (?)", bun.In(holdsPlace)).
		Where("class_time_id IS NOT NULL").Where("orig_date >= ?", Day(from)).
		GroupExpr("orig_date, class_time_id, class_id")
	if ct != 0 {
		q = q.Where("class_time_id = ?", ct).Where("class_id = ?", class)
	}
	return q
}

func singlesOf(rows []singleCount) map[groupRef]map[engine.Date]int {
	out := map[groupRef]map[engine.Date]int{}
	for _, r := range rows {
		k := groupRef{r.ClassTimeID, r.ClassID}
		if out[k] == nil {
			out[k] = map[engine.Date]int{}
		}
		out[k][engine.Date(r.OrigDate)] = r.N
	}
	return out
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
	tt := e.Before.Timetable
	ct, ok := tt.ClassTime(in.ClassTimeID)
	first := max(in.From, e.Today)
	g := groupRef{in.ClassTimeID, in.ClassID}
	// What the checks below read from the database is read at once, in
	// one round trip on PostgreSQL: the client, their memberships, and
	// the single bookings of the session.
	rd := e.reads()
	var clients []Client
	if _, known := e.clients[in.ClientID]; !known {
		rd.add(e.Tx.NewSelect().Model((*Client)(nil)).Where("business_id = ?", e.Business.ID).Where("id = ?", in.ClientID), &clients)
	}
	var all []Subscription
	rd.add(e.clientSubsQuery(in.ClientID), &all)
	var singles []singleCount
	if ok && ct.Capacity > 0 {
		rd.add(e.singlesQuery(g.classTime, g.class, first), &singles)
	}
	var planned []planBooking // see planMonths
	if plans := e.perMonthPlans(); len(plans) > 0 {
		rd.add(e.planBookingsQuery(in.ClientID, plans, first), &planned)
	}
	if err := rd.run(ctx); err != nil {
		return nil, fmt.Errorf("reading the client, memberships and bookings: %w", err)
	}
	for i := range clients {
		e.know(clients[i].Engine())
	}
	c, known := e.clients[in.ClientID]
	if !known {
		return nil, e.noClient(in.ClientID)
	}
	if !ok {
		return nil, engine.Errorf(engine.NotFound, "sessionId", "There is no class time with id %d", in.ClassTimeID)
	}
	if in.Until != 0 && in.Until < in.From {
		return nil, engine.Errorf(engine.Invalid, "until", "A standing booking cannot end (%s) before it starts (%s)", in.Until, in.From)
	}
	var was engine.Standing
	if id != 0 {
		var err error
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
	if err := e.member(c, in, first, all); err != nil {
		return nil, err
	}
	rule := engine.Standing{ID: id, ClientID: in.ClientID, ClassTimeID: in.ClassTimeID, ClassID: in.ClassID, From: in.From, Until: in.Until}
	i := -1
	if id == 0 {
		rule.ID = e.NewID()
	} else if i = slices.IndexFunc(e.State.Standing, func(r engine.Standing) bool { return r.ID == id }); i < 0 {
		return nil, engine.Errorf(engine.NotFound, "id", "There is no standing booking with id %d", id)
	}
	var full []engine.DateRun
	if ct.Capacity > 0 {
		others := loadOf(&e.State, g, singlesOf(singles)[g], func(r *engine.Standing) bool { return r.ID != id })
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
		i = len(e.State.Standing) - 1
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
	// The place holds while a membership does, and counts on its plan
	// month by month.
	e.fitStanding(in.ClientID, rule.ID, all)
	j := slices.IndexFunc(e.State.Standing, func(r engine.Standing) bool { return r.ID == rule.ID })
	if j < 0 {
		w := e.words()
		return nil, engine.Errorf(engine.Invalid, "clientId", "%s has no membership of %s with this %s from %s", c.Name, w.Series.A(), w.Class.One, first)
	}
	rule = e.State.Standing[j]
	if err := e.planMonths(c, rule, tt, all, planned); err != nil {
		return nil, err
	}
	typ := webhook.StandingCreated
	if id != 0 {
		typ = webhook.StandingUpdated
	}
	e.noteStanding(typ, rule, nil)
	return &StandingResult{Standing: rule, Waiting: full}, nil
}

// member checks that the client has a membership (of all, the client's)
// of a series that holds the session on the standing place's first date.
func (e *Edit) member(c engine.Client, in StandingInput, on engine.Date, all []Subscription) error {
	series := e.seriesOf(in.ClassTimeID, in.ClassID)
	if len(series) == 0 {
		return engine.Errorf(engine.Invalid, "sessionId", "A standing booking is for a session of a series, not a one-off")
	}
	for _, s := range all {
		if slices.Contains(series, s.SeriesID) && engine.Date(s.StartDate) <= on && (s.EndDate == 0 || engine.Date(s.EndDate) >= on) {
			return nil
		}
	}
	w := e.words()
	return engine.Errorf(engine.Invalid, "clientId", "%s has no membership of %s with this %s on %s", c.Name, w.Series.A(), w.Class.One, on)
}

// seriesOf lists the series that hold the sessions of a class time and
// class.
func (e *Edit) seriesOf(ct, class int64) []int64 {
	var series []int64
	for _, en := range e.State.Entries {
		if en.ClassTimeID == ct && en.ClassID == class && !slices.Contains(series, en.SeriesID) {
			series = append(series, en.SeriesID)
		}
	}
	return series
}

// clientSubs reads a client's memberships, in the order they were made.
func (e *Edit) clientSubs(ctx context.Context, client int64) ([]Subscription, error) {
	var all []Subscription
	err := e.clientSubsQuery(client).Scan(ctx, &all)
	return all, err
}

func (e *Edit) clientSubsQuery(client int64) *bun.SelectQuery {
	return e.Tx.NewSelect().Model((*Subscription)(nil)).Where("business_id = ?", e.Business.ID).Where("client_id = ?", client).OrderExpr("id")
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
		e.noteStanding(webhook.StandingEnded, r, map[string]any{"removed": true})
		return r, nil
	}
	r.Until = from - 1
	e.State.Standing[i] = r
	e.State.StandingSkips = slices.DeleteFunc(e.State.StandingSkips, func(k engine.StandingSkip) bool {
		return k.StandingID == id && !r.Covers(k.Date)
	})
	e.noteStanding(webhook.StandingEnded, r, map[string]any{"removed": false})
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
	e.noteStanding(webhook.StandingSkipped, r, map[string]any{"date": d.String(), "late": k.Late,
		"session": map[string]any{"id": s.Key(), "date": s.Date.String(), "start": s.Start.String(), "end": s.End.String()}})
	return k, nil
}

// SwapStanding trades one date of a standing place for a single booking in
// another session of the same week that a series holding the place holds
// (the same package), in one write: the date is skipped, as SkipStanding
// does (late within LateCancelWindow of its start), and the other session
// booked, counted on the plan and refused when full as any booking is.
func (e *Edit) SwapStanding(ctx context.Context, id int64, d engine.Date, to engine.Session, now time.Time) (*SessionBooking, error) {
	r, err := e.Standing(id)
	if err != nil {
		return nil, err
	}
	w := e.words()
	ws := e.State.Business.WeekStart
	switch {
	case to.IsOneOff() || !slices.ContainsFunc(to.Series, func(sw engine.SeriesWeek) bool {
		return slices.Contains(e.seriesOf(r.ClassTimeID, r.ClassID), sw.SeriesID)
	}):
		return nil, engine.Errorf(engine.Invalid, "sessionId", "The %s to swap to is not in the same %s as the standing booking", w.Class.One, w.Series.One)
	case to.ClassTimeID == r.ClassTimeID && to.ClassID == r.ClassID:
		return nil, engine.Errorf(engine.Invalid, "sessionId", "The %s to swap to is the standing booking's own", w.Class.One)
	case to.Date.WeekStart(ws) != d.WeekStart(ws):
		return nil, engine.Errorf(engine.Invalid, "sessionId", "The %s to swap to is not in the week of %s", w.Class.One, d)
	}
	if _, err := e.SkipStanding(id, d, now); err != nil {
		return nil, err
	}
	return e.BookSession(ctx, to, r.ClientID, false, now)
}

// proveStanding refuses a write after which single bookings and the
// standing places that hold every date would overfill a session on some
// date from today on where they did not before: a capacity cut, a class
// time edit, a change of the rotation.
func proveStanding(ctx context.Context, e *Edit, before, after *Snapshot) error {
	if !slices.ContainsFunc(after.State.Standing, func(r engine.Standing) bool { return !r.Waitlist }) {
		return nil
	}
	all, sessions, touched := engine.PlacesTouched(before.State, after.State)
	if !sessions {
		// Only standing places changed: a place made or changed was
		// proved as it was made (SaveStanding, against every place);
		// an end, a skip or a membership's end only frees places.
		return nil
	}
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

// FitStanding ends the client's standing places where their memberships
// end: a place holds only while a membership of a series holding its
// session does (from today on; the dates that passed stay as they were).
// A place no membership covers from today, and that has not started, goes.
func (e *Edit) FitStanding(ctx context.Context, client int64) error {
	all, err := e.clientSubs(ctx, client)
	if err != nil {
		return err
	}
	e.fitStanding(client, 0, all)
	return nil
}

// fitStanding is FitStanding, or with only the place being made, fitted
// without an event of its own (the event of its making says its dates):
// all are the client's memberships.
func (e *Edit) fitStanding(client, only int64, all []Subscription) {
	var seriesOf map[engine.Place][]int64
	quiet := only
	for i := 0; i < len(e.State.Standing); i++ {
		r := e.State.Standing[i]
		if r.ClientID != client || (r.Until != 0 && r.Until < e.Today) || (only != 0 && r.ID != only) {
			continue
		}
		if seriesOf == nil {
			// The series of the client's places only: a business of
			// thousands of class times has tens of thousands of
			// entries, and a client a few places.
			seriesOf = map[engine.Place][]int64{}
			for _, x := range e.State.Standing {
				if x.ClientID == client && (only == 0 || x.ID == only) {
					seriesOf[engine.Place{ClassTime: x.ClassTimeID, Class: x.ClassID}] = nil
				}
			}
			for _, en := range e.State.Entries {
				k := engine.Place{ClassTime: en.ClassTimeID, Class: en.ClassID}
				if l, ok := seriesOf[k]; ok && !slices.Contains(l, en.SeriesID) {
					seriesOf[k] = append(l, en.SeriesID)
				}
			}
		}
		series := seriesOf[engine.Place{ClassTime: r.ClassTimeID, Class: r.ClassID}]
		var subs []Subscription
		for _, s := range all {
			if slices.Contains(series, s.SeriesID) {
				subs = append(subs, s)
			}
		}
		// The last date of the membership run that covers the place from
		// its first date still to come.
		d, covered := max(r.From, e.Today), false
		for changed := true; changed; {
			changed = false
			for _, s := range subs {
				start, end := engine.Date(s.StartDate), engine.Date(s.EndDate)
				if start <= d && (end == 0 || end >= d) {
					covered = true
					if end == 0 {
						d = engine.MaxDate
						break
					}
					if end+1 > d {
						d, changed = end+1, true
					}
				}
			}
		}
		if d == engine.MaxDate {
			continue // a membership with no end
		}
		last := d - 1
		if !covered {
			last = max(r.From, e.Today) - 1
		}
		if r.Until != 0 && r.Until <= last {
			continue
		}
		if last < r.From {
			e.State.Standing = slices.Delete(e.State.Standing, i, i+1)
			e.State.StandingSkips = slices.DeleteFunc(e.State.StandingSkips, func(k engine.StandingSkip) bool { return k.StandingID == r.ID })
			i--
			r.Until = r.From - 1
			if r.ID != quiet {
				e.noteStanding(webhook.StandingEnded, r, map[string]any{"removed": true})
			}
			continue
		}
		r.Until = last
		e.State.Standing[i] = r
		if r.ID != quiet {
			e.noteStanding(webhook.StandingEnded, r, map[string]any{"removed": false})
		}
		e.State.StandingSkips = slices.DeleteFunc(e.State.StandingSkips, func(k engine.StandingSkip) bool {
			return k.StandingID == r.ID && !r.Covers(k.Date)
		})
	}
}

// standingInMonth counts the dates of month [from, to) on which the
// standing places of a client in the sessions of a series hold or wait for
// a place: sessions that happen and are not cancelled, dates not given up
// (a late skip counts, as a late cancellation does).
func standingInMonth(tt *engine.Timetable, s *engine.State, client, series int64, from, to engine.Date) int {
	inSeries := map[engine.Place]bool{}
	for _, en := range s.Entries {
		if en.SeriesID == series {
			inSeries[engine.Place{ClassTime: en.ClassTimeID, Class: en.ClassID}] = true
		}
	}
	late := map[engine.StandingDate]bool{}
	for _, k := range s.StandingSkips {
		late[engine.StandingDate{StandingID: k.StandingID, Date: k.Date}] = k.Late
	}
	n := 0
	for _, r := range s.Standing {
		if r.ClientID != client || !inSeries[engine.Place{ClassTime: r.ClassTimeID, Class: r.ClassID}] {
			continue
		}
		ct, ok := tt.ClassTime(r.ClassTimeID)
		if !ok {
			continue
		}
		first := max(from, r.From)
		first += engine.Date((int(ct.Weekday) - int(first.Weekday()) + 7) % 7)
		for d := first; d < to && r.Covers(d); d += 7 {
			if l, skipped := late[engine.StandingDate{StandingID: r.ID, Date: d}]; skipped && !l {
				continue
			}
			if x, ok := tt.Session(engine.SessionRef{Date: d, ClassTimeID: r.ClassTimeID, ClassID: r.ClassID}); ok && !x.Cancelled {
				n++
			}
		}
	}
	return n
}

// planBooking is a single booking that counts on a plan: its membership
// and date.
type planBooking struct {
	SubscriptionID int64
	SessionDate    Day
}

// perMonthPlans lists the plans that give a number of sessions a month.
func (e *Edit) perMonthPlans() []int64 {
	var ids []int64
	for _, p := range e.State.Plans {
		if p.PerMonth > 0 {
			ids = append(ids, p.ID)
		}
	}
	return ids
}

// planBookingsQuery reads the single bookings that count on a client's
// memberships through plans (of plans) from the month of from on: what
// planMonths counts, read with the other reads of a standing place rather
// than a month at a time.
func (e *Edit) planBookingsQuery(client int64, plans []int64, from engine.Date) *bun.SelectQuery {
	y, m, _ := from.Civil()
	subs := e.Tx.NewSelect().Model((*Subscription)(nil)).Column("id").
		Where("business_id = ?", e.Business.ID).Where("client_id = ?", client).Where("plan_id IN (?)", bun.In(plans))
	return e.Tx.NewSelect().Model((*SessionBooking)(nil)).Column("subscription_id", "session_date").
		Where("business_id = ?", e.Business.ID).Where("subscription_id IN (?)", subs).
		Where("status IN (?)", bun.In(countsOnPlan)).Where("session_date >= ?", Day(engine.MustDate(y, m, 1)))
}

// planMonths refuses a standing place that, with the client's other
// standing places and single bookings on the same membership, would use
// more of a plan's sessions in some month than it gives (PLAN_LIMIT, with
// the month). A membership through a plan ends, so its months are few.
// planned are the single bookings on the client's memberships through
// plans (planBookingsQuery from the place's first date).
func (e *Edit) planMonths(c engine.Client, r engine.Standing, tt *engine.Timetable, all []Subscription, planned []planBooking) error {
	series := e.seriesOf(r.ClassTimeID, r.ClassID)
	w := e.words()
	for _, sub := range all {
		if !slices.Contains(series, sub.SeriesID) {
			continue
		}
		var plan *engine.Plan
		for i := range e.State.Plans {
			if e.State.Plans[i].ID == sub.PlanID {
				plan = &e.State.Plans[i]
			}
		}
		start, end := max(engine.Date(sub.StartDate), r.From, e.Today), engine.Date(sub.EndDate)
		if r.Until != 0 && (end == 0 || r.Until < end) {
			end = r.Until
		}
		if plan == nil || plan.PerMonth == 0 || end == 0 || end < start {
			continue
		}
		y, m, _ := start.Civil()
		for month := engine.MustDate(y, m, 1); month <= end; month = month.AddMonths(1) {
			next := month.AddMonths(1)
			used := 0
			for _, b := range planned {
				if b.SubscriptionID == sub.ID && b.SessionDate >= Day(month) && b.SessionDate < Day(next) {
					used++
				}
			}
			n := used + standingInMonth(tt, &e.State, c.ID, sub.SeriesID, month, next)
			if n > plan.PerMonth {
				y, m, _ := month.Civil()
				err := engine.Errorf(engine.OverPlan, "clientId", "%s would have %s in %d-%02d on the plan %q, which gives %d a month",
					c.Name, w.Class.N(n), y, m, plan.Label(w, e.State.Business.Currency), plan.PerMonth)
				err.Details = map[string]any{"used": n, "limit": plan.PerMonth, "month": fmt.Sprintf("%d-%02d", y, m)}
				return err
			}
		}
	}
	return nil
}

// noteStanding records an event about a standing place once the write has
// saved it, with its real id (a dry run's provisional one).
func (e *Edit) noteStanding(typ string, r engine.Standing, extra map[string]any) {
	e.AfterSave(func(_ context.Context, id func(int64) int64) error {
		place := map[string]any{"id": strconv.FormatInt(id(r.ID), 10), "from": r.From.String(), "until": nil, "waitlist": r.Waitlist,
			"session": map[string]any{"classTimeId": strconv.FormatInt(id(r.ClassTimeID), 10), "classId": strconv.FormatInt(id(r.ClassID), 10)}}
		if r.Until != 0 {
			place["until"] = r.Until.String()
		}
		data := map[string]any{"standingBooking": place}
		for k, v := range extra {
			data[k] = v
		}
		e.note(typ, data, nil, r.ClientID)
		return nil
	})
}
