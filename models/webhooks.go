package models

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/uptrace/bun"

	"github.com/koredyne/schedule/engine"
	"github.com/koredyne/schedule/models/webhook"
)

// WebhookEndpoint is an endpoint a business sends its events to.
type WebhookEndpoint struct {
	bun.BaseModel `bun:"table:webhook_endpoints"`

	ID          int64  `bun:",pk,autoincrement"`
	BusinessID  int64  `bun:",pk"`
	URL         string `bun:"url"`
	Events      string // ",type,type,": LIKE finds a type in it in either dialect
	Description string
	Secret      string
	// OldSecret, until OldSecretUntil (Unix ms), signs beside Secret: a
	// rotation's grace for receivers that still check the old one.
	OldSecret      string
	OldSecretUntil int64
	Status         EndpointStatus
	DisabledReason string
	CreatedMs      int64
	UpdatedMs      int64
	// The dispatcher's: when an endpoint whose attempt failed is tried
	// again, and who holds its queue until when.
	RetryAtMs    int64
	LeaseOwner   string
	LeaseUntilMs int64
}

// EndpointStatus is whether an endpoint is sent to.
type EndpointStatus string

const (
	// EndpointActive endpoints are sent their events.
	EndpointActive EndpointStatus = "active"
	// EndpointPaused endpoints keep queueing their events, unsent, until
	// they are active again.
	EndpointPaused EndpointStatus = "paused"
	// EndpointDisabled endpoints answered 410 Gone: nothing is queued for
	// them until an owner makes them active again, which sends what was
	// queued before.
	EndpointDisabled EndpointStatus = "disabled"
)

// EventTypes lists the types the endpoint asked for.
func (w *WebhookEndpoint) EventTypes() []string {
	return strings.FieldsFunc(w.Events, func(r rune) bool { return r == ',' })
}

// Secrets are the secrets that sign an attempt at now: the current one,
// and the one a rotation replaced while its grace lasts.
func (w *WebhookEndpoint) Secrets(now time.Time) []string {
	if w.OldSecret != "" && now.UnixMilli() < w.OldSecretUntil {
		return []string{w.Secret, w.OldSecret}
	}
	return []string{w.Secret}
}

// WebhookDelivery is one event queued for one endpoint; its key is the
// endpoint and the event.
type WebhookDelivery struct {
	bun.BaseModel `bun:"table:webhook_deliveries"`

	BusinessID     int64 `bun:",pk"`
	EndpointID     int64 `bun:",pk"`
	EventID        int64 `bun:",pk"`
	Status         webhook.State
	Attempts       int
	FirstAttemptMs int64
	DoneMs         int64
}

// WebhookAttempt is one attempt to deliver an event: the delivery log.
type WebhookAttempt struct {
	bun.BaseModel `bun:"table:webhook_attempts,alias:a"`

	ID         int64 `bun:",pk,autoincrement"`
	BusinessID int64 `bun:",pk"`
	EndpointID int64
	EventID    int64
	Number     int
	AtMs       int64
	Status     int
	LatencyMs  int
	Answer     string
	Error      string
	// Outcome is delivered, retry, failed or gone.
	Outcome string
	// The event's id and type, read with the attempt.
	EventUID  string `bun:"event_uid,scanonly"`
	EventType string `bun:"event_type,scanonly"`
}

// Webhooks is a store's webhook settings.
type Webhooks struct {
	// Policy says which endpoints may be registered.
	Policy webhook.Policy
	// OnEvents, when set, hears how many events each committed write
	// stored (for metrics, and to wake the dispatcher).
	OnEvents func(n int)
	// off leaves the outbox out of writes: benchmarks measure what it
	// adds.
	off bool
}

// maxEndpoints is how many endpoints a business may have.
const maxEndpoints = 20

// EndpointInput is what an endpoint is registered or updated with; a nil
// field of an update keeps its value.
type EndpointInput struct {
	URL         *string
	Events      []string
	Description *string
	Status      *EndpointStatus
}

