//go:build unix

package page_test

import (
	"cmp"
	"encoding/json"
	"html"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/koredyne/schedule/engine"
	"github.com/koredyne/schedule/models/modelstest"
)

// probe measures the page as Chromium lays it out and writes what it found
// into the page, where --dump-dom shows it: the document's dir and computed
// direction, where the first and the last day's columns and the times'
// column stand, and the grid cells whose text is wider than the cell.
const probe = `<script>
(() => {
  const heads = [...document.querySelectorAll("thead th[data-date]")].slice(0, 7);
  const left = el => el.getBoundingClientRect().left;
  const over = [];
  for (const c of document.querySelectorAll("main th, main td")) {
    if (c.scrollWidth > c.clientWidth) over.push(c.textContent.trim().slice(0, 60));
  }
  const out = {
    dir: document.documentElement.dir,
    direction: getComputedStyle(document.body).direction,
    firstDay: left(heads[0]), lastDay: left(heads[heads.length - 1]),
    times: left(document.querySelector("thead th.start")),
    cells: document.querySelectorAll("main th, main td").length,
    overflowing: over,
  };
  const pre = document.createElement("pre");
  pre.id = "probe";
  pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
})();
</script>`

var probed = regexp.MustCompile(`<pre id="probe">([^<]*)</pre>`)

type layout struct {
	Dir, Direction           string
	FirstDay, LastDay, Times float64
	Cells                    int
	Overflowing              []string
}

// laidOut opens the page's HTML, with probe added, in headless Chromium at
// a desktop's width and returns what probe measured.
func laidOut(t *testing.T, bin, body string) layout {
	t.Helper()
	file := filepath.Join(t.TempDir(), "week.html")
	if err := os.WriteFile(file, []byte(strings.Replace(body, "</body>", probe+"</body>", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	dom := string(chromium(t, bin, "--window-size=1440,900", "--dump-dom", "file://"+file))
	m := probed.FindStringSubmatch(dom)
	if m == nil {
		t.Fatalf("the probe wrote nothing:\n%.500s", dom)
	}
	var l layout
	if err := json.Unmarshal([]byte(html.UnescapeString(m[1])), &l); err != nil {
		t.Fatal(err)
	}
	return l
}

// TestChromiumLaysOutArabic opens the Arabic gym's week in headless
// Chromium at a desktop's width: the document is dir=rtl and its computed
// direction right to left, the grid is mirrored (the times' column and the
// week's first day on the right, its last day on the left), and no grid
// cell's text overflows it — as in English and Russian (the longest
// words), whose grids run the other way.
// TestChromium prints the Arabic week on one sheet.
func TestChromiumLaysOutArabic(t *testing.T) {
	bin := chromiumBinary(t)
	for _, c := range []struct {
		lang, dir string
		rtl       bool
	}{{"ar", "rtl", true}, {"en", "ltr", false}, {"ru", "ltr", false}} {
		t.Run(c.lang, func(t *testing.T) {
			s := newSite(t, modelstest.SQLite(t), engine.Gym, now, inLanguage(c.lang))
			l := laidOut(t, bin, s.page(""))
			t.Logf("%+v", l)
			if l.Dir != c.dir {
				t.Errorf("dir=%q, want %s", l.Dir, c.dir)
			}
			if l.Direction != c.dir {
				t.Errorf("computed direction %q, want %s", l.Direction, c.dir)
			}
			if mirrored := l.FirstDay > l.LastDay && l.Times > l.FirstDay; mirrored != c.rtl {
				t.Errorf("times' column at %.0f px, first day at %.0f, last at %.0f: mirrored %v, want %v", l.Times, l.FirstDay, l.LastDay, mirrored, c.rtl)
			}
			if l.Cells < 100 {
				t.Fatalf("only %d grid cells measured", l.Cells)
			}
			if len(l.Overflowing) > 0 {
				t.Errorf("%d cells' text overflows them: %q", len(l.Overflowing), l.Overflowing)
			}
		})
	}
}

// printedLines is the text of a printed sheet line by line, top to bottom,
// each line's runs in reading order (right to left in a right-to-left
// language).
func printedLines(runs []textRun, rtl bool) string {
	type line struct {
		y    float64
		runs []textRun
	}
	var lines []*line
	at := map[float64]*line{}
	for _, r := range runs {
		y := math.Round(r.y)
		l, ok := at[y]
		if !ok {
			l = &line{y: y}
			at[y] = l
			lines = append(lines, l)
		}
		l.runs = append(l.runs, r)
	}
	slices.SortFunc(lines, func(a, b *line) int { return cmp.Compare(b.y, a.y) })
	var b strings.Builder
	for _, l := range lines {
		slices.SortFunc(l.runs, func(p, q textRun) int {
			if rtl {
				return cmp.Compare(q.x, p.x)
			}
			return cmp.Compare(p.x, q.x)
		})
		var texts []string
		for _, r := range l.runs {
			if s := strings.TrimSpace(r.text); s != "" {
				texts = append(texts, s)
			}
		}
		if len(texts) > 0 {
			b.WriteString(strings.Join(texts, " ") + "\n")
		}
	}
	return b.String()
}

// TestChromiumPrintsEachLanguage pins what the gym's week prints in each
// language, as Chromium prints it on the sheet the page asks for: one
// sheet, and its text line by line (testdata/print-<lang>.txt) as the PDF
// holds it — Arabic in the glyphs' visual order and presentation forms.
// Refresh with go test ./caldav/page -run TestChromiumPrintsEachLanguage
// -update; a new Chromium or font may move a line break.
func TestChromiumPrintsEachLanguage(t *testing.T) {
	bin := chromiumBinary(t)
	for _, lang := range []string{"en", "ar", "tr", "ru"} {
		t.Run(lang, func(t *testing.T) {
			s := newSite(t, modelstest.SQLite(t), engine.Gym, now, inLanguage(lang))
			file := filepath.Join(t.TempDir(), "week.pdf")
			chromium(t, bin, "--no-pdf-header-footer", "--generate-pdf-document-outline", "--print-to-pdf="+file, s.srv.URL+"/t/"+s.token)
			pdf, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			if pages := pdfPages(t, pdf); pages != 1 {
				t.Errorf("the week takes %d pages, want 1", pages)
			}
			checkGolden(t, filepath.Join("testdata", "print-"+lang+".txt"), printedLines(pdfText(t, pdf), lang == "ar"))
		})
	}
}
