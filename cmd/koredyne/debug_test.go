package main

import (
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

func TestDebugAddrMustBeLoopback(t *testing.T) {
	for _, tc := range []struct {
		addr string
		ok   bool
	}{
		{"127.0.0.1:6060", true},
		{"[::1]:6060", true},
		{"localhost:0", true},
		{"0.0.0.0:6060", false},
		{":6060", false},
		{"192.168.1.5:6060", false},
		{"example.com:6060", false},
		{"127.0.0.1", false},
	} {
		c := validConfig()
		c.DebugAddr = tc.addr
		err := c.Validate(true)
		if got := err == nil; got != tc.ok {
			t.Errorf("--debug-addr %q: got error %v, want ok %v", tc.addr, err, tc.ok)
		}
		if err != nil && !strings.Contains(err.Error(), "--debug-addr") {
			t.Errorf("--debug-addr %q: the error %q does not name the flag", tc.addr, err)
		}
	}
}

func TestServeDebugProfiles(t *testing.T) {
	at, stop, err := serveDebug("127.0.0.1:0", slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	for path, want := range map[string]string{
		"/debug/pprof/":                  "goroutine",
		"/debug/pprof/goroutine?debug=1": "goroutine profile: total",
		"/debug/pprof/profile?seconds=1": "", // a CPU profile: gzipped protobuf, not empty
		"/debug/pprof/heap?debug=1":      "heap profile",
	} {
		resp, err := http.Get("http://" + at + path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || len(body) == 0 || !strings.Contains(string(body), want) {
			t.Errorf("GET %s: got %d with %d bytes (%.80q), want 200 holding %q", path, resp.StatusCode, len(body), body, want)
		}
	}
	stop()
	if c, err := net.Dial("tcp", at); err == nil {
		c.Close()
		t.Errorf("the debug server still listens at %s after stop", at)
	}
}

// TestServeWithDebugAddr starts serve with --debug-addr: the profiles are
// served there, and the API's address does not serve them.
func TestServeWithDebugAddr(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	srv := startMain(t, map[string]string{"KOREDYNE_BOOTSTRAP_TOKEN": bootstrapToken}, "--data", t.TempDir(), "--debug-addr", addr)
	defer srv.stop()
	resp, err := http.Get("http://" + addr + "/debug/pprof/goroutine?debug=1")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), "goroutine profile: total") {
		t.Errorf("GET /debug/pprof/goroutine at --debug-addr: got %d %.100q, want 200 with the goroutine profile", resp.StatusCode, body)
	}
	resp, err = http.Get(srv.url + "/debug/pprof/")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode == http.StatusOK {
		t.Errorf("the API's address serves /debug/pprof/: got %d", resp.StatusCode)
	}
}

// validConfig is serve's configuration with its flags' defaults.
func validConfig() *Config {
	return &Config{Addr: "127.0.0.1:8080", DBConns: 20, ReplicaLag: 5 * time.Second, WeeksBack: 8, WeeksAhead: 52,
		PlaygroundIdle: time.Hour, PlaygroundMax: 200, MaxBody: 10 << 20, MaxDepth: 12, MaxCost: 200000,
		MaxAliases: 100, MaxMutations: 20, MaxResponse: 32 << 20, CacheMB: 256, ColdLoads: 2,
		WriteShare: 0.05, WebhookLease: time.Minute}
}

func TestWriteShareBelowOne(t *testing.T) {
	for _, v := range []float64{-0.1, 1, 2} {
		c := validConfig()
		c.WriteShare = v
		if err := c.Validate(true); err == nil || !strings.Contains(err.Error(), "--write-share") {
			t.Errorf("--write-share %v: got %v, want an error naming the flag", v, err)
		}
	}
	c := validConfig()
	c.WriteShare = 0 // writes never wait
	if err := c.Validate(true); err != nil {
		t.Errorf("--write-share 0: %v", err)
	}
}

func TestColdLoadsAtLeastOne(t *testing.T) {
	for _, n := range []int{0, -1} {
		c := validConfig()
		c.ColdLoads = n
		if err := c.Validate(true); err == nil || !strings.Contains(err.Error(), "--cold-loads") {
			t.Errorf("--cold-loads %d: got %v, want an error naming the flag", n, err)
		}
	}
	if err := validConfig().Validate(true); err != nil {
		t.Errorf("the defaults: %v", err)
	}
}
