package page_test

import (
	"encoding/json"
	"html"
	"regexp"
	"strings"
	"testing"

	"github.com/koredyne/schedule/engine"
	"github.com/koredyne/schedule/models"
	"github.com/koredyne/schedule/models/locale/localetest"
	"github.com/koredyne/schedule/models/modelstest"
)

func init() { localetest.Register() }

var (
	styleRe = regexp.MustCompile(`(?s)<style>.*?</style>`)
	tagRe   = regexp.MustCompile(`<[^>]*>`)
)

// readable is the text of a page people read: its elements' text, not
// its markup or stylesheet.
func readable(body string) string {
	return html.UnescapeString(tagRe.ReplaceAllString(styleRe.ReplaceAllString(body, " "), " "))
}

// dataOf is every name and note of a business, which the page shows as the
// business wrote it.
func dataOf(t *testing.T, sn *models.Snapshot) string {
	t.Helper()
	buf, err := json.Marshal(sn.State)
	if err != nil {
		t.Fatal(err)
	}
	return string(buf) + " " + sn.Business.Name + " " + sn.Business.Slug
}

// TestPagePseudoLocale: the gym's page in the pseudo-locale (every
// catalogue message accented and bracketed), with staff and without, a
// moved session and an empty week, says none of the English catalogue's
// words but in the business's names: every word of the page comes from the
// catalogue or from CLDR.
func TestPagePseudoLocale(t *testing.T) {
	s := newSite(t, modelstest.SQLite(t), engine.Gym, now, func(st *engine.State) {
		inLanguage(localetest.Name)(st)
		movedGymSession(st)
	})
	data := dataOf(t, s.snapshot())
	// The check finds the words where they are: on the English page.
	en := newSite(t, modelstest.SQLite(t), engine.Gym, now, nil)
	if left := localetest.Leftover(readable(en.page("")), data); len(left) < 5 {
		t.Fatalf("the English page has only %q of the catalogue's words", left)
	}
	for _, q := range []string{"", "?staff=off", "?week=2020-01-01"} {
		body := s.page(q)
		text := readable(body)
		if !strings.Contains(body, `<html lang="`+localetest.Name+`" dir="ltr">`) {
			t.Fatalf("%s: not in the pseudo-locale: %.300s", q, body)
		}
		if !strings.Contains(text, "[") {
			t.Errorf("%s: no message of the pseudo-locale on the page", q)
		}
		if left := localetest.Leftover(text, data); len(left) > 0 {
			t.Errorf("%s: English words left on the page: %q", q, left)
		}
	}
}
