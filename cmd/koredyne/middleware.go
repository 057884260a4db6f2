package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"log/slog"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/klauspost/compress/gzhttp"
	"github.com/klauspost/compress/gzip"

	"github.com/koredyne/schedule/caldav"
	"github.com/koredyne/schedule/caldav/page"
	"github.com/koredyne/schedule/graph"
	"github.com/koredyne/schedule/graph/graphiql"
	"github.com/koredyne/schedule/models"
	"github.com/koredyne/schedule/models/cache"
)

type requestIDKey struct{}

// saneRequestID is what a request id from the client (or the load balancer
// in front) must look like to be kept: short, and safe in a log line and a
// header.
var saneRequestID = regexp.MustCompile(`^[A-Za-z0-9._-]{1,64}$`)

// requestID returns the request's id in ctx, or "".
func requestID(ctx context.Context) string {
	id, _ := ctx.Value(requestIDKey{}).(string)
	return id
}

func newRequestID() string {
	b := make([]byte, 12)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// contextLog adds the request id in a record's context to the record, so
// every line logged while a request is served (errors in resolvers, the
// access line) says which request it belongs to.
type contextLog struct{ slog.Handler }

func (h contextLog) Handle(ctx context.Context, r slog.Record) error {
	if id := requestID(ctx); id != "" {
		r.AddAttrs(slog.String("request_id", id))
	}
	return h.Handler.Handle(ctx, r)
}

func (h contextLog) WithAttrs(attrs []slog.Attr) slog.Handler {
	return contextLog{h.Handler.WithAttrs(attrs)}
}

func (h contextLog) WithGroup(name string) slog.Handler {
	return contextLog{h.Handler.WithGroup(name)}
}

// entry is what the handlers tell a request's log line: the GraphQL
// operation, its outcome and the business it acted in (graph reports them
// through its Observer, hooks writes them here).
type entry struct {
	mu                 sync.Mutex
	graphql            bool
	operation, outcome string
	business           int64
}

type entryKey struct{}

func entryOf(ctx context.Context) *entry {
	e, _ := ctx.Value(entryKey{}).(*entry)
	return e
}

// record records a GraphQL operation of the request.
func (e *entry) record(name, outcome string, business int64) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.graphql, e.operation, e.outcome = true, name, outcome
	if business != 0 {
		e.business = business
	}
}

// attrs are the entry's fields of the log line: the operation ("" when
// anonymous), the business, and the error code when it failed.
func (e *entry) attrs() []slog.Attr {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []slog.Attr
	if e.graphql {
		out = append(out, slog.String("operation", e.operation))
		if e.outcome != "ok" && e.outcome != "subscribed" {
			out = append(out, slog.String("code", e.outcome))
		}
	}
	if e.business != 0 {
		out = append(out, slog.Int64("business", e.business))
	}
	return out
}

// recorder remembers the status and size of a response for the access log
// and the metrics. It flushes for event streams and unwraps for
// http.ResponseController and websocket upgrades.
type recorder struct {
	http.ResponseWriter
	status int
	bytes  int64
}

func (w *recorder) WriteHeader(status int) {
	if w.status == 0 {
		w.status = status
		secureHTML(w.Header())
	}
	w.ResponseWriter.WriteHeader(status)
}

func (w *recorder) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
		secureHTML(w.Header())
	}
	n, err := w.ResponseWriter.Write(b)
	w.bytes += int64(n)
	return n, err
}

func (w *recorder) Flush() {
	if w.status == 0 {
		w.status = http.StatusOK
		secureHTML(w.Header())
	}
	http.NewResponseController(w.ResponseWriter).Flush()
}

func (w *recorder) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// code is the status sent; a hijacked websocket connection, which sends its
// own, counts as 101.
func (w *recorder) code() int {
	if w.status == 0 {
		return http.StatusSwitchingProtocols
	}
	return w.status
}

// secretPath matches the paths whose second segment is a secret token: the
// .ics feeds and the public timetable pages. Tokens are base64url, so the
// match stops at a ".ics" suffix.
var secretPath = regexp.MustCompile(`^(` + regexp.QuoteMeta(caldav.FeedPath) + `|` + regexp.QuoteMeta(page.Path) + `)[^/.]+`)

