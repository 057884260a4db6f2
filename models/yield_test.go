package models

import (
	"context"
	"errors"
	"testing"
	"time"
)

// keepReading has reads end every millisecond until stop is called.
func keepReading(y *yielder) (stop func()) {
	done := make(chan struct{})
	y.lastRead.Store(time.Now().UnixNano())
	go func() {
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case now := <-tick.C:
				y.lastRead.Store(now.UnixNano())
			}
		}
	}()
	return func() { close(done) }
}

// TestWritesTakeTheirShare admits writes that each take 5 ms as fast as
// they come for half a second: with no reads none waits; while reads are
// served, the time they take together stays within the share of two cores
// and the burst, and they still get that share, with at most freeWrites a
// second beyond it.
func TestWritesTakeTheirShare(t *testing.T) {
	const took, span = 5 * time.Millisecond, 500 * time.Millisecond
	run := func(y *yielder) (writes, charged int, elapsed time.Duration) {
		start := time.Now()
		for time.Since(start) < span {
			c, err := y.admit(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if c {
				y.charge(took)
				charged++
			}
			writes++
		}
		return writes, charged, time.Since(start)
	}

	alone := &Store{yield: newYielder(time.Now)}
	alone.yield.cores = 2
	if n, _, _ := run(&alone.yield); n < 1000 {
		t.Errorf("%d writes in %v with no reads: writes waited", n, span)
	}
	if held, _ := alone.WritesHeld(); held != 0 {
		t.Errorf("%d writes held with no reads", held)
	}

	s := &Store{yield: newYielder(time.Now)}
	y := &s.yield
	y.cores = 2
	defer keepReading(y)()
	n, charged, elapsed := run(y)
	if free, most := n-charged, freeWrites*(elapsed.Seconds()+1)+1; float64(free) > most {
		t.Errorf("%d writes beyond the share in %v, want at most %v", free, elapsed, most)
	}
	spent := time.Duration(charged) * took
	most := time.Duration(y.rate()*float64(elapsed)) + writeBurst + took
	least := time.Duration(y.rate()*float64(span)) / 2
	if spent > most || spent < least {
		t.Errorf("writes took %v in %v while reads were served, want between %v and %v (share %v of %d cores)", spent, elapsed, least, most, y.share, y.cores)
	}
	held, waited := s.WritesHeld()
	if held == 0 || waited < elapsed/2 {
		t.Errorf("%d writes held for %v in %v, want most of it", held, waited, elapsed)
	}
}

// TestHeldWrites holds a write that owes a minute of its share while reads
// are served: it stops with its context, and goes on once the reads end.
func TestHeldWrites(t *testing.T) {
	y := &(&Store{yield: newYielder(time.Now)}).yield
	y.credit, y.free = -time.Minute, 0
	stop := keepReading(y)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
	defer cancel()
	if _, err := y.admit(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("a held write whose context ended: %v, want the deadline's error", err)
	}
	stop()
	start := time.Now()
	charged, err := y.admit(context.Background())
	if err != nil || charged {
		t.Fatalf("a held write once reads ended: charged %v, %v", charged, err)
	}
	if waited := time.Since(start); waited > time.Second {
		t.Errorf("the held write went on %v after the reads ended", waited)
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
