package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"

	"github.com/urfave/cli/v3"

	"github.com/koredyne/schedule/models"
)

// mainWith runs Main with the environment given.
func mainWith(env map[string]string, args ...string) (code int, stdout, stderr string) {
	var out, errs bytes.Buffer
	code = Main(context.Background(), args, func(k string) string { return env[k] }, &out, &errs)
	return code, out.String(), errs.String()
}

// TestHelpOnEveryCommand asks every command for --help: each answers on
// stdout with exit 0, naming itself and every flag it takes with its
// description.
func TestHelpOnEveryCommand(t *testing.T) {
	var walk func(path []string, cmd *cli.Command)
	count := 0
	walk = func(path []string, cmd *cli.Command) {
		count++
		code, out, errs := mainWith(nil, append(path, "--help")...)
		if code != 0 || errs != "" {
			t.Errorf("%v --help: exit %d, stderr %q", path, code, errs)
		}
		if !strings.Contains(out, strings.Join(append([]string{"koredyne"}, path...), " ")) {
			t.Errorf("%v --help does not name the command:\n%s", path, out)
		}
		for _, f := range cmd.Flags {
			name := f.Names()[0]
			usage := f.(cli.DocGenerationFlag).GetUsage()
			if usage == "" || !strings.Contains(out, "--"+name) || !strings.Contains(out, usage) {
				t.Errorf("%v --help: flag --%s or its description %q missing:\n%s", path, name, usage, out)
			}
		}
		for _, sub := range cmd.Commands {
			if sub.Name != "help" {
				walk(append(append([]string{}, path...), sub.Name), sub)
			}
		}
	}
	walk(nil, (&app{getenv: func(string) string { return "" }}).commands())
	if count < 15 {
		t.Errorf("only %d commands walked", count)
	}
	// Subcommands' own flags: serve's are not migrate's.
	_, out, _ := mainWith(nil, "migrate", "status", "--help")
	if strings.Contains(out, "--rate-limit") || !strings.Contains(out, "--data") {
		t.Errorf("migrate status --help lists the wrong flags:\n%s", out)
	}
}

