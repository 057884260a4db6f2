package modelstest

import (
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/koredyne/schedule/models/modelstest/need"
)

// This file starts real database servers for tests of the deployment
// around PostgreSQL: PgBouncer in front of the test database, and a primary
// with a streaming replica. Each runs from the machine's packages on a free
// loopback port, with its files in a temporary directory, and is stopped by
// its PID when the test ends. A missing program skips the test, or fails
// it under CI=true (package need).

// tool finds a program (find): a missing one skips the test, or fails it
// under CI=true.
func tool(t testing.TB, name string) string {
	t.Helper()
	p, ok := find(name)
	if !ok {
		t.Logf("%s is not installed", name)
		need.Missing(t, debianPackage(name), "apt-get install "+debianPackage(name))
	}
	return p
}

// find finds a program: on PATH, in /usr/sbin (Debian's pgbouncer), or
// among PostgreSQL's server programs (/usr/lib/postgresql/N/bin, newest
// first), which Debian keeps off PATH.
func find(name string) (string, bool) {
	if p, err := exec.LookPath(name); err == nil {
		return p, true
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	slices.SortFunc(dirs, func(a, b string) int {
		va, _ := strconv.Atoi(filepath.Base(filepath.Dir(a)))
		vb, _ := strconv.Atoi(filepath.Base(filepath.Dir(b)))
		return vb - va
	})
	for _, dir := range append([]string{"/usr/sbin", "/usr/local/sbin"}, dirs...) {
		if p := filepath.Join(dir, name); isExecutable(p) {
			return p, true
		}
	}
	return "", false
}

// debianPackage is the package that installs a program the servers use.
func debianPackage(program string) string {
	switch program {
	case "initdb", "postgres", "pg_basebackup", "pg_ctl", "psql":
		return "postgresql"
	}
	return program
}

func isExecutable(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0
}

// serverUser is who the servers run as: initdb, postgres and pgbouncer all
// refuse root, so as root they run as the postgres user, and otherwise as
// whoever runs the tests. nil: no change of user.
func serverUser(t testing.TB) *syscall.Credential {
	t.Helper()
	cred, err := serverCredential()
	if err != nil {
		t.Fatal(err)
	}
	return cred
}

func serverCredential() (*syscall.Credential, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	u, err := user.Lookup("postgres")
	if err != nil {
		return nil, fmt.Errorf("running as root, the database servers need a postgres user to run as: %w", err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}, nil
}

// command is a program run as the servers' user.
func command(t testing.TB, name string, args ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(tool(t, name), args...)
	if cred := serverUser(t); cred != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	}
	// The servers' own locale and time zone, not the test's.
	cmd.Env = append(os.Environ(), "LC_ALL=C", "TZ=UTC")
	return cmd
}

// run runs a program as the servers' user and fails the test on error.
func run(t testing.TB, name string, args ...string) {
	t.Helper()
	if out, err := command(t, name, args...).CombinedOutput(); err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
}

// serverDir is a fresh directory the servers' user owns, removed when the
// test ends. (t.TempDir is private to the test's user.)
func serverDir(t testing.TB, prefix string) string {
	t.Helper()
	dir, err := os.MkdirTemp("", prefix)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if cred := serverUser(t); cred != nil {
		if err := os.Chown(dir, int(cred.Uid), int(cred.Gid)); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// freePort is a loopback port nothing listens on (for a moment: the server
// is started on it at once).
func freePort(t testing.TB) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// Server is a database server a test started.
type Server struct {
	Port int
	cmd  *exec.Cmd
	done chan struct{}
	log  string
}

// start runs a server and waits until its port takes connections; the
// server is stopped when the test ends.
func start(t testing.TB, cmd *exec.Cmd, port int, log string) *Server {
	t.Helper()
	s := &Server{Port: port, cmd: cmd, done: make(chan struct{}), log: log}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { cmd.Wait(); close(s.done) }()
	t.Cleanup(s.Stop)
	deadline := time.Now().Add(30 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", port), time.Second)
		if err == nil {
			c.Close()
			return s
		}
		select {
		case <-s.done:
			t.Fatalf("%s exited at start: %s", cmd.Path, s.Log())
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s does not take connections on port %d: %s", cmd.Path, port, s.Log())
		}
	}
}

// Stop stops the server by its PID: SIGINT (PostgreSQL's fast shutdown,
// PgBouncer's safe one), then SIGKILL after 10 seconds. Stopping a stopped
// server does nothing.
func (s *Server) Stop() {
	select {
	case <-s.done:
		return
	default:
	}
	s.cmd.Process.Signal(os.Interrupt)
	select {
	case <-s.done:
	case <-time.After(10 * time.Second):
		s.cmd.Process.Kill()
		<-s.done
	}
}

// Log is the end of the server's log file, for failure messages.
func (s *Server) Log() string {
	b, _ := os.ReadFile(s.log)
	if len(b) > 4000 {
		b = b[len(b)-4000:]
	}
	return string(b)
}

// PgBouncer starts a PgBouncer in transaction pooling in front of the
// database of dsn (a URL as Postgres returns, its schema in search_path)
// and returns the URL that goes through it. PgBouncer passes on no
// search_path from clients, so the schema is set on each of its server
// connections instead (connect_query), as a deployment would set a role's
// or database's.
func PgBouncer(t testing.TB, dsn string) (string, *Server) {
	t.Helper()
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	dir := serverDir(t, "koredyne-pgbouncer-")
	port := freePort(t)
	host, pgPort, _ := net.SplitHostPort(u.Host)
	if pgPort == "" {
		host, pgPort = u.Host, "5432"
	}
	db := strings.TrimPrefix(u.Path, "/")
	user := u.User.Username()
	entry := fmt.Sprintf("host=%s port=%s dbname=%s user=%s", host, pgPort, db, user)
	if p, ok := u.User.Password(); ok {
		entry += " password=" + p
	}
	if sp := u.Query().Get("search_path"); sp != "" {
		entry += fmt.Sprintf(" connect_query='SET search_path TO %s'", sp)
	}
	ini := fmt.Sprintf(`[databases]
koredyne = %s

[pgbouncer]
listen_addr = 127.0.0.1
listen_port = %d
unix_socket_dir =
auth_type = any
pool_mode = transaction
max_client_conn = 1000
default_pool_size = 20
logfile = %s
`, entry, port, filepath.Join(dir, "pgbouncer.log"))
	conf := filepath.Join(dir, "pgbouncer.ini")
	if err := os.WriteFile(conf, []byte(ini), 0o644); err != nil {
		t.Fatal(err)
	}
	s := start(t, command(t, "pgbouncer", conf), port, filepath.Join(dir, "pgbouncer.log"))
	through := url.URL{Scheme: "postgres", User: url.User("postgres"), Host: fmt.Sprintf("127.0.0.1:%d", port), Path: "/koredyne", RawQuery: "sslmode=disable"}
	return through.String(), s
}

// waitSQL polls a query through psql until it prints want.
func waitSQL(t testing.TB, port int, query, want string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		out, err := command(t, "psql", "-X", "-h", "127.0.0.1", "-p", strconv.Itoa(port), "-U", "postgres", "-d", "postgres", "-tAc", query).CombinedOutput()
		if err == nil && strings.TrimSpace(string(out)) == want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("port %d: %s gives %q (%v), want %q", port, query, out, err, want)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Replicated is a PostgreSQL primary and a streaming replica of it that a
// test started, each a cluster of its own in a temporary directory.
type Replicated struct {
	Primary, Replica       *Server
	PrimaryDSN, ReplicaDSN string // the postgres database of each
}

// Replication starts a primary cluster (initdb) and a streaming replica of
// it (pg_basebackup -R), each on a free loopback port, and waits until the
// replica streams. The machine's own server is not used: its pg_hba.conf
// need not allow replication, and a test may stop these at will. Both are
// tuned for tests (no fsync), not for keeping data.
func Replication(t testing.TB) *Replicated {
	t.Helper()
	dir := serverDir(t, "koredyne-replication-")
	primary, replica := filepath.Join(dir, "primary"), filepath.Join(dir, "replica")
	run(t, "initdb", "--no-sync", "--no-instructions", "-A", "trust", "-U", "postgres", "-E", "UTF8", "--locale", "C", "-D", primary)
	pp, rp := freePort(t), freePort(t)
	conf := func(data string, port int) {
		t.Helper()
		f, err := os.OpenFile(filepath.Join(data, "postgresql.conf"), os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		fmt.Fprintf(f, "\n# koredyne test cluster\nlisten_addresses = '127.0.0.1'\nport = %d\nunix_socket_directories = ''\n"+
			"wal_level = replica\nmax_wal_senders = 4\nhot_standby = on\nfsync = off\nfull_page_writes = off\n"+
			"shared_buffers = 16MB\nmax_connections = 60\nwal_receiver_status_interval = 1s\nlogging_collector = off\n", port)
	}
	conf(primary, pp)
	log := filepath.Join(dir, "primary.log")
	r := &Replicated{Primary: start(t, serverCommand(t, primary, log), pp, log)}
	waitSQL(t, pp, "SELECT 1", "1")
	run(t, "pg_basebackup", "-h", "127.0.0.1", "-p", strconv.Itoa(pp), "-U", "postgres", "-D", replica, "-R", "-X", "stream", "--checkpoint=fast", "--no-sync")
	conf(replica, rp)
	log = filepath.Join(dir, "replica.log")
	r.Replica = start(t, serverCommand(t, replica, log), rp, log)
	waitSQL(t, pp, "SELECT count(*) FROM pg_stat_replication WHERE state = 'streaming'", "1")
	dsn := func(port int) string {
		return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", port)
	}
	r.PrimaryDSN, r.ReplicaDSN = dsn(pp), dsn(rp)
	return r
}

// serverCommand runs postgres itself (not pg_ctl), so that its PID is the
// server's, with its log in a file.
func serverCommand(t testing.TB, data, log string) *exec.Cmd {
	t.Helper()
	f, err := os.Create(log)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	cmd := command(t, "postgres", "-D", data)
	cmd.Stdout, cmd.Stderr = f, f
	return cmd
}

// Start starts a stopped server again on its port, as it was.
func (s *Server) Start(t testing.TB) {
	t.Helper()
	cmd := exec.Command(s.cmd.Path, s.cmd.Args[1:]...)
	cmd.SysProcAttr, cmd.Env, cmd.Stdout, cmd.Stderr = s.cmd.SysProcAttr, s.cmd.Env, s.cmd.Stdout, s.cmd.Stderr
	*s = *start(t, cmd, s.Port, s.log)
}

// SQL runs a statement as postgres on the server through psql and returns
// what it prints.
func (s *Server) SQL(t testing.TB, query string) string {
	t.Helper()
	out, err := command(t, "psql", "-X", "-h", "127.0.0.1", "-p", strconv.Itoa(s.Port), "-U", "postgres", "-d", "postgres", "-tAc", query).CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v\n%s", query, err, out)
	}
	return strings.TrimSpace(string(out))
}

// The programs a deployment's own files describe (cmd/koredyne's
// TestDeployment) start through these: the same programs, users and
// directories as above, with the command lines the files give.

// Tool finds a program as the servers above do: a missing one skips the
// test, or fails it under CI=true.
func Tool(t testing.TB, name string) string {
	t.Helper()
	return tool(t, name)
}

// Tools finds programs as Tool does; the test is skipped (or fails) naming
// every one that is missing.
func Tools(t testing.TB, names ...string) {
	t.Helper()
	var missing []need.Program
	for _, name := range names {
		if _, ok := find(name); !ok {
			t.Logf("%s is not installed", name)
			missing = append(missing, need.Program{What: debianPackage(name), How: "apt-get install " + debianPackage(name)})
		}
	}
	if len(missing) > 0 {
		need.MissingAll(t, slices.CompactFunc(missing, func(a, b need.Program) bool { return a == b })...)
	}
}

// ServerDir is a fresh directory the servers' user owns, removed when the
// test ends.
func ServerDir(t testing.TB, prefix string) string {
	t.Helper()
	return serverDir(t, prefix)
}

// FreePort is a loopback port nothing listens on.
func FreePort(t testing.TB) int {
	t.Helper()
	return freePort(t)
}

// Run runs a program (found as Tool finds it) as the servers' user, with
// env added to its environment, and fails the test on error.
func Run(t testing.TB, env []string, name string, args ...string) string {
	t.Helper()
	cmd := command(t, name, args...)
	cmd.Env = append(cmd.Env, env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return string(out)
}

// StartServer runs argv (a program's path and its arguments) as the
// servers' user, with env added to its environment and its output in the
// file log, and waits until port takes connections; it is stopped when the
// test ends.
func StartServer(t testing.TB, argv, env []string, port int, log string) *Server {
	t.Helper()
	f, err := os.Create(log)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	cmd := exec.Command(argv[0], argv[1:]...)
	if cred := serverUser(t); cred != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	}
	cmd.Env = append(append(os.Environ(), "LC_ALL=C", "TZ=UTC"), env...)
	cmd.Stdout, cmd.Stderr = f, f
	return start(t, cmd, port, log)
}
