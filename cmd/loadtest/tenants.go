package main

import (
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// The many-tenants mode drives one server holding thousands of businesses
// the way their users would:
//
//   - desks: workers each asking for a business drawn from a Zipf law over
//     all of them (a few hot businesses, a long tail of cold ones), 55 %
//     week queries, 40 % day queries and 5 % writes (a closure created or
//     deleted);
//   - phones: every practitioner's phone polls its calendar every 15
//     minutes (scaled by PollScale), so the poll rate follows the number of
//     practitioners: a CalDAV phone asks its calendar home for the ctag and
//     sync token (PROPFIND) and, when the token moved since its last poll,
//     the changes (sync-collection REPORT); a feed phone GETs its .ics
//     feed, with If-None-Match once it holds an ETag;
//   - sweepers: walk every business in a random order, so that the run
//     touches all of them, and the memory held after that can be read.
//
// The first request a business gets in the run finds it cold (not in the
// server's memory); when it is a week query it is counted as a cold first
// week. Week queries of the Hot most drawn businesses are hot weeks.

// Kinds of the many-tenants mode, after those of the one-business mix.
const (
	ColdWeek Kind = kinds + iota
	HotWeek
	TailWeek
	CalDAVPoll
	FeedPoll
	allKinds
)

// TenantKinds are the kinds the many-tenants mode reports, in order.
var TenantKinds = []Kind{ColdWeek, HotWeek, TailWeek, Day, Write, CalDAVPoll, FeedPoll}

// PollInterval is how often a practitioner's phone asks for its calendar.
const PollInterval = 15 * time.Minute

// TenantsConfig is a run of the many-tenants mode.
type TenantsConfig struct {
	URL         string
	AllowRemote bool
	Tenants     []Tenant
	// Duration is the least the run lasts; it goes on until every
	// business has been touched (at most MaxDuration).
	Duration time.Duration
	// Desks and Sweepers are how many workers send the desks' queries
	// and walk every business; Pollers send the phones' polls.
	Desks, Sweepers, Pollers int
	// DeskRate, when more than 0, paces the desks to this many requests a
	// second in all (exponential gaps), as users arrive; 0 sends each desk's
	// next request as soon as its last is answered (the most the server
	// takes).
	DeskRate float64
	// Hot is how many of the most drawn businesses count as hot.
	Hot int
	// Zipf is the exponent of the law businesses are drawn by (> 1).
	Zipf float64
	// PollScale multiplies the phones' poll rate (1: every 15 minutes).
	PollScale float64
	// ServerPID, when set, is the server process whose VmRSS is sampled.
	ServerPID int
	// RestartReplica, when set, is called once RestartAt into the run (a
	// replica restarting under load); no request may fail meanwhile.
	RestartReplica func(context.Context) error
	RestartAt      time.Duration
	Seed           uint64
	Today          time.Time
}

// Validate checks the configuration before any request is sent.
func (c *TenantsConfig) Validate() error {
	base := Config{URL: c.URL, AllowRemote: c.AllowRemote, Token: "-", Business: "-", Duration: c.Duration, Concurrency: max(c.Desks, c.Sweepers, c.Pollers)}
	if err := base.Validate(); err != nil {
		return err
	}
	switch {
	case len(c.Tenants) == 0:
		return errors.New("there are no businesses to load")
	case c.Desks < 1 || c.Sweepers < 1 || c.Pollers < 1:
		return errors.New("--concurrency, --sweepers and --pollers must be at least 1")
	case c.Zipf <= 1:
		return errors.New("--zipf must be more than 1")
	case c.PollScale < 0:
		return errors.New("--poll-scale must not be negative")
	}
	return nil
}

// RSSSample is the server's resident memory at a moment of the run.
type RSSSample struct {
	At time.Duration
	KB int64
}

// TenantsReport is a run of the many-tenants mode.
type TenantsReport struct {
	Report
	Businesses, Phones int
	// Touched is how many businesses were asked for in the run.
	Touched int
	// Swept is when every business had been touched (0: not in the run).
	Swept time.Duration
	// RSS is sampled every second; SweptRSS is the sample when the sweep
	// ended.
	RSS      []RSSSample
	SweptRSS int64
	// PollRate is the phones' polls a second asked for; PollsLate counts
	// those sent late or not at all because every poller was busy.
	PollRate  float64
	PollsLate int
	// DeskTurnsLost counts the desks' requests not sent at DeskRate
	// because every desk was waiting for an answer.
	DeskTurnsLost int
	// Restarted is when the replica restart ended (0: none), RestartErr
	// what it failed with.
	Restarted  time.Duration
	RestartErr error
	// Sweeping and After split the run's requests by when they were sent:
	// while the sweep was still touching businesses (the sweepers loading
	// cold ones flat out), and once every business had been touched. Each
	// has its own Elapsed; After is nil when the sweep did not end.
	Sweeping, After *Report
}

// MaxRSS is the largest sample.
func (r *TenantsReport) MaxRSS() int64 {
	var m int64
	for _, s := range r.RSS {
		m = max(m, s.KB)
	}
	return m
}

// Print writes the report: the table of kinds, then memory over time.
func (r *TenantsReport) Print(w io.Writer) {
	fmt.Fprintf(w, "%d businesses, %d phones (%.1f polls/s asked, %d late), %v\n",
		r.Businesses, r.Phones, r.PollRate, r.PollsLate, r.Elapsed.Round(time.Millisecond))
	if r.DeskTurnsLost > 0 {
		fmt.Fprintf(w, "%d desk requests not sent: every desk was waiting\n", r.DeskTurnsLost)
	}
	r.Report.Print(w)
	if r.After != nil {
		fmt.Fprintf(w, "while the sweep ran (the first %v):\n", r.Sweeping.Elapsed.Round(time.Second))
		r.Sweeping.Print(w)
		fmt.Fprintf(w, "once every business had been touched (the last %v):\n", r.After.Elapsed.Round(time.Second))
		r.After.Print(w)
	}
	if r.Swept > 0 {
		fmt.Fprintf(w, "every business touched after %v", r.Swept.Round(time.Second))
		if r.SweptRSS > 0 {
			fmt.Fprintf(w, ", server RSS then %.1f MB", float64(r.SweptRSS)/1024)
		}
		fmt.Fprintln(w)
	} else {
		fmt.Fprintf(w, "the run ended before every business was touched: %d of %d were\n", r.Touched, r.Businesses)
	}
	if r.Restarted > 0 || r.RestartErr != nil {
		fmt.Fprintf(w, "replica restarted at %v (%v)\n", r.Restarted.Round(time.Millisecond), r.RestartErr)
	}
	if len(r.RSS) > 0 {
		fmt.Fprintf(w, "server RSS (MB) over time, max %.1f:", float64(r.MaxRSS())/1024)
		step := max(1, len(r.RSS)/12)
		for i, s := range r.RSS {
			if i%step == 0 || i == len(r.RSS)-1 {
				fmt.Fprintf(w, " %v=%.0f", s.At.Round(time.Second), float64(s.KB)/1024)
			}
		}
		fmt.Fprintln(w)
	}
}

// VmRSS reads a process's resident set size in KiB from /proc.
func VmRSS(pid int) (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for line := range strings.Lines(string(b)) {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			return strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
		}
	}
	return 0, errors.New("no VmRSS in /proc/PID/status")
}

