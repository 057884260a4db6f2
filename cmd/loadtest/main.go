// Command loadtest drives a running koredyne server with the mix of
// requests a busy business sees, for a bounded time, and prints throughput
// and latency percentiles per kind of request:
//
//   - 45 % week queries: days over 7 days with their sessions,
//   - 35 % day queries,
//   - 19 % CalDAV month REPORTs (a calendar-query with a time range on the
//     business's calendar, found by PROPFIND as calendar apps find it),
//   - 1 % writes: a closure far in the future created and deleted again,
//     two guarded writes that commit and can never clash.
//
// It refuses a server that is not on loopback unless --allow-remote is
// given, since it is meant for a server of one's own.
//
//	go run ./cmd/loadtest --token kd_… --business demo --duration 20s --concurrency 8
//
// With --tenants N it runs the many-tenants mode instead (tenants.go): it
// seeds N businesses into the server's database (seed.go), or reads them
// from --tenants-file, and drives them all at once: desks, practitioners'
// phones, a sweep of every business, the server's memory and a replica
// restart.
//
//	go run ./cmd/loadtest --tenants 10000 --database-url postgres://… --server-pid 1234 --duration 5m
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"slices"
	"strings"
	"sync"
	"time"
)

// MaxDuration bounds a run, so a forgotten load test stops by itself.
const MaxDuration = 10 * time.Minute

// Config is what a run needs.
type Config struct {
	URL         string
	Token       string
	Business    string
	Duration    time.Duration
	Concurrency int
	AllowRemote bool
	// Today is the date the queries are asked around.
	Today time.Time
}

// Validate checks the configuration before any request is sent.
func (c *Config) Validate() error {
	u, err := url.Parse(c.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("--url must be an http:// or https:// URL, not %q", c.URL)
	}
	if !c.AllowRemote && !loopback(u.Hostname()) {
		return fmt.Errorf("%s is not a loopback address: pass --allow-remote to load a server elsewhere", u.Hostname())
	}
	if c.Token == "" || c.Business == "" {
		return fmt.Errorf("--token (an owner token) and --business (its slug) are needed")
	}
	if c.Duration <= 0 || c.Duration > MaxDuration {
		return fmt.Errorf("--duration must be more than 0 and at most %v", MaxDuration)
	}
	if c.Concurrency < 1 || c.Concurrency > 256 {
		return fmt.Errorf("--concurrency must be from 1 to 256")
	}
	return nil
}

func loopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// Kind is a kind of request of the mix.
type Kind int

const (
	Week Kind = iota
	Day
	MonthReport
	Write
	kinds
)

func (k Kind) String() string {
	return [...]string{"week query", "day query", "caldav month REPORT", "write",
		"cold first week", "hot week", "tail week", "caldav poll", "feed poll"}[k]
}

// pick draws a kind with the mix's weights from a number in [0, 100).
func pick(n int) Kind {
	switch {
	case n < 45:
		return Week
	case n < 80:
		return Day
	case n < 99:
		return MonthReport
	}
	return Write
}

// Stats are the results of one kind of request.
type Stats struct {
	Kind      Kind
	Latencies []time.Duration // sorted
	Errors    int
}

// Percentile returns the latency below which p of the requests finished.
func (s Stats) Percentile(p float64) time.Duration {
	if len(s.Latencies) == 0 {
		return 0
	}
	return s.Latencies[min(len(s.Latencies)-1, int(p*float64(len(s.Latencies))))]
}

// Report is a whole run: stats per kind and for all requests.
type Report struct {
	Elapsed time.Duration
	Kinds   []Stats
	Total   Stats
	// FirstErrors holds a few error messages, to say what went wrong.
	FirstErrors []string
}

// PerSecond is the throughput of s over the run.
func (r *Report) PerSecond(s Stats) float64 {
	return float64(len(s.Latencies)) / r.Elapsed.Seconds()
}

