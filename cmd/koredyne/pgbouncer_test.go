package main

import (
	"context"
	"io"
	"strings"
	"sync"
	"testing"

	"github.com/koredyne/schedule/models/modelstest"
)

// TestThroughPgBouncer runs the servers through a real PgBouncer in
// transaction pooling, as a platform of many servers would: migrations
// racing each other, the booking race of eight processes, and live updates
// across processes, whose LISTEN goes straight to PostgreSQL
// (KOREDYNE_LISTEN_URL) since a pooled connection is no session.
func TestThroughPgBouncer(t *testing.T) {
	direct, ok := modelstest.EmptyPostgres(t)
	if !ok {
		t.Skip("needs PostgreSQL")
	}
	pooled, _ := modelstest.PgBouncer(t, direct)
	env := func(k string) string {
		return map[string]string{"DATABASE_URL": pooled}[k]
	}

	t.Run("migrations", func(t *testing.T) {
		// Four migrators at once on an empty schema, through the pooler:
		// the lock must let one apply everything and the others nothing.
		var wg sync.WaitGroup
		outs := make([]strings.Builder, 4)
		codes := make([]int, 4)
		for i := range outs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				codes[i] = Main(context.Background(), []string{"migrate", "up"}, env, &outs[i], io.Discard)
			}()
		}
		wg.Wait()
		applied := 0
		for i := range outs {
			out := outs[i].String()
			if codes[i] != 0 {
				t.Fatalf("migrate up %d exited with %d: %s", i, codes[i], out)
			}
			if !strings.HasPrefix(out, "applied 0 migrations") {
				applied++
			}
		}
		if applied != 1 {
			t.Errorf("%d of the migrators applied migrations, want exactly one", applied)
		}
		var status strings.Builder
		if code := Main(context.Background(), []string{"migrate", "status"}, env, &status, io.Discard); code != 0 || strings.Contains(status.String(), "pending") || !strings.Contains(status.String(), "applied") {
			t.Fatalf("migrate status (%d): %s", code, status.String())
		}
	})

	bin := buildMain(t)
	listen := "KOREDYNE_LISTEN_URL=" + direct
	t.Run("booking race", func(t *testing.T) {
		db := modelstest.Open(t, direct)
		bookingRace(t, startProcesses(t, bin, pooled, raceProcesses, listen), db)
	})
	t.Run("live updates", func(t *testing.T) {
		a := startProcess(t, bin, pooled, listen)
		b := startProcess(t, bin, pooled, listen)
		revokingEndsAccess(t, a, b)
	})
}
