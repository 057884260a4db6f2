package graph

import (
	"fmt"
	"strings"
	"testing"

	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/parser"
)

// TestShapeEndsOnCycles walks documents the validator would
// refuse, fragments that spread each other, parsed without validation: the
// walk must end, counting each fragment once along a path.
func TestShapeEndsOnCycles(t *testing.T) {
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
		if got := shapeOf(doc.Operations[0].SelectionSet, doc.Fragments, map[string]shape{}).depth; got != c.want {
			t.Errorf("%s: got %d, want %d", c.name, got, c.want)
		}
	}
}

// TestShapeFragmentFanOut: fragments that each spread the next twice
// expand to 2^n fields; each is walked once, and the count stops just past
// the limit.
func TestShapeFragmentFanOut(t *testing.T) {
	const n = 40
	var b strings.Builder
	b.WriteString("{ days { ...F0 } }\n")
	for i := range n {
		fmt.Fprintf(&b, "fragment F%d on Day { sessions { start } ...F%d ...F%d }\n", i, i+1, i+1)
	}
	fmt.Fprintf(&b, "fragment F%d on Day { date }\n", n)
	doc, err := parser.ParseQuery(&ast.Source{Input: b.String()})
	if err != nil {
		t.Fatal(err)
	}
	if got := shapeOf(doc.Operations[0].SelectionSet, doc.Fragments, map[string]shape{}); got.depth != 3 || got.fields != MaxFields+1 {
		t.Errorf("got %+v, want depth 3 and %d fields", got, MaxFields+1)
	}
	small, err := parser.ParseQuery(&ast.Source{Input: `{ days { date ...A ...A } } fragment A on Day { sessions { start end } }`})
	if err != nil {
		t.Fatal(err)
	}
	if got := shapeOf(small.Operations[0].SelectionSet, small.Fragments, map[string]shape{}); got.depth != 3 || got.fields != 8 || got.keys["days"] != 1 {
		t.Errorf("got %+v, want depth 3, 8 fields and days once", got)
	}
}
