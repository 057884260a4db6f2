package models_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/koredyne/schedule/engine"
	"github.com/koredyne/schedule/models"
	"github.com/koredyne/schedule/models/modelstest"
)

// reads counts where the reads of a Replicas went.
type reads struct {
	mu sync.Mutex
	n  map[string]int
}

func (r *reads) count(target string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.n[target]++
}

// take returns the counts since the last take.
func (r *reads) take() map[string]int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := r.n
	r.n = map[string]int{}
	return n
}

// replicated opens a store on the primary of a real streaming replication
// with replicas (maxLag) and a probing loop, and returns it and its counts.
func replicated(t *testing.T, db *models.DB, rs *modelstest.Replicated, maxLag time.Duration) (*models.Store, *reads) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	r, err := models.OpenReplicas(ctx, db, []string{rs.ReplicaDSN}, maxLag, 4, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.Close)
	counts := &reads{n: map[string]int{}}
	r.OnRead = counts.count
	go r.Run(ctx)
	s := models.NewStore(db, func() time.Time { return today })
	s.SetReplicas(r)
	return s, counts
}

// waitReplayed waits until the replica holds revision rev of a business.
func waitReplayed(t *testing.T, rs *modelstest.Replicated, business int64, rev int64) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	// Until the replica has replayed the migrations there is no table to
	// ask: that is "not yet", not a failure.
	replayed := func() bool {
		return rs.Replica.SQL(t, "SELECT to_regclass('businesses') IS NOT NULL") == "t" &&
			rs.Replica.SQL(t, fmt.Sprintf("SELECT coalesce((SELECT revision FROM businesses WHERE id = %d), -1)", business)) == fmt.Sprint(rev)
	}
	for !replayed() {
		if time.Now().After(deadline) {
			t.Fatalf("the replica never reached revision %d", rev)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestReplicas runs the store on a real primary and streaming replica
// (pg_basebackup on this machine): reads go to the replica, never to an
// older revision than a request or the process knows, leave a replica that
// lags too far or is down for the primary, and no read fails meanwhile.
func TestReplicas(t *testing.T) {
	start := time.Now()
	rs := modelstest.Replication(t)
	t.Logf("primary and replica up in %v", time.Since(start).Round(time.Millisecond))
	db := modelstest.Open(t, rs.PrimaryDSN)
	writer, b := demoBusiness(t, db, engine.Office)
	ctx := context.Background()
	bump := func() int64 {
		t.Helper()
		res, err := writer.Write(ctx, b.ID, false, func(e *models.Edit) error {
			e.State.Rooms[0].Name += "+"
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return res.Revision
	}
	snapshot := func(s *models.Store, ctx context.Context) int64 {
		t.Helper()
		sn, err := s.Snapshot(ctx, b.ID, -1)
		if err != nil {
			t.Fatal(err)
		}
		return sn.Business.Revision
	}
	token, _, err := models.CreateToken(ctx, db, b.ID, models.Owner, "before", "")
	if err != nil {
		t.Fatal(err)
	}
	waitReplayed(t, rs, b.ID, 1)

	t.Run("read your writes", func(t *testing.T) {
		reader, counts := replicated(t, db, rs, time.Minute)
		if rev := snapshot(reader, ctx); rev != 1 {
			t.Fatalf("revision %d, want 1", rev)
		}
		if p, err := reader.Authenticate(ctx, token); err != nil || p.Revision != 1 {
			t.Fatalf("token: %+v %v", p, err)
		}
		if n := counts.take(); n["replica"] != 2 || len(n) != 1 {
			t.Fatalf("reads went %v, want both to the replica", n)
		}

		// The replica stops replaying; the primary moves on.
		rs.Replica.SQL(t, "SELECT pg_wal_replay_pause()")
		defer rs.Replica.SQL(t, "SELECT pg_wal_replay_resume()")
		rev := bump()
		fresh, _, err := models.CreateToken(ctx, db, b.ID, models.Owner, "after", "")
		if err != nil {
			t.Fatal(err)
		}
		// A read that tolerates lag still gets the replica's revision:
		// the replica serves, and lags.
		if got := snapshot(reader, ctx); got != rev-1 {
			t.Fatalf("a lagging read got revision %d, want the replica's %d", got, rev-1)
		}
		// The client that wrote knows rev: it reads its write.
		if got := snapshot(reader, models.AtLeast(ctx, rev)); got != rev {
			t.Fatalf("reading at least %d got %d", rev, got)
		}
		if p, err := reader.Authenticate(models.AtLeast(ctx, rev), token); err != nil || p.Revision != rev {
			t.Fatalf("the token at least at %d: %+v %v", rev, p, err)
		}
		// A token made after the replica stopped is checked on the primary.
		if p, err := reader.Authenticate(ctx, fresh); err != nil || p.BusinessID != b.ID {
			t.Fatalf("a token the replica does not know yet: %+v %v", p, err)
		}
		// And a bad one is still bad.
		if _, err := reader.Authenticate(ctx, "not-a-token"); err != models.ErrBadToken {
			t.Fatalf("a bad token: %v", err)
		}
		// The process now holds rev: it never reads older again.
		if got := snapshot(reader, ctx); got != rev {
			t.Fatalf("after reading %d the process read %d", rev, got)
		}
		if p, err := reader.Authenticate(ctx, token); err != nil || p.Revision != rev {
			t.Fatalf("the token after reading %d: %+v %v", rev, p, err)
		}
		n := counts.take()
		if n["replica"] != 1 || n["primary_behind"] != 6 {
			t.Errorf("reads went %v, want 1 to the replica and 6 on to the primary", n)
		}
	})

	t.Run("lag", func(t *testing.T) {
		const maxLag = 500 * time.Millisecond
		waitReplayed(t, rs, b.ID, snapshot(writer, ctx))
		reader, counts := replicated(t, db, rs, maxLag)
		rs.Replica.SQL(t, "SELECT pg_wal_replay_pause()")
		rev := bump()
		paused := time.Now()
		// Behind, but not yet too far: the replica's older revision.
		if got := snapshot(reader, ctx); got != rev-1 {
			t.Fatalf("revision %d, want the replica's %d", got, rev-1)
		}
		// Too far: every read goes to the primary.
		time.Sleep(maxLag + 3*models.ProbeEvery)
		counts.take()
		if got := snapshot(models.NewStore(db, nil), ctx); got != rev {
			t.Fatalf("the primary has %d, want %d", got, rev)
		}
		reader2, counts2 := replicated(t, db, rs, maxLag)
		time.Sleep(maxLag + 3*models.ProbeEvery)
		for _, s := range []*models.Store{reader, reader2} {
			if got := snapshot(s, ctx); got != rev {
				t.Fatalf("with the replica %v behind: revision %d, want the primary's %d", time.Since(paused).Round(time.Millisecond), got, rev)
			}
		}
		if n, n2 := counts.take(), counts2.take(); n["primary_none"] != 1 || n2["primary_none"] != 1 {
			t.Errorf("reads went %v and %v, want to the primary for want of a replica", n, n2)
		}
		// Caught up: the replica serves again.
		rs.Replica.SQL(t, "SELECT pg_wal_replay_resume()")
		deadline := time.Now().Add(10 * time.Second)
		for {
			if got := snapshot(reader2, ctx); got != rev {
				t.Fatalf("revision %d, want %d", got, rev)
			}
			if counts2.take()["replica"] == 1 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatal("the replica is not read again after catching up")
			}
			time.Sleep(models.ProbeEvery / 2)
		}
	})

	t.Run("tokens held in memory", func(t *testing.T) {
		models.RecheckTokensEvery(t, 300*time.Millisecond)
		reader, counts := replicated(t, db, rs, time.Minute)
		lctx, stop := context.WithCancel(ctx)
		defer stop()
		if err := reader.Listen(lctx, rs.PrimaryDSN, slog.New(slog.NewTextHandler(io.Discard, nil))); err != nil {
			t.Fatal(err)
		}
		auth := func(ctx context.Context, tok string) (models.Principal, map[string]int, error) {
			t.Helper()
			p, err := reader.Authenticate(ctx, tok)
			return p, counts.take(), err
		}
		// until waits up to 10 s for a token's check to come out as want.
		until := func(what string, want func(models.Principal, map[string]int, error) bool, tok string) {
			t.Helper()
			deadline := time.Now().Add(10 * time.Second)
			for {
				p, n, err := auth(ctx, tok)
				if want(p, n, err) {
					return
				}
				if time.Now().After(deadline) {
					t.Fatalf("%s: still %+v %v (reads %v)", what, p, err, n)
				}
				time.Sleep(20 * time.Millisecond)
			}
		}
		tok, row, err := models.CreateToken(ctx, db, b.ID, models.Owner, "held", "")
		if err != nil {
			t.Fatal(err)
		}
		waitReplayed(t, rs, b.ID, snapshot(writer, ctx))
		first, n, err := auth(ctx, tok)
		if err != nil || len(n) == 0 {
			t.Fatalf("first check: %+v %v, reads %v", first, err, n)
		}
		if p, n, err := auth(ctx, tok); err != nil || p != first || len(n) != 0 {
			t.Fatalf("second check: %+v %v, reads %v; want %+v from memory", p, err, n, first)
		}

		// Another process writes: the token held reports its revision as
		// soon as it is heard, without a read.
		rev := bump()
		until("a write heard", func(p models.Principal, n map[string]int, err error) bool {
			return err == nil && p.Revision == rev && len(n) == 0
		}, tok)
		// A client that knows a newer revision than this process heard is
		// checked in the database.
		if _, n, err := auth(models.AtLeast(ctx, rev+1), tok); err != nil || len(n) == 0 {
			t.Fatalf("a revision not heard: %v, reads %v", err, n)
		}

		// Revoked by another process while the replica lags: refused as
		// soon as heard, though the replica still has it.
		rs.Replica.SQL(t, "SELECT pg_wal_replay_pause()")
		if _, err := writer.RevokeToken(ctx, b.ID, row.ID); err != nil {
			t.Fatal(err)
		}
		until("a revocation heard", func(_ models.Principal, _ map[string]int, err error) bool { return err == models.ErrBadToken }, tok)
		for range 3 {
			if _, n, err := auth(ctx, tok); err != models.ErrBadToken {
				t.Fatalf("a revoked token the replica still has: %v, reads %v", err, n)
			}
		}
		rs.Replica.SQL(t, "SELECT pg_wal_replay_resume()")

		// Deleted by hand, which no process announces: refused once the
		// check in the background finds it gone.
		tok2, row2, err := models.CreateToken(ctx, db, b.ID, models.Owner, "deleted by hand", "")
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := auth(ctx, tok2); err != nil {
			t.Fatal(err)
		}
		rs.Primary.SQL(t, fmt.Sprintf("DELETE FROM api_tokens WHERE id = %d", row2.ID))
		until("a token deleted by hand", func(_ models.Principal, _ map[string]int, err error) bool { return err == models.ErrBadToken }, tok2)

		// The live connection lost: what was held before is checked in the
		// database again, then held anew.
		tok3, _, err := models.CreateToken(ctx, db, b.ID, models.Owner, "over a loss", "")
		if err != nil {
			t.Fatal(err)
		}
		until("a token held", func(_ models.Principal, n map[string]int, err error) bool { return err == nil && len(n) == 0 }, tok3)
		if got := rs.Primary.SQL(t, "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE query = 'LISTEN koredyne_changes'"); got != "1" {
			t.Fatalf("ended %s listeners, want 1", got)
		}
		until("the connection lost", func(_ models.Principal, n map[string]int, err error) bool { return err == nil && len(n) != 0 }, tok3)
		until("the connection back", func(_ models.Principal, n map[string]int, err error) bool { return err == nil && len(n) == 0 }, tok3)
	})

	t.Run("down", func(t *testing.T) {
		reader, counts := replicated(t, db, rs, time.Minute)
		rev := bump()
		waitReplayed(t, rs, b.ID, rev)
		// Readers go on throughout: none may fail.
		stop := make(chan struct{})
		var wg sync.WaitGroup
		var mu sync.Mutex
		var failed []error
		var slowest time.Duration
		done := 0
		for range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					select {
					case <-stop:
						return
					default:
					}
					began := time.Now()
					_, err := reader.Snapshot(ctx, b.ID, -1)
					if err == nil {
						_, err = reader.Authenticate(ctx, token)
					}
					took := time.Since(began)
					mu.Lock()
					done++
					slowest = max(slowest, took)
					if err != nil {
						failed = append(failed, err)
					}
					mu.Unlock()
				}
			}()
		}
		time.Sleep(100 * time.Millisecond)
		rs.Replica.Stop()
		time.Sleep(300 * time.Millisecond)
		downReads := counts.take()
		rs.Replica.Start(t)
		deadline := time.Now().Add(10 * time.Second)
		for counts.take()["replica"] == 0 {
			if time.Now().After(deadline) {
				t.Fatal("the replica is not read again after it came back")
			}
			time.Sleep(models.ProbeEvery / 2)
		}
		close(stop)
		wg.Wait()
		if len(failed) > 0 {
			t.Fatalf("%d of %d reads failed while the replica restarted, the first: %v", len(failed), done, failed[0])
		}
		if downReads["primary_down"]+downReads["primary_none"] == 0 {
			t.Errorf("while the replica was down reads went %v, want the primary", downReads)
		}
		t.Logf("%d reads while the replica restarted, none failed, the slowest %v; while it was down: %v", done, slowest.Round(time.Millisecond), downReads)
	})

}
