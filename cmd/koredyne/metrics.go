package main

import (
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/koredyne/schedule/models/cache"
	"github.com/koredyne/schedule/models/inflight"
)

// maxOperations is how many distinct GraphQL operation names get a label of
// their own; later names are counted as "other". Clients choose operation
// names, so without a bound one client could grow the metrics without end.
const maxOperations = 200

// Metrics is one server's Prometheus collectors, on a registry of its own:
// requests and latencies per GraphQL operation and CalDAV method, the
// outcomes of the guarded write, the GraphQL response cache and the
// playground's copies. graph reports operations and the cache through its
// Observer (hooks), models the writes through Store.OnWrite, and CalDAV
// requests are counted around the gateway (observeCalDAV); serve exposes
// the registry at /metrics. Every method is safe on a nil *Metrics, which
// records nothing.
type Metrics struct {
	Registry *prometheus.Registry

	graphqlRequests *prometheus.CounterVec
	graphqlDuration *prometheus.HistogramVec
	caldavRequests  *prometheus.CounterVec
	caldavDuration  *prometheus.HistogramVec
	writes          *prometheus.CounterVec
	cache           *prometheus.CounterVec
	cacheLookups    *prometheus.CounterVec
	cacheEvictions  *prometheus.CounterVec
	reads           *prometheus.CounterVec
	rateUnits       prometheus.Counter
	rateLimited     prometheus.Counter

	mu         sync.Mutex
	operations map[string]bool
	hooks      *webhookMetrics // see webhooks.go
}

// newMetrics registers the collectors, with the Go runtime's and the process's, on
// a new registry. copies reports how many playground copies are held; nil
// means the server has no playground and reports 0.
func newMetrics(copies func() int) *Metrics {
	m := &Metrics{
		Registry: prometheus.NewRegistry(),
		graphqlRequests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "koredyne_graphql_requests_total",
			Help: "GraphQL operations answered, by operation name and outcome (ok or the first error's code).",
		}, []string{"operation", "outcome"}),
		graphqlDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "koredyne_graphql_duration_seconds",
			Help:    "Time to answer a GraphQL query or mutation, from reading the request to the response.",
			Buckets: prometheus.DefBuckets,
		}, []string{"operation"}),
		caldavRequests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "koredyne_caldav_requests_total",
			Help: "CalDAV and .ics feed requests answered, by method and status.",
		}, []string{"method", "status"}),
		caldavDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "koredyne_caldav_duration_seconds",
			Help:    "Time to answer a CalDAV or .ics feed request.",
			Buckets: prometheus.DefBuckets,
		}, []string{"method"}),
		writes: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "koredyne_writes_total",
			Help: "Guarded writes, by outcome: committed, unchanged (changed nothing, kept the revision), clash (refused for a clash it adds), error or dry_run.",
		}, []string{"outcome"}),
		cache: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "koredyne_response_cache_total",
			Help: "GraphQL queries the response cache answered (hit) or passed on (miss).",
		}, []string{"result"}),
		cacheLookups: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "koredyne_cache_lookups_total",
			Help: "Lookups in the memory-budgeted caches, by cache (snapshots, calendars, responses) and result (hit or miss).",
		}, []string{"cache", "result"}),
		cacheEvictions: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "koredyne_cache_evictions_total",
			Help: "Entries (a business's snapshot, calendars or answers) evicted to stay within --cache-mb, by cache.",
		}, []string{"cache"}),
		reads: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "koredyne_replica_reads_total",
			Help: "Reads that may go to a replica (with --replica-url), by where they went: replica, or primary_behind (the replica had not replayed the revision asked for, or the token), primary_down (a read on the replica failed) or primary_none (no replica usable: down, not a replica, or too far behind).",
		}, []string{"target"}),
		rateUnits: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "koredyne_rate_limit_units_total",
			Help: "Units of work the rate limit charged callers: a GraphQL request is one, any other a tenth, and their work more (dates a client chose, bytes written, GraphQL complexity).",
		}),
		rateLimited: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "koredyne_rate_limited_total",
			Help: "Requests the rate limit answered 429: their caller was over its rate, or its address had too many failed sign-ins.",
		}),
		operations: make(map[string]bool),
	}
	if copies == nil {
		copies = func() int { return 0 }
	}
	m.Registry.MustRegister(
		collectors.NewGoCollector(collectors.WithGoCollectorRuntimeMetrics(collectors.MetricsScheduler)),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		m.graphqlRequests, m.graphqlDuration, m.caldavRequests, m.caldavDuration, m.writes, m.cache, m.cacheLookups, m.cacheEvictions, m.reads, m.rateUnits, m.rateLimited,
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "koredyne_playground_copies",
			Help: "Private demo copies the playground holds in memory.",
		}, func() float64 { return float64(copies()) }),
	)
	// Outcomes that have not happened yet still show, as 0, so a dashboard
	// or an alert on a rate finds the series from the start.
	for _, o := range []string{writeCommitted, writeUnchanged, writeClash, writeError, writeDryRun} {
		m.writes.WithLabelValues(o)
	}
	m.cache.WithLabelValues("hit")
	m.cache.WithLabelValues("miss")
	for _, c := range caches {
		m.cacheLookups.WithLabelValues(c, "hit")
		m.cacheLookups.WithLabelValues(c, "miss")
		m.cacheEvictions.WithLabelValues(c)
	}
	return m
}

