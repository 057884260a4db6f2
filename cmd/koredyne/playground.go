package main

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/koredyne/schedule/engine"
	"github.com/koredyne/schedule/graph"
	"github.com/koredyne/schedule/migrations"
	"github.com/koredyne/schedule/models"
	"github.com/koredyne/schedule/models/cache"
)

// playgroundCookie names the cookie that finds a visitor's copy again.
const playgroundCookie = "koredyne_playground"

// playground gives every visitor a private copy of the gym demo in an
// in-memory SQLite database, found again through a random id in a cookie.
// Nothing is written to disk, so a copy lives only as long as the process
// and its visitor's interest: copies unused for idle are dropped, and
// beyond max the least recently used goes first.
//
// It lives in cmd because a copy is wiring: a database, its migrations, a
// demo, a store and a GraphQL handler, the same parts serve puts together
// for the real database.
type playground struct {
	idle time.Duration
	max  int
	now  func() time.Time
	log  *slog.Logger
	// api is the configuration every copy's GraphQL API starts from.
	api graph.Resolver
	// onWrite hears the outcome of every visitor's write (the metrics).
	onWrite func(outcome string)
	// budget is the memory every copy's caches draw on together (serve
	// gives it --cache-mb): many copies never hold more than one server's
	// budget of snapshots and answers. A copy dropped leaves its entries to
	// go first, as the least recently used.
	budget *cache.Budget

	mu     sync.Mutex
	copies map[string]*demoCopy
}

// demoCopy is one visitor's database and the GraphQL API over it.
type demoCopy struct {
	id      string
	db      *models.DB
	store   *models.Store
	graphql http.Handler
	// proposals are the copy's own: its business has the ids of every
	// other copy's.
	proposals *graph.Proposals
	used      time.Time // guarded by playground.mu
}

// newPlayground keeps at most most copies, each for idle after its last
// use, on the clock now; api configures every copy's GraphQL API (its
// store is the copy's own, on the playground's budget: the default one of
// a store until serve sets its own).
func newPlayground(idle time.Duration, most int, now func() time.Time, api graph.Resolver) *playground {
	return &playground{idle: idle, max: most, now: now, log: api.Log, api: api, copies: make(map[string]*demoCopy),
		budget: cache.NewBudget(models.DefaultCacheBytes)}
}

// ServeHTTP answers GraphQL from the visitor's copy, as its owner unless
// the request brings a token of its own (one the visitor made in the copy).
func (p *playground) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	c, err := p.visit(w, r)
	if err != nil {
		p.log.ErrorContext(r.Context(), "making a playground copy", "err", err)
		http.Error(w, "the playground could not make your copy of the demo", http.StatusInternalServerError)
		return
	}
	c.graphql.ServeHTTP(w, r)
}

// Page serves a page (GraphiQL) after giving the visitor a copy, so that
// the page's own requests, which may run at once, share that copy.
func (p *playground) Page(page http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, err := p.visit(w, r); err != nil {
			p.log.ErrorContext(r.Context(), "making a playground copy", "err", err)
			http.Error(w, "the playground could not make your copy of the demo", http.StatusInternalServerError)
			return
		}
		page.ServeHTTP(w, r)
	})
}

// visit returns the copy the request's cookie names, or a new one for a
// visitor without a known cookie, and (re)sets the cookie so that it lasts
// as long as the copy is kept.
func (p *playground) visit(w http.ResponseWriter, r *http.Request) (*demoCopy, error) {
	w.Header().Set("X-Koredyne-Playground", "true")
	var c *demoCopy
	if ck, err := r.Cookie(playgroundCookie); err == nil {
		c = p.touch(ck.Value)
	}
	if c == nil {
		var err error
		if c, err = p.create(r.Context()); err != nil {
			return nil, err
		}
	}
	http.SetCookie(w, &http.Cookie{
		Name:     playgroundCookie,
		Value:    c.id,
		Path:     "/",
		MaxAge:   int(p.idle.Seconds()),
		HttpOnly: true,
		SameSite: http.SameSiteLaxMode,
		Secure:   r.TLS != nil || r.Header.Get("X-Forwarded-Proto") == "https",
	})
	return c, nil
}

