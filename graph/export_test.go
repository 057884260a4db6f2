package graph

import (
	"context"
	"net/http"

	"github.com/vektah/gqlparser/v2"

	"github.com/koredyne/schedule/engine/solve"
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

// ProposalsWith is a store of proposals whose background searches call
// progress as they report (with the context cancelProposal ends, which it
// may wait for), and, with blind, whose solver sees none of the timetable,
// so that the clash proof refuses places and the proposal is repaired.
func ProposalsWith(progress func(context.Context, solve.Progress), blind bool) *Proposals {
	p := NewProposals()
	p.progress, p.blind = progress, blind
	return p
}

// Wait waits until every background search has ended.
func (p *Proposals) Wait() { p.searches.Wait() }
