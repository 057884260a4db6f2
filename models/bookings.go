package models

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/uptrace/bun"

	"github.com/koredyne/schedule/engine"
	"github.com/koredyne/schedule/models/webhook"
)

// BookingStatus is where a place in a session stands.
type BookingStatus string

const (
	Booked     BookingStatus = "booked"
	Waitlisted BookingStatus = "waitlisted"
	Attended   BookingStatus = "attended"
	NoShow     BookingStatus = "no_show"
	Cancelled  BookingStatus = "cancelled"
	LateCancel BookingStatus = "late_cancel"
)

// holdsPlace: the statuses that take one of a session's places.
var holdsPlace = []BookingStatus{Booked, Attended, NoShow}

// countsOnPlan: the statuses that use one of a plan's sessions a month (a
// late cancellation does, a timely one does not).
var countsOnPlan = []BookingStatus{Booked, Attended, NoShow, LateCancel}

// LateCancelWindow is how close to its start a cancellation is late.
const LateCancelWindow = 12 * time.Hour

// SessionBooking is a client's place in one session occurrence, with what
// the session was when it was booked: later edits to the rules never
// rewrite it.
type SessionBooking struct {
	bun.BaseModel `bun:"table:session_bookings"`

	ID             int64 `bun:",pk,autoincrement"`
	BusinessID     int64 `bun:",pk"`
	ClientID       int64
	SubscriptionID int64 `bun:",nullzero"`
	OrigDate       Day
	ClassTimeID    int64 `bun:",nullzero"`
	ClassID        int64 `bun:",nullzero"`
	OneOffID       int64 `bun:",nullzero"`
	Status         BookingStatus
	Position       int // on the wait list: 1 is next
	CreatedUnix    int64
	ChangedUnix    int64
	// The snapshot.
	SessionDate Day
	StartMinute int
	EndMinute   int
	StartsUnix  int64
	Activity    string
	Room        string
	Staff       string // names, comma-separated
	Label       string
}

// Ref names the booked series session (zero class time for a one-off).
func (b *SessionBooking) Ref() engine.SessionRef {
	return engine.SessionRef{Date: engine.Date(b.OrigDate), ClassTimeID: b.ClassTimeID, ClassID: b.ClassID}
}

// Key is the identity of the booked session (engine.Session.Key).
func (b *SessionBooking) Key() string {
	return engine.SessionKey(b.Ref(), b.OneOffID)
}

// sessionWhere narrows a query to the bookings of one session.
func sessionWhere(q *bun.SelectQuery, s *engine.Session) *bun.SelectQuery {
	if s.IsOneOff() {
		return q.Where("one_off_id = ?", s.OneOffID)
	}
	ref := s.Ref()
	return q.Where("orig_date = ?", Day(ref.Date)).Where("class_time_id = ?", ref.ClassTimeID).Where("class_id = ?", ref.ClassID)
}

