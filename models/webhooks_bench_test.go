package models_test

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/koredyne/schedule/engine"
	"github.com/koredyne/schedule/models"
	"github.com/koredyne/schedule/models/modelstest"
	"github.com/koredyne/schedule/models/webhook"
)

// BenchmarkOutbox measures what the outbox adds to a guarded write on
// PostgreSQL (gym demo, an endpoint for every event type): each
// iteration makes the same write twice, once with the outbox left out
// and once with it, so that the load of a shared machine falls on both
// alike, and the medians of each are reported (off-ms, on-ms) with their
// difference (added-ms). A cancellation toggled on one date
// (schedule.changed, session.cancelled, who is booked read) and a room
// renamed (a rule: 90 days of sessions compared, none changed).
func BenchmarkOutbox(b *testing.B) {
	d, ok := modelstest.Postgres(b)
	if !ok {
		b.Skip("needs PostgreSQL")
	}
	ctx := context.Background()
	c := &clock{t: today}
	store, biz, _ := webhookBusiness(&testing.T{}, d.DB, c, "http://127.0.0.1:1/hooks")
	off := models.NewStore(d.DB, c.now)
	models.WithoutOutbox(off)
	s := firstSession(&testing.T{}, store, biz, 0)
	for _, w := range []struct {
		name string
		edit func(e *models.Edit, i int)
	}{
		{"cancel", func(e *models.Edit, i int) {
			if i%2 == 0 {
				e.State.Changes = append(e.State.Changes, engine.DayChange{Ref: s.Ref(), Cancelled: true})
			} else {
				e.State.Changes = e.State.Changes[:len(e.State.Changes)-1]
			}
		}},
		{"rename", func(e *models.Edit, i int) { e.State.Rooms[0].Name = fmt.Sprintf("Ring %d", i) }},
	} {
		b.Run(w.name, func(b *testing.B) {
			var times [2][]time.Duration
			i := 0
			for b.Loop() {
				for k, st := range []*models.Store{off, store} {
					i++
					start := time.Now()
					if _, err := st.Write(ctx, biz.ID, false, func(e *models.Edit) error { w.edit(e, i); return nil }); err != nil {
						b.Fatal(err)
					}
					times[k] = append(times[k], time.Since(start))
				}
			}
			median := func(l []time.Duration) float64 {
				slices.Sort(l)
				return float64(l[len(l)/2]) / float64(time.Millisecond)
			}
			mOff, mOn := median(times[0]), median(times[1])
			b.ReportMetric(mOff, "off-ms")
			b.ReportMetric(mOn, "on-ms")
			b.ReportMetric(mOn-mOff, "added-ms")
		})
	}
}

// BenchmarkDeliveries measures one dispatcher delivering to fast loopback
// receivers on PostgreSQL: events queued beforehand, the timer on from
// the first attempt to the last record; with a 2-second endpoint beside
// them, which must not slow them.
func BenchmarkDeliveries(b *testing.B) {
	if _, ok := modelstest.Postgres(b); !ok {
		b.Skip("needs PostgreSQL")
	}
	ctx := context.Background()
	var got atomic.Int64
	fast := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got.Add(1)
		w.WriteHeader(http.StatusNoContent)
	}))
	defer fast.Close()
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(2 * time.Second)
		w.WriteHeader(http.StatusNoContent)
	}))
	defer slow.Close()
	for _, tc := range []struct {
		name      string
		endpoints int
		slow      bool
	}{{"endpoints=1", 1, false}, {"endpoints=4", 4, false}, {"endpoints=1+slow", 1, true}} {
		b.Run(tc.name, func(b *testing.B) {
			d, _ := modelstest.Postgres(b) // a schema of its own each time b.Run runs this
			store, biz := demoBusiness(b, d.DB, engine.Gym)
			store.Webhooks.Policy = webhook.Policy{AllowPrivate: true}
			url := fast.URL
			for range tc.endpoints {
				if _, err := store.CreateWebhookEndpoint(ctx, biz.ID, models.EndpointInput{URL: &url, Events: []string{"schedule.changed"}}, false); err != nil {
					b.Fatal(err)
				}
			}
			if tc.slow {
				su := slow.URL
				if _, err := store.CreateWebhookEndpoint(ctx, biz.ID, models.EndpointInput{URL: &su, Events: []string{"schedule.changed"}}, false); err != nil {
					b.Fatal(err)
				}
			}
			const perEndpoint = 2000
			n := perEndpoint / tc.endpoints
			if err := models.QueueEvents(ctx, d.DB, biz, n); err != nil {
				b.Fatal(err)
			}
			want := got.Load() + int64(n*tc.endpoints)
			disp := webhook.NewDispatcher(store, webhook.NewSender(webhook.Policy{AllowPrivate: true}, 0), time.Now, slog.New(slog.DiscardHandler))
			run, stop := context.WithCancel(ctx)
			var wg sync.WaitGroup
			b.ResetTimer()
			start := time.Now()
			wg.Add(1)
			go func() { defer wg.Done(); disp.Run(run) }()
			for got.Load() < want {
				time.Sleep(time.Millisecond)
			}
			took := time.Since(start)
			b.StopTimer()
			stop()
			wg.Wait()
			b.ReportMetric(float64(n*tc.endpoints)/took.Seconds(), "events/s")
		})
	}
}
