package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"net"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/koredyne/schedule/graph/graphiql"
)

// syncBuffer is a log that the server writes while the test reads it.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// lines decodes the JSON log written so far, one record a line.
func (b *syncBuffer) lines(t *testing.T) []map[string]any {
	t.Helper()
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []map[string]any
	sc := bufio.NewScanner(bytes.NewReader(b.buf.Bytes()))
	for sc.Scan() {
		var rec map[string]any
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			t.Fatalf("a log line is not JSON: %q: %v", sc.Text(), err)
		}
		out = append(out, rec)
	}
	return out
}

// startLogged runs Main serve on a fresh SQLite database with JSON logs into
// the returned buffer.
func startLogged(t *testing.T, env map[string]string, args ...string) (*server, *syncBuffer) {
	t.Helper()
	logs := &syncBuffer{}
	full := map[string]string{"KOREDYNE_BOOTSTRAP_TOKEN": bootstrapToken, "KOREDYNE_LOG_FORMAT": "json"}
	for k, v := range env {
		full[k] = v
	}
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan int, 1)
	go func() {
		done <- Main(ctx, append([]string{"serve", "--addr", "127.0.0.1:0", "--data", t.TempDir()}, args...),
			func(k string) string { return full[k] }, pw, logs)
		pw.Close()
	}()
	u := waitListening(t, pr)
	s := &server{url: u, stop: func() {
		cancel()
		if code := <-done; code != 0 {
			t.Errorf("serve exited with %d", code)
		}
	}}
	t.Cleanup(s.stop)
	return s, logs
}

// hit makes a request with a body and headers (name, value, …) and
// returns the response and its body.
func hit(t *testing.T, method, url, body string, headers ...string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, string(b)
}

// scrape reads /metrics into a map from "name{labels}" to value.
func scrape(t *testing.T, s *server) map[string]float64 {
	t.Helper()
	resp, body := hit(t, "GET", s.url+"/metrics", "")
	if resp.StatusCode != 200 {
		t.Fatalf("/metrics: %d", resp.StatusCode)
	}
	out := map[string]float64{}
	for line := range strings.Lines(body) {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		v, err := strconv.ParseFloat(line[i+1:], 64)
		if err != nil {
			t.Fatalf("a metrics line without a value: %q", line)
		}
		out[line[:i]] = v
	}
	return out
}

const monthReport = `<?xml version="1.0" encoding="utf-8"?>
<C:calendar-query xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav">
 <D:prop><D:getetag/></D:prop>
 <C:filter><C:comp-filter name="VCALENDAR"><C:comp-filter name="VEVENT">
  <C:time-range start="20261129T000000Z" end="20261227T000000Z"/>
 </C:comp-filter></C:comp-filter></C:filter>
</C:calendar-query>`

