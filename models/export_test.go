package models

import (
	"context"
	"time"

	"github.com/uptrace/bun"
)

// LoadSnapshotBatch and LoadSnapshotQueries read a business's snapshot in
// one round trip and a query at a time, for the tests to compare.
func LoadSnapshotBatch(ctx context.Context, db *DB, id int64) (*Snapshot, error) {
	return loadSnapshotBatch(ctx, db, id, func(*Business) error { return nil })
}

// SimpleBatches has db's batches speak the simple query protocol from now
// on, as after a statement prepared on a connection was lost; NamedBatches
// reports whether they still use prepared statements.
func SimpleBatches(db *DB)     { db.unnamed.Store(true) }
func NamedBatches(db *DB) bool { return !db.unnamed.Load() }

func LoadSnapshotQueries(ctx context.Context, db *DB, id int64) (*Snapshot, error) {
	var sn *Snapshot
	err := readTx(ctx, db, func(tx bun.Tx) error {
		b, err := businessByID(ctx, tx, id, false)
		if err != nil {
			return err
		}
		sn, err = loadSnapshot(ctx, tx, b)
		return err
	})
	return sn, err
}

// FailingBatch runs a batch of reads whose second one fails in PostgreSQL
// as it runs, after BEGIN (it divides by zero for each of the business's
// staff): the error it returns is that statement's.
func FailingBatch(ctx context.Context, db *DB, business int64) error {
	rd := &batchReader{db: db, business: business}
	var rooms []Room
	var staff []Staff
	rd.read(&rooms, func(q *bun.SelectQuery, business any) *bun.SelectQuery { return q.Where("business_id = ?", business) }, func() error { return nil })
	rd.read(&staff, func(q *bun.SelectQuery, business any) *bun.SelectQuery {
		return q.Where("business_id = ?", business).Where("1 / (id - id) = 1")
	}, func() error { return nil })
	return rd.run(ctx)
}

// BeforeLoad has f run as each cold load of the store takes its slot.
func (s *Store) BeforeLoad(f func(business int64)) { s.beforeLoad = f }

// RecheckTokensEvery has cached tokens checked again after d, until the
// test ends.
func RecheckTokensEvery(t interface{ Cleanup(func()) }, d time.Duration) {
	was := tokenRecheck
	tokenRecheck = d
	t.Cleanup(func() { tokenRecheck = was })
}

// OweWrites has s's writes owe d of their share (YieldWrites), as after
// they took d more than it while reads were served, and have no free
// writes left.
func OweWrites(s *Store, d time.Duration) {
	s.yield.mu.Lock()
	defer s.yield.mu.Unlock()
	s.yield.credit, s.yield.free = -d, 0
}

// SimulateYield gives the yield of s's writes (YieldWrites) a simulated
// clock, which moves only while a write is held; moved runs each time it
// has moved. It returns the clock's reading.
func SimulateYield(s *Store, moved func(now time.Time)) (now func() time.Time) {
	c := simulate(&s.yield)
	c.moved = moved
	return c.now
}

// WithoutOutbox leaves the webhook outbox out of s's writes, for the
// benchmarks to measure what it adds.
func WithoutOutbox(s *Store) { s.Webhooks.off = true }

// QueueEvents stores n schedule.changed events of a business in one
// transaction, as writes would, queued for its endpoints.
func QueueEvents(ctx context.Context, db *DB, b *Business, n int) error {
	return db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		events := make([]WebhookEvent, n)
		for i := range events {
			var err error
			if events[i], err = envelope(b, int64(i), time.Now(), noted{typ: "schedule.changed", data: map[string]any{}}, nil); err != nil {
				return err
			}
		}
		return writeEvents(ctx, tx, b.ID, events, nil)
	})
}
