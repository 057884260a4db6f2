package graph

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/koredyne/schedule/engine"
	"github.com/koredyne/schedule/graph/model"
	"github.com/koredyne/schedule/models"
)

// write runs fn through the guarded write for the request's business, after
// checking the role, and makes the rest of the request read its result.
func (r *Resolver) write(ctx context.Context, need models.Permission, dryRun *bool, fn func(*models.Edit) error) (*models.Result, error) {
	if err := can(ctx, need); err != nil {
		return nil, err
	}
	return r.writeAs(ctx, dryRun, fn)
}

// writeAs is write for callers that check access themselves (a client
// token books for itself).
func (r *Resolver) writeAs(ctx context.Context, dryRun *bool, fn func(*models.Edit) error) (*models.Result, error) {
	if requestFrom(ctx) == nil {
		return nil, errUnauthenticated
	}
	res, err := r.Store.Write(ctx, principal(ctx).BusinessID, dryRun != nil && *dryRun, fn)
	if err != nil {
		return nil, err
	}
	use(ctx, res.After)
	return res, nil
}

// row finds the row with id in a table of the edited state.
func row[T any](list []T, id int64, key func(*T) int64, what string) (*T, error) {
	for i := range list {
		if key(&list[i]) == id {
			return &list[i], nil
		}
	}
	return nil, notFound(what, id)
}

func set[T any](dst *T, v *T) {
	if v != nil {
		*dst = *v
	}
}

func applyRoom(dst *engine.Room, in model.RoomInput) {
	set(&dst.Name, in.Name)
	set(&dst.Capacity, in.Capacity)
}

func applyActivity(dst *engine.Activity, in model.ActivityInput) {
	set(&dst.Name, in.Name)
	set(&dst.Color, in.Color)
}

func applyClass(dst *engine.Class, in model.ClassInput) {
	set(&dst.ActivityID, in.ActivityID)
	if in.StaffIds != nil {
		dst.StaffIDs = slices.Clone(in.StaffIds)
	}
}

func applyClassTime(dst *engine.ClassTime, in model.ClassTimeInput) {
	set(&dst.RoomID, in.RoomID)
	set(&dst.Weekday, in.Weekday)
	set(&dst.Start, in.Start)
	set(&dst.End, in.End)
	set(&dst.Label, in.Label)
	set(&dst.Capacity, in.Capacity)
	set(&dst.Type, in.Type)
	set(&dst.Buffer, in.BufferMinutes)
	set(&dst.Units, in.Units)
	if in.Active != nil {
		dst.Inactive = !*in.Active
	}
}

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

func applyBusiness(dst *engine.Business, in model.BusinessInput) error {
	set(&dst.Name, in.Name)
	set(&dst.Kind, in.Kind)
	set(&dst.Currency, in.Currency)
	set(&dst.WeekStart, in.WeekStart)
	if in.TimeZone != nil {
		loc, err := time.LoadLocation(*in.TimeZone)
		if err != nil || *in.TimeZone == "" || *in.TimeZone == "Local" {
			return badInput("timeZone", "%q is not a time zone: use an IANA name such as Europe/Berlin", *in.TimeZone)
		}
		dst.Location = loc
	}
	return nil
}

// classFor returns the class an input names: an existing one by id, or one
// described inline — the existing class with the same activity and set of
// staff (engine.State.ClassWith), or a new one.
func classFor(e *models.Edit, id *int64, in *model.ClassInput, field string) (int64, error) {
	switch {
	case id != nil:
		return *id, nil
	case in == nil:
		return 0, badInput(field, "Name the %s by id or describe it", engine.Words(e.State.Business.Kind).Class.One)
	}
	c := engine.Class{}
	applyClass(&c, *in)
	if old, ok := e.State.ClassWith(c.ActivityID, c.StaffIDs); ok {
		return old.ID, nil
	}
	c.ID = e.NewID()
	e.State.Classes = append(e.State.Classes, c)
	return c.ID, nil
}

// classTimeFor is classFor for class times: an identical one is reused.
func classTimeFor(e *models.Edit, id *int64, in *model.ClassTimeInput) (int64, error) {
	switch {
	case id != nil:
		return *id, nil
	case in == nil:
		return 0, badInput("classTimeId", "Name the class time by id or describe it")
	}
	ct := engine.ClassTime{}
	applyClassTime(&ct, *in)
	for _, old := range e.State.ClassTimes {
		if ct.ID = old.ID; ct == old {
			return old.ID, nil
		}
	}
	ct.ID = e.NewID()
	e.State.ClassTimes = append(e.State.ClassTimes, ct)
	return ct.ID, nil
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

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}

func applySubscription(dst *engine.Subscription, in model.SubscriptionInput) {
	set(&dst.ClientID, in.ClientID)
	set(&dst.SeriesID, in.SeriesID)
	set(&dst.PlanID, in.PlanID)
	set(&dst.Start, in.StartDate)
	set(&dst.End, in.EndDate)
}

// remove and removeWith run a deletion and answer with the id.
func (r *Resolver) remove(ctx context.Context, id int64, dryRun *bool, fn func(*models.Edit) error) (*model.DeletePayload, error) {
	return r.removeWith(ctx, models.EditSchedule, id, dryRun, fn)
}

func (r *Resolver) removeWith(ctx context.Context, need models.Permission, id int64, dryRun *bool, fn func(*models.Edit) error) (*model.DeletePayload, error) {
	res, err := r.write(ctx, need, dryRun, fn)
	if err != nil {
		return nil, err
	}
	return &model.DeletePayload{DryRun: res.DryRun, Revision: int(res.Revision), Clashes: res.Clashes, ID: id}, nil
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
