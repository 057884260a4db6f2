// Package need is how the tests meet the outside programs they run
// (PostgreSQL, PgBouncer, HAProxy, Chromium, calendar clients, Node and
// Python libraries): a test that lacks one is skipped, or fails under
// CI=true, where `bash .ci/install-test-tools` has installed them all; and
// when a package's tests end, one line says what was skipped without which
// program and how to include it (Main).
//
// go test shows a passing package's output only with -v, so without -v
// the line goes to go test's own standard error, when that is a terminal or
// a pipe.
package need

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

// Install is the one command that installs every program the tests use.
const Install = "bash .ci/install-test-tools"

// CI reports whether the tests run under CI=true, where nothing may be
// missing.
func CI() bool { return os.Getenv("CI") == "true" }

var state struct {
	mu      sync.Mutex
	running bool            // Main runs the tests
	missing map[string]*gap // by what is missing
	order   []string
	atEnd   []func()
}

// gap is what the tests did without one program.
type gap struct {
	hows    []string        // how to include it
	skipped map[string]bool // the tests skipped, by name
	without map[string]bool // the tests that ran without it (a part of them)
}

func record(t testing.TB, what, how string) *gap {
	state.mu.Lock()
	defer state.mu.Unlock()
	if state.missing == nil {
		state.missing = map[string]*gap{}
	}
	g := state.missing[what]
	if g == nil {
		g = &gap{skipped: map[string]bool{}, without: map[string]bool{}}
		state.missing[what] = g
		state.order = append(state.order, what)
	}
	if !slices.Contains(g.hows, how) {
		g.hows = append(g.hows, how)
	}
	return g
}

// Missing skips t because what is not installed (how says how to include
// it), or fails it under CI=true.
func Missing(t testing.TB, what, how string) {
	t.Helper()
	MissingAll(t, Program{what, how})
}

// Program is a program a test needs, and how to include it.
type Program struct{ What, How string }

// MissingAll skips t for want of each of programs, or fails it under
// CI=true: all are counted, so that one run names all a test lacks.
func MissingAll(t testing.TB, programs ...Program) {
	t.Helper()
	var names, hows []string
	for _, p := range programs {
		names, hows = append(names, p.What), append(hows, p.How)
	}
	if CI() {
		t.Fatalf("%s missing (CI needs them: %s installs them): %s", strings.Join(names, ", "), Install, strings.Join(hows, "; "))
	}
	for _, p := range programs {
		g := record(t, p.What, p.How)
		state.mu.Lock()
		g.skipped[t.Name()] = true
		state.mu.Unlock()
	}
	t.Skipf("%s missing: %s", strings.Join(names, ", "), strings.Join(hows, "; "))
}

// Without counts that t goes on without what (its PostgreSQL half, say);
// if t is skipped in the end, it is counted as skipped for want of it.
func Without(t testing.TB, what, how string) {
	t.Helper()
	g := record(t, what, how)
	t.Cleanup(func() {
		state.mu.Lock()
		defer state.mu.Unlock()
		if t.Skipped() {
			g.skipped[t.Name()] = true
		} else if !g.skipped[t.Name()] {
			g.without[t.Name()] = true
		}
	})
}

// Running reports whether the package's TestMain calls Main: what is
// started once for all of a package's tests is stopped at its end.
func Running() bool {
	state.mu.Lock()
	defer state.mu.Unlock()
	return state.running
}

// AtEnd has f run when the package's tests have ended (Main), the last
// registered first.
func AtEnd(f func()) {
	state.mu.Lock()
	defer state.mu.Unlock()
	state.atEnd = append(state.atEnd, f)
}

// Main runs the package's tests, then what AtEnd registered, and says in
// one line what was skipped for want of which program. Every package
// whose tests run outside programs calls it from its TestMain.
func Main(m *testing.M) {
	state.mu.Lock()
	state.running = true
	state.mu.Unlock()
	code := m.Run()
	state.mu.Lock()
	atEnd := slices.Clone(state.atEnd)
	state.mu.Unlock()
	for i := len(atEnd) - 1; i >= 0; i-- {
		atEnd[i]()
	}
	if line := Summary(); line != "" {
		w := io.Writer(os.Stdout)
		if !testing.Verbose() {
			if f := goStderr(); f != nil {
				defer f.Close()
				w = f
			}
		}
		fmt.Fprintln(w, line)
		uncached(line)
	}
	os.Exit(code)
}

// uncached keeps go test from caching the result of tests that skipped,
// so that the next run tries again and says it again: go test caches no
// result whose tests read a file changed within the last two seconds
// (cmd/go's modTimeCutoff), so the line is written to a file, and read.
func uncached(line string) {
	name := strings.NewReplacer("/", "-", ".", "").Replace(packageName())
	path := filepath.Join(os.TempDir(), "koredyne-tests-skipped"+name)
	if os.WriteFile(path, []byte(line+"\n"), 0o644) == nil {
		os.ReadFile(path)
	}
}

// goStderr opens the standard error of the process that runs the tests
// (go test), where a line shows even when go test hides the output of a
// package that passed; nil unless it is a terminal or a pipe (a file
// could be written over).
func goStderr() *os.File {
	path := fmt.Sprintf("/proc/%d/fd/2", os.Getppid())
	fi, err := os.Stat(path)
	if err != nil || fi.Mode()&(os.ModeCharDevice|os.ModeNamedPipe) == 0 {
		return nil
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return nil
	}
	return f
}

// Summary is the line Main prints: what the package's tests skipped, or
// ran only in part, and how to include it; "" when nothing was missing.
func Summary() string {
	state.mu.Lock()
	defer state.mu.Unlock()
	var parts []string
	for _, what := range state.order {
		g := state.missing[what]
		var n []string
		if len(g.skipped) > 0 {
			n = append(n, plural(len(g.skipped), "test")+" skipped")
		}
		if len(g.without) > 0 {
			n = append(n, plural(len(g.without), "test")+" ran without it")
		}
		if len(n) == 0 {
			continue
		}
		// A way that another names in full goes without saying.
		hows := slices.DeleteFunc(slices.Clone(g.hows), func(h string) bool {
			return slices.ContainsFunc(g.hows, func(o string) bool { return o != h && strings.HasPrefix(o, h) })
		})
		parts = append(parts, fmt.Sprintf("no %s, %s (%s)", what, strings.Join(n, " and "), strings.Join(hows, "; ")))
	}
	if len(parts) == 0 {
		return ""
	}
	return fmt.Sprintf("%s: %s; %s installs them all.", packageName(), strings.Join(parts, "; "), Install)
}

func plural(n int, word string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, word)
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// packageName is the directory of the package under test, from the
// module's root: go test runs a package's tests in its directory.
func packageName() string {
	dir, err := os.Getwd()
	if err != nil {
		return "tests"
	}
	for root := dir; ; {
		if _, err := os.Stat(filepath.Join(root, "go.mod")); err == nil {
			if rel, err := filepath.Rel(root, dir); err == nil {
				return "./" + filepath.ToSlash(rel)
			}
			break
		}
		up := filepath.Dir(root)
		if up == root {
			break
		}
		root = up
	}
	return filepath.Base(dir)
}
