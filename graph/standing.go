package graph

import (
	"context"
	"slices"

	"github.com/koredyne/schedule/engine"
	"github.com/koredyne/schedule/graph/model"
	"github.com/koredyne/schedule/models"
)

// Standing places follow the rule of who sees bookings (whoSees): a
// standing place is a booking of every date of a class, so a staff token
// sees those of the classes its member leads.

// seesStanding narrows standing places to those the request may see.
func seesStanding(ctx context.Context, sn *models.Snapshot, rules []engine.Standing) []engine.Standing {
	sees := whoSees(ctx)
	return slices.DeleteFunc(slices.Clone(rules), func(r engine.Standing) bool {
		return !sees(func() []int64 {
			c, _ := sn.Timetable.Class(r.ClassID)
			return c.StaffIDs
		}, r.ClientID)
	})
}

// standingKey orders standing bookings by id.
func standingKey(r *engine.Standing) string { return idKey(r.ID) }

// places splits the standing places of a session into those holding a
// place and those waiting, beside the session's single bookings.
func (r *Resolver) places(ctx context.Context, obj *model.Session) (hold, wait []engine.Standing, singles []models.SessionBooking, err error) {
	singles, err = loadersFrom(ctx).sessionBookings.Load(ctx, obj.ID)
	if err != nil || obj.Ref == nil || obj.OneOff != nil {
		return nil, nil, singles, err
	}
	sn, err := r.snapshot(ctx)
	if err != nil || !sn.Timetable.HasStanding() {
		return nil, nil, singles, err
	}
	hold, wait = engine.SplitPlaces(sn.Timetable.StandingOn(*obj.Ref), deref(obj.Capacity),
		countStatus(singles, models.Booked, models.Attended, models.NoShow))
	return hold, wait, singles, nil
}

// placeCounts is places for the resolvers that only count: how many
// standing places hold a place and how many wait, without the lists (a
// week asks it of every session, three times).
func (r *Resolver) placeCounts(ctx context.Context, obj *model.Session) (hold, wait int, singles []models.SessionBooking, err error) {
	singles, err = loadersFrom(ctx).sessionBookings.Load(ctx, obj.ID)
	if err != nil || obj.Ref == nil || obj.OneOff != nil {
		return 0, 0, singles, err
	}
	sn, err := r.snapshot(ctx)
	if err != nil || !sn.Timetable.HasStanding() {
		return 0, 0, singles, err
	}
	hold, wait = sn.Timetable.PlacesOn(*obj.Ref, deref(obj.Capacity), countStatus(singles, models.Booked, models.Attended, models.NoShow))
	return hold, wait, singles, nil
}

// standingPayload answers a standing-place write with the place as the
// write left it (found by its id in the schedule after), or as given when
// the write removed it.
func standingPayload(res *models.Result, rule engine.Standing, waiting []engine.DateRun) *model.StandingBookingPayload {
	out := &model.StandingBookingPayload{DryRun: res.DryRun, Revision: int(res.Revision), Clashes: res.Clashes, WaitingDates: []model.DateRun{}}
	if s, ok := rowByID(res.After.State.Standing, res.ID(rule.ID), func(s *engine.Standing) int64 { return s.ID }); ok {
		rule = *s
	}
	out.StandingBooking = &rule
	for _, w := range waiting {
		run := model.DateRun{FirstDate: w.First}
		if w.Every > 0 {
			run.RepeatsEveryWeeks = &w.Every
			run.Until = optDate(w.Until)
		}
		out.WaitingDates = append(out.WaitingDates, run)
	}
	return out
}

// standingWrite runs a write of one standing place that the request must
// be allowed to act on (its client's own, or the front desk's).
func (r *Resolver) standingWrite(ctx context.Context, id int64, dryRun *bool, fn func(e *models.Edit, rule engine.Standing) (engine.Standing, []engine.DateRun, error)) (*model.StandingBookingPayload, error) {
	var rule engine.Standing
	var waiting []engine.DateRun
	res, err := r.writeAs(ctx, dryRun, func(e *models.Edit) error {
		found, err := e.Standing(id)
		if err != nil || !visibleStanding(ctx, e.Before, found) {
			return notFound("standing booking", id)
		}
		if err := mayActOn(ctx, found.ClientID, models.EditClients); err != nil {
			return err
		}
		rule, waiting, err = fn(e, found)
		return err
	})
	if err != nil {
		return nil, err
	}
	return standingPayload(res, rule, waiting), nil
}

// visibleStanding reports whether the request may see one standing place.
func visibleStanding(ctx context.Context, sn *models.Snapshot, rule engine.Standing) bool {
	return len(seesStanding(ctx, sn, []engine.Standing{rule})) == 1
}

// standingDates is what a standing place is on each of its sessions with
// an original date in from..to.
func (r *Resolver) standingDates(ctx context.Context, rule *engine.Standing, fromArg, toArg *engine.Date) ([]model.StandingDate, error) {
	v, err := r.views(ctx)
	if err != nil {
		return nil, err
	}
	from := v.sn.Today(r.Store.Now())
	if fromArg != nil {
		from = *fromArg
	}
	to := from + 28
	if toArg != nil {
		to = *toArg
	}
	if err := checkRange(from, to); err != nil {
		return nil, err
	}
	tt := v.sn.Timetable
	out := []model.StandingDate{}
	for d := max(from, rule.From); d < to && rule.Covers(d); d++ {
		s, ok := tt.Session(engine.SessionRef{Date: d, ClassTimeID: rule.ClassTimeID, ClassID: rule.ClassID})
		if !ok {
			continue
		}
		view := v.session(&s)
		sd := model.StandingDate{Session: &view, Status: model.StandingStatusPlace}
		switch {
		case s.Cancelled:
			sd.Status = model.StandingStatusCancelled
		case tt.Skipped(rule.ID, d):
			sd.Status = model.StandingStatusSkipped
		default:
			_, wait, _, err := r.places(ctx, &view)
			if err != nil {
				return nil, err
			}
			if i := slices.IndexFunc(wait, func(w engine.Standing) bool { return w.ID == rule.ID }); i >= 0 {
				sd.Status, sd.Position = model.StandingStatusWaiting, &[]int{i + 1}[0]
			}
		}
		out = append(out, sd)
	}
	return out, nil
}