// BookSession gives a client a place in a session, or a place on its wait
// list when it is full and waitlist is set. It is decided and written
// inside the guarded write, under the business's lock, so two clients never
// get the same last place.
func (e *Edit) BookSession(ctx context.Context, s engine.Session, client int64, waitlist bool, now time.Time) (*SessionBooking, error) {
	w := e.words()
	c, err := e.Client(ctx, client) // an unknown client is NOT_FOUND before anything else
	if err != nil {
		return nil, err
	}
	loc := e.State.Business.Location
	start, _ := s.Instants(loc)
	switch {
	case s.Cancelled:
		return nil, engine.Errorf(engine.Invalid, "ref", "This %s is cancelled and cannot be booked", w.Class.One)
	case !start.After(now):
		return nil, engine.Errorf(engine.Invalid, "ref", "This %s has already started", w.Class.One)
	}
	n, err := e.places(ctx, &s, client)
	if err != nil {
		return nil, err
	}
	if !s.IsOneOff() {
		// Standing places take theirs first: a single booking is refused
		// (or waits) where they and the single bookings fill the session.
		standing := e.Before.Timetable.StandingOn(s.Ref())
		if slices.ContainsFunc(standing, func(r engine.Standing) bool { return r.ClientID == client }) {
			n.mine++
		}
		hold, wait := engine.SplitPlaces(standing, int(s.Capacity), n.taken)
		n.taken, n.queued = n.taken+len(hold), n.queued+len(wait)
	}
	if n.mine > 0 {
		return nil, engine.Errorf(engine.Invalid, "clientId", "%s is already booked into this %s", c.Name, w.Class.One)
	}
	sub, err := e.planAllows(ctx, &s, c)
	if err != nil {
		return nil, err
	}
	b := e.snapshot(&s, client, sub, now)
	if s.Capacity > 0 && n.taken >= int(s.Capacity) {
		if !waitlist {
			err := engine.Errorf(engine.Full, "ref", "This %s is full: no places left of %d; %d waiting", w.Class.One, s.Capacity, n.queued)
			err.Details = map[string]any{"placesLeft": 0, "capacity": s.Capacity, "waitlist": n.queued}
			return nil, err
		}
		b.Status, b.Position = Waitlisted, n.queued+1
	}
	if _, err := e.Tx.NewInsert().Model(b).Returning("id").Exec(ctx); err != nil {
		return nil, fmt.Errorf("storing a booking: %w", err)
	}
	e.changedApart = true
	b.ID = e.invented(b.ID)
	e.Touch(s.Date)
	e.noteBooking(webhook.BookingCreated, b)
	return b, nil
}

// placeCounts is what one session's bookings hold: the places taken, the
// wait list, and whether one client is booked or waiting already.
type placeCounts struct{ taken, queued, mine int }

// places counts a session's bookings in one query.
func (e *Edit) places(ctx context.Context, s *engine.Session, client int64) (placeCounts, error) {
	var n placeCounts
	q := e.Tx.NewSelect().Model((*SessionBooking)(nil)).Where("business_id = ?", e.Business.ID).
		ColumnExpr("coalesce(sum(CASE WHEN status IN (?) THEN 1 ELSE 0 END), 0)", bun.In(holdsPlace)).
		ColumnExpr("coalesce(sum(CASE WHEN status = ? THEN 1 ELSE 0 END), 0)", Waitlisted).
		ColumnExpr("coalesce(sum(CASE WHEN client_id = ? AND status IN (?, ?) THEN 1 ELSE 0 END), 0)", client, Booked, Waitlisted)
	if err := sessionWhere(q, s).Scan(ctx, &n.taken, &n.queued, &n.mine); err != nil {
		return n, fmt.Errorf("counting the places: %w", err)
	}
	return n, nil
}

// snapshot is a new booking holding what the session is now.
func (e *Edit) snapshot(s *engine.Session, client, sub int64, now time.Time) *SessionBooking {
	tt := e.Before.Timetable
	class, _ := tt.Class(s.ClassID)
	activity, _ := tt.Activity(class.ActivityID)
	room, _ := tt.Room(s.RoomID)
	var staff []string
	for _, id := range s.StaffIDs {
		if p, ok := tt.StaffMember(id); ok {
			staff = append(staff, p.Name)
		}
	}
	start, _ := s.Instants(e.State.Business.Location)
	b := &SessionBooking{
		BusinessID: e.Business.ID, ClientID: client, SubscriptionID: sub, Status: Booked,
		CreatedUnix: now.Unix(), ChangedUnix: now.Unix(),
		SessionDate: Day(s.Date), StartMinute: s.Start.Minutes(), EndMinute: s.End.Minutes(), StartsUnix: start.Unix(),
		Activity: activity.Name, Room: room.Name, Staff: strings.Join(staff, ", "), Label: s.Label,
	}
	if s.IsOneOff() {
		b.OneOffID = s.OneOffID
	} else {
		ref := s.Ref()
		b.OrigDate, b.ClassTimeID, b.ClassID = Day(ref.Date), ref.ClassTimeID, ref.ClassID
	}
	return b
}

