package graph

import (
	"context"
	"time"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"
)

// ranOut answers TIMEOUT to a query or mutation whose request ended (its
// deadline passed, or its client went away) before GraphQL ran it: while it
// waited for a database connection to check its token or read its
// snapshot, say, on a loaded server. gqlgen's executor hands such a request
// no response at all (nil, the end of a stream), which the POST and GET
// transports write as `null` with 200: an answer with neither data nor
// errors, which a client cannot tell from success, though nothing ran and
// nothing was written. Subscriptions keep nil as their end.
type ranOut struct {
	r *Resolver
}

var _ interface {
	graphql.HandlerExtension
	graphql.OperationInterceptor
} = ranOut{}

func (ranOut) ExtensionName() string                   { return "RanOut" }
func (ranOut) Validate(graphql.ExecutableSchema) error { return nil }

func (x ranOut) InterceptOperation(ctx context.Context, next graphql.OperationHandler) graphql.ResponseHandler {
	responses := next(ctx)
	oc := graphql.GetOperationContext(ctx)
	if oc.Operation == nil || oc.Operation.Operation == ast.Subscription {
		return responses
	}
	first := true
	return func(ctx context.Context) *graphql.Response {
		resp := responses(ctx)
		// Only the first answer: a later nil ends a streamed query.
		if !first || resp != nil || ctx.Err() == nil {
			first = false
			return resp
		}
		first = false
		err := x.r.presentError(ctx, ctx.Err())
		x.r.observer().Operation(ctx, operationName(oc), outcome(&graphql.Response{Errors: gqlerror.List{err}}), time.Since(oc.Stats.OperationStart))
		return &graphql.Response{Errors: gqlerror.List{err}}
	}
}
