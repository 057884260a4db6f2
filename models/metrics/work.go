package metrics

import (
	"context"
	"sync"
)

// Work is what one request cost and who it turned out to be, as the
// handlers that serve it find out: the rate limit charges a caller by the
// work its requests make, and counts against a token only once the token
// has been checked. A context without a Work records nothing.
type Work struct {
	mu            sync.Mutex
	units         float64
	authenticated bool
	refused       bool
	checked       chan struct{} // closed once the credentials are checked
}

type workKey struct{}

// WithWork returns a context that records the work of a request in w.
func WithWork(ctx context.Context) (context.Context, *Work) {
	w := &Work{checked: make(chan struct{})}
	return context.WithValue(ctx, workKey{}, w), w
}

func workOf(ctx context.Context) *Work {
	w, _ := ctx.Value(workKey{}).(*Work)
	return w
}

// AddWork adds units to the request's work beyond the one every request
// costs: a unit is about what a plain request costs (three months of
// sessions computed, 500 calendar objects fetched, 1,000 points of GraphQL
// complexity).
func AddWork(ctx context.Context, units float64) {
	if w := workOf(ctx); w != nil && units > 0 {
		w.mu.Lock()
		w.units += units
		w.mu.Unlock()
	}
}

// Authenticated records that the request's credentials were checked and
// are good.
func Authenticated(ctx context.Context) {
	if w := workOf(ctx); w != nil {
		w.mu.Lock()
		w.authenticated = true
		w.done()
		w.mu.Unlock()
	}
}

// Refused records that the request's credentials were checked and are
// unknown or revoked.
func Refused(ctx context.Context) {
	if w := workOf(ctx); w != nil {
		w.mu.Lock()
		w.refused = true
		w.done()
		w.mu.Unlock()
	}
}

func (w *Work) done() {
	select {
	case <-w.checked:
	default:
		close(w.checked)
	}
}

// Checked is closed once the request's credentials have been checked
// (a subscription's are checked long before it ends).
func (w *Work) Checked() <-chan struct{} { return w.checked }

// Result returns the work recorded: the units beyond the first, and
// whether the credentials were found good or refused (neither: not
// checked).
func (w *Work) Result() (units float64, authenticated, refused bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.units, w.authenticated, w.refused
}
