package graph_test

import (
	"bufio"
	"bytes"
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

	"github.com/coder/websocket"
	"github.com/coder/websocket/wsjson"

	"github.com/koredyne/schedule/engine"
	"github.com/koredyne/schedule/graph"
	"github.com/koredyne/schedule/models"
	"github.com/koredyne/schedule/models/modelstest"
)

const subscription = `subscription { scheduleChanged { revision from to } }`

// server is one API process: a store of its own on a database, served over
// real HTTP on loopback.
type server struct {
	store *models.Store
	http  *httptest.Server
}

func newServer(t *testing.T, db *models.DB, origins ...string) *server {
	t.Helper()
	store := models.NewStore(db, func() time.Time { return now })
	r := &graph.Resolver{Store: store, Log: slog.New(slog.NewTextHandler(io.Discard, nil)), AllowedOrigins: origins}
	mux := http.NewServeMux()
	mux.Handle("/graphql", r.Handler())
	s := &server{store: store, http: httptest.NewServer(mux)}
	t.Cleanup(s.http.Close)
	return s
}

// post sends a query over HTTP and returns the decoded response.
func (s *server) post(t *testing.T, token, query string) result {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"query": query})
	req, _ := http.NewRequest(http.MethodPost, s.http.URL+"/graphql", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var r result
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil {
		t.Fatal(err)
	}
	return r
}

// oneOff creates a one-off at 05:00 on date (dry or not) and returns the
// code of the error it gets, "" when it succeeds.
func (s *server) oneOff(t *testing.T, token, date string, dryRun bool) string {
	t.Helper()
	ids := s.post(t, token, `{ classes { id } rooms { id } }`)
	class := path(ids.Data, "classes").([]any)[0].(map[string]any)["id"]
	room := path(ids.Data, "rooms").([]any)[0].(map[string]any)["id"]
	dry := "false"
	if dryRun {
		dry = "true"
	}
	r := s.post(t, token, `mutation { createOneOff(input: {classId: "`+class.(string)+`", roomId: "`+room.(string)+`", date: "`+date+
		`", start: "05:00", end: "05:30"}, dryRun: `+dry+`) { oneOff { id } } }`)
	if len(r.Errors) > 0 {
		return r.Errors[0].code()
	}
	return ""
}

// subscribers waits until a business has n open subscriptions on a store:
// the server has subscribed, so no write after this is missed.
func (s *server) subscribers(t *testing.T, business int64, n int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for s.store.Subscribers(business) != n {
		if time.Now().After(deadline) {
			t.Fatalf("%d subscriptions, want %d", s.store.Subscribers(business), n)
		}
		time.Sleep(time.Millisecond)
	}
}

// wsClient speaks graphql-transport-ws.
type wsClient struct {
	t    *testing.T
	conn *websocket.Conn
}

type wsMessage struct {
	ID      string          `json:"id,omitempty"`
	Type    string          `json:"type"`
	Payload json.RawMessage `json:"payload,omitempty"`
}

// dial opens a websocket from a page of origin ("" for none) and returns
// the client, or the HTTP status of a refused upgrade.
func dial(t *testing.T, s *server, origin string) (*wsClient, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	opts := &websocket.DialOptions{Subprotocols: []string{"graphql-transport-ws"}, HTTPHeader: http.Header{}}
	if origin != "" {
		opts.HTTPHeader.Set("Origin", origin)
	}
	conn, resp, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(s.http.URL, "http")+"/graphql", opts)
	if err != nil {
		if resp == nil {
			t.Fatal(err)
		}
		return nil, resp.StatusCode
	}
	t.Cleanup(func() { conn.CloseNow() })
	return &wsClient{t: t, conn: conn}, http.StatusSwitchingProtocols
}

func (c *wsClient) send(m wsMessage) {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := wsjson.Write(ctx, c.conn, m); err != nil {
		c.t.Fatal(err)
	}
}

// read returns the next message that is not a ping.
func (c *wsClient) read() wsMessage {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for {
		var m wsMessage
		if err := wsjson.Read(ctx, c.conn, &m); err != nil {
			c.t.Fatal(err)
		}
		if m.Type != "ping" && m.Type != "pong" {
			return m
		}
	}
}

