package graph

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/koredyne/schedule/engine"
	"github.com/koredyne/schedule/graph/model"
	"github.com/koredyne/schedule/models"
)

// Input mapping of the timetable: series and plans, one-offs, day changes
// (timetable.graphqls, timetable.resolvers.go).

// planPrice sets a plan's price from its decimal text.
func planPrice(dst *engine.Plan, price string) error {
	p, err := engine.ParseMoney(price)
	if err != nil {
		return badInput("price", "%v", err)
	}
	dst.Price = p
	return nil
}

// atLeastOne refuses a count of 0 or less where the engine's zero means "no
// limit": the API says that with null, so 0 cannot clear a limit by accident.
func atLeastOne(field string, n *int) error {
	if n != nil && *n < 1 {
		return badInput(field, "%s must be at least 1, not %d; null means no limit", field, *n)
	}
	return nil
}

func createPlan(dst *engine.Plan, in model.CreatePlanInput) error {
	if err := atLeastOne("sessionsPerMonth", in.SessionsPerMonth); err != nil {
		return err
	}
	set(&dst.Name, in.Name)
	set(&dst.PerMonth, in.SessionsPerMonth)
	set(&dst.Months, in.Months)
	return planPrice(dst, in.Price)
}

// updatePlan applies the update rule: name and sessionsPerMonth clear (no
// name, unlimited); months and price cannot. A plan moves to another series
// only through updatePlan, so the series is set by the caller.
func updatePlan(dst *engine.Plan, in model.UpdatePlanInput) error {
	months, err := given(in.Months, "months")
	if err != nil {
		return err
	}
	price, err := given(in.Price, "price")
	if err != nil {
		return err
	}
	if err := atLeastOne("sessionsPerMonth", in.SessionsPerMonth.Value()); err != nil {
		return err
	}
	clearable(&dst.Name, in.Name)
	clearable(&dst.PerMonth, in.SessionsPerMonth)
	set(&dst.Months, months)
	if price != nil {
		return planPrice(dst, *price)
	}
	return nil
}

func createOneOff(e *models.Edit, dst *engine.OneOff, in model.CreateOneOffInput) error {
	if err := oneClass(in.ClassID, in.Class != nil, true); err != nil {
		return err
	}
	if err := atLeastOne("capacity", in.Capacity); err != nil {
		return err
	}
	if err := atLeastOne("units", in.Units); err != nil {
		return err
	}
	var err error
	if dst.ClassID, err = classFor(e, in.ClassID, in.Class, "classId"); err != nil {
		return err
	}
	dst.RoomID, dst.Date, dst.Start, dst.End = in.RoomID, in.Date, in.Start, in.End
	set(&dst.Label, in.Label)
	set(&dst.Capacity, in.Capacity)
	set(&dst.Buffer, in.BufferMinutes)
	set(&dst.Units, in.Units)
	set(&dst.Note, in.Note)
	return nil
}

// updateOneOff applies the update rule: label, capacity, units and note
// clear; the class, room, date, times and cleaning time cannot.
func updateOneOff(e *models.Edit, dst *engine.OneOff, in model.UpdateOneOffInput) error {
	classID, err := given(in.ClassID, "classId")
	if err != nil {
		return err
	}
	class, err := given(in.Class, "class")
	if err != nil {
		return err
	}
	if err := oneClass(classID, class != nil, false); err != nil {
		return err
	}
	room, err := given(in.RoomID, "roomId")
	if err != nil {
		return err
	}
	date, err := given(in.Date, "date")
	if err != nil {
		return err
	}
	start, err := given(in.Start, "start")
	if err != nil {
		return err
	}
	end, err := given(in.End, "end")
	if err != nil {
		return err
	}
	buffer, err := given(in.BufferMinutes, "bufferMinutes")
	if err != nil {
		return err
	}
	if err := atLeastOne("capacity", in.Capacity.Value()); err != nil {
		return err
	}
	if err := atLeastOne("units", in.Units.Value()); err != nil {
		return err
	}
	if classID != nil || class != nil {
		if dst.ClassID, err = classFor(e, classID, class, "classId"); err != nil {
			return err
		}
	}
	set(&dst.RoomID, room)
	set(&dst.Date, date)
	set(&dst.Start, start)
	set(&dst.End, end)
	set(&dst.Buffer, buffer)
	clearable(&dst.Label, in.Label)
	clearable(&dst.Capacity, in.Capacity)
	clearable(&dst.Units, in.Units)
	clearable(&dst.Note, in.Note)
	return nil
}

// oneClass refuses a one-off named by both an existing class and a new one,
// and (when need) one named by neither.
func oneClass(id *int64, described, need bool) error {
	switch {
	case id != nil && described:
		return badInput("classId", "Give either classId or class, not both")
	case need && id == nil && !described:
		return badInput("classId", "Give classId (an existing class) or class (a new one)")
	}
	return nil
}

