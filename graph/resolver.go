// Package graph is the GraphQL API (gqlgen, schema first: schema/*.graphqls).
// Resolvers are thin: they map arguments onto the engine and the guarded
// write of package models, and read everything of the schedule from the
// request's snapshot.
package graph

import (
	"log/slog"

	"github.com/koredyne/schedule/models"
	"github.com/koredyne/schedule/models/inflight"
)

// Resolver is the root of the resolvers: wiring only.
type Resolver struct {
	Store *models.Store
	Log   *slog.Logger
	// PublicURL is where clients reach the server ("https://cal.example.com"),
	// for the URLs the API hands out; empty: the URL each request came to.
	PublicURL string
	// FeedPath and PagePath are where the server serves the .ics feeds
	// (FeedPath + token + ".ics") and the timetable pages (PagePath +
	// token), for the URLs the API hands out: the gateway's caldav.FeedPath
	// and page.Path, which the server wires in (graph does not import the
	// gateway).
	FeedPath, PagePath string
	// Playground marks every business as a visitor's private demo copy.
	IsPlayground bool
	// AllowedOrigins are the browser origins ("https://desk.example.com")
	// whose pages may open a websocket besides the server's own.
	AllowedOrigins []string
	// Guest, when set, is who a request without an Authorization header
	// acts as (the visitor's own copy in the playground); unset, such a
	// request is refused.
	Guest *models.Principal
	// Observer, when set, hears operations, response cache hits, checked
	// tokens and the work of each request (for metrics and the rate
	// limit).
	Observer Observer
	// MaxBody is the largest request body read, in bytes; 0: no limit.
	MaxBody int64
	// Requests is the memory requests under way share: bodies as read,
	// their decoded variables, calendar files being imported (see
	// readBody); nil: no bound.
	Requests *inflight.Budget
	// MaxDepth is how deep a query may nest its selections; 0: no limit.
	MaxDepth int
	// MaxCost is the most values a query's answer may hold by the cost
	// model, MaxAliases the most aliased fields in a query, MaxMutations
	// the most mutations in one request and MaxResponse the largest
	// answer in bytes; 0 takes the Default… of each.
	MaxCost, MaxAliases, MaxMutations, MaxResponse int
	// NoSuggestions has refusals carry no suggestions (docs/assistant.md),
	// which spares them the trials: for measuring what suggestions cost.
	NoSuggestions bool
	// Connections are the open subscriptions, which the server closes when
	// it shuts down; nil: Handler makes its own.
	Connections *Connections
	// Proposals are the timetables proposeTimetable proposed, kept for
	// applyProposal; nil: Handler makes its own.
	Proposals *Proposals
}
