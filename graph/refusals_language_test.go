package graph_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestRefusalsInTheAskedLanguage: the answers written before a query runs
// (no token, a body too large, a wrong method or media type, a bad revision
// header, the database down) follow the request's Accept-Language, since no
// business is known yet; English is as it was without one; the status and
// extensions.code never change.
func TestRefusalsInTheAskedLanguage(t *testing.T) {
	a, owner := limitedAPI(t)
	srv := httptest.NewServer(a.handler)
	defer srv.Close()
	const query = `{"query":"{ business { slug } }"}`
	type want struct{ en, ar, ru string }
	cases := []struct {
		name, method, token, contentType, revision, body string
		status                                           int
		code                                             string
		want                                             want
	}{
		{name: "no token", method: "POST", contentType: "application/json", body: query, status: 401, code: "UNAUTHENTICATED", want: want{
			"Sign in with an API token: send Authorization: Bearer <token>",
			"سجّل الدخول برمز API: أرسل Authorization: Bearer <token>",
			"Войдите с API-токеном: отправьте Authorization: Bearer <token>"}},
		{name: "too large", method: "POST", token: owner, contentType: "application/json", body: `{"query":"{ business { slug } }","variables":{"x":"` + strings.Repeat("x", 5000) + `"}}`, status: 413, code: "REQUEST_TOO_LARGE", want: want{
			"The request body is larger than 4096 bytes",
			"جسم الطلب أكبر من ٤٬٠٩٦ بايت",
			"Тело запроса больше 4\u00a0096 байт"}},
		{name: "PUT", method: "PUT", token: owner, contentType: "application/json", body: query, status: 405, code: "METHOD_NOT_ALLOWED", want: want{
			"GraphQL is served over GET and POST",
			"يُقدَّم GraphQL عبر GET وPOST",
			"GraphQL обслуживается через GET и POST"}},
		{name: "text/plain", method: "POST", token: owner, contentType: "text/plain", body: query, status: 415, code: "UNSUPPORTED_MEDIA_TYPE", want: want{
			"Send the request as Content-Type: application/json",
			"أرسل الطلب بنوع المحتوى Content-Type: application/json",
			"Отправьте запрос с Content-Type: application/json"}},
		{name: "bad revision", method: "POST", token: owner, contentType: "application/json", revision: "soon", body: query, status: 400, code: "BAD_REQUEST", want: want{
			"Koredyne-Revision must be a whole number: the business's revision the client last read or wrote",
			"يجب أن يكون Koredyne-Revision عددًا صحيحًا: مراجعة النشاط التي قرأها العميل أو كتبها آخر مرة",
			"Koredyne-Revision должен быть целым числом: ревизия бизнеса, которую клиент последней прочитал или записал"}},
	}
	post := func(t *testing.T, method, token, contentType, revision, body, lang string) (*http.Response, result) {
		t.Helper()
		req, _ := http.NewRequest(method, srv.URL, strings.NewReader(body))
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		if contentType != "" {
			req.Header.Set("Content-Type", contentType)
		}
		if revision != "" {
			req.Header.Set("Koredyne-Revision", revision)
		}
		if lang != "" {
			req.Header.Set("Accept-Language", lang)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var r result
		if err := json.NewDecoder(resp.Body).Decode(&r); err != nil {
			t.Fatal(err)
		}
		return resp, r
	}
	check := func(t *testing.T, resp *http.Response, r result, status int, code, lang, want string) {
		t.Helper()
		if resp.StatusCode != status || len(r.Errors) != 1 {
			t.Fatalf("%q: %s %+v", lang, resp.Status, r.Errors)
		}
		if got := r.Errors[0].Extensions["code"]; got != code {
			t.Errorf("%q: code %v, want %s", lang, got, code)
		}
		if got := r.Errors[0].Message; got != want {
			t.Errorf("%q: got %q, want %q", lang, got, want)
		}
	}
	langs := func(w want) []struct{ lang, want string } {
		return []struct{ lang, want string }{{"", w.en}, {"fr", w.en}, {"ar", w.ar}, {"ru-RU, ru;q=0.9", w.ru}}
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, l := range langs(c.want) {
				resp, r := post(t, c.method, c.token, c.contentType, c.revision, c.body, l.lang)
				check(t, resp, r, c.status, c.code, l.lang, l.want)
			}
		})
	}
	t.Run("busy", func(t *testing.T) {
		b, budget, owner := budgetedAPI(t, 4<<20, false)
		other, err := budget.Hold(context.Background(), 3<<20) // another request's
		if err != nil {
			t.Fatal(err)
		}
		defer other.Release()
		for _, l := range langs(want{
			"The server is busy with other large requests: send it again in a few seconds",
			"الخادم مشغول بطلبات كبيرة أخرى: أرسله مرة أخرى بعد ثوانٍ",
			"Сервер занят другими большими запросами: отправьте запрос снова через несколько секунд"}) {
			rec, _ := send(b.handler, padded(900<<10), "Authorization", "Bearer "+owner, "Accept-Language", l.lang)
			var r result
			if err := json.NewDecoder(rec.Body).Decode(&r); err != nil {
				t.Fatal(err)
			}
			check(t, rec.Result(), r, http.StatusServiceUnavailable, "UNAVAILABLE", l.lang, l.want)
			if rec.Header().Get("Retry-After") == "" {
				t.Errorf("%q: 503 without Retry-After", l.lang)
			}
		}
	})
}