// webhookWrite runs fn in a transaction that holds the business's write
// lock, as the guarded write does, so that an endpoint's events are
// exactly those of the writes that commit after it; a dry run rolls
// back.
func (s *Store) webhookWrite(ctx context.Context, business int64, dryRun bool, fn func(tx bun.Tx) error) error {
	err := s.DB.RunInTx(ctx, &sql.TxOptions{}, func(ctx context.Context, tx bun.Tx) error {
		if _, err := businessByID(ctx, tx, business, true); err != nil {
			return err
		}
		if err := fn(tx); err != nil {
			return err
		}
		if dryRun {
			return errDryRun
		}
		return nil
	})
	if errors.Is(err, errDryRun) {
		return nil
	}
	return err
}

// checkEndpoint checks what an endpoint is registered or updated with.
func (s *Store) checkEndpoint(ctx context.Context, in EndpointInput, w *WebhookEndpoint) error {
	if in.URL != nil {
		u, err := s.Webhooks.Policy.CheckURL(ctx, *in.URL)
		if err != nil {
			return err
		}
		w.URL = u.String()
	}
	if in.Events != nil {
		if len(in.Events) == 0 {
			return engine.Errorf(engine.Invalid, "events", "An endpoint asks for at least one event type")
		}
		for _, t := range in.Events {
			if !webhook.Known(t) {
				return engine.Errorf(engine.Invalid, "events", "%q is not an event type: webhookEventTypes lists them", t)
			}
		}
		w.Events = "," + strings.Join(uniqueStrings(in.Events), ",") + ","
	}
	if in.Description != nil {
		if err := engine.NameText.Check("description", "The description", *in.Description); err != nil {
			return err
		}
		w.Description = *in.Description
	}
	if in.Status != nil {
		switch *in.Status {
		case EndpointActive:
			if w.Status != EndpointActive {
				w.DisabledReason, w.RetryAtMs = "", 0
			}
		case EndpointPaused:
		default:
			return engine.Errorf(engine.Invalid, "status", "An endpoint is made active or paused, not %s", *in.Status)
		}
		w.Status = *in.Status
	}
	return nil
}

// CreateWebhookEndpoint registers an endpoint of a business, with a new
// secret, which only this answer shows.
func (s *Store) CreateWebhookEndpoint(ctx context.Context, business int64, in EndpointInput, dryRun bool) (*WebhookEndpoint, error) {
	now := s.now().UnixMilli()
	w := &WebhookEndpoint{BusinessID: business, Secret: webhook.NewSecret(), Status: EndpointActive, CreatedMs: now, UpdatedMs: now}
	if in.URL == nil {
		return nil, engine.Errorf(engine.Invalid, "url", "An endpoint needs its URL")
	}
	if in.Events == nil {
		in.Events = []string{}
	}
	if in.Description == nil {
		in.Description = new(string)
	}
	if err := s.checkEndpoint(ctx, in, w); err != nil {
		return nil, err
	}
	err := s.webhookWrite(ctx, business, dryRun, func(tx bun.Tx) error {
		n, err := tx.NewSelect().Model((*WebhookEndpoint)(nil)).Where("business_id = ?", business).Count(ctx)
		if err != nil {
			return err
		}
		if n >= maxEndpoints {
			return engine.Errorf(engine.Invalid, "url", "A business has at most %d endpoints: delete one first", maxEndpoints)
		}
		_, err = tx.NewInsert().Model(w).Returning("id").Exec(ctx)
		return err
	})
	if err != nil {
		return nil, err
	}
	if dryRun {
		w.ID = s.ProvisionalID() // the id the insert drew was rolled back with it
	}
	return w, nil
}

// UpdateWebhookEndpoint changes an endpoint's URL, event types,
// description or status (active or paused).
func (s *Store) UpdateWebhookEndpoint(ctx context.Context, business, id int64, in EndpointInput, dryRun bool) (*WebhookEndpoint, error) {
	var w *WebhookEndpoint
	err := s.webhookWrite(ctx, business, dryRun, func(tx bun.Tx) error {
		var err error
		if w, err = WebhookEndpointByID(ctx, tx, business, id); err != nil {
			return err
		}
		if err := s.checkEndpoint(ctx, in, w); err != nil {
			return err
		}
		w.UpdatedMs = s.now().UnixMilli()
		_, err = tx.NewUpdate().Model(w).Column("url", "events", "description", "status", "disabled_reason", "retry_at_ms", "updated_ms").
			WherePK().Exec(ctx)
		return err
	})
	if err != nil {
		return nil, err
	}
	return w, nil
}

