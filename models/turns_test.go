package models_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/koredyne/schedule/engine"
	"github.com/koredyne/schedule/models"
	"github.com/koredyne/schedule/models/modelstest"
)

// TestWritesOfOneBusinessTakeTurns runs writes of one business from many
// goroutines of one process: every one commits, each edits the snapshot
// the write before it kept (none reads the schedule from the database
// again), and a write still waiting for its turn when its context ends
// stops with the context's error, having written nothing.
func TestWritesOfOneBusinessTakeTurns(t *testing.T) {
	for _, d := range modelstest.Databases(t) {
		t.Run(d.Name, func(t *testing.T) {
			ctx := context.Background()
			store, b := demoBusiness(t, d.DB, engine.Gym)
			first, err := store.Snapshot(ctx, b.ID, -1)
			if err != nil {
				t.Fatal(err)
			}
			const writers, each = 6, 5
			var mu sync.Mutex
			kept := map[*models.Snapshot]bool{first: true}
			var edited []*models.Snapshot
			var wg sync.WaitGroup
			for w := range writers {
				wg.Go(func() {
					for i := range each {
						res, err := store.Write(ctx, b.ID, false, func(e *models.Edit) error {
							mu.Lock()
							edited = append(edited, e.Before)
							mu.Unlock()
							e.State.Rooms[0].Name = fmt.Sprintf("Ring %d-%d", w, i)
							return nil
						})
						if err != nil {
							t.Error(err)
							return
						}
						mu.Lock()
						kept[res.After] = true
						mu.Unlock()
					}
				})
			}
			wg.Wait()
			last, err := store.Snapshot(ctx, b.ID, -1)
			if err != nil {
				t.Fatal(err)
			}
			if got, want := last.Business.Revision, first.Business.Revision+writers*each; got != want {
				t.Fatalf("revision %d after %d writes from %d, want %d", got, writers*each, first.Business.Revision, want)
			}
			for i, sn := range edited {
				if !kept[sn] {
					t.Fatalf("write %d edited a snapshot of revision %d read again, not the one the write before kept", i, sn.Business.Revision)
				}
			}

			// A write holds the turn; another's context ends while it waits.
			holding, release := make(chan struct{}), make(chan struct{})
			done := make(chan error)
			go func() {
				_, err := store.Write(ctx, b.ID, false, func(e *models.Edit) error {
					close(holding)
					<-release
					e.State.Rooms[0].Name = "Held"
					return nil
				})
				done <- err
			}()
			<-holding
			short, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
			defer cancel()
			_, err = store.Write(short, b.ID, false, func(e *models.Edit) error {
				e.State.Rooms[0].Name = "Too late"
				return nil
			})
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("a write whose context ended while it waited: %v, want the deadline's error", err)
			}
			close(release)
			if err := <-done; err != nil {
				t.Fatal(err)
			}
			after, err := store.Snapshot(ctx, b.ID, -1)
			if err != nil {
				t.Fatal(err)
			}
			if after.Business.Revision != last.Business.Revision+1 || after.State.Rooms[0].Name != "Held" {
				t.Fatalf("revision %d, room %q: want %d and the held write's name", after.Business.Revision, after.State.Rooms[0].Name, last.Business.Revision+1)
			}
		})
	}
}
