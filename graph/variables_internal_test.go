package graph

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/vektah/gqlparser/v2/ast"

	"github.com/koredyne/schedule/graph/generated"
)

// TestNumbersAreNotText walks the schema for every place a variable can
// carry an Int or a Float — an argument, or a field of an input object,
// alone or in a list — and sends the text "5" there: each is refused with
// BAD_USER_INPUT naming the variable and the field inside it, as the
// specification's input coercion of Int and Float says; the number 5 (as
// encoding/json decodes it, a float64 or a json.Number) passes.
func TestNumbersAreNotText(t *testing.T) {
	schema := generated.NewExecutableSchema(generated.Config{}).Schema()
	named := func(t *ast.Type) (string, bool) {
		list := false
		for t.Elem != nil {
			t, list = t.Elem, true
		}
		return t.NamedType, list
	}
	type place struct {
		where string
		typ   *ast.Type // the variable's declared type
		value func(v any) any
		at    string
	}
	var places []place
	for _, def := range schema.Types {
		for _, f := range def.Fields {
			if def.Kind == ast.InputObject {
				name, list := named(f.Type)
				if numbers[name] == "" {
					continue
				}
				at := "$in." + f.Name
				value := func(v any) any { return map[string]any{f.Name: v} }
				if list {
					at += "[0]"
					value = func(v any) any { return map[string]any{f.Name: []any{v}} }
				}
				places = append(places, place{def.Name + "." + f.Name, ast.NonNullNamedType(def.Name, nil), value, at})
				continue
			}
			for _, arg := range f.Arguments {
				name, list := named(arg.Type)
				if numbers[name] == "" {
					continue
				}
				at, value := "$v", func(v any) any { return v }
				if list {
					at, value = "$v[0]", func(v any) any { return []any{v} }
				}
				places = append(places, place{fmt.Sprintf("%s.%s(%s)", def.Name, f.Name, arg.Name), arg.Type, value, at})
			}
		}
	}
	if len(places) < 30 {
		t.Fatalf("found %d places for a number", len(places))
	}
	for _, p := range places {
		variable := "v"
		if strings.HasPrefix(p.at, "$in.") {
			variable = "in"
		}
		defs := ast.VariableDefinitionList{{Variable: variable, Type: p.typ}}
		for _, text := range []string{"5", "5.0", "", "five"} {
			err := strictVariables(schema, defs, map[string]any{variable: p.value(text)})
			if err == nil || err.Extensions["code"] != "BAD_USER_INPUT" || err.Extensions["field"] != p.at {
				t.Errorf("%s, the text %q: %v", p.where, text, err)
			}
		}
		for _, n := range []any{float64(5), json.Number("5"), nil} {
			if err := strictVariables(schema, defs, map[string]any{variable: p.value(n)}); err != nil {
				t.Errorf("%s, the number %v: %v", p.where, n, err)
			}
		}
	}
}
