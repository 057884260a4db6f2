package main

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// TestRequestsCarryTheAnswerDeadline checks what serve wraps its routes in:
// a request's context ends before the server's WriteTimeout cuts the
// answer, so the work under it stops; a subscription's does not end.
func TestRequestsCarryTheAnswerDeadline(t *testing.T) {
	var got time.Time
	var has bool
	h := withDeadline(answerTimeout-answerMargin, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got, has = r.Context().Deadline()
	}))
	start := time.Now()
	h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("POST", "/graphql", nil))
	if !has || got.Before(start.Add(answerTimeout-answerMargin)) || !got.Before(start.Add(answerTimeout)) {
		t.Errorf("deadline %v (%v after the start), want %v before the answer timeout of %v", got, got.Sub(start), answerMargin, answerTimeout)
	}
	ws := httptest.NewRequest("GET", "/graphql", nil)
	ws.Header.Set("Upgrade", "websocket")
	h.ServeHTTP(httptest.NewRecorder(), ws)
	if has {
		t.Errorf("a websocket got a deadline: %v", got)
	}
}
