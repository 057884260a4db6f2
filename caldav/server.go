package caldav

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/koredyne/schedule/caldav/icalendar"
	"github.com/koredyne/schedule/engine"
	"github.com/koredyne/schedule/models"
	"github.com/koredyne/schedule/models/cache"
	"github.com/koredyne/schedule/models/inflight"
)

// Where the gateway is served: the router mounts the handler on these,
// the API hands out feed URLs under FeedPath, and the access log masks
// the tokens after it.
const (
	// Path is the root of the CalDAV tree.
	Path = "/caldav/"
	// WellKnown is where calendar apps look for the CalDAV root (RFC 6764).
	WellKnown = "/.well-known/caldav"
	// FeedPath is the root of the .ics feeds: FeedPath + token + ".ics".
	FeedPath = "/ics/"
)

// Defaults of a gateway.
const (
	// MaxBody is the largest request body read; larger ones get 413.
	MaxBody = 1 << 20
	// MaxQueryDays is the longest time range one calendar-query computes.
	MaxQueryDays = 2 * 366
)

// Handler is the read-only CalDAV gateway and the .ics feeds. It serves
//
//	/.well-known/caldav             → the principal (RFC 6764)
//	/caldav/<login>/                the principal
//	/caldav/<login>/calendars/      the calendar home
//	/caldav/<login>/calendars/<id>/ a calendar: "all", "staff-12", "room-3"
//	/caldav/<login>/calendars/<id>/<session>.ics
//	/ics/<token>.ics                a calendar as one file, for clients that subscribe by URL
//
// Authentication is HTTP Basic: the business slug with an API token or an
// app password of that business, or a staff login with its app password.
type Handler struct {
	Backend Backend
	Log     *slog.Logger
	// Observer, when set, hears checked credentials and the work of each
	// request.
	Observer Observer
	// Listing is the window of days a calendar lists (PROPFIND, sync and the
	// feeds), around today: Back weeks before it, Ahead weeks after.
	Back, Ahead int
	// Requests is the memory requests under way share, which the bodies
	// of PROPFIND and REPORT are read within; nil: no bound.
	Requests *inflight.Budget

	renderers *cache.Cache[int64, *kept] // by business, for its newest revision
}

// NewHandler returns a gateway listing 8 weeks back and 52 ahead. Its
// rendered calendars live in the backend's memory budget when it has one
// (a models.Store does), else in one of their own.
func NewHandler(backend Backend, log *slog.Logger) *Handler {
	b := cache.NewBudget(models.DefaultCacheBytes)
	if bb, ok := backend.(interface{ Budget() *cache.Budget }); ok {
		b = bb.Budget()
	}
	return &Handler{Backend: backend, Log: log, Back: 8, Ahead: 52, renderers: cache.New[int64, *kept](b, "calendars")}
}

type userKey struct{}

// bodyHeld is the bytes held in the server's request budget for each byte
// of a body: the body and what PROPFIND and REPORT decode it into (a
// multiget's hrefs as strings, a filter's elements as structs), measured
// by TestDecodedBodyHeld.
const bodyHeld = 8

