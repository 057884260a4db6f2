// Package inflight bounds the memory that requests under way hold at once:
// their bodies as read, and what handling them builds from those bytes (a
// GraphQL request's decoded variables, a calendar file being parsed, a
// CalDAV report's XML). What the server keeps computed is bounded apart
// (package cache); the two budgets together are what the server's soft
// memory limit is made of.
//
// A request takes its bytes of the budget before it reads or builds them,
// and gives them back when it is answered. When they are not free it
// waits, for a short while, then gives up with ErrBusy, which the server
// answers with 503 and Retry-After: a flood of large requests is turned
// away instead of growing the process until it is killed. Waiters are
// served in the order they came among those whose bytes fit, so a small
// request never waits behind a large one that does not fit yet; a request
// that needs more while it holds bytes (a body of unknown length, a
// calendar file to import) is served first, and only one waits so at a
// time, so that no two wait for each other.
//
// The bytes are estimates the callers make (see each caller's size
// function): a body exactly, and for what is built from it a cost per part
// measured with runtime.MemStats in the callers' tests.
package inflight

import (
	"container/list"
	"context"
	"errors"
	"io"
	"net/http"
	"sync"
	"time"
)

// ErrBusy is what Hold answers when the bytes did not come free within the
// budget's wait.
var ErrBusy = errors.New("the server holds as many request bytes as it may: try again shortly")

// ErrTooLarge is what Hold answers, at once, for more bytes than the whole
// budget: a request that could never have them.
var ErrTooLarge = errors.New("more bytes than the whole request budget")

// Budget is the memory requests under way share. A nil *Budget holds
// nothing back: every Hold is given at once. A Budget is safe for
// concurrent use.
type Budget struct {
	limit int64
	wait  time.Duration
	// after is time.After; tests give their own to end a wait.
	after func(time.Duration) <-chan time.Time

	mu      sync.Mutex
	held    int64
	most    int64     // the most held at once
	taken   int64     // every byte ever taken
	refused int64     // holds that gave up (ErrBusy)
	waiting list.List // of *waiter holding nothing yet, in the order they came
	grower  *waiter   // the one hold waiting for more than it holds
}

type waiter struct {
	n     int64
	given chan struct{} // closed once the bytes are the waiter's
}

// New returns a budget of limit bytes, where a request waits at most wait
// for its bytes.
func New(limit int64, wait time.Duration) *Budget {
	return &Budget{limit: limit, wait: wait, after: time.After}
}

// Stats are a budget's counts, for the server's metrics.
type Stats struct {
	// Limit is the budget; Held the bytes held now and Most the most ever
	// held at once.
	Limit, Held, Most int64
	// Taken counts every byte ever held, and Refused the holds that gave
	// up waiting.
	Taken, Refused int64
	// Waiting is how many holds wait now.
	Waiting int
}

