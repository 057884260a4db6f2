package graph_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/koredyne/schedule/engine"
	"github.com/koredyne/schedule/models"
)

// TestTransports reads over GET and over a websocket, where the token comes
// in connection_init because browsers cannot set headers there.
func TestTransports(t *testing.T) {
	eachDatabase(t, func(t *testing.T, a *api) {
		tok := a.business("meridian", engine.Office)

		req := httptest.NewRequest("GET", "/graphql?query="+url.QueryEscape("{ business { slug } }"), nil)
		req.Header.Set("Authorization", "Bearer "+tok)
		w := httptest.NewRecorder()
		a.handler.ServeHTTP(w, req)
		var got struct {
			Data struct{ Business struct{ Slug string } }
		}
		if err := json.Unmarshal(w.Body.Bytes(), &got); err != nil || w.Code != http.StatusOK || got.Data.Business.Slug != "meridian" {
			t.Errorf("GET: %d %s", w.Code, w.Body.String())
		}

		var resp struct{ Business struct{ Slug string } }
		sock := a.c.WebsocketWithPayload(`{ business { slug } }`, map[string]any{"authorization": "Bearer " + tok})
		if err := sock.Next(&resp); err != nil || resp.Business.Slug != "meridian" {
			t.Errorf("websocket: %+v, %v", resp, err)
		}
		sock.Close()

		sock = a.c.WebsocketWithPayload(`{ business { slug } }`, map[string]any{"authorization": "Bearer nope"})
		if err := sock.Next(&resp); err == nil {
			t.Error("websocket with a bad token: no error")
		}
		sock.Close()

		w = httptest.NewRecorder()
		a.handler.ServeHTTP(w, httptest.NewRequest("GET", "/graphql?query="+url.QueryEscape("{ business { slug } }"), nil))
		if w.Code != http.StatusUnauthorized {
			t.Errorf("GET without a token: %d %s", w.Code, w.Body.String())
		}
	})
}

// TestCalendarCredentials hands out feed URLs and CalDAV logins.
func TestCalendarCredentials(t *testing.T) {
	eachDatabase(t, func(t *testing.T, a *api) {
		tok := a.business("meridian", engine.Office)
		data := a.ok(tok, `{ business { feedUrl } staff { id feedUrl } rooms { feedUrl } }`, nil)
		business := path(data, "business", "feedUrl").(string)
		if !strings.HasPrefix(business, "http://example.com/ics/") || !strings.HasSuffix(business, ".ics") {
			t.Errorf("business feedUrl %q", business)
		}
		staff := data["staff"].([]any)
		first := path(staff[0], "feedUrl").(string)
		if first == business || first == path(staff[1], "feedUrl") {
			t.Error("calendars share a feed URL")
		}
		if again := path(a.ok(tok, `{ business { feedUrl } }`, nil), "business", "feedUrl"); again != business {
			t.Errorf("the feed URL changed between two reads: %s, then %s", business, again)
		}
		rotated := a.ok(tok, `mutation($id: ID!) { rotateFeedToken(calendar: {staffId: $id}) { url } }`, map[string]any{"id": path(staff[0], "id")})["rotateFeedToken"].(map[string]any)["url"]
		if rotated == first || rotated != path(a.ok(tok, `{ staff { feedUrl } }`, nil)["staff"].([]any)[0], "feedUrl") {
			t.Errorf("after rotating: %v (was %s)", rotated, first)
		}
		a.fails(tok, "NOT_FOUND", `mutation { rotateFeedToken(calendar: {roomId: "999999"}) { url } }`, nil)

		made := a.ok(tok, `mutation($id: ID!) { createAppPassword(input: {login: "mei", role: STAFF, staffId: $id}) { password appPassword { login role staff { id } } } }`,
			map[string]any{"id": path(staff[0], "id")})
		if p, _ := path(made, "createAppPassword", "password").(string); len(p) < 20 || path(made, "createAppPassword", "appPassword", "login") != "mei" {
			t.Errorf("createAppPassword: %v", made)
		}
		a.fails(tok, "BAD_USER_INPUT", `mutation { createAppPassword(input: {login: "mei", role: STAFF}) { password } }`, nil)
		a.fails(a.token("meridian", models.FrontDesk), "FORBIDDEN", `mutation { createAppPassword(input: {login: "desk", role: READ_ONLY}) { password } }`, nil)
		if n := len(path(a.ok(tok, `{ appPasswords { nodes { id login } } }`, nil), "appPasswords", "nodes").([]any)); n != 1 {
			t.Errorf("%d app passwords, want 1", n)
		}
	})
}
