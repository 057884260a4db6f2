package graph

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/koredyne/schedule/engine"
	"github.com/koredyne/schedule/graph/model"
	"github.com/koredyne/schedule/models"
	"github.com/koredyne/schedule/models/locale"
)

// apiError is an error that only the API raises (authentication, access).
type apiError struct {
	code, message string
	// format and args are what the message was written from, when it
	// was (apiErrorf): the catalogues translate the format.
	format string
	args   []any
}

// apiErrorf is an apiError whose message is written from a format.
func apiErrorf(code, format string, args ...any) *apiError {
	return &apiError{code: code, message: fmt.Sprintf(format, args...), format: format, args: args}
}

// in is the error's message in the locale's language (English: as
// written), in the words of a business of kind (Gym before one is known).
func (e *apiError) in(l *locale.Locale, kind engine.Kind) string {
	format := e.format
	if format == "" {
		format = e.message
	}
	return l.Message(kind, e.code, "", e.message, format, e.args)
}

// requestLocale is the locale of an answer written before GraphQL runs:
// once the request's token has been checked (its context carries the
// request), its business's, in the language the request's Accept-Language
// asks for where the catalogues have it; before that, the asked language,
// else English.
func requestLocale(req *http.Request) (*locale.Locale, engine.Kind) {
	if req == nil {
		return locale.For(engine.Locale{}, ""), engine.Gym
	}
	asked := req.Header.Get("Accept-Language")
	if rq := requestFrom(req.Context()); rq != nil && rq.store != nil {
		if sn, err := rq.snapshot(req.Context()); err == nil {
			return locale.ForBusiness(sn.State.Business, asked), sn.State.Business.Kind
		}
	}
	return locale.For(engine.Locale{}, asked), engine.Gym
}

func (e *apiError) Error() string { return e.message }

var (
	errUnauthenticated = &apiError{code: "UNAUTHENTICATED", message: "Sign in with an API token: send Authorization: Bearer <token>"}
	errForbidden       = &apiError{code: "FORBIDDEN", message: "Your role does not allow this"}
	errUnavailable     = &apiError{code: "UNAVAILABLE", message: "The schedule cannot be reached just now: try again in a few seconds"}
	errShuttingDownAPI = &apiError{code: "UNAVAILABLE", message: "The server is restarting: connect again in a few seconds"}
	// A playground copy lives in memory behind a cookie: no feed or
	// timetable URL would find it, so none is handed out or rotated.
	errInternal  = &apiError{code: "INTERNAL", message: "internal error"}
	errNotServed = &apiError{code: "NOT_SERVED", message: "A playground serves no calendar feeds or timetable pages; run your own server for secret URLs"}
)

// codes maps the engine's error codes onto extensions.code, once.
var codes = map[engine.Code]string{
	engine.Invalid:     "BAD_USER_INPUT",
	engine.NotFound:    "NOT_FOUND",
	engine.InUse:       "IN_USE",
	engine.Conflict:    "CLASH",
	engine.Unavailable: "STAFF_UNAVAILABLE",
	engine.Full:        "CAPACITY_FULL",
	engine.OverPlan:    "PLAN_LIMIT",
	engine.Stopped:     "TIMEOUT",
}