// logPath is the path as the access log shows it: no query string, and the
// secret token of a feed or timetable URL masked, since whoever reads the
// logs must not be able to subscribe to a business's calendar.
func logPath(r *http.Request) string {
	return secretPath.ReplaceAllString(r.URL.Path, "${1}…")
}

// longLived reports whether a request holds its connection open for a
// subscription: a websocket upgrade or an event stream.
func longLived(r *http.Request) bool {
	return strings.EqualFold(r.Header.Get("Upgrade"), "websocket") ||
		strings.Contains(r.Header.Get("Accept"), "text/event-stream")
}

// observe is the outermost middleware of serve: it gives every request an
// id, bounds its body, lifts the server's read and write timeouts for
// subscriptions (which would otherwise be cut after WriteTimeout), sets
// the headers every response carries, and logs one line when the request
// is answered.
func observe(log *slog.Logger, maxBody int64, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		id := r.Header.Get("X-Request-Id")
		if !saneRequestID.MatchString(id) {
			id = newRequestID()
		}
		w.Header().Set("X-Request-Id", id)
		w.Header().Set("X-Content-Type-Options", "nosniff")
		ctx := context.WithValue(r.Context(), requestIDKey{}, id)
		e := &entry{}
		ctx = context.WithValue(ctx, entryKey{}, e)
		if longLived(r) {
			rc := http.NewResponseController(w)
			rc.SetReadDeadline(time.Time{})
			rc.SetWriteDeadline(time.Time{})
		}
		if r.Body != nil {
			r.Body = http.MaxBytesReader(w, r.Body, maxBody)
		}
		rec := &recorder{ResponseWriter: w}
		next.ServeHTTP(rec, r.WithContext(ctx))
		log.LogAttrs(ctx, slog.LevelInfo, "request", append([]slog.Attr{
			slog.String("method", r.Method),
			slog.String("path", logPath(r)),
			slog.Int("status", rec.code()),
			slog.Int64("bytes", rec.bytes),
			slog.Float64("duration_ms", float64(time.Since(start).Microseconds())/1000),
		}, e.attrs()...)...)
	})
}

// observeCalDAV counts CalDAV and feed requests by method and status.
func observeCalDAV(m *Metrics, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		rec := &recorder{ResponseWriter: w}
		next.ServeHTTP(rec, r)
		m.CalDAV(r.Method, rec.code(), time.Since(start))
	})
}

// reads counts every request next serves as a read, which the store's
// guarded writes yield to (models.Store.YieldWrites).
func reads(store *models.Store, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx, done := store.Serving(r.Context())
		defer done()
		next.ServeHTTP(w, r.WithContext(ctx))
	})
}

// corsMaxAge is how long, in seconds, a browser may reuse a preflight.
const corsMaxAge = "600"

// allowOrigins lets pages of the configured origins call the API from a
// browser, and no others: a request from an origin not listed gets no CORS
// headers, so the browser keeps the answer from the page. Tokens travel in
// the Authorization header, never in cookies, so credentials are not
// allowed. Preflights are answered here, since they carry no token: with
// the same methods gqlgen's OPTIONS transport lists.
func allowOrigins(origins []string, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		origin := r.Header.Get("Origin")
		allowed := origin != "" && slices.Contains(origins, origin)
		w.Header().Add("Vary", "Origin")
		if allowed {
			w.Header().Set("Access-Control-Allow-Origin", origin)
			// Pages read the revision a response names, to send it back
			// (see graph.RevisionHeader).
			w.Header().Set("Access-Control-Expose-Headers", graph.RevisionHeader)
		}
		if r.Method != http.MethodOptions {
			next.ServeHTTP(w, r)
			return
		}
		w.Header().Set("Allow", "GET, POST, OPTIONS")
		if allowed {
			w.Header().Set("Access-Control-Allow-Methods", "GET, POST, OPTIONS")
			w.Header().Set("Access-Control-Allow-Headers", "Authorization, Content-Type, "+graph.RevisionHeader)
			w.Header().Set("Access-Control-Max-Age", corsMaxAge)
		}
		w.WriteHeader(http.StatusNoContent)
	})
}

