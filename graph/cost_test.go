package graph_test

import (
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/99designs/gqlgen/client"

	"github.com/koredyne/schedule/engine"
	"github.com/koredyne/schedule/graph"
	"github.com/koredyne/schedule/models"
	"github.com/koredyne/schedule/models/modelstest"
)

// repeat writes n copies of a selection, %d standing for the copy's number.
func repeat(prefix, sel, suffix string, n int) string {
	var b strings.Builder
	b.WriteString(prefix)
	for i := range n {
		if strings.Contains(sel, "%d") {
			fmt.Fprintf(&b, sel, i, i)
		} else {
			b.WriteString(sel)
		}
	}
	b.WriteString(suffix)
	return b.String()
}

// TestHostileQueriesRefusedFast sends, with the default limits, the queries
// that took servers down: lists nested back into each other, thousands of
// aliases or copies of one field, thousands of writes in one request. Each
// is refused with QUERY_TOO_COMPLEX before anything runs: in milliseconds,
// allocating little, and writing nothing.
func TestHostileQueriesRefusedFast(t *testing.T) {
	eachDatabase(t, func(t *testing.T, a *api) {
		owner := a.business("harbor", engine.Gym)
		before := a.dump(owner)
		for _, c := range []struct {
			name, query string
			costed      bool // refused by the cost model, which reports the cost
		}{
			{"series and entries nested to depth 8", `{allSeries{entries{series{entries{series{entries{series{name}}}}}}}}`, true},
			{"series and entries nested to depth 12", `{allSeries{entries{series{entries{series{entries{series{entries{series{entries{series{name}}}}}}}}}}}}`, true},
			{"days of sessions of series of entries", `{ days(from: "2026-01-01", to: "2027-01-01") { sessions { series { series { entries { series { entries { id } } } } } } } }`, true},
			{"clients and memberships nested through a page", "{ clients(first: 500) { nodes { " + strings.Repeat("memberships { series { memberships { client { ", 12) + "name" + strings.Repeat(" } } } }", 12) + " } } }", true},
			{"bookings of sessions of a page of bookings", `{ bookings(from: "2026-01-01", to: "2027-01-01", first: 500) { edges { node { session { bookings { client { memberships { series { memberships { client { name } } } } } } } } } } }`, true},
			{"a hundred introspections", aliasesOf("__schema { types { fields { name args { name } } } }", graph.DefaultMaxAliases), true},
			{"a hundred calendar exports", aliasesOf("calendarExport", graph.DefaultMaxAliases), true},
			{"3,000 aliases of one field", aliasesOf("business { name }", 3000), false},
			{"3,000 copies of one field", repeat("{", " business { name }", "}", 3000), false},
			{"3,000 copies through fragments", repeat("{", " ...F", "} fragment F on Query { business { name } }", 3000), false},
			{"2,000 aliased createRoom", repeat("mutation {", ` r%d: createRoom(input: {name: "Room %d"}) { room { id } }`, "}", 2000), false},
			{"a query of 60,000 tokens", "{ business { " + strings.Repeat("name ", 60000) + "} }", false},
		} {
			t.Run(c.name, func(t *testing.T) {
				a := a.with(t)
				var m1, m2 runtime.MemStats
				runtime.GC()
				runtime.ReadMemStats(&m1)
				start := time.Now()
				e := a.fails(owner, "QUERY_TOO_COMPLEX", c.query, nil)
				took := time.Since(start)
				runtime.ReadMemStats(&m2)
				alloc := m2.TotalAlloc - m1.TotalAlloc
				t.Logf("%d bytes of query refused in %v, %.1f MiB allocated: %s", len(c.query), took, float64(alloc)/(1<<20), e.Message)
				// The query text itself is up to 300 KB; parsing it is most of the work.
				if took > 500*time.Millisecond || alloc > 64<<20 {
					t.Errorf("refusing it took %v and %d bytes", took, alloc)
				}
				cost, _ := e.Extensions["cost"].(float64)
				if c.costed && cost <= graph.DefaultMaxCost {
					t.Errorf("cost %v, want more than %d", e.Extensions["cost"], graph.DefaultMaxCost)
				}
			})
		}
		if after := a.dump(owner); after != before {
			t.Errorf("a refused request changed the business")
		}
	})
}

func aliasesOf(field string, n int) string {
	var b strings.Builder
	b.WriteString("{")
	for i := range n {
		fmt.Fprintf(&b, " a%d: %s", i, field)
	}
	b.WriteString("}")
	return b.String()
}

