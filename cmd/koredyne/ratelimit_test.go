package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
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
		if ok, _ := l.allow("a", 1); !ok {
			t.Fatalf("request %d of a burst of 3 refused", i+1)
		}
	}
	if ok, wait := l.allow("a", 1); ok || wait != 500*time.Millisecond {
		t.Errorf("the 4th request: allowed %v, wait %v; want refused, 500ms", ok, wait)
	}
	if ok, _ := l.allow("b", 1); !ok {
		t.Error("another caller was refused")
	}
	at = at.Add(time.Second) // 2 tokens back
	for i := range 2 {
		if ok, _ := l.allow("a", 1); !ok {
			t.Fatalf("request %d after a second refused", i+1)
		}
	}
	if ok, _ := l.allow("a", 1); ok {
		t.Error("a third request after a second was allowed at 2 a second")
	}

	for i := range 1000 {
		l.allow(fmt.Sprintf("caller-%d", i), 1)
	}
	if n := l.size(); n != 1002 {
		t.Fatalf("%d buckets, want 1002", n)
	}
	at = at.Add(2 * time.Second) // every bucket is full again
	l.allow("c", 1)
	if n := l.size(); n != 1 {
		t.Errorf("after every caller went quiet, %d buckets are kept, want 1", n)
	}
}

// TestCredential names callers by what they authenticate with, hashed,
// and gives none to a request without credentials.
func TestCredential(t *testing.T) {
	req := func(path string, headers ...string) *http.Request {
		r, _ := http.NewRequest("GET", "http://127.0.0.1"+path, nil)
		r.RemoteAddr = "10.0.0.7:51234"
		for i := 0; i+1 < len(headers); i += 2 {
			r.Header.Set(headers[i], headers[i+1])
		}
		return r
	}
	basic := func(user, password string) *http.Request {
		r := req("/caldav/")
		r.SetBasicAuth(user, password)
		return r
	}
	seen := map[string]string{}
	for _, c := range []struct {
		name string
		r    *http.Request
	}{
		{"bearer", req("/graphql", "Authorization", "Bearer kd_abc")},
		{"another bearer", req("/graphql", "Authorization", "Bearer kd_abd")},
		{"basic", basic("demo", "secret")},
		{"basic, another password", basic("demo", "secret2")},
		{"feed", req("/ics/kdf_xyz.ics")},
		{"timetable", req("/t/kdt_xyz")},
	} {
		got := credential(c.r)
		if got == "" || strings.Contains(got, "abc") || strings.Contains(got, "secret") || strings.Contains(got, "xyz") {
			t.Errorf("%s: credential %q", c.name, got)
		}
		if other, ok := seen[got]; ok {
			t.Errorf("%s and %s have the same credential", c.name, other)
		}
		seen[got] = c.name
	}
	if got := credential(req("/")); got != "" {
		t.Errorf("a request without credentials has %q", got)
	}
	if got := address(req("/")); got != "10.0.0.7" {
		t.Errorf("address %q", got)
	}
}

