package webhook

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"strconv"
	"time"
)

// Timeout is how long an attempt waits for its answer: the specification
// recommends 15 to 30 seconds.
const Timeout = 15 * time.Second

// MaxAnswer is how much of an answer an attempt reads; AnswerLog is how
// much of it the delivery log keeps.
const (
	MaxAnswer = 64 << 10
	AnswerLog = 1 << 10
)

// Sender makes attempts: one POST each, with the policy's dialer (no
// proxy, no redirect followed, a refused address refused as it connects).
type Sender struct {
	client *http.Client
}

// NewSender returns a sender whose attempts wait timeout for an answer
// (0: Timeout).
func NewSender(p Policy, timeout time.Duration) *Sender {
	if timeout <= 0 {
		timeout = Timeout
	}
	dial := p.Dialer()
	return &Sender{client: &http.Client{
		Timeout: timeout,
		Transport: &http.Transport{
			DialContext:           dial.DialContext,
			ForceAttemptHTTP2:     true,
			MaxIdleConns:          256,
			MaxIdleConnsPerHost:   4,
			IdleConnTimeout:       90 * time.Second,
			TLSHandshakeTimeout:   10 * time.Second,
			ResponseHeaderTimeout: timeout,
		},
		// A 3xx is a failure: the specification asks endpoints to be
		// updated rather than followed.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}}
}

// Close lets go of the sender's idle connections.
func (s *Sender) Close() { s.client.CloseIdleConnections() }

// Attempt is what one POST of an event got.
type Attempt struct {
	// At is when it was sent: the webhook-timestamp it was signed with.
	At time.Time
	// Status is the answer's HTTP status; 0 when none came (a timeout,
	// a refused connection, a refused address).
	Status  int
	Latency time.Duration
	// Answer is the first AnswerLog bytes of the answer's body.
	Answer []byte
	// Error says why no answer came.
	Error string
	// RetryAfter is what the answer's Retry-After asked for, in seconds.
	RetryAfter time.Duration
}

// OK reports whether the endpoint took the event (2xx).
func (a *Attempt) OK() bool { return a.Status >= 200 && a.Status < 300 }

// Gone reports whether the endpoint wants no more events (410 Gone).
func (a *Attempt) Gone() bool { return a.Status == http.StatusGone }

// Send posts one event's body to url, signed with each secret as at at.
func (s *Sender) Send(ctx context.Context, url string, secrets []string, id string, body []byte, at time.Time) Attempt {
	a := Attempt{At: at}
	sig, err := Signature(secrets, id, at, body)
	if err != nil {
		a.Error = err.Error()
		return a
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		a.Error = err.Error()
		return a
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "Koredyne-Webhooks/1")
	req.Header["webhook-id"] = []string{id}
	req.Header["webhook-timestamp"] = []string{strconv.FormatInt(at.Unix(), 10)}
	req.Header["webhook-signature"] = []string{sig}
	start := time.Now()
	resp, err := s.client.Do(req)
	if err != nil {
		a.Latency = time.Since(start)
		a.Error = describe(err)
		return a
	}
	answer, err := io.ReadAll(io.LimitReader(resp.Body, MaxAnswer))
	resp.Body.Close()
	a.Latency = time.Since(start)
	a.Status = resp.StatusCode
	a.Answer = answer[:min(len(answer), AnswerLog)]
	if err != nil && a.OK() {
		// The status counts: the endpoint said it took the event.
		a.Error = "reading the answer: " + describe(err)
	}
	if secs, err := strconv.Atoi(resp.Header.Get("Retry-After")); err == nil && secs > 0 {
		a.RetryAfter = time.Duration(secs) * time.Second
	}
	return a
}

// describe is an attempt's error for the delivery log: what went wrong,
// without Go's wrapping of the request.
func describe(err error) string {
	var uerr interface{ Timeout() bool }
	if errors.As(err, &uerr) && uerr.Timeout() {
		return "no answer in time: " + err.Error()
	}
	return err.Error()
}
