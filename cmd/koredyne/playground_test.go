package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"os"
	"regexp"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/99designs/gqlgen/graphql/introspection"

	"github.com/koredyne/schedule/graph"
	"github.com/koredyne/schedule/models/cache"
)

// typicalQuery is what a visitor's first look at the demo asks: the
// business, its rooms and a week of sessions.
const typicalQuery = `{
  business { name kind playground revision }
  rooms { name }
  days(from: "2026-11-30", to: "2026-12-07") { date sessions { start end room { name } class { name } } }
}`

const createRoom = `mutation($name: String!) { createRoom(input: {name: $name, capacity: 4}) { revision } }`

// visitor is a browser: one cookie jar, kept across requests.
type visitor struct {
	t      *testing.T
	url    string
	client *http.Client
}

func newVisitor(t *testing.T, url string) *visitor {
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	return &visitor{t: t, url: url, client: &http.Client{Jar: jar}}
}

// graphql posts a query without a token and returns its data, failing the
// test on any error.
func (v *visitor) graphql(query string, vars map[string]any) map[string]any {
	v.t.Helper()
	body, err := json.Marshal(map[string]any{"query": query, "variables": vars})
	if err != nil {
		v.t.Fatal(err)
	}
	resp, err := v.client.Post(v.url+"/graphql", "application/json", bytes.NewReader(body))
	if err != nil {
		v.t.Fatal(err)
	}
	defer resp.Body.Close()
	if got := resp.Header.Get("X-Koredyne-Playground"); got != "true" {
		v.t.Errorf("X-Koredyne-Playground = %q, want true", got)
	}
	var out struct {
		Data   map[string]any
		Errors []map[string]any
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		v.t.Fatalf("decoding a %d response: %v", resp.StatusCode, err)
	}
	if len(out.Errors) > 0 || resp.StatusCode != http.StatusOK {
		v.t.Fatalf("%s: %d %v", query, resp.StatusCode, out.Errors)
	}
	return out.Data
}

// cookie is the visitor's playground id.
func (v *visitor) cookie() string {
	u, _ := url.Parse(v.url)
	for _, c := range v.client.Jar.Cookies(u) {
		if c.Name == playgroundCookie {
			return c.Value
		}
	}
	return ""
}

// rooms lists the names of the rooms in the visitor's copy.
func (v *visitor) rooms() []string {
	v.t.Helper()
	var names []string
	for _, r := range v.graphql(`{ rooms { name } }`, nil)["rooms"].([]any) {
		names = append(names, r.(map[string]any)["name"].(string))
	}
	return names
}

func (v *visitor) kind() string {
	v.t.Helper()
	return v.graphql(`{ business { kind } }`, nil)["business"].(map[string]any)["kind"].(string)
}

// fakeClock is the playground's clock in tests, moved by hand.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// startPlayground serves a playground on a fake clock, routed as serve
// routes it.
func startPlayground(t *testing.T, idle time.Duration, most int) (*playground, *fakeClock, string) {
	clock := &fakeClock{t: time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)}
	pg := newPlayground(idle, most, clock.now, graph.Resolver{Log: quietLog()})
	mux := http.NewServeMux()
	mux.Handle("/graphql", pg)
	mux.Handle("GET /{$}", pg.Page(graph.Playground("/graphql")))
	srv := httptest.NewServer(mux)
	t.Cleanup(func() {
		srv.Close()
		pg.Close()
	})
	return pg, clock, srv.URL
}

