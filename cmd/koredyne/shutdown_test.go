package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/koredyne/schedule/models/modelstest"
)

// process is a `koredyne serve` started from the built binary.
type process struct {
	url  string
	cmd  *exec.Cmd
	exit chan error
}

// startProcess runs bin serve on the default settings but a free port,
// on DATABASE_URL dsn (or a fresh SQLite directory when dsn is empty), with
// env added to its environment.
func startProcess(t *testing.T, bin, dsn string, env ...string) *process {
	t.Helper()
	cmd := exec.Command(bin, "serve", "--addr", "127.0.0.1:0", "--data", t.TempDir())
	cmd.Env = append(append(os.Environ(), "KOREDYNE_BOOTSTRAP_TOKEN="+bootstrapToken, "DATABASE_URL="+dsn), env...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = io.Discard
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &process{cmd: cmd, exit: make(chan error, 1)}
	go func() { p.exit <- cmd.Wait() }()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-p.exit
		p.exit <- nil
	})
	p.url = waitListening(t, stdout)
	return p
}

// wsClient is a graphql-transport-ws client.
type wsClient struct {
	t    *testing.T
	conn *websocket.Conn
}

// subscribe opens a websocket with token, and subscribes to the schedule's
// changes.
func subscribe(t *testing.T, url, token string) *wsClient {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, _, err := websocket.Dial(ctx, strings.Replace(url, "http", "ws", 1)+"/graphql",
		&websocket.DialOptions{Subprotocols: []string{"graphql-transport-ws"}})
	if err != nil {
		t.Fatal(err)
	}
	c := &wsClient{t: t, conn: conn}
	t.Cleanup(func() { conn.CloseNow() })
	c.send(map[string]any{"type": "connection_init", "payload": map[string]any{"authorization": "Bearer " + token}})
	if m := c.next(); m["type"] != "connection_ack" {
		t.Fatalf("connection_init: %v", m)
	}
	c.send(map[string]any{"type": "subscribe", "id": "1", "payload": map[string]any{"query": "subscription { scheduleChanged { revision } }"}})
	return c
}

func (c *wsClient) send(m map[string]any) {
	c.t.Helper()
	b, _ := json.Marshal(m)
	if err := c.conn.Write(context.Background(), websocket.MessageText, b); err != nil {
		c.t.Fatal(err)
	}
}

// next reads the next message other than a ping, or returns the error as
// {"error": err}.
func (c *wsClient) next() map[string]any {
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		_, b, err := c.conn.Read(ctx)
		cancel()
		if err != nil {
			return map[string]any{"error": err}
		}
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			c.t.Fatalf("a message that is not JSON: %s", b)
		}
		if m["type"] != "ping" && m["type"] != "pong" {
			return m
		}
	}
}

// closed reads until the server closes and returns the close status and
// reason; it fails the test if a change or nothing comes instead.
func (c *wsClient) closed() (websocket.StatusCode, string) {
	c.t.Helper()
	for {
		m := c.next()
		err, ok := m["error"].(error)
		if !ok {
			continue // a change that was on its way
		}
		var ce websocket.CloseError
		if !errors.As(err, &ce) {
			c.t.Fatalf("the websocket ended without a close frame: %v", err)
		}
		return ce.Code, ce.Reason
	}
}

// waitSubscribed waits until the process at url has n subscriptions open,
// from its /metrics: a subscribe message is sent before the server has
// subscribed, and a change made in between is never heard.
func waitSubscribed(t *testing.T, url string, n int) {
	t.Helper()
	want := fmt.Sprintf("koredyne_subscriptions %d\n", n)
	var body []byte
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		resp, err := http.Get(url + "/metrics")
		if err != nil {
			t.Fatal(err)
		}
		body, _ = io.ReadAll(resp.Body)
		resp.Body.Close()
		if strings.Contains(string(body), want) {
			return
		}
	}
	t.Fatalf("no %q in /metrics after 10 s", strings.TrimSpace(want))
}

// changeSchedule writes through GraphQL, so that subscribers hear a change.
func changeSchedule(t *testing.T, url string, day int) {
	t.Helper()
	_, errs := post(t, url, bootstrapToken, fmt.Sprintf(`mutation { createClosure(input: {from: "2090-01-%02d", to: "2090-01-%02d", reason: "test"}) { revision } }`, day, day+1), nil)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
}

// eventStream subscribes over server-sent events and returns the stream's
// lines as they come; the channel closes when the stream ends.
func eventStream(t *testing.T, url, token string) <-chan string {
	t.Helper()
	req, _ := http.NewRequest("POST", url+"/graphql", strings.NewReader(`{"query":"subscription { scheduleChanged { revision } }"}`))
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	lines := make(chan string, 100)
	go func() {
		defer close(lines)
		defer resp.Body.Close()
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	return lines
}

// waitLine waits for a line of an event stream holding want.
func waitLine(t *testing.T, lines <-chan string, want string) {
	t.Helper()
	timeout := time.After(10 * time.Second)
	for {
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatalf("the event stream ended before %q", want)
			}
			if strings.Contains(l, want) {
				return
			}
		case <-timeout:
			t.Fatalf("no %q on the event stream", want)
		}
	}
}