// TestProductionMetrics scrapes /metrics after a named query (twice, the
// second from the cache), a CalDAV PROPFIND and REPORT, a committed write
// and a dry run, and finds each counted.
func TestProductionMetrics(t *testing.T) {
	s, _ := startLogged(t, nil)
	bearer := []string{"Authorization", "Bearer " + bootstrapToken, "Content-Type", "application/json"}
	week := `{"query":"query Week { days(from: \"2026-11-30\", to: \"2026-12-07\") { date sessions { start } } }","operationName":"Week"}`
	for range 2 {
		if resp, body := hit(t, "POST", s.url+"/graphql", week, bearer...); resp.StatusCode != 200 || strings.Contains(body, `"errors"`) {
			t.Fatalf("week query: %d %s", resp.StatusCode, body)
		}
	}
	hit(t, "POST", s.url+"/graphql", `{"query":"{ nosuchfield }"}`, bearer...)
	write := `{"query":"mutation Close($dry: Boolean) { createClosure(input: {from: \"2090-01-01\", to: \"2090-01-02\", reason: \"metrics\"}, dryRun: $dry) { revision } }","variables":{"dry":%v}}`
	for _, dry := range []bool{true, false} {
		if resp, body := hit(t, "POST", s.url+"/graphql", fmt.Sprintf(write, dry), bearer...); resp.StatusCode != 200 || strings.Contains(body, `"errors"`) {
			t.Fatalf("closure (dry run %v): %d %s", dry, resp.StatusCode, body)
		}
	}
	basic := func(req ...string) []string {
		return append([]string{"Authorization", "Basic " + basicAuth("demo", bootstrapToken), "Content-Type", "application/xml"}, req...)
	}
	if resp, body := hit(t, "PROPFIND", s.url+"/caldav/demo/calendars/", `<D:propfind xmlns:D="DAV:"><D:prop><D:resourcetype/></D:prop></D:propfind>`, basic("Depth", "1")...); resp.StatusCode != 207 {
		t.Fatalf("PROPFIND: %d %s", resp.StatusCode, body)
	}
	if resp, body := hit(t, "REPORT", s.url+"/caldav/demo/calendars/all/", monthReport, basic("Depth", "1")...); resp.StatusCode != 207 {
		t.Fatalf("REPORT: %d %s", resp.StatusCode, body)
	}

	got := scrape(t, s)
	for key, want := range map[string]float64{
		`koredyne_graphql_requests_total{operation="Week",outcome="ok"}`:                             2,
		`koredyne_graphql_requests_total{operation="anonymous",outcome="GRAPHQL_VALIDATION_FAILED"}`: 1,
		`koredyne_graphql_requests_total{operation="Close",outcome="ok"}`:                            2,
		`koredyne_graphql_duration_seconds_count{operation="Week"}`:                                  2,
		`koredyne_response_cache_total{result="hit"}`:                                                1,
		`koredyne_response_cache_total{result="miss"}`:                                               1,
		`koredyne_writes_total{outcome="committed"}`:                                                 2, // the demo seeded at start, and the closure
		`koredyne_writes_total{outcome="dry_run"}`:                                                   1,
		`koredyne_writes_total{outcome="clash"}`:                                                     0,
		`koredyne_caldav_requests_total{method="PROPFIND",status="207"}`:                             1,
		`koredyne_caldav_requests_total{method="REPORT",status="207"}`:                               1,
		`koredyne_caldav_duration_seconds_count{method="REPORT"}`:                                    1,
		`koredyne_playground_copies`:                                                                 0,
		`koredyne_subscriptions`:                                                                     0,
		`koredyne_writes_held_total`:                                                                 0, // paced as a desk writes
	} {
		if v, ok := got[key]; !ok || v != want {
			t.Errorf("%s: got %v (present %v), want %v", key, v, ok, want)
		}
	}
	// The memory budget: the week's answer is held, the snapshot was found
	// (the second week, the REPORT), nothing was evicted from 256 MiB.
	if got[`koredyne_cache_bytes{cache="responses"}`] == 0 || got[`koredyne_cache_bytes{cache="snapshots"}`] == 0 ||
		got[`koredyne_cache_bytes{cache="calendars"}`] == 0 || got[`koredyne_cache_budget_bytes`] != 256<<20 {
		t.Errorf("cache bytes: responses %v, snapshots %v, calendars %v of %v", got[`koredyne_cache_bytes{cache="responses"}`],
			got[`koredyne_cache_bytes{cache="snapshots"}`], got[`koredyne_cache_bytes{cache="calendars"}`], got[`koredyne_cache_budget_bytes`])
	}
	if got[`koredyne_cache_lookups_total{cache="snapshots",result="hit"}`] == 0 || got[`koredyne_cache_evictions_total{cache="snapshots"}`] != 0 {
		t.Errorf("snapshot lookups: %v hits, %v evictions", got[`koredyne_cache_lookups_total{cache="snapshots",result="hit"}`], got[`koredyne_cache_evictions_total{cache="snapshots"}`])
	}
	if got["go_goroutines"] == 0 || got["process_resident_memory_bytes"] == 0 {
		t.Errorf("no Go or process metrics: goroutines %v, memory %v", got["go_goroutines"], got["process_resident_memory_bytes"])
	}
}

