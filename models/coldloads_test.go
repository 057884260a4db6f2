package models_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/koredyne/schedule/engine"
	"github.com/koredyne/schedule/engine/demo"
	"github.com/koredyne/schedule/models"
	"github.com/koredyne/schedule/models/modelstest"
)

// TestColdLoadsLimited holds a store's cold loads at their limit (one
// load, stopped as it starts): a warm request, whose snapshot is kept, is
// answered meanwhile, with and without the revision; a cold one waits
// for the slot without starting, gives up when its context ends, and loads
// once the slot is free.
func TestColdLoadsLimited(t *testing.T) {
	for _, d := range modelstest.Databases(t) {
		t.Run(d.Name, func(t *testing.T) {
			ctx := context.Background()
			writer := models.NewStore(d.DB, func() time.Time { return today })
			ids := map[string]int64{}
			for _, slug := range []string{"warm", "held", "waiting"} {
				st, _ := demo.ByKind(engine.Office, engine.DateOf(today))
				b, err := models.CreateBusiness(ctx, d.DB, "cold-"+slug, st.Business)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := writer.Write(ctx, b.ID, false, func(e *models.Edit) error { e.ReplaceSchedule(st); return nil }); err != nil {
					t.Fatal(err)
				}
				ids[slug] = b.ID
			}
			store := models.NewStore(d.DB, func() time.Time { return today })
			warm, err := store.Snapshot(ctx, ids["warm"], 1)
			if err != nil {
				t.Fatal(err)
			}
			store.LimitColdLoads(1)
			var mu sync.Mutex
			started := map[int64]int{}
			entered, release := make(chan struct{}), make(chan struct{})
			store.BeforeLoad(func(b int64) {
				mu.Lock()
				started[b]++
				mu.Unlock()
				if b == ids["held"] {
					close(entered)
					<-release
				}
			})
			held := make(chan error, 1)
			go func() {
				sn, err := store.Snapshot(ctx, ids["held"], 1)
				if err == nil && sn.Business.ID != ids["held"] {
					err = errors.New("the snapshot of another business")
				}
				held <- err
			}()
			<-entered
			if running, limit := store.ColdLoads(); running != 1 || limit != 1 {
				t.Fatalf("ColdLoads: %d running of %d, want 1 of 1", running, limit)
			}

			// Warm requests are answered while the one slot is held.
			for _, rev := range []int64{1, -1} {
				wctx, cancel := context.WithTimeout(ctx, 5*time.Second)
				sn, err := store.Snapshot(wctx, ids["warm"], rev)
				cancel()
				if err != nil || sn != warm {
					t.Fatalf("a warm request (revision %d) while the cold loads are held: %v (the kept snapshot: %v)", rev, err, sn == warm)
				}
			}
			// A cold one waits without starting, until its context ends.
			cctx, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
			_, err = store.Snapshot(cctx, ids["waiting"], 1)
			cancel()
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("a cold request while the slot is held: got %v, want it to wait until its deadline", err)
			}
			mu.Lock()
			n := started[ids["waiting"]]
			mu.Unlock()
			if n != 0 {
				t.Fatalf("a cold load started %d times while the slot was held", n)
			}

			close(release)
			if err := <-held; err != nil {
				t.Fatal(err)
			}
			sn, err := store.Snapshot(ctx, ids["waiting"], 1)
			if err != nil || sn.Business.ID != ids["waiting"] || sn.Business.Revision != 1 {
				t.Fatalf("the cold request once the slot is free: %v", err)
			}
			if running, _ := store.ColdLoads(); running != 0 {
				t.Errorf("%d slots held after every load ended", running)
			}
		})
	}
}