// phoneState is what a phone remembers between polls.
type phoneState struct {
	mu   sync.Mutex
	tag  string // CalDAV sync token, or the feed's ETag
	busy bool
}

type tenantsRun struct {
	cfg     TenantsConfig
	c       *client
	touched []atomic.Bool
	left    atomic.Int64 // businesses not touched yet
	rank    []int        // rank[i]: the tenant drawn as the i-th most likely
	hot     []bool
	phones  []struct{ tenant, phone int }
	state   []phoneState

	start   time.Time
	mu      sync.Mutex
	results []result
}

type result struct {
	kind Kind
	took time.Duration
	err  error
	at   time.Duration // when it was sent, into the run (the many-tenants mode's)
}

func (t *tenantsRun) record(k Kind, sent time.Time, took time.Duration, err error) {
	t.mu.Lock()
	t.results = append(t.results, result{kind: k, took: took, err: err, at: sent.Sub(t.start)})
	t.mu.Unlock()
}

// RunTenants runs the many-tenants mode (see the comment above Kinds).
func RunTenants(ctx context.Context, cfg TenantsConfig) (*TenantsReport, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if cfg.Today.IsZero() {
		cfg.Today = time.Now()
	}
	conns := cfg.Desks + cfg.Sweepers + cfg.Pollers
	t := &tenantsRun{cfg: cfg, touched: make([]atomic.Bool, len(cfg.Tenants)), hot: make([]bool, len(cfg.Tenants))}
	t.c = &client{cfg: Config{URL: cfg.URL, Today: cfg.Today}, http: &http.Client{
		Timeout:   30 * time.Second,
		Transport: &http.Transport{MaxIdleConnsPerHost: conns, MaxIdleConns: conns, DisableCompression: true},
	}}
	t.left.Store(int64(len(cfg.Tenants)))
	r := rand.New(rand.NewPCG(cfg.Seed, 1))
	t.rank = r.Perm(len(cfg.Tenants))
	for _, i := range t.rank[:min(cfg.Hot, len(t.rank))] {
		t.hot[i] = true
	}
	for i, ten := range cfg.Tenants {
		for j := range ten.Phones {
			t.phones = append(t.phones, struct{ tenant, phone int }{i, j})
		}
	}
	t.state = make([]phoneState, len(t.phones))

	rep := &TenantsReport{Businesses: len(cfg.Tenants), Phones: len(t.phones),
		PollRate: float64(len(t.phones)) / PollInterval.Seconds() * cfg.PollScale}
	start := time.Now()
	t.start = start
	since := func() time.Duration { return time.Since(start) }
	ctx, cancel := context.WithTimeout(ctx, MaxDuration)
	defer cancel()
	// The desks and phones stop at the end; the sweep may hold it open.
	var stop atomic.Bool
	ended := make(chan struct{})
	var wg sync.WaitGroup
	var swept atomic.Int64
	sweepDone := make(chan struct{})

	if cfg.ServerPID > 0 {
		first, err := VmRSS(cfg.ServerPID)
		if err != nil {
			return nil, fmt.Errorf("reading the server's memory: %w", err)
		}
		rep.RSS = append(rep.RSS, RSSSample{0, first})
		wg.Go(func() {
			tick := time.NewTicker(time.Second)
			defer tick.Stop()
			for !stop.Load() {
				select {
				case <-ctx.Done():
					return
				case <-tick.C:
				}
				if kb, err := VmRSS(cfg.ServerPID); err == nil {
					t.mu.Lock()
					rep.RSS = append(rep.RSS, RSSSample{since(), kb})
					t.mu.Unlock()
				}
			}
		})
	}

	// The sweep: every business once, in a random order.
	order := r.Perm(len(cfg.Tenants))
	var next atomic.Int64
	var sweepers sync.WaitGroup
	for range cfg.Sweepers {
		sweepers.Go(func() {
			for ctx.Err() == nil {
				i := int(next.Add(1)) - 1
				if i >= len(order) {
					return
				}
				if b := order[i]; !t.touched[b].Load() {
					t.week(ctx, nil, b, false)
				}
			}
		})
	}
	go func() {
		sweepers.Wait()
		if t.left.Load() == 0 {
			swept.Store(int64(since()))
			if cfg.ServerPID > 0 {
				if kb, err := VmRSS(cfg.ServerPID); err == nil {
					rep.SweptRSS = kb
				}
			}
		}
		close(sweepDone)
	}()

	// The desks, paced by turns when DeskRate is set.
	var turns chan struct{}
	if cfg.DeskRate > 0 {
		turns = make(chan struct{}, cfg.Desks)
		wg.Go(func() {
			r := rand.New(rand.NewPCG(cfg.Seed, 4))
			at := time.Now()
			for !stop.Load() && ctx.Err() == nil {
				at = at.Add(time.Duration(r.ExpFloat64() / cfg.DeskRate * float64(time.Second)))
				if d := time.Until(at); d > 0 {
					time.Sleep(d)
				}
				select {
				case turns <- struct{}{}:
				default: // every desk is busy: the server is saturated
					t.mu.Lock()
					rep.DeskTurnsLost++
					t.mu.Unlock()
				}
			}
			close(turns)
		})
	}
	for w := range cfg.Desks {
		wg.Go(func() {
			r := rand.New(rand.NewPCG(cfg.Seed, uint64(w)+100))
			zipf := rand.NewZipf(rand.New(rand.NewPCG(cfg.Seed, uint64(w)+1000)), cfg.Zipf, 1, uint64(len(cfg.Tenants)-1))
			for !stop.Load() && ctx.Err() == nil {
				if turns != nil {
					if _, ok := <-turns; !ok {
						return
					}
				}
				b := t.rank[zipf.Uint64()]
				switch n := r.IntN(100); {
				case n < 55:
					t.week(ctx, r, b, true)
				case n < 95:
					t.day(ctx, r, b)
				default:
					t.write(ctx, r, b)
				}
			}
		})
	}

	// The phones: a poll is due every 1/PollRate seconds on average
	// (exponential gaps), to a phone drawn at random, so each phone polls
	// every PollInterval/PollScale on average.
	if rep.PollRate > 0 && len(t.phones) > 0 {
		due := make(chan int, cfg.Pollers)
		for range cfg.Pollers {
			wg.Go(func() {
				for p := range due {
					t.poll(ctx, p)
				}
			})
		}
		wg.Go(func() {
			defer close(due)
			r := rand.New(rand.NewPCG(cfg.Seed, 3))
			at := time.Now()
			for !stop.Load() && ctx.Err() == nil {
				at = at.Add(time.Duration(r.ExpFloat64() / rep.PollRate * float64(time.Second)))
				if d := time.Until(at); d > 0 {
					time.Sleep(d)
				}
				select {
				case due <- r.IntN(len(t.phones)):
				default:
					t.mu.Lock()
					rep.PollsLate++
					t.mu.Unlock()
					due <- r.IntN(len(t.phones)) // wait for a poller: the load shows as lateness
				}
			}
		})
	}

	if cfg.RestartReplica != nil {
		wg.Go(func() {
			select {
			case <-ended:
				return
			case <-time.After(cfg.RestartAt):
			}
			err := cfg.RestartReplica(ctx)
			t.mu.Lock()
			rep.Restarted, rep.RestartErr = since(), err
			t.mu.Unlock()
		})
	}

	select {
	case <-ctx.Done():
	case <-time.After(cfg.Duration):
	}
	select {
	case <-ctx.Done():
	case <-sweepDone:
	}
	stop.Store(true)
	close(ended)
	wg.Wait()
	<-sweepDone
	rep.Elapsed = since()
	rep.Swept = time.Duration(swept.Load())
	rep.Touched = len(cfg.Tenants) - int(t.left.Load())
	rep.Report.fill(t.results, TenantKinds)
	if rep.Swept > 0 {
		var during, after []result
		for _, res := range t.results {
			if res.at < rep.Swept {
				during = append(during, res)
			} else {
				after = append(after, res)
			}
		}
		rep.Sweeping, rep.After = &Report{Elapsed: rep.Swept}, &Report{Elapsed: rep.Elapsed - rep.Swept}
		rep.Sweeping.fill(during, TenantKinds)
		rep.After.fill(after, TenantKinds)
	}
	return rep, nil
}

