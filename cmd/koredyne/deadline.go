package main

import (
	"context"
	"net/http"
	"time"
)

// answerTimeout is how long serve gives a request to be answered (the
// server's WriteTimeout). answerMargin is kept back from it for the answer
// itself: a request's work must stop early enough for its TIMEOUT error to
// reach the client.
const (
	answerTimeout = 60 * time.Second
	answerMargin  = 2 * time.Second
)

// withDeadline gives every request's context a deadline d from its start,
// so the work it does — database queries, the clash proof, exports — stops
// when the answer could no longer be sent, instead of running on after the
// server has given up on the connection. Subscriptions (websocket upgrades
// and event streams) live as long as their client, and get none.
func withDeadline(d time.Duration, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if longLived(r) {
			next.ServeHTTP(w, r)
			return
		}
		ctx, cancel := context.WithTimeout(r.Context(), requestDeadline(d))
		defer cancel()
		next.ServeHTTP(w, r.WithContext(ctx))
	})
}
