package main

import (
	"crypto/sha256"
	"encoding/hex"
	"math"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/koredyne/schedule/engine"
	"github.com/koredyne/schedule/graph"
	"github.com/koredyne/schedule/models/locale"
)

// Failed sign-ins are limited per client address, slowly: enough for a
// person mistyping a password or an app with a stale token to be told so,
// far too few to try tokens.
const (
	failureRate  = 1.0 // a second
	failureBurst = 10
)

// remembered is how long a credential that authenticated counts as known:
// its requests skip the failure limit and are counted against itself. It
// is longer than calendar apps poll (every 15, 30 or 60 minutes): behind a
// balancer every phone comes from one address, and a phone forgotten
// between two polls would draw on that address's failed sign-ins, 10 at
// most in flight, for every poll.
const remembered = 2 * time.Hour

// What a request costs before the work its handler reports: a GraphQL
// request a unit (gqlgen parses, validates and plans every query; its
// complexity adds more), any other a tenth (a CalDAV request, a feed, a
// timetable page: 0.1 to 0.2 ms of a core, where a unit of their work, a
// quarter of dates or a megabyte written, is 1.5 to 5 ms; caldav's
// BenchmarkRequestKinds). A calendar app's first sync is thousands of
// small requests — DAVx5 fetches events in multigets of 10 — and a tenth
// lets it through while the dates and bytes it asks for are charged in
// full.
const (
	graphqlPrice = 1.0
	requestPrice = 0.1
)

// price is what a request costs before its work is counted.
func price(r *http.Request) float64 {
	if r.URL.Path == graph.Path {
		return graphqlPrice
	}
	return requestPrice
}

// limiter is a token bucket per caller, charged by the work of each
// request: its price and the units its handler reports (hooks.Work), such
// as three months of sessions computed or a megabyte of calendar data
// written. A request is let in while its caller's bucket holds its price;
// what it costs beyond that is taken when it is answered, so a bucket may
// go into debt, and the next request waits until it is paid.
//
// A request counts against a credential (a bearer token, a Basic login, a
// feed or timetable URL) only once the credential has been checked:
// credentials not yet known to be good draw on their address's bucket of
// failed sign-ins, which refills slowly, and are refunded when they turn
// out good. Requests without credentials count against their address.
//
// A bucket left alone long enough to be full again is the same as no
// bucket, so the sweep drops those and memory stays bounded by the callers
// of the last few seconds (and the credentials that authenticated in the
// last two hours).
type limiter struct {
	rate  float64
	burst float64
	now   func() time.Time
	// spent, when set, hears the units charged to callers (not the failed
	// sign-ins), and refused every request answered 429, for the metrics.
	spent   func(units float64)
	refused func()

	mu        sync.Mutex
	buckets   map[string]*bucket
	known     map[string]time.Time     // credential → until when it counts as good
	languages map[string]string        // known credential → the language its answers are in (Content-Language)
	pending   map[string]chan struct{} // credentials being checked
	lastSweep time.Time
}

type bucket struct {
	tokens      float64
	at          time.Time // when tokens was last brought up to date
	rate, burst float64
}

func newLimiter(rate float64, burst int, now func() time.Time) *limiter {
	return &limiter{rate: rate, burst: float64(burst), now: now,
		buckets: map[string]*bucket{}, known: map[string]time.Time{}, languages: map[string]string{}, pending: map[string]chan struct{}{}, lastSweep: now()}
}

// bucket returns key's bucket brought up to now, making a full one.
func (l *limiter) bucket(key string, rate, burst float64, now time.Time) *bucket {
	b, ok := l.buckets[key]
	if !ok {
		b = &bucket{tokens: burst, at: now, rate: rate, burst: burst}
		l.buckets[key] = b
	}
	b.tokens = min(b.burst, b.tokens+now.Sub(b.at).Seconds()*b.rate)
	b.at = now
	return b
}

