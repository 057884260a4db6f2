package modelstest

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/koredyne/schedule/models"
	"github.com/koredyne/schedule/models/modelstest/need"
)

// Where KOREDYNE_TEST_DATABASE_URL names no server, the tests start a
// PostgreSQL of their own, so that a developer with PostgreSQL's programs
// installed runs the real database with no set-up: the first test of a
// package that needs one starts a throwaway cluster (initdb in a temporary
// directory, trust authentication, a free loopback port, no fsync), and it
// is stopped and removed when the package's tests end (need.Main). As root
// it runs as the postgres user, as PostgreSQL insists. Should the test
// process die first, the server gets SIGQUIT with it, and the next run
// removes the directory.

// localPrefix begins the name of a local cluster's directory, followed by
// the PID of the tests that made it.
const localPrefix = "koredyne-pg-"

var local struct {
	once    sync.Once
	url     string
	missing string // the program missing, when there is no cluster
	err     error
}

// localPostgres returns the URL of the postgres database of the package's
// own cluster, starting it at the first call; missing names what is not
// installed when there can be none.
func localPostgres() (url, missing string, err error) {
	local.once.Do(func() {
		local.url, local.missing, local.err = startLocal()
	})
	return local.url, local.missing, local.err
}

func startLocal() (url, missing string, err error) {
	if !need.Running() {
		return "", "", errors.New("a local PostgreSQL is stopped when the package's tests end: its TestMain must call need.Main")
	}
	initdb, ok := find("initdb")
	if !ok {
		return "", "initdb", nil
	}
	postgres, ok := find("postgres")
	if !ok {
		return "", "postgres", nil
	}
	cred, err := serverCredential()
	if err != nil {
		return "", "postgres user (the tests run as root, which PostgreSQL refuses)", nil
	}
	removeStale()
	dir, err := os.MkdirTemp("", localPrefix+strconv.Itoa(os.Getpid())+"-")
	if err != nil {
		return "", "", err
	}
	need.AtEnd(func() { os.RemoveAll(dir) })
	if cred != nil {
		if err := os.Chown(dir, int(cred.Uid), int(cred.Gid)); err != nil {
			return "", "", err
		}
	}
	data := filepath.Join(dir, "data")
	env := append(os.Environ(), "LC_ALL=C", "TZ=UTC")
	cmd := exec.Command(initdb, "--no-sync", "--no-instructions", "-A", "trust", "-U", "postgres", "-E", "UTF8", "--locale", "C", "-D", data)
	cmd.Env = env
	if cred != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	}
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", "", fmt.Errorf("initdb: %v\n%s", err, out)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", "", err
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	conf := fmt.Sprintf("\n# koredyne's tests\nlisten_addresses = '127.0.0.1'\nport = %d\nunix_socket_directories = ''\n"+
		"fsync = off\nfull_page_writes = off\nshared_buffers = 32MB\nmax_connections = 200\nlogging_collector = off\n", port)
	f, err := os.OpenFile(filepath.Join(data, "postgresql.conf"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		return "", "", err
	}
	_, err = f.WriteString(conf)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return "", "", err
	}
	logPath := filepath.Join(dir, "postgres.log")
	log, err := os.Create(logPath)
	if err != nil {
		return "", "", err
	}
	need.AtEnd(func() { log.Close() })
	server := exec.Command(postgres, "-D", data)
	server.Env, server.Stdout, server.Stderr = env, log, log
	server.SysProcAttr = &syscall.SysProcAttr{Credential: cred, Pdeathsig: syscall.SIGQUIT}
	if err := startLocked(server); err != nil {
		return "", "", err
	}
	exited := make(chan struct{})
	go func() { server.Wait(); close(exited) }()
	need.AtEnd(func() {
		server.Process.Signal(os.Interrupt) // fast shutdown
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			server.Process.Kill()
			<-exited
		}
	})
	url = fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", port)
	// Until it answers a query: it takes connections before it is ready
	// ("the database system is starting up").
	for deadline := time.Now().Add(60 * time.Second); ; {
		err := ping(url)
		if err == nil {
			return url, "", nil
		}
		select {
		case <-exited:
			b, _ := os.ReadFile(logPath)
			return "", "", fmt.Errorf("the tests' own PostgreSQL exited at start:\n%s", b)
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return "", "", fmt.Errorf("the tests' own PostgreSQL is not ready on port %d: %v", port, err)
		}
	}
}

// ping connects to the database of url and runs a query.
func ping(url string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	db, err := models.Open(ctx, url)
	if err != nil {
		return err
	}
	defer db.Close()
	var one int
	return db.QueryRowContext(ctx, "SELECT 1").Scan(&one)
}

// startLocked starts cmd from a thread that lives as long as the process:
// the parent-death signal of cmd (Pdeathsig) is sent when the thread that
// started it ends, and Go ends threads at will unless one is locked.
func startLocked(cmd *exec.Cmd) error {
	started := make(chan error)
	go func() {
		runtime.LockOSThread()
		started <- cmd.Start()
		select {}
	}()
	return <-started
}

// removeStale removes the directories of local clusters whose tests died
// before they could remove them.
func removeStale() {
	dirs, _ := filepath.Glob(filepath.Join(os.TempDir(), localPrefix+"*"))
	for _, dir := range dirs {
		pid, _, ok := strings.Cut(strings.TrimPrefix(filepath.Base(dir), localPrefix), "-")
		n, err := strconv.Atoi(pid)
		if !ok || err != nil || n <= 0 {
			continue
		}
		if err := syscall.Kill(n, 0); errors.Is(err, syscall.ESRCH) {
			os.RemoveAll(dir)
		}
	}
}
