// Command koredyne runs Koredyne Schedule: the server (GraphQL, the
// CalDAV gateway, the .ics feeds and the timetable pages) and the commands
// that manage its database.
//
//	koredyne serve                                  run the server (or, with --playground, private demo copies)
//	koredyne migrate up|down|status                 manage the schema
//	koredyne token create --business SLUG --role ROLE [--client ID | --staff ID] [--name NAME]
//	koredyne demo load gym|clinic|office --business SLUG
//	koredyne export json|ics --business SLUG [--out FILE]
//	koredyne import ics FILE --business SLUG [--dry-run] [--expand-until DATE] [--default-staff NAME] [--default-room NAME]
//	koredyne import json FILE [--business NEW]
//	koredyne import koredyne FILE --business SLUG [--create --time-zone ZONE] [--replace] [--dry-run] [--strict]
//
// Every command that opens the database takes --data DIR (the SQLite
// database lives in DIR/koredyne.db) or DATABASE_URL=postgres://… in the
// environment; only serve and migrate create one. Every command answers
// --help; docs/operations.md's command and configuration tables say the rest.
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