// TestVersion asks the version: the module version and the commit the
// build was made from, as the binary's build information records them.
func TestVersion(t *testing.T) {
	if code, out, _ := mainWith(nil, "--version"); code != 0 || !strings.HasPrefix(out, "koredyne version ") {
		t.Errorf("--version: %d %q", code, out)
	}
	bi := &debug.BuildInfo{Main: debug.Module{Version: "v1.4.0"}, Settings: []debug.BuildSetting{
		{Key: "vcs.revision", Value: "352d9f1a0c"}, {Key: "vcs.time", Value: "2026-12-01T10:00:00Z"}, {Key: "vcs.modified", Value: "true"}}}
	if got, want := versionOf(bi), "v1.4.0 (commit 352d9f1a0c, modified, 2026-12-01T10:00:00Z)"; got != want {
		t.Errorf("version %q, want %q", got, want)
	}
	// A real build: what `go version -m` reads from it is what --version says.
	bin := filepath.Join(t.TempDir(), "koredyne")
	if out, err := exec.Command("go", "build", "-buildvcs=auto", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out, err := exec.Command(bin, "--version").Output()
	if err != nil {
		t.Fatal(err)
	}
	info, err := exec.Command("go", "version", "-m", bin).Output()
	if err != nil {
		t.Fatal(err)
	}
	want := "(no commit recorded)"
	for _, line := range strings.Split(string(info), "\n") {
		if f := strings.Fields(line); len(f) == 2 && f[0] == "build" && strings.HasPrefix(f[1], "vcs.revision=") {
			want = "commit " + strings.TrimPrefix(f[1], "vcs.revision=")
		}
	}
	if !strings.Contains(string(out), want) {
		t.Errorf("--version %q, want %q", out, want)
	}
}

// TestUsageErrors: unknown commands and flags, a flag of another command,
// arguments where none are taken: exit 2 with a message that says what.
func TestUsageErrors(t *testing.T) {
	dir := newDatabase(t)
	for _, c := range []struct {
		args []string
		want string
	}{
		// Commands that only hold others take no flags.
		{[]string{"migrate", "--data", dir}, "unknown flag --data"},
		{[]string{"migrate", "status", "--role", "wizard"}, "unknown flag --role"},
		{[]string{"export", "json", "--business", "demo", "--addr", ":80"}, "unknown flag --addr"},
		{[]string{"token", "create", "--business", "demo", "--role", "read_only", "--rate-limit", "5"}, "unknown flag --rate-limit"},
		{[]string{"migrate", "sideways"}, `needs up, down or status, not "sideways"`},
		{[]string{"migrate"}, "needs up, down or status"},
		{[]string{"serve", "now"}, "takes no arguments"},
		{[]string{"demo", "load", "--business", "x"}, "needs a kind"},
		{[]string{"export", "json"}, "business"},
		{[]string{"import", "json"}, "needs a file"},
		{[]string{"frobnicate"}, `unknown command "frobnicate"`},
		{nil, "no command given"},
		{[]string{"token", "create", "--business", "demo", "--role", "wizard"}, `"wizard" is not a role`},
		{[]string{"serve", "--addr", "nowhere"}, "--addr (KOREDYNE_ADDR)"},
	} {
		args := c.args
		if cmd := args[0:min(1, len(args))]; len(cmd) == 1 && cmd[0] != "migrate" && cmd[0] != "frobnicate" || len(args) > 1 && args[1] == "status" {
			args = append(args, "--data", dir)
		}
		code, out, errs := mainWith(nil, args...)
		if code != 2 || !strings.Contains(errs, c.want) || !strings.Contains(errs, "--help") {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want 2 and %q", c.args, code, out, errs, c.want)
		}
	}
}

// TestEnvironmentChecked: a value that does not parse is refused, naming
// its variable, instead of falling back to the default in silence.
func TestEnvironmentChecked(t *testing.T) {
	dir := newDatabase(t)
	for _, c := range []struct {
		key, value string
		args       []string
	}{
		{"KOREDYNE_RATE_LIMIT", "five", []string{"serve"}},
		{"KOREDYNE_MAX_BODY", "10MB", []string{"serve"}},
		{"KOREDYNE_PLAYGROUND", "yes please", []string{"serve"}},
		{"KOREDYNE_PLAYGROUND_IDLE", "forever", []string{"serve"}},
		{"KOREDYNE_CALENDAR_WEEKS_AHEAD", "a year", []string{"serve"}},
		{"KOREDYNE_LOG_FORMAT", "xml", []string{"serve"}},
		{"KOREDYNE_RATE_LIMIT", "-1", []string{"serve"}},
		{"KOREDYNE_MAX_BODY", "12", []string{"serve"}},
		{"KOREDYNE_ALLOWED_ORIGINS", "desk.example.com", []string{"serve"}},
		{"KOREDYNE_CACHE_MB", "lots", []string{"serve"}},
		{"KOREDYNE_CACHE_MB", "0", []string{"serve"}},
		{"KOREDYNE_REQUEST_MB", "plenty", []string{"serve"}},
		{"KOREDYNE_REQUEST_MB", "4", []string{"serve"}},
		{"KOREDYNE_REQUEST_MB", "16", []string{"serve", "--max-body", "9000000"}}, // 18 MB held for one body
		{"KOREDYNE_DB_CONNS", "lots", []string{"migrate", "status"}},
		{"KOREDYNE_DB_CONNS", "0", []string{"export", "json", "--business", "demo"}},
		{"DATABASE_URL", "mysql://x", []string{"migrate", "status"}},
		{"KOREDYNE_LISTEN_URL", "postgres://x/db", []string{"serve"}}, // with SQLite
		{"KOREDYNE_REPLICA_URLS", "postgres://x/db", []string{"serve"}},
		{"KOREDYNE_REPLICA_MAX_LAG", "soon", []string{"serve"}},
		{"KOREDYNE_REPLICA_MAX_LAG", "0s", []string{"serve"}},
	} {
		code, _, errs := mainWith(map[string]string{c.key: c.value}, append(c.args, "--data", dir)...)
		if code != 2 || !strings.Contains(errs, c.key) {
			t.Errorf("%s=%q %v: exit %d, %q; want 2 naming the variable", c.key, c.value, c.args, code, errs)
		}
	}
	// A value that parses is used: KOREDYNE_PLAYGROUND=1 serves the
	// playground, which opens no database.
	empty := t.TempDir()
	s := startMain(t, map[string]string{"KOREDYNE_PLAYGROUND": "1"}, "--data", empty)
	s.stop()
	if _, err := os.Stat(filepath.Join(empty, "koredyne.db")); err == nil {
		t.Errorf("KOREDYNE_PLAYGROUND=1 opened the database: not the playground")
	}
}

// TestReadCommandsNeedADatabase: only serve and migrate create a
// database; the other commands refuse a --data directory that holds none
// and leave it as it was (a typo does not make a new empty database).
func TestReadCommandsNeedADatabase(t *testing.T) {
	file := filepath.Join(t.TempDir(), "some.json")
	os.WriteFile(file, []byte("{}"), 0o600)
	typo := filepath.Join(t.TempDir(), "typo")
	for _, args := range [][]string{
		{"export", "ics", "--business", "demo"},
		{"export", "json", "--business", "demo"},
		{"token", "create", "--business", "demo", "--role", "owner"},
		{"demo", "load", "gym", "--business", "demo"},
		{"import", "json", file},
		{"import", "ics", file, "--business", "demo"},
		{"import", "koredyne", file, "--business", "demo", "--create", "--time-zone", "UTC"},
	} {
		code, _, errs := mainWith(nil, append(args, "--data", typo)...)
		if code != 1 || !strings.Contains(errs, "no database in "+typo) || !strings.Contains(errs, "migrate up") {
			t.Errorf("%v: exit %d, %q", args, code, errs)
		}
		if _, err := os.Stat(typo); err == nil {
			t.Fatalf("%v created %s", args, typo)
		}
	}
	if code, out, errs := mainWith(nil, "migrate", "up", "--data", typo); code != 0 || !strings.Contains(out, "applied") {
		t.Fatalf("migrate up: %d %s", code, errs)
	}
	if code, _, errs := mainWith(nil, "demo", "load", "gym", "--business", "demo", "--data", typo); code != 0 {
		t.Errorf("demo load after migrate up: %d %s", code, errs)
	}
}

// TestTokenCreateScoped: a client token names its client, as GraphQL's
// createToken asks; a staff token may name its staff member; names that
// are not the business's are refused and nothing is stored.
func TestTokenCreateScoped(t *testing.T) {
	ctx := context.Background()
	dir := newDatabase(t)
	if code, _, errs := run(t, dir, "demo", "load", "gym", "--business", "gym"); code != 0 {
		t.Fatal(errs)
	}
	store := storedStore(t, dir)
	b, err := models.BusinessBySlug(ctx, store.DB, "gym")
	if err != nil {
		t.Fatal(err)
	}
	var client, staff int64
	for table, id := range map[string]*int64{"clients": &client, "staff": &staff} {
		if err := store.DB.NewSelect().Table(table).Column("id").Where("business_id = ?", b.ID).Limit(1).Scan(ctx, id); err != nil {
			t.Fatalf("the gym demo's %s: %v", table, err)
		}
	}
	tokens := func() int64 {
		n, err := store.DB.NewSelect().Table("api_tokens").Count(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	before := tokens()
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--role", "client"}, 2, "needs --client"},
		{[]string{"--role", "read_only", "--client", strconv.FormatInt(client, 10)}, 2, "--client applies only to --role client"},
		{[]string{"--role", "owner", "--staff", strconv.FormatInt(staff, 10)}, 2, "--staff applies only to --role staff"},
		{[]string{"--role", "client", "--client", "999999"}, 1, "no client 999999"},
		{[]string{"--role", "staff", "--staff", "999999"}, 1, "no staff member 999999"},
		{[]string{"--role", "client", "--client", "many"}, 2, "client"},
	} {
		code, _, errs := run(t, dir, append([]string{"token", "create", "--business", "gym"}, c.args...)...)
		if code != c.code || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d %q, want %d and %q", c.args, code, errs, c.code, c.want)
		}
	}
	if n := tokens(); n != before {
		t.Errorf("refused tokens were stored: %d tokens, was %d", n, before)
	}
	for _, c := range []struct {
		args          []string
		client, staff int64
	}{
		{[]string{"--role", "client", "--client", strconv.FormatInt(client, 10)}, client, 0},
		{[]string{"--role", "staff", "--staff", strconv.FormatInt(staff, 10)}, 0, staff},
	} {
		code, out, errs := run(t, dir, append([]string{"token", "create", "--business", "gym", "--name", "desk"}, c.args...)...)
		if code != 0 {
			t.Fatalf("%v: %d %s", c.args, code, errs)
		}
		p, err := models.Authenticate(ctx, store.DB, strings.TrimSpace(out))
		if err != nil || p.BusinessID != b.ID || p.ClientID != c.client || p.StaffID != c.staff {
			t.Errorf("%v: the token acts as %+v (%v)", c.args, p, err)
		}
	}
}

// TestBusyPortSeedsNothing: a port in use fails the start before the
// database is created and seeded, so no one-time owner token is printed
// and lost.
func TestBusyPortSeedsNothing(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	dir := filepath.Join(t.TempDir(), "data")
	code, out, errs := mainWith(nil, "serve", "--addr", ln.Addr().String(), "--data", dir)
	if code != 1 || out != "" || !strings.Contains(errs, "address already in use") {
		t.Errorf("serve on a busy port: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	if _, err := os.Stat(filepath.Join(dir, "koredyne.db")); err == nil {
		t.Errorf("serve on a busy port created the database")
	}
}

// TestJSONStartLines: with JSON logs, every line serve writes is a JSON
// object, the listening line and the one-time owner token included.
func TestJSONStartLines(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	var logs syncBuffer
	var stdout syncBuffer
	done := make(chan int, 1)
	env := map[string]string{"KOREDYNE_LOG_FORMAT": "json"}
	go func() {
		done <- Main(ctx, []string{"serve", "--addr", "127.0.0.1:0", "--data", t.TempDir()}, func(k string) string { return env[k] },
			io.MultiWriter(pw, &stdout), &logs)
		pw.Close()
	}()
	u := waitListening(t, pr)
	go io.Copy(io.Discard, pr)
	// A request, so there is an access line.
	if resp, err := http.Get(u + "/healthz"); err != nil || resp.StatusCode != 200 {
		t.Errorf("healthz: %v %v", resp, err)
	} else {
		resp.Body.Close()
	}
	cancel()
	if code := <-done; code != 0 {
		t.Errorf("serve exited with %d", code)
	}
	var token string
	for _, stream := range []struct {
		name, text string
	}{{"stdout", stdout.buf.String()}, {"stderr", logs.buf.String()}} {
		lines := strings.Split(strings.TrimSpace(stream.text), "\n")
		for _, line := range lines {
			var obj map[string]any
			if err := json.Unmarshal([]byte(line), &obj); err != nil || obj["msg"] == nil || obj["time"] == nil {
				t.Errorf("%s: not a JSON log line: %q", stream.name, line)
			}
			if v, ok := obj["owner_token"].(string); ok {
				token = v
			}
		}
		if len(lines) < 2 {
			t.Errorf("%s: only %d lines: %q", stream.name, len(lines), stream.text)
		}
	}
	if token == "" {
		t.Errorf("no owner token in the JSON start lines: %q", stdout.buf.String())
	}
}

// TestRequestLinesNameTheOperation: a GraphQL request's log line holds
// its operation name, the business it acted in and, when it failed, the
// error code. (A request refused for its token never reaches GraphQL: its
// line has the 401 and no operation.)
func TestRequestLinesNameTheOperation(t *testing.T) {
	s, logs := startLogged(t, nil)
	ask := func(query, operation string) string {
		body, _ := json.Marshal(map[string]any{"query": query, "operationName": operation})
		resp, text := hit(t, "POST", s.url+"/graphql", string(body), "Content-Type", "application/json", "Authorization", "Bearer "+bootstrapToken)
		var out struct {
			Errors []struct{ Extensions map[string]any }
		}
		if err := json.Unmarshal([]byte(text), &out); err != nil {
			t.Fatalf("%d %s", resp.StatusCode, text)
		}
		if len(out.Errors) == 0 {
			return ""
		}
		code, _ := out.Errors[0].Extensions["code"].(string)
		if code == "" {
			t.Fatalf("an error without a code: %s", text)
		}
		return code
	}
	want := map[string]string{
		"FrontDesk": ask(`query FrontDesk { business { slug } }`, "FrontDesk"),
		"Typo":      ask(`query Typo { busyness { slug } }`, "Typo"),
		"Closed":    ask(`mutation Closed { createRoom(input: {name: ""}) { room { id } } }`, "Closed"),
		"Second":    ask(`query First { business { slug } } query Second { rooms { name } }`, "Second"),
	}
	if want["FrontDesk"] != "" || want["Second"] != "" || want["Typo"] == "" || want["Closed"] == "" {
		t.Fatalf("answers: %v", want)
	}
	found := map[string]bool{}
	for _, rec := range logs.lines(t) {
		op, _ := rec["operation"].(string)
		code, ok := want[op]
		if rec["msg"] != "request" || !ok {
			continue
		}
		found[op] = true
		business, _ := rec["business"].(float64)
		if got, _ := rec["code"].(string); business < 1 || got != code || rec["request_id"] == nil {
			t.Errorf("%s: log line %v, want the business and code %q", op, rec, code)
		}
	}
	if len(found) != len(want) {
		t.Errorf("request lines found for %v only", found)
	}
}
