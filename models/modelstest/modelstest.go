// Package modelstest opens fresh, migrated databases for tests: always an
// SQLite file in a temporary directory, and PostgreSQL: the server
// KOREDYNE_TEST_DATABASE_URL names (required when CI=true), or else a
// throwaway cluster of the package's own where PostgreSQL's programs are
// installed (local.go). Each PostgreSQL database is a schema of its own,
// dropped when the test ends. A package whose tests use it calls need.Main
// from its TestMain.
package modelstest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"os"
	"path/filepath"
	"testing"

	"github.com/koredyne/schedule/migrations"
	"github.com/koredyne/schedule/models"
	"github.com/koredyne/schedule/models/modelstest/need"
)

// Database is one database to run a test against.
type Database struct {
	Name string // "sqlite" or "postgres"
	DB   *models.DB
	DSN  string // how another process opens the same database
}

// Databases returns a fresh SQLite database and, when configured, a fresh
// PostgreSQL schema, both migrated.
func Databases(t testing.TB) []Database {
	t.Helper()
	out := []Database{SQLite(t)}
	if pg, ok := Postgres(t); ok {
		out = append(out, pg)
	}
	return out
}

// SQLite returns a fresh, migrated SQLite database in a temporary directory.
func SQLite(t testing.TB) Database {
	t.Helper()
	dsn := filepath.Join(t.TempDir(), "koredyne.db")
	return Database{Name: "sqlite", DB: open(t, dsn), DSN: dsn}
}

// Postgres returns a fresh, migrated PostgreSQL schema, or false when
// there is no PostgreSQL to test on (a failure under CI=true): neither
// KOREDYNE_TEST_DATABASE_URL nor PostgreSQL's programs.
func Postgres(t testing.TB) (Database, bool) {
	t.Helper()
	dsn, ok := EmptyPostgres(t)
	if !ok {
		return Database{}, false
	}
	return Database{Name: "postgres", DB: open(t, dsn), DSN: dsn}, true
}

// EmptyPostgres returns the URL of a fresh PostgreSQL schema, not
// migrated, or false as Postgres does.
func EmptyPostgres(t testing.TB) (string, bool) {
	t.Helper()
	base := os.Getenv("KOREDYNE_TEST_DATABASE_URL")
	if base == "" {
		if need.CI() {
			t.Fatal("KOREDYNE_TEST_DATABASE_URL must name a PostgreSQL database under CI")
		}
		url, missing, err := localPostgres()
		if err != nil {
			t.Fatal(err)
		}
		if missing != "" {
			t.Logf("PostgreSQL skipped: no %s, and KOREDYNE_TEST_DATABASE_URL is not set", missing)
			need.Without(t, "postgresql", "apt-get install postgresql, or set KOREDYNE_TEST_DATABASE_URL")
			return "", false
		}
		base = url
	}
	ctx := context.Background()
	admin, err := models.Open(ctx, base)
	if err != nil {
		t.Fatal(err)
	}
	b := make([]byte, 6)
	rand.Read(b)
	schema := "test_" + hex.EncodeToString(b)
	if _, err := admin.ExecContext(ctx, "CREATE SCHEMA "+schema); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		admin.ExecContext(context.Background(), "DROP SCHEMA "+schema+" CASCADE")
		admin.Close()
	})
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String(), true
}

// Open opens a database and migrates it; it is closed when the test ends.
func Open(t testing.TB, dsn string) *models.DB { return open(t, dsn) }

func open(t testing.TB, dsn string) *models.DB {
	t.Helper()
	ctx := context.Background()
	db, err := models.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	m, err := migrations.New(db.DB, db.LockFile())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Up(ctx); err != nil {
		t.Fatalf("migrating %s: %v", dsn, err)
	}
	return db
}
