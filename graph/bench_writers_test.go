package graph_test

import (
	"bytes"
	"encoding/json"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/koredyne/schedule/engine"
	"github.com/koredyne/schedule/models"
	"github.com/koredyne/schedule/models/modelstest"
)

// BenchmarkDaysWeekWriters is this week's query from 8 clients over
// loopback (plain, not gzipped) alone and with 4 writers alongside, each
// cancelling or restoring one session somewhere in the coming year: the
// reads a busy business's desk makes while it edits. The writers write as
// fast as they can (taking CPU from the readers on a small machine), and,
// in writers=4paced, each once a second, as front desks do: what is left
// of a read's cost there is what writes do to reads, not the writers' own
// CPU. It reports the reads per second, their p50 and p99, and the writes
// per second.
func BenchmarkDaysWeekWriters(b *testing.B) {
	dbs := []struct {
		name string
		db   func(b *testing.B) (modelstest.Database, bool)
	}{
		{"sqlite", func(b *testing.B) (modelstest.Database, bool) { return modelstest.SQLite(b), true }},
		{"postgres", func(b *testing.B) (modelstest.Database, bool) { return modelstest.Postgres(b) }},
	}
	for _, d := range dbs {
		for _, w := range []struct {
			name    string
			writers int
			pace    time.Duration
		}{{"writers=0", 0, 0}, {"writers=4", 4, 0}, {"writers=4paced", 4, time.Second}} {
			b.Run(d.name+"/"+w.name, func(b *testing.B) {
				db, ok := d.db(b)
				if !ok {
					b.Skip("needs PostgreSQL")
				}
				benchmarkWeekWithWriters(b, db, w.writers, w.pace)
			})
		}
	}
}

func benchmarkWeekWithWriters(b *testing.B, db modelstest.Database, writers int, pace time.Duration) {
	h, tok, store, _ := gymAPI(b, db, models.Owner)
	srv := httptest.NewServer(h)
	defer srv.Close()
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64, DisableCompression: true}}
	sw := newSessionWriter(b, client, srv.URL, tok)
	sw.post(weekQuery, nil) // warm
	stop := make(chan struct{})
	var wrote atomic.Int64
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(w), 1))
			atOnce := make(chan time.Time)
			close(atOnce)
			for {
				wait := (<-chan time.Time)(atOnce) // write again at once
				if pace > 0 {
					wait = time.After(pace)
				}
				select {
				case <-stop:
					return
				case <-wait:
				}
				sw.write(rng)
				wrote.Add(1)
			}
		})
	}
	b.SetParallelism(4) // 8 clients on 2 cores
	cpu := cpuTime()
	elapsed, lat := postWeeks(b, client, srv.URL, tok)
	b.StopTimer()
	reportCPU(b, cpu) // with the writers' share
	close(stop)
	wg.Wait()
	reportLatency(b, elapsed, lat)
	b.ReportMetric(float64(wrote.Load())/elapsed.Seconds(), "writes/s")
	held, waited := store.WritesHeld()
	b.ReportMetric(float64(held)/elapsed.Seconds(), "held/s")
	b.ReportMetric(waited.Seconds()/elapsed.Seconds(), "held-s/s")
}

// BenchmarkSessionWrites is the writers of BenchmarkDaysWeekWriters
// alone: 4 clients over loopback cancelling or restoring one session of
// the gym's coming year as fast as they can, b.N writes in all. Its
// cpu-µs/op is the CPU one such write costs the process end to end
// (client, HTTP, GraphQL, the guarded write, the database when it is
// SQLite), which is what flat-out writers take from readers.
func BenchmarkSessionWrites(b *testing.B) {
	for _, d := range []struct {
		name string
		db   func(b *testing.B) (modelstest.Database, bool)
	}{
		{"sqlite", func(b *testing.B) (modelstest.Database, bool) { return modelstest.SQLite(b), true }},
		{"postgres", func(b *testing.B) (modelstest.Database, bool) { return modelstest.Postgres(b) }},
	} {
		b.Run(d.name, func(b *testing.B) {
			db, ok := d.db(b)
			if !ok {
				b.Skip("needs PostgreSQL")
			}
			h, tok, _, _ := gymAPI(b, db, models.Owner)
			srv := httptest.NewServer(h)
			defer srv.Close()
			client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64, DisableCompression: true}}
			sw := newSessionWriter(b, client, srv.URL, tok)
			var seed atomic.Uint64
			b.SetParallelism(2) // 4 writers on 2 cores
			cpu := cpuTime()
			start := time.Now()
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				rng := rand.New(rand.NewPCG(seed.Add(1), 1))
				for pb.Next() {
					sw.write(rng)
				}
			})
			elapsed := time.Since(start)
			b.StopTimer()
			reportCPU(b, cpu)
			b.ReportMetric(float64(b.N)/elapsed.Seconds(), "writes/s")
		})
	}
}

// sessionWriter cancels and restores sessions of the gym's coming year
// through the GraphQL API, as a desk does.
type sessionWriter struct {
	b      testing.TB
	client *http.Client
	url    string
	tok    string
	refs   []map[string]any
}

func newSessionWriter(b testing.TB, client *http.Client, url, tok string) *sessionWriter {
	sw := &sessionWriter{b: b, client: client, url: url, tok: tok}
	today := engine.DateOf(now)
	var refs struct {
		Data struct {
			Sessions []struct {
				Ref struct {
					Date      string
					ClassTime struct{ ID string }
					Class     struct{ ID string }
				}
			}
		}
	}
	out := sw.post(`query($from: Date!, $to: Date!) { sessions(from: $from, to: $to) { ref { date classTime { id } class { id } } } }`,
		map[string]any{"from": today.AddDays(7).String(), "to": today.AddDays(365).String()})
	if err := json.Unmarshal(out, &refs); err != nil || len(refs.Data.Sessions) == 0 {
		b.Fatalf("%v %s", err, out)
	}
	for _, s := range refs.Data.Sessions {
		sw.refs = append(sw.refs, map[string]any{"date": s.Ref.Date, "classTimeId": s.Ref.ClassTime.ID, "classId": s.Ref.Class.ID})
	}
	return sw
}

// post sends one GraphQL request and returns the answer, failing the
// benchmark or test on an error.
func (sw *sessionWriter) post(query string, vars map[string]any) []byte {
	body, _ := json.Marshal(map[string]any{"query": query, "variables": vars})
	req, _ := http.NewRequest("POST", sw.url, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+sw.tok)
	resp, err := sw.client.Do(req)
	if err != nil {
		sw.b.Error(err)
		return nil
	}
	out, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || bytes.Contains(out, []byte(`"errors"`)) {
		sw.b.Errorf("%d %s", resp.StatusCode, out)
	}
	return out
}

// write cancels or restores one session picked by rng.
func (sw *sessionWriter) write(rng *rand.Rand) {
	ref := sw.refs[rng.IntN(len(sw.refs))]
	q := `mutation($ref: SessionRefInput!) { cancelSession(ref: $ref, reason: "bench") { revision } }`
	if rng.IntN(2) == 0 {
		q = `mutation($ref: SessionRefInput!) { restoreSession(ref: $ref) { revision } }`
	}
	sw.post(q, map[string]any{"ref": ref})
}