// Print writes the report as a table.
func (r *Report) Print(w io.Writer) {
	fmt.Fprintf(w, "%-20s %8s %9s %9s %9s %7s\n", "kind", "requests", "req/s", "p50", "p99", "errors")
	for _, s := range append(slices.Clone(r.Kinds), r.Total) {
		name := "total"
		if s.Kind >= 0 {
			name = s.Kind.String()
		}
		fmt.Fprintf(w, "%-20s %8d %9.1f %9s %9s %7d\n", name, len(s.Latencies), r.PerSecond(s),
			s.Percentile(0.50).Round(10*time.Microsecond), s.Percentile(0.99).Round(10*time.Microsecond), s.Errors)
	}
	for _, e := range r.FirstErrors {
		fmt.Fprintf(w, "error: %s\n", e)
	}
}

// client sends the mix's requests to one server.
type client struct {
	cfg      Config
	http     *http.Client
	calendar string // the business calendar's URL
}

// Run discovers the business's calendar, then sends the mix from
// cfg.Concurrency workers until cfg.Duration has passed or ctx ends.
func Run(ctx context.Context, cfg Config) (*Report, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if cfg.Today.IsZero() {
		cfg.Today = time.Now()
	}
	c := &client{cfg: cfg, http: &http.Client{
		Timeout:   30 * time.Second,
		Transport: &http.Transport{MaxIdleConnsPerHost: cfg.Concurrency, MaxIdleConns: cfg.Concurrency},
	}}
	if err := c.graphql(ctx, `{ business { slug } }`, nil, nil); err != nil {
		return nil, fmt.Errorf("the token does not open the business: %w", err)
	}
	cal, err := c.discover(ctx)
	if err != nil {
		return nil, fmt.Errorf("finding the business calendar: %w", err)
	}
	c.calendar = cal

	ctx, cancel := context.WithTimeout(ctx, cfg.Duration)
	defer cancel()
	results := make([][]result, cfg.Concurrency)
	start := time.Now()
	var wg sync.WaitGroup
	for i := range cfg.Concurrency {
		wg.Go(func() {
			r := rand.New(rand.NewPCG(uint64(i), 7))
			for ctx.Err() == nil {
				k := pick(r.IntN(100))
				t0 := time.Now()
				err := c.do(ctx, k, r)
				if ctx.Err() != nil && err != nil {
					return // cut off by the end of the run, not a failure
				}
				results[i] = append(results[i], result{kind: k, took: time.Since(t0), err: err})
			}
		})
	}
	wg.Wait()

	rep := &Report{Elapsed: time.Since(start)}
	rep.fill(slices.Concat(results...), []Kind{Week, Day, MonthReport, Write})
	return rep, nil
}

// do sends one request of kind k, around dates drawn from r: the weeks and
// days of the next two months, as a desk and its clients look at them.
func (c *client) do(ctx context.Context, k Kind, r *rand.Rand) error {
	switch k {
	case Week:
		from := c.cfg.Today.AddDate(0, 0, 7*r.IntN(8))
		return c.graphql(ctx, `query Week($from: Date!, $to: Date!) {
			days(from: $from, to: $to) { date sessions { id start end cancelled room { name } class { name } staff { name } } }
		}`, map[string]any{"from": date(from), "to": date(from.AddDate(0, 0, 7))}, nil)
	case Day:
		from := c.cfg.Today.AddDate(0, 0, r.IntN(56))
		return c.graphql(ctx, `query Day($from: Date!, $to: Date!) {
			days(from: $from, to: $to) { date sessions { id start end cancelled note room { name } class { name } staff { name } } }
		}`, map[string]any{"from": date(from), "to": date(from.AddDate(0, 0, 1))}, nil)
	case MonthReport:
		first := time.Date(c.cfg.Today.Year(), c.cfg.Today.Month()+time.Month(r.IntN(3)), 1, 0, 0, 0, 0, time.UTC)
		return c.report(ctx, first, first.AddDate(0, 1, 0))
	default:
		return c.write(ctx, r)
	}
}