func basicAuth(user, password string) string {
	req, _ := http.NewRequest("GET", "/", nil)
	req.SetBasicAuth(user, password)
	return strings.TrimPrefix(req.Header.Get("Authorization"), "Basic ")
}

// TestProductionRequestLog checks the JSON access log: one line per
// request with the request id (the client's when sane, else a new one,
// echoed either way), no query string, and a feed's secret token masked.
func TestProductionRequestLog(t *testing.T) {
	s, logs := startLogged(t, nil)
	resp, _ := hit(t, "GET", s.url+"/healthz?probe=lb", "", "X-Request-Id", "lb-check.42")
	if got := resp.Header.Get("X-Request-Id"); got != "lb-check.42" {
		t.Errorf("a sane request id came back as %q", got)
	}
	resp, _ = hit(t, "GET", s.url+"/ics/kdf_secretfeedtoken.ics", "", "X-Request-Id", "no spaces <allowed>")
	fresh := resp.Header.Get("X-Request-Id")
	if fresh == "" || fresh == "no spaces <allowed>" || !saneRequestID.MatchString(fresh) {
		t.Errorf("an insane request id came back as %q", fresh)
	}
	resp, _ = hit(t, "POST", s.url+"/graphql", `{"query":"{ business { slug } }"}`, "Authorization", "Bearer nonsense", "X-Request-Id", "bad-token")

	deadline := time.Now().Add(5 * time.Second)
	var access map[string]map[string]any
	for {
		access = map[string]map[string]any{}
		for _, rec := range logs.lines(t) {
			if rec["msg"] == "request" {
				access[fmt.Sprint(rec["request_id"])] = rec
			}
		}
		if len(access) >= 3 || time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	want := map[string]map[string]any{
		"lb-check.42": {"method": "GET", "path": "/healthz", "status": 200.0, "bytes": 3.0},
		fresh:         {"method": "GET", "path": "/ics/….ics", "status": 404.0},
		"bad-token":   {"method": "POST", "path": "/graphql", "status": 401.0},
	}
	for id, fields := range want {
		rec, ok := access[id]
		if !ok {
			t.Errorf("no access line for request %q; lines: %v", id, access)
			continue
		}
		for k, v := range fields {
			if rec[k] != v {
				t.Errorf("request %q: %s is %v, want %v", id, k, rec[k], v)
			}
		}
		if d, ok := rec["duration_ms"].(float64); !ok || d < 0 {
			t.Errorf("request %q: duration_ms %v", id, rec["duration_ms"])
		}
	}
	logs.mu.Lock()
	all := logs.buf.String()
	logs.mu.Unlock()
	if strings.Contains(all, "secretfeedtoken") || strings.Contains(all, "probe=lb") {
		t.Errorf("the log holds a secret or a query string:\n%s", all)
	}
}

// TestProductionLimits sends a body over --max-body, a query deeper than
// --max-depth and more requests than --rate-burst allows.
func TestProductionLimits(t *testing.T) {
	s, _ := startLogged(t, nil, "--max-body", "2048", "--max-depth", "3", "--rate-limit", "1", "--rate-burst", "4")
	bearer := []string{"Authorization", "Bearer " + bootstrapToken, "Content-Type", "application/json"}

	big := `{"query":"{ business { slug } }","variables":{"pad":"` + strings.Repeat("x", 4096) + `"}}`
	resp, body := hit(t, "POST", s.url+"/graphql", big, bearer...)
	if resp.StatusCode != http.StatusRequestEntityTooLarge || gqlCode(t, body) != "REQUEST_TOO_LARGE" {
		t.Errorf("a body over the limit: %d %s", resp.StatusCode, body)
	}
	deep := `{"query":"{ days(from: \"2026-12-01\", to: \"2026-12-02\") { sessions { class { name } } } }"}`
	resp, body = hit(t, "POST", s.url+"/graphql", deep, bearer...)
	if gqlCode(t, body) != "QUERY_TOO_DEEP" {
		t.Errorf("a query 4 deep with a limit of 3: %d %s", resp.StatusCode, body)
	}
	// Two requests of the burst are spent; two more pass, then 429.
	for i := range 2 {
		if resp, body := hit(t, "POST", s.url+"/graphql", `{"query":"{ business { slug } }"}`, bearer...); resp.StatusCode != 200 {
			t.Fatalf("request %d within the burst: %d %s", i+3, resp.StatusCode, body)
		}
	}
	// The bucket refills a unit a second: on a loaded machine a request
	// may come back after one did, so a few more may pass before the 429.
	for range 20 {
		resp, body = hit(t, "POST", s.url+"/graphql", `{"query":"{ business { slug } }"}`, bearer...)
		if resp.StatusCode != http.StatusOK {
			break
		}
	}
	if resp.StatusCode != http.StatusTooManyRequests || gqlCode(t, body) != "RATE_LIMITED" {
		t.Fatalf("over the burst: %d %s", resp.StatusCode, body)
	}
	if n, err := strconv.Atoi(resp.Header.Get("Retry-After")); err != nil || n < 1 {
		t.Errorf("Retry-After %q", resp.Header.Get("Retry-After"))
	}
	// Another caller, and the balancer's health checks, are not limited.
	if resp, _ := hit(t, "GET", s.url+"/caldav/", "", "Authorization", "Basic "+basicAuth("demo", bootstrapToken)); resp.StatusCode == http.StatusTooManyRequests {
		t.Error("a calendar app was limited for another token's requests")
	}
	for range 6 {
		if resp, _ := hit(t, "GET", s.url+"/healthz", ""); resp.StatusCode != 200 {
			t.Fatalf("/healthz: %d", resp.StatusCode)
		}
	}
}

func gqlCode(t *testing.T, body string) string {
	t.Helper()
	var out struct {
		Errors []struct {
			Extensions struct{ Code string }
		}
	}
	if err := json.Unmarshal([]byte(body), &out); err != nil || len(out.Errors) == 0 {
		return ""
	}
	return out.Errors[0].Extensions.Code
}

// TestProductionCORS sends preflights and requests from an allowed origin
// and from another one, and checks GraphiQL's security headers.
func TestProductionCORS(t *testing.T) {
	const desk = "https://desk.example.com"
	s, _ := startLogged(t, nil, "--allowed-origins", desk+",https://other.example.com")
	preflight := func(origin string) *http.Response {
		resp, _ := hit(t, "OPTIONS", s.url+"/graphql", "", "Origin", origin,
			"Access-Control-Request-Method", "POST", "Access-Control-Request-Headers", "authorization,content-type")
		return resp
	}
	resp := preflight(desk)
	for name, want := range map[string]string{
		"Access-Control-Allow-Origin":  desk,
		"Access-Control-Allow-Methods": "GET, POST, OPTIONS",
		"Access-Control-Allow-Headers": "Authorization, Content-Type, Koredyne-Revision",
		"Access-Control-Max-Age":       corsMaxAge,
		"Allow":                        "GET, POST, OPTIONS",
	} {
		if got := resp.Header.Get(name); got != want {
			t.Errorf("preflight from %s: %s is %q, want %q", desk, name, got, want)
		}
	}
	// Beside Accept-Encoding, which the compression lists on every answer.
	if vary := resp.Header.Values("Vary"); !slices.Contains(vary, "Origin") {
		t.Errorf("preflight from %s: Vary is %q, want Origin listed", desk, vary)
	}
	if resp.StatusCode != http.StatusNoContent {
		t.Errorf("preflight: %d", resp.StatusCode)
	}
	resp = preflight("https://evil.example.com")
	for name := range resp.Header {
		if strings.HasPrefix(name, "Access-Control-") {
			t.Errorf("preflight from another origin got %s: %q", name, resp.Header.Get(name))
		}
	}
	resp, _ = hit(t, "POST", s.url+"/graphql", `{"query":"{ business { slug } }"}`, "Origin", desk,
		"Authorization", "Bearer "+bootstrapToken, "Content-Type", "application/json")
	if resp.StatusCode != 200 || resp.Header.Get("Access-Control-Allow-Origin") != desk ||
		resp.Header.Get("Access-Control-Expose-Headers") != "Koredyne-Revision" || resp.Header.Get("Koredyne-Revision") != "1" {
		t.Errorf("a request from %s: %d, Allow-Origin %q, Expose-Headers %q, Koredyne-Revision %q", desk, resp.StatusCode,
			resp.Header.Get("Access-Control-Allow-Origin"), resp.Header.Get("Access-Control-Expose-Headers"), resp.Header.Get("Koredyne-Revision"))
	}

	resp, page := hit(t, "GET", s.url+"/", "")
	for name, want := range map[string]string{
		"Content-Security-Policy": graphiQLPolicy,
		"X-Frame-Options":         "DENY",
		"X-Content-Type-Options":  "nosniff",
		"Referrer-Policy":         "no-referrer",
	} {
		if got := resp.Header.Get(name); got != want {
			t.Errorf("GraphiQL: %s is %q, want %q", name, got, want)
		}
	}
	// Every script and stylesheet GraphiQL loads comes from this server
	// (the policy allows nothing else), under its content hash, cached
	// for a year, and matches the integrity the page gives it.
	loads := regexp.MustCompile(`(?:src|href)="([^"]*)" integrity="sha256-([^"]*)"`).FindAllStringSubmatch(page, -1)
	if len(loads) != 6 || strings.Count(page, `src="`)+strings.Count(page, `href="`) != len(loads) {
		t.Errorf("GraphiQL's page loads %d files with integrity, want 6, all of them:\n%s", len(loads), page)
	}
	for _, m := range loads {
		if !strings.HasPrefix(m[1], graphiql.Prefix) {
			t.Errorf("GraphiQL loads %s, which is not this server's", m[1])
			continue
		}
		resp, body := hit(t, "GET", s.url+m[1], "")
		sum := sha256.Sum256([]byte(body))
		if resp.StatusCode != 200 || base64.StdEncoding.EncodeToString(sum[:]) != html.UnescapeString(m[2]) ||
			resp.Header.Get("Cache-Control") != "public, max-age=31536000, immutable" {
			t.Errorf("GET %s: %d, Cache-Control %q, sha256 %x, want 200, a year, integrity %s",
				m[1], resp.StatusCode, resp.Header.Get("Cache-Control"), sum, m[2])
		}
	}
	if strings.Contains(page, "<script>") || strings.Contains(page, "<style>") {
		t.Errorf("GraphiQL's page holds an inline script or style; its policy allows neither")
	}
}

// TestProductionLongLivedStreams runs a server with a write timeout far
// shorter than an event stream and checks the stream outlives it, while a
// plain request that takes as long is cut.
func TestProductionLongLivedStreams(t *testing.T) {
	stream := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for i := range 4 {
			fmt.Fprintf(w, "data: %d\n\n", i)
			w.(http.Flusher).Flush()
			time.Sleep(150 * time.Millisecond)
		}
	})
	c := &Config{MaxBody: 1 << 20}
	srv := &http.Server{Handler: c.handler(c.logger(io.Discard), nil, stream), WriteTimeout: 200 * time.Millisecond, ReadTimeout: 200 * time.Millisecond}
	ln := listenLoopback(t)
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })

	read := func(accept string) string {
		req, _ := http.NewRequest("GET", "http://"+ln.Addr().String()+"/", nil)
		req.Header.Set("Accept", accept)
		resp, err := (&http.Client{Transport: &http.Transport{}}).Do(req)
		if err != nil {
			return err.Error()
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return string(b)
	}
	if got, want := read("text/event-stream"), "data: 0\n\ndata: 1\n\ndata: 2\n\ndata: 3\n\n"; got != want {
		t.Errorf("the event stream: got %q, want %q", got, want)
	}
	if got := read("text/plain"); strings.Contains(got, "data: 3") {
		t.Errorf("a plain request outlived the write timeout: %q", got)
	}
}

func listenLoopback(t *testing.T) net.Listener {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	return ln
}
