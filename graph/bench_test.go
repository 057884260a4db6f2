package graph_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sort"
	"testing"
	"time"

	"github.com/koredyne/schedule/engine"
	"github.com/koredyne/schedule/engine/demo"
	"github.com/koredyne/schedule/graph"
	"github.com/koredyne/schedule/models"
	"github.com/koredyne/schedule/models/modelstest"
)

const weekQuery = `{ days(from: "2026-11-29", to: "2026-12-06") { date sessions {
	id start end startsAt room { name } class { name } staff { name } series { week cycleWeeks series { name } } cancelled } } }`

// gymServer is the API with the gym demo on SQLite, warmed up.
func gymServer(b *testing.B) (http.Handler, string) {
	d := modelstest.SQLite(b)
	store := models.NewStore(d.DB, func() time.Time { return now })
	ctx := context.Background()
	st := demo.Gym(engine.DateOf(now))
	biz, err := models.CreateBusiness(ctx, d.DB, "gym", st.Business)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := store.Write(ctx, biz.ID, false, func(e *models.Edit) error { e.ReplaceSchedule(st); return nil }); err != nil {
		b.Fatal(err)
	}
	tok, _, err := models.CreateToken(ctx, d.DB, biz.ID, models.ReadOnly, "bench", "")
	if err != nil {
		b.Fatal(err)
	}
	h := (&graph.Resolver{Store: store, Log: slog.New(slog.NewTextHandler(io.Discard, nil))}).Handler()
	return h, tok
}

func weekRequest(tok string) *http.Request {
	body, _ := json.Marshal(map[string]string{"query": weekQuery})
	req := httptest.NewRequest("POST", "/graphql", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+tok)
	return req
}

// BenchmarkDaysWeek is the server time of one week of the gym demo from a
// warm snapshot, asked again at the same revision: the token check and the
// revision (one query), then the revision's cached response.
func BenchmarkDaysWeek(b *testing.B) {
	h, tok := gymServer(b)
	w := httptest.NewRecorder()
	h.ServeHTTP(w, weekRequest(tok))
	if w.Code != 200 || bytes.Contains(w.Body.Bytes(), []byte(`"errors"`)) {
		b.Fatalf("%d %s", w.Code, w.Body.String())
	}
	b.ReportMetric(float64(w.Body.Len()), "bytes/response")
	b.ResetTimer()
	for b.Loop() {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, weekRequest(tok))
	}
}

// BenchmarkDaysWeekUncached asks for a different week each time, so every
// request executes: the cost of a week that nobody has asked for at this
// revision yet.
func BenchmarkDaysWeekUncached(b *testing.B) {
	h, tok := gymServer(b)
	q := `query($from: Date!, $to: Date!) { days(from: $from, to: $to) { date sessions {
	id start end startsAt room { name } class { name } staff { name } series { week cycleWeeks series { name } } cancelled } } }`
	start := engine.MustDate(2026, 11, 29)
	i := 0
	for b.Loop() {
		from := start.AddDays(7 * (i % 2000))
		i++
		body, _ := json.Marshal(map[string]any{"query": q, "variables": map[string]string{"from": from.String(), "to": from.AddDays(7).String()}})
		req := httptest.NewRequest("POST", "/graphql", bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer "+tok)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		if w.Code != 200 {
			b.Fatal(w.Body.String())
		}
	}
}

// BenchmarkDaysWeekLoopback is the same request over real HTTP on
// loopback from parallel clients; it reports requests per second and the
// latency percentiles.
func BenchmarkDaysWeekLoopback(b *testing.B) {
	h, tok := gymServer(b)
	srv := httptest.NewServer(h)
	defer srv.Close()
	body, _ := json.Marshal(map[string]string{"query": weekQuery})
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
	b.SetParallelism(8)
	lat := make(chan time.Duration, 1<<20)
	start := time.Now()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			t0 := time.Now()
			req, _ := http.NewRequest("POST", srv.URL, bytes.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Authorization", "Bearer "+tok)
			resp, err := client.Do(req)
			if err != nil {
				b.Error(err)
				return
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 200 {
				b.Errorf("status %d", resp.StatusCode)
				return
			}
			select {
			case lat <- time.Since(t0):
			default:
			}
		}
	})
	elapsed := time.Since(start)
	close(lat)
	var all []time.Duration
	for d := range lat {
		all = append(all, d)
	}
	sort.Slice(all, func(i, j int) bool { return all[i] < all[j] })
	if len(all) > 0 {
		b.ReportMetric(float64(b.N)/elapsed.Seconds(), "req/s")
		b.ReportMetric(float64(all[len(all)/2].Microseconds()), "p50-µs")
		b.ReportMetric(float64(all[len(all)*99/100].Microseconds()), "p99-µs")
	}
}