// TestPlaygroundServe runs `koredyne serve --playground` and checks that
// two visitors each get their own copy of the gym demo, that nothing
// reaches the data directory, and that GraphiQL is served.
func TestPlaygroundServe(t *testing.T) {
	data := t.TempDir() + "/data"
	srv := startMain(t, nil, "--playground", "--data", data)
	defer srv.stop()

	alice, bob := newVisitor(t, srv.url), newVisitor(t, srv.url)
	for _, v := range []*visitor{alice, bob} {
		b := v.graphql(typicalQuery, nil)["business"].(map[string]any)
		if b["playground"] != true || b["kind"] != "GYM" {
			t.Fatalf("business = %v, want the gym demo as a playground", b)
		}
	}
	if alice.cookie() == "" || alice.cookie() == bob.cookie() {
		t.Fatalf("cookies %q and %q: want two different ids", alice.cookie(), bob.cookie())
	}

	alice.graphql(createRoom, map[string]any{"name": "Alice's room"})
	if !slices.Contains(alice.rooms(), "Alice's room") {
		t.Errorf("alice's rooms %v lack the room she made", alice.rooms())
	}
	if slices.Contains(bob.rooms(), "Alice's room") {
		t.Errorf("bob's rooms %v hold alice's room", bob.rooms())
	}
	bob.graphql(`mutation { loadDemo(kind: CLINIC) { revision } }`, nil)
	if got := bob.kind(); got != "CLINIC" {
		t.Errorf("bob's business is a %s after loadDemo(CLINIC)", got)
	}
	if got := alice.kind(); got != "GYM" {
		t.Errorf("alice's business is a %s after bob loaded the clinic", got)
	}

	resp, err := alice.client.Get(srv.url + "/")
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") || !bytes.Contains(page, []byte("/graphql")) {
		t.Errorf("GET / = %d %s, want GraphiQL's page posting to /graphql", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	// Its scripts are served here too, without making a copy.
	for _, m := range regexp.MustCompile(`src="(/graphiql/[^"]+)"`).FindAllSubmatch(page, -1) {
		if resp, err := http.Get(srv.url + string(m[1])); err != nil || resp.StatusCode != http.StatusOK {
			t.Errorf("GET %s in the playground: %v %v", m[1], err, resp)
		} else {
			resp.Body.Close()
		}
	}
	// The two copies are counted, and so is the write one made in it.
	resp, err = http.Get(srv.url + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	scraped, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	for _, want := range []string{"koredyne_playground_copies 2\n", `koredyne_writes_total{outcome="committed"}`} {
		if !bytes.Contains(scraped, []byte(want)) {
			t.Errorf("/metrics lacks %q", want)
		}
	}
	if _, err := os.Stat(data); !os.IsNotExist(err) {
		entries, _ := os.ReadDir(data)
		t.Errorf("the data directory exists (%v) with %d entries; the playground must not touch it", err, len(entries))
	}
}

// TestPlaygroundCookie checks the cookie's attributes: the id is for the
// server only, never sent from other sites' forms, and Secure behind TLS.
func TestPlaygroundCookie(t *testing.T) {
	_, _, u := startPlayground(t, time.Hour, 10)
	for _, proto := range []string{"", "https"} {
		req, _ := http.NewRequest("GET", u+"/", nil)
		if proto != "" {
			req.Header.Set("X-Forwarded-Proto", proto)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		cs := resp.Cookies()
		if len(cs) != 1 {
			t.Fatalf("proto %q: cookies %v, want one", proto, cs)
		}
		c := cs[0]
		id, err := decodeID(c.Value)
		if c.Name != playgroundCookie || err != nil || len(id) < 16 || c.Path != "/" || !c.HttpOnly || c.SameSite != http.SameSiteLaxMode || c.MaxAge != 3600 || c.Secure != (proto == "https") {
			t.Errorf("proto %q: cookie %s (id error %v), want a 128-bit id, Path=/, HttpOnly, SameSite=Lax, Max-Age=3600, Secure only behind https", proto, resp.Header.Get("Set-Cookie"), err)
		}
	}
}

func decodeID(id string) ([]byte, error) { return base64.RawURLEncoding.DecodeString(id) }

// TestPlaygroundEviction fills a playground of two copies: a third visitor
// drops the least recently used, where a visit makes a copy recent, and
// the dropped visitor comes back to a fresh demo under a new cookie.
func TestPlaygroundEviction(t *testing.T) {
	pg, clock, u := startPlayground(t, time.Hour, 2)
	alice, bob, carol := newVisitor(t, u), newVisitor(t, u), newVisitor(t, u)

	alice.graphql(createRoom, map[string]any{"name": "Alice's room"})
	clock.advance(time.Minute)
	bob.graphql(createRoom, map[string]any{"name": "Bob's room"})
	clock.advance(time.Minute)
	alice.rooms() // alice is now more recent than bob
	clock.advance(time.Minute)
	bobID := bob.cookie()
	carol.rooms()
	carolID := carol.cookie()

	if got := pg.Copies(); got != 2 {
		t.Fatalf("Copies() = %d, want 2", got)
	}
	clock.advance(time.Minute)
	if rooms := alice.rooms(); !slices.Contains(rooms, "Alice's room") {
		t.Errorf("alice, recently used, lost her copy: rooms %v", rooms)
	}
	clock.advance(time.Minute)
	if rooms := bob.rooms(); slices.Contains(rooms, "Bob's room") {
		t.Errorf("bob, least recently used, kept his copy: rooms %v", rooms)
	}
	if bob.cookie() == bobID {
		t.Errorf("bob came back to a dropped copy and kept its id %q", bobID)
	}
	// Bob's return dropped the least recent again: carol.
	if rooms := alice.rooms(); !slices.Contains(rooms, "Alice's room") {
		t.Errorf("alice lost her copy to bob's return: rooms %v", rooms)
	}
	if carol.rooms(); carol.cookie() == carolID {
		t.Errorf("carol, least recently used when bob came back, kept her copy %q", carolID)
	}
}

// TestPlaygroundIdle drops copies idle too long: by the janitor, and
// lazily when their visitor comes back before it ran.
func TestPlaygroundIdle(t *testing.T) {
	pg, clock, u := startPlayground(t, time.Hour, 10)
	alice, bob := newVisitor(t, u), newVisitor(t, u)
	gymRooms := alice.rooms()
	alice.graphql(createRoom, map[string]any{"name": "Alice's room"})
	bob.graphql(createRoom, map[string]any{"name": "Bob's room"})

	clock.advance(59 * time.Minute)
	pg.dropIdle()
	if got := pg.Copies(); got != 2 {
		t.Fatalf("after 59 minutes Copies() = %d, want 2", got)
	}
	bob.rooms() // bob stays active
	clock.advance(2 * time.Minute)
	pg.dropIdle()
	if got := pg.Copies(); got != 1 {
		t.Fatalf("after alice's 61 idle minutes Copies() = %d, want 1", got)
	}
	aliceID := alice.cookie()
	if rooms := alice.rooms(); !slices.Equal(rooms, gymRooms) {
		t.Errorf("alice's fresh copy has rooms %v, want the gym demo's %v", rooms, gymRooms)
	}
	if alice.cookie() == aliceID || alice.kind() != "GYM" {
		t.Errorf("alice kept id %q or lost the gym demo after her copy was dropped", aliceID)
	}

	clock.advance(61 * time.Minute) // the janitor has not run: the visit drops it
	if rooms := bob.rooms(); slices.Contains(rooms, "Bob's room") {
		t.Errorf("bob's copy, idle 61 minutes, was kept: rooms %v", rooms)
	}
}

// TestPlaygroundMemory measures the memory one copy of the gym demo costs,
// having answered a typical query: the Go heap, and SQLite's pages, which
// modernc.org/sqlite keeps outside the Go heap. Together they must stay
// under 2 MiB, so that 200 copies fit in 400 MiB.
func TestPlaygroundMemory(t *testing.T) {
	n := 50
	if raceDetector {
		n = 10 // it runs ten times slower, and the heap says the same
	}
	for _, visit := range []struct {
		name    string
		queries []string
	}{
		{"typical query", []string{typicalQuery}},
		{"GraphiQL's introspection and the typical query", []string{introspection.Query, typicalQuery}},
	} {
		t.Run(visit.name, func(t *testing.T) {
			pg, _, _ := startPlayground(t, time.Hour, n)
			heap, sqlite, rss := measureCopies(t, pg, n, visit.queries...)
			t.Logf("per copy: Go heap %d KiB, SQLite pages %d KiB (sum %d KiB); process RSS grew %d KiB per copy",
				heap>>10, sqlite>>10, (heap+sqlite)>>10, rss>>10)
			cost := heap + sqlite
			if !raceDetector {
				cost = max(cost, rss)
			}
			if cost > 2<<20 {
				t.Errorf("a playground copy costs %d KiB, want under 2048 KiB", cost>>10)
			}
		})
	}
}

// raceDetector is set when the tests run under the race detector.
var raceDetector bool

// measureCopies adds n copies, each having answered the queries, and
// returns what one costs: its Go heap, its SQLite pages, and the growth of
// the process's resident memory (0 where /proc is missing).
func measureCopies(t testing.TB, pg *playground, n int, queries ...string) (heap, sqlite, rss int64) {
	before, rssBefore := heapInUse(), residentBytes()
	var last *demoCopy
	for range n {
		c, err := pg.create(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		for _, q := range queries {
			ask(t, c, q)
		}
		last = c
	}
	after, rssAfter := heapInUse(), residentBytes()
	var pages, size int64
	if err := last.db.QueryRow("PRAGMA page_count").Scan(&pages); err != nil {
		t.Fatal(err)
	}
	if err := last.db.QueryRow("PRAGMA page_size").Scan(&size); err != nil {
		t.Fatal(err)
	}
	return (after - before) / int64(n), pages * size, (rssAfter - rssBefore) / int64(n)
}

// ask answers a query from a copy as its visitor would, without HTTP.
func ask(t testing.TB, c *demoCopy, query string) {
	body, _ := json.Marshal(map[string]any{"query": query})
	req := httptest.NewRequest("POST", "/graphql", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	c.graphql.ServeHTTP(rec, req)
	if rec.Code != http.StatusOK || bytes.Contains(rec.Body.Bytes(), []byte(`"errors"`)) {
		t.Fatalf("a query answered %d: %.300s", rec.Code, rec.Body.String())
	}
}

func heapInUse() int64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
}

// residentBytes reads the process's resident memory from /proc, after
// handing what the Go heap no longer uses back to the system.
func residentBytes() int64 {
	debug.FreeOSMemory()
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b))
	if len(f) < 2 {
		return 0
	}
	pages, _ := strconv.ParseInt(f[1], 10, 64)
	return pages * int64(os.Getpagesize())
}

// BenchmarkPlaygroundCopy makes copies of the gym demo, each answering the
// typical query, and reports the Go heap each one keeps (bytes/copy) as
// well as what making one allocates (B/op).
func BenchmarkPlaygroundCopy(b *testing.B) {
	pg := newPlayground(time.Hour, b.N+1, time.Now, graph.Resolver{Log: quietLog()})
	defer pg.Close()
	b.ReportAllocs()
	b.ResetTimer()
	heap, sqlite, _ := measureCopies(b, pg, b.N, typicalQuery)
	b.ReportMetric(float64(heap), "heap-bytes/copy")
	b.ReportMetric(float64(sqlite), "sqlite-bytes/copy")
}

func quietLog() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// TestPlaygroundSecretURLs checks that a playground hands out no feed or
// timetable URL (nothing outside the API could find a copy kept behind a
// cookie): the fields are null, their descriptions say why, and rotating a
// secret is refused with NOT_SERVED, writing nothing.
func TestPlaygroundSecretURLs(t *testing.T) {
	_, _, url := startPlayground(t, time.Hour, 10)
	v := newVisitor(t, url)
	data := v.graphql(`{ business { playground feedUrl timetableUrl } rooms { feedUrl } staff { feedUrl }
		type: __type(name: "Business") { fields { name description } } }`, nil)
	b := data["business"].(map[string]any)
	if b["playground"] != true || b["feedUrl"] != nil || b["timetableUrl"] != nil {
		t.Errorf("business = %v, want a playground with null feedUrl and timetableUrl", b)
	}
	for _, list := range []string{"rooms", "staff"} {
		for _, x := range data[list].([]any) {
			if u := x.(map[string]any)["feedUrl"]; u != nil {
				t.Errorf("a playground's %s hand out feedUrl %v, want null", list, u)
			}
		}
	}
	for _, f := range data["type"].(map[string]any)["fields"].([]any) {
		f := f.(map[string]any)
		if (f["name"] == "feedUrl" || f["name"] == "timetableUrl") && !strings.Contains(f["description"].(string), "Null on a playground") {
			t.Errorf("Business.%s's description %q does not say it is null on a playground", f["name"], f["description"])
		}
	}

	for _, m := range []string{`mutation { rotateTimetableToken { url } }`, `mutation { rotateFeedToken(calendar: {}) { url } }`} {
		body, _ := json.Marshal(map[string]any{"query": m})
		resp, err := v.client.Post(url+"/graphql", "application/json", bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		var out struct {
			Data   map[string]any
			Errors []struct {
				Message    string
				Extensions map[string]any
			}
		}
		err = json.NewDecoder(resp.Body).Decode(&out)
		resp.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		if len(out.Errors) != 1 || out.Errors[0].Extensions["code"] != "NOT_SERVED" || !strings.Contains(out.Errors[0].Message, "playground") {
			t.Errorf("%s = %+v, want one NOT_SERVED error about the playground", m, out.Errors)
		}
	}
	if b := v.graphql(`{ business { timetableUrl } }`, nil)["business"].(map[string]any); b["timetableUrl"] != nil {
		t.Errorf("after the refused rotations timetableUrl = %v, want null", b["timetableUrl"])
	}
}

// TestPlaygroundCopiesShareTheBudget: every copy's caches draw on the
// playground's one budget (serve's --cache-mb), so many copies hold no more
// than it, however many there are; a budget too small for two copies'
// snapshots keeps the most recent one and every copy still answers.
func TestPlaygroundCopiesShareTheBudget(t *testing.T) {
	pg, _, u := startPlayground(t, time.Hour, 10)
	visitors := make([]*visitor, 4)
	for i := range visitors {
		visitors[i] = newVisitor(t, u)
		visitors[i].rooms()
	}
	pg.mu.Lock()
	for _, c := range pg.copies {
		if c.store.Budget() != pg.budget {
			t.Errorf("copy %s has a budget of its own", c.id)
		}
	}
	pg.mu.Unlock()
	all := pg.budget.Held("")
	if all == 0 || pg.budget.Held("snapshots") == 0 {
		t.Fatalf("the shared budget holds %d bytes, %d of snapshots; want the copies' caches in it", all, pg.budget.Held("snapshots"))
	}

	small, _, u := startPlayground(t, time.Hour, 10)
	small.budget = cache.NewBudget(all / 4 * 3 / int64(len(visitors))) // less than two copies' worth
	for i := range visitors {
		visitors[i] = newVisitor(t, u)
		if rooms := visitors[i].rooms(); len(rooms) == 0 {
			t.Fatalf("visitor %d sees no rooms", i)
		}
		if held := small.budget.Held(""); held > small.budget.Limit() {
			t.Fatalf("after %d copies the budget holds %d bytes, over its %d", i+1, held, small.budget.Limit())
		}
	}
	for i, v := range visitors {
		if rooms := v.rooms(); len(rooms) == 0 {
			t.Errorf("visitor %d sees no rooms once the budget is full", i)
		}
	}
}
