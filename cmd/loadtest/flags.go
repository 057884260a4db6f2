package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"time"

	"github.com/koredyne/schedule/engine"
	"github.com/koredyne/schedule/models"
)

// tenantsFlags are the many-tenants mode's command line.
type tenantsFlags struct {
	count       int
	file        string
	databaseURL string
	seedWorkers int
	seedOnly    bool
	cfg         TenantsConfig
	restartCmd  string
}

func (t *tenantsFlags) define(fs *flag.FlagSet) {
	fs.IntVar(&t.count, "tenants", 0, "run the many-tenants mode over this many businesses (0: the one-business mix)")
	fs.StringVar(&t.file, "tenants-file", "tenants.json", "the businesses and their credentials: read when it holds --tenants of them, else seeded and written (it holds secrets)")
	fs.StringVar(&t.databaseURL, "database-url", os.Getenv("DATABASE_URL"), "the server's PostgreSQL database, to seed the businesses into (default $DATABASE_URL)")
	fs.IntVar(&t.seedWorkers, "seed-workers", 4, "businesses written at once while seeding")
	fs.BoolVar(&t.seedOnly, "seed-only", false, "seed the businesses and stop")
	fs.IntVar(&t.cfg.Sweepers, "sweepers", 2, "workers walking every business once")
	fs.IntVar(&t.cfg.Pollers, "pollers", 8, "phones' polls in flight at once")
	fs.Float64Var(&t.cfg.DeskRate, "desk-rate", 0, "the desks' requests a second in all (0: each desk sends its next as soon as its last is answered)")
	fs.IntVar(&t.cfg.Hot, "hot", 10, "how many of the most asked businesses count as hot")
	fs.Float64Var(&t.cfg.Zipf, "zipf", 1.1, "exponent of the Zipf law the desks draw businesses by")
	fs.Float64Var(&t.cfg.PollScale, "poll-scale", 1, "multiplies the phones' poll rate (1: each phone every 15 minutes)")
	fs.IntVar(&t.cfg.ServerPID, "server-pid", 0, "the server's process id, to sample its VmRSS every second")
	fs.StringVar(&t.restartCmd, "restart-replica", "", "a shell command that restarts a read replica, run once --restart-at into the run")
	fs.DurationVar(&t.cfg.RestartAt, "restart-at", 30*time.Second, "when to run --restart-replica")
	fs.Uint64Var(&t.cfg.Seed, "seed", 1, "chooses the businesses and the run's draws")
}

// run seeds (or reads) the businesses and runs the many-tenants mode.
func (t *tenantsFlags) run(ctx context.Context, c Config) error {
	ts, err := LoadTenants(t.file)
	if errors.Is(err, fs.ErrNotExist) || err == nil && len(ts) != t.count {
		if ts, err = t.seed(ctx); err != nil {
			return err
		}
	} else if err != nil {
		return err
	}
	if t.seedOnly {
		return nil
	}
	cfg := t.cfg
	cfg.URL, cfg.AllowRemote, cfg.Duration, cfg.Desks, cfg.Tenants = c.URL, c.AllowRemote, c.Duration, c.Concurrency, ts
	if t.restartCmd != "" {
		cfg.RestartReplica = func(ctx context.Context) error {
			out, err := exec.CommandContext(ctx, "sh", "-c", t.restartCmd).CombinedOutput()
			if err != nil {
				return fmt.Errorf("%s: %w: %s", t.restartCmd, err, out)
			}
			return nil
		}
	}
	rep, err := RunTenants(ctx, cfg)
	if err != nil {
		return err
	}
	fmt.Printf("%s, %d desks, %d sweepers, %d pollers\n", c.URL, cfg.Desks, cfg.Sweepers, cfg.Pollers)
	rep.Print(os.Stdout)
	if rep.Total.Errors > 0 || rep.RestartErr != nil {
		return fmt.Errorf("%d requests failed", rep.Total.Errors)
	}
	return nil
}

func (t *tenantsFlags) seed(ctx context.Context) ([]Tenant, error) {
	if t.databaseURL == "" {
		return nil, fmt.Errorf("%s does not hold %d businesses: --database-url (or DATABASE_URL) must name the database to seed them into", t.file, t.count)
	}
	db, err := models.Open(ctx, t.databaseURL)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	start := time.Now()
	ts, err := Seed(ctx, db, SeedOptions{Count: t.count, Prefix: fmt.Sprintf("lt%d", t.cfg.Seed), Seed: t.cfg.Seed,
		Workers: t.seedWorkers, Today: engine.DateOf(time.Now()),
		Progress: func(n int) {
			fmt.Fprintf(os.Stderr, "seeded %d businesses in %v\n", n, time.Since(start).Round(time.Second))
		}})
	if err != nil {
		return nil, err
	}
	classTimes, phones := 0, 0
	for _, x := range ts {
		classTimes, phones = classTimes+x.ClassTimes, phones+len(x.Phones)
	}
	fmt.Printf("seeded %d businesses (%d class times, %d phones) in %v with %d workers\n",
		len(ts), classTimes, phones, time.Since(start).Round(time.Millisecond), t.seedWorkers)
	return ts, SaveTenants(t.file, ts)
}
