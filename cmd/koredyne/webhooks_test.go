package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/koredyne/schedule/models"
	"github.com/koredyne/schedule/models/modelstest"
	"github.com/koredyne/schedule/models/modelstest/need"
)

// verifier checks signatures with the Standard Webhooks specification's
// own JavaScript library (testdata/webhooks/verify.mjs), not our code.
type verifier struct {
	mu  sync.Mutex
	in  io.Writer
	out *bufio.Scanner
}

func startVerifier(t *testing.T) *verifier {
	t.Helper()
	dir := filepath.Join("testdata", "webhooks")
	node, err := exec.LookPath("node")
	if _, serr := os.Stat(filepath.Join(dir, "node_modules", "standardwebhooks")); err != nil || serr != nil {
		need.Missing(t, "node's standardwebhooks", "Node.js and npm ci in cmd/koredyne/testdata/webhooks")
	}
	cmd := exec.Command(node, "verify.mjs")
	cmd.Dir = dir
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { in.Close(); cmd.Wait() })
	return &verifier{in: in, out: bufio.NewScanner(out)}
}

// verify checks one request as the receiver got it.
func (v *verifier) verify(secret string, h http.Header, body []byte) error {
	v.mu.Lock()
	defer v.mu.Unlock()
	line, _ := json.Marshal(map[string]any{"secret": secret, "body": string(body), "headers": map[string]string{
		"webhook-id": h.Get("webhook-id"), "webhook-timestamp": h.Get("webhook-timestamp"), "webhook-signature": h.Get("webhook-signature")}})
	if _, err := v.in.Write(append(line, '\n')); err != nil {
		return err
	}
	if !v.out.Scan() {
		return fmt.Errorf("the verifier stopped: %v", v.out.Err())
	}
	var answer struct {
		OK    bool
		Error string
	}
	json.Unmarshal(v.out.Bytes(), &answer)
	if !answer.OK {
		return fmt.Errorf("standardwebhooks: %s", answer.Error)
	}
	return nil
}

// chaos is a webhook receiver on loopback that misbehaves: it answers 500
// at random, closes connections at random, answers slowly, and can be
// down for a while. Every request it gets is verified as it arrives.
type chaos struct {
	t      *testing.T
	v      *verifier
	addr   string
	mu     sync.Mutex
	srv    *http.Server
	secret string
	failP  float64 // chance of a 500
	closeP float64 // chance of a closed connection
	delay  time.Duration
	bodies map[string][]string // every body received, by event id
	bad    []string            // signatures that did not verify
}

func newChaos(t *testing.T, v *verifier) *chaos {
	c := &chaos{t: t, v: v, bodies: map[string][]string{}}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	c.addr = ln.Addr().String()
	c.serve(ln)
	t.Cleanup(func() { c.down() })
	return c
}

func (c *chaos) serve(ln net.Listener) {
	srv := &http.Server{Handler: http.HandlerFunc(c.handle)}
	c.mu.Lock()
	c.srv = srv
	c.mu.Unlock()
	go srv.Serve(ln)
}

// down closes the receiver: attempts meet a refused connection.
func (c *chaos) down() {
	c.mu.Lock()
	srv := c.srv
	c.srv = nil
	c.mu.Unlock()
	if srv != nil {
		srv.Close()
	}
}

// up listens again on the same address.
func (c *chaos) up() {
	ln, err := net.Listen("tcp", c.addr)
	if err != nil {
		c.t.Fatal(err)
	}
	c.serve(ln)
}

func (c *chaos) handle(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	c.mu.Lock()
	secret, failP, closeP, delay := c.secret, c.failP, c.closeP, c.delay
	c.mu.Unlock()
	if err := c.v.verify(secret, r.Header, body); err != nil {
		c.mu.Lock()
		c.bad = append(c.bad, r.Header.Get("webhook-id")+": "+err.Error())
		c.mu.Unlock()
	}
	c.mu.Lock()
	id := r.Header.Get("webhook-id")
	c.bodies[id] = append(c.bodies[id], string(body))
	c.mu.Unlock()
	time.Sleep(delay)
	switch p := rand.Float64(); {
	case p < closeP:
		conn, _, _ := w.(http.Hijacker).Hijack()
		conn.Close()
	case p < closeP+failP:
		w.WriteHeader(http.StatusInternalServerError)
	default:
		w.WriteHeader(http.StatusNoContent)
	}
}

