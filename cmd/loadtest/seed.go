package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/koredyne/schedule/engine"
	"github.com/koredyne/schedule/engine/enginetest"
	"github.com/koredyne/schedule/migrations"
	"github.com/koredyne/schedule/models"
)

// Tenant is one business the many-tenants mode made, with the credentials
// its users hold: the owner's API token for the desk's GraphQL, and its
// practitioners' phones.
type Tenant struct {
	Slug       string
	Kind       engine.Kind
	ClassTimes int
	Token      string
	Phones     []Phone
}

// Phone is a practitioner's phone polling their own calendar: over CalDAV
// with a login and app password (the STAFF role, so it sees that member's
// calendar only), or through the calendar's secret .ics feed URL.
type Phone struct {
	Login    string `json:",omitempty"`
	Password string `json:",omitempty"`
	Calendar string // "staff-12"
	Feed     string `json:",omitempty"`
}

// SeedOptions say which businesses to make.
type SeedOptions struct {
	Count  int
	Prefix string // slugs are Prefix-00001 …
	Seed   uint64
	// Workers write businesses in parallel, each in its own transactions.
	Workers int
	Today   engine.Date
	// Progress, when set, is told how many businesses are done now and then.
	Progress func(done int)
}

// zones the businesses are spread over, so that days start at different
// instants as they would across a country's customers.
var zones = []string{"Europe/Berlin", "Europe/London", "America/New_York", "Asia/Kuwait", "UTC", "Australia/Sydney"}

// design draws the kind and size of business i: 40 % gyms, 35 % clinics,
// 25 % offices, of 20 to 300 class times, most of them small (the size's
// logarithm is uniform, so a third have fewer than 50).
func design(seed uint64, i int) (engine.Kind, int, string) {
	r := rand.New(rand.NewPCG(seed, uint64(i)))
	kind := engine.Gym
	switch n := r.IntN(100); {
	case n >= 75:
		kind = engine.Office
	case n >= 40:
		kind = engine.Clinic
	}
	size := int(math.Round(20 * math.Exp(r.Float64()*math.Log(300.0/20))))
	return kind, min(300, max(20, size)), zones[r.IntN(len(zones))]
}

// Seed makes opt.Count businesses as a real owner would have them: the
// business, its whole timetable through the guarded write (so revisions,
// versions and the clash proof are what a server reads), an owner token,
// and for every coach a phone: every other one a CalDAV login with an app
// password, the rest the .ics feed of their calendar.
func Seed(ctx context.Context, db *models.DB, opt SeedOptions) ([]Tenant, error) {
	m, err := migrations.New(db.DB, db.LockFile())
	if err != nil {
		return nil, err
	}
	if _, err := m.Up(ctx); err != nil {
		return nil, fmt.Errorf("migrating: %w", err)
	}
	if opt.Workers < 1 {
		opt.Workers = 1
	}
	if opt.Prefix == "" {
		opt.Prefix = "tenant"
	}
	store := models.NewStore(db, nil)
	out := make([]Tenant, opt.Count)
	var next, done atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, opt.Workers)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	for range opt.Workers {
		wg.Go(func() {
			for ctx.Err() == nil {
				i := int(next.Add(1)) - 1
				if i >= opt.Count {
					return
				}
				t, err := seedOne(ctx, store, opt, i)
				if err != nil {
					errs <- fmt.Errorf("business %d: %w", i, err)
					cancel()
					return
				}
				out[i] = t
				if n := int(done.Add(1)); opt.Progress != nil && (n%500 == 0 || n == opt.Count) {
					opt.Progress(n)
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		return nil, err
	}
	return out, ctx.Err()
}

func seedOne(ctx context.Context, store *models.Store, opt SeedOptions, i int) (Tenant, error) {
	kind, size, zone := design(opt.Seed, i)
	st := enginetest.Business(enginetest.Options{ClassTimes: size, Seed: opt.Seed + uint64(i), Today: opt.Today})
	st.Business.Kind = kind
	st.Business.Name = fmt.Sprintf("%s %d", strings.ToUpper(string(kind[:1]))+string(kind[1:]), i+1)
	loc, err := time.LoadLocation(zone)
	if err != nil {
		return Tenant{}, err
	}
	st.Business.Location = loc
	t := Tenant{Slug: fmt.Sprintf("%s-%05d", opt.Prefix, i+1), Kind: kind, ClassTimes: size}
	b, err := models.CreateBusiness(ctx, store.DB, t.Slug, st.Business)
	if err != nil {
		return t, err
	}
	res, err := store.Write(ctx, b.ID, false, func(e *models.Edit) error { e.ReplaceSchedule(st); return nil })
	if err != nil {
		return t, err
	}
	// The credentials one at a time, as an owner makes them (cmd holds no
	// transactions: only models talks to the database).
	err = func() error {
		db := store.DB
		if t.Token, _, err = models.CreateToken(ctx, db, b.ID, models.Owner, "desk", ""); err != nil {
			return err
		}
		coach := 0
		for _, s := range res.After.State.Staff {
			if !strings.HasPrefix(s.Name, "Coach ") {
				continue // floaters stand in and carry no phone of their own here
			}
			p := Phone{Calendar: models.CalendarOf("staff", s.ID)}
			if coach++; coach%2 == 1 {
				p.Login = fmt.Sprintf("%s-s%d", t.Slug, s.ID)
				if p.Password, _, err = models.CreateAppPassword(ctx, db, b.ID, p.Login, s.ID, models.StaffRole); err != nil {
					return err
				}
			} else if p.Feed, err = models.Feed(ctx, db, b.ID, p.Calendar); err != nil {
				return err
			}
			t.Phones = append(t.Phones, p)
		}
		return nil
	}()
	return t, err
}

// SaveTenants writes the businesses and their credentials to a file (mode
// 0600: it holds secrets), so that later runs reuse a seeded database.
func SaveTenants(path string, ts []Tenant) error {
	b, err := json.Marshal(ts)
	if err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o600)
}

// LoadTenants reads what SaveTenants wrote.
func LoadTenants(path string) ([]Tenant, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var ts []Tenant
	if err := json.Unmarshal(b, &ts); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return ts, nil
}