func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if strings.HasPrefix(r.URL.Path, FeedPath) {
		h.serveFeed(w, r) // a GET: any body is left unread
		return
	}
	login, password, ok := r.BasicAuth()
	if !ok {
		unauthorized(w)
		return
	}
	user, err := h.Backend.AuthenticateCalendar(r.Context(), login, password)
	if errors.Is(err, models.ErrBadToken) {
		h.checked(r.Context(), false)
		unauthorized(w)
		return
	}
	if err != nil {
		h.internal(w, r, err)
		return
	}
	h.checked(r.Context(), true)
	ctx := context.WithValue(r.Context(), userKey{}, user)
	r = r.WithContext(ctx)
	if r.Method != "PROPFIND" && r.Method != "REPORT" { // the others read no body
		h.answer(w, r, user)
		return
	}
	// The body is read only now that the request has signed in (a 401
	// needs none), whole, at most MaxBody of it, within the server's
	// request budget.
	body, hold, err := h.Requests.Read(ctx, r.Body, r.ContentLength, MaxBody, bodyHeld)
	defer hold.Release()
	var tooLarge *http.MaxBytesError
	switch {
	case errors.As(err, &tooLarge):
		writeError(w, r, fail(http.StatusRequestEntityTooLarge, "the request body is larger than %d bytes", MaxBody))
		return
	case errors.Is(err, inflight.ErrTooLarge):
		writeError(w, r, fail(http.StatusRequestEntityTooLarge, "the request body would take more memory than this server lets one request hold"))
		return
	case errors.Is(err, inflight.ErrBusy):
		busy(w)
		return
	case err != nil: // the client stopped sending, or took too long
		writeError(w, r, fail(http.StatusRequestTimeout, "the request body could not be read: send it again"))
		return
	}
	r.Body = &readBody{bytes.NewReader(body), body}
	h.answer(w, r, user)
}

// answer serves a request that has signed in, and answers its error.
func (h *Handler) answer(w http.ResponseWriter, r *http.Request, user models.CalendarUser) {
	if err := h.serve(w, r, user); err != nil {
		var he *httpError
		if errors.As(err, &he) {
			writeError(w, r, err)
		} else {
			h.internal(w, r, err)
		}
	}
}

// readBody is a body ServeHTTP read: PROPFIND and REPORT take its bytes as
// they are instead of reading a copy.
type readBody struct {
	*bytes.Reader
	b []byte
}

func (*readBody) Close() error { return nil }

// bodyOf returns the body ServeHTTP read.
func bodyOf(r *http.Request) []byte {
	if b, ok := r.Body.(*readBody); ok {
		return b.b
	}
	return nil
}

func unauthorized(w http.ResponseWriter) {
	w.Header().Set("WWW-Authenticate", `Basic realm="Koredyne Schedule", charset="UTF-8"`)
	http.Error(w, "sign in with your business or login and an app password or API token", http.StatusUnauthorized)
}

// internal answers a failure that is not the client's: 503 with
// Retry-After while the database cannot be reached (calendar apps retry
// those later), else 500 with the details in the log only.
func (h *Handler) internal(w http.ResponseWriter, r *http.Request, err error) {
	if models.Unavailable(err) {
		h.Log.WarnContext(r.Context(), "caldav: database unavailable", "method", r.Method, "err", err)
		unavailable(w)
		return
	}
	h.Log.ErrorContext(r.Context(), "caldav", "method", r.Method, "path", r.URL.Path, "err", err)
	http.Error(w, "internal error", http.StatusInternalServerError)
}

// RetryAfter is how long, in seconds, a client is asked to wait while the
// database cannot be reached.
const RetryAfter = "5"

func unavailable(w http.ResponseWriter) {
	w.Header().Set("Retry-After", RetryAfter)
	http.Error(w, "the calendars cannot be reached just now: try again in a few seconds", http.StatusServiceUnavailable)
}

// busy answers a request the server's request budget cannot hold now.
func busy(w http.ResponseWriter) {
	w.Header().Set("Retry-After", RetryAfter)
	http.Error(w, "the server is busy with other large requests: try again in a few seconds", http.StatusServiceUnavailable)
}

// target is what a request path names.
type target struct {
	kind     int // kindRoot, kindPrincipal, kindHome, kindCalendar, kindObject
	calendar string
	object   string
}

const (
	kindRoot = iota
	kindPrincipal
	kindHome
	kindCalendar
	kindObject
)

