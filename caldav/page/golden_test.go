package page_test

import (
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/koredyne/schedule/engine"
	"github.com/koredyne/schedule/models/modelstest"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

var stylesheet = regexp.MustCompile(`(?s)<style>.*@page`)

// TestGoldenPages pins the gym's page of the week in each language, with a
// moved session: a change to what a member
// reads shows up here, word by word. The page's secret token is written as
// TOKEN, its stylesheet (the same in every language) left out. What the
// page prints is pinned by TestChromiumPrintsTheLanguage. Refresh with
// go test ./caldav/page -run TestGoldenPages -update.
func TestGoldenPages(t *testing.T) {
	for _, lang := range []string{"en", "ar", "tr", "ru"} {
		t.Run(lang, func(t *testing.T) {
			s := newSite(t, modelstest.SQLite(t), engine.Gym, now, func(st *engine.State) {
				inLanguage(lang)(st)
				movedGymSession(st)
			})
			body := strings.ReplaceAll(s.page(""), s.token, "TOKEN")
			// page.css is the same in every language; the sheet asked for
			// (@page) is the week's.
			body = stylesheet.ReplaceAllString(body, "<style>/* page.css */ @page")
			checkGolden(t, filepath.Join("testdata", "page-"+lang+".html"), body)
		})
	}
}

func checkGolden(t *testing.T, golden, body string) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(golden, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test ./caldav/page -run TestGoldenPages -update)", err)
	}
	if body != string(want) {
		got, want := strings.Split(body, "\n"), strings.Split(string(want), "\n")
		for i := range min(len(got), len(want)) {
			if got[i] != want[i] {
				t.Fatalf("%s differs at line %d:\ngot  %.300s\nwant %.300s", golden, i+1, got[i], want[i])
			}
		}
		t.Fatalf("%s differs: %d lines, want %d", golden, len(got), len(want))
	}
}
