package graph

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/handler"
	"github.com/99designs/gqlgen/graphql/handler/extension"
	"github.com/99designs/gqlgen/graphql/handler/lru"
	"github.com/99designs/gqlgen/graphql/handler/transport"
	"github.com/coder/websocket"
	"github.com/vektah/gqlparser/v2/ast"

	"github.com/koredyne/schedule/graph/generated"
	"github.com/koredyne/schedule/graph/graphiql"
	"github.com/koredyne/schedule/models"
	"github.com/koredyne/schedule/models/locale"
)

// MaxDays is the longest range days and sessions answer.
const MaxDays = 400

// Handler serves GraphQL at any path: POST, GET and websocket, each
// authenticated with a bearer token of one business.
func (r *Resolver) Handler() http.Handler { return r.handler(true) }

// handler is the API; with plain, plainSchema answers the queries it can
// and post writes the answers to POST requests. Without, gqlgen does all
// of it: what the plain path is compared with.
func (r *Resolver) handler(plain bool) http.Handler {
	if r.Connections == nil {
		r.Connections = NewConnections()
	}
	if r.Proposals == nil {
		r.Proposals = NewProposals()
	}
	if r.Store != nil {
		r.Store.OnRevoke(r.Connections.Revoke)
	}
	es := generated.NewExecutableSchema(generated.Config{Resolvers: r})
	// An answer the plain path writes is at most an eighth of the response
	// limit: gqlgen's running estimate of a larger one, which the limit
	// follows, may pass the limit where the answer would not.
	var exec graphql.ExecutableSchema = es
	if plain {
		exec = plainSchema{es, r, r.limit(r.MaxResponse, DefaultMaxResponse) / 8}
	}
	srv := handler.New(exec)
	srv.AddTransport(transport.Websocket{
		KeepAlivePingInterval: 15 * time.Second,
		// checkOrigin answers first; the library applies the same rule.
		Implementation: sockets{conns: r.Connections, options: websocket.AcceptOptions{OriginPatterns: r.AllowedOrigins}},
		// A client that opens a websocket and never says who it is would
		// hold its connection (and a shutdown) for ever.
		InitTimeout: 10 * time.Second,
		InitFunc: func(ctx context.Context, init transport.InitPayload) (context.Context, *transport.InitPayload, error) {
			if requestFrom(ctx) != nil {
				return ctx, nil, nil
			}
			token := strings.TrimPrefix(init.Authorization(), "Bearer ")
			ctx, err := r.authenticate(ctx, token)
			if err == nil {
				r.Connections.identify(ctx, principal(ctx).TokenID)
			}
			return ctx, nil, err
		},
	})
	srv.AddTransport(transport.Options{})
	srv.AddTransport(transport.GET{})
	srv.AddTransport(transport.SSE{KeepAlivePingInterval: 15 * time.Second}) // before POST, which would take its requests
	if plain {
		srv.AddTransport(post{})
	} else {
		srv.AddTransport(transport.POST{})
	}
	srv.SetQueryCache(lru.New[*ast.QueryDocument](1000))
	srv.Use(extension.Introspection{})
	srv.Use(extension.AutomaticPersistedQuery{Cache: lru.New[string](100)})
	// Before gqlgen parses and validates the query, which it protects.
	srv.Use(&queryGate{schema: es.Schema(), aliases: r.limit(r.MaxAliases, DefaultMaxAliases),
		mutations: r.limit(r.MaxMutations, DefaultMaxMutations), verdicts: lru.New[verdict](1000)})
	srv.Use(depthLimit{r.MaxDepth})
	srv.Use(newCostLimit(r, es.Schema()))
	if r.Observer != nil {
		srv.Use(observer{r.Observer}) // before the cache, so its answers are counted
	}
	srv.Use(answered{r})
	srv.Use(ranOut{r}) // a request that ran out of time before it ran answers TIMEOUT, never `null`
	srv.AroundRootFields(showing)
	responses := newResponseCache(r)
	srv.Use(responseLimit{r.limit(r.MaxResponse, DefaultMaxResponse)}) // after the cache, whose answers it saw
	srv.SetErrorPresenter(r.presentError)
	srv.SetRecoverFunc(r.recoverPanic)

	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if isWebsocket(req) && !r.checkOrigin(req) {
			writeError(w, req, http.StatusForbidden, errOrigin)
			return
		}
		if !longLived(req) {
			ctx, done := r.Store.Serving(req.Context()) // writes yield to reads (models.Store.YieldWrites)
			defer done()
			req = req.WithContext(ctx)
		} else {
			ctx, done, ok := r.Connections.begin(req.Context())
			if !ok {
				writeError(w, req, http.StatusServiceUnavailable, errShuttingDownAPI)
				return
			}
			defer done()
			req = req.WithContext(ctx)
		}
		if h := req.Header.Get(RevisionHeader); h != "" {
			// The revision the client last read or wrote: what it reads
			// now must be as new (see models.Replicas).
			rev, err := strconv.ParseInt(h, 10, 64)
			if err != nil || rev < 0 {
				writeError(w, req, http.StatusBadRequest, &apiError{code: "BAD_REQUEST", message: "Koredyne-Revision must be a whole number: the business's revision the client last read or wrote"})
				return
			}
			req = req.WithContext(models.AtLeast(req.Context(), rev))
		}
		var ctx context.Context
		var err error
		token, signed := strings.CutPrefix(req.Header.Get("Authorization"), "Bearer ")
		switch {
		case signed:
			ctx, err = r.authenticate(req.Context(), strings.TrimSpace(token))
		case r.Guest != nil:
			ctx, err = r.actAs(req.Context(), *r.Guest)
		case isWebsocket(req): // browsers cannot set headers: the token comes in connection_init
			srv.ServeHTTP(w, req)
			return
		default:
			writeError(w, req, http.StatusUnauthorized, errUnauthenticated)
			return
		}
		if rq := requestFrom(ctx); rq != nil {
			rq.base = r.baseURL(req)
			rq.acceptLanguage = req.Header.Get("Accept-Language")
		}
		if err != nil {
			var api *apiError
			switch {
			case errors.As(err, &api):
				writeError(w, req, http.StatusUnauthorized, api)
			case models.Unavailable(err):
				r.Log.WarnContext(req.Context(), "database unavailable", "err", err)
				writeError(w, req, http.StatusServiceUnavailable, errUnavailable)
			default:
				r.Log.ErrorContext(req.Context(), "authenticating", "err", err)
				writeError(w, req, http.StatusInternalServerError, errInternal)
			}
			return
		}
		req = req.WithContext(ctx) // its refusals from here on are in its business's language
		// The body is read only now that the request has shown who it is:
		// a 401 needs none, and a caller without a token sends little.
		body, hold, ok := r.readBody(w, req, !signed)
		defer hold.Release()
		if !ok {
			return
		}
		// Checked after the token, so that a bad token is always a 401,
		// which the rate limit counts against the address.
		if status, e := checkShape(req, body); e != nil {
			switch e {
			case errGetMutation:
				w.Header().Set("Allow", "POST")
			case errMethod:
				w.Header().Set("Allow", "GET, POST, OPTIONS")
			}
			writeError(w, req, status, e)
			return
		}
		if !r.holdDecoded(w, req, body, hold, !signed) {
			return
		}
		if rq := requestFrom(ctx); rq != nil {
			rq.hold = hold // for what its resolvers build besides (importCalendar)
		}
		if rq := requestFrom(ctx); rq != nil && !longLived(req) {
			w = &statusWriter{ResponseWriter: w, req: rq}
		}
		r.Connections.identify(ctx, principal(ctx).TokenID)
		if longLived(req) {
			srv.ServeHTTP(w, req.WithContext(ctx))
			return
		}
		responses.serve(w, req, ctx, body, srv)
	})
}

