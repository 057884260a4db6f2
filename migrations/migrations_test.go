package migrations_test

import (
	"context"
	"sync"
	"testing"

	"github.com/koredyne/schedule/migrations"
	"github.com/koredyne/schedule/models/modelstest"
)

// TestDownAndUp rolls the schema back and applies it again, on a database
// that modelstest has just migrated.
func TestDownAndUp(t *testing.T) {
	for _, d := range modelstest.Databases(t) {
		t.Run(d.Name, func(t *testing.T) {
			ctx := context.Background()
			m, err := migrations.New(d.DB.DB, d.DB.LockFile())
			if err != nil {
				t.Fatal(err)
			}
			st, err := m.Status(ctx)
			if err != nil || len(st) == 0 || !st[0].Applied {
				t.Fatalf("status: %+v, %v", st, err)
			}
			down, err := m.Down(ctx)
			if err != nil || len(down) == 0 {
				t.Fatalf("down: %v, %v", down, err)
			}
			if _, err := d.DB.ExecContext(ctx, "SELECT 1 FROM businesses"); err == nil {
				t.Fatal("the businesses table survived the rollback")
			}
			// Several migrators at once: the lock makes them take turns, and
			// the schema is applied exactly once.
			var wg sync.WaitGroup
			applied := make([][]string, 4)
			errs := make([]error, 4)
			for i := range applied {
				wg.Add(1)
				go func() {
					defer wg.Done()
					mi, err := migrations.New(d.DB.DB, d.DB.LockFile())
					if err == nil {
						applied[i], err = mi.Up(ctx)
					}
					errs[i] = err
				}()
			}
			wg.Wait()
			total := 0
			for i := range applied {
				if errs[i] != nil {
					t.Fatalf("migrator %d: %v", i, errs[i])
				}
				total += len(applied[i])
			}
			if total != len(down) {
				t.Errorf("%d migrations applied in all, want %d", total, len(down))
			}
			if _, err := d.DB.ExecContext(ctx, "SELECT 1 FROM businesses"); err != nil {
				t.Fatal(err)
			}
		})
	}
}
