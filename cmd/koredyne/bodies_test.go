package main

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/koredyne/schedule/models/modelstest"
)

// TestRequestMemory sends what issue 30 found could fill a server's
// memory to a real koredyne serve on its default settings, on SQLite and
// PostgreSQL: 32 bodies of 9 MiB at once without a token, then 64 with
// one (plain variables, small objects, an importCalendar file). What the
// request budget counts is checked exactly (the bodies refused for their
// token took none of it; the rest never more than --request-mb), and the
// resident memory with the margins: the anonymous bodies grow it
// by at most 64 MiB, the authenticated ones keep its peak under 400 MiB.
func TestRequestMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("sends 864 MiB of request bodies")
	}
	bin := buildMain(t)
	bodies := map[string][]byte{
		"a string":      bodyOf(`{"query":"{ business { name } }","variables":{"s":"`, "x", `"}}`),
		"small objects": bodyOf(`{"query":"{ business { name } }","variables":{"v":[`, `{"a":1},`, `{"a":1}]}}`),
		"a calendar file": bodyOf(`{"query":"mutation($ics: String!) { importCalendar(ics: $ics, dryRun: true) { events } }","variables":{"ics":"BEGIN:VCALENDAR\r\nVERSION:2.0\r\n`,
			`BEGIN:VEVENT\r\nUID:x\r\nSUMMARY:Class\r\nDTSTART:20270104T100000Z\r\nDURATION:PT1H\r\nEND:VEVENT\r\n`, `END:VCALENDAR\r\n"}}`),
	}
	for _, db := range modelstest.Databases(t) {
		t.Run(db.Name, func(t *testing.T) {
			args := []string{"serve", "--addr", "127.0.0.1:0"}
			env := append(os.Environ(), "KOREDYNE_BOOTSTRAP_TOKEN="+bootstrapToken, "GOMEMLIMIT=")
			if db.Name == "postgres" {
				env = append(env, "DATABASE_URL="+db.DSN)
			} else {
				args = append(args, "--data", filepath.Dir(db.DSN))
			}
			cmd := exec.Command(bin, args...)
			cmd.Env = env
			stdout, _ := cmd.StdoutPipe()
			cmd.Stderr = io.Discard
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer func() {
				cmd.Process.Signal(os.Interrupt)
				cmd.Wait()
			}()
			s := &server{url: waitListening(t, stdout)}
			pid := cmd.Process.Pid
			if data, errs := post(t, s.url, bootstrapToken, `{ business { name } }`, nil); len(errs) > 0 || data == nil {
				t.Fatalf("a first query: %v", errs)
			}

			// A request without a body holds only what its query decodes
			// to: a body of unknown length would have been held a first
			// part of 64 KiB, twice.
			taken := scrape(t, s)["koredyne_request_memory_taken_bytes_total"]
			if resp, body := hit(t, "GET", s.url+"/graphql?query=%7B%20business%20%7B%20name%20%7D%20%7D", "", "Authorization", "Bearer "+bootstrapToken); resp.StatusCode != 200 {
				t.Fatalf("a GET: %d %s", resp.StatusCode, body)
			}
			if got := scrape(t, s)["koredyne_request_memory_taken_bytes_total"] - taken; got > 1024 {
				t.Errorf("a GET of a short query took %v bytes of the request budget", got)
			}

			before, taken := rss(t, pid), scrape(t, s)["koredyne_request_memory_taken_bytes_total"]
			statuses := flood(t, s.url, 32, func(int) ([]byte, string) { return bodies["a string"], "" })
			peak := memoryStatus(t, pid, "VmHWM")
			t.Logf("32 bodies of 9 MiB without a token: %v; resident %d MiB before, peak %d MiB", statuses, before>>20, peak>>20)
			if statuses["401"] != 32 {
				t.Errorf("without a token: %v, want 32 × 401", statuses)
			}
			if got := scrape(t, s)["koredyne_request_memory_taken_bytes_total"]; got != taken {
				t.Errorf("requests refused for their token took %v bytes of the request budget", got-taken)
			}
			if peak > before+64<<20 {
				t.Errorf("without a token the resident memory grew from %d MiB to %d MiB, more than 64 MiB", before>>20, peak>>20)
			}

			kinds := []string{"a string", "small objects", "a calendar file"}
			statuses = flood(t, s.url, 64, func(i int) ([]byte, string) { return bodies[kinds[i%3]], bootstrapToken })
			peak = memoryStatus(t, pid, "VmHWM")
			m := scrape(t, s)
			t.Logf("64 bodies of 9 MiB with a token: %v; peak %d MiB; the budget held at most %.0f MiB of %.0f, refused %v",
				statuses, peak>>20, m["koredyne_request_memory_max_bytes"]/(1<<20), m["koredyne_request_memory_budget_bytes"]/(1<<20), m["koredyne_request_memory_refused_total"])
			for st := range statuses {
				if st != "200" && st != "413" && st != "503" {
					t.Errorf("with a token: %v, want only 200, 413 (small objects) and 503 (the budget full)", statuses)
					break
				}
			}
			if statuses["200"] == 0 {
				t.Errorf("with a token no request was served: %v", statuses)
			}
			if m["koredyne_request_memory_max_bytes"] > m["koredyne_request_memory_budget_bytes"] || m["koredyne_request_memory_max_bytes"] < 9<<20 {
				t.Errorf("the budget of %v bytes held at most %v", m["koredyne_request_memory_budget_bytes"], m["koredyne_request_memory_max_bytes"])
			}
			if m["koredyne_request_memory_bytes"] != 0 {
				t.Errorf("%v bytes held once every request was answered", m["koredyne_request_memory_bytes"])
			}
			if peak >= 400<<20 {
				t.Errorf("with a token the resident memory peaked at %d MiB, want under 400", peak>>20)
			}
		})
	}
}

// bodyOf is a JSON body of 9 MiB: head, item repeated, tail.
func bodyOf(head, item, tail string) []byte {
	var b bytes.Buffer
	b.WriteString(head)
	for b.Len()+len(item)+len(tail) <= 9<<20 {
		b.WriteString(item)
	}
	b.WriteString(tail)
	return b.Bytes()
}

// flood sends n GraphQL POSTs at once, the i-th with the body and token
// body(i) gives, and counts the statuses. A 503 must say when to come
// back.
func flood(t *testing.T, url string, n int, body func(i int) ([]byte, string)) map[string]int {
	t.Helper()
	var mu sync.Mutex
	statuses := map[string]int{}
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			b, token := body(i)
			req, _ := http.NewRequest("POST", url+"/graphql", bytes.NewReader(b))
			req.Header.Set("Content-Type", "application/json")
			if token != "" {
				req.Header.Set("Authorization", "Bearer "+token)
			}
			status := ""
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				status = "error: " + err.Error()
			} else {
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				status = fmt.Sprint(resp.StatusCode)
				if resp.StatusCode == http.StatusServiceUnavailable && resp.Header.Get("Retry-After") == "" {
					status += " without Retry-After"
				}
			}
			mu.Lock()
			statuses[status]++
			mu.Unlock()
		}()
	}
	wg.Wait()
	return statuses
}

// memoryStatus is a line of /proc/PID/status in bytes: VmRSS, the resident
// memory now, or VmHWM, the most it has been.
func memoryStatus(t *testing.T, pid int, key string) int64 {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, key+":"); ok {
			var kb int64
			if _, err := fmt.Sscanf(strings.TrimSpace(v), "%d kB", &kb); err != nil {
				t.Fatal(err)
			}
			return kb << 10
		}
	}
	t.Fatalf("no %s in /proc/%d/status", key, pid)
	return 0
}
