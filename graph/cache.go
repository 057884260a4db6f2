package graph

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/handler/lru"
	"github.com/vektah/gqlparser/v2/ast"
)

// responseCache answers a query that was answered before at the same
// revision of the business with the same response. Every write bumps the
// revision, so a cached answer is exactly what executing the query again
// would give; the key also holds the business's date (clashes are proven
// from today) and who asks: the role, and the client or staff member a
// token speaks for, since those see different bookings. Resolvers that
// read anything a write does not revision (tokens) mark their request
// uncacheable.
type responseCache struct {
	r   *Resolver
	lru *lru.LRU[*graphql.Response]
}

func newResponseCache(r *Resolver, size int) *responseCache {
	return &responseCache{r: r, lru: lru.New[*graphql.Response](size)}
}

var _ interface {
	graphql.HandlerExtension
	graphql.ResponseInterceptor
} = (*responseCache)(nil)

func (c *responseCache) ExtensionName() string                   { return "RevisionResponseCache" }
func (c *responseCache) Validate(graphql.ExecutableSchema) error { return nil }

func (c *responseCache) InterceptResponse(ctx context.Context, next graphql.ResponseHandler) *graphql.Response {
	req := requestFrom(ctx)
	if req == nil || !graphql.HasOperationContext(ctx) {
		return next(ctx) // a request refused before it had an operation
	}
	oc := graphql.GetOperationContext(ctx)
	if oc.Operation == nil || oc.Operation.Operation != ast.Query {
		return next(ctx)
	}
	// Transports that stream (event streams, websockets) ask for responses
	// until one is nil. A query has one: after the cached answer comes the
	// end, never the same answer again.
	if _, done := req.fromCache.LoadAndDelete(oc); done {
		return nil
	}
	sn, err := c.r.snapshot(ctx)
	if err != nil {
		return next(ctx)
	}
	key, ok := c.key(req, oc, sn.Today(c.r.Store.Now()).String())
	if !ok {
		return next(ctx)
	}
	r, hit := c.lru.Get(ctx, key)
	c.r.observer().Cache(hit)
	if hit {
		req.fromCache.Store(oc, true)
		return r
	}
	r = next(ctx)
	if r != nil && len(r.Errors) == 0 && r.HasNext == nil && !req.uncacheable.Load() {
		c.lru.Add(ctx, key, r)
		req.fromCache.Store(oc, true) // else the next call would find it cached
	}
	return r
}

func (c *responseCache) key(req *request, oc *graphql.OperationContext, today string) (string, bool) {
	vars, err := json.Marshal(oc.Variables) // map keys are sorted
	if err != nil {
		return "", false
	}
	h := sha256.New()
	p := req.principal
	fmt.Fprintf(h, "%d\x00%d\x00%s\x00%d\x00%d\x00%s\x00%s\x00", p.BusinessID, p.Revision, p.Role, p.ClientID, p.StaffID, today, oc.OperationName)
	h.Write([]byte(oc.RawQuery))
	h.Write([]byte{0})
	h.Write(vars)
	return hex.EncodeToString(h.Sum(nil)), true
}

// noCache keeps the request's response out of the cache.
func noCache(ctx context.Context) {
	if req := requestFrom(ctx); req != nil {
		req.uncacheable.Store(true)
	}
}
