package models_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/koredyne/schedule/engine"
	"github.com/koredyne/schedule/models"
	"github.com/koredyne/schedule/models/modelstest"
)

// BenchmarkStandingBooking is one standing booking made through the
// guarded write on PostgreSQL (the figure: ≤ 3 ms on the gym demo,
// ≤ 30 ms on 10,000 class times with 5,000 standing places): the client,
// the membership, the single bookings of the session, the capacity proof
// over every date, the rule saved, the places proved again for the
// sessions the write touched, commit. Each made place is ended again
// outside the timer, so the business keeps its size. Every class time has
// 20 places, so the proofs run.
func BenchmarkStandingBooking(b *testing.B) {
	for _, name := range []string{"sqlite", "postgres"} {
		b.Run(name, func(b *testing.B) {
			for _, size := range []struct {
				name                 string
				classTimes, standing int
			}{{"gym", 0, 0}, {"10000x5000", 10000, 5000}} {
				b.Run(size.name, func(b *testing.B) {
					d := modelstest.SQLite(b)
					if name == "postgres" {
						var ok bool
						if d, ok = modelstest.Postgres(b); !ok {
							b.Skip("needs PostgreSQL")
						}
					}
					var store *models.Store
					var biz *models.Business
					if size.classTimes == 0 {
						store, biz = demoBusiness(b, d.DB, engine.Gym)
					} else {
						store, biz = scaledBusiness(b, d.DB, size.classTimes)
					}
					in := standingBench(b, store, biz, size.standing)
					ctx := context.Background()
					for b.Loop() {
						var id int64
						res, err := store.Write(ctx, biz.ID, false, func(e *models.Edit) error {
							r, err := e.SaveStanding(ctx, 0, in)
							if err != nil {
								return err
							}
							id = r.Standing.ID
							return nil
						})
						if err != nil {
							b.Fatal(err)
						}
						b.StopTimer()
						if _, err := store.Write(ctx, biz.ID, false, func(e *models.Edit) error {
							_, err := e.EndStanding(res.ID(id), in.From)
							return err
						}); err != nil {
							b.Fatal(err)
						}
						b.StartTimer()
					}
				})
			}
		})
	}
}

// standingBench gives every class time 20 places and a client with a
// membership of every series, holding n standing places spread over the
// sessions (one each); it returns a standing place to make for that
// client in a session it holds none in.
func standingBench(b testing.TB, store *models.Store, biz *models.Business, n int) models.StandingInput {
	b.Helper()
	ctx := context.Background()
	from := engine.DateOf(today).AddDays(7)
	var in models.StandingInput
	_, err := store.Write(ctx, biz.ID, false, func(e *models.Edit) error {
		s := &e.State
		for i := range s.ClassTimes {
			s.ClassTimes[i].Capacity = 20
		}
		c, err := e.SaveClient(ctx, engine.Client{Name: "Standing bench"})
		if err != nil {
			return err
		}
		for _, sr := range s.Series {
			if _, err := e.SaveSubscription(ctx, engine.Subscription{ClientID: c.ID, SeriesID: sr.ID, Start: engine.DateOf(today)}); err != nil {
				return err
			}
		}
		seen := map[[2]int64]bool{}
		for _, en := range s.Entries {
			k := [2]int64{en.ClassTimeID, en.ClassID}
			if seen[k] {
				continue
			}
			seen[k] = true
			if len(seen) > n {
				in = models.StandingInput{ClientID: c.ID, ClassTimeID: en.ClassTimeID, ClassID: en.ClassID, From: from}
				break
			}
			s.Standing = append(s.Standing, engine.Standing{ID: e.NewID(), ClientID: c.ID, ClassTimeID: en.ClassTimeID, ClassID: en.ClassID, From: from})
		}
		if in.ClientID == 0 {
			return fmt.Errorf("fewer than %d sessions", n+1)
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	return in
}
