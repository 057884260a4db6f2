package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/koredyne/schedule/models/modelstest"
)

const bootstrapToken = "kd_test_bootstrap_token"

// server is a running koredyne serve, in this process or another.
type server struct {
	url  string
	stop func()
}

// listening finds where a server listens in its first line: the sentence,
// or with JSON logs the line's url.
var listening = regexp.MustCompile(`listening on (http://[^\s"]+)`)

// waitListening reads a server's stdout until it says where it listens.
func waitListening(t *testing.T, out io.Reader) string {
	t.Helper()
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if m := listening.FindStringSubmatch(sc.Text()); m != nil {
				found <- m[1]
			}
		}
	}()
	select {
	case u := <-found:
		return u
	case <-time.After(60 * time.Second):
		t.Fatal("the server did not start")
		return ""
	}
}

// startMain runs Main serve in this process on a free port.
func startMain(t *testing.T, env map[string]string, args ...string) *server {
	t.Helper()
	return startMainWith(t, Config{}, env, args...)
}

// startMainWith runs serve in this process on a free port, as Main does,
// with what c sets that flags do not (the rate limit's clock).
func startMainWith(t *testing.T, c Config, env map[string]string, args ...string) *server {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan int, 1)
	getenv := func(k string) string { return env[k] }
	go func() {
		a := &app{getenv: getenv, stdout: pw, stderr: io.Discard, c: c}
		done <- a.main(ctx, append([]string{"serve", "--addr", "127.0.0.1:0"}, args...))
		pw.Close()
	}()
	u := waitListening(t, pr)
	return &server{url: u, stop: func() {
		cancel()
		if code := <-done; code != 0 {
			t.Errorf("serve exited with %d", code)
		}
	}}
}

// post sends a GraphQL request and decodes the response.
func post(t *testing.T, url, token, query string, vars map[string]any) (map[string]any, []map[string]any) {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"query": query, "variables": vars})
	req, _ := http.NewRequest("POST", url+"/graphql", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out struct {
		Data   map[string]any
		Errors []map[string]any
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		t.Fatalf("decoding a %d response: %v", resp.StatusCode, err)
	}
	return out.Data, out.Errors
}

// buildMain builds this command into a temporary directory, with the build
// tags given.
func buildMain(t *testing.T, tags ...string) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "koredyne")
	args := []string{"build", "-o", bin}
	if len(tags) > 0 {
		args = append(args, "-tags", strings.Join(tags, ","))
	}
	if out, err := exec.Command("go", append(args, ".")...).CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// startProcesses runs n `koredyne serve` processes of bin on one
// PostgreSQL database and returns their URLs. The first seeds the demo
// business; each opens at most 6 connections, so many fit under the
// server's max_connections. env is more of their environment
// (KOREDYNE_LISTEN_URL=…).
func startProcesses(t *testing.T, bin, dsn string, n int, env ...string) []string {
	t.Helper()
	var urls []string
	for range n {
		// The races send a burst from one token: no rate limit.
		cmd := exec.Command(bin, "serve", "--addr", "127.0.0.1:0", "--db-conns", "6", "--rate-limit", "0")
		cmd.Env = append(append(os.Environ(), "DATABASE_URL="+dsn, "KOREDYNE_BOOTSTRAP_TOKEN="+bootstrapToken), env...)
		stdout, _ := cmd.StdoutPipe()
		cmd.Stderr = io.Discard
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			cmd.Process.Signal(os.Interrupt)
			cmd.Wait()
		})
		urls = append(urls, waitListening(t, stdout))
	}
	return urls
}

