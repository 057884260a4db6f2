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
	"github.com/koredyne/schedule/graph/model"
	"github.com/koredyne/schedule/models/cache"
	"github.com/koredyne/schedule/models/locale"
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
// engine.ChangedRange); readsOf finds what a query reads from its
// document, once it has been answered, and anything not known to be dated
// makes the answer hold at its own revision only. Resolvers that read what
// no write revisions (tokens) mark their request uncacheable.
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
	b = append(append(b, 0), askedLanguage(req)...)       // which language its words are in
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
	zipped := cache.GzipFast(out)
	writeJSON(w, req, rec.status, out, zipped)
	if rec.status != http.StatusOK || !rq.answered.Load() || rq.uncacheable.Load() || rq.unavailable.Load() {
		return
	}
	a := &answer{revision: sn.Business.Revision, body: out, gzipped: zipped, ctype: w.Header().Get("Content-Type"), op: rq.op, work: rq.work}
	if rq.snap != nil && rq.snap != sn {
		return // the request moved on to another snapshot: keep nothing
	}
	if r := rq.reads; r.dated {
		a.dated, a.from, a.to = true, r.from, r.to
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
		cache.VaryEncoding(h)
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
	if len(resp.Errors) == 0 && resp.HasNext == nil && !describesSchema(oc.Operation) {
		req.op = operationName(oc)
		req.reads = readsOf(oc.Operation, oc.Variables)
		req.answered.Store(true)
	}
	return resp
}

// describesSchema reports whether an operation asks for the whole schema
// (GraphiQL's introspection): an answer as large as the schema, the same
// for every business, which gqlgen writes in a few milliseconds and a
// page asks for once. Kept per business, it made each playground copy
// half a megabyte larger.
func describesSchema(op *ast.OperationDefinition) bool {
	for _, sel := range op.SelectionSet {
		if f, ok := sel.(*ast.Field); ok && f.Name == "__schema" {
			return true
		}
	}
	return false
}

// noCache keeps the request's response out of the cache.
func noCache(ctx context.Context) {
	if req := requestFrom(ctx); req != nil {
		req.uncacheable.Store(true)
	}
}

// reads is what an answer reads: the dates from..to only (dated), or more.
type reads struct {
	from, to engine.Date
	dated    bool
}

// readsOf returns what the answer of an operation reads, from its
// validated document: every field it may resolve, fragments and skipped
// or included fields as the variables decide (a field that does not
// resolve, under a null, counts as well: the answer holds for less, never
// for more than it read).
func readsOf(op *ast.OperationDefinition, vars map[string]any) reads {
	w := readsWalk{vars: vars}
	w.set(op.SelectionSet)
	if w.all || w.from >= w.to {
		return reads{}
	}
	return reads{w.from, w.to, true}
}

type readsWalk struct {
	vars     map[string]any
	all      bool
	from, to engine.Date
}

func (w *readsWalk) set(set ast.SelectionSet) {
	for _, sel := range set {
		switch s := sel.(type) {
		case *ast.Field:
			if included(s.Directives, w.vars) {
				w.field(s)
				w.set(s.SelectionSet)
			}
		case *ast.InlineFragment:
			if included(s.Directives, w.vars) {
				w.set(s.SelectionSet)
			}
		case *ast.FragmentSpread:
			if s.Definition == nil {
				w.all = true
			} else if included(s.Directives, w.vars) {
				w.set(s.Definition.SelectionSet)
			}
		}
	}
}

// field notes what f reads: the dates of days, day and sessions, or more
// when its type's field is not in datedFields. A field of an interface or
// union counts as its type's name, which datedFields does not hold.
func (w *readsWalk) field(f *ast.Field) {
	name, obj := f.Name, ""
	if f.ObjectDefinition != nil {
		obj = f.ObjectDefinition.Name
	}
	switch {
	case strings.HasPrefix(name, "__") && name != "__schema" && name != "__type":
	case obj == "Query" && (name == "days" || name == "sessions"):
		args := f.ArgumentMap(w.vars)
		from, err1 := model.UnmarshalDate(args["from"])
		to, err2 := model.UnmarshalDate(args["to"])
		if err1 != nil || err2 != nil {
			w.all = true
		} else {
			w.dates(from, to)
		}
	case obj == "Query" && name == "day":
		if d, err := model.UnmarshalDate(f.ArgumentMap(w.vars)["date"]); err != nil {
			w.all = true
		} else {
			w.dates(d, d+1)
		}
	default:
		fields, known := datedFields[obj]
		if !known || fields != nil && !fields[name] && hasKey(fields, name) {
			w.all = true
		}
	}
}

func (w *readsWalk) dates(from, to engine.Date) {
	switch {
	case from >= to:
	case w.from == w.to:
		w.from, w.to = from, to
	default:
		w.from, w.to = min(w.from, from), max(w.to, to)
	}
}

// included is whether directives @skip and @include let a selection be
// resolved, with vars.
func included(ds ast.DirectiveList, vars map[string]any) bool {
	if d := ds.ForName("skip"); d != nil {
		if skip, _ := d.ArgumentMap(vars)["if"].(bool); skip {
			return false
		}
	}
	if d := ds.ForName("include"); d != nil {
		if include, _ := d.ArgumentMap(vars)["if"].(bool); !include {
			return false
		}
	}
	return true
}

// datedFields are the fields an answer may read and still hold only for
// its dates: what a session shows, all of it rules (which change every
// date they make sessions on) or the session's own date. A field of
// another type, or one listed false, reads more: plans, clients,
// memberships and bookings (a client's name), feed URLs (tokens).
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
	"Series":        {"plans": false, "memberships": false, "subscriptions": false},
	"SeriesEntry":   nil,
	"OneOff":        {"clients": false},
}

func hasKey(m map[string]bool, k string) bool { _, ok := m[k]; return ok }

// askedLanguage is the catalogue language a request's Accept-Language asks
// for, or "" when it asks for none the catalogues have (the business's
// words): requests whose headers differ but ask the same share answers.
func askedLanguage(req *http.Request) string {
	h := req.Header.Get("Accept-Language")
	if h == "" {
		return ""
	}
	if lang, ok := locale.Match(h); ok {
		return lang
	}
	return ""
}
