package graph_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"
	_ "time/tzdata"

	"github.com/99designs/gqlgen/client"

	"github.com/koredyne/schedule/engine"
	"github.com/koredyne/schedule/engine/demo"
	"github.com/koredyne/schedule/graph"
	"github.com/koredyne/schedule/models"
	"github.com/koredyne/schedule/models/modelstest"
)

// now is the clock of every API test: Tuesday 1 December 2026, morning.
var now = time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)

// api is the real executable schema over a real database, driven with
// gqlgen's client.
type api struct {
	t       *testing.T
	db      modelstest.Database
	store   *models.Store
	handler http.Handler
	c       *client.Client
}

// eachDatabase runs a test against SQLite and, when configured, PostgreSQL.
func eachDatabase(t *testing.T, test func(t *testing.T, a *api)) {
	eachDatabaseWith(t, func(*graph.Resolver) {}, test)
}

// eachDatabaseWith is eachDatabase with the resolver set up by tune first.
func eachDatabaseWith(t *testing.T, tune func(*graph.Resolver), test func(t *testing.T, a *api)) {
	for _, d := range modelstest.Databases(t) {
		t.Run(d.Name, func(t *testing.T) {
			store := models.NewStore(d.DB, func() time.Time { return now })
			r := &graph.Resolver{Store: store, Log: slog.New(slog.NewTextHandler(io.Discard, nil)), FeedPath: "/ics/", PagePath: "/t/"}
			tune(r)
			h := r.Handler()
			test(t, &api{t: t, db: d, store: store, handler: h, c: client.New(h)})
		})
	}
}

// with returns the api for a subtest, so its failures stop the subtest.
func (a *api) with(t *testing.T) *api {
	b := *a
	b.t = t
	return &b
}

// business creates a business holding a demo and returns an owner token.
func (a *api) business(slug string, kind engine.Kind) string {
	a.t.Helper()
	ctx := context.Background()
	st, _ := demo.ByKind(kind, engine.DateOf(now))
	b, err := models.CreateBusiness(ctx, a.db.DB, slug, st.Business)
	if err != nil {
		a.t.Fatal(err)
	}
	if _, err := a.store.Write(ctx, b.ID, false, func(e *models.Edit) error { e.ReplaceSchedule(st); return nil }); err != nil {
		a.t.Fatal(err)
	}
	return a.token(slug, models.Owner)
}

// token makes a token of a role for a business.
func (a *api) token(slug string, role models.Role) string {
	a.t.Helper()
	ctx := context.Background()
	b, err := models.BusinessBySlug(ctx, a.db.DB, slug)
	if err != nil {
		a.t.Fatal(err)
	}
	tok, _, err := models.CreateToken(ctx, a.db.DB, b.ID, role, string(role), "")
	if err != nil {
		a.t.Fatal(err)
	}
	return tok
}

// gqlError is one error of a response.
type gqlError struct {
	Message    string         `json:"message"`
	Path       []any          `json:"path"`
	Extensions map[string]any `json:"extensions"`
}

func (e gqlError) code() string { s, _ := e.Extensions["code"].(string); return s }

// result is a decoded response.
type result struct {
	Data   map[string]any
	Errors []gqlError
}

// do sends a query with variables as token's business.
func (a *api) do(token, query string, vars map[string]any) result {
	a.t.Helper()
	return a.send(token, query, vars)
}

// send is do with more options (headers) for the request.
func (a *api) send(token, query string, vars map[string]any, more ...client.Option) result {
	a.t.Helper()
	opts := append([]client.Option{client.AddHeader("Authorization", "Bearer "+token)}, more...)
	for k, v := range vars {
		opts = append(opts, client.Var(k, v))
	}
	resp, err := a.c.RawPost(query, opts...)
	if err != nil {
		a.t.Fatalf("%s: %v", firstLine(query), err)
	}
	var r result
	if len(resp.Errors) > 0 {
		if err := json.Unmarshal(resp.Errors, &r.Errors); err != nil {
			a.t.Fatal(err)
		}
	}
	r.Data, _ = resp.Data.(map[string]any)
	return r
}

// ok sends a query that must succeed and returns its data.
func (a *api) ok(token, query string, vars map[string]any) map[string]any {
	a.t.Helper()
	r := a.do(token, query, vars)
	if len(r.Errors) > 0 {
		a.t.Fatalf("%s: %+v", firstLine(query), r.Errors)
	}
	return r.Data
}

// fails sends a query that must fail with code and returns the error.
func (a *api) fails(token, code, query string, vars map[string]any) gqlError {
	a.t.Helper()
	r := a.do(token, query, vars)
	if len(r.Errors) == 0 {
		a.t.Fatalf("%s: succeeded, want %s: %v", firstLine(query), code, r.Data)
	}
	if got := r.Errors[0].code(); got != code {
		a.t.Fatalf("%s: got %s (%s), want %s", firstLine(query), got, r.Errors[0].Message, code)
	}
	return r.Errors[0]
}

// dump is everything a business holds, as the API shows it, for comparing
// before and after a write that must change nothing.
func (a *api) dump(token string) string {
	a.t.Helper()
	data := a.ok(token, `{
		business { name kind currency timeZone weekStart revision }
		rooms { id name capacity }
		staff { id name workingHours { id from spans { weekday start end } } }
		timeOffs { id staff { id } from to fromTime toTime reason }
		activities { id name color }
		classes { id activity { id } staff { id } }
		classTimes { id room { id } weekday start end label capacity type bufferMinutes active units }
		allSeries { id name anchorDate endDate cycleWeeks entries { id classTime { id } class { id } week } plans { id name sessionsPerMonth months price } }
		clients(first: 500) { nodes { id name email phone memberships { id series { id } plan { id } startDate endDate } } }
		oneOffs { id class { id } room { id } date start end label cancelled note clients { id } }
		closures { id from to rooms { id } reason pausesRotation }
		standingBookings(first: 500) { nodes { id client { id } classTime { id } class { id } from until waitlist skipped { date late } } }
		days(from: "2026-11-29", to: "2027-01-10") { date sessions { id start end room { id } staff { id } cancelled note placesTaken standing { id } } }
	}`, nil)
	b, _ := json.Marshal(data)
	return string(b)
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i > 0 {
		s = s[:i]
	}
	if len(s) > 80 {
		s = s[:80]
	}
	return s
}

// connectionLists are the Query lists that are connections, their rows
// under nodes.
var connectionLists = map[string]bool{"clients": true, "memberships": true, "bookings": true, "roomBookings": true, "webhookEndpoints": true, "standingBookings": true}

// listQuery asks a Query list for sel on each row, through nodes (a page of
// 500) when the list is a connection.
func listQuery(list, sel string) string {
	if connectionLists[list] {
		return "{ " + list + "(first: 500) { nodes { " + sel + " } } }"
	}
	return "{ " + list + " { " + sel + " } }"
}

// rows is the list under key of decoded JSON: a plain list, or a
// connection's nodes.
func rows(v any, key string) []any {
	v = path(v, key)
	if nodes := path(v, "nodes"); nodes != nil {
		v = nodes
	}
	l, _ := v.([]any)
	return l
}

// path digs a value out of decoded JSON: path(data, "createRoom", "room", "id").
func path(v any, keys ...string) any {
	for _, k := range keys {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[k]
	}
	return v
}