// TestServeOnSQLite starts the server as `koredyne serve` does with no
// configuration but a data directory, and runs the other commands against
// the same database while it runs.
func TestServeOnSQLite(t *testing.T) {
	dir := t.TempDir()
	env := map[string]string{"KOREDYNE_BOOTSTRAP_TOKEN": bootstrapToken}
	s := startMain(t, env, "--data", dir)
	defer s.stop()

	for path, want := range map[string]string{"/healthz": "ok\n", "/readyz": "ready\n"} {
		resp, err := http.Get(s.url + path)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || string(b) != want {
			t.Errorf("%s: %d %q", path, resp.StatusCode, b)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "koredyne.db")); err != nil {
		t.Errorf("no database in the data directory: %v", err)
	}
	data, errs := post(t, s.url, bootstrapToken, `{ business { slug kind } rooms { name } }`, nil)
	if len(errs) > 0 || fmt.Sprint(data["business"]) != "map[kind:GYM slug:demo]" {
		t.Fatalf("bootstrap business: %v %v", data, errs)
	}

	// Commands on the same database while the server runs.
	var out bytes.Buffer
	getenv := func(string) string { return "" }
	if code := Main(context.Background(), []string{"token", "create", "--business", "demo", "--role", "read_only", "--data", dir}, getenv, &out, io.Discard); code != 0 {
		t.Fatalf("token create exited with %d", code)
	}
	readOnly := strings.TrimSpace(out.String())
	if _, errs := post(t, s.url, readOnly, `{ business { slug } }`, nil); len(errs) > 0 {
		t.Errorf("the new token: %v", errs)
	}
	if _, errs := post(t, s.url, readOnly, `mutation { createRoom(input: {name: "Annex"}) { room { id } } }`, nil); len(errs) == 0 || errs[0]["extensions"].(map[string]any)["code"] != "FORBIDDEN" {
		t.Errorf("a read-only token wrote: %v", errs)
	}
	out.Reset()
	if code := Main(context.Background(), []string{"demo", "load", "office", "--business", "demo", "--data", dir}, getenv, &out, io.Discard); code != 0 {
		t.Fatalf("demo load exited with %d", code)
	}
	data, _ = post(t, s.url, bootstrapToken, `{ business { kind revision } }`, nil)
	if fmt.Sprint(data["business"]) != "map[kind:OFFICE revision:2]" {
		t.Errorf("the server did not see the demo the command loaded: %v", data)
	}
	out.Reset()
	if code := Main(context.Background(), []string{"migrate", "status", "--data", dir}, getenv, &out, io.Discard); code != 0 || !strings.HasPrefix(out.String(), "applied") {
		t.Errorf("migrate status: %d %q", code, out.String())
	}
	if code := Main(context.Background(), []string{"token", "create", "--business", "demo", "--role", "boss", "--data", dir}, getenv, io.Discard, io.Discard); code != 2 {
		t.Errorf("a bad role: exit %d, want 2", code)
	}
}

// TestTwoProcessesOnePostgres starts two server processes on one PostgreSQL
// database and races 40 clients, half on each, to put a session into the
// same free room slot: exactly one may win, and the data holds no clash.
func TestTwoProcessesOnePostgres(t *testing.T) {
	pg, ok := modelstest.Postgres(t)
	if !ok {
		t.Skip("needs PostgreSQL")
	}
	servers := startProcesses(t, buildMain(t), pg.DSN, 2)

	data, errs := post(t, servers[0], bootstrapToken, `{ rooms { id name } classes { id } }`, nil)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	ring := data["rooms"].([]any)[0].(map[string]any)["id"]
	classes := data["classes"].([]any)

	// Friday is the gym's day off: the Ring is free until someone books
	// it. Only a date ahead is proven (the past is history, not a clash),
	// so the race is for the first Friday at least two days from now, in
	// any time zone.
	friday := time.Now().AddDate(0, 0, 2)
	for friday.Weekday() != time.Friday {
		friday = friday.AddDate(0, 0, 1)
	}
	date := friday.Format(time.DateOnly)

	const clients = 40
	var wg sync.WaitGroup
	results := make([]string, clients)
	start := make(chan struct{})
	for i := 0; i < clients; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			class := classes[i%len(classes)].(map[string]any)["id"]
			_, errs := post(t, servers[i%2], bootstrapToken, `mutation($room: ID!, $class: ID!, $date: Date!) {
				createOneOff(input: {roomId: $room, classId: $class, date: $date, start: "10:00", end: "11:00"}) { oneOff { id } } }`,
				map[string]any{"room": ring, "class": class, "date": date})
			switch {
			case len(errs) == 0:
				results[i] = "won"
			default:
				results[i], _ = errs[0]["extensions"].(map[string]any)["code"].(string)
			}
		}()
	}
	close(start)
	wg.Wait()
	counts := map[string]int{}
	for _, r := range results {
		counts[r]++
	}
	if counts["won"] != 1 || counts["CLASH"] != clients-1 {
		t.Fatalf("outcomes %v, want exactly one win and %d clashes", counts, clients-1)
	}
	for _, u := range servers {
		data, errs := post(t, u, bootstrapToken, `query($date: Date!) { clashes { clashes { message } } day(date: $date) { sessions { id } } }`, map[string]any{"date": date})
		if len(errs) > 0 {
			t.Fatal(errs)
		}
		if c := data["clashes"].(map[string]any)["clashes"].([]any); len(c) != 0 {
			t.Errorf("%s: the stored data holds clashes: %v", u, c)
		}
		if s := data["day"].(map[string]any)["sessions"].([]any); len(s) != 1 {
			t.Errorf("%s: %d sessions on the Friday, want the one that won", u, len(s))
		}
	}
}
