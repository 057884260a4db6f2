package graph

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/errcode"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"
)

// depthLimit refuses an operation whose selections nest deeper than max
// levels, before anything runs. The complexity limit bounds how much a
// query asks for; the depth limit bounds how far it may follow the graph
// (business → rooms → sessions → class → …), which a small but deep query
// could otherwise do within the complexity budget. It also refuses, in
// time linear in the document, a query whose fragments expand to more
// fields than ComplexityLimit: gqlgen's complexity count walks every
// spread where it stands, so a few fragments that each spread the next
// twice would keep it busy for minutes. It must run before that count.
type depthLimit struct {
	max int // 0: any depth
}

var _ interface {
	graphql.HandlerExtension
	graphql.OperationContextMutator
} = depthLimit{}

func (depthLimit) ExtensionName() string                   { return "QueryDepthLimit" }
func (depthLimit) Validate(graphql.ExecutableSchema) error { return nil }

func (d depthLimit) MutateOperationContext(_ context.Context, oc *graphql.OperationContext) *gqlerror.Error {
	sh := shapeOf(oc.Operation.SelectionSet, oc.Doc.Fragments, map[string]shape{})
	if sh.fields > ComplexityLimit {
		err := gqlerror.Errorf("The query asks for more than %d fields once its fragments are spread", ComplexityLimit)
		errcode.Set(err, "COMPLEXITY_LIMIT_EXCEEDED") // what gqlgen's complexity limit says
		return err
	}
	if d.max == 0 || sh.depth <= d.max {
		return nil
	}
	err := gqlerror.Errorf("The query nests %d levels deep; at most %d are allowed", sh.depth, d.max)
	errcode.Set(err, "QUERY_TOO_DEEP")
	return err
}

// shape is how deep a selection set nests (1 for fields without
// selections of their own) and how many fields it holds with its
// fragments spread, counted up to just past ComplexityLimit.
type shape struct{ depth, fields int }

// shapeOf works out a selection set's shape. Each fragment's shape is
// worked out once (known holds it), so fragments spreading fragments many
// times cost no more than once each; a fragment still being walked counts
// nothing, so a cycle (which validation refuses anyway) ends.
// Introspection (__schema, __type) is not counted: GraphiQL's own schema
// query nests deeper than any limit worth having, and its size is fixed
// by the schema, not by the client.
func shapeOf(set ast.SelectionSet, fragments ast.FragmentDefinitionList, known map[string]shape) shape {
	var out shape
	add := func(inner shape, depth int) {
		out.depth = max(out.depth, depth)
		out.fields = min(out.fields+inner.fields, ComplexityLimit+1)
	}
	for _, sel := range set {
		switch s := sel.(type) {
		case *ast.Field:
			if strings.HasPrefix(s.Name, "__") {
				continue
			}
			inner := shapeOf(s.SelectionSet, fragments, known)
			inner.fields++
			add(inner, 1+inner.depth)
		case *ast.InlineFragment:
			inner := shapeOf(s.SelectionSet, fragments, known)
			add(inner, inner.depth)
		case *ast.FragmentSpread:
			inner, ok := known[s.Name]
			if f := fragments.ForName(s.Name); !ok && f != nil {
				known[s.Name] = shape{} // being walked
				inner = shapeOf(f.SelectionSet, fragments, known)
				known[s.Name] = inner
			}
			add(inner, inner.depth)
		}
	}
	return out
}

// readBody reads a GraphQL request's body whole, at most r.MaxBody bytes of
// it, so that a body too large is refused with 413 in GraphQL's error shape
// before gqlgen reads it (gqlgen would answer 200 with a generic message).
// It returns the body, and whether the request may go on.
func (r *Resolver) readBody(w http.ResponseWriter, req *http.Request) ([]byte, bool) {
	if req.Body == nil || req.Body == http.NoBody || isWebsocket(req) {
		return nil, true
	}
	body := io.Reader(req.Body)
	if r.MaxBody > 0 {
		body = http.MaxBytesReader(w, req.Body, r.MaxBody)
	}
	b, err := io.ReadAll(body)
	var tooLarge *http.MaxBytesError
	switch {
	case errors.As(err, &tooLarge):
		writeError(w, http.StatusRequestEntityTooLarge, &apiError{"REQUEST_TOO_LARGE",
			fmt.Sprintf("The request body is larger than %d bytes", tooLarge.Limit)})
		return nil, false
	case err != nil:
		writeError(w, http.StatusBadRequest, &apiError{"BAD_REQUEST", "The request body could not be read"})
		return nil, false
	}
	req.Body = io.NopCloser(bytes.NewReader(b))
	return b, true
}
