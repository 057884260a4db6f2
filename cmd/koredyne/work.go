package main

import (
	"context"
	"sync"
	"time"

	"github.com/koredyne/schedule/graph"
)

// Work is what one request cost and who it turned out to be, as the
// handlers that serve it find out (they tell hooks): the rate limit
// charges a caller by the work its requests make, and counts against a
// token only once the token has been checked. A context without a Work
// records nothing.
type Work struct {
	mu            sync.Mutex
	units         float64
	authenticated bool
	refused       bool
	checked       chan struct{} // closed once the credentials are checked
}

type workKey struct{}

// withWork returns a context that records the work of a request in w.
func withWork(ctx context.Context) (context.Context, *Work) {
	w := &Work{checked: make(chan struct{})}
	return context.WithValue(ctx, workKey{}, w), w
}

func workOf(ctx context.Context) *Work {
	w, _ := ctx.Value(workKey{}).(*Work)
	return w
}

// addWork adds units to the request's work beyond its price (see price):
// a unit is about what a plain GraphQL request costs (three months of
// sessions computed, a megabyte of calendar data written, 1,000 points of
// GraphQL complexity).
func addWork(ctx context.Context, units float64) {
	if w := workOf(ctx); w != nil && units > 0 {
		w.mu.Lock()
		w.units += units
		w.mu.Unlock()
	}
}

// checked records that the request's credentials were checked: good, or
// unknown or revoked.
func checked(ctx context.Context, good bool) {
	if w := workOf(ctx); w != nil {
		w.mu.Lock()
		if good {
			w.authenticated = true
		} else {
			w.refused = true
		}
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

// hooks is what graph, the CalDAV gateway and the timetable page report
// to the server, each through the observer it declares (graph.Observer,
// caldav.Observer, page.Observer): operations and cache hits go to the
// metrics, checked credentials and work to the request's Work.
type hooks struct{ m *Metrics }

func (h hooks) Operation(ctx context.Context, name, outcome string, took time.Duration) {
	h.m.GraphQL(name, outcome, took)
	if e := entryOf(ctx); e != nil {
		e.record(name, outcome, graph.BusinessOf(ctx))
	}
}
func (h hooks) Cache(hit bool)                        { h.m.Cache(hit) }
func (h hooks) Hit(name string)                       { h.m.CacheLookup(name, true) }
func (h hooks) Miss(name string)                      { h.m.CacheLookup(name, false) }
func (h hooks) Evict(name string)                     { h.m.Evict(name) }
func (hooks) Work(ctx context.Context, units float64) { addWork(ctx, units) }
func (hooks) Checked(ctx context.Context, good bool)  { checked(ctx, good) }
