// Package cache keeps what the server computes for businesses (compiled
// snapshots, clash reports, rendered calendars, encoded responses) within
// one memory budget, shared by every cache that draws on it. When the
// bytes held pass the budget, the least recently used entries go first,
// whichever cache holds them; the caches key their entries by business,
// so a business not asked for in a while is the one that goes, and is
// computed again from the database when it is asked for next.
//
// The order is a segmented LRU: an entry starts on probation and is
// protected once it is asked for again; eviction takes the least recently
// used entry on probation first, and the protected part, at most
// protectedShare of the budget, passes its own least recently used back
// to probation. So a sweep through thousands of businesses, each asked for
// once (a crawler, a phone polling every business's feed, the load test's
// sweepers), evicts its own entries, not the businesses in daily use.
//
// Sizes are estimates the caches make of what they hold (see each
// caller's size function): the bytes of encoded bodies exactly, and for
// structures a count of their parts times a per-part cost measured with
// runtime.MemStats in the callers' tests.
package cache

import (
	"container/list"
	"sync"
)

// Observer hears what the caches do, for the server's metrics: a lookup
// that found its entry or did not, and an entry evicted to stay within
// the budget. name is the cache's name. Its methods are called
// concurrently, outside the budget's lock.
type Observer interface {
	Hit(name string)
	Miss(name string)
	Evict(name string)
}

// Budget is the memory several caches share. The zero limit holds
// nothing. A Budget is safe for concurrent use.
type Budget struct {
	limit int64

	mu     sync.Mutex
	held   int64
	heldBy map[string]int64
	// Entries on probation and protected, each the most recently used
	// first; protectedHeld is the bytes of the protected ones.
	probation, protected list.List
	protectedHeld        int64
	observer             Observer
}

// protectedShare is the part of a budget its protected entries may hold.
const protectedShare = 0.8

// NewBudget returns a budget of limit bytes.
func NewBudget(limit int64) *Budget {
	return &Budget{limit: limit, heldBy: map[string]int64{}}
}

// Observe has o hear every cache on the budget from now on.
func (b *Budget) Observe(o Observer) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.observer = o
}

// Limit is the budget in bytes.
func (b *Budget) Limit() int64 { return b.limit }

// Held returns the bytes held by the cache named name, or by every cache
// when name is "".
func (b *Budget) Held(name string) int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	if name == "" {
		return b.held
	}
	return b.heldBy[name]
}

type entry struct {
	cache     *base
	key       any
	value     any
	size      int64
	elem      *list.Element
	protected bool // on the protected list, else on probation
}

// base is what a Cache is without its types, for the budget's list.
type base struct {
	name    string
	budget  *Budget
	entries map[any]*entry
}

// Cache maps keys to values within a Budget. Values whose size may grow
// after they are put (see Grow) must be pointers, so that a grown value
// can be told from a newer one under the same key.
type Cache[K comparable, V any] struct {
	base
}

// New returns an empty cache named name (for metrics) on b.
func New[K comparable, V any](b *Budget, name string) *Cache[K, V] {
	return &Cache[K, V]{base{name: name, budget: b, entries: map[any]*entry{}}}
}

// Get returns the value of k and marks it used; the lookup counts as a hit
// or a miss.
func (c *Cache[K, V]) Get(k K) (V, bool) {
	return c.Lookup(k, func(V) bool { return true })
}

// Lookup is Get for a value that must also pass match (a revision, a
// date): one that fails it counts as a miss and is left for Put to
// replace.
func (c *Cache[K, V]) Lookup(k K, match func(V) bool) (V, bool) {
	b := c.budget
	b.mu.Lock()
	e, ok := c.entries[k]
	var v V
	if ok {
		v = e.value.(V)
	}
	ok = ok && match(v)
	if ok {
		b.used(e)
	}
	o := b.observer
	b.mu.Unlock()
	if o != nil {
		if ok {
			o.Hit(c.name)
		} else {
			o.Miss(c.name)
		}
	}
	if !ok {
		var zero V
		return zero, false
	}
	return v, true
}

// Peek returns the value of k without marking it used or counting.
func (c *Cache[K, V]) Peek(k K) (V, bool) {
	c.budget.mu.Lock()
	defer c.budget.mu.Unlock()
	if e, ok := c.entries[k]; ok {
		return e.value.(V), true
	}
	var zero V
	return zero, false
}

