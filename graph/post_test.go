package graph_test

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/koredyne/schedule/engine"
	"github.com/koredyne/schedule/graph"
)

// TestPostIsGqlgens sends the API's POST transport what clients send,
// well and badly formed, with every kind of Accept header, and compares
// status, content type and body with gqlgen's own transport.POST.
func TestPostIsGqlgens(t *testing.T) {
	eachDatabase(t, func(t *testing.T, a *api) {
		tok := a.business("gym", engine.Gym)
		from := engine.MustDate(2026, 11, 30)
		_, body := post(t, a.handler, tok, `query($from: Date!, $to: Date!) { sessions(from: $from, to: $to) { id } }`,
			map[string]any{"from": from.String(), "to": from.AddDays(1).String()}, false)
		var got struct {
			Data struct{ Sessions []struct{ ID string } }
		}
		if err := json.Unmarshal(body, &got); err != nil || len(got.Data.Sessions) == 0 {
			t.Fatalf("%v: %s", err, body)
		}
		// What encoding/json escapes in a string, and what it leaves.
		note := "<b>Tom & Jerry's</b> \u2028 \u2029 \"quoted\" \\ \t é \U0001F600"
		if code, out := post(t, a.handler, tok, `mutation($id: SessionID!, $note: String!) { changeSession(sessionId: $id, change: {note: $note}) { revision } }`,
			map[string]any{"id": got.Data.Sessions[0].ID, "note": note}, false); code != 200 || bytes.Contains(out, []byte(`"errors"`)) {
			t.Fatalf("%d %s", code, out)
		}
		week := `{"query":"query($from: Date!, $to: Date!) { days(from: $from, to: $to) { date sessions { id note class { name } } } }","variables":{"from":"2026-11-30","to":"2026-12-07"}}`
		bodies := []string{
			week,
			// gqlgen executes it, the note selected through a fragment.
			`{"query":"query($d: Date!) { day(date: $d) { ...f } } fragment f on Day { sessions { note ref { date } } }","variables":{"d":"2026-11-30"}}`,
			// Errors while executing, beside data.
			`{"query":"{ day(date: \"2026-11-30\") { date } classTime(id: \"999999\") { id } }"}`,
			`{"query":"mutation { cancelSession(sessionId: \"nope\") { revision } }"}`,
			// Refused before executing.
			`{"query":"{ days(from: \"2026-11-30\", to: \"2026-12-07\") { nope } }"}`,
			`{"query":"query($d: Date!) { day(date: $d) { date } }","variables":{"d":"30.11.2026"}}`,
			`{"query":"{ day(date: "}`,
			`{"query":"query A { rooms { id } } query B { rooms { name } }"}`,
			`{"query":"query A { rooms { id } } query B { rooms { name } }","operationName":"C"}`,
			`{"query":""}`,
			`{"extensions":{"persistedQuery":{"version":1,"sha256Hash":"0000"}}}`,
			`{"query":"{ rooms { id } }","variables":[1,2]}`,
			`{"query":"{ rooms { id } }","variables":{"n":1e400}}`,
			// Not a request at all.
			`{"query":`, `[]`, `"query"`, `{}`, ``, `null`, "\x00\xff",
		}
		accepts := []string{"", "application/json", "application/graphql-response+json", "*/*", "application/*",
			"text/html", "text/html, application/graphql-response+json;q=0.9, application/json;q=0.8", ";;;, application/json", "image/png"}
		r := &graph.Resolver{Store: a.store, Log: slog.New(slog.NewTextHandler(io.Discard, nil))}
		ours, gqlgen := r.Handler(), r.GqlgenHandler()
		send := func(h http.Handler, body, accept string) *httptest.ResponseRecorder {
			req := httptest.NewRequest("POST", "/graphql", bytes.NewReader([]byte(body)))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Authorization", "Bearer "+tok)
			if accept != "" {
				req.Header.Set("Accept", accept)
			}
			w := httptest.NewRecorder()
			h.ServeHTTP(w, req)
			return w
		}
		escaped := 0
		for _, body := range bodies {
			for _, accept := range accepts {
				// Twice: the second from the response cache, where it keeps it.
				for range 2 {
					got, want := send(ours, body, accept), send(gqlgen, body, accept)
					if got.Code != want.Code || got.Header().Get("Content-Type") != want.Header().Get("Content-Type") ||
						!bytes.Equal(got.Body.Bytes(), want.Body.Bytes()) && !sameErrors(t, got.Body.Bytes(), want.Body.Bytes()) {
						t.Fatalf("%s, Accept %q:\nours   %d %s: %s\ngqlgen %d %s: %s", body, accept,
							got.Code, got.Header().Get("Content-Type"), got.Body, want.Code, want.Header().Get("Content-Type"), want.Body)
					}
					if bytes.Contains(got.Body.Bytes(), []byte(`\u003cb\u003eTom \u0026 Jerry's\u003c/b\u003e \u2028 \u2029`)) {
						escaped++
					}
				}
			}
		}
		if escaped == 0 {
			t.Error("no answer held the note")
		}
	})
}
