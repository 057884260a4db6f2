package graph

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"slices"
	"sync"

	"github.com/99designs/gqlgen/graphql/handler/transport"
	"github.com/coder/websocket"
)

// Connections are the open subscriptions of a server: its websockets and
// event streams. Each ends, with a proper close, when the server shuts
// down (Close) or when the token it was opened with is revoked (Revoke),
// so that neither a restart nor a revoked token leaves a subscriber
// hanging or still listening.
type Connections struct {
	mu      sync.Mutex
	open    map[*connection]bool
	closing bool
	busy    int           // handlers and close handshakes under way
	drained chan struct{} // closed when busy drops to 0 during Close
}

// connection is one long-lived request.
type connection struct {
	token  int64 // the API token it was opened with, once authenticated
	cancel context.CancelCauseFunc
}

// Why a connection ends, as its context's cause; the websocket's close
// frame says it (see socket.WriteClose).
var (
	errShuttingDown = errors.New("the server is shutting down")
	errRevoked      = errors.New("the token this connection was opened with was revoked")
)

// NewConnections returns an empty set of connections.
func NewConnections() *Connections {
	return &Connections{open: map[*connection]bool{}}
}

type connectionKey struct{}

// begin registers a long-lived request. Its context ends when the server
// shuts down or its token is revoked; done must be called when its handler
// returns. Once the server is shutting down, begin refuses (false).
func (c *Connections) begin(ctx context.Context) (context.Context, func(), bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closing {
		return ctx, nil, false
	}
	ctx, cancel := context.WithCancelCause(ctx)
	conn := &connection{cancel: cancel}
	c.open[conn] = true
	c.busy++
	done := func() {
		c.mu.Lock()
		delete(c.open, conn)
		c.mu.Unlock()
		cancel(nil)
		c.release()
	}
	return context.WithValue(ctx, connectionKey{}, conn), done, true
}

// identify records the token a connection was authenticated with. A token
// revoked meanwhile is not missed: the caller authenticated after the
// revocation would have failed, and one revoked after this is found here.
func (c *Connections) identify(ctx context.Context, token int64) {
	if conn, _ := ctx.Value(connectionKey{}).(*connection); conn != nil {
		c.mu.Lock()
		conn.token = token
		c.mu.Unlock()
	}
}

// Revoke ends every connection opened with a token.
func (c *Connections) Revoke(token int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for conn := range c.open {
		if conn.token == token && token != 0 {
			conn.cancel(errRevoked)
		}
	}
}

// Tokens lists the API tokens the open connections were opened with, each
// once.
func (c *Connections) Tokens() []int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []int64
	for conn := range c.open {
		if conn.token != 0 && !slices.Contains(out, conn.token) {
			out = append(out, conn.token)
		}
	}
	return out
}

// Close ends every connection, refuses new ones, and waits until each has
// said goodbye (a websocket's close handshake, an event stream's last
// event) or ctx ends.
func (c *Connections) Close(ctx context.Context) error {
	c.mu.Lock()
	c.closing = true
	for conn := range c.open {
		conn.cancel(errShuttingDown)
	}
	if c.busy == 0 {
		c.mu.Unlock()
		return nil
	}
	if c.drained == nil {
		c.drained = make(chan struct{})
	}
	drained := c.drained
	c.mu.Unlock()
	select {
	case <-drained:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (c *Connections) hold() {
	c.mu.Lock()
	c.busy++
	c.mu.Unlock()
}

func (c *Connections) release() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.busy--
	if c.busy == 0 && c.drained != nil {
		close(c.drained)
		c.drained = nil
	}
}

// Count is how many connections are open.
func (c *Connections) Count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.open)
}

// Close codes of the websocket: 1001 (going away) when the server shuts
// down, 4403 (graphql-transport-ws's Forbidden) when the token is revoked.
const (
	closeGoingAway = 1001
	closeForbidden = 4403
)

// sockets accepts websockets (coder/websocket, as gqlgen's own adapter
// does) whose close frame tells why the server ended them, and whose close
// handshake the server's shutdown waits for.
type sockets struct {
	conns   *Connections
	options websocket.AcceptOptions
}

func (s sockets) Accept(w http.ResponseWriter, r *http.Request, options transport.WebsocketAcceptOptions) (transport.WebsocketConn, error) {
	for key, values := range options.ResponseHeader {
		for _, v := range values {
			w.Header().Add(key, v)
		}
	}
	opts := s.options
	opts.Subprotocols = slices.Clone(opts.Subprotocols)
	for _, p := range options.Subprotocols {
		if !slices.Contains(opts.Subprotocols, p) {
			opts.Subprotocols = append(opts.Subprotocols, p)
		}
	}
	conn, err := websocket.Accept(w, r, &opts)
	if err != nil {
		return nil, err
	}
	return &socket{conn: conn, ctx: r.Context(), conns: s.conns}, nil
}

type socket struct {
	conn  *websocket.Conn
	ctx   context.Context // the request's: its cause says why it ended
	conns *Connections

	mu      sync.Mutex
	closing bool
}

var (
	_ transport.WebsocketConn        = (*socket)(nil)
	_ transport.WebsocketReadLimiter = (*socket)(nil)
)

func (s *socket) NextReader() (int, io.Reader, error) {
	typ, data, err := s.conn.Read(context.Background())
	switch websocket.CloseStatus(err) {
	case websocket.StatusNormalClosure, websocket.StatusNoStatusRcvd, websocket.StatusGoingAway:
		return int(typ), nil, transport.ErrWebsocketClosed
	}
	if err != nil {
		return int(typ), nil, err
	}
	return int(typ), bytes.NewReader(data), nil
}

func (s *socket) WriteJSON(v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return s.conn.Write(context.Background(), websocket.MessageText, data)
}

// WriteClose starts the close handshake, which waits for the client's
// close frame (up to 5 s), in the background, as the server's shutdown
// counts it. A connection the server ended says why.
func (s *socket) WriteClose(code int, reason string) error {
	switch context.Cause(s.ctx) {
	case errShuttingDown:
		code, reason = closeGoingAway, "the server is restarting: reconnect"
	case errRevoked:
		code, reason = closeForbidden, "Forbidden: the token was revoked"
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closing {
		return nil
	}
	s.closing = true
	s.conns.hold()
	go func() {
		defer s.conns.release()
		s.conn.Close(websocket.StatusCode(code), reason)
	}()
	return nil
}

// Close drops the connection, unless a close handshake is under way, which
// closes it when done.
func (s *socket) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closing {
		return nil
	}
	return s.conn.CloseNow()
}

func (s *socket) Subprotocol() string { return s.conn.Subprotocol() }

func (s *socket) SetReadLimit(limit int64) { s.conn.SetReadLimit(limit) }
