package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/koredyne/schedule/models/modelstest"
)

// TestMalformedRequestsHaveCodes sends GraphQL requests that GraphQL over
// HTTP calls malformed, on the default settings: each is answered 4xx with
// an extensions.code, none as INTERNAL, nothing is written, and no error or
// panic reaches the log.
func TestMalformedRequestsHaveCodes(t *testing.T) {
	s, logs := startLogged(t, nil)
	const query = `{"query":"{ business { slug } }"}`
	createRoom := url.QueryEscape(`mutation { createRoom(input: {name: "Sneaked In"}) { room { id } } }`)
	for _, c := range []struct {
		name, method, path, contentType, body string
		accept                                string
		status                                int
		code                                  string
		allow                                 string
	}{
		{name: "not JSON", method: "POST", contentType: "application/json", body: "not json", status: 400, code: "BAD_REQUEST"},
		{name: "empty", method: "POST", contentType: "application/json", body: "", status: 400, code: "BAD_REQUEST"},
		{name: "blank", method: "POST", contentType: "application/json", body: " \n ", status: 400, code: "BAD_REQUEST"},
		{name: "batch", method: "POST", contentType: "application/json", body: "[" + query + "," + query + "]", status: 400, code: "BAD_REQUEST"},
		{name: "a string", method: "POST", contentType: "application/json", body: `"{ business { slug } }"`, status: 400, code: "BAD_REQUEST"},
		{name: "query a number", method: "POST", contentType: "application/json", body: `{"query":1}`, status: 400, code: "BAD_REQUEST"},
		{name: "query an object", method: "POST", contentType: "application/json", body: `{"Query":{"a":1}}`, status: 400, code: "BAD_REQUEST"},
		{name: "variables a list", method: "POST", contentType: "application/json", body: `{"query":"{ business { slug } }","variables":[1]}`, status: 400, code: "BAD_REQUEST"},
		{name: "operationName a number", method: "POST", contentType: "application/json", body: `{"query":"{ business { slug } }","operationName":5}`, status: 400, code: "BAD_REQUEST"},
		{name: "extensions a string", method: "POST", contentType: "application/json", body: `{"query":"{ business { slug } }","extensions":"x"}`, status: 400, code: "BAD_REQUEST"},
		{name: "trailing garbage", method: "POST", contentType: "application/json", body: query + "}", status: 400, code: "BAD_REQUEST"},
		{name: "no query", method: "POST", contentType: "application/json", body: `{}`, status: 422, code: "GRAPHQL_VALIDATION_FAILED"},
		{name: "text/plain", method: "POST", contentType: "text/plain", body: query, status: 415, code: "UNSUPPORTED_MEDIA_TYPE"},
		{name: "no content type", method: "POST", body: query, status: 415, code: "UNSUPPORTED_MEDIA_TYPE"},
		{name: "a form", method: "POST", contentType: "application/x-www-form-urlencoded", body: "query=" + url.QueryEscape("{ business { slug } }"), status: 415, code: "UNSUPPORTED_MEDIA_TYPE"},
		{name: "event stream of not JSON", method: "POST", contentType: "application/json", accept: "text/event-stream", body: "nope", status: 400, code: "BAD_REQUEST"},
		{name: "GET mutation", method: "GET", path: "?query=" + createRoom, status: 405, code: "METHOD_NOT_ALLOWED", allow: "POST"},
		{name: "GET named mutation", method: "GET", path: "?operationName=M&query=" + url.QueryEscape(`query Q { business { slug } } mutation M { clearData { revision } }`), status: 405, code: "METHOD_NOT_ALLOWED", allow: "POST"},
		{name: "GET subscription", method: "GET", path: "?query=" + url.QueryEscape(`subscription { scheduleChanged { revision } }`), status: 405, code: "METHOD_NOT_ALLOWED", allow: "POST"},
		{name: "GET variables a list", method: "GET", path: "?variables=%5B1%5D&query=" + url.QueryEscape(`{ business { slug } }`), status: 400, code: "BAD_REQUEST"},
		{name: "GET syntax error", method: "GET", path: "?query=" + url.QueryEscape(`{ business {`), status: 422, code: "GRAPHQL_PARSE_FAILED"},
		{name: "PUT", method: "PUT", contentType: "application/json", body: query, status: 405, code: "METHOD_NOT_ALLOWED", allow: "GET, POST, OPTIONS"},
		{name: "DELETE", method: "DELETE", status: 405, code: "METHOD_NOT_ALLOWED", allow: "GET, POST, OPTIONS"},
	} {
		headers := []string{"Authorization", "Bearer " + bootstrapToken}
		if c.contentType != "" {
			headers = append(headers, "Content-Type", c.contentType)
		}
		if c.accept != "" {
			headers = append(headers, "Accept", c.accept)
		}
		resp, body := hit(t, c.method, s.url+"/graphql"+c.path, c.body, headers...)
		if resp.StatusCode != c.status || gqlCode(t, body) != c.code {
			t.Errorf("%s: %d %s, want %d with code %s", c.name, resp.StatusCode, body, c.status, c.code)
		}
		if got := resp.Header.Get("Allow"); got != c.allow {
			t.Errorf("%s: Allow %q, want %q", c.name, got, c.allow)
		}
		if strings.Contains(body, "business { slug }") || strings.Contains(body, "not json") {
			t.Errorf("%s: the answer echoes the request: %s", c.name, body)
		}
	}
	data, errs := post(t, s.url, bootstrapToken, `{ rooms { name } }`, nil)
	if len(errs) > 0 || strings.Contains(fmt.Sprint(data), "Sneaked In") {
		t.Errorf("a refused GET wrote: %v %v", data, errs)
	}
	for _, rec := range logs.lines(t) {
		if rec["level"] == "ERROR" || strings.Contains(fmt.Sprint(rec), "panic") {
			t.Errorf("the log holds %v", rec)
		}
	}
}