func (c *chaos) set(fn func(c *chaos)) {
	c.mu.Lock()
	defer c.mu.Unlock()
	fn(c)
}

func (c *chaos) received() map[string][]string {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make(map[string][]string, len(c.bodies))
	for k, v := range c.bodies {
		out[k] = slices.Clone(v)
	}
	return out
}

// hookProcess is a `koredyne serve` of its own, which a test can kill -9.
type hookProcess struct {
	cmd *exec.Cmd
	url string
}

func startServe(t *testing.T, bin string, env []string, args ...string) *hookProcess {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"serve", "--addr", "127.0.0.1:0", "--rate-limit", "0", "--db-conns", "6",
		"--webhook-allow-private", "--webhook-lease", "2s"}, args...)...)
	cmd.Env = append(append(os.Environ(), "KOREDYNE_BOOTSTRAP_TOKEN="+bootstrapToken), env...)
	stdout, _ := cmd.StdoutPipe()
	cmd.Stderr = io.Discard
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &hookProcess{cmd: cmd}
	t.Cleanup(func() {
		cmd.Process.Signal(os.Interrupt)
		cmd.Wait()
	})
	p.url = waitListening(t, stdout)
	return p
}

// kill ends the process with SIGKILL: no shutdown, no release of leases.
func (p *hookProcess) kill() {
	p.cmd.Process.Kill()
	p.cmd.Wait()
}

// hookGQL sends a GraphQL request that must succeed.
func hookGQL(t *testing.T, url, token, query string, vars map[string]any) map[string]any {
	t.Helper()
	data, errs := post(t, url, token, query, vars)
	if len(errs) > 0 {
		t.Fatalf("%s: %v", strings.SplitN(query, "\n", 2)[0], errs)
	}
	return data
}

// sessionsAhead lists the ids of next week's sessions that are on.
func sessionsAhead(t *testing.T, url string) []string {
	from := time.Now().AddDate(0, 0, 7).Format("2006-01-02")
	to := time.Now().AddDate(0, 0, 14).Format("2006-01-02")
	data := hookGQL(t, url, bootstrapToken, `query($from: Date!, $to: Date!) { days(from: $from, to: $to) { sessions { id cancelled } } }`,
		map[string]any{"from": from, "to": to})
	var out []string
	for _, d := range data["days"].([]any) {
		for _, s := range d.(map[string]any)["sessions"].([]any) {
			if s := s.(map[string]any); s["cancelled"] == false && strings.HasPrefix(s["id"].(string), "s/") {
				out = append(out, s["id"].(string))
			}
		}
	}
	return out
}

