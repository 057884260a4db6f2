package models_test

import (
	"context"
	"testing"
	"time"

	"github.com/koredyne/schedule/engine"
	"github.com/koredyne/schedule/engine/enginetest"
	"github.com/koredyne/schedule/models"
	"github.com/koredyne/schedule/models/modelstest"
)

// BenchmarkColdSnapshot reads a generated business of 120 class times cold,
// as the store does for a business it does not hold: a query at a time
// (the transaction of some 22 statements) and in one batch (one round
// trip) of prepared statements or of one simple query, each compiled into
// a snapshot.
func BenchmarkColdSnapshot(b *testing.B) {
	d, ok := modelstest.Postgres(b)
	if !ok {
		b.Skip("needs PostgreSQL")
	}
	ctx := context.Background()
	st := enginetest.Business(enginetest.Options{ClassTimes: 120, Seed: 1, Today: engine.DateOf(today)})
	biz, err := models.CreateBusiness(ctx, d.DB, "cold-bench", st.Business)
	if err != nil {
		b.Fatal(err)
	}
	store := models.NewStore(d.DB, func() time.Time { return today })
	if _, err := store.Write(ctx, biz.ID, false, func(e *models.Edit) error { e.ReplaceSchedule(st); return nil }); err != nil {
		b.Fatal(err)
	}
	simple := modelstest.Open(b, d.DSN)
	models.SimpleBatches(simple)
	for _, bc := range []struct {
		name string
		db   *models.DB
		load func(context.Context, *models.DB, int64) (*models.Snapshot, error)
	}{
		{"queries", d.DB, models.LoadSnapshotQueries},
		{"batch", d.DB, models.LoadSnapshotBatch},
		{"batch-simple", simple, models.LoadSnapshotBatch},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := bc.load(ctx, bc.db, biz.ID); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
