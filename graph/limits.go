package graph

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"sync/atomic"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/errcode"
	"github.com/99designs/gqlgen/graphql/handler/lru"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"
	"github.com/vektah/gqlparser/v2/lexer"
	"github.com/vektah/gqlparser/v2/parser"

	"github.com/koredyne/schedule/engine"
)

// queryGate refuses, from the query's text alone and before gqlgen parses
// and validates it, what would make that work itself heavy: more than
// maxTokens tokens, more than MaxFields fields once fragments are spread
// (a few fragments that each spread the next twice would expand to
// billions), more aliases than the limit, one field asked for many times
// in one selection (validation compares such fields pairwise: 3,000
// copies of one field kept it busy for seconds) and more mutation fields
// than the limit (each is a write of its own). Its verdicts are kept per
// query text, as gqlgen keeps parsed queries. It then checks the enum
// and number values of the request's variables (strictVariables), which
// gqlgen would not.
type queryGate struct {
	schema             *ast.Schema
	aliases, mutations int
	verdicts           *lru.LRU[verdict]
}

// verdict is what the gate found in a query's text: why it is refused, or
// the variables its operation declares.
type verdict struct {
	err  *gqlerror.Error
	vars ast.VariableDefinitionList
}

const (
	// MaxFields is the most fields a query may select once its fragments
	// are spread.
	MaxFields = 50000
	// maxTokens is the most tokens a query's text may hold; variables
	// do not count, so a large import or series travels in them.
	maxTokens = 50000
	// maxRepeats is the most times one field (one response key) may be
	// selected in one selection set, fragments spread.
	maxRepeats = 25
)

var _ interface {
	graphql.HandlerExtension
	graphql.OperationParameterMutator
} = (*queryGate)(nil)

func (*queryGate) ExtensionName() string                   { return "QueryGate" }
func (*queryGate) Validate(graphql.ExecutableSchema) error { return nil }

func (g *queryGate) MutateOperationParameters(ctx context.Context, p *graphql.RawParams) *gqlerror.Error {
	key := p.OperationName + "\x00" + p.Query
	v, ok := g.verdicts.Get(ctx, key)
	if !ok {
		v = g.check(p.Query, p.OperationName)
		g.verdicts.Add(ctx, key, v)
	}
	if v.err != nil {
		return v.err
	}
	return strictVariables(g.schema, v.vars, p.Variables)
}

func (g *queryGate) check(query, operation string) verdict {
	src := &ast.Source{Input: query}
	if tooLong(src) {
		return verdict{err: tooComplex(0, fmt.Sprintf("The query is longer than %d tokens; send large values as variables", maxTokens))}
	}
	doc, err := parser.ParseQuery(src)
	if err != nil {
		return verdict{} // gqlgen reports it
	}
	op := doc.Operations.ForName(operation)
	if op == nil {
		return verdict{}
	}
	return verdict{err: g.shapeError(op, doc.Fragments), vars: op.VariableDefinitions}
}

// tooLong reports whether a query holds more than maxTokens tokens,
// lexing it without building anything.
func tooLong(src *ast.Source) bool {
	lex := lexer.New(src)
	for range maxTokens + 1 {
		tok, err := lex.ReadToken()
		if err != nil || tok.Kind == lexer.EOF {
			return false // the parser reports a bad token
		}
	}
	return true
}

func (g *queryGate) shapeError(op *ast.OperationDefinition, fragments ast.FragmentDefinitionList) *gqlerror.Error {
	sh := shapeOf(op.SelectionSet, fragments, map[string]shape{})
	roots := 0
	for _, n := range sh.keys {
		roots += n
	}
	switch {
	case sh.fields > MaxFields:
		return tooComplex(0, fmt.Sprintf("The query asks for more than %d fields once its fragments are spread", MaxFields))
	case sh.aliases > g.aliases:
		return tooComplex(0, fmt.Sprintf("The query uses %d aliases; at most %d are allowed", sh.aliases, g.aliases))
	case max(sh.repeat, maxCount(sh.keys)) > maxRepeats:
		return tooComplex(0, fmt.Sprintf("The query asks for one field %d times in one place; at most %d are allowed", max(sh.repeat, maxCount(sh.keys)), maxRepeats))
	case op.Operation == ast.Mutation && roots > g.mutations:
		return tooComplex(0, fmt.Sprintf("The request holds %d mutations; send at most %d in one request", roots, g.mutations))
	}
	return nil
}

// depthLimit refuses an operation whose selections nest deeper than max
// levels, before anything runs. The cost limit bounds how much a query
// asks for; the depth limit bounds how far it may follow the graph
// (business → rooms → sessions → class → …), which a small but deep query
// could otherwise do within the cost budget. The query gate has already
// refused documents too large to walk.
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
	if d.max == 0 {
		return nil
	}
	sh := shapeOf(oc.Operation.SelectionSet, oc.Doc.Fragments, map[string]shape{})
	if sh.depth <= d.max {
		return nil
	}
	err := gqlerror.Errorf("The query nests %d levels deep; at most %d are allowed", sh.depth, d.max)
	errcode.Set(err, "QUERY_TOO_DEEP")
	return err
}

// shape is how deep a selection set nests (1 for fields without
// selections of their own), how many fields and aliased fields it holds
// with its fragments spread (counted up to just past MaxFields), the
// response keys of its own level with how often each is selected there,
// and the most times one key is selected in any selection set below.
type shape struct {
	depth, fields, aliases, repeat int
	keys                           map[string]int
}

