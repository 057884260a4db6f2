package graph

import (
	"testing"

	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/parser"
)

// TestSelectionDepthEndsOnCycles walks documents the validator would
// refuse, fragments that spread each other, parsed without validation: the
// walk must end, counting each fragment once along a path.
func TestSelectionDepthEndsOnCycles(t *testing.T) {
	for _, c := range []struct {
		name, query string
		want        int
	}{
		{"a spreads b spreads a", `{ days { ...A } }
			fragment A on Day { sessions { start } ...B }
			fragment B on Day { sessions { class { ...A } } }`, 3},
		{"a fragment spreading itself", `{ days { ...A } } fragment A on Day { sessions { start ...A } }`, 3},
		{"an unknown fragment", `{ days { ...Nowhere } }`, 1},
	} {
		doc, err := parser.ParseQuery(&ast.Source{Input: c.query})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if got := selectionDepth(doc.Operations[0].SelectionSet, doc.Fragments, map[string]bool{}); got != c.want {
			t.Errorf("%s: got %d, want %d", c.name, got, c.want)
		}
	}
}