// touch returns the copy with id, marked as used now, or nil when there is
// none or it has been idle too long (it is dropped then, before the
// janitor would).
func (p *playground) touch(id string) *demoCopy {
	p.mu.Lock()
	c := p.copies[id]
	if c != nil && p.now().Sub(c.used) > p.idle {
		delete(p.copies, id)
		p.mu.Unlock()
		p.close(c)
		return nil
	}
	if c != nil {
		c.used = p.now()
	}
	p.mu.Unlock()
	return c
}

// create makes a new copy and keeps it, dropping the least recently used
// copies beyond max. The copy is built outside the lock: it takes tens of
// milliseconds, and other visitors must not wait for it.
func (p *playground) create(ctx context.Context) (*demoCopy, error) {
	c, err := p.build(ctx)
	if err != nil {
		return nil, err
	}
	p.mu.Lock()
	c.used = p.now()
	p.copies[c.id] = c
	var dropped []*demoCopy
	for len(p.copies) > p.max {
		oldest := p.leastRecent(c)
		delete(p.copies, oldest.id)
		dropped = append(dropped, oldest)
	}
	p.mu.Unlock()
	for _, d := range dropped {
		p.close(d)
	}
	return c, nil
}

// leastRecent returns the copy used longest ago other than the one just
// made (which may tie with it); p.mu is held. A scan is enough for the few
// hundred copies a process keeps.
func (p *playground) leastRecent(made *demoCopy) *demoCopy {
	var oldest *demoCopy
	for _, c := range p.copies {
		if c != made && (oldest == nil || c.used.Before(oldest.used)) {
			oldest = c
		}
	}
	return oldest
}

// build opens an in-memory database, migrates it and loads the gym demo
// into a business "playground" that the copy's requests act on as owner.
func (p *playground) build(ctx context.Context) (*demoCopy, error) {
	id, err := newCopyID()
	if err != nil {
		return nil, err
	}
	db, err := models.Open(ctx, ":memory:")
	if err != nil {
		return nil, err
	}
	m, err := migrations.New(db.DB, db.LockFile())
	if err == nil {
		_, err = m.Up(ctx)
	}
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("migrating a playground copy: %w", err)
	}
	store := models.NewStore(db, p.now)
	store.UseBudget(p.budget)
	b, err := demoBusiness(ctx, store, "playground", engine.Gym)
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("loading the demo into a playground copy: %w", err)
	}
	api := p.api
	store.OnWrite = p.onWrite // after the demo: visitors' writes count, not the set-up
	api.Store = store
	api.IsPlayground = true
	api.Guest = &models.Principal{BusinessID: b.ID, Role: models.Owner}
	api.Proposals = graph.NewProposals()
	return &demoCopy{id: id, db: db, store: store, graphql: api.Handler(), proposals: api.Proposals}, nil
}

// newCopyID returns 128 random bits, base64url: the cookie is all that
// keeps one visitor out of another's copy.
func newCopyID() (string, error) {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("making a playground id: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}

// dropIdle drops the copies unused for longer than idle.
func (p *playground) dropIdle() {
	p.mu.Lock()
	var dropped []*demoCopy
	for id, c := range p.copies {
		if p.now().Sub(c.used) > p.idle {
			delete(p.copies, id)
			dropped = append(dropped, c)
		}
	}
	p.mu.Unlock()
	for _, c := range dropped {
		p.close(c)
	}
}

// sweep drops idle copies every interval until ctx ends, so that memory
// goes back even when no visitor comes to trigger it.
func (p *playground) sweep(ctx context.Context, every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			p.dropIdle()
		}
	}
}

// Copies is how many copies are kept, for the metrics gauge.
func (p *playground) Copies() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.copies)
}

// Close drops every copy.
func (p *playground) Close() {
	p.mu.Lock()
	all := p.copies
	p.copies = make(map[string]*demoCopy)
	p.mu.Unlock()
	for _, c := range all {
		p.close(c)
	}
}

func (p *playground) close(c *demoCopy) {
	// Its background proposals stop before their database closes.
	ctx, cancel := context.WithTimeout(context.Background(), proposalsGrace)
	defer cancel()
	if err := c.proposals.Close(ctx); err != nil {
		p.log.Warn("closing a playground copy: a background proposal did not stop in time", "err", err)
	}
	if err := c.db.Close(); err != nil {
		p.log.Warn("closing a playground copy", "err", err)
	}
}
