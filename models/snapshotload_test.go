package models_test

import (
	"context"
	"sync"
	"testing"

	"github.com/koredyne/schedule/engine"
	"github.com/koredyne/schedule/models"
	"github.com/koredyne/schedule/models/modelstest"
)

// TestSnapshotLoadedOnce asks a store that holds no snapshot for a
// business's revision from many requests at once, as right after another
// process's write: each gets that revision, and they share one load, the
// snapshot the store then keeps. A request whose context is done while it
// waits gets its context's error, and the load goes on for the others.
func TestSnapshotLoadedOnce(t *testing.T) {
	for _, d := range modelstest.Databases(t) {
		t.Run(d.Name, func(t *testing.T) {
			ctx := context.Background()
			_, b := demoBusiness(t, d.DB, engine.Gym)
			for round := range 5 {
				fresh := models.NewStore(d.DB, nil)
				const readers = 16
				got := make([]*models.Snapshot, readers)
				errs := make([]error, readers)
				var wg sync.WaitGroup
				for i := range readers {
					wg.Go(func() { got[i], errs[i] = fresh.Snapshot(ctx, b.ID, 1) })
				}
				done, cancel := context.WithCancel(ctx)
				cancel()
				if _, err := fresh.Snapshot(done, b.ID, 1); err == nil && round == 0 {
					// It may have found the snapshot kept already; only
					// a wait is cut short.
					t.Log("the cancelled request found the snapshot kept")
				}
				wg.Wait()
				kept, err := fresh.Snapshot(ctx, b.ID, 1)
				if err != nil {
					t.Fatal(err)
				}
				for i := range readers {
					if errs[i] != nil {
						t.Fatalf("round %d, reader %d: %v", round, i, errs[i])
					}
					if got[i].Business.Revision != 1 || got[i] != kept {
						t.Fatalf("round %d, reader %d: revision %d, the kept snapshot: %v", round, i, got[i].Business.Revision, got[i] == kept)
					}
				}
			}
		})
	}
}
