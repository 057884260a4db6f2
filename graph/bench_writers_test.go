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
	h, tok, _, _ := gymAPI(b, db, models.Owner)
	srv := httptest.NewServer(h)
	defer srv.Close()
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64, DisableCompression: true}}
	do := func(query string, vars map[string]any) []byte {
		body, _ := json.Marshal(map[string]any{"query": query, "variables": vars})
		req, _ := http.NewRequest("POST", srv.URL, bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer "+tok)
		resp, err := client.Do(req)
		if err != nil {
			b.Error(err)
			return nil
		}
		out, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || bytes.Contains(out, []byte(`"errors"`)) {
			b.Errorf("%d %s", resp.StatusCode, out)
		}
		return out
	}
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
	out := do(`query($from: Date!, $to: Date!) { sessions(from: $from, to: $to) { ref { date classTime { id } class { id } } } }`,
		map[string]any{"from": today.AddDays(7).String(), "to": today.AddDays(365).String()})
	if err := json.Unmarshal(out, &refs); err != nil || len(refs.Data.Sessions) == 0 {
		b.Fatalf("%v %s", err, out)
	}
	do(weekQuery, nil) // warm
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
				s := refs.Data.Sessions[rng.IntN(len(refs.Data.Sessions))]
				ref := map[string]any{"date": s.Ref.Date, "classTimeId": s.Ref.ClassTime.ID, "classId": s.Ref.Class.ID}
				q := `mutation($ref: SessionRefInput!) { cancelSession(ref: $ref, note: "bench") { revision } }`
				if rng.IntN(2) == 0 {
					q = `mutation($ref: SessionRefInput!) { restoreSession(ref: $ref) { revision } }`
				}
				do(q, map[string]any{"ref": ref})
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
}