// Stats returns the budget's counts.
func (b *Budget) Stats() Stats {
	if b == nil {
		return Stats{}
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	s := Stats{Limit: b.limit, Held: b.held, Most: b.most, Taken: b.taken, Refused: b.refused, Waiting: b.waiting.Len()}
	if b.grower != nil {
		s.Waiting++
	}
	return s
}

// Hold is bytes of a budget held for one request until Release.
type Hold struct {
	b *Budget
	n int64
}

// Hold takes n bytes of the budget for the caller, waiting for them at
// most the budget's wait (or until ctx ends) when they are not free:
// ErrBusy then, or ctx's error. More than the whole budget is ErrTooLarge.
func (b *Budget) Hold(ctx context.Context, n int64) (*Hold, error) {
	h := &Hold{b: b}
	return h, h.Grow(ctx, n)
}

// Grow takes n more bytes for the hold; on an error the hold keeps what it
// had. A hold that holds nothing yet waits as Hold says. One that holds
// bytes already waits only when no other such hold does, else it gives up
// at once (ErrBusy): two requests each waiting for what the other holds
// would wait for each other until both gave up. The one that waits is
// given freed bytes first, so it needs only the requests under way to
// finish.
func (h *Hold) Grow(ctx context.Context, n int64) error {
	b := h.b
	if b == nil || n <= 0 {
		return nil
	}
	if h.n+n > b.limit {
		return ErrTooLarge
	}
	growing := h.n > 0
	b.mu.Lock()
	if b.fits(n) {
		b.take(n)
		b.mu.Unlock()
		h.n += n
		return nil
	}
	if growing && b.grower != nil {
		b.refused++
		b.mu.Unlock()
		return ErrBusy
	}
	w := &waiter{n: n, given: make(chan struct{})}
	var e *list.Element
	if growing {
		b.grower = w
	} else {
		e = b.waiting.PushBack(w)
	}
	b.mu.Unlock()
	var err error
	select {
	case <-w.given:
	case <-ctx.Done():
		err = ctx.Err()
	case <-b.after(b.wait):
		err = ErrBusy
	}
	if err != nil {
		b.mu.Lock()
		select {
		case <-w.given: // given as it gave up: keep the bytes
			err = nil
		default:
			if growing {
				b.grower = nil
			} else {
				b.waiting.Remove(e)
			}
			if err == ErrBusy {
				b.refused++
			}
			b.give() // what it kept back may fit others now
		}
		b.mu.Unlock()
	}
	if err == nil {
		h.n += n
	}
	return err
}

// Bytes is how many bytes the hold holds.
func (h *Hold) Bytes() int64 { return h.n }

// Release gives the hold's bytes back. It may be called more than once.
func (h *Hold) Release() {
	b := h.b
	if b == nil || h.n == 0 {
		return
	}
	b.mu.Lock()
	b.held -= h.n
	h.n = 0
	b.give()
	b.mu.Unlock()
}

// fits reports whether n more bytes may be taken at once, leaving the
// waiting grower's bytes free for it; b.mu is held.
func (b *Budget) fits(n int64) bool {
	var kept int64
	if b.grower != nil {
		kept = b.grower.n
	}
	return b.held+kept+n <= b.limit
}

// take counts n bytes held; b.mu is held.
func (b *Budget) take(n int64) {
	b.held += n
	b.taken += n
	b.most = max(b.most, b.held)
}

// give hands freed bytes to the waiting grower first, then to the other
// waiters that fit, in the order they came; b.mu is held.
func (b *Budget) give() {
	if w := b.grower; w != nil && b.held+w.n <= b.limit {
		b.take(w.n)
		b.grower = nil
		close(w.given)
	}
	for e := b.waiting.Front(); e != nil; {
		next := e.Next()
		if w := e.Value.(*waiter); b.fits(w.n) {
			b.take(w.n)
			b.waiting.Remove(e)
			close(w.given)
		}
		e = next
	}
}

// step is the first part of a body of unknown length held at a time;
// each next part is as large as what was read before it.
const step = 64 << 10

// Read reads body whole and returns it with the hold of its bytes: size
// bytes (the request's Content-Length) held before any is read, or, when
// size is unknown (-1, or 0 for a body that is not http.NoBody, as a
// request made by hand has), in parts as they come. per is the bytes held for
// each byte read: 1 for the body alone, more for what its reader builds
// from it. A body of more than max bytes is *http.MaxBytesError, without
// reading it when its size says so. On any error nothing stays held.
func (b *Budget) Read(ctx context.Context, body io.Reader, size, max, per int64) ([]byte, *Hold, error) {
	h := &Hold{b: b}
	if body == nil || body == http.NoBody {
		return nil, h, nil
	}
	if size == 0 {
		size = -1
	}
	if size > max {
		return nil, h, &http.MaxBytesError{Limit: max}
	}
	if size >= 0 {
		if err := h.Grow(ctx, size*per); err != nil {
			return nil, h, err
		}
		buf := make([]byte, size)
		if _, err := io.ReadFull(body, buf); err != nil {
			h.Release()
			return nil, h, err
		}
		return buf, h, nil
	}
	buf := make([]byte, 0, min(step, max+1))
	if err := h.Grow(ctx, int64(cap(buf))*per); err != nil {
		return nil, h, err
	}
	for {
		n, err := body.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if int64(len(buf)) > max {
			h.Release()
			return nil, h, &http.MaxBytesError{Limit: max}
		}
		if err == io.EOF {
			return buf, h, nil
		}
		if err != nil {
			h.Release()
			return nil, h, err
		}
		if len(buf) == cap(buf) {
			more := min(int64(cap(buf)), max+1-int64(cap(buf)))
			if err := h.Grow(ctx, more*per); err != nil {
				h.Release()
				return nil, h, err
			}
			grown := make([]byte, len(buf), int64(len(buf))+more)
			copy(grown, buf)
			buf = grown
		}
	}
}
