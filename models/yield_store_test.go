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
// written nothing, and goes on once the reads end. The yield's clock is
// simulated: it moves only while a write is held, and reads are served,
// as a handler serves them, each time it moves.
func TestWritesYieldToReads(t *testing.T) {
	for _, d := range modelstest.Databases(t) {
		t.Run(d.Name, func(t *testing.T) {
			ctx := context.Background()
			store, b := demoBusiness(t, d.DB, engine.Gym)
			read := func() {
				rctx, done := store.Serving(ctx)
				defer done()
				if _, err := store.Snapshot(rctx, b.ID, -1); err != nil {
					t.Error(err)
				}
			}
			var reading func(now time.Time) // while reads are served
			now := models.SimulateYield(store, func(now time.Time) {
				if reading != nil {
					reading(now)
				}
			})
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

			// Reads while writes owe a minute of their share, and a write
			// whose request ends after 50 ms.
			const deadline = 50 * time.Millisecond
			short, cancel := context.WithCancel(ctx)
			defer cancel()
			start := now()
			reads := 0
			reading = func(now time.Time) {
				read()
				reads++
				if now.Sub(start) >= deadline {
					cancel()
				}
			}
			read()
			models.OweWrites(store, time.Minute)
			if err := rename(short, "Too late"); !errors.Is(err, context.Canceled) {
				t.Fatalf("a held write whose request ended: %v, want the context's error", err)
			}
			if held, waited := store.WritesHeld(); held != 1 || waited < deadline {
				t.Errorf("%d writes held for %v, want the one for its %v", held, waited, deadline)
			}
			if reads < 2 {
				t.Errorf("%d reads while the write was held", reads)
			}
			after, err := store.Snapshot(ctx, b.ID, -1)
			if err != nil {
				t.Fatal(err)
			}
			if after.Business.Revision != before.Business.Revision || after.State.Rooms[0].Name != "Alone" {
				t.Fatalf("revision %d, room %q after the held write: want %d and %q, nothing written", after.Business.Revision, after.State.Rooms[0].Name, before.Business.Revision, "Alone")
			}

			reading = nil
			start = now()
			if err := rename(ctx, "After the reads"); err != nil {
				t.Fatal(err)
			}
			if took := now().Sub(start); took > 20*time.Millisecond {
				t.Errorf("a write owing its share went on %v after the reads ended", took)
			}
			if after, err = store.Snapshot(ctx, b.ID, -1); err != nil || after.State.Rooms[0].Name != "After the reads" {
				t.Errorf("room %q after the write once reads ended (%v)", after.State.Rooms[0].Name, err)
			}
		})
	}
}