// take takes cost units from key's bucket. When the bucket holds less
// than that it returns false and how long until it holds it.
func (l *limiter) take(key string, rate, burst, cost float64) (bool, time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	l.sweep(now)
	b := l.bucket(key, rate, burst, now)
	if b.tokens >= cost {
		b.tokens -= cost
		return true, 0
	}
	return false, time.Duration((cost - b.tokens) / rate * float64(time.Second))
}

// charge takes units from key's bucket (a negative charge refunds), down
// to a debt of at most ten bursts.
func (l *limiter) charge(key string, rate, burst, units float64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	b := l.bucket(key, rate, burst, l.now())
	b.tokens = max(b.tokens-units, -10*burst)
}

// allow takes a request's price from key's bucket at the configured rate.
func (l *limiter) allow(key string, cost float64) (bool, time.Duration) {
	ok, wait := l.take(key, l.rate, l.burst, cost)
	if ok {
		l.spend(cost)
	}
	return ok, wait
}

// spend charges units of work to a caller's bucket (not the failed
// sign-ins'), for what the request costs beyond its price.
func (l *limiter) spend(units float64) {
	if l.spent != nil && units > 0 {
		l.spent(units)
	}
}

// isKnown reports whether a credential authenticated lately.
func (l *limiter) isKnown(cred string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	until, ok := l.known[cred]
	return ok && l.now().Before(until)
}

func (l *limiter) remember(cred string, good bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if good {
		l.known[cred] = l.now().Add(remembered)
	} else {
		delete(l.known, cred)
		delete(l.languages, cred)
	}
}

// speaks records the language a credential's answers were written in (its
// business's), for the 429s it may get next.
func (l *limiter) speaks(cred, lang string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if _, ok := l.known[cred]; ok {
		l.languages[cred] = lang
	}
}

// language is the language a known credential's answers are in; "" when
// none is known.
func (l *limiter) language(cred string) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.languages[cred]
}

// checking starts the check of a credential not known to be good. When no
// other request is checking it, it returns done, to be called when the
// request is answered; otherwise a channel closed when the request that
// checks it is answered.
func (l *limiter) checking(cred string) (<-chan struct{}, func()) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if ch, ok := l.pending[cred]; ok {
		return ch, nil
	}
	ch := make(chan struct{})
	l.pending[cred] = ch
	return nil, func() {
		l.mu.Lock()
		delete(l.pending, cred)
		l.mu.Unlock()
		close(ch)
	}
}

// sweep drops the buckets that have refilled and the credentials not seen
// for a while, at most once per refill time (and at least once a second),
// so the cost is spread over many requests.
func (l *limiter) sweep(now time.Time) {
	full := time.Duration(l.burst / l.rate * float64(time.Second))
	if now.Sub(l.lastSweep) < max(full, time.Second) {
		return
	}
	l.lastSweep = now
	for key, b := range l.buckets {
		if b.tokens+now.Sub(b.at).Seconds()*b.rate >= b.burst {
			delete(l.buckets, key)
		}
	}
	for cred, until := range l.known {
		if now.After(until) {
			delete(l.known, cred)
			delete(l.languages, cred)
		}
	}
}

// size is how many buckets are held.
func (l *limiter) size() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.buckets)
}

// credential names what a request authenticates with: its bearer token,
// its Basic login and password (a calendar app), or the secret token of a
// feed or timetable URL; "" when it has none. It is hashed, so the
// limiter's memory holds no secrets.
func credential(r *http.Request) string {
	var c string
	if tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); ok {
		c = "token " + strings.TrimSpace(tok)
	} else if user, password, ok := r.BasicAuth(); ok {
		c = "user " + user + "\x00" + password
	} else if m := secretPath.FindString(r.URL.Path); m != "" {
		c = "url " + m
	} else {
		return ""
	}
	sum := sha256.Sum256([]byte(c))
	return hex.EncodeToString(sum[:16])
}

