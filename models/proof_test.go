package models_test

import (
	"context"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	"github.com/koredyne/schedule/engine"
	"github.com/koredyne/schedule/engine/enginetest"
	"github.com/koredyne/schedule/models"
	"github.com/koredyne/schedule/models/modelstest"
)

// TestWritesCarryTheProof writes random edits to a synthetic business
// through the guarded write, one revision after another, clashes accepted
// so that they pile up: the proof each write carries over from the
// revision before equals a proof of the saved schedule from scratch.
func TestWritesCarryTheProof(t *testing.T) {
	for _, d := range modelstest.Databases(t) {
		t.Run(d.Name, func(t *testing.T) {
			ctx := context.Background()
			day := engine.DateOf(today)
			st := enginetest.Business(enginetest.Options{ClassTimes: 60, Seed: 3, Today: day, Clashes: 1})
			b, err := models.CreateBusiness(ctx, d.DB, "synthetic", st.Business)
			if err != nil {
				t.Fatal(err)
			}
			store := models.NewStore(d.DB, func() time.Time { return today })
			if _, err := store.Write(ctx, b.ID, false, func(e *models.Edit) error {
				e.ReplaceSchedule(st)
				e.AcceptClashes = true
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			r := rand.New(rand.NewPCG(5, 6))
			writes, clashes := 0, 0
			for writes < 40 {
				did := ""
				res, err := store.Write(ctx, b.ID, false, func(e *models.Edit) error {
					was := e.State.Clone()
					did = enginetest.RandomEdit(r, &e.State, e.Today)
					if engine.Validate(e.State) != nil {
						did = ""
						e.State = was
						return nil
					}
					newRowsTemporary(&e.State, &was, e.NewID)
					e.AcceptClashes = true
					return nil
				})
				if err != nil {
					t.Fatalf("%s: %v", did, err)
				}
				if did == "" {
					continue
				}
				writes++
				fresh, err := engine.New(res.After.State)
				if err != nil {
					t.Fatal(err)
				}
				got, want := res.After.Clashes(day), fresh.Clashes(day)
				clashes += len(want.Clashes)
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("write %d (%s): the carried proof has %d clashes, a fresh one %d", writes, did, len(got.Clashes), len(want.Clashes))
				}
			}
			t.Logf("%d writes, %d clashes compared", writes, clashes)
		})
	}
}

// newRowsTemporary gives the rows an edit added (ids the state before did
// not have) temporary ids, as a write's new rows must have, and points the
// entries of a new class time at its new id.
func newRowsTemporary(s, before *engine.State, next func() int64) {
	had := func(n int, id func(int) int64) map[int64]bool {
		m := make(map[int64]bool, n)
		for i := range n {
			m[id(i)] = true
		}
		return m
	}
	cts := had(len(before.ClassTimes), func(i int) int64 { return before.ClassTimes[i].ID })
	moved := map[int64]int64{}
	for i := range s.ClassTimes {
		if ct := &s.ClassTimes[i]; !cts[ct.ID] {
			moved[ct.ID] = next()
			ct.ID = moved[ct.ID]
		}
	}
	entries := had(len(before.Entries), func(i int) int64 { return before.Entries[i].ID })
	for i := range s.Entries {
		e := &s.Entries[i]
		if !entries[e.ID] {
			e.ID = next()
		}
		if id, ok := moved[e.ClassTimeID]; ok {
			e.ClassTimeID = id
		}
	}
	renew := func(n int, id func(int) *int64, was map[int64]bool) {
		for i := range n {
			if p := id(i); !was[*p] {
				*p = next()
			}
		}
	}
	renew(len(s.OneOffs), func(i int) *int64 { return &s.OneOffs[i].ID }, had(len(before.OneOffs), func(i int) int64 { return before.OneOffs[i].ID }))
	renew(len(s.RoomBookings), func(i int) *int64 { return &s.RoomBookings[i].ID }, had(len(before.RoomBookings), func(i int) int64 { return before.RoomBookings[i].ID }))
	renew(len(s.Closures), func(i int) *int64 { return &s.Closures[i].ID }, had(len(before.Closures), func(i int) int64 { return before.Closures[i].ID }))
	renew(len(s.Capacity), func(i int) *int64 { return &s.Capacity[i].ID }, had(len(before.Capacity), func(i int) int64 { return before.Capacity[i].ID }))
}
