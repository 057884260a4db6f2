// Package graph is the GraphQL API (gqlgen, schema first: schema/*.graphqls).
// Resolvers are thin: they map arguments onto the engine and the guarded
// write of package models, and read everything of the schedule from the
// request's snapshot.
package graph

import (
	"log/slog"

	"github.com/koredyne/schedule/models"
)

// Resolver is the root of the resolvers: wiring only.
type Resolver struct {
	Store *models.Store
	Log   *slog.Logger
	// PublicURL is where clients reach the server ("https://cal.example.com"),
	// for the URLs the API hands out; empty: the URL each request came to.
	PublicURL string
	// Playground marks every business as a visitor's private demo copy.
	IsPlayground bool
}