// Subscriptions reports how many subscriptions to schedule changes are
// open, as open counts them: websockets and event streams that have
// subscribed.
func (m *Metrics) Subscriptions(open func() int) {
	if m == nil {
		return
	}
	m.Registry.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "koredyne_subscriptions",
		Help: "Subscriptions to schedule changes open (websockets and event streams subscribed).",
	}, func() float64 { return float64(open()) }))
}

// WritesHeld reports the guarded writes that waited for reads and the
// seconds they waited, as held counts them (models.Store.WritesHeld).
func (m *Metrics) WritesHeld(held func() (int64, time.Duration)) {
	if m == nil {
		return
	}
	m.Registry.MustRegister(prometheus.NewCounterFunc(prometheus.CounterOpts{
		Name: "koredyne_writes_held_total",
		Help: "Guarded writes that waited while reads were being served (--write-share).",
	}, func() float64 { n, _ := held(); return float64(n) }))
	m.Registry.MustRegister(prometheus.NewCounterFunc(prometheus.CounterOpts{
		Name: "koredyne_writes_held_seconds_total",
		Help: "Seconds guarded writes waited while reads were being served (--write-share).",
	}, func() float64 { _, d := held(); return d.Seconds() }))
}

// caches are the names of the caches on the memory budget.
var caches = []string{"snapshots", "calendars", "responses"}

// Budget reports the bytes each cache on b holds, and b's limit.
func (m *Metrics) Budget(b *cache.Budget) {
	if m == nil {
		return
	}
	held := prometheus.NewDesc("koredyne_cache_bytes", "Bytes the memory-budgeted caches hold by their estimate, by cache.", []string{"cache"}, nil)
	limit := prometheus.NewDesc("koredyne_cache_budget_bytes", "The caches' memory budget (--cache-mb), in bytes.", nil, nil)
	m.Registry.MustRegister(budgetCollector{b, held, limit})
}

type budgetCollector struct {
	b           *cache.Budget
	held, limit *prometheus.Desc
}

func (c budgetCollector) Describe(ch chan<- *prometheus.Desc) { ch <- c.held; ch <- c.limit }

func (c budgetCollector) Collect(ch chan<- prometheus.Metric) {
	for _, name := range caches {
		ch <- prometheus.MustNewConstMetric(c.held, prometheus.GaugeValue, float64(c.b.Held(name)), name)
	}
	ch <- prometheus.MustNewConstMetric(c.limit, prometheus.GaugeValue, float64(c.b.Limit()))
}

