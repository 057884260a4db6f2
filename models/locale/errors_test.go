package locale

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/koredyne/schedule/engine"
)

// formatCalls are the functions whose argument at the index is an English
// message format the API may answer with (engine.Errorf and the helpers
// that call it, the validator's problems).
var formatCalls = map[string]int{"Errorf": 2, "badInput": 1, "add": 3, "missing": 3, "fail": 1, "precondition": 3, "apiErrorf": 1, "badRequest": 0, "limitMessage": 1, "gqlFormat": 0}

// gatewayOnly are the calls that write errors in the calendar gateway only
// (another package has a fail of its own).
var gatewayOnly = map[string]bool{"fail": true, "precondition": true}

// sourceFormats reads every message format the module's code writes errors
// from, and the codes of the API's own errors (apiError literals).
func sourceFormats(t *testing.T) (formats map[string]string, apiCodes map[string]bool) {
	t.Helper()
	formats, apiCodes = map[string]string{}, map[string]bool{}
	root := filepath.Join("..", "..")
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "generated" || d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) && p != root {
			return filepath.SkipDir
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, p, nil, 0)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.CompositeLit:
				if id, ok := n.Type.(*ast.Ident); ok && id.Name == "apiError" {
					// apiError{code: "…", message: "…"}: its message is
					// a format that fills nothing.
					for _, e := range n.Elts {
						kv, ok := e.(*ast.KeyValueExpr)
						if !ok {
							continue
						}
						key, _ := kv.Key.(*ast.Ident)
						lit, isLit := kv.Value.(*ast.BasicLit)
						if key == nil || !isLit || lit.Kind != token.STRING {
							continue
						}
						s, _ := strconv.Unquote(lit.Value)
						switch key.Name {
						case "code":
							apiCodes[s] = true
						case "message":
							formats[s] = fset.Position(lit.Pos()).String()
						}
					}
				}
			case *ast.CallExpr:
				name := ""
				switch fn := n.Fun.(type) {
				case *ast.Ident:
					name = fn.Name
				case *ast.SelectorExpr:
					if x, ok := fn.X.(*ast.Ident); ok && x.Name == "fmt" {
						return true
					}
					name = fn.Sel.Name
				}
				i, ok := formatCalls[name]
				if !ok || len(n.Args) <= i || gatewayOnly[name] && filepath.Base(filepath.Dir(p)) != "caldav" {
					return true
				}
				if lit, ok := n.Args[i].(*ast.BasicLit); ok && lit.Kind == token.STRING {
					s, _ := strconv.Unquote(lit.Value)
					formats[s] = fset.Position(lit.Pos()).String()
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	formats[engine.ErrStopped.Format] = "engine.ErrStopped"
	return formats, apiCodes
}

var verb = regexp.MustCompile(`%(?:\[(\d+)\])?[-+# 0]*\d*(?:\.\d+)?([a-zA-Z%])`)

// verbs maps each argument a format uses to its verb ("1:s", "2:d").
func verbs(format string) []string {
	var out []string
	next := 1
	for _, m := range verb.FindAllStringSubmatch(format, -1) {
		if m[2] == "%" {
			continue
		}
		if m[1] != "" {
			next, _ = strconv.Atoi(m[1])
		}
		out = append(out, strconv.Itoa(next)+":"+m[2])
		next++
	}
	slices.Sort(out)
	return out
}

// words reports whether a format says anything besides its verbs.
func words(format string) bool {
	return strings.ContainsFunc(verb.ReplaceAllString(format, ""), func(r rune) bool { return r >= 'A' && r <= 'z' })
}

// TestEveryErrorIsInEveryCatalogue walks the code for the formats it writes
// error messages from: each catalogue but English (whose messages are the
// code's own) translates each, filling the same arguments with the same
// verbs, and holds no translation of a message the code no longer writes.
// Every code the API answers with has a message of its own in every
// catalogue, for errors written without a format.
func TestEveryErrorIsInEveryCatalogue(t *testing.T) {
	formats, apiCodes := sourceFormats(t)
	if len(formats) < 100 {
		t.Fatalf("found only %d formats", len(formats))
	}
	for code := range apiCodes {
		if !slices.Contains(Codes, code) {
			t.Errorf("the API answers %s, which locale.Codes lacks", code)
		}
	}
	for _, name := range Languages {
		msgs := byName[name].messages
		for _, code := range Codes {
			if _, ok := msgs["code."+code]; !ok {
				t.Errorf("%s has no message for the code %s", name, code)
			}
		}
		if name == "en" {
			continue
		}
		for f, where := range formats {
			if !words(f) {
				continue // "%s": the message is another's, written elsewhere
			}
			m, ok := msgs[errorPrefix+f]
			if !ok {
				t.Errorf("%s lacks %q (%s)", name, f, where)
				continue
			}
			if got, want := verbs(m["other"]), verbs(f); !slices.Equal(got, want) {
				t.Errorf("%s %q fills %v, English %v", name, f, got, want)
			}
		}
		for id := range msgs {
			if f, ok := strings.CutPrefix(id, errorPrefix); ok {
				if _, used := formats[f]; !used {
					t.Errorf("%s translates %q, which the code does not write", name, f)
				}
			}
		}
	}
}

// TestMessages writes errors the code writes in each language, the
// vocabulary among their arguments too.
func TestMessages(t *testing.T) {
	cases := []struct {
		lang, format string
		args         []any
		want         string
	}{
		{"en", "There is no %s with id %d", []any{"coach", 12}, "There is no coach with id 12"},
		{"ar", "There is no %s with id %d", []any{"coach", 12}, "لا يوجد مدرب بالمعرّف ١٢"},
		{"tr", "There is no %s with id %d", []any{"coach", 12}, "Böyle bir antrenör yok (kimlik 12)"},
		{"ru", "There is no %s with id %d", []any{"coach", 12}, "Нет записи «тренер» с id 12"},
		{"tr", "There is already %s called %q", []any{"a coach", "Omar"}, `"Omar" adında bir antrenör zaten var`},
		{"ru", "Still in use — remove it where it is used first: %d %s are subscribed", []any{3, "members"}, "Ещё используется — сначала уберите его оттуда, где он используется: подписано 3 («клиенты»)"},
		{"ar", "no message the catalogue has", nil, "المدخلات غير صالحة (name)"},
	}
	for _, c := range cases {
		l := Of(engine.Locale{Language: c.lang})
		english := c.format
		if c.args != nil {
			english = "English"
		}
		if got := l.Message(engine.Gym, "BAD_USER_INPUT", "name", english, c.format, c.args); c.lang != "en" && got != c.want {
			t.Errorf("%s %q: got %q, want %q", c.lang, c.format, got, c.want)
		}
	}
	if got := Of(engine.Locale{}).Message(engine.Gym, "NOT_FOUND", "", "as written", "There is no %s with id %d", []any{"coach", 1}); got != "as written" {
		t.Errorf("English is not written as the code wrote it: %q", got)
	}
}