// subscribe signs in with token and subscribes to scheduleChanged.
func (c *wsClient) subscribe(token string) {
	c.t.Helper()
	c.send(wsMessage{Type: "connection_init", Payload: json.RawMessage(`{"Authorization": "Bearer ` + token + `"}`)})
	if m := c.read(); m.Type != "connection_ack" {
		c.t.Fatalf("got %s %s, want connection_ack", m.Type, m.Payload)
	}
	q, _ := json.Marshal(map[string]string{"query": subscription})
	c.send(wsMessage{ID: "1", Type: "subscribe", Payload: q})
}

// change is one scheduleChanged event as the wire shows it.
type change struct {
	Revision int     `json:"revision"`
	From     string  `json:"from"`
	To       *string `json:"to"`
}

func (ch change) String() string {
	to := "open"
	if ch.To != nil {
		to = *ch.To
	}
	b, _ := json.Marshal(ch.Revision)
	return "revision " + string(b) + " " + ch.From + ".." + to
}

func (c *wsClient) next() change {
	c.t.Helper()
	m := c.read()
	if m.Type != "next" || m.ID != "1" {
		c.t.Fatalf("got %s %s, want next", m.Type, m.Payload)
	}
	var p struct {
		Data struct {
			ScheduleChanged change `json:"scheduleChanged"`
		} `json:"data"`
		Errors []gqlError `json:"errors"`
	}
	if err := json.Unmarshal(m.Payload, &p); err != nil || len(p.Errors) > 0 {
		c.t.Fatalf("next: %s (%v)", m.Payload, err)
	}
	return p.Data.ScheduleChanged
}

func wantEvent(t *testing.T, got change, want string) {
	t.Helper()
	if got.String() != want {
		t.Errorf("got %s, want %s", got, want)
	}
}

// seed creates a business with the gym demo and returns it and an owner
// token.
func seed(t *testing.T, d modelstest.Database, store *models.Store) (*models.Business, string) {
	t.Helper()
	a := &api{t: t, db: d, store: store}
	tok := a.business("gym", engine.Gym)
	b, err := models.BusinessBySlug(context.Background(), d.DB, "gym")
	if err != nil {
		t.Fatal(err)
	}
	return b, tok
}

// TestLiveAcrossServers runs two servers on one PostgreSQL database, each
// with its own store: a websocket client subscribed on server B hears the
// revision and date of a write made through server A's HTTP API, and
// nothing of a dry run or of a write refused for a clash.
func TestLiveAcrossServers(t *testing.T) {
	pg, ok := modelstest.Postgres(t)
	if !ok {
		t.Skip("needs PostgreSQL")
	}
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	a := newServer(t, pg.DB)
	dbB, err := models.Open(ctx, pg.DSN)
	if err != nil {
		t.Fatal(err)
	}
	defer dbB.Close()
	b := newServer(t, dbB)
	// The business is made before B listens: the notification of its
	// first revision could otherwise reach B after the client subscribed
	// (as the broadcaster allows), and be told, or merged into the next.
	biz, tok := seed(t, pg, a.store)
	if err := b.store.Listen(ctx, pg.DSN, slog.New(slog.NewTextHandler(io.Discard, nil))); err != nil {
		t.Fatal(err)
	}

	c, _ := dial(t, b, "")
	c.subscribe(tok)
	b.subscribers(t, biz.ID, 1)

	if code := a.oneOff(t, tok, "2026-12-09", false); code != "" {
		t.Fatalf("createOneOff: %s", code)
	}
	wantEvent(t, c.next(), "revision 2 2026-12-09..2026-12-10")

	if code := a.oneOff(t, tok, "2026-12-16", true); code != "" {
		t.Fatalf("createOneOff (dry run): %s", code)
	}
	if code := a.oneOff(t, tok, "2026-12-09", false); code != "CLASH" {
		t.Fatalf("createOneOff on the same room and time: got %q, want CLASH", code)
	}
	if code := a.oneOff(t, tok, "2026-12-23", false); code != "" {
		t.Fatalf("createOneOff: %s", code)
	}
	// The next event is the next write: nothing came of the dry run or the clash.
	wantEvent(t, c.next(), "revision 3 2026-12-23..2026-12-24")

	c.send(wsMessage{ID: "1", Type: "complete"})
	b.subscribers(t, biz.ID, 0)
}