// address is the client address of a request: behind a load balancer, the
// balancer's.
func address(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

// unlimited are the paths a balancer and a metrics scraper poll; they
// never count against anyone.
var unlimited = map[string]bool{"/healthz": true, "/readyz": true, "/metrics": true}

// limit answers 429 Too Many Requests, with Retry-After in whole seconds,
// to a caller over its rate, and to an address with too many failed
// sign-ins; GraphQL callers get it in GraphQL's error shape.
func (l *limiter) limit(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if unlimited[r.URL.Path] {
			next.ServeHTTP(w, r)
			return
		}
		cred := credential(r)
		cost := price(r)
		failures := "failed " + address(r)
		key := "addr " + address(r)
		if cred != "" {
			key = "cred " + cred
		}
		// reserved: a unit taken from the address's failed sign-ins, for a
		// credential not known to be good. Only one request per such
		// credential is checked at a time, so that a calendar app opening
		// forty connections at once spends one unit, not forty.
		reserved := false
		var checkDone func()
		var ok bool
		var wait time.Duration
		for {
			if cred == "" || l.isKnown(cred) {
				ok, wait = l.allow(key, cost)
				break
			}
			checked, done := l.checking(cred)
			if done != nil {
				checkDone = done
				ok, wait = l.take(failures, failureRate, failureBurst, 1)
				reserved = ok
				break
			}
			select {
			case <-checked:
			case <-r.Context().Done():
				return
			}
		}
		if !ok {
			if checkDone != nil {
				checkDone()
			}
			if l.refused != nil {
				l.refused()
			}
			tooMany(w, r, wait, cred != "" && !l.isKnown(cred), l.language(cred))
			return
		}
		ctx, work := withWork(r.Context())
		answered := make(chan struct{})
		if checkDone != nil {
			// The others with this credential wait for its check, not for
			// the answer, which for a subscription comes much later.
			go func() {
				select {
				case <-work.Checked():
				case <-answered:
				}
				_, good, refused := work.Result()
				switch {
				case good:
					l.charge(failures, failureRate, failureBurst, -1)
					l.remember(cred, true)
				case refused:
					l.remember(cred, false)
				}
				checkDone()
			}()
		}
		next.ServeHTTP(w, r.WithContext(ctx))
		close(answered)
		units, good, refused := work.Result()
		if lang := w.Header().Get("Content-Language"); good && cred != "" && lang != "" {
			l.speaks(cred, lang)
		}
		switch {
		case refused && !reserved: // a known credential since revoked, or a websocket's token
			if cred != "" {
				l.remember(cred, false)
			}
			l.charge(failures, failureRate, failureBurst, 1)
		case refused:
		case reserved && good: // the request's price was a sign-in taken from the failures
			l.charge(key, l.rate, l.burst, cost+units)
			l.spend(cost + units)
		case reserved: // not checked (refused before that): the sign-in stays counted
		default:
			if good && cred != "" {
				l.remember(cred, true)
			}
			l.charge(key, l.rate, l.burst, units)
			l.spend(units)
		}
	})
}

// tooMany answers 429 with Retry-After, in the language the request's
// Accept-Language asks for, else in lang, the language the caller's
// business answered it in before (a credential's earlier answers'
// Content-Language), else English.
func tooMany(w http.ResponseWriter, r *http.Request, wait time.Duration, signIns bool, lang string) {
	w.Header().Set("Retry-After", strconv.Itoa(max(1, int(math.Ceil(wait.Seconds())))))
	l := locale.For(engine.Locale{Language: lang}, r.Header.Get("Accept-Language"))
	w.Header().Set("Content-Language", l.Language)
	msg := limitMessage(l, "Too many requests: slow down and retry after the time in Retry-After")
	if signIns {
		msg = limitMessage(l, "Too many failed sign-ins from your address: check the token or password, and retry after the time in Retry-After")
	}
	if r.URL.Path != graph.Path {
		http.Error(w, msg, http.StatusTooManyRequests)
		return
	}
	graph.WriteError(w, http.StatusTooManyRequests, "RATE_LIMITED", msg)
}

// limitMessage is an answer of the rate limit, written from its English
// format, in the locale's language.
func limitMessage(l *locale.Locale, format string) string {
	return l.Message(engine.Gym, "RATE_LIMITED", "", format, format, nil)
}