// TestEventStreamQueryEnds asks a query over an event stream, twice (the
// second answer comes from the response cache): each stream carries one
// answer and ends.
func TestEventStreamQueryEnds(t *testing.T) {
	s, _ := startLogged(t, nil)
	for i := range 2 {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		req, _ := http.NewRequestWithContext(ctx, "POST", s.url+"/graphql", strings.NewReader(`{"query":"{ business { slug } }"}`))
		req.Header.Set("Authorization", "Bearer "+bootstrapToken)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "text/event-stream")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
		resp.Body.Close()
		cancel()
		if err != nil {
			t.Fatalf("stream %d did not end: %v after %d bytes", i+1, err, len(b))
		}
		if n := strings.Count(string(b), "event: next"); n != 1 || !strings.Contains(string(b), "event: complete") {
			t.Errorf("stream %d: %d answers (%d bytes), want 1 and complete: %.300s", i+1, n, len(b), b)
		}
	}
}

// tcpProxy forwards connections from a loopback port to a server, and can
// be cut (every connection closed, no new ones taken) and restored on the
// same port: a database that goes away and comes back, without touching
// the shared PostgreSQL server.
type tcpProxy struct {
	t      *testing.T
	addr   string // where clients connect
	target string

	mu    sync.Mutex
	ln    net.Listener
	conns map[net.Conn]bool
}

func newProxy(t *testing.T, target string) *tcpProxy {
	p := &tcpProxy{t: t, target: target, conns: map[net.Conn]bool{}}
	p.start("127.0.0.1:0")
	t.Cleanup(p.cut)
	return p
}

func (p *tcpProxy) start(addr string) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		p.t.Fatal(err)
	}
	p.mu.Lock()
	p.ln, p.addr = ln, ln.Addr().String()
	p.mu.Unlock()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			up, err := net.Dial("tcp", p.target)
			if err != nil {
				c.Close()
				continue
			}
			p.mu.Lock()
			p.conns[c], p.conns[up] = true, true
			p.mu.Unlock()
			go func() { io.Copy(up, c); up.Close() }()
			go func() { io.Copy(c, up); c.Close() }()
		}
	}()
}

