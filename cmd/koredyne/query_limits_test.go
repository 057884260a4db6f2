package main

import (
	"encoding/json"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestServeRefusesHeavyQueries sends, to a server on the default settings
// over real HTTP, the queries that took servers down: series and entries
// nested to depth 8 and 12 (a few levels past what the demo can answer),
// 3,000 aliases of one field and 2,000 aliased
// createRoom. Each is QUERY_TOO_COMPLEX within milliseconds, the server's
// heap does not grow, and nothing is written.
func TestServeRefusesHeavyQueries(t *testing.T) {
	s, _ := startLogged(t, nil)
	bearer := []string{"Authorization", "Bearer " + bootstrapToken, "Content-Type", "application/json"}
	post := func(query string) (int, string) {
		b, _ := json.Marshal(map[string]any{"query": query})
		resp, body := hit(t, "POST", s.url+"/graphql", string(b), bearer...)
		return resp.StatusCode, body
	}
	many := func(prefix, sel, suffix string, n int) string {
		var b strings.Builder
		b.WriteString(prefix)
		for i := range n {
			b.WriteString(strings.ReplaceAll(sel, "#", strconv.Itoa(i)))
		}
		return b.String() + suffix
	}
	_, before := post(`{ business { revision } rooms { name } }`)

	var m1, m2 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m1)
	for _, q := range []string{
		`{allSeries{entries{series{entries{series{entries{series{name}}}}}}}}`,
		`{allSeries{entries{series{entries{series{entries{series{entries{series{entries{series{name}}}}}}}}}}}}`,
		many("{", " a#: business { name }", "}", 3000),
		many("mutation {", ` r#: createRoom(input: {name: "Room #"}) { room { id } }`, "}", 2000),
	} {
		start := time.Now()
		status, body := post(q)
		took := time.Since(start)
		if status != 200 || gqlCode(t, body) != "QUERY_TOO_COMPLEX" {
			t.Errorf("%.40s…: %d %.300s", q, status, body)
		}
		t.Logf("%.40s… refused in %v", q, took)
		if took > 500*time.Millisecond {
			t.Errorf("%.40s…: refused after %v", q, took)
		}
	}
	runtime.GC()
	runtime.ReadMemStats(&m2)
	t.Logf("heap in use: %.1f MiB before, %.1f MiB after", float64(m1.HeapInuse)/(1<<20), float64(m2.HeapInuse)/(1<<20))
	if m2.HeapInuse > m1.HeapInuse+32<<20 {
		t.Errorf("the heap grew from %d to %d bytes", m1.HeapInuse, m2.HeapInuse)
	}
	if _, after := post(`{ business { revision } rooms { name } }`); after != before {
		t.Errorf("refused requests changed the business: %s, then %s", before, after)
	}
}

// TestServeQueryLimitFlags: the limits follow their flags.
func TestServeQueryLimitFlags(t *testing.T) {
	s, _ := startLogged(t, map[string]string{"KOREDYNE_MAX_COST": "1000"}, "--max-aliases", "2", "--max-mutations", "1")
	bearer := []string{"Authorization", "Bearer " + bootstrapToken, "Content-Type", "application/json"}
	for query, want := range map[string]string{
		`{ a: business { name } b: business { name } }`:                                     "",
		`{ a: business { name } b: business { name } c: business { name } }`:                "QUERY_TOO_COMPLEX",
		`{ days(from: \"2026-12-01\", to: \"2027-06-01\") { sessions { id } } }`:            "QUERY_TOO_COMPLEX",
		`mutation { a: rotateTimetableToken { url } b: rotateTimetableToken { url } }`:      "QUERY_TOO_COMPLEX",
		`mutation { createRoom(input: {name: \"Annex\"}, dryRun: true) { room { name } } }`: "",
	} {
		resp, body := hit(t, "POST", s.url+"/graphql", `{"query":"`+query+`"}`, bearer...)
		if got := gqlCode(t, body); resp.StatusCode != 200 || got != want {
			t.Errorf("%s: %d %s", query, resp.StatusCode, body)
		}
	}
}
