package graph

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/koredyne/schedule/engine"
	"github.com/koredyne/schedule/graph/model"
	"github.com/koredyne/schedule/models"
)

// bookingClient is the client a booking is for: a client token books for
// itself; the front desk and above for any client they name.
func bookingClient(ctx context.Context, clientID *int64) (int64, error) {
	p := principal(ctx)
	if p.Role == models.ClientRole {
		if p.ClientID == 0 || (clientID != nil && *clientID != p.ClientID) {
			return 0, errForbidden
		}
		return p.ClientID, nil
	}
	if err := can(ctx, models.EditClients); err != nil {
		return 0, err
	}
	if clientID == nil {
		return 0, badInput("clientId", "Say which client the booking is for")
	}
	return *clientID, nil
}

// mayActOn checks that the request may change a booking of client: the
// front desk and above any, a client token its own.
func mayActOn(ctx context.Context, client int64, need models.Permission) error {
	p := principal(ctx)
	if p.Role == models.ClientRole {
		if p.ClientID == 0 || p.ClientID != client {
			return errForbidden
		}
		return nil
	}
	return can(ctx, need)
}

// ownOnly narrows rows about clients to a client token's own; every other
// role sees them all. A client never learns who else the business serves.
func ownOnly[T any](ctx context.Context, rows []T, clientOf func(*T) int64) []T {
	p := principal(ctx)
	if p.Role != models.ClientRole {
		return rows
	}
	return slices.DeleteFunc(slices.Clone(rows), func(v T) bool { return clientOf(&v) != p.ClientID })
}

func clientID(c *engine.Client) int64             { return c.ID }
func subscriberID(sub *engine.Subscription) int64 { return sub.ClientID }

// bookable finds the session a booking names: a series session by its ref,
// or a one-off.
func bookable(tt *engine.Timetable, st *engine.State, ref *model.SessionRefInput, oneOff *int64) (engine.Session, error) {
	switch {
	case (ref == nil) == (oneOff == nil):
		return engine.Session{}, badInput("ref", "Name the session by its ref or the one-off by its id")
	case ref != nil:
		s, ok := tt.Session(engine.SessionRef{Date: ref.Date, ClassTimeID: ref.ClassTimeID, ClassID: ref.ClassID})
		if !ok {
			return s, engine.Errorf(engine.NotFound, "ref", "There is no such session on %s", ref.Date)
		}
		return s, nil
	}
	for _, o := range st.OneOffs {
		if o.ID == *oneOff {
			for _, s := range tt.Day(o.Date) {
				if s.OneOffID == o.ID {
					return s, nil
				}
			}
		}
	}
	return engine.Session{}, notFound("one-off", *oneOff)
}

// seesBookings reports which bookings of a session the request may see:
// all for the front desk and above and for the session's own staff, a
// client's own for a client token, none otherwise.
func seesBookings(ctx context.Context, staff []int64) func(*models.SessionBooking) bool {
	p := principal(ctx)
	switch {
	case p.Role.Can(models.EditClients):
		return func(*models.SessionBooking) bool { return true }
	case p.StaffID != 0 && slices.Contains(staff, p.StaffID):
		return func(*models.SessionBooking) bool { return true }
	case p.Role == models.ClientRole && p.ClientID != 0:
		return func(b *models.SessionBooking) bool { return b.ClientID == p.ClientID }
	}
	return func(*models.SessionBooking) bool { return false }
}

func countStatus(bs []models.SessionBooking, statuses ...models.BookingStatus) int {
	n := 0
	for _, b := range bs {
		if slices.Contains(statuses, b.Status) {
			n++
		}
	}
	return n
}

func snapshotOf(b *models.SessionBooking, loc *time.Location) *model.BookingSnapshot {
	out := &model.BookingSnapshot{
		Date: engine.Date(b.SessionDate), Start: engine.LocalTime(b.StartMinute), End: engine.LocalTime(b.EndMinute),
		StartsAt: time.Unix(b.StartsUnix, 0).In(loc), Activity: b.Activity, Room: b.Room, Label: optString(b.Label), Staff: []string{},
	}
	if b.Staff != "" {
		out.Staff = strings.Split(b.Staff, ", ")
	}
	return out
}

