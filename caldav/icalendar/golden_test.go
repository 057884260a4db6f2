package icalendar

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/koredyne/schedule/engine"
	"github.com/koredyne/schedule/engine/demo"
)

var update = flag.Bool("update", false, "rewrite the golden files of testdata/")

// TestExportGolden keeps the export of the office demo (a shared class, a
// four-week rotation, a course handing over, a room move, a cancellation,
// one-offs) in testdata/office-export.ics: the same state always writes
// the same bytes, with CRLF line ends and lines folded at 75 octets.
// Refresh it with go test -run TestExportGolden -update.
func TestExportGolden(t *testing.T) {
	st := demo.Office(date(t, "2026-03-02"))
	got, err := Export(st, ExportOptions{Domain: "meridian.example", Stamp: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)})
	if err != nil {
		t.Fatal(err)
	}
	again, _ := Export(st, ExportOptions{Domain: "meridian.example", Stamp: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)})
	if !bytes.Equal(got, again) {
		t.Fatal("two exports of one state differ")
	}
	for i, line := range strings.SplitAfter(string(got), "\r\n") {
		if line == "" {
			continue
		}
		if !strings.HasSuffix(line, "\r\n") || strings.Contains(strings.TrimSuffix(line, "\r\n"), "\n") {
			t.Fatalf("line %d does not end in CRLF: %q", i+1, line)
		}
		if n := len(line) - 2; n > 75 {
			t.Fatalf("line %d is %d octets long, more than 75: %q", i+1, n, line)
		}
	}
	path := filepath.Join("testdata", "office-export.ics")
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to write it)", err)
	}
	if !bytes.Equal(got, want) {
		gl, wl := strings.Split(string(got), "\r\n"), strings.Split(string(want), "\r\n")
		for i := 0; i < len(gl) && i < len(wl); i++ {
			if gl[i] != wl[i] {
				t.Fatalf("the export differs from %s at line %d:\n got %q\nwant %q", path, i+1, gl[i], wl[i])
			}
		}
		t.Fatalf("the export differs from %s in length: %d lines, want %d", path, len(gl), len(wl))
	}
	res, err := Import(bytes.NewReader(want), engine.State{Business: st.Business}, ImportOptions{})
	if err != nil || len(res.Problems) > 0 {
		t.Fatalf("reading the golden file back: %v %v", err, res.Problems)
	}
	if len(res.State.Series) != len(st.Series) {
		t.Fatalf("the golden file holds %d series, want the demo's %d", len(res.State.Series), len(st.Series))
	}
	byName := map[string]engine.Series{}
	for _, s := range res.State.Series {
		byName[s.Name] = s
	}
	for _, o := range st.Series {
		s := byName[o.Name]
		if s.Anchor != o.Anchor || s.End != o.End || s.Cycle != o.Cycle {
			t.Errorf("series %q read back as %+v, want %+v", o.Name, s, o)
		}
	}
}
