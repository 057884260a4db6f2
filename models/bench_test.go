package models_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/koredyne/schedule/engine"
	"github.com/koredyne/schedule/models"
	"github.com/koredyne/schedule/models/modelstest"
)

// benchmarkWrite measures one guarded write on the gym demo: lock, take the
// snapshot, edit, validate, save the difference, prove the clashes again
// against the snapshot's proof, bump the revision, commit.
func benchmarkWrite(b *testing.B, d modelstest.Database) {
	store, biz := demoBusiness(b, d.DB, engine.Gym)
	ctx := context.Background()
	i := 0
	for b.Loop() {
		i++
		_, err := store.Write(ctx, biz.ID, false, func(e *models.Edit) error {
			e.State.Rooms[0].Name = fmt.Sprintf("Ring %d", i)
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkGuardedWritePostgres(b *testing.B) {
	d, ok := modelstest.Postgres(b)
	if !ok {
		b.Skip("needs PostgreSQL")
	}
	benchmarkWrite(b, d)
}

func BenchmarkGuardedWriteSQLite(b *testing.B) { benchmarkWrite(b, modelstest.SQLite(b)) }

// BenchmarkDryRunSQLite measures a dry run that adds a room: the whole
// write, rolled back, answering with the edit's provisional ids.
func BenchmarkDryRunSQLite(b *testing.B) {
	store, biz := demoBusiness(b, modelstest.SQLite(b).DB, engine.Gym)
	ctx := context.Background()
	for b.Loop() {
		if _, err := store.Write(ctx, biz.ID, true, func(e *models.Edit) error {
			e.State.Rooms = append(e.State.Rooms, engine.Room{ID: e.NewID(), Name: "Preview", Capacity: 1})
			return nil
		}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkUnchangedWriteSQLite measures a write that sets a room's name
// to the name it has.
func BenchmarkUnchangedWriteSQLite(b *testing.B) {
	store, biz := demoBusiness(b, modelstest.SQLite(b).DB, engine.Gym)
	ctx := context.Background()
	for b.Loop() {
		if _, err := store.Write(ctx, biz.ID, false, func(e *models.Edit) error {
			e.State.Rooms[0].Name = e.Before.State.Rooms[0].Name
			return nil
		}); err != nil {
			b.Fatal(err)
		}
	}
}