// TestShutdownClosesSubscriptions sends SIGTERM to a server process with a
// websocket and an event-stream subscription open: the websocket gets a
// close frame (1001, going away), the event stream its last event and its
// end, and the process exits 0 within 2 s.
func TestShutdownClosesSubscriptions(t *testing.T) {
	p := startProcess(t, buildMain(t), "")
	ws := subscribe(t, p.url, bootstrapToken)
	sse := eventStream(t, p.url, bootstrapToken)
	waitSubscribed(t, p.url, 2)
	changeSchedule(t, p.url, 1)
	if m := ws.next(); m["type"] != "next" {
		t.Fatalf("the websocket heard %v, want the change", m)
	}
	waitLine(t, sse, `"revision"`)

	start := time.Now()
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	code, reason := ws.closed()
	if code != websocket.StatusGoingAway || reason == "" {
		t.Errorf("the websocket closed with %d %q, want 1001 going away with a reason", code, reason)
	}
	waitLine(t, sse, "event: complete")
	select {
	case err := <-p.exit:
		took := time.Since(start)
		if err != nil {
			t.Errorf("the server exited with %v", err)
		}
		if took > 2*time.Second {
			t.Errorf("the server took %v to exit, want at most 2 s", took)
		}
		t.Logf("exited %v after SIGTERM", took.Round(time.Millisecond))
		p.exit <- err
	case <-time.After(5 * time.Second):
		t.Fatal("the server had not exited 5 s after SIGTERM")
	}
	if _, ok := <-sse; ok {
		// Drained lines after complete are fine; the stream must end.
		for range sse {
		}
	}
}

// TestRevokingEndsAccess opens subscriptions on one server process with a
// token and revokes the token through another (on PostgreSQL; one process
// on SQLite): its websocket closes with 4403 and its event stream ends at
// once, while another token's subscription goes on hearing changes. The
// token and an app password stop opening CalDAV on the next request, on
// the same keep-alive connection.
func TestRevokingEndsAccess(t *testing.T) {
	bin := buildMain(t)
	var a, b *process
	if pg, ok := modelstest.Postgres(t); ok {
		a = startProcess(t, bin, pg.DSN)
		b = startProcess(t, bin, pg.DSN)
	} else {
		a = startProcess(t, bin, "")
		b = a
	}
	revokingEndsAccess(t, a, b)
}

// revokingEndsAccess is TestRevokingEndsAccess on two processes a and b
// (one process twice on SQLite).
func revokingEndsAccess(t *testing.T, a, b *process) {
	data, errs := post(t, b.url, bootstrapToken, `mutation {
		doomed: createToken(input: {role: READ_ONLY, name: "doomed"}) { secret token { id } }
		app: createAppPassword(input: {login: "front-tablet", role: READ_ONLY}) { password appPassword { id } } }`, nil)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	doomed := data["doomed"].(map[string]any)
	token, tokenID := doomed["secret"].(string), doomed["token"].(map[string]any)["id"]
	app := data["app"].(map[string]any)
	password, appID := app["password"].(string), app["appPassword"].(map[string]any)["id"]

	ws := subscribe(t, a.url, token)
	sse := eventStream(t, a.url, token)
	other := subscribe(t, a.url, bootstrapToken)
	waitSubscribed(t, a.url, 3)
	changeSchedule(t, b.url, 1)
	for _, c := range []*wsClient{ws, other} {
		if m := c.next(); m["type"] != "next" {
			t.Fatalf("a websocket heard %v, want the change", m)
		}
	}
	waitLine(t, sse, `"revision"`)

	// One keep-alive connection for CalDAV, as calendar apps hold.
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 1}}
	propfind := func(user, password string) int {
		req, _ := http.NewRequest("PROPFIND", a.url+"/caldav/"+user+"/", strings.NewReader(`<D:propfind xmlns:D="DAV:"><D:prop><D:resourcetype/></D:prop></D:propfind>`))
		req.SetBasicAuth(user, password)
		req.Header.Set("Depth", "0")
		req.Header.Set("Content-Type", "application/xml")
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp.StatusCode
	}
	if s1, s2 := propfind("demo", token), propfind("front-tablet", password); s1 != 207 || s2 != 207 {
		t.Fatalf("CalDAV before revoking: %d (token), %d (app password)", s1, s2)
	}

	start := time.Now()
	if _, errs := post(t, b.url, bootstrapToken, `mutation($t: ID!, $a: ID!) { revokeToken(id: $t) { token { id } } revokeAppPassword(id: $a) { appPassword { id } } }`,
		map[string]any{"t": tokenID, "a": appID}); len(errs) > 0 {
		t.Fatal(errs)
	}
	code, reason := ws.closed()
	if code != 4403 {
		t.Errorf("the revoked token's websocket closed with %d %q, want 4403", code, reason)
	}
	waitLine(t, sse, "event: complete")
	t.Logf("the subscriptions ended %v after the revocation", time.Since(start).Round(time.Millisecond))
	if s1, s2 := propfind("demo", token), propfind("front-tablet", password); s1 != 401 || s2 != 401 {
		t.Errorf("CalDAV after revoking: %d (token), %d (app password), want 401", s1, s2)
	}
	if _, errs := post(t, a.url, token, `{ business { slug } }`, nil); len(errs) == 0 || errs[0]["extensions"].(map[string]any)["code"] != "UNAUTHENTICATED" {
		t.Errorf("the revoked token still reads: %v", errs)
	}

	changeSchedule(t, b.url, 3)
	if m := other.next(); m["type"] != "next" {
		t.Errorf("another token's subscription heard %v after the revocation, want the change", m)
	}
}