func date(t time.Time) string { return t.Format("2006-01-02") }

// write creates a closure of one day in 2090 and deletes it: two committed
// writes that never clash, since a closure only takes sessions away.
func (c *client) write(ctx context.Context, r *rand.Rand) error {
	day := time.Date(2090, 1, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, r.IntN(3650))
	var created struct {
		CreateClosure struct{ Closure struct{ ID string } }
	}
	err := c.graphql(ctx, `mutation Close($day: Date!) {
		createClosure(input: {from: $day, to: $day, reason: "load test"}) { closure { id } }
	}`, map[string]any{"day": date(day)}, &created)
	if err != nil {
		return err
	}
	return c.graphql(ctx, `mutation Reopen($id: ID!) { deleteClosure(id: $id) { id } }`,
		map[string]any{"id": created.CreateClosure.Closure.ID}, nil)
}

// graphql posts a query and decodes its data into out (when not nil); a
// response with errors is an error.
func (c *client) graphql(ctx context.Context, query string, vars map[string]any, out any) error {
	return c.graphqlAs(ctx, c.cfg.Token, query, vars, out)
}

// graphqlAs is graphql with another business's token.
func (c *client) graphqlAs(ctx context.Context, token, query string, vars map[string]any, out any) error {
	body, err := json.Marshal(map[string]any{"query": query, "variables": vars})
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, "POST", c.cfg.URL+"/graphql", bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.http.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	var r struct {
		Data   json.RawMessage
		Errors []struct{ Message string }
	}
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil {
		return fmt.Errorf("HTTP %d: %w", resp.StatusCode, err)
	}
	if len(r.Errors) > 0 {
		return fmt.Errorf("HTTP %d: %s", resp.StatusCode, r.Errors[0].Message)
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("HTTP %d", resp.StatusCode)
	}
	if out != nil {
		return json.Unmarshal(r.Data, out)
	}
	return nil
}

// dav sends a WebDAV request signed in as the business and returns the
// multistatus body.
func (c *client) dav(ctx context.Context, method, path, depth, body string) ([]byte, error) {
	return c.davAs(ctx, c.cfg.Business, c.cfg.Token, method, path, depth, body)
}

// davAs is dav signed in as another user.
func (c *client) davAs(ctx context.Context, user, password, method, path, depth, body string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, method, c.cfg.URL+path, strings.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.SetBasicAuth(user, password)
	req.Header.Set("Depth", depth)
	req.Header.Set("Content-Type", "application/xml; charset=utf-8")
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusMultiStatus {
		return nil, fmt.Errorf("%s %s: HTTP %d", method, path, resp.StatusCode)
	}
	return b, nil
}

type multistatus struct {
	Responses []struct {
		Href     string `xml:"href"`
		Propstat []struct {
			Prop prop `xml:"prop"`
		} `xml:"propstat"`
	} `xml:"response"`
}

type prop struct {
	Principal string    `xml:"current-user-principal>href"`
	Home      string    `xml:"calendar-home-set>href"`
	Calendar  *struct{} `xml:"resourcetype>calendar"`
}

func (c *client) propfind(ctx context.Context, path, depth, props string) (multistatus, error) {
	var ms multistatus
	b, err := c.dav(ctx, "PROPFIND", path, depth, `<?xml version="1.0" encoding="utf-8"?>
<D:propfind xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav"><D:prop>`+props+`</D:prop></D:propfind>`)
	if err == nil {
		err = xml.Unmarshal(b, &ms)
	}
	return ms, err
}

