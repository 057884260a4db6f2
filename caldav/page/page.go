// Package page is the public timetable page of a business: the week's
// computed sessions as a read-only HTML page at a secret URL, /t/<token>,
// for a notice board, a website link or a printout on the wall.
//
// The token is a feed token of the pseudo-calendar models.TimetablePage, so
// it is handed out and rotated like the .ics feeds (GraphQL timetableUrl and
// rotateTimetableToken). The page is rendered on the server with
// html/template and its stylesheet is embedded: no script, nothing fetched.
// It carries no client data: no names, no booking counts.
package page

import (
	"context"
	_ "embed"
	"errors"
	"html/template"
	"log/slog"
	"net/http"
	"net/url"
	"time"

	"github.com/koredyne/schedule/engine"
	"github.com/koredyne/schedule/models"
	"github.com/koredyne/schedule/models/locale"
)

// Path is where the pages are served: Path + token. The router mounts the
// handler on it, the API hands out URLs under it, and the access log
// masks the tokens after it.
const Path = "/t/"

//go:embed page.css
var stylesheet string

//go:embed page.html
var markup string

var tmpl = template.Must(template.New("page").Parse(markup))

// view is what the template receives: the week and the stylesheet.
type view struct {
	week
	CSS template.CSS
	// Toggle shows or hides the staff names on the same week.
	Toggle, ToggleHref string
	// The links to the weeks around it, relative to the page.
	PrevHref, ThisHref, NextHref string
}

// Backend is what the page asks of the storage behind it; *models.Store
// satisfies it.
type Backend interface {
	// FeedByToken finds the calendar a secret opens; an unknown one is
	// models.ErrBadToken.
	FeedByToken(ctx context.Context, token string) (*models.FeedToken, error)
	// Snapshot is a business's schedule at a revision (-1: the newest).
	Snapshot(ctx context.Context, business, revision int64) (*models.Snapshot, error)
	// Now is the clock that "this week" is read from.
	Now() time.Time
}

var _ Backend = (*models.Store)(nil)

// Observer hears whether a request's token opened a timetable, for the
// server's rate limit. Its methods are called concurrently.
type Observer interface {
	Checked(ctx context.Context, good bool)
}

// Handler serves the pages.
type Handler struct {
	// Observer, when set, hears every token checked.
	Observer Observer

	backend Backend
	log     *slog.Logger
	mux     *http.ServeMux
}

// NewHandler serves GET Path{token}: the week holding ?week=YYYY-MM-DD (this
// week in the business's zone without it), with staff names unless
// ?staff=off.
func NewHandler(backend Backend, log *slog.Logger) *Handler {
	h := &Handler{backend: backend, log: log, mux: http.NewServeMux()}
	h.mux.HandleFunc("GET "+Path+"{token}", h.serve)
	return h
}

func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) { h.mux.ServeHTTP(w, r) }

// checked tells the Observer, when there is one.
func (h *Handler) checked(ctx context.Context, good bool) {
	if h.Observer != nil {
		h.Observer.Checked(ctx, good)
	}
}

func (h *Handler) serve(w http.ResponseWriter, r *http.Request) {
	secure(w.Header())
	token := r.PathValue("token")
	feed, err := h.backend.FeedByToken(r.Context(), token)
	if errors.Is(err, models.ErrBadToken) || (err == nil && feed.Calendar != models.TimetablePage) {
		h.checked(r.Context(), false)
		// No business to speak for: the language the browser asks for.
		http.Error(w, locale.For(engine.Locale{}, r.Header.Get("Accept-Language")).Text("page.notFound", nil), http.StatusNotFound)
		return
	}
	if err != nil {
		h.internal(w, r, err)
		return
	}
	h.checked(r.Context(), true)
	sn, err := h.backend.Snapshot(r.Context(), feed.BusinessID, -1)
	if err != nil {
		h.internal(w, r, err)
		return
	}
	// The business's page, in the business's language: a notice board
	// reads the same to everyone.
	l := locale.ForBusiness(sn.State.Business, "")
	q := r.URL.Query()
	from, err := weekOf(q.Get("week"), l, sn, h.backend.Now())
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	staff := q.Get("staff") != "off"
	v := view{week: build(sn, l, from, staff), CSS: template.CSS(stylesheet)}
	v.PrevHref, v.ThisHref, v.NextHref = link(token, from.AddDays(-7), staff), link(token, 0, staff), link(token, from.AddDays(7), staff)
	v.Toggle, v.ToggleHref = toggle(sn, l, token, q.Get("week") != "", from, staff)
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Content-Language", l.Language)
	w.Header().Set("Cache-Control", "private, max-age=60")
	if err := tmpl.Execute(w, v); err != nil {
		h.log.ErrorContext(r.Context(), "timetable page", "business", feed.BusinessID, "err", err)
	}
}

// secure sets the headers of every answer. The URL is a secret, so no
// referrer carries it away and nothing may frame the page; the page loads
// nothing, so the policy allows nothing but its own inline stylesheet.
func secure(h http.Header) {
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'self' 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("X-Frame-Options", "DENY")
	h.Set("X-Robots-Tag", "noindex, nofollow")
}

// weekOf is the first day of the week the page shows: the week holding the
// date asked for, or this week in the business's zone, from the first day
// of the week of the business's language (or its own).
func weekOf(param string, l *locale.Locale, sn *models.Snapshot, now time.Time) (engine.Date, error) {
	ws := l.FirstDay
	if param == "" {
		return sn.Today(now).WeekStart(ws), nil
	}
	d, err := engine.ParseDate(param)
	if err != nil {
		return 0, errors.New(l.Text("page.badWeek", nil) + ": " + err.Error())
	}
	from := d.WeekStart(ws)
	if !from.AddDays(-7).Valid() || !from.AddDays(13).Valid() {
		return 0, errors.New(l.Text("page.farWeek", nil))
	}
	return from, nil
}

// link is the page of the week starting on from (this week when from is
// zero), relative to the page itself so that it keeps the token.
func link(token string, from engine.Date, staff bool) string {
	q := url.Values{}
	if from != 0 {
		q.Set("week", from.String())
	}
	if !staff {
		q.Set("staff", "off")
	}
	if len(q) == 0 {
		return token
	}
	return token + "?" + q.Encode()
}

// toggle is the link that shows or hides the staff names, on the same week.
func toggle(sn *models.Snapshot, l *locale.Locale, token string, dated bool, from engine.Date, staff bool) (string, string) {
	if !dated {
		from = 0
	}
	words := l.Words(sn.State.Business.Kind)
	if staff {
		return l.Text("page.hideStaff", map[string]any{"Staff": words.Staff.Many}), link(token, from, false)
	}
	return l.Text("page.showStaff", map[string]any{"Staff": words.Staff.Many}), link(token, from, true)
}

func (h *Handler) internal(w http.ResponseWriter, r *http.Request, err error) {
	if models.Unavailable(err) {
		h.log.WarnContext(r.Context(), "timetable page: database unavailable", "err", err)
		w.Header().Set("Retry-After", "5")
		http.Error(w, locale.For(engine.Locale{}, r.Header.Get("Accept-Language")).Text("page.unavailable", nil), http.StatusServiceUnavailable)
		return
	}
	h.log.ErrorContext(r.Context(), "timetable page", "path", Path+"…", "err", err)
	http.Error(w, locale.For(engine.Locale{}, r.Header.Get("Accept-Language")).Text("page.internal", nil), http.StatusInternalServerError)
}