// planAllows finds the subscription that covers a series session for the
// client and checks its plan's sessions a month (counted by the calendar
// month of the session's date). One-offs are booked without a plan. It
// returns the subscription's id.
func (e *Edit) planAllows(ctx context.Context, s *engine.Session, c engine.Client) (int64, error) {
	if s.IsOneOff() {
		return 0, nil
	}
	w := e.words()
	var subs []Subscription
	series := make([]int64, len(s.Series))
	for i, sw := range s.Series {
		series[i] = sw.SeriesID
	}
	err := e.Tx.NewSelect().Model(&subs).Where("business_id = ?", e.Business.ID).Where("client_id = ?", c.ID).
		Where("series_id IN (?)", bun.In(series)).Where("start_date <= ?", Day(s.Date)).
		WhereGroup(" AND ", func(q *bun.SelectQuery) *bun.SelectQuery {
			return q.Where("end_date IS NULL").WhereOr("end_date >= ?", Day(s.Date))
		}).OrderExpr("id").Scan(ctx)
	if err != nil {
		return 0, err
	}
	if len(subs) == 0 {
		return 0, engine.Errorf(engine.Invalid, "clientId", "%s has no subscription to %s with this %s on %s", c.Name, w.Series.A(), w.Class.One, s.Date)
	}
	// An unlimited plan, or no plan, lets it through; else the first plan
	// with sessions left this month.
	y, m, _ := s.Date.Civil()
	monthStart := engine.MustDate(y, m, 1)
	var over *engine.Error
	for _, sub := range subs {
		var plan *engine.Plan
		for i := range e.State.Plans {
			if e.State.Plans[i].ID == sub.PlanID {
				plan = &e.State.Plans[i]
			}
		}
		if plan == nil || plan.PerMonth == 0 {
			return sub.ID, nil
		}
		used, err := e.Tx.NewSelect().Model((*SessionBooking)(nil)).Where("business_id = ?", e.Business.ID).
			Where("subscription_id = ?", sub.ID).Where("status IN (?)", bun.In(countsOnPlan)).
			Where("session_date >= ?", Day(monthStart)).Where("session_date < ?", Day(monthStart.AddMonths(1))).Count(ctx)
		if err != nil {
			return 0, err
		}
		used += int64(standingInMonth(e.Before.Timetable, &e.State, c.ID, sub.SeriesID, monthStart, monthStart.AddMonths(1)))
		if int(used) < plan.PerMonth {
			return sub.ID, nil
		}
		over = engine.Errorf(engine.OverPlan, "clientId", "%s has used %s of %d this month on the plan %q",
			c.Name, w.Class.N(int(used)), plan.PerMonth, plan.Label(w, e.State.Business.Currency))
		over.Details = map[string]any{"used": used, "limit": plan.PerMonth}
	}
	return 0, over
}

// Booking reads one booking of the edited business.
func (e *Edit) Booking(ctx context.Context, id int64) (*SessionBooking, error) {
	return BookingByID(ctx, e.Tx, e.Business.ID, id)
}

// BookingByID reads one booking of a business; NotFound when it has none
// with that id.
func BookingByID(ctx context.Context, db bun.IDB, business, id int64) (*SessionBooking, error) {
	b := new(SessionBooking)
	err := db.NewSelect().Model(b).Where("business_id = ?", business).Where("id = ?", id).Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, engine.Errorf(engine.NotFound, "id", "There is no booking with id %d", id)
	}
	return b, err
}

// CancelBooking cancels a place or a place on the wait list. A place given
// up closer than LateCancelWindow to the start is a late cancellation (it
// still counts on the plan). A freed place goes to the first on the wait
// list whose plan allows it; the promoted bookings are returned.
func (e *Edit) CancelBooking(ctx context.Context, id int64, now time.Time) (*SessionBooking, []*SessionBooking, error) {
	b, err := e.Booking(ctx, id)
	if err != nil {
		return nil, nil, err
	}
	freed := false
	switch b.Status {
	case Booked:
		freed = true
		b.Status = Cancelled
		if now.After(time.Unix(b.StartsUnix, 0).Add(-LateCancelWindow)) {
			b.Status = LateCancel
		}
	case Waitlisted:
		b.Status, b.Position = Cancelled, 0
	default:
		return nil, nil, engine.Errorf(engine.Invalid, "id", "A booking that is %s cannot be cancelled", strings.ReplaceAll(string(b.Status), "_", " "))
	}
	b.ChangedUnix = now.Unix()
	if _, err := e.Tx.NewUpdate().Model(b).Column("status", "position", "changed_unix").WherePK().Exec(ctx); err != nil {
		return nil, nil, err
	}
	e.changedApart = true
	e.touchBooking(b)
	e.noteBooking(webhook.BookingCancelled, b)
	if err := e.renumberWaitlist(ctx, b); err != nil {
		return nil, nil, err
	}
	if !freed {
		return b, nil, nil
	}
	promoted, err := e.promote(ctx, b, now)
	return b, promoted, err
}