// limit is a limit of the configuration, or its default when left at 0.
func (r *Resolver) limit(v, def int) int {
	if v <= 0 {
		return def
	}
	return v
}

// authenticate resolves a token to its business and role.
func (r *Resolver) authenticate(ctx context.Context, token string) (context.Context, error) {
	p, err := r.Store.Authenticate(ctx, token)
	if errors.Is(err, models.ErrBadToken) {
		r.observer().Checked(ctx, false)
		return ctx, errUnauthenticated
	}
	if err != nil {
		return ctx, err
	}
	r.observer().Checked(ctx, true)
	return withRequest(ctx, &request{principal: p, store: r.Store}), nil
}

// actAs is authenticate for a request that acts as p without a token: it
// reads the business's current revision, which checking a token gives.
func (r *Resolver) actAs(ctx context.Context, p models.Principal) (context.Context, error) {
	sn, err := r.Store.Snapshot(ctx, p.BusinessID, -1)
	if err != nil {
		return ctx, err
	}
	p.Revision = sn.Business.Revision
	return withRequest(ctx, &request{principal: p, store: r.Store, snap: sn}), nil
}

func isWebsocket(req *http.Request) bool {
	return strings.EqualFold(req.Header.Get("Upgrade"), "websocket")
}

// RevisionHeader is the header a GraphQL response names the revision of
// its business in (the one it read, or the one its write made), and a
// request the revision its client last saw in: a server reading from
// replicas then reads that revision or a newer one.
const RevisionHeader = "Koredyne-Revision"

