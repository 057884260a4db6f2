package models_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"

	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/koredyne/schedule/engine"
	"github.com/koredyne/schedule/models"
	"github.com/koredyne/schedule/models/modelstest"
	"github.com/koredyne/schedule/models/webhook"
)

// clock is a clock tests move by hand.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time      { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) set(t time.Time)     { c.mu.Lock(); defer c.mu.Unlock(); c.t = t }
func (c *clock) add(d time.Duration) { c.set(c.now().Add(d)) }

// receiver is a real HTTP endpoint on loopback that records what it is
// sent and answers as answer says.
type receiver struct {
	*httptest.Server
	mu       sync.Mutex
	received []received
	answer   func(r *http.Request, n int) int // n: requests so far, this one included
}

type received struct {
	ID, Timestamp, Signature string
	Body                     []byte
	Event                    struct {
		ID, Type string
		Revision int64
		Data     map[string]any
	}
}

func newReceiver(t *testing.T) *receiver {
	rc := &receiver{answer: func(*http.Request, int) int { return http.StatusNoContent }}
	rc.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		rc.mu.Lock()
		got := received{ID: r.Header.Get("webhook-id"), Timestamp: r.Header.Get("webhook-timestamp"),
			Signature: r.Header.Get("webhook-signature"), Body: body}
		json.Unmarshal(body, &got.Event)
		rc.received = append(rc.received, got)
		n := len(rc.received)
		answer := rc.answer
		rc.mu.Unlock()
		w.WriteHeader(answer(r, n))
	}))
	t.Cleanup(rc.Close)
	return rc
}

func (rc *receiver) got() []received {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return slices.Clone(rc.received)
}

// webhookBusiness is the gym demo with an endpoint at url that asks for
// types, on a store whose clock is c.
func webhookBusiness(t *testing.T, db *models.DB, c *clock, url string, types ...string) (*models.Store, *models.Business, *models.WebhookEndpoint) {
	t.Helper()
	store, b := demoBusiness(t, db, engine.Gym)
	store = models.NewStore(db, c.now)
	store.Webhooks.Policy = webhook.Policy{AllowPrivate: true}
	if len(types) == 0 {
		for _, ty := range webhook.Types() {
			types = append(types, ty.Name)
		}
	}
	ep, err := store.CreateWebhookEndpoint(context.Background(), b.ID, models.EndpointInput{URL: &url, Events: types}, false)
	if err != nil {
		t.Fatal(err)
	}
	return store, b, ep
}

func dispatcher(store *models.Store, c *clock, timeout time.Duration) *webhook.Dispatcher {
	return webhook.NewDispatcher(store, webhook.NewSender(webhook.Policy{AllowPrivate: true}, timeout), c.now, slog.New(slog.NewTextHandler(os.Stderr, nil)))
}

// firstSession is the first session of the demo's next week that is on.
func firstSession(t *testing.T, store *models.Store, b *models.Business, skip int) engine.Session {
	t.Helper()
	sn, err := store.Snapshot(context.Background(), b.ID, -1)
	if err != nil {
		t.Fatal(err)
	}
	for d := engine.DateOf(today).AddDays(7); d < engine.DateOf(today).AddDays(14); d++ {
		for _, s := range sn.Timetable.Day(d) {
			if !s.Cancelled && !s.IsOneOff() {
				if skip == 0 {
					return s
				}
				skip--
			}
		}
	}
	t.Fatal("no session next week")
	return engine.Session{}
}

func outbox(t *testing.T, db *models.DB, business int64) []models.WebhookEvent {
	t.Helper()
	var out []models.WebhookEvent
	if err := db.NewSelect().Model(&out).Where("business_id = ?", business).OrderExpr("id").Scan(context.Background()); err != nil {
		t.Fatal(err)
	}
	return out
}

func typesOf(events []models.WebhookEvent) []string {
	var out []string
	for _, e := range events {
		out = append(out, e.Type)
	}
	return out
}

