package graph_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/koredyne/schedule/engine"
	"github.com/koredyne/schedule/graph"
	"github.com/koredyne/schedule/models"
	"github.com/koredyne/schedule/models/modelstest"
)

// stall is an Observer that, once armed, holds the request whose token it
// hears checked until the request's context ends: the request then reaches
// GraphQL with its deadline passed, as one that waited out its deadline for
// a database connection on a loaded server does.
type stall struct {
	armed    atomic.Bool
	mu       sync.Mutex
	outcomes []string
}

func (s *stall) Checked(ctx context.Context, good bool) {
	if s.armed.Load() {
		<-ctx.Done()
	}
}

func (s *stall) Operation(ctx context.Context, name, outcome string, took time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.outcomes = append(s.outcomes, outcome)
}

func (*stall) Cache(bool)                    {}
func (*stall) Work(context.Context, float64) {}

// TestRanOutBeforeRunning sends a mutation and a query whose deadline passes
// after their token is checked and before GraphQL runs them. Each must
// answer TIMEOUT, and the mutation must write nothing. gqlgen answers such a
// request `null` with 200, neither data nor errors, which the booking race
// (cmd/koredyne) took for a booking confirmed: one that was never made.
func TestRanOutBeforeRunning(t *testing.T) {
	for _, d := range modelstest.Databases(t) {
		t.Run(d.Name, func(t *testing.T) {
			store := models.NewStore(d.DB, func() time.Time { return now })
			obs := &stall{}
			h := (&graph.Resolver{Store: store, Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Observer: obs}).Handler()
			a := &api{t: t, db: d, store: store, handler: h}
			tok := a.business("late", engine.Gym)
			send := func(query string, deadline time.Duration) (int, []byte) {
				t.Helper()
				body, _ := json.Marshal(map[string]any{"query": query})
				ctx, cancel := context.WithTimeout(context.Background(), deadline)
				defer cancel()
				req := httptest.NewRequest("POST", "/graphql", bytes.NewReader(body)).WithContext(ctx)
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Authorization", "Bearer "+tok)
				w := httptest.NewRecorder()
				h.ServeHTTP(w, req)
				return w.Code, w.Body.Bytes()
			}
			rooms := func() int {
				t.Helper()
				_, body := send(`{ rooms { id } }`, time.Minute)
				var out struct{ Data struct{ Rooms []any } }
				if err := json.Unmarshal(body, &out); err != nil || out.Data.Rooms == nil {
					t.Fatalf("rooms: %s (%v)", body, err)
				}
				return len(out.Data.Rooms)
			}
			before := rooms()

			obs.armed.Store(true)
			for _, q := range []string{
				`mutation { createRoom(input: {name: "Too late"}) { room { id } } }`,
				`{ rooms { id name } }`,
			} {
				status, body := send(q, 50*time.Millisecond)
				var out struct {
					Data   map[string]any
					Errors []gqlError
				}
				if err := json.Unmarshal(body, &out); err != nil {
					t.Fatalf("%s: %d %s: %v", q, status, body, err)
				}
				if len(out.Errors) != 1 || out.Errors[0].code() != "TIMEOUT" || out.Data != nil {
					t.Errorf("%s: %d %s, want one TIMEOUT error and no data", q, status, body)
				}
			}
			obs.armed.Store(false)

			if after := rooms(); after != before {
				t.Errorf("%d rooms after a mutation that ran out of time, %d before", after, before)
			}
			obs.mu.Lock()
			if n := len(obs.outcomes); n < 2 || obs.outcomes[n-2] != "TIMEOUT" || obs.outcomes[n-1] != "ok" {
				t.Errorf("the observer heard %v, want TIMEOUT for the request that ran out of time", obs.outcomes)
			}
			obs.mu.Unlock()
		})
	}
}