// RetryAfter is how long, in seconds, a client is asked to wait before it
// sends again a request the database was unavailable for.
const RetryAfter = "5"

// statusWriter answers 503 with Retry-After instead of 200 when a resolver
// found the database unavailable (see presentError), and names the
// revision the request read or wrote in Koredyne-Revision: gqlgen writes
// its status before the response body, after every field has been
// resolved.
type statusWriter struct {
	http.ResponseWriter
	req     *request
	written bool
}

func (w *statusWriter) WriteHeader(status int) {
	if !w.written {
		w.written = true
		w.req.mu.Lock()
		rev := w.req.principal.Revision
		lang := ""
		if w.req.snap != nil {
			rev = w.req.snap.Business.Revision
			// The language the answer's words (its errors, vocabulary,
			// clash messages) are written in, which the rate limit
			// answers this caller in too.
			lang = locale.ForBusiness(w.req.snap.State.Business, w.req.acceptLanguage).Language
		}
		w.req.mu.Unlock()
		w.Header().Set(RevisionHeader, strconv.FormatInt(rev, 10))
		if lang != "" {
			w.Header().Set("Content-Language", lang)
		}
		if status == http.StatusOK && w.req.unavailable.Load() {
			status = http.StatusServiceUnavailable
			w.Header().Set("Retry-After", RetryAfter)
		}
	}
	w.ResponseWriter.WriteHeader(status)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if !w.written {
		w.WriteHeader(http.StatusOK)
	}
	return w.ResponseWriter.Write(b)
}

// longLived reports whether a request is a subscription's stream.
func longLived(req *http.Request) bool {
	return isWebsocket(req) || strings.Contains(req.Header.Get("Accept"), "text/event-stream")
}

// WriteError answers a request to the API that never reaches GraphQL (one
// refused by the server around it), in GraphQL's error shape with
// extensions.code; the message is written as given, in the language the
// caller chose.
func WriteError(w http.ResponseWriter, status int, code, message string) {
	writeError(w, nil, status, &apiError{code: code, message: message})
}

// writeError answers a request that never reached GraphQL, in GraphQL's
// error shape, its message in the language of requestLocale: the
// business's once the token is checked, before that the one the request's
// Accept-Language asks for.
func writeError(w http.ResponseWriter, req *http.Request, status int, e *apiError) {
	w.Header().Set("Content-Type", "application/json")
	switch status {
	case http.StatusUnauthorized:
		w.Header().Set("WWW-Authenticate", `Bearer realm="koredyne"`)
	case http.StatusServiceUnavailable:
		w.Header().Set("Retry-After", RetryAfter)
	}
	w.WriteHeader(status)
	l, kind := requestLocale(req)
	json.NewEncoder(w).Encode(map[string]any{
		"errors": []map[string]any{{"message": e.in(l, kind), "extensions": map[string]any{"code": e.code}}},
	})
}

// Path is where the server mounts the API (Resolver.Handler), and where
// GraphiQL sends its queries.
const Path = "/graphql"

// Playground serves GraphiQL's page for the endpoint; its scripts are
// graphiql.Assets, served from the binary at graphiql.Prefix.
func Playground(endpoint string) http.Handler {
	return graphiql.Handler("Koredyne Schedule", endpoint)
}