// graphiQLPolicy is GraphiQL's page's: its scripts and styles come from
// this server (graphiql.Assets, embedded in the binary), none inline, and
// it talks to this server only.
const graphiQLPolicy = graphiql.Policy

// pagePolicy is the policy of HTML pages that set none of their own: this
// server's resources and inline styles, nothing else.
const pagePolicy = "default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; " +
	"base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

// secureHTML gives an HTML response that set no policy of its own the
// page headers with pagePolicy, so that every page (a timetable page too)
// has them without each handler remembering.
func secureHTML(h http.Header) {
	if !strings.HasPrefix(h.Get("Content-Type"), "text/html") || h.Get("Content-Security-Policy") != "" {
		return
	}
	pageHeaders(h, pagePolicy)
}

// htmlPage sets the headers an HTML page needs against framing, sniffing
// and leaking its URL (feed and timetable URLs hold secrets) in Referer,
// with the content security policy given.
func htmlPage(policy string, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		pageHeaders(w.Header(), policy)
		next.ServeHTTP(w, r)
	})
}

func pageHeaders(h http.Header, policy string) {
	h.Set("Content-Security-Policy", policy)
	h.Set("X-Frame-Options", "DENY")
	h.Set("Referrer-Policy", "no-referrer")
}

// protect lets the configured origins call the API and gives GraphiQL's
// page its policy. It sits outside the rate limit, so a browser can read
// a 429 too.
func protect(origins []string, next http.Handler) http.Handler {
	api := allowOrigins(origins, next)
	page := htmlPage(graphiQLPolicy, next)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case graph.Path:
			api.ServeHTTP(w, r)
		case "/":
			page.ServeHTTP(w, r)
		default:
			next.ServeHTTP(w, r)
		}
	})
}

// compress gzips the answers of clients that take gzip, as they are
// written (gzhttp): an answer's Content-Type goes out with it (sniffed, as
// net/http would, where a handler set none, which net/http does not do for
// a body with a Content-Encoding), Vary: Accept-Encoding is set, an ETag
// set by the handler gets "-gzip" (RFC 9110 §8.8.3: a strong ETag differs
// between codings) and answers under cache.MinGzip go out plain. An answer
// the handler encoded itself — the feeds, cached calendar and GraphQL
// answers, GraphiQL's assets, all compressed once and kept — passes as it
// is. Websockets and event streams are not compressed: they are flushed
// message by message for as long as they live.
func compress(next http.Handler) http.Handler {
	wrap, err := gzhttp.NewWrapper(
		gzhttp.MinSize(cache.MinGzip),
		// An answer written on a request's path is compressed once: as
		// fast as can be, as the gateway's own writer did.
		gzhttp.CompressionLevel(gzip.BestSpeed),
		// One coding, the one calendar apps ask for and the kept bodies
		// are in.
		gzhttp.EnableZstd(false),
		gzhttp.SuffixETag("-gzip"),
		// "*" takes gzip as RFC 9110 §12.5.3 says, as cache.AcceptsGzip
		// does for the kept bodies.
		gzhttp.AcceptWildcards(true),
	)
	if err != nil {
		panic(err) // the options are constants
	}
	zipped := wrap(next)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if longLived(r) {
			next.ServeHTTP(w, r)
			return
		}
		zipped.ServeHTTP(w, r)
	})
}

// handler wraps serve's routes in the middleware, outermost first: the
// request id, body limit and access log; compression; CORS and page
// headers; the rate limit, when one is set.
func (c *Config) handler(log *slog.Logger, m *Metrics, routes http.Handler) http.Handler {
	if c.RateLimit > 0 {
		now := c.RateClock
		if now == nil {
			now = time.Now
		}
		l := newLimiter(c.RateLimit, c.RateBurst, now)
		l.spent, l.refused = m.RateUnits, m.RateLimited
		routes = l.limit(routes)
	}
	return observe(log, c.MaxBody, compress(protect(c.AllowedOrigins, routes)))
}