func (h *Handler) parse(p string, user models.CalendarUser) (target, error) {
	p = path.Clean(p)
	rest, ok := strings.CutPrefix(p, root)
	if !ok {
		return target{}, fail(http.StatusNotFound, "not found")
	}
	parts := strings.Split(strings.Trim(rest, "/"), "/")
	if parts[0] == "" {
		return target{kind: kindRoot}, nil
	}
	if parts[0] != user.Login {
		return target{}, fail(http.StatusNotFound, "not found")
	}
	switch {
	case len(parts) == 1:
		return target{kind: kindPrincipal}, nil
	case parts[1] != "calendars":
		return target{}, fail(http.StatusNotFound, "not found")
	case len(parts) == 2:
		return target{kind: kindHome}, nil
	case len(parts) == 3:
		return target{kind: kindCalendar, calendar: parts[2]}, nil
	case len(parts) == 4:
		return target{kind: kindObject, calendar: parts[2], object: parts[3]}, nil
	}
	return target{}, fail(http.StatusNotFound, "not found")
}

// root is Path without its final slash, as path.Clean leaves the root.
var root = strings.TrimSuffix(Path, "/")

func principalPath(user models.CalendarUser) string { return Path + user.Login + "/" }

func homePath(user models.CalendarUser) string { return principalPath(user) + "calendars/" }

func calendarPath(user models.CalendarUser, id string) string { return homePath(user) + id + "/" }

func (h *Handler) serve(w http.ResponseWriter, r *http.Request, user models.CalendarUser) error {
	switch r.Method {
	case http.MethodGet, http.MethodHead, http.MethodOptions, "PROPFIND", "REPORT":
	default:
		// The gateway publishes computed sessions; nothing is written here.
		return precondition(http.StatusForbidden, nsDAV, "need-privileges", "calendars here are read-only: change the schedule through the API")
	}
	if r.URL.Path == WellKnown || r.URL.Path == WellKnown+"/" {
		http.Redirect(w, r, principalPath(user), http.StatusMovedPermanently)
		return nil
	}
	t, err := h.parse(r.URL.Path, user)
	if err != nil {
		return err
	}
	if r.Method == http.MethodOptions {
		w.Header().Set("DAV", "1, 3, calendar-access")
		w.Header().Set("Allow", "OPTIONS, GET, HEAD, PROPFIND, REPORT")
		w.WriteHeader(http.StatusOK)
		return nil
	}
	if r.Method == "PROPFIND" && t.kind == kindRoot {
		return h.propfindRoot(w, r, user)
	}
	rd, err := h.renderer(r.Context(), user.BusinessID, user.Revision)
	if err != nil {
		return err
	}
	w.Header().Set("Content-Language", rd.lang.Language) // the events' words are the business's
	var cal calendar
	if t.kind >= kindCalendar {
		var ok bool
		if cal, ok = findCalendar(rd.sn, user, t.calendar); !ok {
			return fail(http.StatusNotFound, "no such calendar")
		}
	}
	switch {
	case r.Method == "PROPFIND":
		return h.propfind(w, r, rd, user, t, cal)
	case r.Method == "REPORT":
		if t.kind != kindCalendar {
			return precondition(http.StatusForbidden, nsDAV, "supported-report", "reports are answered on calendars")
		}
		return h.report(w, r, rd, user, cal)
	case t.kind == kindObject:
		e, ok := rd.find(cal, t.object)
		if !ok {
			return fail(http.StatusNotFound, "no such event")
		}
		h.serveBody(w, r, "text/calendar; charset=utf-8", &body{plain: []byte(rd.object(e).text()), etag: e.etag}, e.modified)
		return nil
	case t.kind == kindCalendar:
		h.serveCalendar(w, r, rd, cal)
		return nil
	}
	return fail(http.StatusMethodNotAllowed, "not here")
}

// checkDepth refuses Depth: infinity (RFC 4918 §9.1: propfind-finite-depth).
func checkDepth(r *http.Request) error {
	switch strings.ToLower(r.Header.Get("Depth")) {
	case "", "0", "1":
		return nil
	case "infinity":
		return precondition(http.StatusForbidden, nsDAV, "propfind-finite-depth", "Depth: infinity is not served; use 0 or 1")
	}
	return fail(http.StatusBadRequest, "Depth must be 0 or 1")
}

