package graph_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"

	"github.com/koredyne/schedule/engine"
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