// seriesInput is what createSeries and updateSeries set on a series, read
// from their inputs by the update rule: a nil field keeps what is there.
type seriesInput struct {
	name                 *string
	anchor, end          *engine.Date // end: a pointer to 0 clears it
	cycle                *int
	entries              []model.SeriesEntryInput
	plans                []model.SeriesPlanInput
	hasEntries, hasPlans bool // the lists are replaced
}

func newSeriesInput(in model.CreateSeriesInput) seriesInput {
	cycle := 1
	set(&cycle, in.CycleWeeks)
	end := new(engine.Date)
	set(end, in.EndDate)
	return seriesInput{name: &in.Name, anchor: &in.AnchorDate, end: end, cycle: &cycle,
		entries: in.Entries, plans: in.Plans, hasEntries: true, hasPlans: true}
}

func updateSeriesInput(in model.UpdateSeriesInput) (seriesInput, error) {
	var out seriesInput
	var err error
	if out.name, err = given(in.Name, "name"); err != nil {
		return out, err
	}
	if out.anchor, err = given(in.AnchorDate, "anchorDate"); err != nil {
		return out, err
	}
	if out.cycle, err = given(in.CycleWeeks, "cycleWeeks"); err != nil {
		return out, err
	}
	if end, ok := in.EndDate.ValueOK(); ok {
		out.end = new(engine.Date) // null: open-ended
		set(out.end, end)
	}
	if out.entries, out.hasEntries, err = givenList(in.Entries, "entries"); err != nil {
		return out, err
	}
	out.plans, out.hasPlans, err = givenList(in.Plans, "plans")
	return out, err
}

// applySeries sets the fields of a series and, when the input has them,
// replaces its entries (an entry of the same class time and week keeps its
// id) and plans (a plan with an id is edited in place, so its subscribers
// stay; one left out is removed and its subscribers stay on the series
// without a plan).
func applySeries(e *models.Edit, id int64, in seriesInput) error {
	s, err := row(e.State.Series, id, func(s *engine.Series) int64 { return s.ID }, engine.Words(e.State.Business.Kind).Series.One)
	if err != nil {
		return err
	}
	set(&s.Name, in.name)
	set(&s.Anchor, in.anchor)
	set(&s.End, in.end)
	if in.cycle != nil {
		e.State.SetCycle(id, *in.cycle)
	}
	if in.hasEntries {
		old := map[[2]int64]int64{}
		for _, en := range e.State.Entries {
			if en.SeriesID == id {
				old[[2]int64{en.ClassTimeID, int64(en.Week)}] = en.ID
			}
		}
		e.State.Entries = slices.DeleteFunc(e.State.Entries, func(en engine.Entry) bool { return en.SeriesID == id })
		for _, ei := range in.entries {
			if ei.ClassTimeID != nil && ei.ClassTime != nil {
				return badInput("classTimeId", "Give either classTimeId or classTime, not both")
			}
			if ei.ClassID != nil && ei.Class != nil {
				return badInput("classId", "Give either classId or class, not both")
			}
			ct, err := classTimeFor(e, ei.ClassTimeID, ei.ClassTime)
			if err != nil {
				return err
			}
			cl, err := classFor(e, ei.ClassID, ei.Class, "classId")
			if err != nil {
				return err
			}
			entryID, ok := old[[2]int64{ct, int64(ei.Week)}]
			if !ok {
				entryID = e.NewID()
			}
			delete(old, [2]int64{ct, int64(ei.Week)})
			e.State.Entries = append(e.State.Entries, engine.Entry{ID: entryID, SeriesID: id, ClassTimeID: ct, ClassID: cl, Week: ei.Week})
		}
	}
	if in.hasPlans {
		keep := map[int64]bool{}
		for _, pi := range in.plans {
			up := model.UpdatePlanInput{Name: pi.Name, SessionsPerMonth: pi.SessionsPerMonth, Months: pi.Months, Price: pi.Price}
			if pi.ID == nil {
				if !pi.Price.IsSet() {
					return badInput("price", "A new plan needs a price")
				}
				p := engine.Plan{ID: e.NewID(), SeriesID: id, Months: 1}
				if err := updatePlan(&p, up); err != nil {
					return err
				}
				e.State.Plans = append(e.State.Plans, p)
				keep[p.ID] = true
				continue
			}
			p, err := row(e.State.Plans, *pi.ID, func(p *engine.Plan) int64 { return p.ID }, "plan")
			if err != nil || p.SeriesID != id {
				return namedBy("plans", notFound("plan", *pi.ID))
			}
			if err := updatePlan(p, up); err != nil {
				return err
			}
			keep[p.ID] = true
		}
		e.State.Plans = slices.DeleteFunc(e.State.Plans, func(p engine.Plan) bool { return p.SeriesID == id && !keep[p.ID] })
	}
	return nil
}