// TestLiveInProcess is the embedded set-up, one server on SQLite (and on
// PostgreSQL without Listen): its own writes reach its subscribers, over a
// websocket and over server-sent events.
func TestLiveInProcess(t *testing.T) {
	for _, d := range modelstest.Databases(t) {
		t.Run(d.Name, func(t *testing.T) {
			s := newServer(t, d.DB)
			biz, tok := seed(t, d, s.store)

			c, _ := dial(t, s, "")
			c.subscribe(tok)
			events := sse(t, s, tok)
			s.subscribers(t, biz.ID, 2)

			if code := s.oneOff(t, tok, "2026-12-10", false); code != "" {
				t.Fatalf("createOneOff: %s", code)
			}
			wantEvent(t, c.next(), "revision 2 2026-12-10..2026-12-11")
			select {
			case got := <-events:
				wantEvent(t, got, "revision 2 2026-12-10..2026-12-11")
			case <-time.After(5 * time.Second):
				t.Fatal("no event on the event stream")
			}

			// A booking changes no rule, only what its session shows.
			r := s.post(t, tok, `{ memberships(first: 500) { nodes { client { id } series { id } } }
				day(date: "2026-12-15") { sessions { ref { classTime { id } class { id } } series { series { id } } } } }`)
			subscriber := map[any]any{} // series → a client on it
			for _, sub := range rows(r.Data, "memberships") {
				subscriber[path(sub, "series", "id")] = path(sub, "client", "id")
			}
			var booking string
			for _, x := range path(r.Data, "day", "sessions").([]any) {
				for _, sw := range path(x, "series").([]any) {
					if client, ok := subscriber[path(sw, "series", "id")]; ok && booking == "" {
						booking = fmt.Sprintf(`mutation { bookSession(ref: {date: "2026-12-15", classTimeId: "%v", classId: "%v"}, clientId: "%v") { booking { id } } }`,
							path(x, "ref", "classTime", "id"), path(x, "ref", "class", "id"), client)
					}
				}
			}
			if booking == "" {
				t.Fatal("the gym demo has no session on 2026-12-15 a subscriber can book")
			}
			r = s.post(t, tok, booking)
			if len(r.Errors) > 0 {
				t.Fatalf("bookSession: %+v", r.Errors)
			}
			wantEvent(t, c.next(), "revision 3 2026-12-15..2026-12-16")
		})
	}
}

// sse subscribes over server-sent events (POST with Accept:
// text/event-stream) and returns the events as they arrive.
func sse(t *testing.T, s *server, token string) <-chan change {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	body, _ := json.Marshal(map[string]string{"query": subscription})
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, s.http.URL+"/graphql", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if ct := resp.Header.Get("Content-Type"); resp.StatusCode != http.StatusOK || !strings.HasPrefix(ct, "text/event-stream") {
		t.Fatalf("event stream: status %d, content type %q", resp.StatusCode, ct)
	}
	out := make(chan change, 1)
	go func() {
		defer resp.Body.Close()
		lines := bufio.NewScanner(resp.Body)
		for lines.Scan() {
			data, ok := strings.CutPrefix(lines.Text(), "data: ")
			if !ok {
				continue
			}
			var p struct {
				Data struct {
					ScheduleChanged change `json:"scheduleChanged"`
				} `json:"data"`
			}
			if json.Unmarshal([]byte(data), &p) == nil {
				out <- p.Data.ScheduleChanged
			}
		}
	}()
	return out
}

// TestLiveOrigins refuses a websocket from another site's page (403) and
// lets in the server's own pages, allowed origins and clients that are not
// browsers.
func TestLiveOrigins(t *testing.T) {
	d := modelstest.SQLite(t)
	s := newServer(t, d.DB, "https://desk.example.com")
	cases := []struct {
		name, origin string
		want         int
	}{
		{"no origin", "", http.StatusSwitchingProtocols},
		{"the server's own page", s.http.URL, http.StatusSwitchingProtocols},
		{"an allowed origin", "https://desk.example.com", http.StatusSwitchingProtocols},
		{"an allowed origin in capitals", "https://DESK.example.com", http.StatusSwitchingProtocols},
		{"another site", "https://evil.example.com", http.StatusForbidden},
		{"the allowed host on plain http", "http://desk.example.com", http.StatusForbidden},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if _, got := dial(t, s, c.origin); got != c.want {
				t.Errorf("got %d, want %d", got, c.want)
			}
		})
	}
}
