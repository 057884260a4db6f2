package models

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"
)

// simClock is a simulated clock for a yielder: it moves only when a write
// runs (advance) or the yielder waits, so that what the tests count is the
// same on an idle machine and a busy one.
type simClock struct {
	y  *yielder
	mu sync.Mutex
	t  time.Time
	// moved, when set, runs each time the clock has moved (reads that end
	// meanwhile, a request's context that ends).
	moved func(now time.Time)
}

// simulate gives y a simulated clock.
func simulate(y *yielder) *simClock {
	c := &simClock{y: y, t: time.Date(2026, 12, 7, 9, 0, 0, 0, time.UTC)}
	y.now, y.wait = c.now, c.wait
	return c
}

func (c *simClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

// advance moves the clock on by d.
func (c *simClock) advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	now, moved := c.t, c.moved
	c.mu.Unlock()
	if moved != nil {
		moved(now)
	}
}

// wait is the yielder's wait: the time passes at once, unless ctx is
// done already.
func (c *simClock) wait(ctx context.Context, d time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	c.advance(max(d, 1)) // a timer of 0 still takes a moment
	return ctx.Err()
}

// readAlways has a read of y end at every moment the clock moves to.
func readAlways(y *yielder) func(now time.Time) {
	return func(now time.Time) { y.lastRead.Store(now.UnixNano()) }
}

// TestWritesTakeTheirShare admits writes that each take 5 ms, one after
// the other, for half a second of a simulated clock: with no reads none
// waits; while reads are served, the time they take together is the
// share of two cores and the burst, give or take a write or two, with
// freeWrites a second beyond it, and every moment they do not run they are
// held.
func TestWritesTakeTheirShare(t *testing.T) {
	const took, span = 5 * time.Millisecond, 500 * time.Millisecond
	run := func(y *yielder, c *simClock) (writes, charged int, elapsed time.Duration) {
		start := c.now()
		for c.now().Sub(start) < span {
			ch, err := y.admit(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			c.advance(took)
			if ch {
				y.charge(took)
				charged++
			}
			writes++
		}
		return writes, charged, c.now().Sub(start)
	}

	alone := &Store{yield: newYielder(time.Now)}
	alone.yield.cores = 2
	if n, _, elapsed := run(&alone.yield, simulate(&alone.yield)); n != int(span/took) {
		t.Errorf("%d writes of %v in %v with no reads, want %d: writes waited", n, took, elapsed, span/took)
	}
	if held, _ := alone.WritesHeld(); held != 0 {
		t.Errorf("%d writes held with no reads", held)
	}

	s := &Store{yield: newYielder(time.Now)}
	y := &s.yield
	y.cores = 2
	c := simulate(y)
	c.moved = readAlways(y)
	c.moved(c.now())
	n, charged, elapsed := run(y, c)
	free := n - charged
	if most, least := freeWrites*(elapsed.Seconds()+1), freeWrites*elapsed.Seconds(); float64(free) > most || float64(free) < least {
		t.Errorf("%d writes beyond the share in %v, want between %v and %v", free, elapsed, least, most)
	}
	spent := time.Duration(charged) * took
	// The share of the cores, and the burst saved before: to the end of
	// the write that goes beyond it, and to the two writes that may not
	// have come yet when the credit was there (the first's credit was
	// full, and the last's when the time was up).
	share := time.Duration(y.share*float64(y.cores)*float64(elapsed)) + writeBurst
	least, most := share-2*took, share+took
	if spent > most || spent < least {
		t.Errorf("writes took %v in %v while reads were served, want between %v and %v (share %v of %d cores)", spent, elapsed, least, most, y.share, y.cores)
	}
	held, waited := s.WritesHeld()
	if idle := elapsed - time.Duration(n)*took; held == 0 || waited != idle {
		t.Errorf("%d writes held for %v in %v, want all the %v they did not run", held, waited, elapsed, idle)
	}
}

// TestHeldWrites holds a write that owes a minute of its share while reads
// are served: it stops with its context, and goes on once the reads end.
func TestHeldWrites(t *testing.T) {
	s := &Store{yield: newYielder(time.Now)}
	y := &s.yield
	c := simulate(y)
	y.credit, y.free = -time.Minute, 0
	reads := readAlways(y)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	start := c.now()
	const deadline = 30 * time.Millisecond
	c.moved = func(now time.Time) {
		reads(now)
		if now.Sub(start) >= deadline {
			cancel()
		}
	}
	reads(start)
	if _, err := y.admit(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("a held write whose context ended: %v, want the context's error", err)
	}
	if held, waited := s.WritesHeld(); held != 1 || waited < deadline || waited >= deadline+heldStep {
		t.Errorf("%d writes held for %v, want the one until its context ended after %v", held, waited, deadline)
	}
	c.moved = nil // the reads end
	start = c.now()
	charged, err := y.admit(context.Background())
	if err != nil || charged {
		t.Fatalf("a held write once reads ended: charged %v, %v", charged, err)
	}
	if waited := c.now().Sub(start); waited > readsRecent+heldStep {
		t.Errorf("the held write went on %v after the reads ended, want within %v", waited, readsRecent+heldStep)
	}
}

// TestYieldWritesOff lets writes run whenever they come at share 0.
func TestYieldWritesOff(t *testing.T) {
	s := &Store{yield: newYielder(time.Now)}
	s.YieldWrites(0)
	s.yield.credit = -time.Minute
	s.yield.lastRead.Store(time.Now().UnixNano())
	if charged, err := s.yield.admit(context.Background()); charged || err != nil {
		t.Fatalf("share 0: charged %v, %v", charged, err)
	}
}
