//go:build unix

package page_test

import (
	"bytes"
	"compress/zlib"
	"context"
	"errors"
	"html"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/koredyne/schedule/engine"
	"github.com/koredyne/schedule/models/modelstest"
)

// chromiumBinary is Debian's chromium on PATH. Under CI=true a missing one
// fails the test (.ci/run installs it); elsewhere the test is skipped.
func chromiumBinary(t *testing.T) string {
	t.Helper()
	path, err := exec.LookPath("chromium")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("headless Chromium is required under CI: %v", err)
		}
		t.Skipf("headless Chromium unavailable: %v", err)
	}
	return path
}

// chromium runs headless Chromium with a fresh profile and returns its
// standard output. A run that hangs is killed with its whole process group
// (Chromium starts helpers), and only that group.
func chromium(t *testing.T, bin string, args ...string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	args = append([]string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
		"--no-first-run", "--user-data-dir=" + t.TempDir()}, args...)
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		t.Fatalf("chromium %s: no answer in time\n%s", strings.Join(args, " "), stderr.String())
	}
	if err != nil {
		t.Fatalf("chromium %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return out
}

// pageObject is a page of a PDF: /Type /Page, not the /Pages tree above.
var (
	pageObject = regexp.MustCompile(`/Type\s*/Page\b`)
	pagesCount = regexp.MustCompile(`/Type\s*/Pages\b[^>]*?/Count\s+(\d+)|/Count\s+(\d+)[^>]*?/Type\s*/Pages\b`)
)

// pdfPages counts the pages of a PDF Chromium wrote, by its page objects,
// and checks the count against the /Count of its page tree.
func pdfPages(t *testing.T, pdf []byte) int {
	t.Helper()
	n := len(pageObject.FindAll(pdf, -1))
	var tree string
	if m := pagesCount.FindSubmatch(pdf); m != nil {
		tree = string(m[1]) + string(m[2])
	}
	if tree != strconv.Itoa(n) {
		t.Fatalf("the PDF has %d page objects but its page tree counts %q", n, tree)
	}
	return n
}

// TestChromium opens each demo's page in headless Chromium: the DOM it
// builds shows exactly the week's sessions, and printed to PDF on A4
// landscape no activity's table is split across pages and no text is
// smaller than 7 pt. The gym is also printed with an eleventh activity (the
// Stretch & recover class made its own), the size that used to need the
// text shrunk to 5 pt to stay on one sheet.
func TestChromium(t *testing.T) {
	bin := chromiumBinary(t)
	cases := []struct {
		name   string
		kind   engine.Kind
		adjust func(*engine.State)
	}{
		{"gym", engine.Gym, nil},
		{"clinic", engine.Clinic, nil},
		{"office", engine.Office, nil},
		{"gym with 11 activities", engine.Gym, eleventhActivity},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := newSite(t, modelstest.SQLite(t), c.kind, now, c.adjust)
			url := s.srv.URL + "/t/" + s.token
			sn := s.snapshot()
			from := engine.DateOf(now.In(sn.State.Business.Location)).WeekStart(sn.State.Business.WeekStart)

			dom := string(chromium(t, bin, "--dump-dom", url))
			sameSessions(t, placed(t, dom), expected(sn, from, true))

			file := filepath.Join(t.TempDir(), "week.pdf")
			chromium(t, bin, "--no-pdf-header-footer", "--generate-pdf-document-outline", "--print-to-pdf="+file, url)
			pdf, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			pages := pdfPages(t, pdf)
			if !regexp.MustCompile(`/MediaBox\s*\[\s*0 0 841\.9\d* 594\.9\d*\s*\]`).Match(pdf) {
				t.Error("the printed page is not A4 landscape (841.92 × 594.96 pt)")
			}
			var names []string // the activities, in the page's order
			for _, h := range regexp.MustCompile(`<h2>([^<]*)</h2>`).FindAllStringSubmatch(dom, -1) {
				names = append(names, html.UnescapeString(h[1]))
			}
			if c.adjust != nil && len(names) < 11 {
				t.Fatalf("the week shows %d activities, want at least 11", len(names))
			}
			wholeTables(t, pdf, pages, names)
			if size := smallestText(t, pdf); size < 6.995 { // 7 pt, as Chromium rounds it
				t.Errorf("the smallest printed text is %.2f pt, want at least 7 pt", size)
			}
			t.Logf("%d activities on %d pages", len(names), pages)
		})
	}
}

// eleventhActivity gives the gym demo an eleventh activity: its Stretch &
// recover class becomes "Recovery", with the sessions it had.
func eleventhActivity(st *engine.State) {
	id := int64(9000)
	st.Activities = append(st.Activities, engine.Activity{ID: id, Name: "Recovery", Color: "#264653"})
	for _, ct := range st.ClassTimes {
		if ct.Label != "Stretch & recover" {
			continue
		}
		for j := range st.Entries {
			if st.Entries[j].ClassTimeID != ct.ID {
				continue
			}
			for k := range st.Classes {
				if st.Classes[k].ID == st.Entries[j].ClassID {
					st.Classes[k].ActivityID = id
				}
			}
		}
	}
}

