package main

import (
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/koredyne/schedule/models/modelstest"
)

// TestHostileKeysOutsideGraphQL sends credentials and URL tokens that no
// stored row can hold (a NUL, a line break, bytes that are not UTF-8) to
// CalDAV, the feeds and the timetable page on both databases: they are
// unknown (401, 404), never a server fault, while the real ones still work.
func TestHostileKeysOutsideGraphQL(t *testing.T) {
	dsns := map[string]string{"sqlite": ""}
	if pg, ok := modelstest.Postgres(t); ok {
		dsns["postgres"] = pg.DSN
	}
	for name, dsn := range dsns {
		t.Run(name, func(t *testing.T) {
			env := map[string]string{}
			if dsn != "" {
				env["DATABASE_URL"] = dsn
			}
			s, _ := startLogged(t, env)
			cases := []struct {
				method, path, user, password string
				want                         int
			}{
				{"PROPFIND", "/caldav/", "demo", bootstrapToken, http.StatusMultiStatus},
				{"PROPFIND", "/caldav/", "demo\x00", bootstrapToken, http.StatusUnauthorized},
				{"PROPFIND", "/caldav/", "demo\x00", "x", http.StatusUnauthorized},
				{"PROPFIND", "/caldav/", "de\rmo", "x", http.StatusUnauthorized},
				{"PROPFIND", "/caldav/", "\xff\xfe", "x", http.StatusUnauthorized},
				{"PROPFIND", "/caldav/", "demo", "\x00", http.StatusUnauthorized},
				{"GET", "/t/%00", "", "", http.StatusNotFound},
				{"GET", "/t/%0D%0A", "", "", http.StatusNotFound},
				{"GET", "/t/%FF%FE", "", "", http.StatusNotFound},
				{"GET", "/ics/%00.ics", "", "", http.StatusNotFound},
				{"GET", "/ics/%00", "", "", http.StatusNotFound},
				{"GET", "/ics/%FF%00.ics", "", "", http.StatusNotFound},
			}
			for _, c := range cases {
				headers := []string{"Depth", "0"}
				if c.user != "" {
					headers = append(headers, "Authorization", "Basic "+basicAuth(c.user, c.password))
				}
				resp, body := hit(t, c.method, s.url+c.path, "", headers...)
				if resp.StatusCode == http.StatusTooManyRequests {
					// Failed sign-ins from one address are limited: wait as
					// told, then ask again.
					wait, _ := strconv.Atoi(resp.Header.Get("Retry-After"))
					time.Sleep(time.Duration(wait)*time.Second + 100*time.Millisecond)
					resp, body = hit(t, c.method, s.url+c.path, "", headers...)
				}
				if resp.StatusCode != c.want {
					t.Errorf("%s %s as %q: %s, want %d: %.200s", c.method, c.path, c.user, resp.Status, c.want, body)
				}
			}
		})
	}
}
