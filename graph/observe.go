package graph

import (
	"context"
	"regexp"
	"time"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
)

// Observer hears what the API does, for the server's metrics and rate
// limit: graph declares what it reports, the server decides what to do
// with it. Its methods are called concurrently.
type Observer interface {
	// Operation hears one answered query or mutation, or a subscription
	// as it starts: the operation's name ("" when anonymous), its outcome
	// ("ok", "subscribed", or the first error's code) and the time taken;
	// ctx is the request's (BusinessOf tells its business).
	Operation(ctx context.Context, name, outcome string, took time.Duration)
	// Cache hears whether the response cache answered a query.
	Cache(hit bool)
	// Checked hears that the request's token was checked: good, or
	// unknown or revoked.
	Checked(ctx context.Context, good bool)
	// Work hears what the request costs beyond the one unit every request
	// costs (a unit per 1,000 points of a query's cost).
	Work(ctx context.Context, units float64)
}

// quiet is the Observer of a Resolver that was given none.
type quiet struct{}

func (quiet) Operation(context.Context, string, string, time.Duration) {}
func (quiet) Cache(bool)                                               {}
func (quiet) Checked(context.Context, bool)                            {}
func (quiet) Work(context.Context, float64)                            {}

// BusinessOf returns the id of the business a request acts in, once its
// token has been checked (else 0): for the server's request log.
func BusinessOf(ctx context.Context) int64 { return principal(ctx).BusinessID }

// observer returns the Resolver's Observer, or one that hears nothing.
func (r *Resolver) observer() Observer {
	if r.Observer == nil {
		return quiet{}
	}
	return r.Observer
}

// observer reports every query and mutation the API answers, with its
// operation name, outcome and time. It is added before the response
// cache, so answers from the cache are counted too. Subscriptions are
// reported once, when they start: their events are not requests.
type observer struct {
	o Observer
}

var _ interface {
	graphql.HandlerExtension
	graphql.OperationInterceptor
	graphql.ResponseInterceptor
} = observer{}

func (observer) ExtensionName() string                   { return "Metrics" }
func (observer) Validate(graphql.ExecutableSchema) error { return nil }

func (o observer) InterceptOperation(ctx context.Context, next graphql.OperationHandler) graphql.ResponseHandler {
	if oc := graphql.GetOperationContext(ctx); oc.Operation != nil && oc.Operation.Operation == ast.Subscription {
		o.o.Operation(ctx, operationName(oc), "subscribed", time.Since(oc.Stats.OperationStart))
	}
	return next(ctx)
}

// InterceptResponse also sees the requests that fail before they run
// (parse and validation errors, a query too deep), which carry no
// operation yet.
func (o observer) InterceptResponse(ctx context.Context, next graphql.ResponseHandler) *graphql.Response {
	if !graphql.HasOperationContext(ctx) {
		return next(ctx)
	}
	oc := graphql.GetOperationContext(ctx)
	if oc.Operation != nil && oc.Operation.Operation == ast.Subscription {
		return next(ctx)
	}
	resp := next(ctx)
	if resp == nil {
		return nil // the end of a streamed query's responses, not another answer
	}
	start := oc.Stats.OperationStart
	if start.IsZero() {
		start = oc.Stats.Read.Start
	}
	o.o.Operation(ctx, operationName(oc), outcome(resp), time.Since(start))
	return resp
}

// operationName is the name the request chose, or else the name of the
// document's one operation.
func operationName(oc *graphql.OperationContext) string {
	if oc.OperationName == "" && oc.Operation != nil {
		return oc.Operation.Name
	}
	return oc.OperationName
}

// codeLabel is what an error code must look like to become a label; codes
// are the API's own vocabulary, and anything else is counted as "error".
var codeLabel = regexp.MustCompile(`^[A-Z][A-Z_]{0,39}$`)

// outcome is "ok" for a response without errors, else the first error's
// extensions.code.
func outcome(resp *graphql.Response) string {
	if resp == nil || len(resp.Errors) == 0 {
		return "ok"
	}
	if code, ok := resp.Errors[0].Extensions["code"].(string); ok && codeLabel.MatchString(code) {
		return code
	}
	return "error"
}
