package models

import (
	"context"
	"testing"
	"time"
)

// TestReplicasForgetWhatEveryReplicaHas: the revisions a process has seen
// are held against the replicas only until any replica still read must
// have replayed them, so a process that serves 10,000 businesses holds
// those of the last seconds, not one entry per business ever seen.
func TestReplicasForgetWhatEveryReplicaHas(t *testing.T) {
	r := &Replicas{maxLag: 5 * time.Second, seen: map[int64]seenRev{}}
	ctx := context.Background()
	for id := range int64(10_000) {
		r.saw(id, id+1)
	}
	r.saw(7, 3) // an older revision never lowers the floor
	if n, f := r.seenCount(), r.floor(ctx, 7); n != 10_000 || f != 8 {
		t.Fatalf("%d held, floor of 7 %d; want 10000 and 8", n, f)
	}
	now := time.Now()
	r.forget(now.Add(r.maxLag)) // within the window: all kept
	if n := r.seenCount(); n != 10_000 {
		t.Fatalf("%d held after maxLag, want all 10000", n)
	}
	r.saw(42, 100) // seen again later: kept longer
	r.seen[42] = seenRev{100, now.Add(time.Hour)}
	r.forget(now.Add(r.maxLag + keepSeen + time.Second))
	if n, f, g := r.seenCount(), r.floor(ctx, 7), r.floor(AtLeast(ctx, 9), 7); n != 1 || f != 0 || g != 9 {
		t.Errorf("after the window: %d held, floor of 7 %d, at least 9 %d; want 1, 0, 9", n, f, g)
	}
	if f := r.floor(ctx, 42); f != 100 {
		t.Errorf("floor of 42 %d, want 100", f)
	}
}
