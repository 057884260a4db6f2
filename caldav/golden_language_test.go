package caldav_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/koredyne/schedule/engine"
	"github.com/koredyne/schedule/models"
	"github.com/koredyne/schedule/models/modelstest"
)

// TestGoldenEventInEachLanguage pins one event of the gym — a session of a
// package with two coaches, so its description has the staff in the plural
// and the package — as the CalDAV gateway serves it in each language, compared
// parsed with testdata/event-<language>.ics. Refresh with go test ./caldav
// -run TestGoldenEventInEachLanguage -update.
func TestGoldenEventInEachLanguage(t *testing.T) {
	for _, lang := range []string{"en", "ar", "tr", "ru"} {
		t.Run(lang, func(t *testing.T) {
			g := newGateway(t, modelstest.SQLite(t), "golden-"+lang, engine.Gym, 0, 1)
			g.write(func(e *models.Edit) error { e.State.Business.Locale = engine.Locale{Language: lang}; return nil })
			sn, err := g.store.Snapshot(context.Background(), g.biz.ID, -1)
			if err != nil {
				t.Fatal(err)
			}
			var key string
			for d := engine.DateOf(now); key == "" && d < engine.DateOf(now).AddDays(7); d++ {
				for _, s := range sn.Timetable.Day(d) {
					if len(s.Series) > 0 && len(s.StaffIDs) > 1 {
						key = s.Key()
						break
					}
				}
			}
			if key == "" {
				t.Fatal("no session of a package with two coaches this week")
			}
			resp := g.do("GET", "/caldav/"+g.biz.Slug+"/calendars/all/"+strings.ReplaceAll(key, "/", "-")+".ics", "")
			body := read(t, resp)
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("GET %s: %s\n%s", key, resp.Status, body)
			}
			if want := map[string]string{"en": "", "ar": "ar", "tr": "tr", "ru": "ru"}[lang]; resp.Header.Get("Content-Language") != lang {
				t.Errorf("Content-Language %q, want %q", resp.Header.Get("Content-Language"), lang)
			} else if got := decode(t, body).Events()[0].Props.Get("DESCRIPTION").Params.Get("LANGUAGE"); got != want {
				t.Errorf("DESCRIPTION;LANGUAGE=%q, want %q", got, want)
			}
			checkGolden(t, "event-"+lang+".ics", body)
		})
	}
}