// SecretGrace is how long a rotated secret goes on signing beside the new one.
const SecretGrace = 24 * time.Hour

// RotateWebhookSecret gives an endpoint a new secret; the old one signs
// beside it for SecretGrace.
func (s *Store) RotateWebhookSecret(ctx context.Context, business, id int64, dryRun bool) (*WebhookEndpoint, error) {
	var w *WebhookEndpoint
	err := s.webhookWrite(ctx, business, dryRun, func(tx bun.Tx) error {
		var err error
		if w, err = WebhookEndpointByID(ctx, tx, business, id); err != nil {
			return err
		}
		now := s.now()
		w.OldSecret, w.OldSecretUntil = w.Secret, now.Add(SecretGrace).UnixMilli()
		w.Secret, w.UpdatedMs = webhook.NewSecret(), now.UnixMilli()
		_, err = tx.NewUpdate().Model(w).Column("secret", "old_secret", "old_secret_until", "updated_ms").WherePK().Exec(ctx)
		return err
	})
	if err != nil {
		return nil, err
	}
	return w, nil
}

// DeleteWebhookEndpoint removes an endpoint with its queue and log.
func (s *Store) DeleteWebhookEndpoint(ctx context.Context, business, id int64, dryRun bool) (*WebhookEndpoint, error) {
	var w *WebhookEndpoint
	err := s.webhookWrite(ctx, business, dryRun, func(tx bun.Tx) error {
		var err error
		if w, err = WebhookEndpointByID(ctx, tx, business, id); err != nil {
			return err
		}
		_, err = tx.NewDelete().Model(w).WherePK().Exec(ctx)
		return err
	})
	if err != nil {
		return nil, err
	}
	return w, nil
}

// WebhookEndpoints lists a business's endpoints, by id.
func WebhookEndpoints(ctx context.Context, db bun.IDB, business int64) ([]WebhookEndpoint, error) {
	var out []WebhookEndpoint
	if err := db.NewSelect().Model(&out).Where("business_id = ?", business).OrderExpr("id").Scan(ctx); err != nil {
		return nil, fmt.Errorf("reading webhook endpoints: %w", err)
	}
	return out, nil
}

// WebhookEndpointByID reads one endpoint of a business; NotFound for an
// id it does not have (another business's included).
func WebhookEndpointByID(ctx context.Context, db bun.IDB, business, id int64) (*WebhookEndpoint, error) {
	w := new(WebhookEndpoint)
	err := db.NewSelect().Model(w).Where("business_id = ?", business).Where("id = ?", id).Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, engine.Errorf(engine.NotFound, "id", "There is no webhook endpoint with id %d", id)
	}
	return w, err
}

// QueueCounts are how many deliveries of an endpoint stand where.
type QueueCounts struct {
	Pending, Delivered, Failed int
	// OldestPending is when the oldest event still pending was written
	// (zero when none is).
	OldestPending time.Time
}

// WebhookQueues counts the deliveries of every endpoint of a business,
// in one query, by endpoint.
func WebhookQueues(ctx context.Context, db bun.IDB, business int64) (map[int64]QueueCounts, error) {
	var rows []struct {
		EndpointID int64
		Status     webhook.State
		N          int
		Oldest     sql.NullInt64
	}
	err := db.NewSelect().TableExpr("webhook_deliveries AS d").Join("JOIN webhook_events AS v ON v.business_id = d.business_id AND v.id = d.event_id").
		ColumnExpr("d.endpoint_id, d.status, count(*) AS n, min(v.created_ms) AS oldest").
		Where("d.business_id = ?", business).GroupExpr("d.endpoint_id, d.status").Scan(ctx, &rows)
	out := map[int64]QueueCounts{}
	for _, r := range rows {
		q := out[r.EndpointID]
		switch r.Status {
		case webhook.Pending:
			q.Pending = r.N
			if r.Oldest.Valid {
				q.OldestPending = time.UnixMilli(r.Oldest.Int64)
			}
		case webhook.Delivered:
			q.Delivered = r.N
		case webhook.Failed:
			q.Failed = r.N
		}
		out[r.EndpointID] = q
	}
	return out, err
}

