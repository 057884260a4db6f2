package models_test

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/uptrace/bun"

	"github.com/koredyne/schedule/engine"
	"github.com/koredyne/schedule/models"
	"github.com/koredyne/schedule/models/modelstest"
)

// statements is a query hook that keeps the statements bun sends while on.
type statements struct {
	mu  sync.Mutex
	on  bool
	got []string
}

func (h *statements) BeforeQuery(ctx context.Context, _ *bun.QueryEvent) context.Context { return ctx }

func (h *statements) AfterQuery(_ context.Context, q *bun.QueryEvent) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.on {
		h.got = append(h.got, strings.Fields(q.Query)[0])
	}
}

// TestStandingBookingRoundTrips counts what a standing booking sends to
// PostgreSQL, where each round trip costs more than the booking's proof:
// BEGIN, the business locked, one batch reading the client, their
// memberships and the session's single bookings (txReads, sent beside
// bun), the rule inserted, the revision counted up with the events in one
// message (commitRevision), COMMIT — six round trips, of which bun sees
// five. A write that reads the client again for its events, or sends the
// revision on its own, shows here.
func TestStandingBookingRoundTrips(t *testing.T) {
	pg, ok := modelstest.Postgres(t)
	if !ok {
		t.Skip("needs PostgreSQL")
	}
	h := &statements{}
	pg.DB.AddQueryHook(h)
	store, biz := demoBusiness(t, pg.DB, engine.Gym)
	in := standingBench(t, store, biz, 0)
	ctx := context.Background()
	for round := range 2 { // the second on the snapshot the first kept
		h.mu.Lock()
		h.on, h.got = true, nil
		h.mu.Unlock()
		var made models.StandingResult
		res, err := store.Write(ctx, biz.ID, false, func(e *models.Edit) error {
			r, err := e.SaveStanding(ctx, 0, in)
			if r != nil {
				made = *r
			}
			return err
		})
		h.mu.Lock()
		h.on = false
		got := strings.Join(h.got, " ")
		h.mu.Unlock()
		if err != nil {
			t.Fatal(err)
		}
		if want := "BEGIN SELECT INSERT WITH COMMIT"; got != want {
			t.Errorf("round %d: the write sent %q, want %q", round, got, want)
		}
		if _, err := store.Write(ctx, biz.ID, false, func(e *models.Edit) error {
			_, err := e.EndStanding(res.ID(made.Standing.ID), in.From)
			return err
		}); err != nil {
			t.Fatal(err)
		}
	}
}
