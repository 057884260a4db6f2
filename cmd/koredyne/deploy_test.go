package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/koredyne/schedule/models/modelstest"
)

// TestDeployment starts the deployment of deploy/ as its files describe it:
// each program with the command line and environment of its systemd unit
// and the configuration files as they are, with only the ports, the
// directories and the password changed for the test. A primary made with
// initdb, a streaming replica made with pg_basebackup -R, PgBouncer, two
// koredyne serve processes built from this tree and HAProxy in front; then,
// through HAProxy: readiness, a write, reading it back with
// Koredyne-Revision, a CalDAV request, every request of one credential
// reaching one process (an API token, and a CalDAV login with the same
// token), writes read back at once without Koredyne-Revision, and one
// process killed without a request failing. A missing program skips the
// test, or fails it under CI=true.
func TestDeployment(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a whole deployment")
	}
	modelstest.Tools(t, "initdb", "pg_basebackup", "postgres", "psql", "pgbouncer", "haproxy")
	began := time.Now()
	phase := func(what string) { t.Logf("%5.1fs %s", time.Since(began).Seconds(), what) }
	pgBin := filepath.Dir(modelstest.Tool(t, "postgres"))
	etc, lib, run := modelstest.ServerDir(t, "koredyne-etc-"), modelstest.ServerDir(t, "koredyne-lib-"), modelstest.ServerDir(t, "koredyne-run-")
	ports := map[string]string{}
	for _, p := range []string{"5432", "5433", "6432", "8080", "8081", "8082"} {
		ports[p] = strconv.Itoa(modelstest.FreePort(t))
	}
	const password = "deploy-test-secret"
	bin := buildMain(t)
	phase("built")
	paths := strings.NewReplacer(
		"/etc/koredyne", etc, "/var/lib/koredyne", lib, "/run/koredyne", run,
		"/usr/lib/postgresql/15/bin", pgBin, "/usr/sbin/pgbouncer", modelstest.Tool(t, "pgbouncer"),
		"/usr/sbin/haproxy", modelstest.Tool(t, "haproxy"), "/usr/local/bin/koredyne", bin,
		"CHANGE-ME", password)
	port := regexp.MustCompile(`\b(5432|5433|6432|8080|8081|8082)\b`)
	files, err := filepath.Glob("../../deploy/*")
	if err != nil || len(files) == 0 {
		t.Fatalf("no files in deploy/: %v", err)
	}
	for _, f := range files {
		if filepath.Ext(f) == ".md" {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		text := port.ReplaceAllStringFunc(paths.Replace(string(b)), func(p string) string { return ports[p] })
		if filepath.Base(f) == "pg_hba.conf" && os.Geteuid() != 0 {
			// Not root: the servers run as the test's user, whom peer
			// authentication does not take for postgres.
			text = strings.ReplaceAll(text, "peer", "trust")
		}
		if err := os.WriteFile(filepath.Join(etc, filepath.Base(f)), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	unit := func(name, instance string) (argv, env []string) {
		t.Helper()
		return readUnit(t, filepath.Join(etc, name), instance)
	}
	port5432, _ := strconv.Atoi(ports["5432"])
	port5433, _ := strconv.Atoi(ports["5433"])
	port6432, _ := strconv.Atoi(ports["6432"])
	port8080, _ := strconv.Atoi(ports["8080"])

	// The steps of deploy/README.md, as it gives them but for --no-sync
	// (a test keeps no data). The primary, its roles and database (steps
	// 2-3).
	modelstest.Run(t, nil, "initdb", "--no-sync", "--no-instructions", "-U", "postgres", "-E", "UTF8", "--locale", "C", "-D", filepath.Join(lib, "primary"))
	argv, env := unit("koredyne-postgres@.service", "primary")
	primary := modelstest.StartServer(t, argv, env, port5432, filepath.Join(lib, "primary.log"))
	psql := func(port, sql string) string {
		t.Helper()
		return strings.TrimSpace(modelstest.Run(t, nil, "psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", "-h", run, "-p", port, "-U", "postgres", "-d", "postgres", "-tAc", sql))
	}
	pgReady(t, run, ports["5432"])
	psql(ports["5432"], fmt.Sprintf("CREATE ROLE koredyne LOGIN PASSWORD '%s'; CREATE ROLE replicator REPLICATION LOGIN PASSWORD '%s'", password, password))
	psql(ports["5432"], "CREATE DATABASE koredyne OWNER koredyne")
	users := psql(ports["5432"], `SELECT format('"%s" "%s"', rolname, rolpassword) FROM pg_authid WHERE rolname = 'koredyne'`)
	if err := os.WriteFile(filepath.Join(etc, "pgbouncer-users.txt"), []byte(users+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	phase("primary")

	// The replica (step 4).
	modelstest.Run(t, []string{"PGPASSWORD=" + password}, "pg_basebackup", "-h", "127.0.0.1", "-p", ports["5432"], "-U", "replicator",
		"-D", filepath.Join(lib, "replica"), "-R", "-X", "stream", "--checkpoint=fast", "--no-sync")
	argv, env = unit("koredyne-postgres@.service", "replica")
	modelstest.StartServer(t, argv, env, port5433, filepath.Join(lib, "replica.log"))
	deadline := time.Now().Add(30 * time.Second)
	for psql(ports["5432"], "SELECT count(*) FROM pg_stat_replication WHERE state = 'streaming'") != "1" {
		if time.Now().After(deadline) {
			t.Fatalf("the replica does not stream: %s", primary.Log())
		}
		time.Sleep(50 * time.Millisecond)
	}

	phase("replica")

	// PgBouncer, the servers and HAProxy (steps 5-7).
	argv, env = unit("koredyne-pgbouncer.service", "")
	modelstest.StartServer(t, argv, env, port6432, filepath.Join(lib, "pgbouncer.log"))
	var servers []*exec.Cmd
	for _, p := range []string{ports["8081"], ports["8082"]} {
		argv, env := unit("koredyne@.service", p)
		cmd := exec.Command(argv[0], argv[1:]...)
		// The first start seeds the demo business with this owner token.
		cmd.Env = append(append(os.Environ(), env...), "KOREDYNE_BOOTSTRAP_TOKEN="+bootstrapToken)
		log, err := os.Create(filepath.Join(lib, "koredyne-"+p+".log"))
		if err != nil {
			t.Fatal(err)
		}
		cmd.Stdout, cmd.Stderr = log, log
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done); log.Close() }()
		t.Cleanup(func() {
			cmd.Process.Signal(os.Interrupt)
			<-done
		})
		waitStatus(t, "http://127.0.0.1:"+p+"/readyz", 200, done, log.Name())
		servers = append(servers, cmd)
	}
	argv, env = unit("koredyne-haproxy.service", "")
	proxy := modelstest.StartServer(t, argv, env, port8080, filepath.Join(lib, "haproxy.log"))
	url := "http://127.0.0.1:" + ports["8080"]

	phase("servers and proxy")

	// Through the proxy.
	if status, body := deployGet(t, url+"/readyz"); status != 200 || body != "ready\n" {
		t.Fatalf("/readyz through HAProxy: %d %q: %s", status, body, proxy.Log())
	}
	if status, _ := deployGet(t, url+"/metrics"); status != 403 {
		t.Errorf("/metrics through HAProxy: %d, want 403", status)
	}
	status, header, wrote, body := askRevision(t, url, `mutation { createClosure(input: {from: "2090-01-01", to: "2090-01-02", reason: "deploy"}) { revision } }`, "")
	if status != 200 || wrote == 0 || header != strconv.FormatInt(wrote, 10) {
		t.Fatalf("a write through HAProxy: %d, Koredyne-Revision %q: %s", status, header, body)
	}
	// A client that moves between processes (the balancer sends a token
	// to one, but a client may go to each directly, or its process may
	// stop) reads its write on any with Koredyne-Revision.
	for i := range 6 {
		direct := "http://127.0.0.1:" + ports[[]string{"8081", "8082"}[i%2]]
		if status, _, got, body := askRevision(t, direct, `{ business { revision } }`, header); status != 200 || got < wrote {
			t.Fatalf("read %d after writing revision %d: %d, revision %d: %s", i, wrote, status, got, body)
		}
	}
	req, _ := http.NewRequest("PROPFIND", url+"/caldav/", strings.NewReader(`<?xml version="1.0"?><d:propfind xmlns:d="DAV:"><d:prop><d:current-user-principal/></d:prop></d:propfind>`))
	req.SetBasicAuth("demo", bootstrapToken)
	req.Header.Set("Depth", "0")
	req.Header.Set("Content-Type", "application/xml")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	dav, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 207 || !bytes.Contains(dav, []byte("current-user-principal")) {
		t.Errorf("CalDAV PROPFIND through HAProxy: %d %s", resp.StatusCode, dav)
	}

	// The replica serves reads (the timetable a query loads) on the
	// process the token's requests go to.
	routed := regexp.MustCompile(`koredyne_replica_reads_total\{target="(replica|primary_behind)"\} [1-9]`)
	var replicaReads []string
	for _, p := range []string{ports["8081"], ports["8082"]} {
		status, metrics := deployGet(t, "http://127.0.0.1:"+p+"/metrics")
		if status == 200 && routed.MatchString(metrics) {
			replicaReads = nil
			break
		}
		replicaReads = append(replicaReads, fmt.Sprint(status, regexp.MustCompile(`(?m)^koredyne_replica.*$`).FindAllString(metrics, -1)))
	}
	if replicaReads != nil {
		t.Errorf("no read was routed by the replica's revision on either process: %s", replicaReads)
	}

	phase("requests")

	// One credential, one process: deploy/haproxy.cfg hashes the API token
	// of Authorization: Bearer and the password of a CalDAV login, so
	// every request of a token, through the API or CalDAV, reaches the
	// process that served the token before. Each process counts what it
	// served in /metrics.
	processes := []*server{{url: "http://127.0.0.1:" + ports["8081"]}, {url: "http://127.0.0.1:" + ports["8082"]}}
	served := func() (out [2][2]float64) {
		for i, p := range processes {
			m := scrape(t, p)
			out[i] = [2]float64{m[`koredyne_graphql_requests_total{operation="Affinity",outcome="ok"}`], m[`koredyne_caldav_requests_total{method="PROPFIND",status="207"}`]}
		}
		return out
	}
	tokens := []string{bootstrapToken}
	for range 3 {
		tokens = append(tokens, deployToken(t, url, "MANAGER"))
	}
	used := map[int]bool{}
	for n, tok := range tokens {
		before := served()
		for range 5 {
			if status, _, _, body := askRevisionAs(t, url, tok, `query Affinity { business { revision } }`, ""); status != 200 {
				t.Fatalf("a query of token %d: %d %s", n, status, body)
			}
			req, _ := http.NewRequest("PROPFIND", url+"/caldav/demo/calendars/", strings.NewReader(`<?xml version="1.0"?><d:propfind xmlns:d="DAV:"><d:prop><d:displayname/></d:prop></d:propfind>`))
			req.SetBasicAuth("demo", tok)
			req.Header.Set("Depth", "1")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 207 {
				t.Fatalf("a CalDAV login with token %d: %d", n, resp.StatusCode)
			}
		}
		after := served()
		var got [2][2]float64
		for i := range processes {
			got[i] = [2]float64{after[i][0] - before[i][0], after[i][1] - before[i][1]}
		}
		if got != [2][2]float64{{5, 5}, {0, 0}} && got != [2][2]float64{{0, 0}, {5, 5}} {
			t.Errorf("token %d's 5 queries and 5 CalDAV requests reached the processes as %v, want all on one", n, got)
		}
		if got[0][0] > 0 {
			used[0] = true
		} else {
			used[1] = true
		}
	}
	t.Logf("%d tokens on %d of the 2 processes", len(tokens), len(used))

	// Read-your-writes without Koredyne-Revision: a write and the read
	// right after it go to the same process, which knows its own write, so
	// the read is never older (round robin read one revision behind in 274
	// of 1,487 such pairs, issue 30).
	pairs, behind := 0, 0
	for i := range 50 {
		for n, tok := range tokens {
			day := time.Date(2091, 1, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, i*len(tokens)+n).Format(time.DateOnly)
			status, _, wrote, body := askRevisionAs(t, url, tok, fmt.Sprintf(`mutation { createClosure(input: {from: %q, to: %q, reason: "pair"}) { revision } }`, day, day), "")
			if status != 200 || wrote == 0 {
				t.Fatalf("write %d of token %d: %d %s", i, n, status, body)
			}
			status, _, read, body := askRevisionAs(t, url, tok, `{ business { revision } }`, "")
			if status != 200 {
				t.Fatalf("read %d of token %d: %d %s", i, n, status, body)
			}
			pairs++
			if read < wrote {
				behind++
			}
		}
	}
	if behind > 0 {
		t.Errorf("%d of %d reads right after a write, without Koredyne-Revision, read an older revision", behind, pairs)
	}

	phase("one credential, one process")

	// One server dies: HAProxy sends every request to the other.
	servers[0].Process.Kill()
	for i := range 20 {
		if status, _, got, body := askRevision(t, url, `{ business { revision } }`, ""); status != 200 || got < wrote {
			t.Fatalf("request %d with a server killed: %d, revision %d: %s\n%s", i, status, got, body, proxy.Log())
		}
	}
	if status, body := deployGet(t, url+"/readyz"); status != 200 {
		t.Errorf("/readyz with a server killed: %d %q", status, body)
	}
	phase("a server killed")
}

// deployToken makes a token of role through the API and returns its secret.
func deployToken(t *testing.T, url, role string) string {
	t.Helper()
	status, _, _, body := askRevision(t, url, `mutation { createToken(role: `+role+`) { secret } }`, "")
	var out struct {
		Data struct{ CreateToken struct{ Secret string } }
	}
	if err := json.Unmarshal([]byte(body), &out); status != 200 || err != nil || out.Data.CreateToken.Secret == "" {
		t.Fatalf("making a %s token: %d %v %s", role, status, err, body)
	}
	return out.Data.CreateToken.Secret
}

// readUnit reads the [Service] section of a systemd unit file: the command
// line of ExecStart and the environment of Environment= and
// EnvironmentFile=, with the unit's instance for %i and the environment's
// ${VAR} expanded as systemd does.
func readUnit(t *testing.T, file, instance string) (argv, env []string) {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	vars := map[string]string{}
	assign := func(line string) {
		if k, v, ok := strings.Cut(line, "="); ok {
			vars[k] = v
			env = append(env, k+"="+v)
		}
	}
	section, start := "", ""
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(strings.ReplaceAll(sc.Text(), "%i", instance))
		if strings.HasPrefix(line, "[") {
			section = line
			continue
		}
		key, value, ok := strings.Cut(line, "=")
		if section != "[Service]" || !ok || strings.HasPrefix(line, "#") {
			continue
		}
		switch key {
		case "Environment":
			assign(value)
		case "EnvironmentFile":
			b, err := os.ReadFile(value)
			if err != nil {
				t.Fatal(err)
			}
			for l := range strings.SplitSeq(string(b), "\n") {
				if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
					assign(l)
				}
			}
		case "ExecStart":
			start = value
		}
	}
	if start == "" || strings.ContainsAny(start, `"'\`) {
		t.Fatalf("%s: ExecStart %q is not a plain command line", file, start)
	}
	argv = strings.Fields(os.Expand(start, func(k string) string { return vars[k] }))
	return argv, env
}

// pgReady waits until the PostgreSQL server on port (its socket in dir)
// takes connections: its port opens while it still starts up.
func pgReady(t *testing.T, dir, port string) {
	t.Helper()
	isReady := modelstest.Tool(t, "pg_isready")
	deadline := time.Now().Add(30 * time.Second)
	for exec.Command(isReady, "-q", "-h", dir, "-p", port).Run() != nil {
		if time.Now().After(deadline) {
			t.Fatalf("the server on port %s is not ready", port)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// waitStatus polls url until it answers status, failing the test when the
// process (done) exits first or after 60 seconds.
func waitStatus(t *testing.T, url string, status int, done chan struct{}, log string) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		if got, _ := deployGet(t, url); got == status {
			return
		}
		b, _ := os.ReadFile(log)
		select {
		case <-done:
			t.Fatalf("the server exited: %s", b)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s does not answer %d: %s", url, status, b)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// deployGet is a GET's status and body; 0 when there is no answer.
func deployGet(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		return 0, err.Error()
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}