// fill sorts results into stats per kind, in the order kinds are given.
func (rep *Report) fill(results []result, kinds []Kind) {
	rep.Total = Stats{Kind: -1}
	rep.Kinds = make([]Stats, len(kinds))
	at := map[Kind]int{}
	for i, k := range kinds {
		rep.Kinds[i].Kind = k
		at[k] = i
	}
	for _, res := range results {
		s := &rep.Kinds[at[res.kind]]
		s.Latencies = append(s.Latencies, res.took)
		rep.Total.Latencies = append(rep.Total.Latencies, res.took)
		if res.err != nil {
			s.Errors++
			rep.Total.Errors++
			if len(rep.FirstErrors) < 5 {
				rep.FirstErrors = append(rep.FirstErrors, fmt.Sprintf("%v: %v", res.kind, res.err))
			}
		}
	}
	for k := range rep.Kinds {
		slices.Sort(rep.Kinds[k].Latencies)
	}
	slices.Sort(rep.Total.Latencies)
}

// first marks business b touched and says whether it had not been.
func (t *tenantsRun) first(b int) bool {
	if t.touched[b].CompareAndSwap(false, true) {
		t.left.Add(-1)
		return true
	}
	return false
}

// measure sends one request and records it as kind k, unless the run was
// cut off under it.
func (t *tenantsRun) measure(ctx context.Context, k Kind, send func() error) {
	t0 := time.Now()
	err := send()
	if ctx.Err() != nil && err != nil {
		return
	}
	t.record(k, t0, time.Since(t0), err)
}

