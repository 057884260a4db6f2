package page

import (
	"database/sql/driver"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
)

// TestUnavailableInTheAskedLanguage: the page's 503 while the database
// cannot be reached (a connection the driver reports bad) keeps its
// Retry-After and is written in the language the request's Accept-Language
// asks for, in English as it was without one.
func TestUnavailableInTheAskedLanguage(t *testing.T) {
	h := NewHandler(nil, slog.New(slog.NewTextHandler(io.Discard, nil)))
	for _, c := range []struct{ lang, want string }{
		{"", "the timetable cannot be reached just now: try again in a few seconds\n"},
		{"fr", "the timetable cannot be reached just now: try again in a few seconds\n"},
		{"ar", "تعذّر الوصول إلى الجدول الآن: حاول مرة أخرى بعد ثوانٍ\n"},
		{"ru-RU, ru;q=0.9", "расписание сейчас недоступно: попробуйте снова через несколько секунд\n"},
	} {
		req := httptest.NewRequest("GET", Path+"x", nil)
		if c.lang != "" {
			req.Header.Set("Accept-Language", c.lang)
		}
		rec := httptest.NewRecorder()
		h.internal(rec, req, driver.ErrBadConn)
		if rec.Code != http.StatusServiceUnavailable || rec.Header().Get("Retry-After") == "" || rec.Body.String() != c.want {
			t.Errorf("%q: %d Retry-After %q %q, want 503 %q", c.lang, rec.Code, rec.Header().Get("Retry-After"), rec.Body.String(), c.want)
		}
	}
}