// presentError gives every error an extensions.code. Errors the API does not
// know are internal: the client sees "internal error", the log sees why.
func (r *Resolver) presentError(ctx context.Context, err error) *gqlerror.Error {
	gerr := graphql.DefaultErrorPresenter(ctx, err)
	if gerr.Extensions == nil {
		gerr.Extensions = map[string]any{}
	}
	l, kind, today := r.errorLocale(ctx, err)
	if code, ok := gerr.Extensions["code"].(string); ok && gerr.Err == nil {
		// gqlgen's own: parse and validation failures, about the query's
		// text, which they quote.
		if l.Language != "en" {
			gerr.Message = gqlMessageIn(l, code, gerr.Message)
		}
		return gerr
	}
	defer func() {
		code, _ := gerr.Extensions["code"].(string)
		field, _ := gerr.Extensions["field"].(string)
		gerr.Message = localized(l, kind, today, code, field, gerr.Message, err)
	}()
	var (
		api   *apiError
		clash *models.ClashError
		away  *models.UnavailableError
		valid *engine.ValidationError
		eerr  *engine.Error
	)
	switch {
	case errors.As(err, &api):
		gerr.Message, gerr.Extensions["code"] = api.message, api.code
	case errors.As(err, &clash):
		gerr.Message, gerr.Extensions["code"] = clash.Error(), "CLASH"
		list := make([]map[string]any, len(clash.Clashes))
		for i, c := range clash.Clashes {
			list[i] = clashJSON(&c, l.Clash(&c, kind, today))
		}
		gerr.Extensions["clashes"] = list
		if s, ok := suggestionsOf(err); ok {
			gerr.Extensions["suggestions"] = suggestionsJSON(s, l, kind)
		}
	case errors.As(err, &away):
		gerr.Message, gerr.Extensions["code"] = away.Error(), "STAFF_UNAVAILABLE"
		list := make([]map[string]any, len(away.NeedsCover))
		for i, u := range away.NeedsCover {
			list[i] = uncoveredJSON(u, away.Messages[i])
		}
		gerr.Extensions["needsCover"] = list
		if s, ok := suggestionsOf(err); ok {
			gerr.Extensions["suggestions"] = suggestionsJSON(s, l, kind)
		}
	case errors.As(err, &valid):
		// A row named by an id the business does not have is NOT_FOUND,
		// whatever else is wrong, and its field is the one named.
		gerr.Message, gerr.Extensions["code"] = valid.Error(), codes[valid.Code()]
		problems := make([]map[string]any, len(valid.Problems))
		for i, p := range valid.Problems {
			problems[i] = map[string]any{"field": p.Field, "message": l.Message(kind, problemCode(p), p.Field, p.Message, p.Format, p.Args)}
		}
		gerr.Extensions["field"] = valid.First().Field
		gerr.Extensions["problems"] = problems
	case !errors.As(err, &eerr) && (errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled)):
		// The request's deadline passed in the database rather than in
		// the engine: the same answer.
		gerr.Message, gerr.Extensions["code"] = engine.ErrStopped.Message, codes[engine.Stopped]
	case errors.As(err, &eerr):
		gerr.Message, gerr.Extensions["code"] = eerr.Message, codes[eerr.Code]
		if eerr.Field != "" {
			gerr.Extensions["field"] = eerr.Field
		}
		if value := (*model.ValueError)(nil); errors.As(err, &value) {
			gerr.Extensions["field"] = givenIn(gerr.Path)
		}
		for k, v := range eerr.Details {
			gerr.Extensions[k] = v
		}
	case models.Unavailable(err):
		r.Log.WarnContext(ctx, "database unavailable", "err", err, "path", gerr.Path.String())
		gerr.Message, gerr.Extensions["code"] = errUnavailable.message, errUnavailable.code
		if req := requestFrom(ctx); req != nil {
			req.unavailable.Store(true)
		}
	default:
		r.Log.ErrorContext(ctx, "internal error", "err", err, "path", gerr.Path.String())
		gerr.Message, gerr.Extensions["code"] = "internal error", "INTERNAL"
	}
	return gerr
}

// errorLocale is the locale a request's errors are written in: the
// business's, or the one the request's Accept-Language asks for.
func (r *Resolver) errorLocale(ctx context.Context, err error) (*locale.Locale, engine.Kind, engine.Date) {
	today := engine.DateOf(r.Store.Now())
	rq := requestFrom(ctx)
	if rq == nil {
		return locale.For(engine.Locale{}, ""), engine.Gym, today
	}
	rq.mu.Lock()
	sn := rq.snap
	rq.mu.Unlock()
	if sn == nil && !models.Unavailable(err) {
		sn, _ = r.snapshot(ctx)
	}
	if sn == nil {
		return locale.For(engine.Locale{}, rq.acceptLanguage), engine.Gym, today
	}
	return locale.ForBusiness(sn.State.Business, rq.acceptLanguage), sn.State.Business.Kind, sn.Today(r.Store.Now())
}

