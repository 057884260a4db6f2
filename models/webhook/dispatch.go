package webhook

import (
	"context"
	crand "crypto/rand"
	"encoding/hex"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"os"
	"sync"
	"time"
)

// Endpoint is an endpoint whose queue a dispatcher holds.
type Endpoint struct {
	ID, Business int64
	URL          string
	// Secrets sign each attempt: the current secret, then the one a
	// rotation replaced while it still signs.
	Secrets []string
}

// Delivery is one event queued for one endpoint.
type Delivery struct {
	ID int64
	// EventID is the event's id, the webhook-id of every attempt.
	EventID string
	Body    []byte
	// Attempts were made since it was queued (or queued again); First is
	// when the first of them was, zero before.
	Attempts int
	First    time.Time
}

// State is where a delivery stands after an attempt.
type State string

const (
	Pending   State = "pending"   // queued, or waiting for its next attempt
	Delivered State = "delivered" // the endpoint answered 2xx
	Failed    State = "failed"    // every attempt for MaxAge failed
)

// Result is one attempt and what it made of its delivery.
type Result struct {
	Delivery Delivery
	Attempt  Attempt
	// Number is the attempt's number since the delivery was queued.
	Number int
	State  State
	// RetryAt is when the next attempt is due, for a delivery still
	// pending; Gone, that the endpoint answered 410 and is disabled.
	RetryAt time.Time
	Gone    bool
}

// Batch is the next deliveries of an endpoint, in order, with the
// endpoint as it is now (a rotation changes its secrets).
type Batch struct {
	Endpoint   Endpoint
	Deliveries []Delivery
}

// Queue is the store of the endpoints' queues a dispatcher drains:
// models.Store. An endpoint's queue is held by one dispatcher at a time,
// by a lease that runs out unless renewed, so that the processes sharing
// a database send each event once between them and a dead process's
// endpoints pass to another once its leases run out.
type Queue interface {
	// Claim leases to owner, until now+lease, up to n endpoints that
	// are active, due (no attempt waits for its time) and have
	// deliveries queued, and that no one holds.
	Claim(ctx context.Context, owner string, now time.Time, lease time.Duration, n int) ([]Endpoint, error)
	// Next returns up to n of the endpoint's queued deliveries, oldest
	// event first, while owner holds it and it is active and due; none
	// otherwise.
	Next(ctx context.Context, endpoint int64, owner string, now time.Time, n int) (Batch, error)
	// Record stores the results of attempts owner made and renews its
	// lease to now+lease: each delivery's state, the endpoint's next
	// attempt for a delivery pending again, the endpoint disabled for
	// one that was gone.
	Record(ctx context.Context, endpoint int64, owner string, now time.Time, lease time.Duration, results []Result) error
	// Release ends owner's lease of the endpoint.
	Release(ctx context.Context, endpoint int64, owner string) error
	// Prune removes the events older than before, with their
	// deliveries, and reports how many.
	Prune(ctx context.Context, before time.Time) (int, error)
}

// The dispatcher's defaults.
const (
	// MaxAge is how long a delivery is retried from its first attempt
	// before it fails.
	MaxAge = 24 * time.Hour
	// Retention is how long events are kept (replayWebhooks reaches
	// back as far).
	Retention = 30 * 24 * time.Hour
	// Lease is how long a process holds an endpoint's queue unless it
	// renews it: how soon another process takes over a dead one's.
	Lease = time.Minute
)

// Backoff is the wait after the attempt-th failed attempt of a delivery:
// 5 seconds, doubling, at most 2 hours, each between half of it and all
// of it at random (the jitter keeps endpoints that failed together from
// being retried together). Over MaxAge it makes about 25 attempts.
func Backoff(attempt int) time.Duration {
	d := 5 * time.Second
	for i := 1; i < attempt && d < 2*time.Hour; i++ {
		d *= 2
	}
	d = min(d, 2*time.Hour)
	return d/2 + rand.N(d/2+1)
}