// WebhookAttemptIDs lists the ids of an endpoint's attempts, newest first:
// its delivery log, which the caller pages through (WebhookAttemptsByID).
func WebhookAttemptIDs(ctx context.Context, db bun.IDB, business, endpoint int64) ([]int64, error) {
	var ids []int64
	err := db.NewSelect().Model((*WebhookAttempt)(nil)).Column("id").Where("business_id = ?", business).
		Where("endpoint_id = ?", endpoint).OrderExpr("id DESC").Scan(ctx, &ids)
	return ids, err
}

// WebhookAttemptsByID reads attempts of a business with their events' ids
// and types, in the order of ids.
func WebhookAttemptsByID(ctx context.Context, db bun.IDB, business int64, ids []int64) ([]WebhookAttempt, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	var rows []WebhookAttempt
	err := db.NewSelect().Model(&rows).ColumnExpr("a.*, v.uid AS event_uid, v.type AS event_type").
		Join("JOIN webhook_events AS v ON v.business_id = a.business_id AND v.id = a.event_id").
		Where("a.business_id = ?", business).Where("a.id IN (?)", bun.In(ids)).Scan(ctx)
	if err != nil {
		return nil, err
	}
	slices.SortFunc(rows, func(a, b WebhookAttempt) int { return slices.Index(ids, a.ID) - slices.Index(ids, b.ID) })
	return rows, nil
}

// endpointArg reports an unknown endpoint under the argument that named
// it, endpointId (WebhookEndpointByID says id, as for the endpoint's own
// mutations).
func endpointArg(err error) error {
	var e *engine.Error
	if errors.As(err, &e) && e.Code == engine.NotFound {
		named := *e
		named.Field = "endpointId"
		return &named
	}
	return err
}

// WebhookEventByUID reads one event of a business by its id ("evt_…").
func WebhookEventByUID(ctx context.Context, db bun.IDB, business int64, uid string) (*WebhookEvent, error) {
	ev := new(WebhookEvent)
	err := db.NewSelect().Model(ev).Where("business_id = ?", business).Where("uid = ?", uid).Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, engine.Errorf(engine.NotFound, "eventId", "There is no event %q (events are kept 30 days)", uid)
	}
	return ev, err
}

// RedeliverWebhook queues an event again for the endpoints it was queued
// for (or for endpoint alone, when not 0): at the head of each queue,
// since a queue goes in event order, with its attempts counted afresh.
// It returns how many deliveries it queued.
func (s *Store) RedeliverWebhook(ctx context.Context, business int64, uid string, endpoint int64, dryRun bool) (int, error) {
	n := 0
	err := s.webhookWrite(ctx, business, dryRun, func(tx bun.Tx) error {
		ev, err := WebhookEventByUID(ctx, tx, business, uid)
		if err != nil {
			return err
		}
		if endpoint != 0 {
			w, err := WebhookEndpointByID(ctx, tx, business, endpoint)
			if err != nil {
				return endpointArg(err)
			}
			if !slices.Contains(w.EventTypes(), ev.Type) {
				return engine.Errorf(engine.Invalid, "endpointId", "Endpoint %d does not ask for %s events", endpoint, ev.Type)
			}
		}
		n, err = requeue(ctx, tx, business, endpoint, []int64{ev.ID})
		return err
	})
	return n, err
}

