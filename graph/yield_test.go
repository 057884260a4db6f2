package graph_test

import (
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/koredyne/schedule/models"
	"github.com/koredyne/schedule/models/modelstest"
)

// TestWritesYieldToAPIReads has four clients write through the API as
// fast as they can (models.Store.YieldWrites, at its default share): alone
// their writes never wait, since a mutation is not a read; beside four
// clients reading the week, writes are held.
func TestWritesYieldToAPIReads(t *testing.T) {
	h, tok, store, _ := gymAPI(t, modelstest.SQLite(t), models.Owner)
	srv := httptest.NewServer(h)
	defer srv.Close()
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 16}}
	sw := newSessionWriter(t, client, srv.URL, tok)
	clients := func(n int, span time.Duration, do func(rng *rand.Rand)) {
		var wg sync.WaitGroup
		start := time.Now()
		for i := range n {
			wg.Go(func() {
				rng := rand.New(rand.NewPCG(uint64(i), 2))
				for time.Since(start) < span {
					do(rng)
				}
			})
		}
		wg.Wait()
	}
	clients(4, 300*time.Millisecond, sw.write)
	if held, waited := store.WritesHeld(); held != 0 {
		t.Fatalf("with no reads, %d writes held for %v", held, waited)
	}
	var wg sync.WaitGroup
	wg.Go(func() { clients(4, 500*time.Millisecond, func(*rand.Rand) { sw.post(weekQuery, nil) }) })
	clients(4, 500*time.Millisecond, sw.write)
	wg.Wait()
	if held, _ := store.WritesHeld(); held == 0 {
		t.Fatal("no write held while four clients read the week")
	}
}
