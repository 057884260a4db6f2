package models

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// DefaultWriteShare is the share of the cores' time that writes may take
// together while reads are being served, unless the store is given another
// (YieldWrites).
const DefaultWriteShare = 0.05

const (
	// writeBurst is the time writes may take at once on the credit they
	// saved while they took less than their share.
	writeBurst = 50 * time.Millisecond
	// readsRecent is how long after a read ended reads count as being
	// served still: readers that take turns with their clients leave gaps
	// between their requests.
	readsRecent = 10 * time.Millisecond
	// freeWrites is how many writes a second go while reads are being
	// served even when writes have taken their share: a few desks writing
	// as people do never wait, however long a write's turn takes while the
	// reads keep the cores busy (on PostgreSQL on the same cores, a turn
	// of a few milliseconds' work can take tens of milliseconds).
	freeWrites = 5
	// heldStep is the longest a held write waits before it looks again
	// whether reads are still being served.
	heldStep = 5 * time.Millisecond
)

// yielder holds writes back while reads are being served, so that a client
// writing as fast as it can (a script, an import, a misbehaving
// integration) costs the desks and phones reading the schedule no more
// than the share it is given: while a read ended within readsRecent, the
// guarded writes together take at most share of the cores' time, counted
// as the time each spends in its turn (Store.Write, from after it waited
// for the write before it of its business to its end), with up to
// writeBurst saved while they took less. A write's time is mostly CPU, its
// own or the database's, so it is charged as core time. Beyond the share,
// freeWrites writes a second still go, uncharged. Otherwise a write never
// waits.
type yielder struct {
	share    float64      // 0: writes never wait
	lastRead atomic.Int64 // when a read last ended, in Unix nanoseconds
	now      func() time.Time
	// wait waits d on the clock of now, or until ctx is done (sleep; a
	// simulated clock in tests, so that what they count does not depend
	// on how busy the machine is).
	wait  func(ctx context.Context, d time.Duration) error
	cores int

	mu     sync.Mutex
	credit time.Duration // the time writes may still take
	free   float64       // the writes that may still go beyond the share
	at     time.Time     // when credit was last counted up
	held   time.Duration // the time writes have waited, in all
	holds  int64         // how many writes waited
}

func newYielder(now func() time.Time) yielder {
	return yielder{now: now, wait: sleep, cores: runtime.GOMAXPROCS(0), share: DefaultWriteShare, credit: writeBurst, free: freeWrites}
}

// sleep waits d, or until ctx is done: the yielder's wait on the wall
// clock.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// YieldWrites has the guarded writes take at most share (0 < share < 1)
// of the cores' time while reads are being served; 0 lets writes run
// whenever they come. It is called before the store serves.
func (s *Store) YieldWrites(share float64) {
	if share <= 0 || share >= 1 {
		share = 0
	}
	s.yield.share = share
	s.yield.credit, s.yield.free = writeBurst, freeWrites
}

type servingKey struct{}

// serving is a request being served (Serving).
type serving struct {
	began   time.Time
	wrote   atomic.Bool  // it wrote (Store.Write): not a read
	charged atomic.Bool  // a write of it was charged (yielder.admit)
	writing atomic.Int64 // the time it spent in Store.Write, in nanoseconds
}

// Serving counts the request of ctx as a read being served until done is
// called; guarded writes yield to reads (YieldWrites). A request that
// writes on the context returned (Store.Write) is not a read, and the time
// it takes besides its writes (reading the request, answering it) is
// charged to the writes too. Every handler that reads a schedule or writes
// one calls it.
func (s *Store) Serving(ctx context.Context) (_ context.Context, done func()) {
	r := &serving{began: s.yield.now()}
	return context.WithValue(ctx, servingKey{}, r), func() {
		now := s.yield.now()
		switch {
		case !r.wrote.Load():
			s.yield.lastRead.Store(now.UnixNano())
		case r.charged.Load():
			s.yield.charge(now.Sub(r.began) - time.Duration(r.writing.Load()))
		}
	}
}

// turn is a guarded write's turn: after the write before it of its
// business (enter), then after the reads (admit); leave ends it and
// charges the write for its time since it was admitted, when it is
// charged at all.
func (s *Store) turn(ctx context.Context, businessID int64) (leave func(), err error) {
	y := &s.yield
	entered := y.now()
	r, _ := ctx.Value(servingKey{}).(*serving)
	if r != nil {
		r.wrote.Store(true)
	}
	left := func() {
		if r != nil {
			r.writing.Add(int64(y.now().Sub(entered)))
		}
	}
	next, err := s.enter(ctx, businessID)
	if err != nil {
		left()
		return nil, err
	}
	// Its turn first, so that what it is charged for is its own time, not
	// the time it waited for the write before it.
	charged, err := y.admit(ctx)
	if err != nil {
		next()
		left()
		return nil, err
	}
	if !charged {
		return func() { next(); left() }, nil
	}
	if r != nil {
		r.charged.Store(true)
	}
	began := y.now()
	return func() {
		y.charge(y.now().Sub(began))
		next()
		left()
	}, nil
}

// WritesHeld reports how many guarded writes have waited for reads so far,
// and for how long in all (for metrics).
func (s *Store) WritesHeld() (writes int64, waited time.Duration) {
	s.yield.mu.Lock()
	defer s.yield.mu.Unlock()
	return s.yield.holds, s.yield.held
}

// reading reports whether reads are being served.
func (y *yielder) reading(now time.Time) bool {
	return now.UnixNano()-y.lastRead.Load() < int64(readsRecent)
}

// rate is the time a second writes may take while reads are being served.
func (y *yielder) rate() float64 { return y.share * float64(y.cores) }

// countUp adds the credit and the free writes earned since they were last
// counted. y.mu is held.
func (y *yielder) countUp(now time.Time) {
	if !y.at.IsZero() {
		d := now.Sub(y.at)
		y.credit = min(y.credit+time.Duration(float64(d)*y.rate()), writeBurst)
		y.free = min(y.free+d.Seconds()*freeWrites, freeWrites)
	}
	y.at = now
}

// admit waits, while reads are being served, until writes have credit
// again or a free write, or ctx is done. It returns whether the write is charged for the
// time it takes (charge): a write that came while no reads were being
// served took a core they did not want.
func (y *yielder) admit(ctx context.Context) (charged bool, err error) {
	if y.share == 0 {
		return false, nil
	}
	var waited time.Duration
	defer func() {
		if waited > 0 {
			y.mu.Lock()
			y.holds++
			y.held += waited
			y.mu.Unlock()
		}
	}()
	for {
		now := y.now()
		if !y.reading(now) {
			return false, nil
		}
		y.mu.Lock()
		y.countUp(now)
		owed, left := -y.credit, y.free
		free := left >= 1
		if owed > 0 && free {
			y.free--
		}
		y.mu.Unlock()
		switch {
		case owed <= 0:
			return true, nil
		case free:
			return false, nil
		}
		// Until the credit or a free write is back, or heldStep, after
		// which the reads may have ended.
		wait := min(time.Duration(float64(owed)/y.rate()), time.Duration((1-left)*float64(time.Second)/freeWrites), heldStep)
		err := y.wait(ctx, wait)
		waited += y.now().Sub(now)
		if err != nil {
			return false, err
		}
	}
}

// charge takes the time d a charged write took from the credit.
func (y *yielder) charge(d time.Duration) {
	y.mu.Lock()
	defer y.mu.Unlock()
	y.countUp(y.now())
	y.credit -= d
}
