package graph

import (
	"context"
	"math"
	"strings"
	"time"

	"github.com/koredyne/schedule/graph/model"
	"github.com/koredyne/schedule/models"
)

// The webhooks' lists and writes (webhooks.graphqls, webhooks.resolvers.go).
// Endpoints live outside the guarded schedule: they are read from the
// database, uncached, for owners and managers (the EditSchedule
// permission), and written through the store's webhook writes, which
// take the business's write lock so an endpoint is sent exactly the
// events of the writes that commit after it.

// errNoWebhooks refuses webhook writes in the playground: its copies live
// in memory, and no server delivers their events.
var errNoWebhooks = &apiError{code: "NOT_SERVED", message: "A playground sends no webhooks; run your own server to register endpoints"}

// endpoints lists the business's endpoints with their queues, in two
// queries.
func (r *Resolver) endpoints(ctx context.Context) ([]model.WebhookEndpoint, error) {
	if err := can(ctx, models.EditSchedule); err != nil {
		return nil, err
	}
	noCache(ctx)
	business := principal(ctx).BusinessID
	rows, err := models.WebhookEndpoints(ctx, r.Store.DB, business)
	if err != nil {
		return nil, err
	}
	queues, err := models.WebhookQueues(ctx, r.Store.DB, business)
	if err != nil {
		return nil, err
	}
	sn, err := r.snapshot(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]model.WebhookEndpoint, len(rows))
	for i := range rows {
		out[i] = r.endpointView(&rows[i], queues[rows[i].ID], sn.State.Business.Location)
	}
	return out, nil
}

// endpoint looks one endpoint up; another business's id is as unknown as
// one that never was.
func (r *Resolver) endpoint(ctx context.Context, id int64) (*model.WebhookEndpoint, error) {
	list, err := r.endpoints(ctx)
	if err != nil {
		return nil, err
	}
	return row(list, id, func(e *model.WebhookEndpoint) int64 { return e.ID }, "webhook endpoint")
}

// endpointView is an endpoint as the API answers it; loc is the
// business's zone, which every instant it answers is in.
func (r *Resolver) endpointView(w *models.WebhookEndpoint, q models.QueueCounts, loc *time.Location) model.WebhookEndpoint {
	v := model.WebhookEndpoint{ID: w.ID, URL: w.URL, Events: w.EventTypes(), Description: optString(w.Description),
		Status: model.WebhookEndpointStatus(strings.ToUpper(string(w.Status))), CreatedAt: time.UnixMilli(w.CreatedMs).In(loc),
		Pending: q.Pending, Delivered: q.Delivered, Failed: q.Failed}
	if w.DisabledReason != "" {
		v.DisabledReason = &w.DisabledReason
	}
	if until := time.UnixMilli(w.OldSecretUntil).In(loc); w.OldSecret != "" && until.After(r.Store.Now()) {
		v.PreviousSecretExpiresAt = &until
	}
	if !q.OldestPending.IsZero() {
		oldest := q.OldestPending.In(loc)
		v.OldestPendingAt = &oldest
	}
	return v
}

// endpointWrite runs a write of one endpoint and answers with it (with
// its secret, when it made one).
func (r *Resolver) endpointWrite(ctx context.Context, dryRun *bool, secret bool, fn func(business int64, dry bool) (*models.WebhookEndpoint, error)) (*model.WebhookEndpointPayload, error) {
	if r.IsPlayground {
		return nil, errNoWebhooks
	}
	if err := can(ctx, models.EditSchedule); err != nil {
		return nil, err
	}
	sn, err := r.snapshot(ctx)
	if err != nil {
		return nil, err
	}
	noCache(ctx)
	dry := dryRun != nil && *dryRun
	w, err := fn(principal(ctx).BusinessID, dry)
	if err != nil {
		return nil, err
	}
	queues, err := models.WebhookQueues(ctx, r.Store.DB, principal(ctx).BusinessID)
	if err != nil {
		return nil, err
	}
	view := r.endpointView(w, queues[w.ID], sn.State.Business.Location)
	p := &model.WebhookEndpointPayload{DryRun: dry, Revision: int(sn.Business.Revision), Endpoint: &view}
	if secret && !dry {
		p.Secret = &w.Secret
	}
	return p, nil
}

// queued runs a write that queues deliveries again.
func (r *Resolver) queued(ctx context.Context, dryRun *bool, fn func(business int64, dry bool) (int, error)) (*model.WebhookQueuedPayload, error) {
	if r.IsPlayground {
		return nil, errNoWebhooks
	}
	if err := can(ctx, models.EditSchedule); err != nil {
		return nil, err
	}
	sn, err := r.snapshot(ctx)
	if err != nil {
		return nil, err
	}
	noCache(ctx)
	dry := dryRun != nil && *dryRun
	n, err := fn(principal(ctx).BusinessID, dry)
	if err != nil {
		return nil, err
	}
	return &model.WebhookQueuedPayload{DryRun: dry, Revision: int(sn.Business.Revision), Queued: n}, nil
}

// endpointInput maps an update's fields: null clears the description and
// may not clear the others.
func endpointInput(in model.UpdateWebhookEndpointInput) (models.EndpointInput, error) {
	var out models.EndpointInput
	var err error
	if out.URL, err = given(in.URL, "url"); err != nil {
		return out, err
	}
	events, ok, err := givenList(in.Events, "events")
	if err != nil {
		return out, err
	}
	if ok {
		out.Events = events
		if events == nil {
			out.Events = []string{}
		}
	}
	if p, ok := in.Description.ValueOK(); ok {
		out.Description = new(string)
		if p != nil {
			*out.Description = *p
		}
	}
	status, err := given(in.Status, "status")
	if err != nil {
		return out, err
	}
	if status != nil {
		s := models.EndpointStatus(strings.ToLower(string(*status)))
		out.Status = &s
	}
	return out, nil
}

// Attempts page newest first: by id, descending.
func attemptKey(id *int64) string { return idKey(math.MaxInt64 - *id) }

// deliveryView is an attempt as the API answers it, its instant in loc,
// the business's zone.
func deliveryView(a *models.WebhookAttempt, loc *time.Location) model.WebhookDelivery {
	v := model.WebhookDelivery{ID: a.ID, EventID: a.EventUID, EventType: a.EventType, Attempt: a.Number,
		At: time.UnixMilli(a.AtMs).In(loc), LatencyMs: a.LatencyMs, Response: a.Answer,
		Outcome: model.WebhookOutcome(strings.ToUpper(a.Outcome))}
	if a.Status != 0 {
		v.Status = &a.Status
	}
	if a.Error != "" {
		v.Error = &a.Error
	}
	return v
}
