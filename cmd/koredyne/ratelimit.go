package main

import (
	"math"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/koredyne/schedule/graph"
)

// limiter is a token bucket per caller: each holds up to burst requests and
// refills at rate a second. A bucket left alone long enough to be full
// again is the same as no bucket, so the sweep drops those and memory
// stays bounded by the callers of the last few seconds.
type limiter struct {
	rate  float64
	burst float64
	now   func() time.Time

	mu        sync.Mutex
	buckets   map[string]*bucket
	lastSweep time.Time
}

type bucket struct {
	tokens float64
	at     time.Time // when tokens was last brought up to date
}

func newLimiter(rate float64, burst int, now func() time.Time) *limiter {
	return &limiter{rate: rate, burst: float64(burst), now: now, buckets: map[string]*bucket{}, lastSweep: now()}
}

// allow takes one request from key's bucket. When the bucket is empty it
// returns false and how long until a request would be allowed.
func (l *limiter) allow(key string) (bool, time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	l.sweep(now)
	b, ok := l.buckets[key]
	if !ok {
		b = &bucket{tokens: l.burst, at: now}
		l.buckets[key] = b
	}
	b.tokens = min(l.burst, b.tokens+now.Sub(b.at).Seconds()*l.rate)
	b.at = now
	if b.tokens >= 1 {
		b.tokens--
		return true, 0
	}
	return false, time.Duration((1 - b.tokens) / l.rate * float64(time.Second))
}

// sweep drops the buckets that have refilled, at most once per refill time
// (and at least once a second), so the cost is spread over many requests.
func (l *limiter) sweep(now time.Time) {
	full := time.Duration(l.burst / l.rate * float64(time.Second))
	if now.Sub(l.lastSweep) < max(full, time.Second) {
		return
	}
	l.lastSweep = now
	for key, b := range l.buckets {
		if b.tokens+now.Sub(b.at).Seconds()*l.rate >= l.burst {
			delete(l.buckets, key)
		}
	}
}

// size is how many buckets are held.
func (l *limiter) size() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.buckets)
}

// rateKey names who makes a request: its bearer token, its Basic user (a
// calendar app), the secret token of a feed or timetable URL, or else the
// address it comes from. Behind a load balancer the address is the
// balancer's, which is why requests with a token never fall back to it.
func rateKey(r *http.Request) string {
	if tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); ok {
		return "token " + strings.TrimSpace(tok)
	}
	if user, _, ok := r.BasicAuth(); ok {
		return "user " + user
	}
	if m := secretPath.FindString(r.URL.Path); m != "" {
		return "url " + m
	}
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	return "addr " + host
}

// unlimited are the paths a balancer and a metrics scraper poll; they
// never count against anyone.
var unlimited = map[string]bool{"/healthz": true, "/readyz": true, "/metrics": true}

// limit answers 429 Too Many Requests, with Retry-After in whole seconds,
// to a caller over its rate; GraphQL callers get it in GraphQL's error
// shape.
func (l *limiter) limit(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if unlimited[r.URL.Path] {
			next.ServeHTTP(w, r)
			return
		}
		ok, wait := l.allow(rateKey(r))
		if ok {
			next.ServeHTTP(w, r)
			return
		}
		w.Header().Set("Retry-After", strconv.Itoa(max(1, int(math.Ceil(wait.Seconds())))))
		const msg = "Too many requests: slow down and retry after the time in Retry-After"
		if r.URL.Path != "/graphql" {
			http.Error(w, msg, http.StatusTooManyRequests)
			return
		}
		graph.WriteError(w, http.StatusTooManyRequests, "RATE_LIMITED", msg)
	})
}