// outcome is what an attempt makes of a delivery at now: delivered,
// failed once every attempt for maxAge from the first failed, or pending
// until the next attempt: after Backoff, or after what Retry-After asked
// for when that is longer, and never later than the last attempt, which
// is made maxAge after the first.
func outcome(d Delivery, a Attempt, now time.Time, maxAge time.Duration) Result {
	r := Result{Delivery: d, Attempt: a, Number: d.Attempts + 1}
	first := d.First
	if first.IsZero() {
		first = now
	}
	switch {
	case a.OK():
		r.State = Delivered
	case a.Gone():
		r.State, r.Gone = Pending, true
	case !now.Before(first.Add(maxAge)):
		r.State = Failed
	default:
		r.State = Pending
		wait := max(Backoff(r.Number), a.RetryAfter)
		r.RetryAt = now.Add(wait)
		if last := first.Add(maxAge); r.RetryAt.After(last) {
			r.RetryAt = last
		}
	}
	return r
}

// Dispatcher drains the endpoints' queues: at most Workers endpoints at
// once, each in order of its events, one attempt at a time, so a slow
// endpoint holds only its own queue. An endpoint whose attempt failed
// waits for its retry, and its later events wait behind it: events reach
// an endpoint in the order they were written, but for those sent again
// (redeliverWebhook, replayWebhooks, or after a process died between an
// attempt and its record) and those that follow one that failed for
// good.
type Dispatcher struct {
	Queue  Queue
	Sender *Sender
	// Now is the clock of the schedule: leases, retries, webhook-timestamp.
	Now func() time.Time
	// Owner names this process in leases; NewDispatcher makes one up.
	Owner string
	// Lease, MaxAge and Retention: see the constants.
	Lease, MaxAge, Retention time.Duration
	// Workers is how many endpoints are sent to at once; Batch how many
	// deliveries are read at a time; Poll how often the queues are
	// looked at besides Wake.
	Workers, Batch int
	Poll           time.Duration
	Log            *slog.Logger
	// OnResult, when set, hears every attempt (for metrics).
	OnResult func(endpoint Endpoint, r Result)

	wake     chan struct{}
	prunedAt time.Time
}

// NewDispatcher returns a dispatcher with the defaults.
func NewDispatcher(q Queue, s *Sender, now func() time.Time, log *slog.Logger) *Dispatcher {
	host, _ := os.Hostname()
	b := make([]byte, 4)
	crand.Read(b)
	if now == nil {
		now = time.Now
	}
	return &Dispatcher{Queue: q, Sender: s, Now: now, Log: log,
		Owner: fmt.Sprintf("%s/%d/%s", host, os.Getpid(), hex.EncodeToString(b)),
		Lease: Lease, MaxAge: MaxAge, Retention: Retention, Workers: 32, Batch: 100, Poll: time.Second,
		wake: make(chan struct{}, 1)}
}

// Wake has the dispatcher look at the queues now: a write queued events.
func (d *Dispatcher) Wake() {
	select {
	case d.wake <- struct{}{}:
	default:
	}
}

// Run drains the queues until ctx ends, then lets go of what it holds.
func (d *Dispatcher) Run(ctx context.Context) {
	var wg sync.WaitGroup
	// active are the endpoints this process drains; again those claimed
	// anew while their worker was finishing (it had released them), to
	// drain once more as it ends.
	active, again := map[int64]bool{}, map[int64]Endpoint{}
	done := make(chan int64)
	start := func(ep Endpoint) {
		active[ep.ID] = true
		wg.Add(1)
		go func() {
			defer wg.Done()
			d.drain(ctx, ep)
			select {
			case done <- ep.ID:
			case <-ctx.Done():
			}
		}()
	}
	poll := time.NewTicker(d.Poll)
	defer poll.Stop()
	for {
		d.prune(ctx)
		if free := d.Workers - len(active); free > 0 && ctx.Err() == nil {
			eps, err := d.Queue.Claim(ctx, d.Owner, d.Now(), d.Lease, free)
			if err != nil && ctx.Err() == nil {
				d.Log.Warn("webhooks: claiming endpoints", "err", err)
			}
			for _, ep := range eps {
				if active[ep.ID] {
					again[ep.ID] = ep
				} else {
					start(ep)
				}
			}
		}
		select {
		case <-ctx.Done():
			wg.Wait()
			return
		case id := <-done:
			delete(active, id)
			if ep, ok := again[id]; ok {
				delete(again, id)
				start(ep)
			}
		case <-d.wake:
		case <-poll.C:
		}
	}
}