// TestOrdinaryQueriesFit runs with the default limits what users send: the
// README's query, the load test's, a year of days, a whole business and
// GraphiQL's introspection, on every demo; and twenty writes in one request.
func TestOrdinaryQueriesFit(t *testing.T) {
	eachDatabase(t, func(t *testing.T, a *api) {
		for _, k := range []engine.Kind{engine.Gym, engine.Clinic, engine.Office} {
			tok := a.business(string(k), k)
			for name, q := range map[string]string{
				"readme": `{
					business { name kind timeZone revision }
					vocabulary { class { one many } staff { one } }
					days(from: "2026-11-29", to: "2026-12-06") {
						date
						sessions { start end room { name } class { name } series { series { name } week cycleWeeks } cancelled }
					}
					clashes { clashes { message firstDate repeatsEveryWeeks } provenUntil }
				}`,
				"load test week":                       `{ days(from: "2026-12-06", to: "2026-12-13") { date sessions { id start end cancelled room { name } class { name } staff { name } } } }`,
				"a year of days":                       `{ days(from: "2026-06-01", to: "2027-06-01") { date sessions { id start end cancelled note room { name } class { name } staff { name } } } }`,
				"a year of sessions with their series": `{ sessions(from: "2026-06-01", to: "2027-06-01") { id date start end series { series { id } week } } }`,
				"the series with their entries":        `{ allSeries { id name entries { id week classTime { id weekday start end room { name } } class { name staff { name } } } plans { label } } }`,
				"clients with memberships":             `{ clients { nodes { name memberships { series { name } plan { label } startDate endDate } } } }`,
				"GraphiQL's introspection":             introspectionQuery,
			} {
				if r := a.do(tok, q, nil); len(r.Errors) > 0 {
					t.Errorf("%s, %s: %+v", k, name, r.Errors)
				}
			}
		}
		tok := a.token("gym", models.Owner)
		data := a.ok(tok, repeat("mutation {", ` r%d: createRoom(input: {name: "Annex %d"}, dryRun: true) { room { name } }`, "}", graph.DefaultMaxMutations), nil)
		if len(data) != graph.DefaultMaxMutations {
			t.Errorf("got %d answers, want %d", len(data), graph.DefaultMaxMutations)
		}
		a.fails(tok, "QUERY_TOO_COMPLEX", repeat("mutation {", ` r%d: createRoom(input: {name: "Annex %d"}, dryRun: true) { room { name } }`, "}", graph.DefaultMaxMutations+1), nil)
	})
}

// TestCostFollowsTheBusiness: the cost of a query is what the business
// holds. The nested series query a gym cannot answer fits an office, whose
// series have few entries, and its cost is reported.
func TestCostFollowsTheBusiness(t *testing.T) {
	d := modelstest.SQLite(t)
	store := models.NewStore(d.DB, func() time.Time { return now })
	h := (&graph.Resolver{Store: store, Log: slog.New(slog.NewTextHandler(io.Discard, nil)), MaxCost: 1}).Handler()
	a := &api{t: t, db: d, store: store, handler: h, c: client.New(h)}
	gym, office := a.business("gym", engine.Gym), a.business("office", engine.Office)
	q := `{allSeries{entries{series{entries{series{entries{series{name}}}}}}}}`
	cost := func(tok string) float64 {
		c, _ := a.fails(tok, "QUERY_TOO_COMPLEX", q, nil).Extensions["cost"].(float64)
		return c
	}
	g, o := cost(gym), cost(office)
	t.Logf("cost: gym %v, office %v", g, o)
	if g <= graph.DefaultMaxCost || o > graph.DefaultMaxCost || o < 100 {
		t.Errorf("gym %v, office %v: want the gym over %d and the office under it", g, o, graph.DefaultMaxCost)
	}
	// Cost grows with the days asked for.
	day := func(to string) float64 {
		c, _ := a.fails(gym, "QUERY_TOO_COMPLEX", `{ days(from: "2026-12-01", to: "`+to+`") { sessions { id } } }`, nil).Extensions["cost"].(float64)
		return c
	}
	if d1, d7 := day("2026-12-02"), day("2026-12-08"); d7 <= 6*d1 || d7 > 7*d1 {
		t.Errorf("one day costs %v and seven %v", d1, d7)
	}
}

// TestResponseSizeLimit: an answer the cost model lets through but larger
// than the byte limit is replaced by one RESPONSE_TOO_LARGE error, and one
// under it is whole.
func TestResponseSizeLimit(t *testing.T) {
	d := modelstest.SQLite(t)
	store := models.NewStore(d.DB, func() time.Time { return now })
	h := (&graph.Resolver{Store: store, Log: slog.New(slog.NewTextHandler(io.Discard, nil)), MaxResponse: 64 << 10}).Handler()
	a := &api{t: t, db: d, store: store, handler: h, c: client.New(h)}
	tok := a.business("gym", engine.Gym)
	r := a.do(tok, `{ days(from: "2026-06-01", to: "2027-06-01") { date sessions { id start end room { name } } } }`, nil)
	if len(r.Errors) != 1 || r.Errors[0].code() != "RESPONSE_TOO_LARGE" || r.Data != nil {
		t.Errorf("a year of days under 64 KiB: %+v", r.Errors)
	}
	b, _ := json.Marshal(a.ok(tok, `{ days(from: "2026-12-01", to: "2026-12-03") { date sessions { id start end } } }`, nil))
	if len(b) > 64<<10 || len(b) < 100 {
		t.Errorf("two days: %d bytes", len(b))
	}
}

// introspectionQuery is GraphiQL's.
const introspectionQuery = `query IntrospectionQuery {
  __schema {
    queryType { name }
    mutationType { name }
    subscriptionType { name }
    types { ...FullType }
    directives { name description locations args { ...InputValue } }
  }
}
fragment FullType on __Type {
  kind name description
  fields(includeDeprecated: true) { name description args { ...InputValue } type { ...TypeRef } isDeprecated deprecationReason }
  inputFields { ...InputValue }
  interfaces { ...TypeRef }
  enumValues(includeDeprecated: true) { name description isDeprecated deprecationReason }
  possibleTypes { ...TypeRef }
}
fragment InputValue on __InputValue { name description type { ...TypeRef } defaultValue }
fragment TypeRef on __Type {
  kind name
  ofType { kind name ofType { kind name ofType { kind name ofType { kind name ofType { kind name ofType { kind name ofType { kind name } } } } } } }
}`