const weekQuery = `query Week($from: Date!, $to: Date!) {
	days(from: $from, to: $to) { date sessions { id start end cancelled room { name } class { name } staff { name } } }
}`

// week asks for a week of business b: this week when it is cold, one of
// the next eight otherwise (drawn from r; a sweeper has none and asks only
// cold businesses).
func (t *tenantsRun) week(ctx context.Context, r *rand.Rand, b int, desk bool) {
	k, from := TailWeek, t.cfg.Today
	switch {
	case t.first(b):
		k = ColdWeek
	case !desk:
		return // a desk touched it first
	case t.hot[b]:
		k = HotWeek
		fallthrough
	default:
		from = from.AddDate(0, 0, 7*r.IntN(8))
	}
	t.measure(ctx, k, func() error {
		return t.c.graphqlAs(ctx, t.cfg.Tenants[b].Token, weekQuery,
			map[string]any{"from": date(from), "to": date(from.AddDate(0, 0, 7))}, nil)
	})
}

func (t *tenantsRun) day(ctx context.Context, r *rand.Rand, b int) {
	t.first(b)
	from := t.cfg.Today.AddDate(0, 0, r.IntN(56))
	t.measure(ctx, Day, func() error {
		return t.c.graphqlAs(ctx, t.cfg.Tenants[b].Token, `query Day($from: Date!, $to: Date!) {
			days(from: $from, to: $to) { date sessions { id start end cancelled note room { name } class { name } staff { name } } }
		}`, map[string]any{"from": date(from), "to": date(from.AddDate(0, 0, 1))}, nil)
	})
}