// shapeOf works out a selection set's shape. Each fragment's shape is
// worked out once (known holds it), so fragments spreading fragments many
// times cost no more than once each; a fragment still being walked counts
// nothing, so a cycle (which validation refuses anyway) ends.
// Introspection (__schema, __type) is not counted: GraphiQL's own schema
// query nests deeper than any limit worth having, and its size is fixed
// by the schema, not by the client (the cost limit prices it).
func shapeOf(set ast.SelectionSet, fragments ast.FragmentDefinitionList, known map[string]shape) shape {
	out := shape{keys: map[string]int{}}
	add := func(inner shape, depth int) {
		out.depth = max(out.depth, depth)
		out.fields = min(out.fields+inner.fields, MaxFields+1)
		out.aliases = min(out.aliases+inner.aliases, MaxFields+1)
		out.repeat = max(out.repeat, inner.repeat)
	}
	for _, sel := range set {
		switch s := sel.(type) {
		case *ast.Field:
			if strings.HasPrefix(s.Name, "__") {
				continue
			}
			out.keys[s.Alias] = min(out.keys[s.Alias]+1, MaxFields+1)
			inner := shapeOf(s.SelectionSet, fragments, known)
			inner.repeat = max(inner.repeat, maxCount(inner.keys))
			inner.fields++
			if s.Alias != s.Name {
				inner.aliases++
			}
			add(inner, 1+inner.depth)
		case *ast.InlineFragment:
			inner := shapeOf(s.SelectionSet, fragments, known)
			merge(out.keys, inner.keys)
			add(inner, inner.depth)
		case *ast.FragmentSpread:
			inner, ok := known[s.Name]
			if f := fragments.ForName(s.Name); !ok && f != nil {
				known[s.Name] = shape{} // being walked
				inner = shapeOf(f.SelectionSet, fragments, known)
				known[s.Name] = inner
			}
			merge(out.keys, inner.keys)
			add(inner, inner.depth)
		}
	}
	return out
}

func merge(into, from map[string]int) {
	for k, n := range from {
		into[k] = min(into[k]+n, MaxFields+1)
	}
}

func maxCount(keys map[string]int) int {
	out := 0
	for _, n := range keys {
		out = max(out, n)
	}
	return out
}

// responseLimit bounds an answer to max bytes. The cost limit refuses what
// could be too large before anything runs, counting values; this counts
// bytes while the answer is built, from the fields resolved so far, and
// stops resolving more once past max (so a list longer than its bound
// cannot grow without end), then replaces the whole answer with one
// RESPONSE_TOO_LARGE error. Every event of a subscription is an answer of
// its own.
type responseLimit struct {
	max int
}

var _ interface {
	graphql.HandlerExtension
	graphql.FieldInterceptor
	graphql.ResponseInterceptor
} = responseLimit{}

func (responseLimit) ExtensionName() string                   { return "ResponseSizeLimit" }
func (responseLimit) Validate(graphql.ExecutableSchema) error { return nil }

type answerSizeKey struct{}

// answerSize is how many bytes an answer has grown to.
type answerSize struct{ bytes atomic.Int64 }

func (l responseLimit) InterceptResponse(ctx context.Context, next graphql.ResponseHandler) *graphql.Response {
	size := &answerSize{}
	resp := next(context.WithValue(ctx, answerSizeKey{}, size))
	if resp == nil || (size.bytes.Load() <= int64(l.max) && len(resp.Data) <= l.max) {
		return resp
	}
	message := fmt.Sprintf("The answer is larger than %d bytes: ask for fewer days, lists or fields", l.max)
	if graphql.HasOperationContext(ctx) && graphql.GetOperationContext(ctx).Operation != nil &&
		graphql.GetOperationContext(ctx).Operation.Operation == ast.Mutation {
		message = fmt.Sprintf("The writes were made, but their answer is larger than %d bytes: ask for less of what they return", l.max)
	}
	err := gqlerror.Errorf("%s", message)
	errcode.Set(err, "RESPONSE_TOO_LARGE")
	return &graphql.Response{Errors: gqlerror.List{err}, Extensions: resp.Extensions}
}

var errAnswerTooLarge = &apiError{code: "RESPONSE_TOO_LARGE", message: "The answer is too large"}

func (l responseLimit) InterceptField(ctx context.Context, next graphql.Resolver) (any, error) {
	size, _ := ctx.Value(answerSizeKey{}).(*answerSize)
	if size == nil {
		return next(ctx)
	}
	if size.bytes.Load() > int64(l.max) {
		return nil, errAnswerTooLarge
	}
	res, err := next(ctx)
	n := 4 // quotes, colon, comma
	if fc := graphql.GetFieldContext(ctx); fc != nil {
		n += len(fc.Field.Alias)
	}
	size.bytes.Add(int64(n + jsonSize(res)))
	return res, err
}

// jsonSize is about how many bytes a resolved value takes in the answer,
// not counting the fields of objects (they are counted as they resolve).
func jsonSize(v any) int {
	switch x := v.(type) {
	case nil:
		return 4
	case string:
		return len(x) + 2
	case *string:
		if x == nil {
			return 4
		}
		return len(*x) + 2
	case []string:
		n := 2
		for _, s := range x {
			n += len(s) + 3
		}
		return n
	case bool, int, int64, *int, engine.Date, engine.LocalTime:
		return 12
	}
	if rv := reflect.ValueOf(v); rv.Kind() == reflect.Slice {
		return 2 + rv.Len()*8
	}
	return 28 // an object's braces, an instant, an id
}
