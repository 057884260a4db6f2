package graph

import (
	"context"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/koredyne/schedule/engine"
	"github.com/koredyne/schedule/models"
	"github.com/koredyne/schedule/models/inflight"
)

// request is what one HTTP request carries through its resolvers: who asks,
// the snapshot it reads, and its dataloaders.
type request struct {
	principal models.Principal
	store     *models.Store // for the dataloaders, made on first use
	base      string        // the server's URL, for URLs handed out
	// acceptLanguage is the request's Accept-Language: the language it
	// reads the business's words in, when the catalogues have it.
	acceptLanguage string
	// hold is the request's part of the server's request memory
	// (Resolver.Requests): its body and what decoding it made.
	hold *inflight.Hold

	loadersOnce sync.Once
	ld          *loaders

	mu    sync.Mutex
	snap  *models.Snapshot
	views *views
	// written are the results of the request's guarded writes, by the
	// alias of the mutation field that ran each (see remember).
	written map[string]*models.Result

	// uncacheable is set by resolvers that read what no revision covers.
	uncacheable atomic.Bool
	// unavailable is set when the database could not be reached: the
	// response goes out as 503 with Retry-After.
	unavailable atomic.Bool
	// answered is set once the request's query has been answered without
	// errors, under the operation name op; work is its cost for the rate
	// limit, and reads what it read: what the response cache keeps with it.
	answered atomic.Bool
	op       string
	work     float64
	reads    reads
}

// loaders returns the request's dataloaders, made when a resolver first
// asks: an answer from the response cache needs none.
func (r *request) loaders() *loaders {
	r.loadersOnce.Do(func() { r.ld = newLoaders(r.store, r.principal.BusinessID) })
	return r.ld
}

type requestKey struct{}

func withRequest(ctx context.Context, r *request) context.Context {
	return context.WithValue(ctx, requestKey{}, r)
}

func requestFrom(ctx context.Context) *request {
	r, _ := ctx.Value(requestKey{}).(*request)
	return r
}

// snapshot returns the schedule the request reads: the business's current
// revision when the request began, or what a write of the request made.
func (r *Resolver) snapshot(ctx context.Context) (*models.Snapshot, error) {
	if sn := shownSnapshot(ctx); sn != nil {
		return sn, nil
	}
	req := requestFrom(ctx)
	if req == nil {
		return nil, errUnauthenticated
	}
	return req.snapshot(ctx)
}

// snapshot is Resolver.snapshot of the request.
func (req *request) snapshot(ctx context.Context) (*models.Snapshot, error) {
	req.mu.Lock()
	defer req.mu.Unlock()
	if req.snap == nil {
		sn, err := req.store.Snapshot(ctx, req.principal.BusinessID, req.principal.Revision)
		if err != nil {
			return nil, err
		}
		req.snap = sn
	}
	return req.snap, nil
}

// tt returns the timetable of the request's snapshot.
func (r *Resolver) tt(ctx context.Context) (*engine.Timetable, error) {
	sn, err := r.snapshot(ctx)
	if err != nil {
		return nil, err
	}
	return sn.Timetable, nil
}

// use makes the rest of the request read sn (the result of its write).
func use(ctx context.Context, sn *models.Snapshot) {
	if req := requestFrom(ctx); req != nil {
		req.mu.Lock()
		req.snap = sn
		req.mu.Unlock()
	}
}

// can checks that the request's token grants p.
func can(ctx context.Context, p models.Permission) error {
	req := requestFrom(ctx)
	if req == nil {
		return errUnauthenticated
	}
	if !req.principal.Role.Can(p) {
		return errForbidden
	}
	return nil
}

func principal(ctx context.Context) models.Principal {
	if req := requestFrom(ctx); req != nil {
		return req.principal
	}
	return models.Principal{}
}

// grant checks that the request may hand out role: a token or a CalDAV
// login never gets more than the role of whoever makes it (models.Roles
// lists them most powerful first).
func grant(ctx context.Context, role models.Role) error {
	mine, theirs := slices.Index(models.Roles, principal(ctx).Role), slices.Index(models.Roles, role)
	if theirs < 0 {
		return badInput("role", "%q is not a role", role)
	}
	if mine < 0 || theirs < mine {
		return apiErrorf("FORBIDDEN", "A %s cannot give the %s role: a token or login gets at most the role of whoever makes it",
			roleWords(principal(ctx).Role), roleWords(role))
	}
	return nil
}

func roleWords(r models.Role) string { return strings.ReplaceAll(string(r), "_", " ") }