// Requests reports the memory requests under way hold (--request-mb).
func (m *Metrics) Requests(b *inflight.Budget) {
	if m == nil {
		return
	}
	gauge := func(name, help string, v func(inflight.Stats) int64) {
		m.Registry.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: name, Help: help},
			func() float64 { return float64(v(b.Stats())) }))
	}
	counter := func(name, help string, v func(inflight.Stats) int64) {
		m.Registry.MustRegister(prometheus.NewCounterFunc(prometheus.CounterOpts{Name: name, Help: help},
			func() float64 { return float64(v(b.Stats())) }))
	}
	gauge("koredyne_request_memory_bytes", "Bytes requests under way hold: bodies, what decoding them makes, calendar files imported.",
		func(s inflight.Stats) int64 { return s.Held })
	gauge("koredyne_request_memory_max_bytes", "The most bytes requests under way have held at once since the server started.",
		func(s inflight.Stats) int64 { return s.Most })
	gauge("koredyne_request_memory_budget_bytes", "The memory budget of requests under way (--request-mb), in bytes.",
		func(s inflight.Stats) int64 { return s.Limit })
	gauge("koredyne_request_memory_waiting", "Requests waiting for their bytes of the request budget.",
		func(s inflight.Stats) int64 { return int64(s.Waiting) })
	counter("koredyne_request_memory_taken_bytes_total", "Bytes of the request budget ever taken.",
		func(s inflight.Stats) int64 { return s.Taken })
	counter("koredyne_request_memory_refused_total", "Requests answered 503 because the request budget could not hold them in time.",
		func(s inflight.Stats) int64 { return s.Refused })
}

// CacheLookup records a lookup in a cache on the memory budget.
func (m *Metrics) CacheLookup(name string, hit bool) {
	if m == nil {
		return
	}
	result := "miss"
	if hit {
		result = "hit"
	}
	m.cacheLookups.WithLabelValues(name, result).Inc()
}

// Evict records an entry evicted from a cache on the memory budget.
func (m *Metrics) Evict(name string) {
	if m == nil {
		return
	}
	m.cacheEvictions.WithLabelValues(name).Inc()
}

// Handler serves the registry in Prometheus's text format.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.Registry, promhttp.HandlerOpts{Registry: m.Registry})
}

// GraphQL records one answered operation. name is the operation's name
// ("" for an anonymous one); outcome is "ok" or an error code.
func (m *Metrics) GraphQL(name, outcome string, took time.Duration) {
	if m == nil {
		return
	}
	op := m.operation(name)
	m.graphqlRequests.WithLabelValues(op, outcome).Inc()
	m.graphqlDuration.WithLabelValues(op).Observe(took.Seconds())
}

// operation returns the label for an operation name, keeping the number of
// distinct labels under maxOperations.
func (m *Metrics) operation(name string) string {
	if name == "" {
		return "anonymous"
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.operations[name] {
		return name
	}
	if len(m.operations) >= maxOperations {
		return "other"
	}
	m.operations[name] = true
	return name
}

// davMethods are the methods CalDAV clients send; anything else is counted
// as "other", since the method is the client's to choose.
var davMethods = map[string]bool{
	"GET": true, "HEAD": true, "OPTIONS": true, "PROPFIND": true, "REPORT": true,
	"PUT": true, "DELETE": true, "PROPPATCH": true, "MKCOL": true, "MKCALENDAR": true,
	"COPY": true, "MOVE": true, "POST": true,
}

// CalDAV records one answered CalDAV or feed request.
func (m *Metrics) CalDAV(method string, status int, took time.Duration) {
	if m == nil {
		return
	}
	if !davMethods[method] {
		method = "other"
	}
	m.caldavRequests.WithLabelValues(method, strconv.Itoa(status)).Inc()
	m.caldavDuration.WithLabelValues(method).Observe(took.Seconds())
}

// RateUnits counts units of work the rate limit charged callers.
func (m *Metrics) RateUnits(units float64) {
	if m == nil {
		return
	}
	m.rateUnits.Add(units)
}

// RateLimited counts a request the rate limit answered 429.
func (m *Metrics) RateLimited() {
	if m == nil {
		return
	}
	m.rateLimited.Inc()
}

// The outcomes of a guarded write (models.Store.OnWrite).
const (
	writeCommitted = "committed"
	writeUnchanged = "unchanged"
	writeClash     = "clash"
	writeError     = "error"
	writeDryRun    = "dry_run"
)

// Write records the outcome of one guarded write: one of the write…
// constants.
func (m *Metrics) Write(outcome string) {
	if m == nil {
		return
	}
	m.writes.WithLabelValues(outcome).Inc()
}

// Cache records whether the response cache answered a query.
func (m *Metrics) Cache(hit bool) {
	if m == nil {
		return
	}
	result := "miss"
	if hit {
		result = "hit"
	}
	m.cache.WithLabelValues(result).Inc()
}

// Read records where a read that may go to a replica went (see
// models.Replicas.OnRead).
func (m *Metrics) Read(target string) {
	if m == nil {
		return
	}
	m.reads.WithLabelValues(target).Inc()
}
