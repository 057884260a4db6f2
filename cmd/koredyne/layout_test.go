package main

import (
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/koredyne/schedule"

// pkgInfo is what `go list -json` says of a package.
type pkgInfo struct {
	ImportPath string
	Imports    []string
	Deps       []string
	Standard   bool
}

// listPackages lists every package of the module with its imports and
// dependencies (tests aside).
func listPackages(t *testing.T) map[string]pkgInfo {
	t.Helper()
	cmd := exec.Command("go", "list", "-deps=false", "-json", module+"/...")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pkgs := map[string]pkgInfo{}
	dec := json.NewDecoder(out)
	for {
		var p pkgInfo
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		pkgs[p.ImportPath] = p
	}
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	return pkgs
}

// standard reports whether an import path is of Go's standard library.
func standard(path string) bool {
	first, _, _ := strings.Cut(path, "/")
	return !strings.Contains(first, ".")
}

func under(path, prefix string) bool {
	return path == module+"/"+prefix || strings.HasPrefix(path, module+"/"+prefix+"/")
}

// TestImportRules checks the dependency rules of the design (STYLE.md):
// the engine stands on the standard library alone; graph and the calendar
// gateway never reach each other; only models and migrations talk to a
// database driver or bun; cmd holds no SQL.
func TestImportRules(t *testing.T) {
	pkgs := listPackages(t)
	if len(pkgs) < 10 {
		t.Fatalf("go list found %d packages", len(pkgs))
	}
	drivers := []string{"github.com/uptrace/bun", "github.com/jackc/pgx", "modernc.org/sqlite", "github.com/mattn/go-sqlite3", "database/sql/driver"}
	isDriver := func(p string) bool {
		return slices.ContainsFunc(drivers, func(d string) bool { return p == d || strings.HasPrefix(p, d+"/") })
	}
	for path, p := range pkgs {
		if !slices.ContainsFunc([]string{"engine", "graph", "caldav", "models", "migrations", "cmd"}, func(top string) bool { return under(path, top) }) {
			t.Errorf("%s is outside the fixed layout (engine, graph, caldav, models, migrations, cmd)", path)
		}
		switch {
		case under(path, "engine"):
			for _, d := range p.Deps {
				if !standard(d) && !under(d, "engine") {
					t.Errorf("%s depends on %s: the engine uses the standard library only", path, d)
				}
			}
		case under(path, "graph"):
			for _, d := range p.Deps {
				if d == module+"/caldav" || under(d, "caldav/page") || strings.HasPrefix(d, "github.com/emersion/go-webdav") {
					t.Errorf("%s depends on %s: graph and the calendar gateway never reach each other", path, d)
				}
			}
		case under(path, "caldav"):
			for _, d := range p.Deps {
				if under(d, "graph") {
					t.Errorf("%s depends on %s: graph and the calendar gateway never reach each other", path, d)
				}
			}
		}
		if !under(path, "models") && !under(path, "migrations") {
			for _, imp := range p.Imports {
				if isDriver(imp) {
					t.Errorf("%s imports %s: only models and migrations talk to the database", path, imp)
				}
			}
		}
	}
	// Formats are pure: they convert between engine values and bytes.
	for _, format := range []string{"engine/reference", "caldav/icalendar"} {
		p, ok := pkgs[module+"/"+format]
		if !ok {
			t.Errorf("no package %s", format)
			continue
		}
		for _, d := range p.Deps {
			if under(d, "models") || d == module+"/caldav" || under(d, "graph") {
				t.Errorf("the format %s depends on %s", format, d)
			}
		}
	}
}

// sqlInCode finds SQL, and bun's query builders, in Go source.
var sqlInCode = regexp.MustCompile(`\b(SELECT|INSERT INTO|DELETE FROM|UPDATE [a-z_]+ SET)\b|\.New(Select|Insert|Update|Delete|Raw)\(|\.(Exec|Query|QueryRow)Context\(`)

// TestNoSQLInCmd: the binary wires the packages; queries are models'.
func TestNoSQLInCmd(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "*", "*.go"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no sources in cmd: %v", err)
	}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(b), "\n") {
			if sqlInCode.MatchString(line) {
				t.Errorf("%s:%d holds a query: %s", f, i+1, strings.TrimSpace(line))
			}
		}
	}
}
