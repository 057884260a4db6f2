package graph_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/99designs/gqlgen/client"

	"github.com/koredyne/schedule/engine"
	"github.com/koredyne/schedule/graph"
	"github.com/koredyne/schedule/models"
	"github.com/koredyne/schedule/models/inflight"
	"github.com/koredyne/schedule/models/modelstest"
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

// budgetedAPI is the API on a request budget of limit bytes, with a body
// limit of 1 MiB; guest, when set, is who a request without a token acts
// as (the playground).
func budgetedAPI(t *testing.T, limit int64, guest bool) (*api, *inflight.Budget, string) {
	d := modelstest.SQLite(t)
	store := models.NewStore(d.DB, func() time.Time { return now })
	budget := inflight.New(limit, 10*time.Millisecond)
	r := &graph.Resolver{Store: store, Log: slog.New(slog.NewTextHandler(io.Discard, nil)), MaxBody: 1 << 20, Requests: budget}
	a := &api{t: t, db: d, store: store}
	owner := a.business("harbor", engine.Gym)
	if guest {
		b, err := models.BusinessBySlug(context.Background(), d.DB, "harbor")
		if err != nil {
			t.Fatal(err)
		}
		r.Guest = &models.Principal{BusinessID: b.ID, Role: models.Owner}
	}
	a.handler = r.Handler()
	a.c = client.New(a.handler)
	return a, budget, owner
}

// send serves a POST of body with the headers given (name, value, …) and
// returns the response and how much of the body was read.
func send(h http.Handler, body string, headers ...string) (*httptest.ResponseRecorder, int) {
	c := &counted{r: strings.NewReader(body)}
	req := httptest.NewRequest("POST", "/graphql", c)
	req.ContentLength = int64(len(body))
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec, c.read
}

func code(t *testing.T, rec *httptest.ResponseRecorder) string {
	t.Helper()
	var r result
	if err := json.Unmarshal(rec.Body.Bytes(), &r); err != nil {
		t.Fatalf("a %d response is not GraphQL's shape: %v: %.200s", rec.Code, err, rec.Body)
	}
	if len(r.Errors) == 0 {
		return ""
	}
	return r.Errors[0].code()
}

// padded is a query with a string variable that brings the body to n
// bytes.
func padded(n int) string {
	head := `{"query":"{ business { slug } }","variables":{"pad":"`
	return head + strings.Repeat("x", n-len(head)-3) + `"}}`
}

// TestBodyReadAfterToken: a request without a token, or with one that is
// not good, is answered 401 without a byte of its body read; a good token's
// body is read whole, within the budget, which holds nothing once it is
// answered.
func TestBodyReadAfterToken(t *testing.T) {
	a, budget, owner := budgetedAPI(t, 16<<20, false)
	body := padded(900 << 10)
	for _, c := range []struct {
		name   string
		header []string
	}{
		{"no token", nil},
		{"a token that is not one", []string{"Authorization", "Bearer kd_nope"}},
		{"Basic credentials", []string{"Authorization", "Basic ZGVtbzpkZW1v"}},
	} {
		rec, read := send(a.handler, body, c.header...)
		if rec.Code != http.StatusUnauthorized || code(t, rec) != "UNAUTHENTICATED" || read != 0 {
			t.Errorf("%s: %d %s with %d bytes read, want 401 UNAUTHENTICATED and none", c.name, rec.Code, code(t, rec), read)
		}
	}
	if s := budget.Stats(); s.Taken != 0 {
		t.Errorf("requests refused for their token took %d bytes of the budget", s.Taken)
	}
	rec, read := send(a.handler, body, "Authorization", "Bearer "+owner)
	if rec.Code != 200 || code(t, rec) != "" || read != len(body) {
		t.Fatalf("the owner: %d %.200s with %d of %d bytes read", rec.Code, rec.Body, read, len(body))
	}
	if s := budget.Stats(); s.Held != 0 || s.Most < 2*int64(len(body)) {
		t.Errorf("got %+v: want the body held twice while it was served, nothing after", s)
	}
}

// TestBodyOverBudget: a request whose body the budget cannot hold in time
// is answered 503 with Retry-After, its body unread; once the budget is
// free the same request is served.
func TestBodyOverBudget(t *testing.T) {
	a, budget, owner := budgetedAPI(t, 4<<20, false)
	body := padded(900 << 10)
	other, err := budget.Hold(context.Background(), 3<<20) // another request's
	if err != nil {
		t.Fatal(err)
	}
	rec, read := send(a.handler, body, "Authorization", "Bearer "+owner)
	if rec.Code != http.StatusServiceUnavailable || code(t, rec) != "UNAVAILABLE" || rec.Header().Get("Retry-After") == "" || read != 0 {
		t.Errorf("a body the budget cannot hold: %d %s, Retry-After %q, %d bytes read", rec.Code, code(t, rec), rec.Header().Get("Retry-After"), read)
	}
	other.Release()
	if rec, _ := send(a.handler, body, "Authorization", "Bearer "+owner); rec.Code != 200 || code(t, rec) != "" {
		t.Errorf("the same once the budget is free: %d %.200s", rec.Code, rec.Body)
	}
	if s := budget.Stats(); s.Held != 0 || s.Refused != 1 {
		t.Errorf("got %+v, want nothing held and one refused", s)
	}
}

