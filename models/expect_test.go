package models

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/koredyne/schedule/engine"
	"github.com/koredyne/schedule/engine/demo"
	"github.com/koredyne/schedule/migrations"
)

// TestReadersWaitForTheWritersSnapshot: a reader that asks for the
// revision a write is committing waits for the write (expect) and gets
// its snapshot, not one read from the database; when the write fails it
// loads the revision itself.
func TestReadersWaitForTheWritersSnapshot(t *testing.T) {
	ctx := context.Background()
	db, err := Open(ctx, filepath.Join(t.TempDir(), "koredyne.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	m, err := migrations.New(db.DB, db.LockFile())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Up(ctx); err != nil {
		t.Fatal(err)
	}
	day := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	st := demo.Gym(engine.DateOf(day))
	b, err := CreateBusiness(ctx, db, "gym", st.Business)
	if err != nil {
		t.Fatal(err)
	}
	store := NewStore(db, func() time.Time { return day })
	res, err := store.Write(ctx, b.ID, false, func(e *Edit) error { e.ReplaceSchedule(st); return nil })
	if err != nil {
		t.Fatal(err)
	}
	rev := res.Revision
	for _, fails := range []bool{false, true} {
		fresh := NewStore(db, func() time.Time { return day }) // nothing kept
		k := loadKey{b.ID, rev}
		l := fresh.expect(k)
		if l == nil || fresh.expect(k) != nil {
			t.Fatal("expect: want one load of the revision")
		}
		got := make(chan *Snapshot)
		go func() {
			sn, err := fresh.Snapshot(ctx, b.ID, rev)
			if err != nil {
				t.Error(err)
			}
			got <- sn
		}()
		select {
		case sn := <-got:
			t.Fatalf("the reader did not wait for the write: %v", sn)
		case <-time.After(50 * time.Millisecond):
		}
		written := &Snapshot{Business: res.After.Business, State: res.After.State, Timetable: res.After.Timetable}
		if fails {
			fresh.loaded(k, l, nil, errors.New("the commit failed"))
		} else {
			fresh.keep(written)
			fresh.loaded(k, l, written, nil)
		}
		sn := <-got
		switch {
		case !fails && sn != written:
			t.Fatal("the reader did not get the write's snapshot")
		case fails && (sn == written || sn == nil || sn.Business.Revision != rev):
			t.Fatalf("after a failed write the reader got %v, want revision %d read from the database", sn, rev)
		}
	}
}
