package models_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/koredyne/schedule/engine"
	"github.com/koredyne/schedule/models"
	"github.com/koredyne/schedule/models/modelstest"
)

// TestWritesYieldToReads writes through the store as requests do
// (Serving): with no reads a write never waits; while reads are served, a
// write that owes its share waits, stops with its request's context having
// written nothing, and goes on once the reads end.
func TestWritesYieldToReads(t *testing.T) {
	for _, d := range modelstest.Databases(t) {
		t.Run(d.Name, func(t *testing.T) {
			ctx := context.Background()
			store, b := demoBusiness(t, d.DB, engine.Gym)
			rename := func(ctx context.Context, name string) error {
				ctx, done := store.Serving(ctx)
				defer done()
				_, err := store.Write(ctx, b.ID, false, func(e *models.Edit) error {
					e.State.Rooms[0].Name = name
					return nil
				})
				return err
			}
			for range 20 {
				if err := rename(ctx, "Alone"); err != nil {
					t.Fatal(err)
				}
			}
			if held, _ := store.WritesHeld(); held != 0 {
				t.Fatalf("%d writes held with no reads", held)
			}
			before, err := store.Snapshot(ctx, b.ID, -1)
			if err != nil {
				t.Fatal(err)
			}

			// Reads, served as a handler serves them, while writes owe a
			// minute of their share.
			stop, stopped, read := make(chan struct{}), make(chan struct{}), make(chan struct{})
			go func() {
				defer close(stopped)
				for i := 0; ; i++ {
					select {
					case <-stop:
						return
					default:
					}
					rctx, done := store.Serving(ctx)
					_, err := store.Snapshot(rctx, b.ID, -1)
					done()
					if i == 0 {
						close(read)
					}
					if err != nil {
						t.Error(err)
						return
					}
					time.Sleep(time.Millisecond)
				}
			}()
			<-read
			models.OweWrites(store, time.Minute)
			short, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
			defer cancel()
			if err := rename(short, "Too late"); !errors.Is(err, context.DeadlineExceeded) {
				close(stop)
				t.Fatalf("a held write whose request ended: %v, want the deadline's error", err)
			}
			if held, waited := store.WritesHeld(); held != 1 || waited < 40*time.Millisecond {
				t.Errorf("%d writes held for %v, want the one for its 50 ms", held, waited)
			}
			close(stop)
			<-stopped
			after, err := store.Snapshot(ctx, b.ID, -1)
			if err != nil {
				t.Fatal(err)
			}
			if after.Business.Revision != before.Business.Revision || after.State.Rooms[0].Name != "Alone" {
				t.Fatalf("revision %d, room %q after the held write: want %d and %q, nothing written", after.Business.Revision, after.State.Rooms[0].Name, before.Business.Revision, "Alone")
			}
			start := time.Now()
			if err := rename(ctx, "After the reads"); err != nil {
				t.Fatal(err)
			}
			if took := time.Since(start); took > 2*time.Second {
				t.Errorf("a write owing its share took %v once the reads ended", took)
			}
		})
	}
}
