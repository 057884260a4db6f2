package graph_test

import (
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/99designs/gqlgen/client"

	"github.com/koredyne/schedule/engine"
	"github.com/koredyne/schedule/graph"
	"github.com/koredyne/schedule/models"
	"github.com/koredyne/schedule/models/modelstest"
)

// limitedAPI is the API with a depth limit of 4 and a body limit of 4 KiB.
func limitedAPI(t *testing.T) (*api, string) {
	d := modelstest.SQLite(t)
	store := models.NewStore(d.DB, func() time.Time { return now })
	h := (&graph.Resolver{Store: store, Log: slog.New(slog.NewTextHandler(io.Discard, nil)), MaxDepth: 4, MaxBody: 4 << 10}).Handler()
	a := &api{t: t, db: d, store: store, handler: h, c: client.New(h)}
	return a, a.business("harbor", engine.Gym)
}

// TestQueryDepthLimit counts depth through fields, inline fragments and
// named fragments, leaves introspection out, and refuses beyond the limit
// before anything runs.
func TestQueryDepthLimit(t *testing.T) {
	a, owner := limitedAPI(t)
	for _, c := range []struct {
		name, query string
		refused     bool
	}{
		{"four levels", `{ days(from: "2026-12-01", to: "2026-12-02") { sessions { class { name } } } }`, false},
		{"five levels", `{ days(from: "2026-12-01", to: "2026-12-02") { sessions { class { activity { name } } } } }`, true},
		{"five through a fragment", `query { days(from: "2026-12-01", to: "2026-12-02") { ...Day } }
			fragment Day on Day { sessions { ...Session } }
			fragment Session on Session { class { activity { name } } }`, true},
		{"five through an inline fragment", `{ days(from: "2026-12-01", to: "2026-12-02") { ... on Day { sessions { class { activity { name } } } } } }`, true},
		{"a fragment spread twice at four", `query { days(from: "2026-12-01", to: "2026-12-02") { sessions { ...S } a: sessions { ...S } } }
			fragment S on Session { class { name } }`, false},
		{"introspection deeper than the limit", `{ __schema { types { fields { type { ofType { ofType { ofType { name } } } } } } } }`, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			a := a.with(t)
			if !c.refused {
				a.ok(owner, c.query, nil)
				return
			}
			e := a.fails(owner, "QUERY_TOO_DEEP", c.query, nil)
			if want := "The query nests 5 levels deep; at most 4 are allowed"; e.Message != want {
				t.Errorf("got %q, want %q", e.Message, want)
			}
		})
	}
}

// TestRequestBodyLimit sends a body over the limit over real HTTP: 413, in
// GraphQL's error shape, once the token has been checked (without one the
// body is not read at all: TestBodyReadAfterToken).
func TestRequestBodyLimit(t *testing.T) {
	a, owner := limitedAPI(t)
	srv := httptest.NewServer(a.handler)
	defer srv.Close()
	post := func(body string) (int, result) {
		req, _ := http.NewRequest("POST", srv.URL, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+owner)
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var r result
		if err := json.NewDecoder(resp.Body).Decode(&r); err != nil {
			t.Fatalf("a %d response is not GraphQL's shape: %v", resp.StatusCode, err)
		}
		return resp.StatusCode, r
	}
	status, r := post(`{"query":"{ business { slug } }","variables":{"pad":"` + strings.Repeat("x", 5<<10) + `"}}`)
	if status != http.StatusRequestEntityTooLarge || len(r.Errors) != 1 || r.Errors[0].code() != "REQUEST_TOO_LARGE" {
		t.Errorf("a body over the limit: %d %+v", status, r.Errors)
	}
	status, r = post(`{"query":"{ business { slug } }","variables":{"pad":"` + strings.Repeat("x", 3<<10) + `"}}`)
	if status != 200 || path(r.Data, "business", "slug") != "harbor" {
		t.Errorf("a body under the limit: %d %+v %v", status, r.Errors, r.Data)
	}
}

// TestFragmentFanOutRefusedFast: forty fragments that each spread the next
// twice expand to 2^40 fields; the query is refused as too complex at once,
// before gqlgen's complexity count would walk every spread.
func TestFragmentFanOutRefusedFast(t *testing.T) {
	eachDatabase(t, func(t *testing.T, a *api) {
		tok := a.business("fan", engine.Office)
		var b strings.Builder
		b.WriteString(`{ days(from: "2026-12-01", to: "2026-12-02") { ...F0 } }` + "\n")
		for i := range 40 {
			fmt.Fprintf(&b, "fragment F%d on Day { sessions { start } ...F%d ...F%d }\n", i, i+1, i+1)
		}
		b.WriteString("fragment F40 on Day { date }\n")
		start := time.Now()
		a.fails(tok, "QUERY_TOO_COMPLEX", b.String(), nil)
		if took := time.Since(start); took > 2*time.Second {
			t.Errorf("refusing it took %v", took)
		}
	})
}
