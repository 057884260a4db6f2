package graph

import (
	"bytes"
	"context"
	"crypto/sha256"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"

	"github.com/koredyne/schedule/engine"
	"github.com/koredyne/schedule/models/cache"
)

// responseCache answers a query that was answered before with the bytes
// sent then. Its entries are kept per business, within the store's memory
// budget, keyed by everything the answer may depend on besides the
// schedule: the request's bytes, the business's date (clashes are proven
// from today) and who asks (the role, and the client or staff member a
// token speaks for, since those see different bookings).
//
// An answer holds at the revision it was computed at. It also holds at a
// later revision when it reads only dates (days, day, sessions and what a
// session shows of its rules) and no write between the two may have
// changed one of its dates (models.Store.Unchanged, which follows
// engine.ChangedRange); the field middleware (depends) records what each
// query reads, and anything not known to be dated makes the answer hold
// at its own revision only. Resolvers that read what no write revisions
// (tokens) mark their request uncacheable.
type responseCache struct {
	r       *Resolver
	answers *cache.Cache[int64, *answers]
}

// maxAnswers bounds the answers kept for one business: a client asking
// for one week after another replaces old answers rather than growing the
// business's share of the budget without end.
const maxAnswers = 1024

// answers are a business's cached responses, by key.
type answers struct {
	mu sync.Mutex
	m  map[[32]byte]*answer
}

// answer is one cached response.
type answer struct {
	revision int64 // the newest revision it holds at; guarded by answers.mu
	dated    bool  // it reads dates from..to only
	from, to engine.Date
	body     []byte // as the transport wrote it
	gzipped  []byte // body with gzip, when it is worth it
	ctype    string // its Content-Type
	op       string // operation name and work, for the observer
	work     float64
}

// size is what an answer holds, in bytes: its bodies and its bookkeeping
// (the map entry, the key and the struct).
func (a *answer) size() int64 { return int64(len(a.body)+len(a.gzipped)+len(a.ctype)) + 160 }

func newResponseCache(r *Resolver) *responseCache {
	return &responseCache{r: r, answers: cache.New[int64, *answers](r.Store.Budget(), "responses")}
}

// key is the identity of a request's answer.
func (c *responseCache) key(req *http.Request, rq *request, body []byte, today engine.Date) [32]byte {
	p := rq.principal
	var buf [256]byte
	b := strconv.AppendInt(buf[:0], p.BusinessID, 10)
	b = append(append(b, 0), p.Role...)
	b = strconv.AppendInt(append(b, 0), p.ClientID, 10)
	b = strconv.AppendInt(append(b, 0), p.StaffID, 10)
	b = strconv.AppendInt(append(b, 0), int64(today), 10)
	b = append(append(b, 0), req.Method...)
	b = append(append(b, 0), rq.base...)
	b = append(append(b, 0), req.Header.Get("Accept")...) // which media type the answer is sent as
	b = append(b, 0)
	h := sha256.New()
	h.Write(b)
	if req.Method == http.MethodGet {
		h.Write([]byte(req.URL.RawQuery))
	} else {
		h.Write(body)
	}
	var k [32]byte
	h.Sum(k[:0])
	return k
}

// lookup returns the cached answer of a request at the revision the
// request reads, if one holds there.
func (c *responseCache) lookup(rq *request, k [32]byte, revision int64) *answer {
	biz := rq.principal.BusinessID
	as, ok := c.answers.Get(biz)
	if !ok {
		return nil
	}
	as.mu.Lock()
	a := as.m[k]
	var since int64
	if a != nil {
		since = a.revision
	}
	as.mu.Unlock()
	switch {
	case a == nil || since > revision:
		return nil
	case since == revision:
		return a
	case a.dated && c.r.Store.Unchanged(biz, since, revision, a.from, a.to):
		as.mu.Lock()
		a.revision = max(a.revision, revision) // carried over: later lookups need not check again
		as.mu.Unlock()
		return a
	}
	return nil
}