// body is a response kept to be sent again: its bytes, gzipped when that
// is worth it, and the strong ETag of the plain bytes (hex, unquoted).
type body struct {
	plain, gzipped []byte
	etag           string
}

// serveBody writes a body with a strong content ETag, and 304 when the
// client already has it (go-webdav ignores If-None-Match). A client that
// takes gzip gets the gzipped bytes, a representation of their own with
// an ETag of their own: the plain one with "-gzip" (RFC 9110 §8.8.3: a
// strong ETag differs between content codings). A body not kept gzipped
// (an event) is compressed here, so that its ETag is the one of the bytes
// sent: the server's compression would give it a new ETag that no
// If-None-Match here could match. The body costs a unit of the rate limit
// per bytesPerUnit of its plain bytes, whichever coding it goes in.
func (h *Handler) serveBody(w http.ResponseWriter, r *http.Request, contentType string, b *body, modified time.Time) {
	gzipped := b.gzipped
	if gzipped == nil && len(b.plain) >= cache.MinGzip && cache.AcceptsGzip(r) {
		gzipped = cache.GzipFast(b.plain)
	}
	out, etag := b.plain, `"`+b.etag+`"`
	if gzipped != nil {
		cache.VaryEncoding(w.Header())
		if cache.AcceptsGzip(r) {
			out, etag = gzipped, `"`+b.etag+`-gzip"`
			w.Header().Set("Content-Encoding", "gzip")
		}
	}
	w.Header().Set("ETag", etag)
	w.Header().Set("Cache-Control", "private, no-cache")
	if !modified.IsZero() {
		w.Header().Set("Last-Modified", modified.UTC().Format(http.TimeFormat))
	}
	if inm := r.Header.Get("If-None-Match"); inm != "" && matchesETag(inm, etag) {
		w.Header().Del("Content-Encoding")
		w.WriteHeader(http.StatusNotModified)
		return
	}
	w.Header().Set("Content-Type", contentType)
	w.Header().Set("Content-Length", fmt.Sprint(len(out)))
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		h.wrote(r.Context(), len(b.plain))
		w.Write(out)
	}
}

// matchesETag is the weak comparison of If-None-Match (RFC 9110 §13.1.2).
func matchesETag(header, etag string) bool {
	for _, t := range strings.Split(header, ",") {
		t = strings.TrimSpace(t)
		if t == "*" || strings.TrimPrefix(t, "W/") == etag {
			return true
		}
	}
	return false
}

// renderer returns the renderer of a business at a revision, keeping the
// newest one so that events are rendered once per revision.
func (h *Handler) renderer(ctx context.Context, business, revision int64) (*renderer, error) {
	sn, err := h.Backend.Snapshot(ctx, business, revision)
	if err != nil {
		return nil, err
	}
	// A snapshot of a revision is the same schedule whoever loaded it
	// (the store again after an eviction, a replica): its renderings are
	// the revision's.
	rev := sn.Business.Revision
	if k, ok := h.renderers.Lookup(business, func(k *kept) bool { return k.revision == rev }); ok {
		return k.of(sn), nil
	}
	rd := newRenderer(sn)
	size := int64(rendererBase)
	if log, ok := h.Backend.(changeLog); ok {
		if old, ok := h.renderers.Peek(business); ok && old.revision < rev {
			size += rd.carry(old, log.Unchanged)
		}
	}
	rd.in = h.renderers // before anyone else sees it; growing it is a no-op unless it is kept
	h.renderers.PutIf(business, rd.kept, size, func(old *kept, ok bool) bool {
		return !ok || old.revision <= rev
	})
	return rd, nil
}

// window is the listing window around today, as dates and instants.
func (h *Handler) window(rd *renderer) (from, to engine.Date) {
	today := rd.sn.Today(h.Backend.Now())
	ws := rd.sn.State.Business.WeekStart
	return today.WeekStart(ws).AddDays(-7 * h.Back), today.WeekStart(ws).AddDays(7 * (h.Ahead + 1))
}

