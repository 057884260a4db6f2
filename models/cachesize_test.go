package models

import (
	"runtime"
	"testing"

	"github.com/koredyne/schedule/engine"
	"github.com/koredyne/schedule/engine/demo"
)

// TestSnapshotSizeEstimate measures the heap that compiled snapshots of
// the demos take, with the clash report of today proven, and holds the
// estimate the store's budget counts (Snapshot.size) to it: never below
// what they take, and at most three times above.
func TestSnapshotSizeEstimate(t *testing.T) {
	today := engine.MustDate(2026, 12, 1)
	for _, kind := range []engine.Kind{engine.Gym, engine.Clinic, engine.Office} {
		st, _ := demo.ByKind(kind, today)
		const n = 20
		states := make([]engine.State, n)
		for i := range states {
			states[i] = st.Clone() // the state is part of what a snapshot holds
		}
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		snaps := make([]*Snapshot, n)
		for i := range snaps {
			sn, err := newSnapshot(Business{Slug: "b"}, states[i], &Versions{}, nil)
			if err != nil {
				t.Fatal(err)
			}
			sn.Clashes(today)
			snaps[i] = sn
		}
		states = nil
		runtime.GC()
		runtime.ReadMemStats(&after)
		heap := int64(after.HeapAlloc-before.HeapAlloc) / n
		// The states were allocated before; count them as the snapshots'.
		heap += stateBytes(&st)
		sn := snaps[0]
		sn.mu.Lock()
		est := sn.heap()
		sn.mu.Unlock()
		t.Logf("%s: %d rows, heap %d B a snapshot, estimate %d B (%.2f×)", kind, rows(&st), heap, est, float64(est)/float64(heap))
		if est < heap || est > 3*heap {
			t.Errorf("%s: estimate %d B for a snapshot that takes %d B", kind, est, heap)
		}
		runtime.KeepAlive(snaps)
	}
}

// stateBytes measures the heap a copy of st takes.
func stateBytes(st *engine.State) int64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	copies := make([]engine.State, 20)
	for i := range copies {
		copies[i] = st.Clone()
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(copies)
	return int64(after.HeapAlloc-before.HeapAlloc) / 20
}