// keep caches an answer.
func (c *responseCache) keep(biz int64, k [32]byte, a *answer) {
	for {
		as, ok := c.answers.Peek(biz)
		if !ok {
			as = &answers{m: map[[32]byte]*answer{}}
			if !c.answers.PutIf(biz, as, 0, func(_ *answers, ok bool) bool { return !ok }) {
				continue // another request made it first
			}
		}
		as.mu.Lock()
		delta := a.size()
		if old := as.m[k]; old != nil {
			delta -= old.size()
		} else if len(as.m) >= maxAnswers {
			for ok, old := range as.m { // any one: map order is random
				delta -= old.size()
				delete(as.m, ok)
				break
			}
		}
		as.m[k] = a
		as.mu.Unlock()
		c.answers.Grow(biz, as, delta)
		return
	}
}

// serve answers the request from the cache, or runs it through next and
// keeps its answer when it may be kept. Either way the body goes out with
// gzip when the client takes it and it is worth it.
func (c *responseCache) serve(w http.ResponseWriter, req *http.Request, ctx context.Context, body []byte, next http.Handler) {
	start := time.Now()
	rq := requestFrom(ctx)
	sn, err := c.r.snapshot(ctx)
	if err != nil {
		next.ServeHTTP(w, req.WithContext(ctx)) // it answers the failure
		return
	}
	k := c.key(req, rq, body, sn.Today(c.r.Store.Now()))
	if a := c.lookup(rq, k, sn.Business.Revision); a != nil {
		o := c.r.observer()
		o.Work(ctx, a.work)
		o.Cache(true)
		w.Header().Set("Content-Type", a.ctype)
		writeJSON(w, req, http.StatusOK, a.body, a.gzipped)
		o.Operation(ctx, a.op, "ok", time.Since(start))
		return
	}
	rec := &recorder{header: w.Header(), status: http.StatusOK}
	next.ServeHTTP(rec, req.WithContext(ctx))
	out := rec.buf.Bytes()
	zipped := cache.Gzip(out)
	writeJSON(w, req, rec.status, out, zipped)
	if rec.status != http.StatusOK || !rq.answered.Load() || rq.uncacheable.Load() || rq.unavailable.Load() {
		return
	}
	a := &answer{revision: sn.Business.Revision, body: out, gzipped: zipped, ctype: w.Header().Get("Content-Type"), op: rq.op, work: rq.work}
	if rq.snap != nil && rq.snap != sn {
		return // the request moved on to another snapshot: keep nothing
	}
	if from, to, dated := rq.deps.get(); dated {
		a.dated, a.from, a.to = true, from, to
	}
	c.keep(rq.principal.BusinessID, k, a)
}

// writeJSON sends a GraphQL response body, gzipped when zipped is given
// and the client takes it.
func writeJSON(w http.ResponseWriter, req *http.Request, status int, body, zipped []byte) {
	h := w.Header()
	if h.Get("Content-Type") == "" {
		h.Set("Content-Type", "application/json")
	}
	if zipped != nil {
		h.Add("Vary", "Accept-Encoding")
		if cache.AcceptsGzip(req) {
			h.Set("Content-Encoding", "gzip")
			body = zipped
		}
	}
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	if req.Method != http.MethodHead {
		w.Write(body)
	}
}

// recorder keeps a response to send it (and cache it) once it is whole.
type recorder struct {
	header http.Header
	status int
	wrote  bool
	buf    bytes.Buffer
}

func (r *recorder) Header() http.Header { return r.header }

func (r *recorder) WriteHeader(status int) {
	if !r.wrote {
		r.wrote, r.status = true, status
	}
}

func (r *recorder) Write(b []byte) (int, error) {
	r.wrote = true
	return r.buf.Write(b)
}

