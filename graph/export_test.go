package graph

import (
	"net/http"

	"github.com/vektah/gqlparser/v2"

	"github.com/koredyne/schedule/graph/generated"
)

// GqlgenHandler is the API with every query executed by gqlgen: what
// plainSchema's answers are compared with.
func (r *Resolver) GqlgenHandler() http.Handler { return r.handler(false) }

// Plain reports whether plainSchema answers query with vars itself.
func Plain(query string, vars map[string]any) bool {
	doc, errs := gqlparser.LoadQuery(generated.NewExecutableSchema(generated.Config{}).Schema(), query)
	if errs != nil {
		return false
	}
	_, ok := plainQuery(doc.Operations[0], vars)
	return ok
}
