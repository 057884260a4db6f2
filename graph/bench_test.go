package graph_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
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
	h, tok, _, _ := gymAPI(b, modelstest.SQLite(b), models.ReadOnly)
	return h, tok
}

// gymAPI is the API with the gym demo on d and a token of role.
func gymAPI(b testing.TB, d modelstest.Database, role models.Role) (http.Handler, string, *models.Store, *models.Business) {
	return benchAPI(b, d, "gym", demo.Gym(engine.DateOf(now)), role)
}

// benchAPI is the API with st stored as the business slug on d, and a token
// of role.
func benchAPI(b testing.TB, d modelstest.Database, slug string, st engine.State, role models.Role) (http.Handler, string, *models.Store, *models.Business) {
	store := models.NewStore(d.DB, func() time.Time { return now })
	ctx := context.Background()
	biz, err := models.CreateBusiness(ctx, d.DB, slug, st.Business)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := store.Write(ctx, biz.ID, false, func(e *models.Edit) error { e.ReplaceSchedule(st); return nil }); err != nil {
		b.Fatal(err)
	}
	tok, _, err := models.CreateToken(ctx, d.DB, biz.ID, role, "bench", "")
	if err != nil {
		b.Fatal(err)
	}
	h := (&graph.Resolver{Store: store, Log: slog.New(slog.NewTextHandler(io.Discard, nil))}).Handler()
	return h, tok, store, biz
}

// benchAnswer sends a query to h as tok and decodes the answer, errors and
// all.
func benchAnswer(b testing.TB, h http.Handler, tok, query string, vars map[string]any) map[string]any {
	body, _ := json.Marshal(map[string]any{"query": query, "variables": vars})
	req := httptest.NewRequest("POST", "/graphql", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+tok)
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	var out map[string]any
	if err := json.Unmarshal(w.Body.Bytes(), &out); err != nil {
		b.Fatal(err)
	}
	return out
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
	cpu := cpuTime()
	b.ResetTimer()
	for b.Loop() {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, weekRequest(tok))
	}
	reportCPU(b, cpu)
}

// BenchmarkDaysWeekUncached asks for a different week each time, so every
// request executes: the cost of a week that nobody has asked for at this
// revision yet.
func BenchmarkDaysWeekUncached(b *testing.B) { benchmarkDaysWeekUncached(b, "") }

// BenchmarkDaysWeekUncachedArabic is the same with the gym in Arabic.
func BenchmarkDaysWeekUncachedArabic(b *testing.B) { benchmarkDaysWeekUncached(b, "ar") }

func benchmarkDaysWeekUncached(b *testing.B, lang string) {
	h, tok, store, biz := gymAPI(b, modelstest.SQLite(b), models.ReadOnly)
	if lang != "" {
		if _, err := store.Write(context.Background(), biz.ID, false, func(e *models.Edit) error {
			e.State.Business.Locale.Language = lang
			return nil
		}); err != nil {
			b.Fatal(err)
		}
	}
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
func BenchmarkDaysWeekLoopback(b *testing.B) { benchmarkDaysWeekLoopback(b, false) }

// BenchmarkDaysWeekLoopbackGzip is BenchmarkDaysWeekLoopback with a client
// that takes gzip (Go's default), unzipping each answer.
func BenchmarkDaysWeekLoopbackGzip(b *testing.B) { benchmarkDaysWeekLoopback(b, true) }

func benchmarkDaysWeekLoopback(b *testing.B, gzipped bool) {
	h, tok := gymServer(b)
	srv := httptest.NewServer(h)
	defer srv.Close()
	// Plain bytes, as before gzip; BenchmarkDaysWeekLoopbackGzip asks for gzip.
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64, DisableCompression: !gzipped}}
	b.SetParallelism(8)
	cpu := cpuTime()
	elapsed, lat := postWeeks(b, client, srv.URL, tok)
	reportCPU(b, cpu)
	reportLatency(b, elapsed, lat)
}

// BenchmarkBookSessionPostgres is booking throughput on PostgreSQL: 8
// clients (and, for comparison, 1) over loopback HTTP at once, each booking
// another client into one session that has a place for everyone. Every
// booking is a whole guarded write (the business's lock, the place count,
// the row, the revision, the clash proof), so the writes of one business
// queue on its lock.
func BenchmarkBookSessionPostgres(b *testing.B) {
	for _, n := range []int{1, 8} {
		b.Run(fmt.Sprintf("clients=%d", n), func(b *testing.B) { benchmarkBookSession(b, n) })
	}
}

func benchmarkBookSession(b *testing.B, workers int) {
	pg, ok := modelstest.Postgres(b)
	if !ok {
		b.Skip("needs PostgreSQL")
	}
	h, tok, store, biz := gymAPI(b, pg, models.Owner)
	var oneOff int64
	clients := make([]int64, b.N)
	res, err := store.Write(context.Background(), biz.ID, false, func(e *models.Edit) error {
		s := &e.State
		room, staff, activity, class := e.NewID(), e.NewID(), e.NewID(), e.NewID()
		s.Rooms = append(s.Rooms, engine.Room{ID: room, Name: "Bench Studio"})
		s.Staff = append(s.Staff, engine.Staff{ID: staff, Name: "Bench Coach"})
		s.Activities = append(s.Activities, engine.Activity{ID: activity, Name: "Bench Class"})
		s.Classes = append(s.Classes, engine.Class{ID: class, ActivityID: activity, StaffIDs: []int64{staff}})
		oneOff = e.NewID()
		s.OneOffs = append(s.OneOffs, engine.OneOff{ID: oneOff, ClassID: class, RoomID: room, Date: engine.DateOf(now).AddDays(10),
			Start: engine.MustTime("10:00"), End: engine.MustTime("11:00"), Capacity: b.N})
		for i := range clients {
			c, err := e.SaveClient(context.Background(), engine.Client{Name: fmt.Sprintf("Client %d", i)})
			if err != nil {
				return err
			}
			clients[i] = c.ID
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	oneOff = res.ID(oneOff)
	srv := httptest.NewServer(h)
	defer srv.Close()
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: workers}}
	const q = `mutation($o: ID!, $c: ID!) { bookSession(oneOffId: $o, clientId: $c) { booking { id } } }`
	var next atomic.Int64
	var wg sync.WaitGroup
	b.ResetTimer()
	start := time.Now()
	for range workers {
		wg.Go(func() {
			for i := next.Add(1) - 1; i < int64(b.N); i = next.Add(1) - 1 {
				body, _ := json.Marshal(map[string]any{"query": q, "variables": map[string]any{"o": fmt.Sprint(oneOff), "c": fmt.Sprint(clients[i])}})
				req, _ := http.NewRequest("POST", srv.URL, bytes.NewReader(body))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Authorization", "Bearer "+tok)
				resp, err := client.Do(req)
				if err != nil {
					b.Error(err)
					return
				}
				out, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if bytes.Contains(out, []byte(`"errors"`)) {
					b.Errorf("booking %d: %s", i, out)
					return
				}
			}
		})
	}
	wg.Wait()
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "bookings/s")
}
