package models

import (
	"context"
	"crypto/rand"
	"encoding/base32"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/uptrace/bun"

	"github.com/koredyne/schedule/engine"
	"github.com/koredyne/schedule/models/webhook"
)

// The events of a write (docs/webhooks.md) are computed from the same
// before and after as its clashes and stored in its transaction, the
// outbox: a write that rolls back, or a dry run, leaves none, and one
// that commits leaves all of them, for the dispatcher to send whenever
// it gets to them — even if the process dies the instant after COMMIT.

// WebhookEvent is one event of the outbox: what a committed write did,
// as the JSON every endpoint that asked for its type is sent.
type WebhookEvent struct {
	bun.BaseModel `bun:"table:webhook_events"`

	ID         int64 `bun:",pk,autoincrement"`
	BusinessID int64 `bun:",pk"`
	// UID is the event's id as sent ("evt_…"): the webhook-id of every
	// attempt, the receiver's idempotency key.
	UID       string `bun:"uid"`
	Type      string
	Revision  int64
	CreatedMs int64
	Body      string
}

// SessionEventDays is how far ahead of today a write's per-session events
// reach (session.cancelled, .moved, …), and maxSessionEvents how many
// one write sends: a rule edited for every future date changes sessions
// without end, and schedule.changed already names every date it changed
// (its data says "more" when sessions were left out).
const (
	SessionEventDays = 90
	maxSessionEvents = 1000
)

// noted is an event a write's own code knows of: a booking made or
// cancelled, a client added.
type noted struct {
	typ      string
	data     map[string]any
	sessions []string
	clients  []int64
}

// note records an event of the write.
func (e *Edit) note(typ string, data map[string]any, sessions []string, clients ...int64) {
	e.noted = append(e.noted, noted{typ, data, sessions, clients})
}

// noteBooking records a booking event.
func (e *Edit) noteBooking(typ string, b *SessionBooking) {
	loc := e.State.Business.Location
	key := b.Key()
	e.note(typ, map[string]any{
		"booking": map[string]any{"id": strconv.FormatInt(b.ID, 10), "status": string(b.Status), "position": b.Position,
			"late": b.Status == LateCancel},
		"session": map[string]any{"id": key, "date": engine.Date(b.SessionDate).String(),
			"start": engine.LocalTime(b.StartMinute).String(), "end": engine.LocalTime(b.EndMinute).String(),
			"startsAt": time.Unix(b.StartsUnix, 0).In(loc).Format(time.RFC3339),
			"activity": b.Activity, "room": b.Room, "staff": b.Staff, "label": b.Label},
	}, []string{key}, b.ClientID)
}

// noteClient records a client added.
func (e *Edit) noteClient(id int64) { e.note(webhook.ClientCreated, map[string]any{}, nil, id) }

