package graph

import (
	"context"

	"github.com/99designs/gqlgen/graphql"

	"github.com/koredyne/schedule/engine"
	"github.com/koredyne/schedule/graph/model"
	"github.com/koredyne/schedule/models"
)

// Every payload's impact (Write.impact) is resolved by one helper: the
// guarded write remembers its result under the mutation field that ran it
// (its alias: mutations run one after another, and each payload is
// answered before the next runs), and the payload's impact field reads it
// from there. A payload whose write went outside the guarded write
// (tokens, feed secrets, webhook endpoints) changes no session: its
// impact is empty.

// impactAsked is what the payload of the mutation field ctx is under
// reads of its impact: the write computes no more (models.ImpactAsk).
func impactAsked(ctx context.Context) models.ImpactAsk {
	var ask models.ImpactAsk
	fc := graphql.GetFieldContext(ctx)
	if fc == nil || !graphql.HasOperationContext(ctx) {
		return ask
	}
	op := graphql.GetOperationContext(ctx)
	payload := fc.Field.Definition.Type.Name()
	for _, f := range graphql.CollectFields(op, fc.Field.Selections, []string{payload, "Write"}) {
		if f.Name != "impact" {
			continue
		}
		ask.Totals = true
		for _, g := range graphql.CollectFields(op, f.Selections, []string{"Impact"}) {
			switch g.Name {
			case "sessions":
				ask.Sessions = true
			case "calendars":
				ask.Calendars = true
			}
		}
	}
	return ask
}

// remember keeps a write's result for its payload's impact.
func remember(ctx context.Context, res *models.Result) {
	req, field := requestFrom(ctx), graphql.GetRootFieldContext(ctx)
	if req == nil || field == nil {
		return
	}
	req.mu.Lock()
	defer req.mu.Unlock()
	if req.written == nil {
		req.written = map[string]*models.Result{}
	}
	req.written[field.Field.Alias] = res
}

// impact answers the impact field of the payload of the mutation field ctx
// is under.
func (r *Resolver) impact(ctx context.Context) (*model.Impact, error) {
	out := &model.Impact{Sessions: []model.ImpactSession{}, Calendars: []model.ImpactCalendar{}}
	req, field := requestFrom(ctx), graphql.GetRootFieldContext(ctx)
	if req == nil || field == nil {
		return out, nil
	}
	req.mu.Lock()
	res := req.written[field.Field.Alias]
	req.mu.Unlock()
	if res == nil || res.Impact == nil {
		zero := 0
		out.TotalSessions = &zero
		return out, nil
	}
	im := res.Impact
	if im.Unbounded {
		for _, run := range im.Runs {
			if run.Dates.Every > 0 && run.Dates.Until == 0 && (out.UnboundedFrom == nil || run.Dates.First < *out.UnboundedFrom) {
				first := run.Dates.First
				out.UnboundedFrom = &first
			}
		}
	} else {
		n := im.TotalSessions
		out.TotalSessions = &n
	}
	out.Unbounded, out.TotalClients = im.Unbounded, im.TotalClients
	sn := res.After
	if im.Business {
		out.Calendars = append(out.Calendars, model.ImpactCalendar{})
	}
	for _, id := range im.Staff {
		if p, ok := sn.Timetable.StaffMember(id); ok {
			out.Calendars = append(out.Calendars, model.ImpactCalendar{Staff: &p})
		}
	}
	for _, id := range im.Rooms {
		if room, ok := sn.Timetable.Room(id); ok {
			out.Calendars = append(out.Calendars, model.ImpactCalendar{Room: &room})
		}
	}
	v, err := r.views(ctx)
	if err != nil {
		return nil, err
	}
	for i := range im.Sessions.Len() {
		s := im.Sessions.At(i)
		before := s.Before.AsOrigin()
		staff := v.staff(s.Before.StaffIDs)
		is := model.ImpactSession{
			ID: s.Key(), Changes: changesOf(&s), Before: &before,
			Bookings:         nonNil(seenIn(ctx, staff, s.Bookings, bookerID)),
			Waitlist:         nonNil(seenIn(ctx, staff, s.Waitlist, bookerID)),
			Standing:         nonNil(seenIn(ctx, staff, s.Standing, standingClient)),
			StandingWaitlist: nonNil(seenIn(ctx, staff, s.StandingWaitlist, standingClient)),
		}
		if s.Is {
			view := v.session(&s.After)
			is.Session = &view
		}
		out.Sessions = append(out.Sessions, is)
	}
	return out, nil
}

func standingClient(s *engine.Standing) int64 { return s.ClientID }

// changesOf says what a write does to an affected session.
func changesOf(s *models.ImpactSession) []model.ImpactChange {
	out := []model.ImpactChange{}
	for _, c := range []struct {
		what engine.What
		is   model.ImpactChange
	}{
		{engine.Cancelled, model.ImpactChangeCancelled}, {engine.Removed, model.ImpactChangeRemoved},
		{engine.Moved, model.ImpactChangeMoved}, {engine.Retimed, model.ImpactChangeRetimed},
		{engine.Rehoused, model.ImpactChangeRehoused}, {engine.Restaffed, model.ImpactChangeRestaffed},
		{engine.Reclassed, model.ImpactChangeReclassed},
	} {
		if s.What.Has(c.what) {
			out = append(out, c.is)
		}
	}
	if s.OverCapacity {
		out = append(out, model.ImpactChangeOverCapacity)
	}
	return out
}
