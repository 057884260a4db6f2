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
// checks, against a plain model of the budget, which entries stay.
func TestBudgetEvictsLeastRecentlyUsed(t *testing.T) {
	b := NewBudget(1000)
	var o counts
	b.Observe(&o)
	a, c := New[int, *int](b, "a"), New[int, *int](b, "c")
	type ref struct {
		c   *Cache[int, *int]
		key int
	}
	var model []ref // most recent first
	sizes := map[ref]int64{}
	touch := func(r ref) {
		for i, m := range model {
			if m == r {
				model = append(model[:i], model[i+1:]...)
				break
			}
		}
		model = append([]ref{r}, model...)
	}
	held := func() int64 {
		var n int64
		for _, r := range model {
			n += sizes[r]
		}
		return n
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
				touch(r)
			}
		default:
			size := int64(1 + rng.IntN(300))
			v := i
			r.c.Put(r.key, &v, size)
			sizes[r] = size
			touch(r)
			for held() > 1000 {
				last := model[len(model)-1]
				model = model[:len(model)-1]
				delete(sizes, last)
			}
		}
		if b.Held("") != held() || b.Held("") > b.Limit() {
			t.Fatalf("step %d: held %d, model %d", i, b.Held(""), held())
		}
		if b.Held("a")+b.Held("c") != b.Held("") {
			t.Fatalf("step %d: held by name %d + %d, total %d", i, b.Held("a"), b.Held("c"), b.Held(""))
		}
	}
	if o.evictions["a"] == 0 || o.evictions["c"] == 0 || o.hits["a"] == 0 || o.misses["c"] == 0 {
		t.Errorf("counts: hits %v misses %v evictions %v", o.hits, o.misses, o.evictions)
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
