// Command koredyne runs Koredyne Schedule: the GraphQL server and the
// commands that manage its database.
//
//	koredyne serve                                  run the server
//	koredyne migrate up|down|status                 manage the schema
//	koredyne token create --business SLUG --role ROLE
//	koredyne demo load gym|clinic|office --business SLUG
//
// Every command takes --data DIR (the SQLite database lives in
// DIR/koredyne.db) or DATABASE_URL=postgres://… in the environment.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(Main(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr))
}