// events are the events of a write that moves business b from before to
// after (change): one schedule.changed, the session events of the dates
// it changed from today up to SessionEventDays ahead, and the events its
// code noted, with the clients each names read in the write's
// transaction. A write that replaced the whole schedule sends no session
// events: every session's identity changed with it.
func (s *Store) events(ctx context.Context, e *Edit, before, after *Snapshot, c Change, now time.Time) ([]WebhookEvent, error) {
	if s.Webhooks.off {
		return nil, nil
	}
	today := after.Today(now)
	var diffs []engine.SessionDiff
	if !e.replaced && (c.From != c.To || c.Open) {
		from, to := max(c.From, today), today.AddDays(SessionEventDays)
		if !c.Open {
			to = min(to, c.To)
		}
		if from < to {
			diffs = engine.DiffSessions(before.Timetable, after.Timetable, from, to)
		}
	}
	more := len(diffs) > maxSessionEvents
	diffs = diffs[:min(len(diffs), maxSessionEvents)]
	booked, err := bookedClients(ctx, e.Tx, e.Business.ID, diffs, e.bookingsRead)
	if err != nil {
		return nil, err
	}
	var list []noted
	for i := range diffs {
		if n, ok := sessionEvent(&diffs[i], before.Timetable, after.Timetable, booked[diffs[i].Key()]); ok {
			list = append(list, n...)
		}
	}
	list = append(list, e.noted...)
	// schedule.changed comes first and names everything the write's
	// other events name.
	changed := noted{typ: webhook.ScheduleChanged, data: map[string]any{"from": c.From.String(), "to": nil}}
	if !c.Open {
		changed.data["to"] = c.To.String()
	}
	if more {
		changed.data["more"] = true
	}
	for _, n := range list {
		changed.sessions = append(changed.sessions, n.sessions...)
		changed.clients = append(changed.clients, n.clients...)
	}
	list = append([]noted{changed}, list...)
	var ids []int64
	for _, n := range list {
		ids = append(ids, n.clients...)
	}
	clients := map[int64]engine.Client{}
	if len(ids) > 0 {
		if clients, err = e.clientsByID(ctx, unique(ids)); err != nil {
			return nil, err
		}
	}
	out := make([]WebhookEvent, len(list))
	for i, n := range list {
		if out[i], err = envelope(e.Business, after.Business.Revision, now, n, clients); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// envelope is an event as sent: its id, type, timestamp, business and
// revision, and its data with the sessions and clients it names.
func envelope(b *Business, revision int64, now time.Time, n noted, clients map[int64]engine.Client) (WebhookEvent, error) {
	data := map[string]any{}
	for k, v := range n.data {
		data[k] = v
	}
	data["sessions"] = nonNil(uniqueStrings(n.sessions))
	named := []map[string]any{}
	for _, id := range unique(n.clients) {
		if c, ok := clients[id]; ok {
			named = append(named, map[string]any{"id": strconv.FormatInt(c.ID, 10), "name": c.Name, "email": c.Email, "phone": c.Phone})
		}
	}
	data["clients"] = named
	ev := WebhookEvent{BusinessID: b.ID, UID: newEventID(), Type: n.typ, Revision: revision, CreatedMs: now.UnixMilli()}
	body, err := json.Marshal(map[string]any{
		"id": ev.UID, "type": n.typ, "timestamp": now.UTC().Format("2006-01-02T15:04:05.000Z"),
		"business": map[string]any{"id": strconv.FormatInt(b.ID, 10), "slug": b.Slug, "name": b.Name},
		"revision": revision, "data": data,
	})
	ev.Body = string(body)
	return ev, err
}

// newEventID makes an event id: "evt_" and 128 random bits.
func newEventID() string {
	b := make([]byte, 16)
	rand.Read(b)
	return "evt_" + strings.ToLower(base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(b))
}

// sessionEvent is what one session's difference sends: session.cancelled
// for a session cancelled or gone; else session.restored for one on
// again, and session.moved for one on another date or session.changed
// for one re-timed, re-roomed, re-staffed, re-classed or resized on its
// date. A session only added sends none: schedule.changed names its date.
func sessionEvent(d *engine.SessionDiff, before, after *engine.Timetable, clients []int64) ([]noted, bool) {
	key := d.Key()
	one := func(typ string, data map[string]any) noted { return noted{typ, data, []string{key}, clients} }
	var out []noted
	switch {
	case d.What.Has(engine.Cancelled):
		s := sessionJSON(&d.Before, before)
		data := map[string]any{"session": s, "removed": d.What.Has(engine.Removed), "reason": ""}
		if d.Is {
			data["session"] = sessionJSON(&d.After, after)
			data["reason"] = d.After.Reason()
		}
		return []noted{one(webhook.SessionCancelled, data)}, true
	case d.What.Has(engine.Restored):
		out = append(out, one(webhook.SessionRestored, map[string]any{"session": sessionJSON(&d.After, after)}))
	}
	changes := changesOf(d.What)
	switch {
	case d.What.Has(engine.Moved):
		out = append(out, one(webhook.SessionMoved, map[string]any{"changes": changes,
			"from": sessionJSON(&d.Before, before), "to": sessionJSON(&d.After, after)}))
	case len(changes) > 0:
		out = append(out, one(webhook.SessionChanged, map[string]any{"changes": changes,
			"before": sessionJSON(&d.Before, before), "after": sessionJSON(&d.After, after)}))
	}
	return out, len(out) > 0
}

// changesOf names what changed on a session's date, as session.changed
// and session.moved list it.
func changesOf(w engine.What) []string {
	out := []string{}
	for _, c := range []struct {
		bit  engine.What
		name string
	}{{engine.Moved, "date"}, {engine.Retimed, "time"}, {engine.Rehoused, "room"}, {engine.Restaffed, "staff"},
		{engine.Reclassed, "class"}, {engine.Resized, "capacity"}} {
		if w.Has(c.bit) {
			out = append(out, c.name)
		}
	}
	return out
}

// sessionJSON is a session as events show it, with the names of its
// room, activity and staff in tt (its revision's timetable).
func sessionJSON(s *engine.Session, tt *engine.Timetable) map[string]any {
	loc := tt.State().Business.Location
	start, end := s.Instants(loc)
	room, _ := tt.Room(s.RoomID)
	class, _ := tt.Class(s.ClassID)
	activity, _ := tt.Activity(class.ActivityID)
	staff := []map[string]any{}
	for _, id := range s.StaffIDs {
		p, _ := tt.StaffMember(id)
		staff = append(staff, map[string]any{"id": strconv.FormatInt(id, 10), "name": p.Name})
	}
	return map[string]any{
		"id": s.Key(), "date": s.Date.String(), "start": s.Start.String(), "end": s.End.String(),
		"startsAt": start.Format(time.RFC3339), "endsAt": end.Format(time.RFC3339),
		"room":  map[string]any{"id": strconv.FormatInt(s.RoomID, 10), "name": room.Name},
		"class": map[string]any{"id": strconv.FormatInt(s.ClassID, 10), "activity": activity.Name},
		"staff": staff, "label": s.Label, "capacity": s.Capacity, "cancelled": s.Cancelled,
	}
}

// bookedClients reads, in one query, the clients who hold a place or
// wait for one in each session of diffs, and those who come to its
// one-offs, by session key. The query asks for the sessions' original
// dates (and one-offs) and the keys are matched here: a list of every
// session's (date, class time, class) would be an expression too deep
// for SQLite once a write changes hundreds of sessions. When the write's
// impact has read the bookings of every session of diffs (read, nil when
// it read none) and diffs hold no one-off (whose clients are also in
// one_off_clients), they are found there instead: a write that answers
// its impact reads the bookings once.
func bookedClients(ctx context.Context, tx bun.Tx, business int64, diffs []engine.SessionDiff, read *bookingsRead) (map[string][]int64, error) {
	out := map[string][]int64{}
	if len(diffs) == 0 {
		return out, nil
	}
	if read != nil {
		keys := make(map[engine.SessionRef]string, len(diffs))
		for i := range diffs {
			s := &diffs[i].Before
			if !diffs[i].Was {
				s = &diffs[i].After
			}
			if s.IsOneOff() || !read.holds(s.Ref()) {
				keys = nil
				break
			}
			keys[s.Ref()] = diffs[i].Key()
		}
		if keys != nil {
			for _, b := range read.rows {
				if key, ok := keys[b.Ref()]; ok && b.OneOffID == 0 {
					out[key] = append(out[key], b.ClientID)
				}
			}
			return out, nil
		}
	}
	keys := map[string]bool{}
	var dates []Day
	var oneOffs []int64
	for i := range diffs {
		keys[diffs[i].Key()] = true
		s := &diffs[i].Before
		if !diffs[i].Was {
			s = &diffs[i].After
		}
		if s.IsOneOff() {
			oneOffs = append(oneOffs, s.OneOffID)
		} else {
			dates = append(dates, Day(s.Ref().Date))
		}
	}
	q := tx.NewSelect().Model((*SessionBooking)(nil)).
		ColumnExpr("orig_date, class_time_id, class_id, one_off_id, client_id").
		Where("business_id = ?", business).Where("status IN (?)", bun.In(append(slices.Clone(holdsPlace), Waitlisted))).
		WhereGroup(" AND ", func(q *bun.SelectQuery) *bun.SelectQuery {
			q = q.Where("1 = 0")
			if len(dates) > 0 {
				q = q.WhereOr("orig_date IN (?)", bun.In(slices.Compact(dates)))
			}
			if len(oneOffs) > 0 {
				q = q.WhereOr("one_off_id IN (?)", bun.In(oneOffs))
			}
			return q
		})
	if len(oneOffs) > 0 {
		q = q.UnionAll(tx.NewSelect().Model((*OneOffClient)(nil)).
			ColumnExpr("NULL, NULL, NULL, one_off_id, client_id").
			Where("business_id = ?", business).Where("one_off_id IN (?)", bun.In(oneOffs)))
	}
	rows, err := tx.QueryContext(ctx, q.String())
	if err != nil {
		return nil, fmt.Errorf("reading who is booked: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var date Day
		var ct, class, oneOff, client *int64
		if err := rows.Scan(&date, &ct, &class, &oneOff, &client); err != nil {
			return nil, err
		}
		key := ""
		if oneOff != nil && *oneOff != 0 {
			key = engine.SessionKey(engine.SessionRef{}, *oneOff)
		} else if ct != nil && class != nil {
			key = engine.SessionRef{Date: engine.Date(date), ClassTimeID: *ct, ClassID: *class}.Key()
		}
		if client != nil && keys[key] {
			out[key] = append(out[key], *client)
		}
	}
	return out, rows.Err()
}

// writeEvents stores a committed write's events and queues each for
// every endpoint of the business, active or paused, that asked for its
// type. On PostgreSQL it is one statement, which also announces the
// write's change when there is one (announce): the outbox then costs a
// write no round trip of its own.
func writeEvents(ctx context.Context, tx bun.Tx, business int64, events []WebhookEvent, change *Change) error {
	if len(events) == 0 {
		if change != nil {
			return announce(ctx, tx, *change)
		}
		return nil
	}
	if tx.Dialect().Name().String() == "pg" {
		q, err := eventsStatement(tx, events, change)
		if err != nil {
			return err
		}
		if _, err := q.Exec(ctx); err != nil {
			return fmt.Errorf("writing the webhook events: %w", err)
		}
		return nil
	}
	if _, err := tx.NewInsert().Model(&events).Returning("business_id, id, type").Exec(ctx); err != nil {
		return fmt.Errorf("writing the webhook events: %w", err)
	}
	ids := make([]int64, len(events))
	for i := range events {
		ids[i] = events[i].ID
	}
	if _, err := tx.NewRaw("WITH v AS (SELECT business_id, id, type FROM webhook_events WHERE business_id = ? AND id IN (?)) "+fanOut,
		business, bun.In(ids)).Exec(ctx); err != nil {
		return fmt.Errorf("queueing the webhook events: %w", err)
	}
	return nil
}

const fanOut = `INSERT INTO webhook_deliveries (business_id, endpoint_id, event_id)
		SELECT v.business_id, e.id, v.id FROM v JOIN webhook_endpoints AS e ON e.business_id = v.business_id
		AND e.status IN ('active', 'paused') AND e.events LIKE '%,' || v.type || ',%'`

// eventsStatement is writeEvents on PostgreSQL as one statement, for a
// write to send with others; nil when there is nothing to write.
func eventsStatement(tx bun.Tx, events []WebhookEvent, change *Change) (*bun.RawQuery, error) {
	if len(events) == 0 {
		if change == nil {
			return nil, nil
		}
		return notification(tx, *change)
	}
	insert := tx.NewInsert().Model(&events).Returning("business_id, id, type")
	if change == nil {
		return tx.NewRaw("WITH v AS (?) "+fanOut, insert), nil
	}
	// A statement's data-modifying WITH runs whole whatever its last part
	// reads (PostgreSQL's manual, 7.8.4).
	notify, err := notification(tx, *change)
	if err != nil {
		return nil, err
	}
	return tx.NewRaw("WITH v AS (?), queued AS ("+fanOut+") ?", insert, notify), nil
}

// restoredEvents are the events of a business restored from a backup:
// schedule.changed for every date it holds sessions on, and
// client.created for each client.
func restoredEvents(ctx context.Context, tx bun.Tx, b *Business, st engine.State, now time.Time) error {
	var clients []Client
	if err := tx.NewSelect().Model(&clients).Where("business_id = ?", b.ID).OrderExpr("id").Scan(ctx); err != nil {
		return err
	}
	byID := map[int64]engine.Client{}
	list := []noted{{typ: webhook.ScheduleChanged, data: map[string]any{"from": min(firstDate(st), engine.DateOf(now.In(st.Business.Location))).String(), "to": nil}}}
	for _, c := range clients {
		byID[c.ID] = c.Engine()
		list[0].clients = append(list[0].clients, c.ID)
		list = append(list, noted{typ: webhook.ClientCreated, data: map[string]any{}, clients: []int64{c.ID}})
	}
	events := make([]WebhookEvent, len(list))
	for i, n := range list {
		var err error
		if events[i], err = envelope(b, b.Revision, now, n, byID); err != nil {
			return err
		}
	}
	return writeEvents(ctx, tx, b.ID, events, nil)
}

// firstDate is the first date a state holds a session on, or the last
// date there is when it holds none.
func firstDate(s engine.State) engine.Date {
	first := engine.MaxDate
	for _, sr := range s.Series {
		first = min(first, sr.Anchor)
	}
	for _, o := range s.OneOffs {
		first = min(first, o.Date)
	}
	for _, c := range s.Changes {
		first = min(first, c.Ref.Date)
	}
	return first
}

func unique(ids []int64) []int64 {
	out := slices.Clone(ids)
	slices.Sort(out)
	return slices.Compact(out)
}

func uniqueStrings(s []string) []string {
	out := slices.Clone(s)
	slices.Sort(out)
	return slices.Compact(out)
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
