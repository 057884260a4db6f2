package models_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/uptrace/bun"

	"github.com/koredyne/schedule/engine"
	"github.com/koredyne/schedule/models"
	"github.com/koredyne/schedule/models/modelstest"
)

// endAtCommit is a query hook that, once armed, ends a write's context a
// little after its COMMIT has been sent: the request's deadline passing, or
// its client going away, while PostgreSQL commits.
type endAtCommit struct {
	end   atomic.Pointer[context.CancelFunc]
	after time.Duration
}

func (h *endAtCommit) BeforeQuery(ctx context.Context, q *bun.QueryEvent) context.Context {
	if q.Query == "COMMIT" {
		if end := h.end.Swap(nil); end != nil {
			time.AfterFunc(h.after, *end)
		}
	}
	return ctx
}

func (*endAtCommit) AfterQuery(context.Context, *bun.QueryEvent) {}

// TestRequestEndsDuringCommit books a place and ends the request while
// PostgreSQL is committing it (a deferred trigger makes the COMMIT take a
// second). The guarded write's transaction outlives its request by
// commitGrace, so the COMMIT already sent is waited for: the write answers
// the booking, and the database holds it. (Before, pgx gave up on the
// COMMIT and the request answered TIMEOUT, "nothing was changed", whether
// or not PostgreSQL had already made the commit durable.)
func TestRequestEndsDuringCommit(t *testing.T) {
	pg, ok := modelstest.Postgres(t)
	if !ok {
		t.Skip("needs PostgreSQL")
	}
	ctx := context.Background()
	store, b := demoBusiness(t, pg.DB, engine.Gym)
	day := engine.DateOf(today) + 3
	if err := addOneOff(store, b, day, false, false); err != nil {
		t.Fatal(err)
	}
	sn, err := store.Snapshot(ctx, b.ID, -1)
	if err != nil {
		t.Fatal(err)
	}
	var session engine.Session
	for _, s := range sn.Timetable.Day(day) {
		if s.IsOneOff() {
			session = s
		}
	}
	var client int64
	if err := pg.DB.NewSelect().Model((*models.Client)(nil)).Column("id").Where("business_id = ?", b.ID).OrderExpr("id").Limit(1).Scan(ctx, &client); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		`CREATE FUNCTION slow_commit() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN PERFORM pg_sleep(1); RETURN NULL; END $$`,
		`CREATE CONSTRAINT TRIGGER slow_commit AFTER INSERT ON session_bookings DEFERRABLE INITIALLY DEFERRED
			FOR EACH ROW EXECUTE FUNCTION slow_commit()`,
	} {
		if _, err := pg.DB.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	hook := &endAtCommit{after: 200 * time.Millisecond}
	pg.DB.AddQueryHook(hook)

	request, end := context.WithTimeout(ctx, time.Minute)
	defer end()
	hook.end.Store(&end)
	var booking *models.SessionBooking
	_, err = store.Write(request, b.ID, false, func(e *models.Edit) error {
		var err error
		booking, err = e.BookSession(request, session, client, false, today)
		return err
	})
	if hook.end.Load() != nil {
		t.Fatal("the write never committed")
	}
	// PostgreSQL may still be committing a write the client gave up on:
	// count once no COMMIT sleeps in the trigger.
	for waited := time.Duration(0); ; waited += 50 * time.Millisecond {
		var sleeping int
		if err := pg.DB.NewRaw(`SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event = 'PgSleep' AND query ILIKE 'commit'`).Scan(ctx, &sleeping); err != nil {
			t.Fatal(err)
		}
		if sleeping == 0 {
			break
		}
		if waited > 10*time.Second {
			t.Fatal("a COMMIT still sleeps after 10 s")
		}
		time.Sleep(50 * time.Millisecond)
	}
	held, cerr := pg.DB.NewSelect().Model((*models.SessionBooking)(nil)).Where("client_id = ?", client).Where("one_off_id = ?", session.OneOffID).Count(ctx)
	if cerr != nil {
		t.Fatal(cerr)
	}
	switch {
	case err != nil:
		t.Errorf("the write answered %q (%v), and the database holds %d bookings of the client", err, models.Unavailable(err), held)
	case held != 1:
		t.Errorf("the write answered booking %d, and the database holds %d bookings of the client", booking.ID, held)
	}
	t.Logf("the write answered %v; the database holds %d bookings of the client", err, held)
}