func (r *Resolver) bookingPayload(res *models.Result, b *models.SessionBooking, promoted []*models.SessionBooking) *model.BookingPayload {
	out := &model.BookingPayload{DryRun: res.DryRun, Revision: int(res.Revision), Clashes: res.Clashes, Booking: b, Promoted: []models.SessionBooking{}}
	for _, p := range promoted {
		out.Promoted = append(out.Promoted, *p)
	}
	return out
}

func applyCapacityRule(dst *engine.CapacityRule, in model.CapacityRuleInput) {
	set(&dst.RoomID, in.RoomID)
	if in.Weekdays != nil {
		dst.Weekdays = slices.Clone(in.Weekdays)
	}
	set(&dst.From, in.From)
	set(&dst.To, in.To)
	set(&dst.Start, in.Start)
	set(&dst.End, in.End)
	set(&dst.Units, in.Units)
}

// checkInstants refuses an empty, inverted or too long range of instants.
func checkInstants(from, to time.Time) error {
	if !to.After(from) {
		return badInput("to", "The range must end after it starts")
	}
	if to.Sub(from) > MaxDays*24*time.Hour {
		return badInput("to", "Ask for at most %d days at a time", MaxDays)
	}
	return nil
}

// roomSpan checks a room and a range of instants to ask about it, and
// returns the schedule to answer from.
func (r *Resolver) roomSpan(ctx context.Context, roomID int64, from, to time.Time) (*models.Snapshot, error) {
	if err := checkInstants(from, to); err != nil {
		return nil, err
	}
	if _, err := r.room(ctx, roomID); err != nil {
		return nil, err
	}
	return r.snapshot(ctx)
}

func refOf(b *models.SessionBooking) *model.SessionRefInput {
	if b.OneOffID != 0 {
		return nil
	}
	return &model.SessionRefInput{Date: engine.Date(b.OrigDate), ClassTimeID: b.ClassTimeID, ClassID: b.ClassID}
}

func oneOffOf(b *models.SessionBooking) *int64 {
	if b.OneOffID == 0 {
		return nil
	}
	return &b.OneOffID
}

// roomHas refuses a room booking the room has no units left for, saying
// how many there are (the clash proof would refuse it too, as a clash).
func roomHas(e *models.Edit, b engine.RoomBooking) error {
	tt := e.Before.Timetable
	room, ok := tt.Room(b.RoomID)
	if !ok {
		return notFound("room", b.RoomID)
	}
	if !b.Date.Valid() || b.End <= b.Start || b.Units < 0 || b.Units > engine.MaxUnits {
		return nil // validation words it
	}
	loc := e.State.Business.Location
	from, to := b.Date.At(b.Start, loc), b.Date.At(b.End, loc)
	units := b.Units
	if units == 0 {
		units = room.Units()
	}
	free := -1
	for _, s := range tt.RoomTimeline(b.RoomID, from, to, loc) {
		if free < 0 || s.Free < free {
			free = s.Free
		}
	}
	if free >= units {
		return nil
	}
	free = max(free, 0)
	err := engine.Errorf(engine.Full, "units", "Room %q has %s free from %s, not %d", room.Name,
		engine.Word{One: "unit", Many: "units"}.N(free), engine.Span(b.Start, b.End), units)
	err.Details = map[string]any{"unitsFree": free}
	return err
}

func applySubscription(dst *engine.Subscription, in model.SubscriptionInput) {
	set(&dst.ClientID, in.ClientID)
	set(&dst.SeriesID, in.SeriesID)
	set(&dst.PlanID, in.PlanID)
	set(&dst.Start, in.StartDate)
	set(&dst.End, in.EndDate)
}