// promote gives the place a booking freed to the first on the session's
// wait list whose plan still allows it.
func (e *Edit) promote(ctx context.Context, freed *SessionBooking, now time.Time) ([]*SessionBooking, error) {
	var queue []*SessionBooking
	q := e.Tx.NewSelect().Model(&queue).Where("business_id = ?", e.Business.ID).Where("status = ?", Waitlisted).OrderExpr("position, id")
	if freed.OneOffID != 0 {
		q = q.Where("one_off_id = ?", freed.OneOffID)
	} else {
		q = q.Where("orig_date = ?", freed.OrigDate).Where("class_time_id = ?", freed.ClassTimeID).Where("class_id = ?", freed.ClassID)
	}
	if err := q.Scan(ctx); err != nil {
		return nil, err
	}
	s := e.sessionOf(freed)
	if s != nil && !s.IsOneOff() && len(queue) > 0 {
		// A standing place that waited takes the freed place itself.
		n, err := e.places(ctx, s, 0)
		if err != nil {
			return nil, err
		}
		if _, wait := engine.SplitPlaces(e.Before.Timetable.StandingOn(s.Ref()), int(s.Capacity), n.taken+1); len(wait) > 0 {
			return nil, nil
		}
	}
	for _, next := range queue {
		if s != nil && !s.IsOneOff() {
			c, err := e.Client(ctx, next.ClientID)
			if err != nil {
				return nil, err
			}
			sub, err := e.planAllows(ctx, s, c)
			if engine.ErrorCode(err) == engine.OverPlan || engine.ErrorCode(err) == engine.Invalid {
				continue // their plan is used up: the next in line
			}
			if err != nil {
				return nil, err
			}
			next.SubscriptionID = sub
		}
		next.Status, next.Position, next.ChangedUnix = Booked, 0, now.Unix()
		if _, err := e.Tx.NewUpdate().Model(next).Column("status", "position", "changed_unix", "subscription_id").WherePK().Exec(ctx); err != nil {
			return nil, err
		}
		e.noteBooking(webhook.BookingPromoted, next)
		return []*SessionBooking{next}, e.renumberWaitlist(ctx, next)
	}
	return nil, nil
}

// renumberWaitlist closes the gaps in a session's wait list.
func (e *Edit) renumberWaitlist(ctx context.Context, of *SessionBooking) error {
	var queue []*SessionBooking
	q := e.Tx.NewSelect().Model(&queue).Where("business_id = ?", e.Business.ID).Where("status = ?", Waitlisted).OrderExpr("position, id")
	if of.OneOffID != 0 {
		q = q.Where("one_off_id = ?", of.OneOffID)
	} else {
		q = q.Where("orig_date = ?", of.OrigDate).Where("class_time_id = ?", of.ClassTimeID).Where("class_id = ?", of.ClassID)
	}
	if err := q.Scan(ctx); err != nil {
		return err
	}
	for i, b := range queue {
		if b.Position != i+1 {
			b.Position = i + 1
			if _, err := e.Tx.NewUpdate().Model(b).Column("position").WherePK().Exec(ctx); err != nil {
				return err
			}
		}
	}
	return nil
}

