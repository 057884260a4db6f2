//go:build unix

package page_test

import (
	"bytes"
	"context"
	"errors"
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
// builds shows exactly the week's sessions, and printed to PDF the week is
// one A4 page (the gym, a hundred sessions, is the densest).
func TestChromium(t *testing.T) {
	bin := chromiumBinary(t)
	d := modelstest.SQLite(t)
	for _, kind := range []engine.Kind{engine.Gym, engine.Clinic, engine.Office} {
		t.Run(string(kind), func(t *testing.T) {
			s := newSite(t, d, kind, now, nil)
			url := s.srv.URL + "/t/" + s.token
			sn := s.snapshot()
			from := engine.DateOf(now.In(sn.State.Business.Location)).WeekStart(sn.State.Business.WeekStart)

			dom := string(chromium(t, bin, "--dump-dom", url))
			sameSessions(t, placed(t, dom), expected(sn, from, true))

			file := filepath.Join(t.TempDir(), "week.pdf")
			chromium(t, bin, "--no-pdf-header-footer", "--print-to-pdf="+file, url)
			pdf, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			if n := pdfPages(t, pdf); n != 1 {
				t.Errorf("the printed week is %d pages, want 1", n)
			}
			if !regexp.MustCompile(`/MediaBox\s*\[\s*0 0 841\.9\d* 594\.9\d*\s*\]`).Match(pdf) {
				t.Error("the printed page is not A4 landscape (841.92 × 594.96 pt)")
			}
		})
	}
}
