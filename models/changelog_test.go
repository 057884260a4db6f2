package models

import (
	"math/rand/v2"
	"testing"
	"unsafe"

	"github.com/koredyne/schedule/engine"
)

// TestUnchangedAgainstBruteForce records random changes (some revisions
// never heard of, as another process's on SQLite) and checks Unchanged
// against a plain reading of its promise: every revision between the two
// is known, and none may have changed a date asked about.
func TestUnchangedAgainstBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 8))
	s := &Store{}
	known := map[int64]Change{}
	const biz = 7
	for rev := int64(1); rev <= 300; rev++ {
		from := engine.Date(rng.IntN(60))
		c := Change{Business: biz, Revision: rev, From: from, To: from + engine.Date(rng.IntN(5))}
		switch rng.IntN(12) {
		case 0:
			c.Open, c.To = true, 0
		case 1:
			continue // a write this store never heard of
		}
		s.record(c)
		known[rev] = c
		s.record(c) // heard twice (its own write, and the notification): once in the log
		for range 20 {
			since := rev - int64(rng.IntN(80))
			a := engine.Date(rng.IntN(70))
			b := a + engine.Date(rng.IntN(10))
			want := true
			for r := since + 1; r <= rev; r++ {
				k, ok := known[r]
				if !ok || rev-r >= keptChanges {
					want = false // unknown, or older than the log keeps
					break
				}
				inRange := func(d engine.Date) bool { return d >= k.From && (k.Open || d < k.To) }
				for d := a; d < b; d++ {
					if inRange(d) {
						want = false
					}
				}
			}
			if since == rev {
				want = true
			}
			if got := s.Unchanged(biz, since, rev, a, b); got != want {
				t.Fatalf("revision %d: Unchanged(since %d, %d..%d) = %v, want %v", rev, since, a, b, got, want)
			}
		}
	}
	if s.Unchanged(biz, 300, 299, 0, 1) || s.Unchanged(biz+1, 1, 2, 0, 1) {
		t.Error("an answer from a later revision, or of a business never heard of, was called unchanged")
	}
}

// TestChangeLogIsBounded: a process that hears writes of 10,000 businesses
// keeps the changes of the most recent keptBusinesses at most; the
// businesses that changed lately still carry their answers over writes,
// those forgotten have them computed again (Unchanged is false, never
// wrongly true).
func TestChangeLogIsBounded(t *testing.T) {
	if n := unsafe.Sizeof(Change{}); n > 40 {
		t.Errorf("a Change is %d bytes; keptBusinesses' comment counts 40", n)
	}
	s := &Store{}
	for id := range int64(10_000) {
		s.record(Change{Business: id, Revision: 1, From: 10, To: 11})
		s.record(Change{Business: id, Revision: 2, From: 10, To: 11})
		if n := len(s.log.by); n > keptBusinesses {
			t.Fatalf("after %d businesses the log holds %d, more than %d", id+1, n, keptBusinesses)
		}
	}
	if !s.Unchanged(9_999, 0, 2, 20, 30) || !s.Unchanged(10_000-keptBusinesses/2, 1, 2, 20, 30) {
		t.Error("a business that changed lately does not carry its answers over a write")
	}
	if s.Unchanged(0, 1, 2, 20, 30) || s.Unchanged(9_999, 1, 2, 10, 11) {
		t.Error("a forgotten business, or a date the write changed, was called unchanged")
	}
}
