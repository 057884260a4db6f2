package graph

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/vektah/gqlparser/v2"
	"github.com/vektah/gqlparser/v2/ast"
)

// TestSchemaDescribed fails for every type, field, argument, input field,
// enum value and directive of graph/schema without a description: the
// schema is the front-end developer's manual, read through introspection.
func TestSchemaDescribed(t *testing.T) {
	for _, miss := range undescribed(t) {
		t.Error(miss)
	}
}

func undescribed(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob("schema/*.graphqls")
	if err != nil || len(files) == 0 {
		t.Fatalf("no schema files: %v", err)
	}
	var sources []*ast.Source
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		sources = append(sources, &ast.Source{Name: f, Input: string(b)})
	}
	schema, gerr := gqlparser.LoadSchema(sources...)
	if gerr != nil {
		t.Fatal(gerr)
	}
	var missing []string
	need := func(desc string, pos *ast.Position, what string) {
		if strings.TrimSpace(desc) == "" {
			where := "?"
			if pos != nil && pos.Src != nil {
				where = fmt.Sprintf("%s:%d", pos.Src.Name, pos.Line)
			}
			missing = append(missing, where+": "+what+" has no description")
		}
	}
	for _, def := range schema.Types {
		if def.BuiltIn || def.Position == nil || def.Position.Src.BuiltIn {
			continue
		}
		// A type extended across files (Query, Mutation) is described where
		// it is defined; the schema language gives its extensions no place
		// for one.
		need(def.Description, def.Position, def.Name)
		for _, f := range def.Fields {
			if strings.HasPrefix(f.Name, "__") {
				continue
			}
			need(f.Description, f.Position, def.Name+"."+f.Name)
			for _, a := range f.Arguments {
				need(a.Description, a.Position, def.Name+"."+f.Name+"("+a.Name+")")
			}
		}
		for _, v := range def.EnumValues {
			need(v.Description, v.Position, def.Name+"."+v.Name)
		}
	}
	for _, d := range schema.Directives {
		if d.Position == nil || d.Position.Src.BuiltIn {
			continue
		}
		need(d.Description, d.Position, "@"+d.Name)
		for _, a := range d.Arguments {
			need(a.Description, a.Position, "@"+d.Name+"("+a.Name+")")
		}
	}
	sort.Strings(missing)
	return missing
}