// ReplayWebhooks queues again, for one endpoint, every event of its types
// written since since, those it was never sent included (events from
// before it was registered, a restored backup's): the queue sends them in
// order, before any later event. It returns how many it queued.
func (s *Store) ReplayWebhooks(ctx context.Context, business, endpoint int64, since time.Time, dryRun bool) (int, error) {
	n := 0
	err := s.webhookWrite(ctx, business, dryRun, func(tx bun.Tx) error {
		w, err := WebhookEndpointByID(ctx, tx, business, endpoint)
		if err != nil {
			return endpointArg(err)
		}
		var ids []int64
		if err := tx.NewSelect().Model((*WebhookEvent)(nil)).Column("id").Where("business_id = ?", business).
			Where("created_ms >= ?", since.UnixMilli()).Where("type IN (?)", bun.In(w.EventTypes())).OrderExpr("id").
			Scan(ctx, &ids); err != nil {
			return err
		}
		if len(ids) == 0 {
			return nil
		}
		n, err = requeue(ctx, tx, business, endpoint, ids)
		return err
	})
	return n, err
}

// requeue makes the deliveries of events pending again for endpoint (for
// every endpoint that has one when 0), adding those endpoint lacks.
func requeue(ctx context.Context, tx bun.Tx, business, endpoint int64, events []int64) (int, error) {
	n := 0
	for chunk := range slices.Chunk(events, 500) {
		q := tx.NewUpdate().Model((*WebhookDelivery)(nil)).
			Set("status = ?", webhook.Pending).Set("attempts = 0").Set("first_attempt_ms = 0").Set("done_ms = 0").
			Where("business_id = ?", business).Where("event_id IN (?)", bun.In(chunk))
		if endpoint != 0 {
			q = q.Where("endpoint_id = ?", endpoint)
		}
		res, err := q.Exec(ctx)
		if err != nil {
			return 0, err
		}
		k, _ := res.RowsAffected()
		n += int(k)
		if endpoint == 0 {
			continue
		}
		rows := make([]WebhookDelivery, len(chunk))
		for i, id := range chunk {
			rows[i] = WebhookDelivery{BusinessID: business, EndpointID: endpoint, EventID: id, Status: webhook.Pending}
		}
		res, err = tx.NewInsert().Model(&rows).On("CONFLICT DO NOTHING").Exec(ctx)
		if err != nil {
			return 0, err
		}
		k, _ = res.RowsAffected()
		n += int(k)
	}
	if endpoint != 0 {
		// An endpoint waiting for a retry sends what was queued again now.
		if _, err := tx.NewUpdate().Model((*WebhookEndpoint)(nil)).Set("retry_at_ms = 0").
			Where("business_id = ?", business).Where("id = ?", endpoint).Exec(ctx); err != nil {
			return 0, err
		}
	}
	return n, nil
}

// The queue of every endpoint, as the dispatcher drains it
// (webhook.Queue).

var _ webhook.Queue = (*Store)(nil)

// Claim leases due endpoints to owner (webhook.Queue). On PostgreSQL
// the rows are taken FOR UPDATE SKIP LOCKED: processes claiming at once
// each get others, and one that reads a lease just taken skips it.
func (s *Store) Claim(ctx context.Context, owner string, now time.Time, lease time.Duration, n int) ([]webhook.Endpoint, error) {
	skipLocked := ""
	if s.DB.Postgres() {
		skipLocked = " FOR UPDATE SKIP LOCKED"
	}
	var rows []WebhookEndpoint
	ms := now.UnixMilli()
	err := s.DB.NewRaw(`UPDATE webhook_endpoints SET lease_owner = ?, lease_until_ms = ?
		WHERE id IN (SELECT e.id FROM webhook_endpoints AS e
			WHERE e.status = 'active' AND e.retry_at_ms <= ? AND e.lease_until_ms < ?
			AND EXISTS (SELECT 1 FROM webhook_deliveries AS d WHERE d.business_id = e.business_id AND d.endpoint_id = e.id AND d.status = 'pending')
			ORDER BY e.retry_at_ms, e.id LIMIT ?`+skipLocked+`)
		RETURNING *`, owner, now.Add(lease).UnixMilli(), ms, ms, n).Scan(ctx, &rows)
	if err != nil {
		return nil, fmt.Errorf("claiming webhook endpoints: %w", err)
	}
	out := make([]webhook.Endpoint, len(rows))
	for i := range rows {
		out[i] = endpointOf(&rows[i], now)
	}
	return out, nil
}