// TestBadCredentialsLimitedPerAddress sends 80 requests with 80 different
// bad tokens, and 20 CalDAV logins with bad passwords, from one address on
// the default settings: only the first few reach authentication (401), the
// rest are refused before it (429 with Retry-After). A token that signed in
// before goes on working meanwhile, and its requests never counted as
// failures.
func TestBadCredentialsLimitedPerAddress(t *testing.T) {
	s, _ := startLogged(t, nil)
	good := []string{"Authorization", "Bearer " + bootstrapToken, "Content-Type", "application/json"}
	for range 5 {
		if resp, body := hit(t, "POST", s.url+"/graphql", `{"query":"{ business { slug } }"}`, good...); resp.StatusCode != 200 {
			t.Fatalf("the good token: %d %s", resp.StatusCode, body)
		}
	}
	calendar := func() int {
		resp, _ := hit(t, "PROPFIND", s.url+"/caldav/demo/", "", "Authorization", "Basic "+basicAuth("demo", bootstrapToken), "Depth", "0", "Content-Type", "application/xml")
		return resp.StatusCode
	}
	if code := calendar(); code != 207 {
		t.Fatalf("CalDAV with a good password: %d", code)
	}
	counts := map[int]int{}
	for i := range 80 {
		resp, body := hit(t, "POST", s.url+"/graphql", `{"query":"{ business { slug } }"}`,
			"Authorization", fmt.Sprintf("Bearer kd_guess_%d", i), "Content-Type", "application/json")
		counts[resp.StatusCode]++
		switch resp.StatusCode {
		case http.StatusUnauthorized:
		case http.StatusTooManyRequests:
			if gqlCode(t, body) != "RATE_LIMITED" || resp.Header.Get("Retry-After") == "" {
				t.Errorf("guess %d: 429 %s, Retry-After %q", i, body, resp.Header.Get("Retry-After"))
			}
		default:
			t.Errorf("guess %d: %d %s", i, resp.StatusCode, body)
		}
	}
	for i := range 20 {
		resp, _ := hit(t, "PROPFIND", s.url+"/caldav/demo/", "", "Authorization", "Basic "+basicAuth("demo", fmt.Sprintf("guess-%d", i)), "Depth", "0")
		counts[resp.StatusCode]++
	}
	t.Logf("100 bad credentials: %v", counts)
	if counts[http.StatusUnauthorized] > failureBurst+2 || counts[http.StatusTooManyRequests] < 100-failureBurst-2 {
		t.Errorf("100 bad credentials from one address: %v; want at most about %d to reach authentication", counts, failureBurst)
	}
	if resp, body := hit(t, "POST", s.url+"/graphql", `{"query":"{ business { slug } }"}`, good...); resp.StatusCode != 200 {
		t.Errorf("the good token during the attack: %d %s", resp.StatusCode, body)
	}
	if code := calendar(); code != 207 {
		t.Errorf("CalDAV with a good password that signed in before: %d", code)
	}
}

// TestRateLimitForgetsCredentials: the credentials that signed in are held
// for remembered only, so a server whose 100,000 phones each poll now and
// then holds those of the last hours, and none once they go quiet.
func TestRateLimitForgetsCredentials(t *testing.T) {
	at := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	l := newLimiter(20, 40, func() time.Time { return at })
	for i := range 10_000 {
		cred := fmt.Sprintf("phone-%d", i)
		l.allow(cred, 1)
		l.remember(cred, true)
		if i%1000 == 999 {
			at = at.Add(remembered / 10)
		}
	}
	if !l.isKnown("phone-9999") || l.isKnown("phone-0") {
		t.Error("after sign-ins for as long as one is remembered, the last should be known and the first forgotten")
	}
	at = at.Add(remembered + time.Second)
	l.allow("desk", 1)
	l.mu.Lock()
	known, buckets := len(l.known), len(l.buckets)
	l.mu.Unlock()
	if known != 0 || buckets != 1 {
		t.Errorf("once every phone went quiet: %d credentials and %d buckets held, want 0 and 1", known, buckets)
	}
}

// TestPhonesStayKnownBetweenPolls: a calendar app polls every 15 minutes to
// an hour; it must still be known at its next poll, or every poll of every
// phone behind one balancer address would be checked against that
// address's failed sign-ins.
func TestPhonesStayKnownBetweenPolls(t *testing.T) {
	at := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	l := newLimiter(20, 40, func() time.Time { return at })
	l.remember("phone", true)
	for _, every := range []time.Duration{15 * time.Minute, 30 * time.Minute, time.Hour} {
		at = at.Add(every)
		if !l.isKnown("phone") {
			t.Fatalf("a phone polling every %v is forgotten between polls", every)
		}
		l.remember("phone", true)
	}
}