// localized is an error's message in the locale's language (English: as
// written). An error the code wrote from a format is looked up by it;
// others by what they say.
func localized(l *locale.Locale, kind engine.Kind, today engine.Date, code, field, english string, err error) string {
	if l.Language == "en" {
		return english
	}
	var (
		api   *apiError
		clash *models.ClashError
		valid *engine.ValidationError
		eerr  *engine.Error
	)
	switch {
	case errors.As(err, &api):
		return api.in(l, kind)
	case errors.As(err, &clash):
		if len(clash.Clashes) == 0 {
			return l.Code(code, "")
		}
		first := l.Clash(&clash.Clashes[0], kind, today)
		if len(clash.Clashes) == 1 {
			return first
		}
		return l.Text("clash.more", map[string]any{"First": first, "More": l.Number(len(clash.Clashes) - 1)})
	case errors.As(err, &valid):
		msgs := make([]string, len(valid.Problems))
		for i, p := range valid.Problems {
			msgs[i] = l.Message(kind, problemCode(p), p.Field, p.Message, p.Format, p.Args)
		}
		return strings.Join(msgs, "; ")
	case errors.As(err, &eerr):
		return l.Message(kind, code, field, english, eerr.Format, eerr.Args)
	case code == codes[engine.Stopped]:
		return l.Message(kind, code, "", english, engine.ErrStopped.Format, nil)
	}
	return l.Message(kind, code, "", english, english, nil)
}

// problemCode is the extensions.code of one problem of a validation.
func problemCode(p engine.Problem) string {
	if p.Code == "" {
		return codes[engine.Invalid]
	}
	return codes[p.Code]
}

func clashJSON(c *engine.Clash, message string) map[string]any {
	m := map[string]any{"kind": c.Kind.String(), "message": message, "firstDate": c.First.String()}
	if c.Every > 0 {
		m["repeatsEveryWeeks"] = c.Every
		if c.Until != 0 {
			m["until"] = c.Until.String()
		}
	}
	return m
}

// uncoveredJSON is an engine.Uncovered in a STAFF_UNAVAILABLE error, named
// as the Uncovered type's fields are.
func uncoveredJSON(u engine.Uncovered, message string) map[string]any {
	m := map[string]any{"staffId": strconv.FormatInt(u.StaffID, 10), "reason": u.Reason.String(), "message": message,
		"firstDate": u.First.String(), "until": u.Until.String(), "sessionId": sessionIDOf(u)}
	if u.Reason == engine.OnTimeOff {
		m["timeOffId"] = strconv.FormatInt(u.TimeOffID, 10)
	} else {
		m["hoursFrom"] = u.HoursFrom.String()
	}
	if u.Every > 0 {
		m["repeatsEveryWeeks"] = u.Every
	}
	return m
}

// recoverPanic turns a panic in a resolver into an internal error.
func (r *Resolver) recoverPanic(ctx context.Context, v any) error {
	r.Log.ErrorContext(ctx, "panic in a resolver", "panic", v)
	return fmt.Errorf("panic: %v", v)
}

// notFound reports an id that does not exist in the business, in its words.
func notFound(what string, id int64) error {
	return engine.Errorf(engine.NotFound, "id", "There is no %s with id %d", what, id)
}

// namedBy reports a NOT_FOUND under the argument or input field that named
// the id (a lookup says "id"); other errors pass as they are.
func namedBy(field string, err error) error {
	var e *engine.Error
	if errors.As(err, &e) && e.Code == engine.NotFound {
		named := *e
		named.Field = field
		return &named
	}
	return err
}

func badInput(field, format string, args ...any) error {
	return engine.Errorf(engine.Invalid, field, format, args...)
}

// givenIn names where a value that could not be read was given: the
// argument, or the field of an input inside it, by the last name of the
// error's path (["createClassTime", "input", "roomId"] is roomId; the
// index of a list's element is skipped).
func givenIn(path ast.Path) string {
	for i := len(path) - 1; i >= 0; i-- {
		if name, ok := path[i].(ast.PathName); ok {
			return string(name)
		}
	}
	return ""
}