// Tick claims what is due now and drains it, and returns once every
// endpoint it claimed is done: one step of Run, for tests that move
// the clock themselves. It reports the attempts made.
func (d *Dispatcher) Tick(ctx context.Context) (int, error) {
	eps, err := d.Queue.Claim(ctx, d.Owner, d.Now(), d.Lease, d.Workers)
	if err != nil {
		return 0, err
	}
	var mu sync.Mutex
	n := 0
	var wg sync.WaitGroup
	for _, ep := range eps {
		wg.Add(1)
		go func() {
			defer wg.Done()
			k := d.drain(ctx, ep)
			mu.Lock()
			n += k
			mu.Unlock()
		}()
	}
	wg.Wait()
	return n, ctx.Err()
}

// flushEvery is how long results wait to be recorded together while an
// endpoint answers: a fast endpoint's deliveries are recorded a batch at
// a time, a slow one's each as it comes (it renews the lease too).
const flushEvery = 200 * time.Millisecond

// drain sends an endpoint's queue in order until it is empty, an attempt
// fails or ctx ends, and releases the endpoint. It reports the attempts.
func (d *Dispatcher) drain(ctx context.Context, ep Endpoint) int {
	defer func() {
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		if err := d.Queue.Release(rctx, ep.ID, d.Owner); err != nil {
			d.Log.Warn("webhooks: releasing an endpoint", "endpoint", ep.ID, "err", err)
		}
	}()
	n := 0
	for ctx.Err() == nil {
		b, err := d.Queue.Next(ctx, ep.ID, d.Owner, d.Now(), d.Batch)
		if err != nil {
			if ctx.Err() == nil {
				d.Log.Warn("webhooks: reading a queue", "endpoint", ep.ID, "err", err)
			}
			return n
		}
		if len(b.Deliveries) == 0 {
			return n
		}
		var results []Result
		flushed := time.Now()
		for _, dl := range b.Deliveries {
			now := d.Now()
			a := d.Sender.Send(ctx, b.Endpoint.URL, b.Endpoint.Secrets, dl.EventID, dl.Body, now)
			if ctx.Err() != nil {
				break // shutting down: the attempt was cut short, not failed
			}
			n++
			r := outcome(dl, a, now, d.MaxAge)
			if d.OnResult != nil {
				d.OnResult(b.Endpoint, r)
			}
			results = append(results, r)
			if r.State != Delivered {
				break // its later events wait behind it
			}
			if time.Since(flushed) >= flushEvery {
				if !d.record(ctx, ep.ID, results) {
					return n
				}
				results, flushed = results[:0], time.Now()
			}
		}
		if !d.record(ctx, ep.ID, results) || len(results) == 0 || results[len(results)-1].State != Delivered {
			return n
		}
	}
	return n
}

// record stores results; false when it could not.
func (d *Dispatcher) record(ctx context.Context, endpoint int64, results []Result) bool {
	if len(results) == 0 {
		return true
	}
	err := d.Queue.Record(context.WithoutCancel(ctx), endpoint, d.Owner, d.Now(), d.Lease, results)
	if err != nil {
		// The attempts are sent again once the lease runs out: at least
		// once, never lost.
		d.Log.Warn("webhooks: recording attempts", "endpoint", endpoint, "err", err)
		return false
	}
	return true
}

// prune removes expired events at most once an hour.
func (d *Dispatcher) prune(ctx context.Context) {
	now := d.Now()
	if now.Sub(d.prunedAt) < time.Hour {
		return
	}
	d.prunedAt = now
	n, err := d.Queue.Prune(ctx, now.Add(-d.Retention))
	switch {
	case err != nil && ctx.Err() == nil:
		d.Log.Warn("webhooks: removing old events", "err", err)
	case n > 0:
		d.Log.Info("webhooks: removed old events", "events", n)
	}
}
