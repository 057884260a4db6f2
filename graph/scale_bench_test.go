package graph_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"sync/atomic"
	"testing"

	"github.com/koredyne/schedule/engine"
	"github.com/koredyne/schedule/engine/enginetest"
	"github.com/koredyne/schedule/graph"
	"github.com/koredyne/schedule/models"
	"github.com/koredyne/schedule/models/modelstest"
)

const relabelClassTime = `mutation($id: ID!, $label: String) { updateClassTime(id: $id, input: {label: $label}) { classTime { id label } } }`

// scaleRuns numbers the scaled businesses, which -count seeds again in the
// same database.
var scaleRuns atomic.Int64

// BenchmarkScaleGuardedWrite is one guarded write through the GraphQL
// handler to synthetic businesses of 100, 1,000 and 10,000 class times
// (engine/enginetest), on SQLite and PostgreSQL, each seeded once: a class
// time's label changes, by turns to one of two, which changes the class
// time (its sessions are proven again) and keeps the business its size.
func BenchmarkScaleGuardedWrite(b *testing.B) {
	eachBenchDatabase(b, func(b *testing.B, d modelstest.Database) {
		for _, n := range []int{100, 1000, 10000} {
			b.Run(fmt.Sprint(n), func(b *testing.B) {
				store := models.NewStore(d.DB, nil)
				ctx := context.Background()
				st := enginetest.Business(enginetest.Options{ClassTimes: n, Seed: 1, Today: engine.DateOf(now)})
				biz, err := models.CreateBusiness(ctx, d.DB, fmt.Sprintf("scale-%d-%d", n, scaleRuns.Add(1)), st.Business)
				if err != nil {
					b.Fatal(err)
				}
				res, err := store.Write(ctx, biz.ID, false, func(e *models.Edit) error { e.ReplaceSchedule(st); return nil })
				if err != nil {
					b.Fatal(err)
				}
				ct := res.After.State.ClassTimes[0].ID
				tok, _, err := models.CreateToken(ctx, d.DB, biz.ID, models.Owner, "bench", "")
				if err != nil {
					b.Fatal(err)
				}
				h := (&graph.Resolver{Store: store, Log: slog.New(slog.NewTextHandler(io.Discard, nil))}).Handler()
				id := strconv.FormatInt(ct, 10)
				labels := []string{"Early", "Late"}
				i := 0
				for b.Loop() {
					benchPost(b, h, tok, relabelClassTime, map[string]any{"id": id, "label": labels[i%2]})
					i++
				}
			})
		}
	})
}
