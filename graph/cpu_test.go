package graph_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"sort"
	"syscall"
	"testing"
	"time"
)

// cpuTime is the CPU time the process has used, user and system: on a
// machine shared with other work, the CPU a request costs is steadier than
// the requests a second.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// reportCPU reports the CPU time per operation since start (a cpuTime
// reading), client and server together when both run in the process.
func reportCPU(b *testing.B, start time.Duration) {
	b.ReportMetric(float64((cpuTime()-start).Microseconds())/float64(b.N), "cpu-µs/op")
}

// postWeeks sends the week query from b's parallel clients, b.N times in
// all, and returns how long that took and each request's latency, sorted.
func postWeeks(b *testing.B, client *http.Client, url, tok string) (time.Duration, []time.Duration) {
	body, _ := json.Marshal(map[string]string{"query": weekQuery})
	lat := make(chan time.Duration, 1<<20)
	start := time.Now()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			t0 := time.Now()
			req, _ := http.NewRequest("POST", url, bytes.NewReader(body))
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
	return elapsed, all
}

// reportLatency reports requests a second and the median and 99th
// percentile of sorted latencies.
func reportLatency(b *testing.B, elapsed time.Duration, sorted []time.Duration) {
	if len(sorted) == 0 {
		return
	}
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "req/s")
	b.ReportMetric(float64(sorted[len(sorted)/2].Microseconds()), "p50-µs")
	b.ReportMetric(float64(sorted[len(sorted)*99/100].Microseconds()), "p99-µs")
}