// cut closes the listener and every connection through it.
func (p *tcpProxy) cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ln != nil {
		p.ln.Close()
		p.ln = nil
	}
	for c := range p.conns {
		c.Close()
	}
	clear(p.conns)
}

// restore listens again on the same port.
func (p *tcpProxy) restore() { p.start(p.addr) }

// TestDatabaseDown runs a server on PostgreSQL through a proxy and cuts
// the proxy: GraphQL, CalDAV and /readyz answer 503 with Retry-After (a
// code on GraphQL), nothing answers 500 or logs an internal error, and
// once the database is back every request works again.
func TestDatabaseDown(t *testing.T) {
	pg, ok := modelstest.Postgres(t)
	if !ok {
		t.Skip("needs PostgreSQL")
	}
	u, err := url.Parse(pg.DSN)
	if err != nil {
		t.Fatal(err)
	}
	proxy := newProxy(t, u.Host)
	u.Host = proxy.addr
	s, logs := startLogged(t, map[string]string{"DATABASE_URL": u.String()})

	bearer := []string{"Authorization", "Bearer " + bootstrapToken, "Content-Type", "application/json"}
	basic := []string{"Authorization", "Basic " + basicAuth("demo", bootstrapToken), "Depth", "1", "Content-Type", "application/xml"}
	check := func(state string, wantOK bool) {
		t.Helper()
		for _, c := range []struct {
			name, method, path, body string
			headers                  []string
		}{
			{"a query", "POST", "/graphql", `{"query":"{ business { slug revision } }"}`, bearer},
			{"a write", "POST", "/graphql", `{"query":"mutation { createClosure(input: {from: \"2090-01-01\", to: \"2090-01-02\", reason: \"down\"}) { revision } }"}`, bearer},
			{"a CalDAV listing", "PROPFIND", "/caldav/demo/calendars/", `<D:propfind xmlns:D="DAV:"><D:prop><D:resourcetype/></D:prop></D:propfind>`, basic},
			{"a CalDAV report", "REPORT", "/caldav/demo/calendars/all/", monthReport, basic},
			{"/readyz", "GET", "/readyz", "", nil},
		} {
			resp, body := hit(t, c.method, s.url+c.path, c.body, c.headers...)
			switch {
			case wantOK && resp.StatusCode >= 300:
				t.Errorf("%s: %s answered %d %s", state, c.name, resp.StatusCode, body)
			case wantOK && strings.HasPrefix(c.path, "/graphql") && gqlCode(t, body) != "":
				t.Errorf("%s: %s answered %s", state, c.name, body)
			case !wantOK && resp.StatusCode != http.StatusServiceUnavailable:
				t.Errorf("%s: %s answered %d %s, want 503", state, c.name, resp.StatusCode, body)
			case !wantOK && resp.Header.Get("Retry-After") == "":
				t.Errorf("%s: %s answered 503 without Retry-After", state, c.name)
			case !wantOK && strings.HasPrefix(c.path, "/graphql") && gqlCode(t, body) != "UNAVAILABLE":
				t.Errorf("%s: %s answered %s, want code UNAVAILABLE", state, c.name, body)
			}
		}
	}
	check("before the cut", true)
	proxy.cut()
	check("with the database gone", false)
	proxy.restore()
	deadline := time.Now().Add(10 * time.Second)
	for {
		resp, _ := hit(t, "GET", s.url+"/readyz", "")
		if resp.StatusCode == 200 || time.Now().After(deadline) {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	check("after the database came back", true)
	for _, rec := range logs.lines(t) {
		if rec["level"] == "ERROR" || strings.Contains(fmt.Sprint(rec), "panic") {
			t.Errorf("the log holds %v", rec)
		}
	}
}