// sessionOf resolves the session a booking is for, as it is now (nil when
// it no longer happens).
func (e *Edit) sessionOf(b *SessionBooking) *engine.Session {
	tt := e.Before.Timetable
	if b.OneOffID != 0 {
		for _, s := range tt.Day(engine.Date(b.SessionDate)) {
			if s.OneOffID == b.OneOffID {
				return &s
			}
		}
		return nil
	}
	s, ok := tt.Session(b.Ref())
	if !ok {
		return nil
	}
	return &s
}

// MarkAttendance records whether a booked client came, once the session
// has started.
func (e *Edit) MarkAttendance(ctx context.Context, id int64, status BookingStatus, now time.Time) (*SessionBooking, error) {
	if status != Attended && status != NoShow {
		return nil, engine.Errorf(engine.Invalid, "status", "Attendance is attended or no-show")
	}
	b, err := e.Booking(ctx, id)
	if err != nil {
		return nil, err
	}
	switch {
	case b.Status != Booked && b.Status != Attended && b.Status != NoShow:
		return nil, engine.Errorf(engine.Invalid, "id", "Only a booked place can be marked; this one is %s", strings.ReplaceAll(string(b.Status), "_", " "))
	case now.Before(time.Unix(b.StartsUnix, 0)):
		return nil, engine.Errorf(engine.Invalid, "id", "The %s has not started yet", e.words().Class.One)
	case b.Status == status:
		return b, nil // marked so already: nothing changes
	}
	b.Status, b.ChangedUnix = status, now.Unix()
	if _, err := e.Tx.NewUpdate().Model(b).Column("status", "changed_unix").WherePK().Exec(ctx); err != nil {
		return nil, err
	}
	e.changedApart = true
	e.touchBooking(b)
	return b, nil
}

// BookingsOf reads the bookings of sessions, by session key, for the
// sessions' booked counts and lists.
func BookingsOf(ctx context.Context, db bun.IDB, business int64, keys []string) (map[string][]SessionBooking, error) {
	var refs []string
	var oneOffs []int64
	for _, k := range keys {
		if id, ok := strings.CutPrefix(k, "o/"); ok {
			if n, err := strconv.ParseInt(id, 10, 64); err == nil {
				oneOffs = append(oneOffs, n)
			}
		} else {
			refs = append(refs, k)
		}
	}
	var rows []SessionBooking
	q := db.NewSelect().Model(&rows).Where("business_id = ?", business).OrderExpr("status, position, id")
	q = q.WhereGroup(" AND ", func(q *bun.SelectQuery) *bun.SelectQuery {
		q = q.Where("1 = 0")
		if len(oneOffs) > 0 {
			q = q.WhereOr("one_off_id IN (?)", bun.In(oneOffs))
		}
		for _, k := range refs {
			parts := strings.Split(k, "/") // s/<date>/<class time>/<class>
			if len(parts) != 4 {
				continue
			}
			d, err1 := engine.ParseDate(parts[1])
			ct, err2 := strconv.ParseInt(parts[2], 10, 64)
			cl, err3 := strconv.ParseInt(parts[3], 10, 64)
			if err1 == nil && err2 == nil && err3 == nil {
				q = q.WhereOr("(orig_date = ? AND class_time_id = ? AND class_id = ?)", Day(d), ct, cl)
			}
		}
		return q
	})
	if err := q.Scan(ctx); err != nil {
		return nil, fmt.Errorf("reading bookings: %w", err)
	}
	out := make(map[string][]SessionBooking, len(keys))
	for _, r := range rows {
		out[r.Key()] = append(out[r.Key()], r)
	}
	return out, nil
}

// ClientBookings lists a client's bookings (every client's for client 0)
// of sessions from..to (to exclusive), by start.
func ClientBookings(ctx context.Context, db bun.IDB, business, client int64, from, to engine.Date) ([]SessionBooking, error) {
	var rows []SessionBooking
	q := db.NewSelect().Model(&rows).Where("business_id = ?", business).
		Where("session_date >= ?", Day(from)).Where("session_date < ?", Day(to)).OrderExpr("starts_unix, id")
	if client != 0 {
		q = q.Where("client_id = ?", client)
	}
	if err := q.Scan(ctx); err != nil {
		return nil, fmt.Errorf("reading bookings: %w", err)
	}
	return rows, nil
}
