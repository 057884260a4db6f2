package page_test

import (
	"io"
	"net/http"
	"testing"

	"github.com/koredyne/schedule/engine"
	"github.com/koredyne/schedule/models/modelstest"
)

// TestFailureInTheAskedLanguage: the page's 500 is written in the language
// the request's Accept-Language asks for (the business is not known when the
// database fails), in English as it was without one.
func TestFailureInTheAskedLanguage(t *testing.T) {
	s := newSite(t, modelstest.SQLite(t), engine.Gym, now, nil)
	s.db.DB.Close() // every read now fails, and not as an unreachable database
	for _, c := range []struct{ lang, want string }{
		{"", "internal error\n"},
		{"fr", "internal error\n"},
		{"ar", "خطأ داخلي\n"},
		{"ru-RU, ru;q=0.9", "внутренняя ошибка\n"},
	} {
		req, _ := http.NewRequest("GET", s.srv.URL+"/t/"+s.token, nil)
		if c.lang != "" {
			req.Header.Set("Accept-Language", c.lang)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusInternalServerError || string(body) != c.want {
			t.Errorf("%q: %s %q, want 500 %q", c.lang, resp.Status, body, c.want)
		}
	}
}
