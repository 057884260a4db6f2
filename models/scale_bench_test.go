package models_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/koredyne/schedule/engine"
	"github.com/koredyne/schedule/engine/enginetest"
	"github.com/koredyne/schedule/models"
	"github.com/koredyne/schedule/models/modelstest"
)

// scaleSizes are the businesses the scaling benchmarks grow through, in
// class times.
var scaleSizes = []int{100, 1000, 10000}

// scaledBusiness writes a synthetic business of n class times
// (engine/enginetest) through the guarded write, once.
func scaledBusiness(b testing.TB, db *models.DB, n int) (*models.Store, *models.Business) {
	b.Helper()
	ctx := context.Background()
	st := enginetest.Business(enginetest.Options{ClassTimes: n, Seed: 1, Today: engine.DateOf(today)})
	biz, err := models.CreateBusiness(ctx, db, fmt.Sprintf("scale-%d", n), st.Business)
	if err != nil {
		b.Fatal(err)
	}
	store := models.NewStore(db, func() time.Time { return today })
	if _, err := store.Write(ctx, biz.ID, false, func(e *models.Edit) error { e.ReplaceSchedule(st); return nil }); err != nil {
		b.Fatal(err)
	}
	return store, biz
}

// BenchmarkScaleGuardedWrite is one guarded write to synthetic businesses
// of 100, 1,000 and 10,000 class times, on SQLite and PostgreSQL: by turns
// it adds a class time with its entries in a free hour of a room (what
// enginetest.AddClassTime adds: a staff member, a class, the class time
// and an entry a week of the series' rotation) and removes that class
// time and its entries again, so the business stays its size. Each is the
// whole write: lock, snapshot, edit, validate, save the difference, prove
// the clashes from the proof before, commit.
func BenchmarkScaleGuardedWrite(b *testing.B) {
	for _, name := range []string{"sqlite", "postgres"} {
		b.Run(name, func(b *testing.B) {
			for _, n := range scaleSizes {
				b.Run(fmt.Sprint(n), func(b *testing.B) {
					d := modelstest.SQLite(b)
					if name == "postgres" {
						var ok bool
						if d, ok = modelstest.Postgres(b); !ok {
							b.Skip("needs PostgreSQL")
						}
					}
					store, biz := scaledBusiness(b, d.DB, n)
					ctx := context.Background()
					var added int64
					for b.Loop() {
						var temp int64
						res, err := store.Write(ctx, biz.ID, false, func(e *models.Edit) error {
							s := &e.State
							if added != 0 {
								s.Entries = slices.DeleteFunc(s.Entries, func(x engine.Entry) bool { return x.ClassTimeID == added })
								s.ClassTimes = slices.DeleteFunc(s.ClassTimes, func(x engine.ClassTime) bool { return x.ID == added })
								return nil
							}
							temp = addClassTime(e)
							if temp == 0 {
								return fmt.Errorf("no free hour")
							}
							return nil
						})
						if err != nil {
							b.Fatal(err)
						}
						if added != 0 {
							added = 0
						} else {
							added = res.ID(temp)
						}
					}
				})
			}
		})
	}
}

// addClassTime adds what enginetest.AddClassTime adds to the edit's
// schedule, in a free hour of its first room, under the edit's temporary
// ids, and returns the class time's; 0 when the room has no free hour.
func addClassTime(e *models.Edit) int64 {
	s := &e.State
	staff, classes, cts, entries := len(s.Staff), len(s.Classes), len(s.ClassTimes), len(s.Entries)
	if _, ok := enginetest.AddClassTime(s, 0); !ok {
		return 0
	}
	p, c, ct := &s.Staff[staff], &s.Classes[classes], &s.ClassTimes[cts]
	p.ID, c.ID, ct.ID = e.NewID(), e.NewID(), e.NewID()
	c.StaffIDs = []int64{p.ID}
	for i := entries; i < len(s.Entries); i++ {
		x := &s.Entries[i]
		x.ID, x.ClassID, x.ClassTimeID = e.NewID(), c.ID, ct.ID
	}
	return ct.ID
}