// TestWebhookEventsOfWrites: each write stores its events in its
// transaction, computed from its before and after: a cancellation, a
// move, a re-timing, bookings with a wait list, a client; a dry run and
// a refused write store none.
func TestWebhookEventsOfWrites(t *testing.T) {
	for _, d := range modelstest.Databases(t) {
		t.Run(d.Name, func(t *testing.T) {
			ctx := context.Background()
			c := &clock{t: today}
			store, b, _ := webhookBusiness(t, d.DB, c, "http://127.0.0.1:1/hooks")
			start := len(outbox(t, d.DB, b.ID))
			write := func(dry bool, fn func(e *models.Edit) error) (*models.Result, error) {
				return store.Write(ctx, b.ID, dry, fn)
			}
			s := firstSession(t, store, b, 0)
			cancel := func(e *models.Edit) error {
				e.State.Changes = append(e.State.Changes, engine.DayChange{Ref: s.Ref(), Cancelled: true, Note: "Coach ill"})
				return nil
			}
			res, err := write(true, cancel)
			if err != nil {
				t.Fatal(err)
			}
			if got := typesOf(res.Events); !slices.Equal(got, []string{webhook.ScheduleChanged, webhook.SessionCancelled}) {
				t.Fatalf("a dry run reports %v", got)
			}
			if n := len(outbox(t, d.DB, b.ID)); n != start {
				t.Fatalf("a dry run stored %d events", n-start)
			}
			if _, err := write(false, cancel); err != nil {
				t.Fatal(err)
			}
			events := outbox(t, d.DB, b.ID)[start:]
			if got := typesOf(events); !slices.Equal(got, []string{webhook.ScheduleChanged, webhook.SessionCancelled}) {
				t.Fatalf("the cancellation stored %v", got)
			}
			var body struct {
				ID, Type, Timestamp string
				Revision            int64
				Business            struct{ ID, Slug string }
				Data                struct {
					Session  struct{ ID, Date string }
					Reason   string
					Sessions []string
					From, To string
				}
			}
			if err := json.Unmarshal([]byte(events[1].Body), &body); err != nil {
				t.Fatal(err)
			}
			if body.ID != events[1].UID || body.Data.Session.ID != s.Key() || body.Data.Reason != "Coach ill" ||
				!slices.Equal(body.Data.Sessions, []string{s.Key()}) || body.Revision != events[1].Revision || body.Business.Slug != b.Slug {
				t.Errorf("session.cancelled: %s", events[1].Body)
			}
			json.Unmarshal([]byte(events[0].Body), &body)
			if body.Data.From != s.Date.String() || body.Data.To != s.Date.AddDays(1).String() {
				t.Errorf("schedule.changed: %s", events[0].Body)
			}

			// A move and a re-timing of another session.
			s2 := firstSession(t, store, b, 1)
			later := s2.Start + 60
			end := s2.End + 60
			n := len(outbox(t, d.DB, b.ID))
			if _, err := write(false, func(e *models.Edit) error {
				e.State.Changes = append(e.State.Changes, engine.DayChange{Ref: s2.Ref(), Date: s2.Date.AddDays(1), Start: &later, End: &end})
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			if got := typesOf(outbox(t, d.DB, b.ID)[n:]); !slices.Equal(got, []string{webhook.ScheduleChanged, webhook.SessionMoved}) {
				t.Fatalf("the move stored %v", got)
			}

			// A one-off with one place, two clients, a wait list.
			n = len(outbox(t, d.DB, b.ID))
			var oneOff engine.Session
			var a, z engine.Client
			if _, err := write(false, func(e *models.Edit) error {
				var err error
				if a, err = e.SaveClient(ctx, engine.Client{Name: "Ada Webhook", Email: "ada@example.com"}); err != nil {
					return err
				}
				z, err = e.SaveClient(ctx, engine.Client{Name: "Zoe Webhook"})
				return err
			}); err != nil {
				t.Fatal(err)
			}
			if got := typesOf(outbox(t, d.DB, b.ID)[n:]); !slices.Equal(got, []string{webhook.ScheduleChanged, webhook.ClientCreated, webhook.ClientCreated}) {
				t.Fatalf("two clients stored %v", got)
			}
			res, err = write(false, func(e *models.Edit) error {
				e.State.OneOffs = append(e.State.OneOffs, engine.OneOff{ID: e.NewID(), ClassID: s.ClassID, RoomID: s.RoomID,
					Date: s.Date.AddDays(3), Start: engine.MustTime("06:00"), End: engine.MustTime("06:30"), Capacity: 1})
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			for _, x := range res.After.Timetable.Day(s.Date.AddDays(3)) {
				if x.IsOneOff() && x.Start == engine.MustTime("06:00") {
					oneOff = x
				}
			}
			var first *models.SessionBooking
			n = len(outbox(t, d.DB, b.ID))
			if _, err := write(false, func(e *models.Edit) error {
				var err error
				if first, err = e.BookSession(ctx, oneOff, a.ID, false, c.now()); err != nil {
					return err
				}
				_, err = e.BookSession(ctx, oneOff, z.ID, true, c.now())
				return err
			}); err != nil {
				t.Fatal(err)
			}
			if _, err := write(false, func(e *models.Edit) error {
				_, _, err := e.CancelBooking(ctx, first.ID, c.now())
				return err
			}); err != nil {
				t.Fatal(err)
			}
			got := outbox(t, d.DB, b.ID)[n:]
			want := []string{webhook.ScheduleChanged, webhook.BookingCreated, webhook.BookingCreated,
				webhook.ScheduleChanged, webhook.BookingCancelled, webhook.BookingPromoted}
			if !slices.Equal(typesOf(got), want) {
				t.Fatalf("the bookings stored %v, want %v", typesOf(got), want)
			}
			var promoted struct {
				Data struct {
					Booking  struct{ Status string }
					Clients  []struct{ ID, Name string }
					Sessions []string
				}
			}
			json.Unmarshal([]byte(got[5].Body), &promoted)
			if promoted.Data.Booking.Status != "booked" || len(promoted.Data.Clients) != 1 || promoted.Data.Clients[0].Name != "Zoe Webhook" ||
				!slices.Equal(promoted.Data.Sessions, []string{oneOff.Key()}) {
				t.Errorf("booking.promoted: %s", got[5].Body)
			}

			// Cancelling the one-off names who is booked into it.
			n = len(outbox(t, d.DB, b.ID))
			if _, err := write(false, func(e *models.Edit) error {
				for i := range e.State.OneOffs {
					if e.State.OneOffs[i].ID == oneOff.OneOffID {
						e.State.OneOffs[i].Cancelled = true
					}
				}
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			got = outbox(t, d.DB, b.ID)[n:]
			if !slices.Equal(typesOf(got), []string{webhook.ScheduleChanged, webhook.SessionCancelled}) ||
				!strings.Contains(got[1].Body, `"name":"Zoe Webhook"`) {
				t.Errorf("cancelling the one-off: %v %s", typesOf(got), got[len(got)-1].Body)
			}

			// A write refused for a clash stores nothing.
			n = len(outbox(t, d.DB, b.ID))
			_, err = write(false, func(e *models.Edit) error {
				s3 := firstSession(t, store, b, 2)
				e.State.OneOffs = append(e.State.OneOffs, engine.OneOff{ID: e.NewID(), ClassID: s3.ClassID, RoomID: s3.RoomID,
					Date: s3.Date, Start: s3.Start, End: s3.End})
				return nil
			})
			if _, ok := err.(*models.ClashError); !ok {
				t.Fatalf("a clashing one-off: %v", err)
			}
			if m := len(outbox(t, d.DB, b.ID)); m != n {
				t.Errorf("a refused write stored %d events", m-n)
			}

			// Every event was queued for the endpoint, which asked for all.
			var queued int64
			queued, err = d.DB.NewSelect().Model((*models.WebhookDelivery)(nil)).Where("business_id = ?", b.ID).Count(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if all := len(outbox(t, d.DB, b.ID)) - start; int(queued) != all {
				t.Errorf("%d deliveries queued for %d events", queued, all)
			}
		})
	}
}

// cancelNext cancels the k-th session of next week: one write, two events.
func cancelNext(t *testing.T, store *models.Store, b *models.Business, k int) {
	t.Helper()
	s := firstSession(t, store, b, k)
	if _, err := store.Write(context.Background(), b.ID, false, func(e *models.Edit) error {
		e.State.Changes = append(e.State.Changes, engine.DayChange{Ref: s.Ref(), Cancelled: true})
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}

// TestDeliveryRetriesInOrder: an endpoint that fails is retried on the
// backoff schedule, its later events wait behind the one that failed and
// arrive in order, with the same id on every attempt; after 24 hours of
// failures an event fails and the queue goes on. The clock is moved by
// hand: nothing waits.
func TestDeliveryRetriesInOrder(t *testing.T) {
	for _, d := range modelstest.Databases(t) {
		t.Run(d.Name, func(t *testing.T) {
			ctx := context.Background()
			c := &clock{t: today}
			rc := newReceiver(t)
			store, b, ep := webhookBusiness(t, d.DB, c, rc.URL, webhook.SessionCancelled)
			disp := dispatcher(store, c, 0)
			fail := true
			rc.answer = func(_ *http.Request, n int) int {
				if fail {
					return http.StatusInternalServerError
				}
				return http.StatusOK
			}
			cancelNext(t, store, b, 0)
			cancelNext(t, store, b, 1)
			if n, err := disp.Tick(ctx); err != nil || n != 1 {
				t.Fatalf("first tick: %d attempts, %v; want 1 (the second waits behind the first)", n, err)
			}
			if n, _ := disp.Tick(ctx); n != 0 {
				t.Fatalf("retried %d before its time", n)
			}
			for range 3 {
				c.add(3 * time.Hour) // past any backoff
				if n, _ := disp.Tick(ctx); n != 1 {
					t.Fatalf("a due retry made %d attempts", n)
				}
			}
			fail = false
			c.add(3 * time.Hour)
			if n, _ := disp.Tick(ctx); n != 2 {
				t.Fatalf("the endpoint is back: %d attempts, want 2", n)
			}
			got := rc.got()
			if len(got) != 6 || got[0].ID != got[4].ID || got[5].ID == got[4].ID {
				t.Fatalf("received %d: %+v", len(got), got)
			}
			evs := outbox(t, d.DB, b.ID)
			var cancelled []string
			for _, e := range evs {
				if e.Type == webhook.SessionCancelled {
					cancelled = append(cancelled, e.UID)
				}
			}
			if got[4].ID != cancelled[0] || got[5].ID != cancelled[1] {
				t.Errorf("arrived %s, %s; written %v", got[4].ID, got[5].ID, cancelled)
			}
			q, err := queueOf(ctx, d.DB, b.ID, ep.ID)
			if err != nil || q.Delivered != 2 || q.Pending != 0 {
				t.Fatalf("queue %+v, %v", q, err)
			}

			// 24 hours of failures: the event fails, the next goes on.
			fail = true
			cancelNext(t, store, b, 2)
			cancelNext(t, store, b, 3)
			first := c.now()
			attempts := 0
			for range 100 {
				n, _ := disp.Tick(ctx)
				attempts += n
				if q, _ := queueOf(ctx, d.DB, b.ID, ep.ID); q.Failed == 1 {
					break
				}
				c.add(30 * time.Minute)
			}
			if q, _ := queueOf(ctx, d.DB, b.ID, ep.ID); q.Failed != 1 || c.now().Sub(first) < webhook.MaxAge {
				t.Fatalf("after %v and %d attempts: %+v", c.now().Sub(first), attempts, q)
			}
			fail = false
			disp.Tick(ctx)
			if q, _ := queueOf(ctx, d.DB, b.ID, ep.ID); q.Delivered != 3 || q.Pending != 0 {
				t.Errorf("after the failed event: %+v", q)
			}
			ids, _ := models.WebhookAttemptIDs(ctx, d.DB, b.ID, ep.ID)
			log, err := models.WebhookAttemptsByID(ctx, d.DB, b.ID, ids[:3])
			if err != nil || len(log) != 3 || log[0].Outcome != "delivered" || log[1].Outcome != "failed" || log[1].Status != 500 {
				t.Errorf("the delivery log: %+v, %v", log, err)
			}
		})
	}
}

// TestDeliveryFailures: a receiver that times out, closes the connection
// and answers 410 Gone; a paused endpoint keeps its queue.
func TestDeliveryFailures(t *testing.T) {
	d := modelstest.SQLite(t)
	ctx := context.Background()
	c := &clock{t: today}
	mode := "hang"
	rc := newReceiver(t)
	done := make(chan struct{})
	t.Cleanup(func() { close(done) }) // before the server closes
	rc.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch mode {
		case "hang":
			select { // until the sender gives up
			case <-r.Context().Done():
			case <-done:
			}
		case "close":
			conn, _, _ := w.(http.Hijacker).Hijack()
			conn.Close()
		case "gone":
			w.WriteHeader(http.StatusGone)
		default:
			w.WriteHeader(http.StatusOK)
		}
	})
	store, b, ep := webhookBusiness(t, d.DB, c, rc.URL, webhook.SessionCancelled)
	disp := dispatcher(store, c, 200*time.Millisecond)
	cancelNext(t, store, b, 0)
	for _, m := range []string{"hang", "close"} {
		mode = m
		if n, _ := disp.Tick(ctx); n != 1 {
			t.Fatalf("%s: %d attempts", m, n)
		}
		c.add(3 * time.Hour)
	}
	ids, err := models.WebhookAttemptIDs(ctx, d.DB, b.ID, ep.ID)
	if err != nil {
		t.Fatal(err)
	}
	log, err := models.WebhookAttemptsByID(ctx, d.DB, b.ID, ids)
	if err != nil {
		t.Fatal(err)
	}
	if len(log) != 2 || log[1].Status != 0 || !strings.Contains(log[1].Error, "in time") || log[0].Outcome != "retry" {
		t.Fatalf("log: %+v", log)
	}
	mode = "gone"
	disp.Tick(ctx)
	w, _ := models.WebhookEndpointByID(ctx, d.DB, b.ID, ep.ID)
	if w.Status != models.EndpointDisabled || w.DisabledReason == "" {
		t.Fatalf("after 410: %+v", w)
	}
	mode = "ok"
	c.add(time.Hour)
	if n, _ := disp.Tick(ctx); n != 0 {
		t.Fatal("a disabled endpoint was sent to")
	}
	paused := models.EndpointPaused
	if _, err := store.UpdateWebhookEndpoint(ctx, b.ID, ep.ID, models.EndpointInput{Status: &paused}, false); err != nil {
		t.Fatal(err)
	}
	cancelNext(t, store, b, 1) // queued while paused
	if n, _ := disp.Tick(ctx); n != 0 {
		t.Fatal("a paused endpoint was sent to")
	}
	active := models.EndpointActive
	if _, err := store.UpdateWebhookEndpoint(ctx, b.ID, ep.ID, models.EndpointInput{Status: &active}, false); err != nil {
		t.Fatal(err)
	}
	if n, _ := disp.Tick(ctx); n != 2 {
		t.Fatalf("made active again: %d attempts, want the event 410 answered and the one queued while paused", n)
	}
}

// TestDeliveryOfADeadProcess: a process that claimed an endpoint and died
// leaves it to another once its lease runs out; two dispatchers running
// at once on one database send each event once between them.
func TestDeliveryOfADeadProcess(t *testing.T) {
	for _, d := range modelstest.Databases(t) {
		t.Run(d.Name, func(t *testing.T) {
			ctx := context.Background()
			c := &clock{t: today}
			rc := newReceiver(t)
			store, b, _ := webhookBusiness(t, d.DB, c, rc.URL, webhook.ScheduleChanged)
			cancelNext(t, store, b, 0)
			if eps, err := store.Claim(ctx, "dead", c.now(), webhook.Lease, 10); err != nil || len(eps) != 1 {
				t.Fatalf("claimed %v, %v", eps, err)
			}
			live := dispatcher(store, c, 0)
			if n, _ := live.Tick(ctx); n != 0 {
				t.Fatal("sent to an endpoint another holds")
			}
			c.add(webhook.Lease + time.Second)
			if n, _ := live.Tick(ctx); n != 1 {
				t.Fatal("the dead process's endpoint was not taken over")
			}
			if d.Name != "postgres" {
				return
			}
			// Two dispatchers, real clock, many writes.
			real := &clock{t: time.Now()}
			stores := []*models.Store{models.NewStore(d.DB, real.now), models.NewStore(d.DB, real.now)}
			run, stop := context.WithCancel(ctx)
			var wg sync.WaitGroup
			for _, s := range stores {
				disp := webhook.NewDispatcher(s, webhook.NewSender(webhook.Policy{AllowPrivate: true}, 0), time.Now, slog.New(slog.DiscardHandler))
				disp.Poll = 10 * time.Millisecond
				wg.Add(1)
				go func() { defer wg.Done(); disp.Run(run) }()
			}
			for k := 1; k <= 20; k++ {
				cancelNext(t, store, b, k)
			}
			want, err := d.DB.NewSelect().Model((*models.WebhookDelivery)(nil)).Where("business_id = ?", b.ID).Count(ctx)
			if err != nil || want != 21 {
				t.Fatalf("%d deliveries queued, %v", want, err)
			}
			deadline := time.Now().Add(time.Minute)
			for len(rc.got()) < int(want) && time.Now().Before(deadline) {
				time.Sleep(20 * time.Millisecond)
			}
			stop()
			wg.Wait()
			seen := map[string]int{}
			for _, r := range rc.got() {
				seen[r.ID]++
			}
			if len(seen) != int(want) {
				var ds []models.WebhookDelivery
				d.DB.NewSelect().Model(&ds).Where("business_id = ?", b.ID).Scan(ctx)
				var eps []models.WebhookEndpoint
				d.DB.NewSelect().Model(&eps).Where("business_id = ?", b.ID).Scan(ctx)
				t.Fatalf("%d events arrived of %d: %+v\n%+v", len(seen), want, ds, eps)
			}
			for id, n := range seen {
				if n != 1 {
					t.Errorf("%s arrived %d times", id, n)
				}
			}
		})
	}
}

// TestEndpointsRefuseBadInput: a URL that is not https, holds
// credentials or resolves to a refused address, an unknown event type,
// another business's endpoint: refused, naming the field, nothing
// written.
func TestEndpointsRefuseBadInput(t *testing.T) {
	d := modelstest.SQLite(t)
	ctx := context.Background()
	store, b := demoBusiness(t, d.DB, engine.Gym)
	other, err := models.CreateBusiness(ctx, d.DB, "other", engine.Business{Kind: engine.Gym, Name: "Other", Currency: "KD", Location: time.UTC})
	if err != nil {
		t.Fatal(err)
	}
	s := func(v string) *string { return &v }
	cases := []struct {
		in    models.EndpointInput
		field string
	}{
		{models.EndpointInput{URL: s("http://93.184.215.14/"), Events: []string{"schedule.changed"}}, "url"},
		{models.EndpointInput{URL: s("https://u:p@93.184.215.14/"), Events: []string{"schedule.changed"}}, "url"},
		{models.EndpointInput{URL: s("https://localhost/"), Events: []string{"schedule.changed"}}, "url"},
		{models.EndpointInput{URL: s("https://10.0.0.8/"), Events: []string{"schedule.changed"}}, "url"},
		{models.EndpointInput{URL: s("https://93.184.215.14/"), Events: []string{"session.exploded"}}, "events"},
		{models.EndpointInput{URL: s("https://93.184.215.14/"), Events: []string{}}, "events"},
	}
	for _, c := range cases {
		_, err := store.CreateWebhookEndpoint(ctx, b.ID, c.in, false)
		var e *engine.Error
		if !asEngineError(err, &e) || e.Code != engine.Invalid || e.Field != c.field {
			t.Errorf("%s %v: %v, want Invalid on %s", *c.in.URL, c.in.Events, err, c.field)
		}
	}
	ep, err := store.CreateWebhookEndpoint(ctx, other.ID, models.EndpointInput{URL: s("https://93.184.215.14/"), Events: []string{"schedule.changed"}}, false)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := store.DeleteWebhookEndpoint(ctx, b.ID, ep.ID, false); engine.ErrorCode(err) != engine.NotFound {
		t.Errorf("another business's endpoint: %v", err)
	}
	list, _ := models.WebhookEndpoints(ctx, d.DB, b.ID)
	if len(list) != 0 {
		t.Errorf("bad input wrote %d endpoints", len(list))
	}
}

func asEngineError(err error, target **engine.Error) bool {
	e, ok := err.(*engine.Error)
	if ok {
		*target = e
	}
	return ok
}

func queueOf(ctx context.Context, db *models.DB, business, endpoint int64) (models.QueueCounts, error) {
	all, err := models.WebhookQueues(ctx, db, business)
	return all[endpoint], err
}

// TestSlowEndpointDelaysNoOther: while one endpoint holds its first
// attempt unanswered, another endpoint of the same business gets every
// event.
func TestSlowEndpointDelaysNoOther(t *testing.T) {
	d := modelstest.SQLite(t)
	ctx := context.Background()
	c := &clock{t: today}
	release := make(chan struct{})
	var slowCalls sync.WaitGroup
	slowCalls.Add(1)
	var once sync.Once
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		once.Do(slowCalls.Done)
		<-release
	}))
	defer slow.Close()
	defer close(release)
	fast := newReceiver(t)
	store, b, _ := webhookBusiness(t, d.DB, c, slow.URL, webhook.ScheduleChanged)
	url := fast.URL
	if _, err := store.CreateWebhookEndpoint(ctx, b.ID, models.EndpointInput{URL: &url, Events: []string{webhook.ScheduleChanged}}, false); err != nil {
		t.Fatal(err)
	}
	for k := range 10 {
		cancelNext(t, store, b, k)
	}
	disp := dispatcher(store, c, time.Hour)
	run, stop := context.WithCancel(ctx)
	defer stop()
	go disp.Run(run)
	slowCalls.Wait() // the slow endpoint holds its first attempt
	deadline := time.Now().Add(time.Minute)
	for len(fast.got()) < 10 {
		if time.Now().After(deadline) {
			t.Fatalf("the fast endpoint got %d of 10 events while the slow one held its attempt", len(fast.got()))
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestEventsWithImpact: a write that answers its impact finds who is
// booked on the sessions its events name in the bookings the impact read
// (bookedClients), where it holds them; its events are those of the same
// write without impact, which reads them for itself. Clients booked and
// waiting on the sessions of the next three weeks; writes whose impact
// reads every booking (places cut) or those of the class times it
// affects, and writes whose events name sessions the impact did not read
// (places added).
func TestEventsWithImpact(t *testing.T) {
	for _, d := range modelstest.Databases(t) {
		t.Run(d.Name, func(t *testing.T) {
			ctx := context.Background()
			c := &clock{t: today}
			store, b, _ := webhookBusiness(t, d.DB, c, "http://127.0.0.1:1/hooks")
			sn, err := store.Snapshot(ctx, b.ID, -1)
			if err != nil {
				t.Fatal(err)
			}
			var sessions []engine.Session
			for day := engine.DateOf(today).AddDays(1); day < engine.DateOf(today).AddDays(21); day++ {
				for _, s := range sn.Timetable.Day(day) {
					if !s.Cancelled {
						sessions = append(sessions, s)
					}
				}
			}
			if _, err := store.Write(ctx, b.ID, false, func(e *models.Edit) error {
				for i := range e.State.ClassTimes {
					e.State.ClassTimes[i].Capacity = 2
				}
				var clients []int64
				for _, name := range []string{"Ada", "Ben", "Cleo"} {
					cl, err := e.SaveClient(ctx, engine.Client{Name: name + " Impact"})
					if err != nil {
						return err
					}
					clients = append(clients, cl.ID)
					for _, sr := range e.State.Series {
						if _, err := e.SaveSubscription(ctx, engine.Subscription{ClientID: cl.ID, SeriesID: sr.ID, Start: engine.DateOf(today)}); err != nil {
							return err
						}
					}
				}
				for i, s := range sessions {
					for j, cl := range clients[:i%4] {
						if s.Capacity > 0 || j < 2 {
							s.Capacity = 2
							if _, err := e.BookSession(ctx, s, cl, j == 2, today); err != nil {
								return err
							}
						}
					}
				}
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			s0, s1 := sessions[0], sessions[len(sessions)/2]
			writes := []struct {
				name string
				edit func(e *models.Edit)
			}{
				{"re-timed and cut", func(e *models.Edit) {
					for i := range e.State.ClassTimes {
						if ct := &e.State.ClassTimes[i]; ct.ID == s0.ClassTimeID {
							ct.Start, ct.End, ct.Capacity = ct.Start+15, ct.End+15, 1
						}
					}
				}},
				{"re-timed", func(e *models.Edit) {
					for i := range e.State.ClassTimes {
						if ct := &e.State.ClassTimes[i]; ct.ID == s1.ClassTimeID {
							ct.Start, ct.End = ct.Start+15, ct.End+15
						}
					}
				}},
				{"a date cancelled", func(e *models.Edit) {
					e.State.Changes = append(e.State.Changes, engine.DayChange{Ref: s1.Ref(), Cancelled: true})
				}},
				{"a room closed", func(e *models.Edit) {
					e.State.Closures = append(e.State.Closures, engine.Closure{ID: e.NewID(), From: s0.Date, To: s0.Date + 9, RoomIDs: []int64{s0.RoomID}, Reason: "Floor"})
				}},
				{"re-timed, and places added elsewhere", func(e *models.Edit) {
					for i := range e.State.ClassTimes {
						switch ct := &e.State.ClassTimes[i]; ct.ID {
						case s1.ClassTimeID:
							ct.Start, ct.End = ct.Start+15, ct.End+15
						default:
							ct.Capacity = 5
						}
					}
				}},
				{"places added", func(e *models.Edit) {
					for i := range e.State.ClassTimes {
						e.State.ClassTimes[i].Capacity = 5
					}
				}},
			}
			named := 0
			for _, w := range writes {
				name := w.name
				var events [2][]string
				for k, ask := range []models.ImpactAsk{{}, {Totals: true, Sessions: true, Calendars: true}} {
					res, err := store.Write(ctx, b.ID, true, func(e *models.Edit) error {
						e.Impact, e.AllowNeedsCover = ask, true
						w.edit(e)
						return nil
					})
					if err != nil {
						t.Fatalf("%s: %v", name, err)
					}
					for _, ev := range res.Events {
						events[k] = append(events[k], strings.Replace(ev.Body, ev.UID, "evt", 1))
					}
				}
				if !slices.Equal(events[0], events[1]) {
					t.Errorf("%s: events without impact\n%v\nwith impact\n%v", name, events[0], events[1])
				}
				for _, body := range events[0] {
					if strings.Contains(body, "Impact\"") {
						named++
					}
				}
			}
			if named == 0 {
				t.Fatal("no event names a booked client: the test compares too little")
			}
		})
	}
}
