package main

import (
	"context"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
	_ "time/tzdata"

	"github.com/koredyne/schedule/caldav"
	"github.com/koredyne/schedule/engine"
	"github.com/koredyne/schedule/engine/demo"
	"github.com/koredyne/schedule/graph"
	"github.com/koredyne/schedule/models"
	"github.com/koredyne/schedule/models/modelstest"
)

// TestRunAgainstAServer runs the load test for 2 s against the real API
// and CalDAV gateway on SQLite: every kind of request is sent, none fails,
// and the throughput is not zero.
func TestRunAgainstAServer(t *testing.T) {
	ctx := context.Background()
	today := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	d := modelstest.SQLite(t)
	store := models.NewStore(d.DB, func() time.Time { return today })
	st, _ := demo.ByKind(engine.Gym, engine.DateOf(today))
	b, err := models.CreateBusiness(ctx, d.DB, "demo", st.Business)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := store.Write(ctx, b.ID, false, func(e *models.Edit) error { e.ReplaceSchedule(st); return nil }); err != nil {
		t.Fatal(err)
	}
	token, _, err := models.CreateToken(ctx, d.DB, b.ID, models.Owner, "load", "")
	if err != nil {
		t.Fatal(err)
	}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	mux := http.NewServeMux()
	mux.Handle("/graphql", (&graph.Resolver{Store: store, Log: log}).Handler())
	mux.Handle("/caldav/", caldav.NewHandler(store, log))
	srv := httptest.NewServer(mux)
	defer srv.Close()

	rep, err := Run(ctx, Config{URL: srv.URL, Token: token, Business: "demo", Duration: 2 * time.Second, Concurrency: 4, Today: today})
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	rep.Print(&out)
	t.Logf("\n%s", out.String())
	if rep.Total.Errors != 0 || rep.PerSecond(rep.Total) == 0 {
		t.Errorf("%d errors, %.1f requests/s; want none and more than 0", rep.Total.Errors, rep.PerSecond(rep.Total))
	}
	for _, s := range rep.Kinds[:Write] {
		if len(s.Latencies) == 0 {
			t.Errorf("no %v was sent", s.Kind)
		}
	}
	c := &client{cfg: Config{URL: srv.URL, Token: token, Business: "demo"}, http: srv.Client()}
	if err := c.write(ctx, rand.New(rand.NewPCG(1, 2))); err != nil {
		t.Errorf("the write of the mix: %v", err)
	}
	if p50, p99 := rep.Total.Percentile(0.5), rep.Total.Percentile(0.99); p50 <= 0 || p99 < p50 {
		t.Errorf("p50 %v, p99 %v", p50, p99)
	}
}

// TestConfigRefusesRemoteServers keeps the load test on loopback unless
// told otherwise, and its runs bounded.
func TestConfigRefusesRemoteServers(t *testing.T) {
	base := Config{Token: "kd_x", Business: "demo", Duration: time.Second, Concurrency: 1}
	for _, c := range []struct {
		url         string
		allowRemote bool
		duration    time.Duration
		ok          bool
	}{
		{"http://127.0.0.1:8080", false, time.Second, true},
		{"http://[::1]:8080", false, time.Second, true},
		{"http://localhost:8080", false, time.Second, true},
		{"https://cal.example.com", false, time.Second, false},
		{"https://cal.example.com", true, time.Second, true},
		{"http://127.0.0.1:8080", false, time.Hour, false},
	} {
		cfg := base
		cfg.URL, cfg.AllowRemote, cfg.Duration = c.url, c.allowRemote, c.duration
		if err := cfg.Validate(); (err == nil) != c.ok {
			t.Errorf("%s (remote allowed %v, %v): %v, want ok %v", c.url, c.allowRemote, c.duration, err, c.ok)
		}
	}
}
