package main

import (
	"bufio"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/koredyne/schedule/engine"
	"github.com/koredyne/schedule/models"
	"github.com/koredyne/schedule/models/modelstest"
)

// serve runs a real `koredyne serve` process (built from this tree) on a
// free loopback port, with env, and returns its URL and process id; it is
// stopped by its PID when the test ends.
func serve(t *testing.T, env ...string) (string, int) {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "koredyne")
	if out, err := exec.Command("go", "build", "-o", bin, "../koredyne").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	cmd := exec.Command(bin, "serve", "--addr", "127.0.0.1:0", "--cache-mb", "256", "--rate-limit", "0", "--data", t.TempDir())
	cmd.Env = append(os.Environ(), env...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = io.Discard
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Signal(os.Interrupt)
		cmd.Wait()
	})
	found := make(chan string, 1)
	go func() {
		listening := regexp.MustCompile(`listening on (http://[^\s"]+)`)
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if m := listening.FindStringSubmatch(sc.Text()); m != nil {
				found <- m[1]
			}
		}
	}()
	select {
	case u := <-found:
		return strings.TrimSuffix(u, "/"), cmd.Process.Pid
	case <-time.After(60 * time.Second):
		t.Fatal("the server did not start")
		return "", 0
	}
}

// TestManyTenants runs the many-tenants mode small: 30 businesses seeded
// into a real PostgreSQL primary with a streaming replica, a real
// `koredyne serve` reading from both, a few seconds of the mix with the
// replica restarted halfway. Every kind of request is measured, every
// business touched, the server's memory sampled, and nothing fails.
func TestManyTenants(t *testing.T) {
	rs := modelstest.Replication(t)
	ctx := context.Background()
	db := modelstest.Open(t, rs.PrimaryDSN)
	today := time.Now()
	start := time.Now()
	ts, err := Seed(ctx, db, SeedOptions{Count: 30, Prefix: "small", Seed: 3, Workers: 3, Today: engine.DateOf(today)})
	if err != nil {
		t.Fatal(err)
	}
	phones, caldav := 0, 0
	for _, x := range ts {
		phones += len(x.Phones)
		for _, p := range x.Phones {
			if p.Password != "" {
				caldav++
			}
		}
		if x.Token == "" || x.ClassTimes < 20 || x.ClassTimes > 300 {
			t.Fatalf("business %s: %d class times, token %q", x.Slug, x.ClassTimes, x.Token)
		}
	}
	t.Logf("seeded 30 businesses, %d phones (%d over CalDAV), in %v", phones, caldav, time.Since(start).Round(time.Millisecond))
	if caldav == 0 || caldav == phones {
		t.Fatalf("%d of %d phones over CalDAV: want both kinds", caldav, phones)
	}
	// The credentials saved are the ones that work.
	path := filepath.Join(t.TempDir(), "tenants.json")
	if err := SaveTenants(path, ts); err != nil {
		t.Fatal(err)
	}
	if ts, err = LoadTenants(path); err != nil || len(ts) != 30 {
		t.Fatalf("%d read back: %v", len(ts), err)
	}
	if p, err := models.Authenticate(ctx, db, ts[0].Token); err != nil || p.Role != models.Owner {
		t.Fatalf("the owner token of %s: %+v %v", ts[0].Slug, p, err)
	}

	url, pid := serve(t, "DATABASE_URL="+rs.PrimaryDSN, "KOREDYNE_REPLICA_URLS="+rs.ReplicaDSN)
	rep, err := RunTenants(ctx, TenantsConfig{
		URL: url, Tenants: ts, Duration: 5 * time.Second, Desks: 3, Sweepers: 1, Pollers: 2,
		Hot: 3, Zipf: 1.1, PollScale: 20 / (float64(phones) / PollInterval.Seconds()), // 20 polls a second
		ServerPID: pid, RestartAt: 1500 * time.Millisecond, Seed: 1, Today: today,
		RestartReplica: func(context.Context) error {
			rs.Replica.Stop()
			rs.Replica.Start(t)
			return nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	rep.Print(&out)
	t.Logf("\n%s", out.String())
	if rep.Total.Errors != 0 {
		t.Errorf("%d requests failed", rep.Total.Errors)
	}
	for _, s := range rep.Kinds {
		if len(s.Latencies) == 0 || s.Percentile(0.5) <= 0 {
			t.Errorf("no figure for %v", s.Kind)
		}
	}
	if rep.Swept == 0 || rep.Touched != 30 || rep.SweptRSS == 0 || len(rep.RSS) < 3 || rep.MaxRSS() < rep.RSS[0].KB {
		t.Errorf("swept at %v with RSS %d kB; %d RSS samples", rep.Swept, rep.SweptRSS, len(rep.RSS))
	}
	// The two phases split the run's requests, and cold first weeks can
	// only be asked while the sweep runs.
	if rep.Sweeping == nil || rep.After == nil {
		t.Fatalf("the sweep ended at %v, but the report has no phases", rep.Swept)
	}
	if rep.Sweeping.Elapsed != rep.Swept || rep.Sweeping.Elapsed+rep.After.Elapsed != rep.Elapsed {
		t.Errorf("phases of %v and %v, swept at %v, run of %v", rep.Sweeping.Elapsed, rep.After.Elapsed, rep.Swept, rep.Elapsed)
	}
	if n, m := len(rep.Sweeping.Total.Latencies)+len(rep.After.Total.Latencies), len(rep.Total.Latencies); n != m {
		t.Errorf("the phases hold %d requests, the run %d", n, m)
	}
	for i, s := range rep.Kinds {
		if n := len(rep.Sweeping.Kinds[i].Latencies) + len(rep.After.Kinds[i].Latencies); n != len(s.Latencies) || s.Kind != rep.After.Kinds[i].Kind {
			t.Errorf("%v: the phases hold %d requests, the run %d", s.Kind, n, len(s.Latencies))
		}
	}
	if n := len(rep.After.Kinds[0].Latencies); rep.After.Kinds[0].Kind != ColdWeek || n != 0 {
		t.Errorf("%d cold first weeks (%v) after every business was touched", n, rep.After.Kinds[0].Kind)
	}
	if rep.Restarted == 0 || rep.RestartErr != nil {
		t.Errorf("the replica restart: at %v, %v", rep.Restarted, rep.RestartErr)
	}
}
