package graph

import (
	"cmp"
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

// visible reports whether the request may see a row about client: a
// CLIENT token sees its own client's rows only, every other role all.
func visible(ctx context.Context, client int64) bool {
	p := principal(ctx)
	return p.Role != models.ClientRole || (p.ClientID != 0 && client == p.ClientID)
}

// ownOnly narrows rows about clients to those the request may see. A
// client never learns who else the business serves.
func ownOnly[T any](ctx context.Context, rows []T, clientOf func(*T) int64) []T {
	if principal(ctx).Role != models.ClientRole {
		return rows
	}
	return slices.DeleteFunc(slices.Clone(rows), func(v T) bool { return !visible(ctx, clientOf(&v)) })
}

// own answers a row found by id if the request may see it, NOT_FOUND (as
// for an id the business does not have) otherwise.
func own[T any](ctx context.Context, v *T, found bool, client int64, what string, id int64) (*T, error) {
	if !found || !visible(ctx, client) {
		return nil, notFound(what, id)
	}
	return v, nil
}

func clientID(c *engine.Client) int64             { return c.ID }
func subscriberID(sub *engine.Subscription) int64 { return sub.ClientID }
func bookerID(b *models.SessionBooking) int64     { return b.ClientID }

// The documented orders of the connections, as pageOf keys: clients by
// name without case, then id; subscriptions by start date, then id;
// bookings by the session's start, then id; room bookings by date, start,
// then id.
func clientKey(c *engine.Client) string { return strings.ToLower(c.Name) + "\x00" + idKey(c.ID) }
func membershipKey(s *engine.Subscription) string {
	return seqKey(int64(s.Start), s.ID)
}
func bookingKey(b *models.SessionBooking) string { return seqKey(b.StartsUnix, b.ID) }
func roomBookingKey(b *engine.RoomBooking) string {
	return seqKey(int64(b.Date), int64(b.Start), b.ID)
}

// sessionNamed reads how a mutation names a session: by exactly one of its
// id, its ref and a one-off's id. It returns the argument that named it,
// which the errors about the session name too.
func sessionNamed(id *model.SessionID, ref *model.SessionRefInput, oneOffID *int64) (engine.SessionRef, int64, string, error) {
	given := 0
	for _, p := range []bool{id != nil, ref != nil, oneOffID != nil} {
		if p {
			given++
		}
	}
	switch {
	case given != 1:
		return engine.SessionRef{}, 0, "", badInput("sessionId", "Name the session by exactly one of sessionId, ref and oneOffId, not %d", given)
	case id != nil:
		return id.Ref, id.OneOff, "sessionId", nil
	case ref != nil:
		return engine.SessionRef{Date: ref.Date, ClassTimeID: ref.ClassTimeID, ClassID: ref.ClassID}, 0, "ref", nil
	}
	return engine.SessionRef{}, *oneOffID, "oneOffId", nil
}

// bookable finds the session a booking names: a series session by its ref,
// or a one-off (oneOff not 0). Its errors name the field ref, as the
// session's own errors do: namedBy puts the argument the client named it by.
func bookable(tt *engine.Timetable, st *engine.State, ref engine.SessionRef, oneOff int64) (engine.Session, error) {
	if oneOff == 0 {
		s, ok := tt.Session(ref)
		if !ok {
			return s, engine.Errorf(engine.NotFound, "ref", "There is no such session on %s", ref.Date)
		}
		return s, nil
	}
	for _, o := range st.OneOffs {
		if o.ID == oneOff {
			for _, s := range tt.Day(o.Date) {
				if s.OneOffID == o.ID {
					return s, nil
				}
			}
		}
	}
	return engine.Session{}, engine.Errorf(engine.NotFound, "ref", "There is no one-off with id %d", oneOff)
}

// bookedSession is how a booking names its session.
func bookedSession(b *models.SessionBooking) (engine.SessionRef, int64) {
	if b.OneOffID != 0 {
		return engine.SessionRef{}, b.OneOffID
	}
	return engine.SessionRef{Date: engine.Date(b.OrigDate), ClassTimeID: b.ClassTimeID, ClassID: b.ClassID}, 0
}

// Who sees who is in a session — its bookings, and a one-off's clients — is
// one rule, and every path to them goes through it: bookings and booking,
// Session.bookings, OneOff.clients, and what bookSession, cancelBooking and
// markAttendance return (booking, promoted).
//
//   - OWNER, MANAGER and FRONT_DESK see everyone;
//   - a token tied to a staff member (STAFF with staffId) sees everyone in
//     the sessions that member leads, as the session now is (a cover sees
//     the bookings of the session they cover);
//   - a CLIENT token sees its own client, never another;
//   - READ_ONLY, and a STAFF token tied to no one, see no one.
//
// How many are booked (Session.booked, waitlist, placesLeft) is for every
// role: a client may learn that a place went to someone, never to whom.

// whoSees returns the rule for the request: whether it may see client in
// a session led by staff (asked only when the rule needs it).
func whoSees(ctx context.Context) func(staff func() []int64, client int64) bool {
	p := principal(ctx)
	switch {
	case p.Role.Can(models.EditClients):
		return func(func() []int64, int64) bool { return true }
	case p.Role == models.ClientRole:
		return func(_ func() []int64, client int64) bool { return p.ClientID != 0 && client == p.ClientID }
	case p.StaffID != 0:
		return func(staff func() []int64, _ int64) bool { return slices.Contains(staff(), p.StaffID) }
	}
	return func(func() []int64, int64) bool { return false }
}

// seenBookings narrows bookings to those the request may see (whoSees),
// each with the staff of its session as sn makes it; a booking whose
// session no longer happens is seen by no staff token.
func seenBookings(ctx context.Context, sn *models.Snapshot, bs []models.SessionBooking) []models.SessionBooking {
	sees := whoSees(ctx)
	return slices.DeleteFunc(slices.Clone(bs), func(b models.SessionBooking) bool {
		return !sees(func() []int64 {
			ref, oneOff := bookedSession(&b)
			s, err := bookable(sn.Timetable, &sn.State, ref, oneOff)
			if err != nil {
				return nil
			}
			return s.StaffIDs
		}, b.ClientID)
	})
}

// seenIn narrows the people in one session, led by staff, to those the
// request may see (whoSees).
func seenIn[T any](ctx context.Context, staff []engine.Staff, rows []T, person func(*T) int64) []T {
	sees := whoSees(ctx)
	ids := func() []int64 {
		out := make([]int64, len(staff))
		for i, s := range staff {
			out[i] = s.ID
		}
		return out
	}
	return slices.DeleteFunc(slices.Clone(rows), func(v T) bool { return !sees(ids, person(&v)) })
}

// clientOf loads the client a row names, for the row's client field. The
// lists and lookups already leave out what the request may not see; this
// is the last guard, on the one type that holds client data: a CLIENT
// token never gets another client, whatever path led there.
func clientOf(ctx context.Context, id int64) (*engine.Client, error) {
	if !visible(ctx, id) {
		return nil, errForbidden
	}
	c, err := loadersFrom(ctx).client.Load(ctx, id)
	return &c, err
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

// bookingPayload answers a booking write. The booking is the caller's to
// see (each mutation checks who may act on it); the bookings promoted from
// the wait list are other clients', and pass through whoSees.
func bookingPayload(ctx context.Context, res *models.Result, b *models.SessionBooking, promoted []*models.SessionBooking) *model.BookingPayload {
	out := &model.BookingPayload{DryRun: res.DryRun, Revision: int(res.Revision), Clashes: res.Clashes, Booking: b, Promoted: []models.SessionBooking{}}
	for _, p := range promoted {
		out.Promoted = append(out.Promoted, *p)
	}
	out.Promoted = seenBookings(ctx, res.After, out.Promoted)
	return out
}

// updateCapacityRule applies an UpdateCapacityRuleInput (see keep): the
// weekdays are a list, which [] empties (for an override) and null cannot.
func updateCapacityRule(dst *engine.CapacityRule, in model.UpdateCapacityRuleInput) error {
	days, set, err := givenList(in.Weekdays, "weekdays")
	if err != nil {
		return err
	}
	if set {
		dst.Weekdays = slices.Clone(days)
	}
	clearable(&dst.From, in.From)
	clearable(&dst.To, in.To)
	return cmp.Or(keep(&dst.RoomID, in.RoomID, "roomId"), keep(&dst.Start, in.Start, "start"),
		keep(&dst.End, in.End, "end"), keep(&dst.Units, in.Units, "units"))
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
		return nil, namedBy("roomId", err)
	}
	return r.snapshot(ctx)
}

// roomHas refuses a room booking the room has no units left for, saying
// how many there are (the clash proof would refuse it too, as a clash).
func roomHas(e *models.Edit, b engine.RoomBooking) error {
	tt := e.Before.Timetable
	room, ok := tt.Room(b.RoomID)
	if !ok {
		return namedBy("roomId", notFound("room", b.RoomID))
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

// updateSubscription applies an UpdateSubscriptionInput (see keep).
func updateMembership(dst *engine.Subscription, in model.UpdateMembershipInput) error {
	clearable(&dst.PlanID, in.PlanID)
	clearable(&dst.End, in.EndDate)
	return cmp.Or(keep(&dst.ClientID, in.ClientID, "clientId"), keep(&dst.SeriesID, in.SeriesID, "seriesId"),
		keep(&dst.Start, in.StartDate, "startDate"))
}

// saveRow runs a create (id 0) or an update of a row kept outside the
// schedule (a client, a subscription): load reads it, change changes it,
// store saves it, all in the guarded write.
func saveRow[T any](ctx context.Context, r *Resolver, id int64, dryRun *bool,
	load func(*models.Edit, context.Context, int64) (T, error), change func(*T) error,
	store func(*models.Edit, context.Context, T) (T, error),
) (*T, *models.Result, error) {
	var v T
	res, err := r.write(ctx, models.EditClients, dryRun, func(e *models.Edit) error {
		var err error
		if id != 0 {
			if v, err = load(e, ctx, id); err != nil {
				return err
			}
		}
		if err := change(&v); err != nil {
			return err
		}
		v, err = store(e, ctx, v)
		return err
	})
	return &v, res, err
}