// Put sets the value of k, of size bytes, as the most recently used, and
// evicts the least recently used entries of the budget until it holds no
// more than its limit. A value larger than the whole budget is not kept.
func (c *Cache[K, V]) Put(k K, v V, size int64) {
	c.budget.mu.Lock()
	evicted := c.put(k, v, size)
	o := c.budget.observer
	c.budget.mu.Unlock()
	tell(o, evicted)
}

// put is Put with the budget's lock held.
func (c *Cache[K, V]) put(k K, v V, size int64) []string {
	b := c.budget
	// A newer value (the next revision of a business) keeps the place of
	// the one it replaces: a business in use stays protected.
	protected := false
	if e, ok := c.entries[k]; ok {
		protected = e.protected
		b.drop(e)
	}
	if size <= b.limit {
		e := &entry{cache: &c.base, key: k, value: v, size: size}
		c.entries[k] = e
		b.held += size
		b.heldBy[c.name] += size
		if protected {
			b.protect(e)
		} else {
			e.elem = b.probation.PushFront(e)
		}
	}
	return b.evict()
}

// PutIf is Put when keep, given the value k holds now (if any), says so;
// the test and the put are one step.
func (c *Cache[K, V]) PutIf(k K, v V, size int64, keep func(old V, ok bool) bool) bool {
	b := c.budget
	b.mu.Lock()
	var old V
	e, ok := c.entries[k]
	if ok {
		old = e.value.(V)
	}
	if !keep(old, ok) {
		b.mu.Unlock()
		return false
	}
	evicted := c.put(k, v, size)
	o := b.observer
	b.mu.Unlock()
	tell(o, evicted)
	return true
}

// Grow adds delta bytes to the size of k's entry if it still holds v (a
// pointer), and evicts as Put does.
func (c *Cache[K, V]) Grow(k K, v V, delta int64) {
	b := c.budget
	b.mu.Lock()
	e, ok := c.entries[k]
	if !ok || e.value != any(v) {
		b.mu.Unlock()
		return
	}
	e.size += delta
	b.held += delta
	b.heldBy[c.name] += delta
	if e.protected {
		b.protectedHeld += delta
	}
	if e.size > b.limit {
		b.drop(e)
	}
	evicted := b.evict()
	o := b.observer
	b.mu.Unlock()
	tell(o, evicted)
}

// Remove forgets k.
func (c *Cache[K, V]) Remove(k K) {
	c.budget.mu.Lock()
	defer c.budget.mu.Unlock()
	if e, ok := c.entries[k]; ok {
		c.budget.drop(e)
	}
}

// Len is the number of entries.
func (c *Cache[K, V]) Len() int {
	c.budget.mu.Lock()
	defer c.budget.mu.Unlock()
	return len(c.entries)
}

// drop removes e; b.mu is held.
func (b *Budget) drop(e *entry) {
	if e.protected {
		b.protected.Remove(e.elem)
		b.protectedHeld -= e.size
	} else {
		b.probation.Remove(e.elem)
	}
	delete(e.cache.entries, e.key)
	b.held -= e.size
	b.heldBy[e.cache.name] -= e.size
}

// used marks e used: the most recently used of the protected entries;
// b.mu is held.
func (b *Budget) used(e *entry) {
	if e.protected {
		b.protected.MoveToFront(e.elem)
		return
	}
	b.probation.Remove(e.elem)
	b.protect(e)
}

// protect puts e, on no list, first on the protected list, and passes
// the least recently used protected entries back to probation while they
// hold more than their share; b.mu is held.
func (b *Budget) protect(e *entry) {
	e.protected = true
	e.elem = b.protected.PushFront(e)
	b.protectedHeld += e.size
	for b.protectedHeld > int64(protectedShare*float64(b.limit)) && b.protected.Len() > 1 {
		last := b.protected.Remove(b.protected.Back()).(*entry)
		b.protectedHeld -= last.size
		last.protected = false
		last.elem = b.probation.PushFront(last)
	}
}

// evict drops the least recently used entries while the budget is
// exceeded, and returns the names of their caches; b.mu is held.
func (b *Budget) evict() []string {
	var names []string
	for b.held > b.limit {
		back := b.probation.Back()
		if back == nil {
			back = b.protected.Back()
		}
		if back == nil {
			break
		}
		e := back.Value.(*entry)
		b.drop(e)
		names = append(names, e.cache.name)
	}
	return names
}

func tell(o Observer, evicted []string) {
	if o == nil {
		return
	}
	for _, n := range evicted {
		o.Evict(n)
	}
}
