package models_test

import (
	"context"
	"testing"

	"github.com/koredyne/schedule/engine"
	"github.com/koredyne/schedule/models"
	"github.com/koredyne/schedule/models/modelstest"
)

// BenchmarkImpactDryRun is a dry run on the gym demo without its impact,
// with its totals and calendars, and with its first 500 sessions and
// who is on them as well (the figure: impact adds at most 10 %):
// one class time re-timed by a quarter of an hour and cut from 20 places
// to 10, so the impact runs without end, reads the bookings and counts
// the standing places (20, one a session).
func BenchmarkImpactDryRun(b *testing.B) {
	for _, name := range []string{"sqlite", "postgres"} {
		b.Run(name, func(b *testing.B) {
			for _, v := range []struct {
				label string
				ask   models.ImpactAsk
			}{
				{"without", models.ImpactAsk{}},
				{"totals", models.ImpactAsk{Totals: true, Calendars: true}},
				{"sessions", models.ImpactAsk{Totals: true, Calendars: true, Sessions: true}},
			} {
				b.Run(v.label, func(b *testing.B) {
					d := modelstest.SQLite(b)
					if name == "postgres" {
						var ok bool
						if d, ok = modelstest.Postgres(b); !ok {
							b.Skip("needs PostgreSQL")
						}
					}
					store, biz := demoBusiness(b, d.DB, engine.Gym)
					in := standingBench(b, store, biz, 20)
					ctx := context.Background()
					for b.Loop() {
						res, err := store.Write(ctx, biz.ID, true, func(e *models.Edit) error {
							e.Impact = v.ask
							for i := range e.State.ClassTimes {
								if ct := &e.State.ClassTimes[i]; ct.ID == in.ClassTimeID {
									ct.Start, ct.End, ct.Capacity = ct.Start+15, ct.End+15, 10
								}
							}
							return nil
						})
						if err != nil {
							b.Fatal(err)
						}
						if v.ask.Totals && !res.Impact.Unbounded {
							b.Fatal("the re-time reaches every week")
						}
					}
				})
			}
		})
	}
}