// TestBodyDecodedSize: variables of many small objects, which decode to
// Go maps many times their size, are refused with 413 when they would take
// more than twice the body limit, and held at their decoded size when
// they fit.
func TestBodyDecodedSize(t *testing.T) {
	a, budget, owner := budgetedAPI(t, 64<<20, false)
	objects := func(n int) string {
		return `{"query":"{ business { slug } }","variables":{"v":[` + strings.Repeat(`{"a":1},`, n) + `{"a":1}]}}`
	}
	big := objects(100000) // 800 kB: under the body limit, some 40 MB decoded
	rec, _ := send(a.handler, big, "Authorization", "Bearer "+owner)
	if rec.Code != http.StatusRequestEntityTooLarge || code(t, rec) != "REQUEST_TOO_LARGE" {
		t.Errorf("%d bytes of small objects: %d %.200s, want 413 REQUEST_TOO_LARGE", len(big), rec.Code, rec.Body)
	}
	small := objects(2000) // 16 kB, under a megabyte decoded
	rec, _ = send(a.handler, small, "Authorization", "Bearer "+owner)
	if rec.Code != 200 || code(t, rec) != "" {
		t.Fatalf("%d bytes of small objects: %d %.200s", len(small), rec.Code, rec.Body)
	}
	// Each object costs hundreds of bytes decoded: far more than the
	// body's own twice.
	if s := budget.Stats(); s.Held != 0 || s.Most < 100*int64(len(small)/8) {
		t.Errorf("got %+v for a body of %d bytes: want its decoded size held while it was served", s, len(small))
	}
}

// TestAnonymousBodyLimit: in the playground, where a request without a
// token acts as the visitor, such a request sends at most
// graph.MaxAnonymousBody; with a token of the copy, up to the body limit.
func TestAnonymousBodyLimit(t *testing.T) {
	a, _, owner := budgetedAPI(t, 16<<20, true)
	rec, read := send(a.handler, padded(graph.MaxAnonymousBody+1))
	if rec.Code != http.StatusRequestEntityTooLarge || code(t, rec) != "REQUEST_TOO_LARGE" || read != 0 {
		t.Errorf("an anonymous body over the limit: %d %.200s, %d bytes read", rec.Code, rec.Body, read)
	}
	if rec, _ := send(a.handler, padded(graph.MaxAnonymousBody)); rec.Code != 200 || code(t, rec) != "" {
		t.Errorf("an anonymous body at the limit: %d %.200s", rec.Code, rec.Body)
	}
	if rec, _ := send(a.handler, padded(graph.MaxAnonymousBody*4), "Authorization", "Bearer "+owner); rec.Code != 200 || code(t, rec) != "" {
		t.Errorf("a larger body with a token: %d %.200s", rec.Code, rec.Body)
	}
}

// TestImportHeld: importCalendar holds what parsing its file takes before
// it reads it; when the budget cannot give that now, it is UNAVAILABLE with
// 503 and Retry-After, and when it never could, REQUEST_TOO_LARGE; either
// way nothing is written.
func TestImportHeld(t *testing.T) {
	a, budget, owner := budgetedAPI(t, 4<<20, false)
	talks := func(size int) []byte { // one talk a day
		var file strings.Builder
		file.WriteString("BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\n")
		for i := 0; file.Len() < size; i++ {
			day := strings.ReplaceAll(engine.MustDate(2027, 1, 4).AddDays(i).String(), "-", "")
			fmt.Fprintf(&file, "BEGIN:VEVENT\r\nUID:e%d@test\r\nSUMMARY:Talk\r\nDTSTART;TZID=Asia/Kuwait:%sT100000\r\nDURATION:PT1H\r\nLOCATION:Lecture hall\r\nEND:VEVENT\r\n", i, day)
		}
		file.WriteString("END:VCALENDAR\r\n")
		body, _ := json.Marshal(map[string]any{"query": `mutation($ics: String!) { importCalendar(ics: $ics, defaultStaff: "Marco Reyes") { oneOffs } }`,
			"variables": map[string]any{"ics": file.String()}})
		return body
	}
	before := a.dump(owner)
	rec, _ := send(a.handler, string(talks(400<<10)), "Authorization", "Bearer "+owner) // some 10 MB to read, of a 4 MiB budget
	if rec.Code != 200 || code(t, rec) != "REQUEST_TOO_LARGE" {
		t.Errorf("an import larger than the whole budget: %d %.300s", rec.Code, rec.Body)
	}
	body := talks(64 << 10)
	other, err := budget.Hold(context.Background(), 4<<20-3*int64(len(body))) // leaves room for the body, not the parse
	if err != nil {
		t.Fatal(err)
	}
	rec, _ = send(a.handler, string(body), "Authorization", "Bearer "+owner)
	if rec.Code != http.StatusServiceUnavailable || code(t, rec) != "UNAVAILABLE" || rec.Header().Get("Retry-After") == "" {
		t.Errorf("an import the budget cannot parse: %d %s, Retry-After %q: %.200s", rec.Code, code(t, rec), rec.Header().Get("Retry-After"), rec.Body)
	}
	if after := a.dump(owner); after != before {
		t.Errorf("the refused imports wrote")
	}
	other.Release()
	rec, _ = send(a.handler, string(body), "Authorization", "Bearer "+owner)
	if rec.Code != 200 || code(t, rec) != "" {
		t.Fatalf("the import once the budget is free: %d %.300s", rec.Code, rec.Body)
	}
	if s := budget.Stats(); s.Held != 0 || s.Most < 3*int64(len(body)) {
		t.Errorf("got %+v: want the parse held beside the body while it ran, nothing after", s)
	}
}
