package graph

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"

	"github.com/koredyne/schedule/models/inflight"
)

// MaxAnonymousBody is the largest body a request without a token may
// send: in the playground, where every visitor is anonymous, about a
// hundred times the largest query GraphiQL's own (its introspection) sends.
// Elsewhere a request without a token is refused before its body is read.
const MaxAnonymousBody = 64 << 10

var (
	errBusy       = &apiError{code: "UNAVAILABLE", message: "The server is busy with other large requests: send it again in a few seconds"}
	errBodyRead   = &apiError{code: "BAD_REQUEST", message: "The request body could not be read"}
	errOverBudget = &apiError{code: "REQUEST_TOO_LARGE", message: "The request would take more memory than this server lets one request hold: send less at once"}
)

// readBody reads a GraphQL request's body whole within the server's
// budget of request memory (Resolver.Requests), once the request has
// shown who it is: at most r.MaxBody bytes with a token, MaxAnonymousBody
// without. Each byte is held twice, for the body and for what decoding it
// makes (a string in variables is as long as its JSON). A body too large
// is refused with 413 in GraphQL's error shape before gqlgen reads it
// (gqlgen would answer 200 with a generic message); one the budget cannot
// hold now with 503 and Retry-After. It returns the body and its hold,
// and whether the request may go on.
func (r *Resolver) readBody(w http.ResponseWriter, req *http.Request, anonymous bool) ([]byte, *inflight.Hold, bool) {
	if req.Body == nil || req.Body == http.NoBody || isWebsocket(req) {
		return nil, &inflight.Hold{}, true
	}
	limit := r.bodyLimit(anonymous)
	b, hold, err := r.Requests.Read(req.Context(), req.Body, req.ContentLength, limit, 2)
	var tooLarge *http.MaxBytesError
	switch {
	case err == nil:
	case errors.As(err, &tooLarge):
		e := apiErrorf("REQUEST_TOO_LARGE", "The request body is larger than %d bytes", tooLarge.Limit)
		if anonymous && tooLarge.Limit == MaxAnonymousBody {
			e = apiErrorf("REQUEST_TOO_LARGE", "The request body is larger than %d bytes, the most a request without a token may send", tooLarge.Limit)
		}
		writeError(w, req, http.StatusRequestEntityTooLarge, e)
		return nil, hold, false
	case errors.Is(err, inflight.ErrBusy):
		writeError(w, req, http.StatusServiceUnavailable, errBusy)
		return nil, hold, false
	case errors.Is(err, inflight.ErrTooLarge):
		writeError(w, req, http.StatusRequestEntityTooLarge, errOverBudget)
		return nil, hold, false
	default:
		writeError(w, req, http.StatusBadRequest, errBodyRead)
		return nil, hold, false
	}
	req.Body = &heldBody{bytes.NewReader(b), b}
	return b, hold, true
}

// bodyLimit is the largest body a request may send.
func (r *Resolver) bodyLimit(anonymous bool) int64 {
	limit := r.MaxBody
	if limit <= 0 {
		limit = 1 << 40
	}
	if anonymous {
		limit = min(limit, MaxAnonymousBody)
	}
	return limit
}

// holdDecoded adds to the hold what decoding the request will take beyond
// the body's own length, which readBody held already: a body of many small
// objects takes tens of times its size as Go maps, and so do a GET's
// variables in the URL. A body that would take
// more than twice the body limit once decoded is refused with 413, and one
// the budget cannot hold now with 503.
func (r *Resolver) holdDecoded(w http.ResponseWriter, req *http.Request, body []byte, hold *inflight.Hold, anonymous bool) bool {
	limit := r.bodyLimit(anonymous)
	n := decodedSize(body)
	if req.Method == http.MethodGet {
		n = decodedQuerySize(req)
	}
	if n > 2*limit {
		writeError(w, req, http.StatusRequestEntityTooLarge, apiErrorf("REQUEST_TOO_LARGE",
			"The request's variables would take about %d bytes once read, more than %d: send fewer or larger values", n, 2*limit))
		return false
	}
	switch err := hold.Grow(req.Context(), n-int64(len(body))); {
	case errors.Is(err, inflight.ErrTooLarge):
		writeError(w, req, http.StatusRequestEntityTooLarge, errOverBudget)
		return false
	case err != nil:
		writeError(w, req, http.StatusServiceUnavailable, errBusy)
		return false
	}
	return true
}

// holdMore adds n bytes to the request's hold, for what a resolver builds
// from the request beyond its decoded variables (a calendar file parsed);
// tooLarge is the error when that is more than the whole budget. When the
// budget cannot give them now it is UNAVAILABLE, and the response goes out
// as 503 with Retry-After.
func holdMore(ctx context.Context, n int64, tooLarge *apiError) error {
	rq := requestFrom(ctx)
	if rq == nil || rq.hold == nil {
		return nil
	}
	err := rq.hold.Grow(ctx, n)
	switch {
	case errors.Is(err, inflight.ErrBusy):
		rq.unavailable.Store(true)
		return errBusy
	case errors.Is(err, inflight.ErrTooLarge):
		return tooLarge
	}
	return err
}

// heldBody is a body readBody read: the POST transport takes its bytes as
// they are instead of reading a copy.
type heldBody struct {
	*bytes.Reader
	b []byte
}

func (*heldBody) Close() error { return nil }