// feedHead is the start of a calendar's feed, up to its first VEVENT: the
// calendar's name, and one VTIMEZONE covering the window.
func (h *Handler) feedHead(rd *renderer, cal calendar) string {
	from, to := h.window(rd)
	return calendarStart(cal.name, rd.loc) + icalendar.VTimezone(rd.loc, from.At(0, rd.loc), to.At(0, rd.loc)).Serialize(serial)
}

// feedTag is the strong ETag of a feed: the digest of its head and of its
// listing's token, which digests every event's name and ETag. A feed is
// its head, its events' VEVENTs in the listing's order and the end: the
// same head and token are the same bytes.
func feedTag(head string, col *collected) string {
	sum := sha256.Sum256([]byte(strconv.Itoa(renderVersion) + "\x00" + head + "\x00" + col.token))
	return hex.EncodeToString(sum[:16])
}

// serveCalendar answers GET of a calendar, the feed of a calendar app that
// subscribed by URL. The feed is written once per renderer and window;
// until it is, a client that holds its ETag is answered 304 from the
// listing alone, nothing written. It holds the ETag of the representation
// it was sent: the gzip one is gzip of the same bytes (cache.Gzip is a
// function of them), so it is the one it would get again; a client holding
// the plain ETag that now takes gzip may get the gzip representation,
// which only the written feed can tell.
func (h *Handler) serveCalendar(w http.ResponseWriter, r *http.Request, rd *renderer, cal calendar) {
	from, _ := h.window(rd)
	key := cal.id + "@" + from.String()
	rd.mu.Lock()
	b, ok := rd.feeds[key]
	rd.mu.Unlock()
	if !ok {
		head, col := h.feedHead(rd, cal), h.collect(rd, cal)[0]
		tag := feedTag(head, col)
		if inm := r.Header.Get("If-None-Match"); inm != "" {
			etag := `"` + tag + `"`
			if cache.AcceptsGzip(r) {
				etag = `"` + tag + `-gzip"`
			}
			if matchesETag(inm, etag) {
				cache.VaryEncoding(w.Header())
				w.Header().Set("ETag", etag)
				w.Header().Set("Cache-Control", "private, no-cache")
				w.WriteHeader(http.StatusNotModified)
				return
			}
		}
		plain := rd.feed(head, col.events)
		b = &body{plain: plain, gzipped: cache.Gzip(plain), etag: tag}
		b = keepFirst(rd.kept, rd.feeds, key, b, int64(len(b.plain)+len(b.gzipped)+128))
	}
	h.serveBody(w, r, "text/calendar; charset=utf-8", b, time.Time{})
}

// serveFeed answers /ics/<token>.ics: the calendar the token opens, as one
// file, with ETag and 304.
func (h *Handler) serveFeed(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "feeds are read-only", http.StatusMethodNotAllowed)
		return
	}
	token, ok := strings.CutSuffix(strings.TrimPrefix(r.URL.Path, FeedPath), ".ics")
	if !ok || token == "" || strings.Contains(token, "/") {
		http.NotFound(w, r)
		return
	}
	feed, err := h.Backend.FeedByToken(r.Context(), token)
	if errors.Is(err, models.ErrBadToken) {
		h.checked(r.Context(), false)
		http.NotFound(w, r)
		return
	}
	if err != nil {
		h.internal(w, r, err)
		return
	}
	h.checked(r.Context(), true)
	rd, err := h.renderer(r.Context(), feed.BusinessID, -1)
	if err != nil {
		h.internal(w, r, err)
		return
	}
	w.Header().Set("Content-Language", rd.lang.Language)
	cal, ok := findCalendar(rd.sn, models.CalendarUser{}, feed.Calendar)
	if !ok {
		http.NotFound(w, r) // the staff member or room is gone
		return
	}
	w.Header().Set("Content-Disposition", fmt.Sprintf(`inline; filename=%q`, url.PathEscape(cal.id)+".ics"))
	h.serveCalendar(w, r, rd, cal)
}