// discover finds the business calendar as a calendar app does: the
// principal, its calendar home, and in it the calendar of the whole
// business ("all/").
func (c *client) discover(ctx context.Context) (string, error) {
	ms, err := c.propfind(ctx, "/caldav/", "0", `<D:current-user-principal/>`)
	if err != nil {
		return "", err
	}
	principal := ms.find(func(p prop) string { return p.Principal })
	if principal == "" {
		return "", errors.New("no current-user-principal")
	}
	if ms, err = c.propfind(ctx, principal, "0", `<C:calendar-home-set/>`); err != nil {
		return "", err
	}
	home := ms.find(func(p prop) string { return p.Home })
	if home == "" {
		return "", errors.New("no calendar-home-set")
	}
	if ms, err = c.propfind(ctx, home, "1", `<D:resourcetype/>`); err != nil {
		return "", err
	}
	for _, r := range ms.Responses {
		for _, ps := range r.Propstat {
			if ps.Prop.Calendar != nil && strings.HasSuffix(r.Href, "/all/") {
				return r.Href, nil
			}
		}
	}
	return "", fmt.Errorf("the calendar home %s lists no business calendar", home)
}

// find returns the first non-empty value of a property in a multistatus.
func (ms multistatus) find(value func(prop) string) string {
	for _, r := range ms.Responses {
		for _, ps := range r.Propstat {
			if v := value(ps.Prop); v != "" {
				return v
			}
		}
	}
	return ""
}

// report asks the business calendar for the events of [from, to), with
// their data, as a calendar app does when it opens a month.
func (c *client) report(ctx context.Context, from, to time.Time) error {
	const stamp = "20060102T150405Z"
	b, err := c.dav(ctx, "REPORT", c.calendar, "1", `<?xml version="1.0" encoding="utf-8"?>
<C:calendar-query xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav">
 <D:prop><D:getetag/><C:calendar-data/></D:prop>
 <C:filter><C:comp-filter name="VCALENDAR"><C:comp-filter name="VEVENT">
  <C:time-range start="`+from.UTC().Format(stamp)+`" end="`+to.UTC().Format(stamp)+`"/>
 </C:comp-filter></C:comp-filter></C:filter>
</C:calendar-query>`)
	if err != nil {
		return err
	}
	var ms multistatus
	if err := xml.Unmarshal(b, &ms); err != nil {
		return err
	}
	if len(ms.Responses) == 0 {
		return fmt.Errorf("no events from %s to %s", date(from), date(to))
	}
	return nil
}

func main() {
	var c Config
	var t tenantsFlags
	fs := flag.NewFlagSet("loadtest", flag.ExitOnError)
	fs.StringVar(&c.URL, "url", "http://127.0.0.1:8080", "the server to load")
	fs.StringVar(&c.Token, "token", os.Getenv("KOREDYNE_BOOTSTRAP_TOKEN"), "an owner token (default $KOREDYNE_BOOTSTRAP_TOKEN)")
	fs.StringVar(&c.Business, "business", "demo", "the business's slug, the CalDAV user")
	fs.DurationVar(&c.Duration, "duration", 30*time.Second, "how long to run, at most 10m")
	fs.IntVar(&c.Concurrency, "concurrency", 8, "requests in flight at once (with --tenants: the desks')")
	fs.BoolVar(&c.AllowRemote, "allow-remote", false, "load a server that is not on loopback")
	t.define(fs)
	fs.Parse(os.Args[1:])
	c.URL = strings.TrimSuffix(c.URL, "/")

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if t.count > 0 {
		if err := t.run(ctx, c); err != nil {
			fmt.Fprintf(os.Stderr, "loadtest: %v\n", err)
			os.Exit(1)
		}
		return
	}
	rep, err := Run(ctx, c)
	if err != nil {
		fmt.Fprintf(os.Stderr, "loadtest: %v\n", err)
		os.Exit(1)
	}
	fmt.Printf("%s, %d workers, %v\n", c.URL, c.Concurrency, rep.Elapsed.Round(time.Millisecond))
	rep.Print(os.Stdout)
	if rep.Total.Errors > 0 {
		os.Exit(1)
	}
}