func endpointOf(w *WebhookEndpoint, now time.Time) webhook.Endpoint {
	return webhook.Endpoint{ID: w.ID, Business: w.BusinessID, URL: w.URL, Secrets: w.Secrets(now)}
}

// Next reads an endpoint's next deliveries (webhook.Queue).
func (s *Store) Next(ctx context.Context, endpoint int64, owner string, now time.Time, n int) (webhook.Batch, error) {
	var b webhook.Batch
	w := new(WebhookEndpoint)
	if err := s.DB.NewSelect().Model(w).Where("id = ?", endpoint).Scan(ctx); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return b, nil // deleted meanwhile
		}
		return b, err
	}
	ms := now.UnixMilli()
	if w.LeaseOwner != owner || w.LeaseUntilMs <= ms || w.Status != EndpointActive || w.RetryAtMs > ms {
		return b, nil
	}
	b.Endpoint = endpointOf(w, now)
	var rows []struct {
		EventID        int64
		Attempts       int
		FirstAttemptMs int64
		UID            string
		Body           string
	}
	err := s.DB.NewSelect().TableExpr("webhook_deliveries AS d").Join("JOIN webhook_events AS v ON v.business_id = d.business_id AND v.id = d.event_id").
		ColumnExpr("d.event_id, d.attempts, d.first_attempt_ms, v.uid, v.body").
		Where("d.business_id = ?", w.BusinessID).Where("d.endpoint_id = ?", endpoint).Where("d.status = ?", webhook.Pending).
		OrderExpr("d.event_id").Limit(int64(n)).Scan(ctx, &rows)
	if err != nil {
		return b, fmt.Errorf("reading a webhook queue: %w", err)
	}
	for _, r := range rows {
		d := webhook.Delivery{ID: r.EventID, EventID: r.UID, Body: []byte(r.Body), Attempts: r.Attempts}
		if r.FirstAttemptMs != 0 {
			d.First = time.UnixMilli(r.FirstAttemptMs)
		}
		b.Deliveries = append(b.Deliveries, d)
	}
	return b, nil
}

// Record stores attempts (webhook.Queue).
func (s *Store) Record(ctx context.Context, endpoint int64, owner string, now time.Time, lease time.Duration, results []webhook.Result) error {
	return s.DB.RunInTx(ctx, &sql.TxOptions{}, func(ctx context.Context, tx bun.Tx) error {
		var business int64
		if err := tx.NewSelect().Model((*WebhookEndpoint)(nil)).Column("business_id").Where("id = ?", endpoint).Scan(ctx, &business); err != nil {
			if errors.Is(err, sql.ErrNoRows) {
				return nil // deleted meanwhile, with its queue
			}
			return err
		}
		attempts := make([]WebhookAttempt, len(results))
		var delivered []int64
		for i, r := range results {
			a := &attempts[i]
			*a = WebhookAttempt{BusinessID: business, EndpointID: endpoint, EventID: r.Delivery.ID, Number: r.Number,
				AtMs: r.Attempt.At.UnixMilli(), Status: r.Attempt.Status, LatencyMs: int(r.Attempt.Latency.Milliseconds()),
				Answer: printable(r.Attempt.Answer), Error: r.Attempt.Error, Outcome: outcomeOf(r)}
			if r.State == webhook.Delivered {
				delivered = append(delivered, r.Delivery.ID)
				continue
			}
			first := r.Delivery.First
			if first.IsZero() {
				first = r.Attempt.At
			}
			d := &WebhookDelivery{BusinessID: business, EndpointID: endpoint, EventID: r.Delivery.ID, Status: r.State,
				Attempts: r.Number, FirstAttemptMs: first.UnixMilli()}
			if r.State == webhook.Failed {
				d.DoneMs = now.UnixMilli()
			}
			if _, err := tx.NewUpdate().Model(d).Column("status", "attempts", "first_attempt_ms", "done_ms").WherePK().
				Where("status = ?", webhook.Pending).Exec(ctx); err != nil {
				return err
			}
		}
		if _, err := tx.NewInsert().Model(&attempts).Exec(ctx); err != nil {
			return fmt.Errorf("logging webhook attempts: %w", err)
		}
		if len(delivered) > 0 {
			if _, err := tx.NewUpdate().Model((*WebhookDelivery)(nil)).Set("status = ?", webhook.Delivered).
				Set("attempts = attempts + 1").Set("done_ms = ?", now.UnixMilli()).
				Where("business_id = ?", business).Where("endpoint_id = ?", endpoint).Where("event_id IN (?)", bun.In(delivered)).
				Where("status = ?", webhook.Pending).Exec(ctx); err != nil {
				return err
			}
		}
		q := tx.NewUpdate().Model((*WebhookEndpoint)(nil)).Where("business_id = ?", business).Where("id = ?", endpoint)
		last := results[len(results)-1]
		switch {
		case last.Gone:
			q = q.Set("status = ?", EndpointDisabled).Set("disabled_reason = ?", fmt.Sprintf("answered 410 Gone at %s", last.Attempt.At.UTC().Format(time.RFC3339)))
		case last.State == webhook.Pending:
			q = q.Set("retry_at_ms = ?", last.RetryAt.UnixMilli())
		default:
			q = q.Set("retry_at_ms = 0")
		}
		q = q.Set("lease_until_ms = CASE WHEN lease_owner = ? THEN ? ELSE lease_until_ms END", owner, now.Add(lease).UnixMilli())
		_, err := q.Exec(ctx)
		return err
	})
}

