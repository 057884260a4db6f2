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
// could otherwise do within the complexity budget.
type depthLimit struct {
	max int
}

var _ interface {
	graphql.HandlerExtension
	graphql.OperationContextMutator
} = depthLimit{}

func (depthLimit) ExtensionName() string                   { return "QueryDepthLimit" }
func (depthLimit) Validate(graphql.ExecutableSchema) error { return nil }

func (d depthLimit) MutateOperationContext(_ context.Context, oc *graphql.OperationContext) *gqlerror.Error {
	depth := selectionDepth(oc.Operation.SelectionSet, oc.Doc.Fragments, map[string]bool{})
	if depth <= d.max {
		return nil
	}
	err := gqlerror.Errorf("The query nests %d levels deep; at most %d are allowed", depth, d.max)
	errcode.Set(err, "QUERY_TOO_DEEP")
	return err
}

// selectionDepth is how many levels of fields a selection set nests: 1 for
// fields without selections of their own. Fragments count where they are
// spread; a fragment already being walked counts 0, so a cycle (which
// validation refuses anyway) ends. Introspection (__schema, __type) is not
// counted: GraphiQL's own schema query nests deeper than any limit worth
// having, and its size is fixed by the schema, not by the client.
func selectionDepth(set ast.SelectionSet, fragments ast.FragmentDefinitionList, walking map[string]bool) int {
	deepest := 0
	for _, sel := range set {
		var depth int
		switch s := sel.(type) {
		case *ast.Field:
			if strings.HasPrefix(s.Name, "__") {
				continue
			}
			depth = 1 + selectionDepth(s.SelectionSet, fragments, walking)
		case *ast.InlineFragment:
			depth = selectionDepth(s.SelectionSet, fragments, walking)
		case *ast.FragmentSpread:
			f := fragments.ForName(s.Name)
			if f == nil || walking[s.Name] {
				continue
			}
			walking[s.Name] = true
			depth = selectionDepth(f.SelectionSet, fragments, walking)
			delete(walking, s.Name)
		}
		deepest = max(deepest, depth)
	}
	return deepest
}

// readBody reads a GraphQL request's body whole, at most r.MaxBody bytes of
// it, so that a body too large is refused with 413 in GraphQL's error shape
// before gqlgen reads it (gqlgen would answer 200 with a generic message).
// It reports whether the request may go on.
func (r *Resolver) readBody(w http.ResponseWriter, req *http.Request) bool {
	if req.Body == nil || req.Body == http.NoBody || isWebsocket(req) {
		return true
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
		return false
	case err != nil:
		writeError(w, http.StatusBadRequest, &apiError{"BAD_REQUEST", "The request body could not be read"})
		return false
	}
	req.Body = io.NopCloser(bytes.NewReader(b))
	return true
}
