package main

import (
	"fmt"
	"net/http"
	"testing"
	"time"
)

// TestRateLimitBucketsRefillAndAreDropped drives the limiter with a clock
// of its own: a burst, a refusal with the wait until the next token, a
// refill, and the buckets of callers gone quiet dropped by the sweep.
func TestRateLimitBucketsRefillAndAreDropped(t *testing.T) {
	at := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	l := newLimiter(2, 3, func() time.Time { return at })
	for i := range 3 {
		if ok, _ := l.allow("a"); !ok {
			t.Fatalf("request %d of a burst of 3 refused", i+1)
		}
	}
	if ok, wait := l.allow("a"); ok || wait != 500*time.Millisecond {
		t.Errorf("the 4th request: allowed %v, wait %v; want refused, 500ms", ok, wait)
	}
	if ok, _ := l.allow("b"); !ok {
		t.Error("another caller was refused")
	}
	at = at.Add(time.Second) // 2 tokens back
	for i := range 2 {
		if ok, _ := l.allow("a"); !ok {
			t.Fatalf("request %d after a second refused", i+1)
		}
	}
	if ok, _ := l.allow("a"); ok {
		t.Error("a third request after a second was allowed at 2 a second")
	}

	for i := range 1000 {
		l.allow(fmt.Sprintf("caller-%d", i))
	}
	if n := l.size(); n != 1002 {
		t.Fatalf("%d buckets, want 1002", n)
	}
	at = at.Add(2 * time.Second) // every bucket is full again
	l.allow("c")
	if n := l.size(); n != 1 {
		t.Errorf("after every caller went quiet, %d buckets are kept, want 1", n)
	}
}

// TestRateKey names callers by what they authenticate with, never by the
// address when they send a token.
func TestRateKey(t *testing.T) {
	req := func(path string, headers ...string) *http.Request {
		r, _ := http.NewRequest("GET", "http://127.0.0.1"+path, nil)
		r.RemoteAddr = "10.0.0.7:51234"
		for i := 0; i+1 < len(headers); i += 2 {
			r.Header.Set(headers[i], headers[i+1])
		}
		return r
	}
	basic := req("/caldav/")
	basic.SetBasicAuth("demo", "secret")
	for _, c := range []struct {
		name string
		r    *http.Request
		want string
	}{
		{"bearer", req("/graphql", "Authorization", "Bearer kd_abc"), "token kd_abc"},
		{"basic", basic, "user demo"},
		{"feed", req("/ics/kdf_xyz.ics"), "url /ics/kdf_xyz"},
		{"timetable", req("/t/kdt_xyz"), "url /t/kdt_xyz"},
		{"anonymous", req("/"), "addr 10.0.0.7"},
	} {
		if got := rateKey(c.r); got != c.want {
			t.Errorf("%s: got %q, want %q", c.name, got, c.want)
		}
	}
}