// outboxSince reads the business's events written after the event with
// id after, as the database holds them.
func outboxSince(t *testing.T, dsn string, business int64, after int64) map[string]models.WebhookEvent {
	t.Helper()
	db, err := models.Open(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var rows []models.WebhookEvent
	if err := db.NewSelect().Model(&rows).Where("business_id = ?", business).Where("id > ?", after).Scan(context.Background()); err != nil {
		t.Fatal(err)
	}
	out := map[string]models.WebhookEvent{}
	for _, r := range rows {
		out[r.UID] = r
	}
	return out
}

// lastEvent is the id of the business's newest event.
func lastEvent(t *testing.T, dsn string, business int64) int64 {
	db, err := models.Open(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var id int64
	db.NewSelect().Model((*models.WebhookEvent)(nil)).ColumnExpr("coalesce(max(id), 0)").Where("business_id = ?", business).Scan(context.Background(), &id)
	return id
}

// TestWebhooksSurviveKills runs real servers, on SQLite one and on
// PostgreSQL two, against a receiver that answers 500 at random, closes
// connections, answers slowly and is down a while; servers are killed
// with SIGKILL mid-delivery and started again. Every committed write's
// events arrive at least once, no event arrives that no write committed
// (dry runs and refused writes store none), a duplicate carries the same
// id and body, and every signature verifies with the standardwebhooks
// package.
func TestWebhooksSurviveKills(t *testing.T) {
	v := startVerifier(t)
	bin := buildMain(t)
	t.Run("sqlite", func(t *testing.T) {
		dir := t.TempDir()
		surviveKills(t, v, bin, filepath.Join(dir, "koredyne.db"), 1, nil, []string{"--data", dir})
	})
	t.Run("postgres", func(t *testing.T) {
		pg, ok := modelstest.Postgres(t)
		if !ok {
			t.Skip("needs PostgreSQL")
		}
		surviveKills(t, v, bin, pg.DSN, 2, []string{"DATABASE_URL=" + pg.DSN}, nil)
	})
}

func surviveKills(t *testing.T, v *verifier, bin, dsn string, n int, env, args []string) {
	var procs []*hookProcess
	for range n {
		procs = append(procs, startServe(t, bin, env, args...))
	}
	url := func(i int) string { return procs[i%len(procs)].url }
	rc := newChaos(t, v)
	data := hookGQL(t, url(0), bootstrapToken, `mutation($in: CreateWebhookEndpointInput!) { createWebhookEndpoint(input: $in) { secret endpoint { id } } }`,
		map[string]any{"in": map[string]any{"url": "http://" + rc.addr + "/hooks", "events": []string{
			"schedule.changed", "session.cancelled", "client.created", "booking.created"}}})
	secret := data["createWebhookEndpoint"].(map[string]any)["secret"].(string)
	rc.set(func(c *chaos) { c.secret, c.failP, c.closeP, c.delay = secret, 0.2, 0.05, 20*time.Millisecond })
	business := int64(1) // the demo business the first server seeded
	since := lastEvent(t, dsn, business)

	sessions := sessionsAhead(t, url(0))
	committed := 0
	for i := range 12 {
		u := url(i)
		// A dry run and a refused write store nothing.
		hookGQL(t, u, bootstrapToken, `mutation($id: SessionID!) { cancelSession(sessionId: $id, dryRun: true) { dryRun } }`, map[string]any{"id": sessions[i]})
		if _, errs := post(t, u, bootstrapToken, `mutation($id: SessionID!) { cancelSession(sessionId: $id) { revision } }`, map[string]any{"id": "s/2026-01-01/999999/1"}); len(errs) == 0 {
			t.Fatal("cancelling a session that does not exist succeeded")
		}
		hookGQL(t, u, bootstrapToken, `mutation($id: SessionID!) { cancelSession(sessionId: $id, reason: "chaos") { revision } }`, map[string]any{"id": sessions[i]})
		hookGQL(t, u, bootstrapToken, `mutation($n: String!) { createClient(input: {name: $n}) { client { id } } }`, map[string]any{"n": fmt.Sprintf("Chaos %d", i)})
		committed += 2
		switch i {
		case 3: // killed mid-delivery: the receiver is slow, attempts are under way
			rc.set(func(c *chaos) { c.delay = 300 * time.Millisecond })
			time.Sleep(400 * time.Millisecond)
			procs[0].kill()
			procs[0] = startServe(t, bin, env, args...)
			rc.set(func(c *chaos) { c.delay = 20 * time.Millisecond })
		case 6: // the receiver is down a while
			rc.down()
			time.Sleep(2 * time.Second)
			rc.up()
		case 9:
			procs[len(procs)-1].kill()
			procs[len(procs)-1] = startServe(t, bin, env, args...)
		}
	}
	// Every committed write stored a schedule.changed; nothing else did.
	events := outboxSince(t, dsn, business, since)
	changed := 0
	for _, e := range events {
		if e.Type == "schedule.changed" {
			changed++
		}
	}
	if changed != committed {
		t.Fatalf("%d schedule.changed events for %d committed writes", changed, committed)
	}
	rc.set(func(c *chaos) { c.failP, c.closeP = 0.1, 0 })
	deadline := time.Now().Add(5 * time.Minute)
	for {
		got := rc.received()
		missing := 0
		for id := range events {
			if _, ok := got[id]; !ok {
				missing++
			}
		}
		if missing == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d events never arrived", missing, len(events))
		}
		time.Sleep(100 * time.Millisecond)
	}
	dups := 0
	for id, bodies := range rc.received() {
		e, ok := events[id]
		if !ok {
			t.Errorf("event %s arrived, but no committed write stored it", id)
			continue
		}
		for _, b := range bodies {
			if b != e.Body {
				t.Errorf("event %s arrived with another body: %s", id, b)
			}
		}
		dups += len(bodies) - 1
	}
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if len(rc.bad) > 0 {
		t.Errorf("%d signatures did not verify: %v", len(rc.bad), rc.bad[:min(5, len(rc.bad))])
	}
	t.Logf("%d events, %d arrived more than once", len(events), dups)
}

// TestWebhooksOfImportsAndRestores: the reference import (a separate
// process writing the database) sends what it changed to the server's
// endpoint; a restored backup's events reach an endpoint registered
// afterwards through replayWebhooks.
func TestWebhooksOfImportsAndRestores(t *testing.T) {
	v := startVerifier(t)
	bin := buildMain(t)
	dir := t.TempDir()
	p := startServe(t, bin, nil, "--data", dir)
	rc := newChaos(t, v)
	data := hookGQL(t, p.url, bootstrapToken, `mutation($in: CreateWebhookEndpointInput!) { createWebhookEndpoint(input: $in) { secret } }`,
		map[string]any{"in": map[string]any{"url": "http://" + rc.addr + "/hooks", "events": []string{"schedule.changed", "client.created"}}})
	rc.set(func(c *chaos) { c.secret = data["createWebhookEndpoint"].(map[string]any)["secret"].(string) })
	dsn := filepath.Join(dir, "koredyne.db")
	since := lastEvent(t, dsn, 1)
	run := func(args ...string) string {
		out, err := exec.Command(bin, append(args, "--data", dir)...).CombinedOutput()
		if err != nil {
			t.Fatalf("%v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	run("import", "koredyne", "--business", "demo", "--replace", filepath.Join("..", "..", "engine", "reference", "testdata", "reference", "export-gym.json"))
	events := outboxSince(t, dsn, 1, since)
	clients := 0
	for _, e := range events {
		if e.Type == "client.created" {
			clients++
		}
	}
	if len(events) < 2 || clients == 0 {
		t.Fatalf("the import stored %d events, %d client.created", len(events), clients)
	}
	waitFor(t, rc, events)

	// A restore under a new name: its events wait in the outbox for an
	// endpoint, which replays them.
	backup := filepath.Join(dir, "backup.json")
	run("export", "json", "--business", "demo", "--out", backup)
	start := time.Now().Add(-time.Minute)
	run("import", "json", backup, "--business", "copy")
	token := strings.TrimSpace(run("token", "create", "--business", "copy", "--role", "owner"))
	copyData := hookGQL(t, p.url, token, `mutation($in: CreateWebhookEndpointInput!) { createWebhookEndpoint(input: $in) { secret endpoint { id } } }`,
		map[string]any{"in": map[string]any{"url": "http://" + rc.addr + "/copy", "events": []string{"schedule.changed", "client.created"}}})
	payload := copyData["createWebhookEndpoint"].(map[string]any)
	// The copy's endpoint has its own secret: the receiver checks with it.
	rc.set(func(c *chaos) { c.secret = payload["secret"].(string) })
	replay := hookGQL(t, p.url, token, `mutation($id: ID!, $since: DateTime!) { replayWebhooks(endpointId: $id, since: $since) { queued } }`,
		map[string]any{"id": payload["endpoint"].(map[string]any)["id"], "since": start.UTC().Format(time.RFC3339)})
	copyBusiness, err := func() (int64, error) {
		db, err := models.Open(context.Background(), dsn)
		if err != nil {
			return 0, err
		}
		defer db.Close()
		b, err := models.BusinessBySlug(context.Background(), db, "copy")
		if err != nil {
			return 0, err
		}
		return b.ID, nil
	}()
	if err != nil {
		t.Fatal(err)
	}
	restored := outboxSince(t, dsn, copyBusiness, 0)
	if q := replay["replayWebhooks"].(map[string]any)["queued"]; q != float64(len(restored)) || len(restored) != clients+1 {
		t.Fatalf("replayed %v of %d restored events (%d clients)", q, len(restored), clients)
	}
	waitFor(t, rc, restored)
	for id := range restored {
		if !strings.Contains(rc.received()[id][0], `"slug":"copy"`) {
			t.Errorf("%s does not name the restored business", id)
		}
	}
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if len(rc.bad) > 0 {
		t.Errorf("signatures that did not verify: %v", rc.bad)
	}
}

func waitFor(t *testing.T, rc *chaos, events map[string]models.WebhookEvent) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for {
		got := rc.received()
		missing := 0
		for id := range events {
			if _, ok := got[id]; !ok {
				missing++
			}
		}
		if missing == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d events never arrived", missing, len(events))
		}
		time.Sleep(50 * time.Millisecond)
	}
}
