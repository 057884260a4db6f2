package graph_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/koredyne/schedule/engine"
	"github.com/koredyne/schedule/graph"
	"github.com/koredyne/schedule/models"
	"github.com/koredyne/schedule/models/cache"
)

// hits counts the response cache's answers.
type hits struct {
	graph.Observer
	hit, miss atomic.Int64
}

func (h *hits) Cache(hit bool) {
	if hit {
		h.hit.Add(1)
	} else {
		h.miss.Add(1)
	}
}
func (h *hits) Operation(context.Context, string, string, time.Duration) {}
func (h *hits) Checked(context.Context, bool)                            {}
func (h *hits) Work(context.Context, float64)                            {}

// post sends a GraphQL request to h and returns the status and the body,
// unzipped when it came gzipped.
func post(t *testing.T, h http.Handler, tok, query string, vars map[string]any, zip bool) (int, []byte) {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"query": query, "variables": vars})
	req := httptest.NewRequest("POST", "/graphql", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+tok)
	if zip {
		req.Header.Set("Accept-Encoding", "gzip")
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	out := w.Body.Bytes()
	if w.Header().Get("Content-Encoding") == "gzip" {
		if !zip {
			t.Fatal("gzipped for a client that did not ask for it")
		}
		zr, err := gzip.NewReader(bytes.NewReader(out))
		if err != nil {
			t.Fatal(err)
		}
		if out, err = io.ReadAll(zr); err != nil {
			t.Fatal(err)
		}
	}
	return w.Code, out
}

var cachedQueries = []string{
	`query($from: Date!, $to: Date!) { days(from: $from, to: $to) { date sessions {
		id start end startsAt room { name } class { name activity { name } } staff { name } series { week cycleWeeks series { name } } cancelled cancelReason changed note placesTaken } } }`,
	`query($from: Date!, $to: Date!) { sessions(from: $from, to: $to) { ref { date classTime { id start } class { id } } room { id name } cancelled } }`,
	`query($from: Date!, $to: Date!) { days(from: $from, to: $to) { date sessions { id room { name feedUrl } series { series { name plans { name price } } } } } }`,
	`query($from: Date!, $to: Date!) { sessions(from: $from, to: $to) { id } day(date: $from) { date sessions { id start cancelled room { name } } } }`,
	`query($from: Date!, $to: Date!) { business { revision } days(from: $from, to: $to) { date } }`,
	`query($from: Date!, $to: Date!) { clashes { clashes { message } } days(from: $from, to: $to) { sessions { id } } }`,
	`query($from: Date!, $to: Date!) { days(from: $from, to: $to) { date sessions { ...s bookings @skip(if: true) { id } } } }
	fragment s on Session { id start end room { name } staff { name } cancelled }`,
}