// bodyBytes returns a request's body as readBody read it, or reads it.
func bodyBytes(r *http.Request) ([]byte, error) {
	if h, ok := r.Body.(*heldBody); ok {
		return h.b, nil
	}
	return io.ReadAll(r.Body)
}

// What decoding a GraphQL request's JSON into gqlgen's RawParams takes at
// most, on a 64-bit machine with Go's swiss-table maps: variables and
// extensions become map[string]any and []any of boxed strings and
// json.Numbers (TestDecodedSizeEstimate measures each against the heap).
const (
	boxedCost  = 32  // a string or number in an interface: its header boxed, besides its bytes
	arrayCost  = 32  // a []any boxed
	itemCost   = 32  // an element of a []any, with append's spare capacity
	objectCost = 64  // a map[string]any boxed, empty
	groupCost  = 288 // its first group of eight slots, made with its first member
	tableCost  = 320 // the table it moves to with a ninth member
	memberCost = 80  // an entry beyond the eighth, with the table's spare slots
)

// textCost is what a decoded string of n bytes takes: its bytes rounded up
// to the allocator's size class (an eighth at most) or, for a large one,
// to its page.
func textCost(n int) int64 {
	return int64(n + min(n/8, 8<<10))
}

// decodedSize estimates the bytes the Go heap holds once a POST's body
// (valid JSON: checkShape has checked it) is decoded into
// graphql.RawParams: the query and operation name as strings, variables
// and extensions as maps, other members skipped.
func decodedSize(body []byte) int64 {
	var n int64
	eachMember(body, func(name string, value []byte) {
		switch {
		case strings.EqualFold(name, "query"), strings.EqualFold(name, "operationName"):
			n += textCost(len(value))
		case strings.EqualFold(name, "variables"), strings.EqualFold(name, "extensions"):
			n += (&scanner{b: value}).value()
		}
	})
	return n
}

// decodedQuerySize is decodedSize for a GET, whose query, variables and
// extensions come in the URL.
func decodedQuerySize(req *http.Request) int64 {
	q := req.URL.Query()
	n := textCost(len(q.Get("query"))) + textCost(len(q.Get("operationName")))
	for _, name := range []string{"variables", "extensions"} {
		if v := []byte(q.Get(name)); json.Valid(v) {
			s := &scanner{b: v}
			s.space()
			n += s.value()
		}
	}
	return n
}

// eachMember calls f with the name and the raw value of each member of a
// JSON object (valid JSON), without copying the values. The name is
// unescaped, as encoding/json reads it before matching it to a field.
func eachMember(b []byte, f func(name string, value []byte)) {
	s := scanner{b: b}
	s.space()
	if !s.is('{') {
		return
	}
	s.i++
	for {
		s.space()
		if s.is('}') || s.i >= len(s.b) {
			return
		}
		start := s.i
		s.str()
		raw := s.b[start:s.i]
		var name string
		if bytes.IndexByte(raw, '\\') >= 0 {
			json.Unmarshal(raw, &name)
		} else {
			name = string(raw[1 : len(raw)-1])
		}
		s.space()
		s.i++ // ':'
		s.space()
		v := s.i
		s.value()
		f(name, s.b[v:s.i])
		s.space()
		if s.is(',') {
			s.i++
		}
	}
}

// scanner walks valid JSON, pricing each value as decoded into an
// interface.
type scanner struct {
	b []byte
	i int
}

func (s *scanner) is(c byte) bool { return s.i < len(s.b) && s.b[s.i] == c }

func (s *scanner) space() {
	for s.i < len(s.b) && (s.b[s.i] == ' ' || s.b[s.i] == '\t' || s.b[s.i] == '\n' || s.b[s.i] == '\r') {
		s.i++
	}
}

// str skips a string, quotes included.
func (s *scanner) str() {
	s.i++
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case '\\':
			s.i += 2
		case '"':
			s.i++
			return
		default:
			s.i++
		}
	}
}

// value skips a value and returns its price.
func (s *scanner) value() int64 {
	if s.i >= len(s.b) {
		return 0
	}
	switch c := s.b[s.i]; {
	case c == '"':
		start := s.i
		s.str()
		return boxedCost + textCost(s.i-start)
	case c == '{':
		s.i++
		n, members := int64(objectCost), 0
		for {
			s.space()
			if s.is('}') || s.i >= len(s.b) {
				s.i++
				return n
			}
			start := s.i
			s.str()
			switch members++; {
			case members == 1:
				n += groupCost
			case members == 9:
				n += tableCost + memberCost
			case members > 9:
				n += memberCost
			}
			n += textCost(s.i - start)
			s.space()
			s.i++ // ':'
			s.space()
			n += s.value()
			s.space()
			if s.is(',') {
				s.i++
			}
		}
	case c == '[':
		s.i++
		n := int64(arrayCost)
		for {
			s.space()
			if s.is(']') || s.i >= len(s.b) {
				s.i++
				return n
			}
			n += itemCost + s.value()
			s.space()
			if s.is(',') {
				s.i++
			}
		}
	case c == 't' || c == 'n':
		s.i += 4
		return 0
	case c == 'f':
		s.i += 5
		return 0
	default: // a number, kept as a json.Number
		start := s.i
		for s.i < len(s.b) && numeric(s.b[s.i]) {
			s.i++
		}
		return boxedCost + textCost(s.i-start)
	}
}

func numeric(c byte) bool {
	return '0' <= c && c <= '9' || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E'
}
