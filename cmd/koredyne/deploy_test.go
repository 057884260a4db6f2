package main

import (
	"bufio"
	"bytes"
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
// Koredyne-Revision, a CalDAV request, and one process killed without a
// request failing. A missing program skips the test, or fails it under
// CI=true.
func TestDeployment(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a whole deployment")
	}
	for _, tool := range []string{"initdb", "pg_basebackup", "postgres", "psql", "pgbouncer", "haproxy"} {
		modelstest.Tool(t, tool)
	}
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
	for i := range 6 { // round robin: both servers, twice over
		if status, _, got, body := askRevision(t, url, `{ business { revision } }`, header); status != 200 || got < wrote {
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

	// The replica serves reads (the timetable a query loads).
	if status, metrics := deployGet(t, "http://127.0.0.1:"+ports["8081"]+"/metrics"); status != 200 ||
		!regexp.MustCompile(`koredyne_replica_reads_total\{target="(replica|primary_behind)"\} [1-9]`).MatchString(metrics) {
		t.Errorf("no read was routed by the replica's revision: %d %s", status, regexp.MustCompile(`(?m)^koredyne_replica.*$`).FindAllString(metrics, -1))
	}

	phase("requests")

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
