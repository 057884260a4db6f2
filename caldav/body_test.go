package caldav_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/koredyne/schedule/caldav"
	"github.com/koredyne/schedule/engine"
	"github.com/koredyne/schedule/models/inflight"
)

// counted is a request body that counts the bytes read from it.
type counted struct {
	r    io.Reader
	read int
}

func (c *counted) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.read += n
	return n, err
}

func (c *counted) Close() error { return nil }

// TestBodiesWithinBudget: the gateway reads a body only once the request
// has signed in, and only for PROPFIND and REPORT, within the server's
// request budget: a request without credentials, with wrong ones, to a
// feed, or that writes is answered with nothing of its body read; a
// REPORT the budget cannot hold is 503 with Retry-After.
func TestBodiesWithinBudget(t *testing.T) {
	m := newMemory(t, "harbor", engine.Gym)
	m.feeds["feed-secret"] = "all"
	budget := inflight.New(4<<20, 10*time.Millisecond)
	h := caldav.NewHandler(m, slog.New(slog.NewTextHandler(io.Discard, nil)))
	h.Requests = budget
	const report = `<?xml version="1.0"?><C:calendar-multiget xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav">` +
		`<D:prop><D:getetag/></D:prop><D:href>/caldav/harbor/calendars/all/none.ics</D:href></C:calendar-multiget>`
	padded := report + "<!--" + strings.Repeat(" ", 200<<10) + "-->"
	send := func(method, path, body string, auth bool, password string) (*httptest.ResponseRecorder, int) {
		c := &counted{r: strings.NewReader(body)}
		req := httptest.NewRequest(method, path, c)
		req.ContentLength = int64(len(body))
		if auth {
			req.SetBasicAuth(m.login, password)
		}
		req.Header.Set("Depth", "1")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec, c.read
	}
	for _, c := range []struct {
		name, method, path string
		auth               bool
		password           string
		status             int
	}{
		{"no credentials", "REPORT", "/caldav/harbor/calendars/all/", false, "", http.StatusUnauthorized},
		{"a wrong password", "REPORT", "/caldav/harbor/calendars/all/", true, "wrong", http.StatusUnauthorized},
		{"a feed", "GET", "/ics/feed-secret.ics", false, "", http.StatusOK},
		{"a write", "PUT", "/caldav/harbor/calendars/all/x.ics", true, m.password, http.StatusForbidden},
	} {
		rec, read := send(c.method, c.path, padded, c.auth, c.password)
		if rec.Code != c.status || read != 0 {
			t.Errorf("%s: %d with %d bytes of the body read, want %d and none", c.name, rec.Code, read, c.status)
		}
	}
	if s := budget.Stats(); s.Taken != 0 {
		t.Errorf("requests that read no body took %d bytes of the budget", s.Taken)
	}

	rec, read := send("REPORT", "/caldav/harbor/calendars/all/", padded, true, m.password)
	if rec.Code != http.StatusMultiStatus || read != len(padded) {
		t.Fatalf("a REPORT: %d with %d of %d bytes read: %.300s", rec.Code, read, len(padded), rec.Body)
	}
	if s := budget.Stats(); s.Held != 0 || s.Most < int64(len(padded)) {
		t.Errorf("got %+v: want the REPORT's body held while it was answered, nothing after", s)
	}
	other, err := budget.Hold(context.Background(), 4<<20-int64(len(padded))) // another request's
	if err != nil {
		t.Fatal(err)
	}
	rec, read = send("REPORT", "/caldav/harbor/calendars/all/", padded, true, m.password)
	if rec.Code != http.StatusServiceUnavailable || rec.Header().Get("Retry-After") == "" || read != 0 {
		t.Errorf("a REPORT the budget cannot hold: %d, Retry-After %q, %d bytes read", rec.Code, rec.Header().Get("Retry-After"), read)
	}
	other.Release()
	if rec, _ := send("REPORT", "/caldav/harbor/calendars/all/", report, true, m.password); rec.Code != http.StatusMultiStatus {
		t.Errorf("a REPORT once the budget is free: %d", rec.Code)
	}
}