// editSeries maps an updateSeries request onto engine.State.EditSeries,
// which holds the policy for editing a running series. It returns the
// series that keeps the weeks before a split (0 when the edit applied in
// place) and the day changes it removed.
func editSeries(e *models.Edit, id int64, input model.UpdateSeriesInput, from *engine.Date, carry bool) (int64, []engine.SessionRef, error) {
	in, err := updateSeriesInput(input)
	if err != nil {
		return 0, nil, err
	}
	ed := engine.SeriesEdit{From: deref(from), Anchor: in.anchor != nil, End: in.end, Cycle: in.cycle, Entries: in.hasEntries, Carry: carry}
	return e.State.EditSeries(id, ed, e.Today, e.NewID, func(week func(int) int) error {
		in.entries = slices.Clone(in.entries)
		for i := range in.entries {
			in.entries[i].Week = week(in.entries[i].Week)
		}
		return applySeries(e, id, in)
	})
}

// sessionByKey answers session(id): the session wherever a change has put
// it, or the one-off's.
func (r *Resolver) sessionByKey(ctx context.Context, id model.SessionID) (*model.Session, error) {
	ref, oneOff := id.Ref, id.OneOff
	v, err := r.views(ctx)
	if err != nil {
		return nil, err
	}
	var s engine.Session
	if oneOff != 0 {
		o, ok := rowByID(v.sn.State.OneOffs, oneOff, func(o *engine.OneOff) int64 { return o.ID })
		if !ok {
			return nil, notFound("one-off", oneOff)
		}
		day := v.sn.Timetable.Day(o.Date)
		i := slices.IndexFunc(day, func(s engine.Session) bool { return s.OneOffID == oneOff })
		if i < 0 {
			return nil, fmt.Errorf("one-off %d missing from its day %s", oneOff, o.Date)
		}
		s = day[i]
	} else {
		var ok bool
		if s, ok = v.sn.Timetable.Session(ref); !ok {
			return nil, noSession(r.words(ctx), ref, "id")
		}
	}
	view := v.session(&s)
	return &view, nil
}

func noSession(w engine.Vocabulary, ref engine.SessionRef, field string) error {
	return engine.Errorf(engine.NotFound, field, "There is no such %s on %s: that %s does not happen in that class time that day", w.Class.One, ref.Date, w.Class.One)
}

// sessionRef finds the series session a mutation names by exactly one of
// its sessionId and ref arguments, checked against the snapshot: the
// session must happen (before any change) on that date. It returns the
// argument that named it, which the errors about it name too.
func (r *Resolver) sessionRef(ctx context.Context, id *model.SessionID, in *model.SessionRefInput) (engine.SessionRef, string, error) {
	var ref engine.SessionRef
	field := "ref"
	switch {
	case id != nil && in != nil:
		return ref, "", badInput("sessionId", "Name the session by sessionId or by ref, not both")
	case id == nil && in == nil:
		return ref, "", badInput("sessionId", "Name the session: give its sessionId or its ref")
	case in != nil:
		ref = engine.SessionRef{Date: in.Date, ClassTimeID: in.ClassTimeID, ClassID: in.ClassID}
	case id.OneOff != 0:
		return ref, "", badInput("sessionId", "%s is a one-off: change it with updateOneOff, cancel it with cancelOneOff", id)
	default:
		ref, field = id.Ref, "sessionId"
	}
	tt, err := r.tt(ctx)
	if err != nil {
		return ref, field, err
	}
	if _, ok := tt.Session(ref); !ok {
		return ref, field, noSession(r.words(ctx), ref, field)
	}
	return ref, field, nil
}

// cancelReason is the reason a cancellation gives: reason, or note, the
// name it had before (deprecated), but not both.
func cancelReason(reason, note *string) (string, error) {
	if reason != nil && note != nil {
		return "", badInput("reason", "Give the reason once, as reason (note is its old name)")
	}
	if reason == nil {
		reason = note
	}
	return deref(reason), nil
}

// refNamedBy makes an error about a session name the argument the client
// named it by: the engine and models say "ref" for a session whichever
// way it was named.
func refNamedBy(err error, arg string) error { return renamed(err, "ref", arg) }

