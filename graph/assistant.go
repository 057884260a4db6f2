package graph

import (
	"cmp"
	"context"
	"slices"

	"github.com/koredyne/schedule/engine"
	"github.com/koredyne/schedule/graph/model"
	"github.com/koredyne/schedule/models"
)

// updateTimeOff applies an UpdateTimeOffInput (the update rule: fromTime,
// toTime and reason clear; the rest cannot be null).
func updateTimeOff(dst *engine.TimeOff, in model.UpdateTimeOffInput) error {
	clearable(&dst.FromTime, in.FromTime)
	clearable(&dst.ToTime, in.ToTime)
	clearable(&dst.Reason, in.Reason)
	if err := cmp.Or(keep(&dst.StaffID, in.StaffID, "staffId"), keep(&dst.From, in.From, "from"), keep(&dst.To, in.To, "to")); err != nil {
		return err
	}
	switch {
	case dst.ToTime == engine.EndOfDay:
		dst.ToTime = 0 // the whole last day, as null says
	case in.ToTime.IsSet() && in.ToTime.Value() != nil && dst.ToTime == 0:
		return badInput("toTime", "toTime 00:00 ends the time off before its last day starts: end it the day before, or leave toTime out for the whole day")
	}
	if dst.To < dst.From && dst.From.Valid() && dst.To.Valid() {
		return badInput("to", "Time off cannot end (%s) before it starts (%s)", dst.To, dst.From)
	}
	return nil
}

// timeOffPayload answers a time off write with the time off as the rest
// of the request reads it.
func timeOffPayload(res *models.Result, id int64) (*model.TimeOffPayload, error) {
	o, ok := rowByID(res.After.State.TimeOffs, res.ID(id), func(o *engine.TimeOff) int64 { return o.ID })
	if !ok {
		return nil, notFound("time off", id)
	}
	return &model.TimeOffPayload{DryRun: res.DryRun, Revision: int(res.Revision), Clashes: res.Clashes, TimeOff: o, NeedsCover: nonNil(res.NeedsCover)}, nil
}

// setHours puts a staff member's hours from a date into the edited state,
// replacing the set they have from that date, and returns its id.
func setHours(e *models.Edit, in model.SetWorkingHoursInput) int64 {
	spans := make([]engine.HoursSpan, len(in.Spans))
	for i, s := range in.Spans {
		spans[i] = engine.HoursSpan{Weekday: s.Weekday, Start: s.Start, End: s.End}
	}
	slices.SortFunc(spans, func(a, b engine.HoursSpan) int {
		return cmp.Or(cmp.Compare(a.Weekday, b.Weekday), cmp.Compare(a.Start, b.Start), cmp.Compare(a.End, b.End))
	})
	for i := range e.State.Hours {
		if h := &e.State.Hours[i]; h.StaffID == in.StaffID && h.From == in.From {
			h.Spans = spans
			return h.ID
		}
	}
	id := e.NewID()
	e.State.Hours = append(e.State.Hours, engine.WorkingHours{ID: id, StaffID: in.StaffID, From: in.From, Spans: spans})
	return id
}

// seesReason reports whether the request may read the reason of a time
// off of staff member staff: the front desk and above, and that staff
// member's own token.
func seesReason(ctx context.Context, staff int64) bool {
	p := principal(ctx)
	return p.Role.Can(models.EditDays) || p.Role == models.StaffRole && p.StaffID != 0 && p.StaffID == staff
}

// uncoveredSession is the session an Uncovered names on its first date,
// as the request's snapshot resolves it.
func (r *Resolver) uncoveredSession(ctx context.Context, u *engine.Uncovered) (*model.Session, error) {
	v, err := r.views(ctx)
	if err != nil {
		return nil, err
	}
	s := u.Session
	if !u.Dated {
		if found, ok := v.sn.Timetable.Session(engine.SessionRef{Date: u.First, ClassTimeID: u.ClassTimeID, ClassID: u.ClassID}); ok {
			s = found
		}
	}
	view := v.session(&s)
	return &view, nil
}

// sessionIDOf is the id of the session an Uncovered names on its first
// date.
func sessionIDOf(u engine.Uncovered) string {
	if u.Dated {
		return u.Session.Key()
	}
	return engine.SessionRef{Date: u.First, ClassTimeID: u.ClassTimeID, ClassID: u.ClassID}.Key()
}
