package cache

import (
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
)

type counts struct {
	mu                      sync.Mutex
	hits, misses, evictions map[string]int
}

func (c *counts) add(m *map[string]int, n string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if *m == nil {
		*m = map[string]int{}
	}
	(*m)[n]++
}
func (c *counts) Hit(n string)   { c.add(&c.hits, n) }
func (c *counts) Miss(n string)  { c.add(&c.misses, n) }
func (c *counts) Evict(n string) { c.add(&c.evictions, n) }

// TestBudgetEvictsLeastRecentlyUsed fills two caches on one budget and
// checks, against a plain model of the budget (two slices: on probation
// and protected), which entries stay.
func TestBudgetEvictsLeastRecentlyUsed(t *testing.T) {
	b := NewBudget(1000)
	var o counts
	b.Observe(&o)
	a, c := New[int, *int](b, "a"), New[int, *int](b, "c")
	type ref struct {
		c   *Cache[int, *int]
		key int
	}
	var probation, protected []ref // most recent first
	sizes := map[ref]int64{}
	remove := func(list []ref, r ref) ([]ref, bool) {
		for i, m := range list {
			if m == r {
				return append(list[:i], list[i+1:]...), true
			}
		}
		return list, false
	}
	sum := func(list []ref) int64 {
		var n int64
		for _, r := range list {
			n += sizes[r]
		}
		return n
	}
	protect := func(r ref) {
		protected = append([]ref{r}, protected...)
		for sum(protected) > 800 && len(protected) > 1 {
			last := protected[len(protected)-1]
			protected = protected[:len(protected)-1]
			probation = append([]ref{last}, probation...)
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 5000 {
		r := ref{[]*Cache[int, *int]{a, c}[rng.IntN(2)], rng.IntN(30)}
		switch rng.IntN(3) {
		case 0:
			_, ok := r.c.Get(r.key)
			inModel := sizes[r] > 0
			if ok != inModel {
				t.Fatalf("step %d: get %v = %v, model %v", i, r, ok, inModel)
			}
			if ok {
				var was bool
				if protected, was = remove(protected, r); !was {
					probation, _ = remove(probation, r)
				}
				protect(r)
			}
		default:
			size := int64(1 + rng.IntN(300))
			v := i
			r.c.Put(r.key, &v, size)
			var was bool
			protected, was = remove(protected, r)
			probation, _ = remove(probation, r)
			sizes[r] = size
			if was {
				protect(r)
			} else {
				probation = append([]ref{r}, probation...)
			}
			for sum(probation)+sum(protected) > 1000 {
				var last ref
				if len(probation) > 0 {
					last, probation = probation[len(probation)-1], probation[:len(probation)-1]
				} else {
					last, protected = protected[len(protected)-1], protected[:len(protected)-1]
				}
				delete(sizes, last)
			}
		}
		if held := sum(probation) + sum(protected); b.Held("") != held || b.Held("") > b.Limit() {
			t.Fatalf("step %d: held %d, model %d", i, b.Held(""), held)
		}
		if b.Held("a")+b.Held("c") != b.Held("") {
			t.Fatalf("step %d: held by name %d + %d, total %d", i, b.Held("a"), b.Held("c"), b.Held(""))
		}
	}
	if o.evictions["a"] == 0 || o.evictions["c"] == 0 || o.hits["a"] == 0 || o.misses["c"] == 0 {
		t.Errorf("counts: hits %v misses %v evictions %v", o.hits, o.misses, o.evictions)
	}
}

// TestSweepKeepsWhatIsInUse: entries asked for again (businesses in daily
// use) outlast a sweep of many more entries asked for once each, which
// evicts its own.
func TestSweepKeepsWhatIsInUse(t *testing.T) {
	b := NewBudget(1000)
	snaps := New[int, *int](b, "snapshots")
	for k := range 5 {
		v := k
		snaps.Put(k, &v, 100)
		snaps.Get(k)
	}
	for k := 100; k < 10_000; k++ {
		v := k
		snaps.Put(k, &v, 50)
		if k%1000 == 0 {
			// A hot business writes: its next revision replaces it.
			w := k
			snaps.Put(k%5, &w, 100)
		}
	}
	for k := range 5 {
		if _, ok := snaps.Get(k); !ok {
			t.Errorf("entry %d, in use, was evicted by the sweep", k)
		}
	}
	if b.Held("") > b.Limit() {
		t.Errorf("held %d over the limit %d", b.Held(""), b.Limit())
	}
}

func TestGrowOnlyTheSameValue(t *testing.T) {
	b := NewBudget(100)
	c := New[string, *int](b, "x")
	one, two := new(int), new(int)
	c.Put("k", one, 10)
	c.Grow("k", one, 5)
	if b.Held("") != 15 {
		t.Fatalf("held %d, want 15", b.Held(""))
	}
	c.Put("k", two, 10)
	c.Grow("k", one, 50) // the old value's growth is not the new one's
	if b.Held("") != 10 {
		t.Fatalf("held %d, want 10", b.Held(""))
	}
	c.Grow("k", two, 200) // past the budget: the entry goes
	if _, ok := c.Peek("k"); ok || b.Held("") != 0 {
		t.Fatalf("kept an entry larger than the budget: held %d", b.Held(""))
	}
	c.Put("big", one, 101)
	if c.Len() != 0 {
		t.Fatal("kept a value larger than the budget")
	}
}

func TestConcurrentUse(t *testing.T) {
	b := NewBudget(5000)
	c := New[string, *int](b, "x")
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 2000 {
				k := fmt.Sprint((g * i) % 97)
				v := i
				c.Put(k, &v, int64(i%200))
				if p, ok := c.Get(k); ok {
					c.Grow(k, p, 1)
				}
			}
		}()
	}
	wg.Wait()
	if b.Held("") > 5000 || b.Held("") < 0 {
		t.Fatalf("held %d", b.Held(""))
	}
}
