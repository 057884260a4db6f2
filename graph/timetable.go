package graph

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/koredyne/schedule/engine"
	"github.com/koredyne/schedule/graph/model"
	"github.com/koredyne/schedule/models"
)

// Input mapping of the timetable: series and plans, one-offs, day changes
// (timetable.graphqls, timetable.resolvers.go).

func applyPlan(dst *engine.Plan, in model.PlanInput) error {
	set(&dst.Name, in.Name)
	set(&dst.PerMonth, in.SessionsPerMonth)
	set(&dst.Months, in.Months)
	if in.Price != nil {
		p, err := engine.ParseMoney(*in.Price)
		if err != nil {
			return badInput("price", "%v", err)
		}
		dst.Price = p
	}
	return nil
}

func applyOneOff(dst *engine.OneOff, in model.OneOffInput) {
	set(&dst.ClassID, in.ClassID)
	set(&dst.RoomID, in.RoomID)
	set(&dst.Date, in.Date)
	set(&dst.Start, in.Start)
	set(&dst.End, in.End)
	set(&dst.Label, in.Label)
	set(&dst.Capacity, in.Capacity)
	set(&dst.Buffer, in.BufferMinutes)
	set(&dst.Units, in.Units)
	set(&dst.Note, in.Note)
}

// applySeries sets the fields of a series and, when the input has them,
// replaces its entries (an entry of the same class time and week keeps its
// id) and plans (a plan with an id is edited in place, so its subscribers
// stay; one left out is removed and its subscribers stay on the series
// without a plan).
func applySeries(e *models.Edit, id int64, in model.SeriesInput) error {
	s, err := row(e.State.Series, id, func(s *engine.Series) int64 { return s.ID }, engine.Words(e.State.Business.Kind).Series.One)
	if err != nil {
		return err
	}
	set(&s.Name, in.Name)
	set(&s.Anchor, in.AnchorDate)
	set(&s.End, in.EndDate)
	if in.OpenEnded != nil && *in.OpenEnded {
		s.End = 0
	}
	if in.CycleWeeks != nil {
		e.State.SetCycle(id, *in.CycleWeeks)
	}
	if in.Entries != nil {
		old := map[[2]int64]int64{}
		for _, en := range e.State.Entries {
			if en.SeriesID == id {
				old[[2]int64{en.ClassTimeID, int64(en.Week)}] = en.ID
			}
		}
		e.State.Entries = slices.DeleteFunc(e.State.Entries, func(en engine.Entry) bool { return en.SeriesID == id })
		for _, ei := range in.Entries {
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
	if in.Plans != nil {
		keep := map[int64]bool{}
		for _, pi := range in.Plans {
			if pi.ID == nil {
				p := engine.Plan{ID: e.NewID(), SeriesID: id, Months: 1}
				if err := applyPlan(&p, pi); err != nil {
					return err
				}
				e.State.Plans = append(e.State.Plans, p)
				keep[p.ID] = true
				continue
			}
			p, err := row(e.State.Plans, *pi.ID, func(p *engine.Plan) int64 { return p.ID }, "plan")
			if err != nil || p.SeriesID != id {
				return notFound("plan", *pi.ID)
			}
			if err := applyPlan(p, pi); err != nil {
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
func editSeries(e *models.Edit, id int64, in model.SeriesInput, from *engine.Date, carry bool) (int64, []engine.SessionRef, error) {
	ed := engine.SeriesEdit{From: deref(from), Anchor: in.AnchorDate != nil, End: in.EndDate, Cycle: in.CycleWeeks, Entries: in.Entries != nil, Carry: carry}
	if in.OpenEnded != nil && *in.OpenEnded {
		ed.End = new(engine.Date)
	}
	return e.State.EditSeries(id, ed, e.Today, e.NewID, func(week func(int) int) error {
		in.Entries = slices.Clone(in.Entries)
		for i := range in.Entries {
			in.Entries[i].Week = week(in.Entries[i].Week)
		}
		return applySeries(e, id, in)
	})
}

// sessionRef checks a ref against the snapshot: the session must happen
// (before any change) on that date.
func (r *Resolver) sessionRef(ctx context.Context, in model.SessionRefInput) (engine.SessionRef, error) {
	ref := engine.SessionRef{Date: in.Date, ClassTimeID: in.ClassTimeID, ClassID: in.ClassID}
	tt, err := r.tt(ctx)
	if err != nil {
		return ref, err
	}
	if _, ok := tt.Session(ref); !ok {
		w := r.words(ctx)
		return ref, engine.Errorf(engine.NotFound, "ref", "There is no such %s on %s: that %s does not happen in that class time that day", w.Class.One, in.Date, w.Class.One)
	}
	return ref, nil
}

// setChange merges a patch into the change of a session and stores the
// result, deleting a change that is left with nothing.
func setChange(e *models.Edit, ref engine.SessionRef, patch engine.ChangePatch) error {
	c, keep, err := e.Before.Timetable.MergeChange(ref, patch)
	if err != nil {
		return badInput("ref", "%v", err)
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
			return notFound(engine.Words(e.State.Business.Kind).Client.One, id)
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
		if l := loadersFrom(ctx); l != nil {
			l.oneOffAttendees.Clear(id(oneOff))
			l.oneOffAttendees.Prime(id(oneOff), clients)
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

// changeSession writes a change of one session, named by its ref, and
// answers with the session as it then is.
func (r *Resolver) changeSession(ctx context.Context, in model.SessionRefInput, dryRun *bool, fn func(*models.Edit, engine.SessionRef) error) (*model.SessionPayload, error) {
	if err := can(ctx, models.EditDays); err != nil {
		return nil, err
	}
	ref, err := r.sessionRef(ctx, in)
	if err != nil {
		return nil, err
	}
	res, err := r.write(ctx, models.EditDays, dryRun, func(e *models.Edit) error { return fn(e, ref) })
	if err != nil {
		return nil, err
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