// pdfTop is how far below a page's top edge (in points) its first heading
// may sit: the 10 mm margin and a little. A heading lower than that has
// something above it, the rest of the table before it.
const pdfTop = 594.96 - 28.35 - 6

var (
	pageKids    = regexp.MustCompile(`/Type\s*/Pages\s*/Count\s+\d+\s*/Kids\s*\[([^\]]*)\]`)
	outlineItem = regexp.MustCompile(`/Title\s*\(((?:[^()\\]|\\.)*)\)\s*/Dest\s*\[(\d+) 0 R /XYZ [-\d.]+ ([-\d.]+)`)
)

// wholeTables checks, from the PDF's outline (Chromium writes one entry per
// heading with --generate-pdf-document-outline), that every activity's
// table sits on one page: the next activity's heading is on the same page,
// or heads the next one; the last activity is on the last page.
func wholeTables(t *testing.T, pdf []byte, pages int, activities []string) {
	t.Helper()
	kids := pageKids.FindSubmatch(pdf)
	if kids == nil {
		t.Fatal("the PDF has no page tree")
	}
	page := map[string]int{} // object number → page, from 1
	for i, ref := range regexp.MustCompile(`(\d+) 0 R`).FindAllSubmatch(kids[1], -1) {
		page[string(ref[1])] = i + 1
	}
	type place struct {
		page int
		y    float64
	}
	at := map[string]place{}
	for _, m := range outlineItem.FindAllSubmatch(pdf, -1) {
		y, _ := strconv.ParseFloat(string(m[3]), 64)
		at[strings.ReplaceAll(string(m[1]), `\`, "")] = place{page[string(m[2])], y}
	}
	for i, name := range activities {
		p, ok := at[name]
		if !ok {
			t.Fatalf("the PDF outline has no heading %q; it has %v", name, at)
		}
		if i == len(activities)-1 {
			if p.page != pages {
				t.Errorf("%s, the last activity, starts on page %d of %d: its table runs on", name, p.page, pages)
			}
			continue
		}
		next := at[activities[i+1]]
		switch {
		case next.page == p.page:
		case next.page == p.page+1 && next.y >= pdfTop:
		default:
			t.Errorf("%s starts on page %d and the next activity, %s, on page %d %.1f pt up: %s's table is split across pages",
				name, p.page, activities[i+1], next.page, next.y, name)
		}
	}
}

var (
	pdfStream = regexp.MustCompile(`(?s)/Filter /FlateDecode\s*/Length (\d+)>> stream\r?\n`)
	number    = `(-?[\d.]+)`
	ops       = regexp.MustCompile(`(?:` + strings.Repeat(number+`\s+`, 6) + `(cm|Tm))|(?:/\S+\s+` + number + `\s+Tf)|\b(q|Q|Tj|TJ)\b`)
)

// smallestText is the size in points of the smallest text drawn in the
// PDF: every content stream's font size (Tf) scaled by the text matrix and
// the current transformation (cm, saved and restored by q and Q), as
// Chromium writes them (no rotation, no skew).
func smallestText(t *testing.T, pdf []byte) float64 {
	t.Helper()
	smallest, drawn := math.Inf(1), 0
	for _, m := range pdfStream.FindAllSubmatchIndex(pdf, -1) {
		n, _ := strconv.Atoi(string(pdf[m[2]:m[3]]))
		r, err := zlib.NewReader(bytes.NewReader(pdf[m[1] : m[1]+n]))
		if err != nil {
			continue
		}
		content, err := io.ReadAll(r)
		if err != nil || !bytes.Contains(content, []byte(" Tf")) {
			continue // a font file or a colour profile, not a page
		}
		ctm, text, size := 1.0, 1.0, 0.0
		var saved []float64
		for _, op := range ops.FindAllSubmatch(content, -1) {
			switch {
			case string(op[7]) == "cm":
				ctm *= scale(op[3], op[4])
			case string(op[7]) == "Tm":
				text = scale(op[3], op[4])
			case op[8] != nil:
				size, _ = strconv.ParseFloat(string(op[8]), 64)
			case string(op[9]) == "q":
				saved = append(saved, ctm)
			case string(op[9]) == "Q" && len(saved) > 0:
				ctm, saved = saved[len(saved)-1], saved[:len(saved)-1]
			case string(op[9]) == "Tj" || string(op[9]) == "TJ":
				smallest = min(smallest, size*text*ctm)
				drawn++
			}
		}
	}
	if drawn == 0 {
		t.Fatal("no text found in the PDF")
	}
	return smallest
}

// scale is the vertical scale of a matrix [a b c d e f] from its c and d.
func scale(c, d []byte) float64 {
	x, _ := strconv.ParseFloat(string(c), 64)
	y, _ := strconv.ParseFloat(string(d), 64)
	return math.Hypot(x, y)
}
