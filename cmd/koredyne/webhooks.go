package main

import (
	"context"
	"log/slog"
	"strconv"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/koredyne/schedule/models"
	"github.com/koredyne/schedule/models/webhook"
)

// sendWebhooks has serve deliver the events of the store's database: a
// dispatcher woken by this process's writes and looking at the queues
// every second for the others'. It returns once the dispatcher has let go
// of what it held, after ctx ends, when stop is called.
func sendWebhooks(ctx context.Context, c *Config, store *models.Store, m *Metrics, log *slog.Logger) (stop func()) {
	store.Webhooks.Policy = webhook.Policy{AllowPrivate: c.WebhookAllowPrivate}
	sender := webhook.NewSender(store.Webhooks.Policy, 0)
	d := webhook.NewDispatcher(store, sender, time.Now, log)
	d.Lease = c.WebhookLease
	d.OnResult = m.WebhookResult
	store.Webhooks.OnEvents = func(n int) {
		m.WebhookEvents(n)
		d.Wake()
	}
	m.WebhookBacklog(store.WebhookBacklog)
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		d.Run(ctx)
	}()
	return func() {
		cancel()
		<-done
		sender.Close()
	}
}

// maxEndpointLabels is how many endpoints get series of their own in the
// per-endpoint counters; later ones count as "other", so a server with
// many businesses keeps its metrics bounded.
const maxEndpointLabels = 1000

// webhookMetrics are the webhook collectors of a server.
type webhookMetrics struct {
	events   prometheus.Counter
	attempts *prometheus.CounterVec

	mu        sync.Mutex
	endpoints map[int64]bool
}

// WebhookEvents counts the events a committed write stored.
func (m *Metrics) WebhookEvents(n int) {
	if m == nil {
		return
	}
	m.webhooks().events.Add(float64(n))
}

// WebhookResult counts one attempt by endpoint and outcome: delivered,
// retry (failed, tried again later), failed (given up after 24 hours) or
// gone (410: the endpoint is disabled).
func (m *Metrics) WebhookResult(ep webhook.Endpoint, r webhook.Result) {
	if m == nil {
		return
	}
	w := m.webhooks()
	outcome := string(r.State)
	switch {
	case r.Gone:
		outcome = "gone"
	case r.State == webhook.Pending:
		outcome = "retry"
	}
	w.attempts.WithLabelValues(w.endpoint(ep.ID), outcome).Inc()
}

func (w *webhookMetrics) endpoint(id int64) string {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.endpoints[id] && len(w.endpoints) >= maxEndpointLabels {
		return "other"
	}
	w.endpoints[id] = true
	return strconv.FormatInt(id, 10)
}

// webhooks registers the webhook collectors on first use.
func (m *Metrics) webhooks() *webhookMetrics {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.hooks != nil {
		return m.hooks
	}
	w := &webhookMetrics{
		events: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "koredyne_webhook_events_total",
			Help: "Webhook events this server's committed writes stored in the outbox.",
		}),
		attempts: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "koredyne_webhook_attempts_total",
			Help: "Webhook delivery attempts this server made, by endpoint and outcome: delivered, retry (failed, tried again later), failed (given up after 24 hours of failures) or gone (410: endpoint disabled).",
		}, []string{"endpoint", "outcome"}),
		endpoints: map[int64]bool{},
	}
	m.Registry.MustRegister(w.events, w.attempts)
	m.hooks = w
	return w
}

// WebhookBacklog reports, at each scrape, every active endpoint's queue
// as backlog reads it from the database (for every server on it): the
// events pending and the age of the oldest, per endpoint, and the oldest
// over all of them, which is what to alert on (docs/webhooks.md).
func (m *Metrics) WebhookBacklog(backlog func(context.Context) ([]models.Backlog, error)) {
	if m == nil {
		return
	}
	m.webhooks()
	m.Registry.MustRegister(backlogCollector{backlog,
		prometheus.NewDesc("koredyne_webhook_pending", "Webhook events queued for an active endpoint and not delivered yet, by endpoint and business.", []string{"endpoint", "business"}, nil),
		prometheus.NewDesc("koredyne_webhook_oldest_pending_seconds", "Age of the oldest webhook event not delivered yet to an active endpoint, by endpoint and business.", []string{"endpoint", "business"}, nil),
		prometheus.NewDesc("koredyne_webhook_backlog_oldest_seconds", "Age of the oldest webhook event not delivered yet to any active endpoint (0: none waits).", nil, nil),
	})
}

type backlogCollector struct {
	read                   func(context.Context) ([]models.Backlog, error)
	pending, oldest, worst *prometheus.Desc
}

func (c backlogCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- c.pending
	ch <- c.oldest
	ch <- c.worst
}

func (c backlogCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	list, err := c.read(ctx)
	if err != nil {
		ch <- prometheus.NewInvalidMetric(c.worst, err)
		return
	}
	worst := 0.0
	for _, b := range list {
		age := max(0, time.Since(b.Oldest).Seconds())
		worst = max(worst, age)
		ep, biz := strconv.FormatInt(b.Endpoint, 10), strconv.FormatInt(b.Business, 10)
		ch <- prometheus.MustNewConstMetric(c.pending, prometheus.GaugeValue, float64(b.Pending), ep, biz)
		ch <- prometheus.MustNewConstMetric(c.oldest, prometheus.GaugeValue, age, ep, biz)
	}
	ch <- prometheus.MustNewConstMetric(c.worst, prometheus.GaugeValue, worst)
}