// TestPrices: a GraphQL request costs a unit, any other a tenth, and each
// is let in while its caller's bucket holds its price.
func TestPrices(t *testing.T) {
	req := func(method, path string) *http.Request {
		r, _ := http.NewRequest(method, "http://127.0.0.1"+path, nil)
		return r
	}
	for _, c := range []struct {
		r    *http.Request
		want float64
	}{
		{req("POST", "/graphql"), graphqlPrice},
		{req("REPORT", "/caldav/demo/calendars/all/"), requestPrice},
		{req("GET", "/ics/kdf_x.ics"), requestPrice},
		{req("GET", "/t/kdt_x"), requestPrice},
	} {
		if got := price(c.r); got != c.want {
			t.Errorf("%s %s costs %v, want %v", c.r.Method, c.r.URL.Path, got, c.want)
		}
	}

	at := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	l := newLimiter(2, 3, func() time.Time { return at })
	l.charge("a", 2, 3, 2.5) // half a unit left
	if ok, wait := l.allow("a", graphqlPrice); ok || wait != 250*time.Millisecond {
		t.Errorf("a GraphQL request with half a unit left: allowed %v, wait %v; want refused, 250ms", ok, wait)
	}
	for i := range 5 {
		if ok, _ := l.allow("a", requestPrice); !ok {
			t.Fatalf("CalDAV request %d with %.1f units left refused", i+1, 0.5-float64(i)*requestPrice)
		}
	}
	if ok, _ := l.allow("a", requestPrice); ok {
		t.Error("a CalDAV request with nothing left was allowed")
	}
}

// TestRateLimitSpeaksTheCallersLanguage: a 429 is written in the language
// the request's Accept-Language asks for, else in the one the caller's
// business answered it in before (its answers' Content-Language), else in
// English; its code and status never change.
func TestRateLimitSpeaksTheCallersLanguage(t *testing.T) {
	at := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	l := newLimiter(0.001, 2, func() time.Time { return at })
	h := l.limit(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		checked(r.Context(), true)
		w.Header().Set("Content-Language", "ar") // an Arabic business's answer
		w.WriteHeader(http.StatusOK)
	}))
	send := func(path, cred, lang string) *httptest.ResponseRecorder {
		req := httptest.NewRequest("POST", path, strings.NewReader(`{"query":"{ business { slug } }"}`))
		if cred != "" {
			req.Header.Set("Authorization", "Bearer "+cred)
		}
		if lang != "" {
			req.Header.Set("Accept-Language", lang)
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		return w
	}
	for range 2 {
		if w := send("/graphql", "kd_arabic", ""); w.Code != http.StatusOK {
			t.Fatalf("within the burst: %d", w.Code)
		}
	}
	cases := []struct{ path, cred, lang, want, header string }{
		{"/graphql", "kd_arabic", "", "طلبات كثيرة جدًا: أبطئ وأعد المحاولة بعد المدة المذكورة في Retry-After", "ar"},
		{"/graphql", "kd_arabic", "ru-RU", "Слишком много запросов: замедлитесь и повторите через время, указанное в Retry-After", "ru"},
		{"/graphql", "kd_arabic", "fr", "طلبات كثيرة جدًا: أبطئ وأعد المحاولة بعد المدة المذكورة في Retry-After", "ar"},
	}
	for _, c := range cases {
		w := send(c.path, c.cred, c.lang)
		if w.Code != http.StatusTooManyRequests || gqlCode(t, w.Body.String()) != "RATE_LIMITED" {
			t.Fatalf("%q: %d %s", c.lang, w.Code, w.Body)
		}
		var r struct{ Errors []struct{ Message string } }
		if err := json.Unmarshal(w.Body.Bytes(), &r); err != nil || len(r.Errors) != 1 {
			t.Fatalf("%q: %s", c.lang, w.Body)
		}
		if r.Errors[0].Message != c.want || w.Header().Get("Content-Language") != c.header {
			t.Errorf("%q: got %q (%s), want %q (%s)", c.lang, r.Errors[0].Message, w.Header().Get("Content-Language"), c.want, c.header)
		}
	}
	// Without a credential no business is known: the asked language, as
	// plain text off the API; English when none is asked for.
	for range 20 { // a tenth each
		send("/caldav/", "", "")
	}
	if w := send("/caldav/", "", "tr"); w.Code != http.StatusTooManyRequests ||
		strings.TrimSpace(w.Body.String()) != "Çok fazla istek: yavaşlayın ve Retry-After içindeki süreden sonra yeniden deneyin" {
		t.Errorf("Turkish, no credential: %d %q", w.Code, w.Body)
	}
	if w := send("/caldav/", "", ""); strings.TrimSpace(w.Body.String()) != "Too many requests: slow down and retry after the time in Retry-After" {
		t.Errorf("English, no credential: %q", w.Body)
	}
}
