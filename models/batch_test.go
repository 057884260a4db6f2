package models_test

import (
	"context"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/koredyne/schedule/engine"
	"github.com/koredyne/schedule/engine/demo"
	"github.com/koredyne/schedule/engine/enginetest"
	"github.com/koredyne/schedule/models"
	"github.com/koredyne/schedule/models/modelstest"
)

// TestBatchLoadEqualsQueries is the oracle of the one-round-trip load: for
// the demos and for generated businesses taken through random edits (day
// changes, closures, removals that leave tombstones, clashes accepted), the
// snapshot read in one batch equals the one read a query at a time, field
// for field: the business, the state, the versions and the accepted clashes.
func TestBatchLoadEqualsQueries(t *testing.T) {
	d, ok := modelstest.Postgres(t)
	if !ok {
		t.Skip("KOREDYNE_TEST_DATABASE_URL is not set")
	}
	ctx := context.Background()
	day := engine.DateOf(today)
	store := models.NewStore(d.DB, func() time.Time { return today })
	compare := func(what string, id int64) {
		t.Helper()
		want, err := models.LoadSnapshotQueries(ctx, d.DB, id)
		if err != nil {
			t.Fatal(err)
		}
		got, err := models.LoadSnapshotBatch(ctx, d.DB, id)
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if !reflect.DeepEqual(got.Business, want.Business) {
			t.Fatalf("%s: business %+v, want %+v", what, got.Business, want.Business)
		}
		if !reflect.DeepEqual(got.State, want.State) {
			t.Fatalf("%s: the states differ:\n got %+v\nwant %+v", what, got.State, want.State)
		}
		if !reflect.DeepEqual(got.Versions, want.Versions) {
			t.Fatalf("%s: the versions differ:\n got %+v\nwant %+v", what, got.Versions, want.Versions)
		}
		if !reflect.DeepEqual(got.Accepted, want.Accepted) {
			t.Fatalf("%s: accepted clashes %v, want %v", what, got.Accepted, want.Accepted)
		}
	}
	for _, kind := range []engine.Kind{engine.Gym, engine.Clinic, engine.Office} {
		st, _ := demo.ByKind(kind, day)
		b, err := models.CreateBusiness(ctx, d.DB, "batch-"+string(kind), st.Business)
		if err != nil {
			t.Fatal(err)
		}
		compare(string(kind)+", empty", b.ID)
		if _, err := store.Write(ctx, b.ID, false, func(e *models.Edit) error { e.ReplaceSchedule(st); return nil }); err != nil {
			t.Fatal(err)
		}
		compare(string(kind), b.ID)
	}
	rows := 0
	for seed := range uint64(3) {
		st := enginetest.Business(enginetest.Options{ClassTimes: 40 + 60*int(seed), Seed: seed + 10, Today: day, Clashes: 1})
		b, err := models.CreateBusiness(ctx, d.DB, "batch-generated-"+string(rune('a'+seed)), st.Business)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := store.Write(ctx, b.ID, false, func(e *models.Edit) error {
			e.ReplaceSchedule(st)
			e.AcceptClashes = true
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		r := rand.New(rand.NewPCG(seed, 7))
		for writes := 0; writes < 25; {
			did := ""
			if _, err := store.Write(ctx, b.ID, false, func(e *models.Edit) error {
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
			}); err != nil {
				t.Fatalf("%s: %v", did, err)
			}
			if did != "" {
				writes++
				if writes%5 == 0 {
					compare(did, b.ID)
				}
			}
		}
		sn, err := models.LoadSnapshotBatch(ctx, d.DB, b.ID)
		if err != nil {
			t.Fatal(err)
		}
		if len(sn.State.Entries) == 0 || len(sn.Accepted) == 0 {
			t.Errorf("generated business %d: %d entries and %d accepted clashes, want some of both to compare", seed, len(sn.State.Entries), len(sn.Accepted))
		}
		rows += len(sn.State.Entries) + len(sn.State.Changes) + len(sn.State.Closures)
	}
	t.Logf("compared; %d entries, day changes and closures in the last revisions", rows)

	if _, err := models.LoadSnapshotBatch(ctx, d.DB, 1<<40); engine.ErrorCode(err) != engine.NotFound {
		t.Errorf("a business that does not exist: got %v, want NOT_FOUND", err)
	}
}

// TestFailedBatchLeavesNoTransaction: a batch whose read fails after its
// BEGIN returns PostgreSQL's error, and the connection goes back to the
// pool outside any transaction (the one connection, here, answers the next
// query in its default isolation, and the next batch works).
func TestFailedBatchLeavesNoTransaction(t *testing.T) {
	d, ok := modelstest.Postgres(t)
	if !ok {
		t.Skip("KOREDYNE_TEST_DATABASE_URL is not set")
	}
	ctx := context.Background()
	_, b := demoBusiness(t, d.DB, engine.Office)
	d.DB.SetMaxOpenConns(1)
	for range 3 {
		err := models.FailingBatch(ctx, d.DB, b.ID)
		if err == nil || !strings.Contains(err.Error(), "no_such_column") {
			t.Fatalf("got %v, want the failing statement's error", err)
		}
		var iso string
		if err := d.DB.QueryRowContext(ctx, "SHOW transaction_isolation").Scan(&iso); err != nil || iso != "read committed" {
			t.Fatalf("after a failed batch the connection answers %q, %v: want read committed, outside the batch's transaction", iso, err)
		}
		if _, err := models.LoadSnapshotBatch(ctx, d.DB, b.ID); err != nil {
			t.Fatalf("a batch after a failed one: %v", err)
		}
	}
}