// TestCachedAnswersAreNeverStale interleaves random writes (one session
// cancelled or restored, a room renamed, a write by another process the
// cache never hears of) with random cached reads, and compares every
// answer of the cached API with the answer of a new server with nothing
// cached, byte for byte. It also checks that answers were carried over
// writes, so the comparison covered them.
func TestCachedAnswersAreNeverStale(t *testing.T) {
	eachDatabase(t, func(t *testing.T, a *api) {
		tok := a.business("gym", engine.Gym)
		obs := &hits{}
		cached := (&graph.Resolver{Store: a.store, Log: slog.New(slog.NewTextHandler(io.Discard, nil)), FeedPath: "/ics/", PagePath: "/t/", Observer: obs}).Handler()
		clock := func() time.Time { return now }
		fresh := func() http.Handler { // a server that has cached nothing
			return (&graph.Resolver{Store: models.NewStore(a.db.DB, clock), Log: slog.New(slog.NewTextHandler(io.Discard, nil)), FeedPath: "/ics/", PagePath: "/t/"}).Handler()
		}
		other := fresh() // another process: its writes are not heard here on SQLite, nor on PostgreSQL without Listen
		first := engine.MustDate(2026, 11, 2)
		const weeks = 8
		_, body := post(t, fresh(), tok, `query($from: Date!, $to: Date!) { sessions(from: $from, to: $to) { ref { date classTime { id } class { id } } } rooms { id } }`,
			map[string]any{"from": first.String(), "to": first.AddDays(7 * weeks).String()}, false)
		var all struct {
			Data struct {
				Sessions []struct {
					Ref struct {
						Date      string
						ClassTime struct{ ID string }
						Class     struct{ ID string }
					}
				}
				Rooms []struct{ ID string }
			}
		}
		if err := json.Unmarshal(body, &all); err != nil || len(all.Data.Sessions) == 0 {
			t.Fatalf("%v: %s", err, body)
		}
		rng := rand.New(rand.NewPCG(7, 13))
		steps := 200
		if testing.Short() {
			steps = 100
		}
		carried, writes := 0, 0
		lastRead := map[string]int{} // writes made when a query was last asked
		for i := range steps {
			switch r := rng.IntN(10); {
			case r < 3: // cancel or restore one session: changes its date only
				s := all.Data.Sessions[rng.IntN(len(all.Data.Sessions))]
				ref := map[string]any{"date": s.Ref.Date, "classTimeId": s.Ref.ClassTime.ID, "classId": s.Ref.Class.ID}
				h := cached
				if rng.IntN(10) == 0 {
					h = other
				}
				q := `mutation($ref: SessionRefInput!) { cancelSession(ref: $ref, reason: "n") { revision } }`
				if rng.IntN(2) == 0 {
					q = `mutation($ref: SessionRefInput!) { restoreSession(ref: $ref) { revision } }`
				}
				if code, out := post(t, h, tok, q, map[string]any{"ref": ref}, false); code != 200 {
					t.Fatalf("step %d: %d %s", i, code, out)
				}
				writes++
			case r == 3 && rng.IntN(3) == 0: // rename a room: a rule, every date
				id := all.Data.Rooms[rng.IntN(len(all.Data.Rooms))].ID
				q := `mutation($id: ID!, $name: String!) { updateRoom(id: $id, input: {name: $name}) { revision } }`
				if code, out := post(t, cached, tok, q, map[string]any{"id": id, "name": fmt.Sprintf("Room %d", i)}, false); code != 200 {
					t.Fatalf("step %d: %d %s", i, code, out)
				}
				writes++
			default:
				q := cachedQueries[rng.IntN(len(cachedQueries))]
				from := first.AddDays(7 * rng.IntN(weeks))
				vars := map[string]any{"from": from.String(), "to": from.AddDays(7).String()}
				before := obs.hit.Load()
				code, got := post(t, cached, tok, q, vars, rng.IntN(2) == 0)
				_, want := post(t, fresh(), tok, q, vars, false)
				if code != 200 || !bytes.Equal(got, want) || bytes.Contains(got, []byte(`"errors"`)) {
					t.Fatalf("step %d: %s from %s\ncached %d: %s\nfresh: %s", i, firstLine(q), from, code, got, want)
				}
				key := q + from.String()
				if last, ok := lastRead[key]; ok && last < writes && obs.hit.Load() > before {
					carried++ // answered over a write
				}
				lastRead[key] = writes
			}
		}
		t.Logf("%d answers from the cache (%d of them over a write), %d computed", obs.hit.Load(), carried, obs.miss.Load())
		if carried == 0 || obs.miss.Load() == 0 {
			t.Errorf("the cache answered %d reads and missed %d: the test compared nothing cached", carried, obs.miss.Load())
		}
	})
}

// TestCacheWithinTinyBudget serves many businesses through a budget that
// holds only a few of them: the bytes held stay within it, businesses are
// evicted, and every answer is still right (a business evicted and asked
// again is rebuilt from the database).
func TestCacheWithinTinyBudget(t *testing.T) {
	eachDatabase(t, func(t *testing.T, a *api) {
		const budget = 600 << 10
		b := cache.NewBudget(budget)
		var evicted atomic.Int64
		b.Observe(evictions{&evicted})
		a.store.UseBudget(b)
		h := (&graph.Resolver{Store: a.store, Log: slog.New(slog.NewTextHandler(io.Discard, nil))}).Handler()
		var toks []string
		for i := range 12 {
			toks = append(toks, a.business(fmt.Sprintf("b%d", i), []engine.Kind{engine.Gym, engine.Clinic, engine.Office}[i%3]))
		}
		q := cachedQueries[0]
		rng := rand.New(rand.NewPCG(3, 4))
		for i := range 150 {
			tok := toks[rng.IntN(len(toks))]
			from := engine.MustDate(2026, 11, 30).AddDays(7 * rng.IntN(6))
			vars := map[string]any{"from": from.String(), "to": from.AddDays(7).String()}
			code, got := post(t, h, tok, q, vars, false)
			fresh := (&graph.Resolver{Store: models.NewStore(a.db.DB, func() time.Time { return now }), Log: slog.New(slog.NewTextHandler(io.Discard, nil))}).Handler()
			_, want := post(t, fresh, tok, q, vars, false)
			if code != 200 || !bytes.Equal(got, want) {
				t.Fatalf("step %d: cached %d %s\nfresh %s", i, code, got, want)
			}
			if held := b.Held(""); held > budget {
				t.Fatalf("step %d: %d bytes held, over the budget of %d", i, held, budget)
			}
		}
		t.Logf("held %d B (snapshots %d, responses %d), %d evictions", b.Held(""), b.Held("snapshots"), b.Held("responses"), evicted.Load())
		if evicted.Load() == 0 {
			t.Error("nothing was evicted: the budget was not tiny")
		}
	})
}

type evictions struct{ n *atomic.Int64 }

func (evictions) Hit(string)     {}
func (evictions) Miss(string)    {}
func (e evictions) Evict(string) { e.n.Add(1) }
