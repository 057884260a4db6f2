package models_test

import (
	"context"
	"runtime/pprof"
	"testing"
	"time"

	"github.com/koredyne/schedule/engine"
	"github.com/koredyne/schedule/models"
	"github.com/koredyne/schedule/models/modelstest"
)

// BenchmarkImpactDryRun is a dry run on the gym demo without its impact,
// with its totals and calendars, and with its first 500 sessions and who
// is on them as well (the figure: impact adds at most 10 %): one
// class time re-timed by a quarter of an hour and cut from 20 places to
// 10, so the impact runs without end, reads the bookings and counts the
// standing places (20, one a session). The three run in turn within each
// iteration, so that a shared machine's load falls on them alike; each
// reports its time (without-ns, totals-ns, sessions-ns) and the two
// impacts what they add (totals-%, sessions-%).
func BenchmarkImpactDryRun(b *testing.B) {
	asks := []models.ImpactAsk{{}, {Totals: true, Calendars: true}, {Totals: true, Calendars: true, Sessions: true}}
	labels := []string{"without", "totals", "sessions"} // pprof -tagfocus impact=sessions
	for _, name := range []string{"sqlite", "postgres"} {
		b.Run(name, func(b *testing.B) {
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
			var spent [3]time.Duration
			n := 0
			for b.Loop() {
				for j := range asks {
					k := (j + n) % len(asks) // each goes first in turn
					t0 := time.Now()
					var res *models.Result
					var err error
					pprof.Do(ctx, pprof.Labels("impact", labels[k]), func(ctx context.Context) {
						res, err = store.Write(ctx, biz.ID, true, func(e *models.Edit) error {
							e.Impact = asks[k]
							for i := range e.State.ClassTimes {
								if ct := &e.State.ClassTimes[i]; ct.ID == in.ClassTimeID {
									ct.Start, ct.End, ct.Capacity = ct.Start+15, ct.End+15, 10
								}
							}
							return nil
						})
					})
					spent[k] += time.Since(t0)
					if err != nil {
						b.Fatal(err)
					}
					if asks[k].Totals && !res.Impact.Unbounded {
						b.Fatal("the re-time reaches every week")
					}
				}
				n++
			}
			per := func(d time.Duration) float64 { return float64(d.Nanoseconds()) / float64(n) }
			b.ReportMetric(per(spent[0]), "without-ns")
			b.ReportMetric(per(spent[1]), "totals-ns")
			b.ReportMetric(per(spent[2]), "sessions-ns")
			b.ReportMetric(100*(per(spent[1])/per(spent[0])-1), "totals-%")
			b.ReportMetric(100*(per(spent[2])/per(spent[0])-1), "sessions-%")
		})
	}
}