// write creates a closure far in the future and deletes it again, each a
// committed guarded write of its own (a closure can never clash).
func (t *tenantsRun) write(ctx context.Context, r *rand.Rand, b int) {
	t.first(b)
	token := t.cfg.Tenants[b].Token
	day := time.Date(2090, 1, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, r.IntN(3650))
	var created struct {
		CreateClosure struct{ Closure struct{ ID string } }
	}
	t.measure(ctx, Write, func() error {
		return t.c.graphqlAs(ctx, token, `mutation Close($day: Date!) {
			createClosure(input: {from: $day, to: $day, reason: "load test"}) { closure { id } }
		}`, map[string]any{"day": date(day)}, &created)
	})
	if id := created.CreateClosure.Closure.ID; id != "" {
		t.measure(ctx, Write, func() error {
			return t.c.graphqlAs(ctx, token, `mutation Reopen($id: ID!) { deleteClosure(id: $id) { id } }`, map[string]any{"id": id}, nil)
		})
	}
}

// poll is one poll of phone p. A phone whose last poll has not ended (a
// slow server) skips this one, as a phone's calendar app does.
func (t *tenantsRun) poll(ctx context.Context, p int) {
	st := &t.state[p]
	st.mu.Lock()
	if st.busy {
		st.mu.Unlock()
		return
	}
	st.busy = true
	tag := st.tag
	st.mu.Unlock()
	defer func() { st.mu.Lock(); st.busy = false; st.mu.Unlock() }()

	at := t.phones[p]
	t.first(at.tenant)
	ph := t.cfg.Tenants[at.tenant].Phones[at.phone]
	if ph.Feed != "" {
		t.measure(ctx, FeedPoll, func() error {
			etag, err := t.c.feed(ctx, ph.Feed, tag)
			if err == nil {
				st.mu.Lock()
				st.tag = etag
				st.mu.Unlock()
			}
			return err
		})
		return
	}
	t.measure(ctx, CalDAVPoll, func() error {
		home := "/caldav/" + ph.Login + "/calendars/"
		b, err := t.c.davAs(ctx, ph.Login, ph.Password, "PROPFIND", home, "1", `<?xml version="1.0" encoding="utf-8"?>
<D:propfind xmlns:D="DAV:" xmlns:CS="http://calendarserver.org/ns/"><D:prop><D:resourcetype/><D:sync-token/><CS:getctag/></D:prop></D:propfind>`)
		if err != nil {
			return err
		}
		var ms struct {
			Responses []struct {
				Href  string `xml:"href"`
				Token string `xml:"propstat>prop>sync-token"`
			} `xml:"response"`
		}
		if err := xml.Unmarshal(b, &ms); err != nil {
			return err
		}
		token := ""
		for _, r := range ms.Responses {
			if strings.HasSuffix(r.Href, "/"+ph.Calendar+"/") {
				token = r.Token
			}
		}
		if token == "" {
			return fmt.Errorf("%s lists no %s with a sync token", home, ph.Calendar)
		}
		if tag != "" && tag != token {
			// Something changed since the last poll: ask what.
			if _, err := t.c.davAs(ctx, ph.Login, ph.Password, "REPORT", home+ph.Calendar+"/", "1", `<?xml version="1.0" encoding="utf-8"?>
<D:sync-collection xmlns:D="DAV:"><D:sync-token>`+tag+`</D:sync-token><D:sync-level>1</D:sync-level><D:prop><D:getetag/></D:prop></D:sync-collection>`); err != nil {
				return err
			}
		}
		st.mu.Lock()
		st.tag = token
		st.mu.Unlock()
		return nil
	})
}

// feed GETs a .ics feed as a calendar app subscribed to it does (gzip,
// If-None-Match with the ETag it holds) and returns the feed's ETag.
func (c *client) feed(ctx context.Context, token, etag string) (string, error) {
	req, err := http.NewRequestWithContext(ctx, "GET", c.cfg.URL+"/ics/"+token+".ics", nil)
	if err != nil {
		return "", err
	}
	req.Header.Set("Accept-Encoding", "gzip")
	if etag != "" {
		req.Header.Set("If-None-Match", etag)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	n, err := io.Copy(io.Discard, resp.Body)
	if err != nil {
		return "", err
	}
	switch {
	case resp.StatusCode == http.StatusNotModified:
		return etag, nil
	case resp.StatusCode != http.StatusOK:
		return "", fmt.Errorf("feed: HTTP %d", resp.StatusCode)
	case n == 0:
		return "", errors.New("feed: an empty body")
	}
	return resp.Header.Get("ETag"), nil
}