// answered marks a query answered without errors as one the cache may
// keep, and counts the lookup that missed. It sees the response after the
// response limit, which may have refused it.
type answered struct {
	r *Resolver
}

var _ interface {
	graphql.HandlerExtension
	graphql.ResponseInterceptor
} = answered{}

func (answered) ExtensionName() string                   { return "ResponseCache" }
func (answered) Validate(graphql.ExecutableSchema) error { return nil }

func (c answered) InterceptResponse(ctx context.Context, next graphql.ResponseHandler) *graphql.Response {
	resp := next(ctx)
	req := requestFrom(ctx)
	if req == nil || resp == nil || !graphql.HasOperationContext(ctx) {
		return resp
	}
	oc := graphql.GetOperationContext(ctx)
	if oc.Operation == nil || oc.Operation.Operation != ast.Query {
		return resp
	}
	c.r.observer().Cache(false)
	if len(resp.Errors) == 0 && resp.HasNext == nil {
		req.op = operationName(oc)
		req.answered.Store(true)
	}
	return resp
}

// noCache keeps the request's response out of the cache.
func noCache(ctx context.Context) {
	if req := requestFrom(ctx); req != nil {
		req.uncacheable.Store(true)
	}
}

// dependencies is what a request's answer read: dates from..to only, or
// more (all).
type dependencies struct {
	mu       sync.Mutex
	all      bool
	from, to engine.Date
}

func (d *dependencies) dates(from, to engine.Date) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if from >= to {
		return
	}
	if d.from == d.to {
		d.from, d.to = from, to
		return
	}
	d.from, d.to = min(d.from, from), max(d.to, to)
}

func (d *dependencies) everything() {
	d.mu.Lock()
	d.all = true
	d.mu.Unlock()
}

// get returns the dates read, and whether the answer read dates only.
func (d *dependencies) get() (from, to engine.Date, dated bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.from, d.to, !d.all && d.from < d.to
}

// datedFields are the fields an answer may read and still hold only for
// its dates: what a session shows, all of it rules (which change every
// date they make sessions on) or the session's own date. A field of
// another type, or one listed false, reads more: plans, clients,
// subscriptions and bookings (a client's name), feed URLs (tokens).
var datedFields = map[string]map[string]bool{
	"Day":           nil, // nil: every field
	"Session":       {"bookings": false},
	"SeriesWeek":    nil,
	"SessionRef":    nil,
	"SessionOrigin": nil,
	"Room":          {"feedUrl": false},
	"Staff":         {"feedUrl": false},
	"Class":         nil,
	"Activity":      nil,
	"ClassTime":     nil,
	"Series":        {"plans": false, "subscriptions": false},
	"SeriesEntry":   nil,
	"OneOff":        {"clients": false},
}

// depends is the field middleware that records what a query reads.
func depends(ctx context.Context, next graphql.Resolver) (any, error) {
	req := requestFrom(ctx)
	fc := graphql.GetFieldContext(ctx)
	if req == nil || fc == nil || fc.Field.Field == nil {
		return next(ctx)
	}
	name := fc.Field.Name
	switch obj := fc.Object; {
	case strings.HasPrefix(name, "__") && name != "__schema" && name != "__type":
	case obj == "Query" && (name == "days" || name == "sessions"):
		from, ok1 := fc.Args["from"].(engine.Date)
		to, ok2 := fc.Args["to"].(engine.Date)
		if ok1 && ok2 {
			req.deps.dates(from, to)
		} else {
			req.deps.everything()
		}
	case obj == "Query" && name == "day":
		if d, ok := fc.Args["date"].(engine.Date); ok {
			req.deps.dates(d, d+1)
		} else {
			req.deps.everything()
		}
	default:
		fields, known := datedFields[obj]
		if !known || fields != nil && !fields[name] && hasKey(fields, name) {
			req.deps.everything()
		}
	}
	return next(ctx)
}

func hasKey(m map[string]bool, k string) bool { _, ok := m[k]; return ok }
