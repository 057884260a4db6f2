package models_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"sync"
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
// for field: the business, the state, the versions and the accepted clashes;
// read with prepared statements and with the simple query protocol.
func TestBatchLoadEqualsQueries(t *testing.T) {
	d, ok := modelstest.Postgres(t)
	if !ok {
		t.Skip("needs PostgreSQL")
	}
	ctx := context.Background()
	day := engine.DateOf(today)
	store := models.NewStore(d.DB, func() time.Time { return today })
	simple := modelstest.Open(t, d.DSN)
	models.SimpleBatches(simple)
	compare := func(what string, id int64) {
		t.Helper()
		want, err := models.LoadSnapshotQueries(ctx, d.DB, id)
		if err != nil {
			t.Fatal(err)
		}
		for _, db := range []*models.DB{d.DB, simple} {
			equalSnapshots(t, what, db, id, want)
		}
		if !models.NamedBatches(d.DB) {
			t.Fatalf("%s: the batches gave up their prepared statements", what)
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

// equalSnapshots fails t unless the batch load of business id from db
// equals want (t.Errorf: it may run in goroutines of its own).
func equalSnapshots(t *testing.T, what string, db *models.DB, id int64, want *models.Snapshot) {
	t.Helper()
	got, err := models.LoadSnapshotBatch(context.Background(), db, id)
	switch {
	case err != nil:
		t.Errorf("%s: %v", what, err)
	case !reflect.DeepEqual(got.Business, want.Business):
		t.Errorf("%s: business %+v, want %+v", what, got.Business, want.Business)
	case !reflect.DeepEqual(got.State, want.State):
		t.Errorf("%s: the states differ:\n got %+v\nwant %+v", what, got.State, want.State)
	case !reflect.DeepEqual(got.Versions, want.Versions):
		t.Errorf("%s: the versions differ:\n got %+v\nwant %+v", what, got.Versions, want.Versions)
	case !reflect.DeepEqual(got.Accepted, want.Accepted):
		t.Errorf("%s: accepted clashes %v, want %v", what, got.Accepted, want.Accepted)
	}
}

// TestFailedBatchLeavesNoTransaction: a batch whose read fails after its
// BEGIN returns PostgreSQL's error, and the connection goes back to the
// pool outside any transaction (the one connection, here, answers the next
// query in its default isolation, and the next batch works), with prepared
// statements and with the simple query protocol.
func TestFailedBatchLeavesNoTransaction(t *testing.T) {
	d, ok := modelstest.Postgres(t)
	if !ok {
		t.Skip("needs PostgreSQL")
	}
	ctx := context.Background()
	_, b := demoBusiness(t, d.DB, engine.Office)
	simple := modelstest.Open(t, d.DSN)
	models.SimpleBatches(simple)
	for _, db := range []*models.DB{d.DB, simple} {
		db.SetMaxOpenConns(1)
		for range 3 {
			err := models.FailingBatch(ctx, db, b.ID)
			if err == nil || !strings.Contains(err.Error(), "division by zero") {
				t.Fatalf("got %v, want the failing statement's error", err)
			}
			var iso string
			if err := db.QueryRowContext(ctx, "SHOW transaction_isolation").Scan(&iso); err != nil || iso != "read committed" {
				t.Fatalf("after a failed batch the connection answers %q, %v: want read committed, outside the batch's transaction", iso, err)
			}
			if _, err := models.LoadSnapshotBatch(ctx, db, b.ID); err != nil {
				t.Fatalf("a batch after a failed one: %v", err)
			}
		}
	}
	if !models.NamedBatches(d.DB) {
		t.Error("a failing statement made the batches give up their prepared statements")
	}
}

// TestBatchPreparesOnce: a batch prepares its statements on the
// connection once, and the loads after it use them; when the connection
// loses them (as behind a pooler in transaction mode, here DEALLOCATE
// ALL), the load is read again in one simple query, and so is every
// later one.
func TestBatchPreparesOnce(t *testing.T) {
	d, ok := modelstest.Postgres(t)
	if !ok {
		t.Skip("needs PostgreSQL")
	}
	ctx := context.Background()
	_, b := demoBusiness(t, d.DB, engine.Gym)
	want, err := models.LoadSnapshotQueries(ctx, d.DB, b.ID)
	if err != nil {
		t.Fatal(err)
	}
	d.DB.SetMaxOpenConns(1)
	prepared := func() (n int) {
		t.Helper()
		if err := d.DB.QueryRowContext(ctx, "SELECT count(*) FROM pg_prepared_statements WHERE name LIKE 'koredyne\\_%'").Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	equalSnapshots(t, "first load", d.DB, b.ID, want)
	n := prepared()
	if n < 15 {
		t.Fatalf("%d statements prepared by the first load, want one a table", n)
	}
	equalSnapshots(t, "second load", d.DB, b.ID, want)
	if got := prepared(); got != n || !models.NamedBatches(d.DB) {
		t.Fatalf("after the second load %d statements are prepared (%d before), named %v", got, n, models.NamedBatches(d.DB))
	}
	if _, err := d.DB.ExecContext(ctx, "DEALLOCATE ALL"); err != nil {
		t.Fatal(err)
	}
	equalSnapshots(t, "after the statements were lost", d.DB, b.ID, want)
	if models.NamedBatches(d.DB) || prepared() != 0 {
		t.Fatalf("after a lost statement: named %v, %d prepared; want the simple protocol", models.NamedBatches(d.DB), prepared())
	}
	equalSnapshots(t, "in the simple protocol", d.DB, b.ID, want)
}

// TestBatchThroughPgBouncer: through a real PgBouncer in transaction
// pooling (Debian 12's 1.18 keeps no prepared statement for its clients),
// concurrent cold loads all read what a query at a time reads, none
// failing while the batches find out that prepared statements do not stay.
func TestBatchThroughPgBouncer(t *testing.T) {
	d, ok := modelstest.Postgres(t)
	if !ok {
		t.Skip("needs PostgreSQL")
	}
	ctx := context.Background()
	pooled, _ := modelstest.PgBouncer(t, d.DSN)
	db := modelstest.Open(t, pooled)
	var ids []int64
	wants := map[int64]*models.Snapshot{}
	for _, kind := range []engine.Kind{engine.Gym, engine.Clinic, engine.Office} {
		_, b := demoBusiness(t, d.DB, kind)
		want, err := models.LoadSnapshotQueries(ctx, d.DB, b.ID)
		if err != nil {
			t.Fatal(err)
		}
		ids, wants[b.ID] = append(ids, b.ID), want
	}
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 30 {
				id := ids[(w+i)%len(ids)]
				equalSnapshots(t, fmt.Sprintf("load %d of worker %d", i, w), db, id, wants[id])
			}
		}()
	}
	wg.Wait()
	t.Logf("batches through PgBouncer use prepared statements: %v", models.NamedBatches(db))
}
