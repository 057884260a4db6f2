//go:build unix

package page_test

import (
	"bytes"
	"compress/zlib"
	"context"
	"errors"
	"fmt"
	"html"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/koredyne/schedule/engine"
	"github.com/koredyne/schedule/models/locale"
	"github.com/koredyne/schedule/models/modelstest"
	"github.com/koredyne/schedule/models/modelstest/need"
)

// chromiumBinary is Debian's chromium on PATH. Under CI=true a missing one
// fails the test (.ci/run installs it); elsewhere the test is skipped.
func chromiumBinary(t *testing.T) string {
	t.Helper()
	path, err := exec.LookPath("chromium")
	if err != nil {
		need.Missing(t, "chromium", "apt-get install chromium")
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
// builds shows exactly the week's sessions, and printed to PDF on the sheet
// the page asks for (A4 landscape when the week fits it, A3 landscape for
// the gym's hundred sessions) the week takes one sheet, no activity's table
// is split across pages, no text is smaller than 10 pt and every day's
// header starts where its column's sessions do. The gym is also printed with
// an eleventh activity (the Stretch & recover class made its own).
func TestChromium(t *testing.T) {
	bin := chromiumBinary(t)
	cases := []struct {
		name   string
		kind   engine.Kind
		adjust func(*engine.State)
		paper  string
		pages  int // 0: as many as it takes
	}{
		{"gym", engine.Gym, nil, "A3", 1},
		{"clinic", engine.Clinic, nil, "A4", 1},
		{"office", engine.Office, nil, "A4", 1},
		{"gym with 11 activities", engine.Gym, eleventhActivity, "A3", 0},
		{"gym in Arabic", engine.Gym, inLanguage("ar"), "A3", 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := newSite(t, modelstest.SQLite(t), c.kind, now, c.adjust)
			url := s.srv.URL + "/t/" + s.token
			sn := s.snapshot()
			l := locale.ForBusiness(sn.State.Business, "")
			from := engine.DateOf(now.In(sn.State.Business.Location)).WeekStart(l.FirstDay)

			dom := string(chromium(t, bin, "--dump-dom", url))
			sameSessions(t, placedIn(t, dom, l), expected(sn, from, true))
			if !strings.Contains(dom, `<html lang="`+l.Language+`" dir="`+l.Dir()+`">`) {
				t.Errorf("the page is not lang=%s dir=%s", l.Language, l.Dir())
			}

			file := filepath.Join(t.TempDir(), "week.pdf")
			chromium(t, bin, "--no-pdf-header-footer", "--generate-pdf-document-outline", "--print-to-pdf="+file, url)
			pdf, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			pages := pdfPages(t, pdf)
			sheet := sheets[c.paper]
			if !regexp.MustCompile(`/MediaBox\s*\[\s*0 0 ` + sheet.box + `\s*\]`).Match(pdf) {
				t.Errorf("the printed page is not %s landscape (%s pt)", c.paper, sheet.box)
			}
			if c.pages != 0 && pages != c.pages {
				t.Errorf("the week takes %d pages, want %d", pages, c.pages)
			}
			var names []string // the activities, in the page's order
			for _, h := range regexp.MustCompile(`<h2>([^<]*)</h2>`).FindAllStringSubmatch(dom, -1) {
				names = append(names, html.UnescapeString(h[1]))
			}
			if c.name == "gym with 11 activities" && len(names) < 11 {
				t.Fatalf("the week shows %d activities, want at least 11", len(names))
			}
			wholeTables(t, pdf, pages, sheet.height, names)
			if size := smallestText(t, pdf); size < 9.995 { // 10 pt, as Chromium rounds it
				t.Errorf("the smallest printed text is %.2f pt, want at least 10 pt", size)
			}
			if !l.RTL() { // in a right-to-left page cells begin at their right edge
				headersOverColumns(t, pdfText(t, pdf))
			}
			t.Logf("%d activities on %d %s pages", len(names), pages, c.paper)
		})
	}
}

// sheets are the papers the page may ask for, in landscape: the MediaBox
// Chromium writes for them and their height, in points.
var sheets = map[string]struct {
	box    string
	height float64
}{
	"A4": {`841\.9\d* 594\.9\d*`, 594.96},
	"A3": {`1191\.1\d* 841\.9\d*`, 841.92},
}

// headersOverColumns checks on paper that every day's header starts where
// the sessions of its column start (page.css puts both at the left of
// their cells), and that no session starts anywhere else: a session's label
// is the first thing in its cell, so it starts at the column's left edge.
func headersOverColumns(t *testing.T, runs []textRun) {
	t.Helper()
	dayName := regexp.MustCompile(`^(Sun|Mon|Tue|Wed|Thu|Fri|Sat)\b`)
	var headers, labels []float64
	var labelText []string
	top := 0.0 // the first day header's baseline: the title is above it
	for _, r := range runs {
		if dayName.MatchString(r.text) && !strings.Contains(r.font, "Bold") {
			headers = append(headers, r.x)
			top = max(top, r.y)
		}
	}
	for _, r := range runs {
		// bold 10 pt below the headers, right of the start column: a
		// session's label
		if strings.Contains(r.font, "Bold") && math.Abs(r.size-10) < .01 && r.y < top && r.x > 28.35+30*72/25.4 {
			labels = append(labels, r.x)
			labelText = append(labelText, r.text)
		}
	}
	if len(headers) == 0 || len(labels) == 0 {
		t.Fatalf("found %d day headers and %d labels in the PDF", len(headers), len(labels))
	}
	near := func(x float64, among []float64) bool {
		for _, y := range among {
			if math.Abs(x-y) < .5 {
				return true
			}
		}
		return false
	}
	for _, x := range headers {
		if !near(x, labels) {
			t.Errorf("a day header starts at %.2f pt, where no session starts (sessions start at %v)", x, distinct(labels))
			break
		}
	}
	for i, x := range labels {
		if !near(x, headers) {
			t.Errorf("the session %q starts at %.2f pt, under no day's header (headers start at %v)", labelText[i], x, distinct(headers))
			break
		}
	}
}

// distinct is xs rounded to a tenth, each once, in order.
func distinct(xs []float64) []float64 {
	var out []float64
	for _, x := range xs {
		x = math.Round(x*10) / 10
		if !slices.Contains(out, x) {
			out = append(out, x)
		}
	}
	slices.Sort(out)
	return out
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

// margin is page.css's margin at the top of a sheet, in points (8 mm).
const margin = 8 * 72 / 25.4

var (
	pageKids    = regexp.MustCompile(`/Type\s*/Pages\s*/Count\s+\d+\s*/Kids\s*\[([^\]]*)\]`)
	outlineItem = regexp.MustCompile(`/Title\s*\(((?:[^()\\]|\\.)*)\)\s*/Dest\s*\[(\d+) 0 R /XYZ [-\d.]+ ([-\d.]+)`)
)

// wholeTables checks, from the PDF's outline (Chromium writes one entry per
// heading with --generate-pdf-document-outline), that every activity's
// table sits on one page: the next activity's heading is on the same page,
// or heads the next one (no lower than the top margin and a little, on a
// sheet height points tall); the last activity is on the last page.
func wholeTables(t *testing.T, pdf []byte, pages int, height float64, activities []string) {
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
		at[squeeze(strings.ReplaceAll(string(m[1]), `\`, ""))] = place{page[string(m[2])], y}
	}
	for i, name := range activities {
		p, ok := at[squeeze(name)]
		if !ok {
			t.Fatalf("the PDF outline has no heading %q; it has %v", name, at)
		}
		if i == len(activities)-1 {
			if p.page != pages {
				t.Errorf("%s, the last activity, starts on page %d of %d: its table runs on", name, p.page, pages)
			}
			continue
		}
		next := at[squeeze(activities[i+1])]
		switch {
		case next.page == p.page:
		case next.page == p.page+1 && next.y >= height-margin-6:
		default:
			t.Errorf("%s starts on page %d and the next activity, %s, on page %d %.1f pt up: %s's table is split across pages",
				name, p.page, activities[i+1], next.page, next.y, name)
		}
	}
}

// squeeze drops the spaces of a heading: the outline joins the lines of a
// heading that wraps without one ("Strength &Conditioning").
func squeeze(s string) string { return strings.Join(strings.Fields(s), "") }

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

// textRun is a run of text Chromium drew in one go (one BT … ET): where it
// starts on its page, in points, its face and its size.
type textRun struct {
	x, y float64 // y from the page's bottom edge, as PDF measures
	size float64
	font string // the face's PostScript name: DejaVuSans-Bold
	text string
}

var (
	pdfObject  = regexp.MustCompile(`(?s)\n(\d+) 0 obj\s*(.*?)endobj`)
	fontNames  = regexp.MustCompile(`/(F\d+) (\d+) 0 R`)
	baseFont   = regexp.MustCompile(`/BaseFont /(?:[A-Z]{6}\+)?(\S+)`)
	toUnicode  = regexp.MustCompile(`/ToUnicode (\d+) 0 R`)
	bfChar     = regexp.MustCompile(`<([0-9A-Fa-f]+)>\s*<([0-9A-Fa-f]+)>`)
	bfRanges   = regexp.MustCompile(`(?s)beginbfrange(.*?)endbfrange`)
	bfRange    = regexp.MustCompile(`<([0-9A-Fa-f]+)>\s*<([0-9A-Fa-f]+)>\s*<([0-9A-Fa-f]+)>`)
	bfChars    = regexp.MustCompile(`(?s)beginbfchar(.*?)endbfchar`)
	contentTok = regexp.MustCompile(`<<|>>|<[0-9A-Fa-f]*>|/[^\s/<>\[\]()]+|-?[\d.]+|[A-Za-z*'"]+`)
)

// pdfText reads back the text runs of a PDF Chromium wrote: each font's
// ToUnicode map (Chromium writes Identity-H fonts, two hex bytes a glyph,
// with a map from glyph to text), then every content stream's text objects
// under the transformations in force (cm, saved by q and restored by Q).
// It reads what Chromium writes, not every PDF.
func pdfText(t *testing.T, pdf []byte) []textRun {
	t.Helper()
	objects := map[string][]byte{}
	for _, m := range pdfObject.FindAllSubmatchIndex(pdf, -1) {
		objects[string(pdf[m[2]:m[3]])] = pdf[m[4]:m[5]]
	}
	type font struct {
		name string
		text map[string]string // glyph (4 hex digits) → text
	}
	fonts := map[string]font{} // resource name → font
	for _, body := range objects {
		i := bytes.Index(body, []byte("/Font <<"))
		if i < 0 {
			continue
		}
		for _, ref := range fontNames.FindAllSubmatch(body[i:bytes.Index(body[i:], []byte(">>"))+i], -1) {
			f := objects[string(ref[2])]
			bf, tu := baseFont.FindSubmatch(f), toUnicode.FindSubmatch(f)
			if bf == nil || tu == nil {
				t.Fatalf("font %s (object %s) has no BaseFont or ToUnicode: %s", ref[1], ref[2], f)
			}
			cmap := glyphText(t, stream(t, objects[string(tu[1])]))
			if old, ok := fonts[string(ref[1])]; ok && old.name != string(bf[1]) {
				t.Fatalf("the resource name %s means both %s and %s", ref[1], old.name, bf[1])
			}
			fonts[string(ref[1])] = font{string(bf[1]), cmap}
		}
	}
	var runs []textRun
	for _, m := range pdfStream.FindAllSubmatchIndex(pdf, -1) {
		n, _ := strconv.Atoi(string(pdf[m[2]:m[3]]))
		r, err := zlib.NewReader(bytes.NewReader(pdf[m[1] : m[1]+n]))
		if err != nil {
			continue
		}
		content, err := io.ReadAll(r)
		if err != nil || !bytes.Contains(content, []byte(" Tf")) {
			continue
		}
		type matrix [6]float64              // a b c d e f
		times := func(m, n matrix) matrix { // m then n
			return matrix{m[0]*n[0] + m[1]*n[2], m[0]*n[1] + m[1]*n[3], m[2]*n[0] + m[3]*n[2], m[2]*n[1] + m[3]*n[3],
				m[4]*n[0] + m[5]*n[2] + n[4], m[4]*n[1] + m[5]*n[3] + n[5]}
		}
		ctm, saved := matrix{1, 0, 0, 1, 0, 0}, []matrix(nil)
		var args []string
		var run *textRun
		var cur font
		var size float64
		num := func(i int) float64 { v, _ := strconv.ParseFloat(args[len(args)-i], 64); return v }
		for _, tok := range contentTok.FindAll(content, -1) {
			op := string(tok)
			switch {
			case op[0] == '/' || op[0] == '<' || op[0] == '-' || op[0] == '.' || (op[0] >= '0' && op[0] <= '9'):
				args = append(args, op)
				continue
			}
			switch op {
			case "q":
				saved = append(saved, ctm)
			case "Q":
				if len(saved) > 0 {
					ctm, saved = saved[len(saved)-1], saved[:len(saved)-1]
				}
			case "cm":
				ctm = times(matrix{num(6), num(5), num(4), num(3), num(2), num(1)}, ctm)
			case "Tf":
				cur, size = fonts[strings.TrimPrefix(args[len(args)-2], "/")], num(1)
			case "Tm":
				at := times(matrix{num(6), num(5), num(4), num(3), num(2), num(1)}, ctm)
				runs = append(runs, textRun{x: at[4], y: at[5], size: size * math.Hypot(at[2], at[3]), font: cur.name})
				run = &runs[len(runs)-1]
			case "Tj":
				if run != nil {
					hex := strings.Trim(args[len(args)-1], "<>")
					for i := 0; i+4 <= len(hex); i += 4 {
						run.text += cur.text[strings.ToUpper(hex[i:i+4])]
					}
				}
			case "ET":
				run = nil
			}
			args = args[:0]
		}
	}
	return runs
}

// stream is the inflated content of a stream object.
func stream(t *testing.T, object []byte) []byte {
	t.Helper()
	head, body, ok := bytes.Cut(object, []byte("stream"))
	m := regexp.MustCompile(`/Length (\d+)`).FindSubmatch(head)
	if !ok || m == nil {
		t.Fatalf("not a stream: %.80s", object)
	}
	n, _ := strconv.Atoi(string(m[1]))
	body = bytes.TrimLeft(body, "\r\n")
	r, err := zlib.NewReader(bytes.NewReader(body[:n]))
	if err != nil {
		t.Fatal(err)
	}
	out, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// glyphText reads a ToUnicode CMap: its bfchar and bfrange entries.
func glyphText(t *testing.T, cmap []byte) map[string]string {
	t.Helper()
	out := map[string]string{}
	utf16 := func(hex string) string {
		var rs []rune
		for i := 0; i+4 <= len(hex); i += 4 {
			v, _ := strconv.ParseUint(hex[i:i+4], 16, 16)
			rs = append(rs, rune(v))
		}
		return string(rs)
	}
	for _, block := range bfChars.FindAllSubmatch(cmap, -1) {
		for _, m := range bfChar.FindAllSubmatch(block[1], -1) {
			out[strings.ToUpper(string(m[1]))] = utf16(string(m[2]))
		}
	}
	for _, block := range bfRanges.FindAllSubmatch(cmap, -1) {
		for _, m := range bfRange.FindAllSubmatch(block[1], -1) {
			lo, _ := strconv.ParseUint(string(m[1]), 16, 16)
			hi, _ := strconv.ParseUint(string(m[2]), 16, 16)
			first, _ := strconv.ParseUint(string(m[3]), 16, 32)
			for g := lo; g <= hi; g++ {
				out[fmt.Sprintf("%04X", g)] = string(rune(first + g - lo))
			}
		}
	}
	if len(out) == 0 {
		t.Fatalf("a ToUnicode map with no entries:\n%s", cmap)
	}
	return out
}