// renamed is an error that names the field from as the field to instead:
// the argument the client sent, where the engine knows the value by
// another name. The error itself is left as it is (it may be shared).
func renamed(err error, from, to string) error {
	if e := (*engine.Error)(nil); errors.As(err, &e) && e.Field == from {
		c := *e
		c.Field = to
		return &c
	}
	if v := (*engine.ValidationError)(nil); errors.As(err, &v) && slices.ContainsFunc(v.Problems, func(p engine.Problem) bool { return p.Field == from }) {
		c := &engine.ValidationError{Problems: slices.Clone(v.Problems)}
		for i := range c.Problems {
			if c.Problems[i].Field == from {
				c.Problems[i].Field = to
			}
		}
		return c
	}
	return err
}

// setChange merges a patch into the change of a session and stores the
// result, deleting a change that is left with nothing.
func setChange(e *models.Edit, ref engine.SessionRef, patch engine.ChangePatch) error {
	c, keep, err := e.Before.Timetable.MergeChange(ref, patch)
	if err != nil {
		return err // NOT_FOUND for a session or class that is not there
	}
	e.State.Changes = slices.DeleteFunc(e.State.Changes, func(c engine.DayChange) bool { return c.Ref == ref })
	if keep {
		e.State.Changes = append(e.State.Changes, c)
	}
	return nil
}

// oneOffClients checks client ids against the business's clients and
// books them into a one-off when the write is saved. The request's loader is
// primed with them, so the payload shows what the write books even in a dry
// run, whose rows never reach the database.
func oneOffClients(ctx context.Context, e *models.Edit, oneOff int64, ids []int64) error {
	found := map[int64]engine.Client{}
	if len(ids) > 0 {
		var err error
		if found, err = models.ClientsByID(ctx, e.Tx, e.Business.ID, ids); err != nil {
			return err
		}
	}
	clients := make([]engine.Client, 0, len(ids))
	for i, id := range ids {
		c, ok := found[id]
		if !ok {
			return namedBy("clientIds", notFound(engine.Words(e.State.Business.Kind).Client.One, id))
		}
		if slices.Contains(ids[:i], id) {
			return badInput("clientIds", "The %s %s is listed twice; name each once", engine.Words(e.State.Business.Kind).Client.One, c.Name)
		}
		clients = append(clients, c)
	}
	slices.SortFunc(clients, func(a, b engine.Client) int {
		return cmp.Or(strings.Compare(strings.ToLower(a.Name), strings.ToLower(b.Name)), cmp.Compare(a.ID, b.ID))
	})
	e.SetOneOffClients(oneOff, ids)
	e.AfterSave(func(_ context.Context, id func(int64) int64) error {
		key := id(oneOff)
		if e.DryRun() {
			key = oneOff // a dry run answers with the one-off's provisional id
		}
		if l := loadersFrom(ctx); l != nil {
			l.oneOffAttendees.Clear(key)
			l.oneOffAttendees.Prime(key, clients)
		}
		return nil
	})
	return nil
}

func (r *Resolver) planPayload(ctx context.Context, res *models.Result, id int64) (*model.PlanPayload, error) {
	p, ok := rowByID(res.After.State.Plans, id, func(p *engine.Plan) int64 { return p.ID })
	if !ok {
		return nil, notFound("plan", id)
	}
	return &model.PlanPayload{DryRun: res.DryRun, Revision: int(res.Revision), Clashes: res.Clashes, Plan: p}, nil
}

func (r *Resolver) oneOffPayload(ctx context.Context, res *models.Result, id int64) (*model.OneOffPayload, error) {
	o, ok := rowByID(res.After.State.OneOffs, id, func(o *engine.OneOff) int64 { return o.ID })
	if !ok {
		return nil, notFound("one-off", id)
	}
	return &model.OneOffPayload{DryRun: res.DryRun, Revision: int(res.Revision), Clashes: res.Clashes, OneOff: o}, nil
}

// changeSession writes a change of one session, named by its sessionId or
// its ref, and answers with the session as it then is.
func (r *Resolver) changeSession(ctx context.Context, id *model.SessionID, in *model.SessionRefInput, dryRun *bool, fn func(*models.Edit, engine.SessionRef) error) (*model.SessionPayload, error) {
	if err := can(ctx, models.EditDays); err != nil {
		return nil, err
	}
	ref, named, err := r.sessionRef(ctx, id, in)
	if err != nil {
		return nil, err
	}
	res, err := r.write(ctx, models.EditDays, dryRun, func(e *models.Edit) error { return fn(e, ref) })
	if err != nil {
		return nil, refNamedBy(err, named)
	}
	s, ok := res.After.Timetable.Session(ref)
	if !ok {
		return nil, fmt.Errorf("session %v vanished in its own write", ref)
	}
	v, err := r.views(ctx)
	if err != nil {
		return nil, err
	}
	view := v.session(&s)
	return &model.SessionPayload{DryRun: res.DryRun, Revision: int(res.Revision), Clashes: res.Clashes, Session: &view}, nil
}