func outcomeOf(r webhook.Result) string {
	switch {
	case r.Gone:
		return "gone"
	case r.State == webhook.Pending:
		return "retry"
	}
	return string(r.State)
}

// printable is an answer's first bytes as text the database keeps: valid
// UTF-8 without NUL.
func printable(b []byte) string {
	s := strings.ToValidUTF8(string(b), "\uFFFD")
	if !utf8.ValidString(s) || strings.ContainsRune(s, 0) {
		s = strings.ReplaceAll(s, "\x00", "\uFFFD")
	}
	return s
}

// Release ends a lease (webhook.Queue).
func (s *Store) Release(ctx context.Context, endpoint int64, owner string) error {
	_, err := s.DB.NewUpdate().Model((*WebhookEndpoint)(nil)).Set("lease_owner = ''").Set("lease_until_ms = 0").
		Where("id = ?", endpoint).Where("lease_owner = ?", owner).Exec(ctx)
	return err
}

// Prune removes old events with their deliveries and attempts
// (webhook.Queue).
func (s *Store) Prune(ctx context.Context, before time.Time) (int, error) {
	res, err := s.DB.NewDelete().Model((*WebhookEvent)(nil)).Where("created_ms < ?", before.UnixMilli()).Exec(ctx)
	if err != nil {
		return 0, err
	}
	n, _ := res.RowsAffected()
	return int(n), nil
}

// Backlog is one active endpoint's queue, for metrics.
type Backlog struct {
	Endpoint, Business int64
	Pending            int
	Oldest             time.Time
}

// WebhookBacklog reports the queue of every active endpoint that has
// deliveries pending.
func (s *Store) WebhookBacklog(ctx context.Context) ([]Backlog, error) {
	var rows []struct {
		EndpointID, BusinessID int64
		N                      int
		Oldest                 int64
	}
	err := s.DB.NewSelect().TableExpr("webhook_deliveries AS d").
		Join("JOIN webhook_endpoints AS e ON e.business_id = d.business_id AND e.id = d.endpoint_id").
		Join("JOIN webhook_events AS v ON v.business_id = d.business_id AND v.id = d.event_id").
		ColumnExpr("d.endpoint_id, d.business_id, count(*) AS n, min(v.created_ms) AS oldest").
		Where("d.status = ?", webhook.Pending).Where("e.status = ?", EndpointActive).
		GroupExpr("d.endpoint_id, d.business_id").Scan(ctx, &rows)
	out := make([]Backlog, len(rows))
	for i, r := range rows {
		out[i] = Backlog{Endpoint: r.EndpointID, Business: r.BusinessID, Pending: r.N, Oldest: time.UnixMilli(r.Oldest)}
	}
	return out, err
}
