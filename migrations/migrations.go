// Package migrations holds the database schema of Koredyne Schedule, one set
// of timestamped SQL migrations per dialect (PostgreSQL and SQLite), embedded
// in the binary and applied with bun's migrator.
//
// bun's own migration lock is a row in a table, which a crashed process
// leaves behind and which does not make a second migrator wait. Migrations
// here run under a real lock instead: pg_advisory_xact_lock held by a
// transaction left open on a connection of its own for PostgreSQL, and an
// flock(2) on a file beside the database for SQLite.
//
// The PostgreSQL lock is a transaction's, not a session's, so that it works
// through PgBouncer in transaction pooling: a session lock would stay with
// whichever server connection the pooler happened to use, be released on
// another one or never, while an open transaction keeps its server
// connection to itself until it ends, and a client that dies mid-way has its
// transaction rolled back, the lock with it.
package migrations

import (
	"context"
	"embed"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"syscall"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"
	"github.com/uptrace/bun/migrate"
)

//go:embed postgres/*.sql
var postgresFiles embed.FS

//go:embed sqlite/*.sql
var sqliteFiles embed.FS

// advisoryKey is the pg_advisory_xact_lock key every koredyne process
// migrates under.
const advisoryKey = 0x6b6f7265 // "kore"

// Migrator applies the schema of one database.
type Migrator struct {
	db       *bun.DB
	lockFile string
	m        *migrate.Migrator
}

// New returns a migrator for db. For SQLite databases kept in a file,
// lockFile names the file to lock while migrating (usually the database path
// plus ".lock"); for in-memory databases it is empty.
func New(db *bun.DB, lockFile string) (*Migrator, error) {
	var files fs.FS
	switch db.Dialect().Name() {
	case dialect.PG:
		files, _ = fs.Sub(postgresFiles, "postgres")
	case dialect.SQLite:
		files, _ = fs.Sub(sqliteFiles, "sqlite")
	default:
		return nil, fmt.Errorf("no migrations for the %s dialect", db.Dialect().Name())
	}
	if err := oneFilePerNumber(files); err != nil {
		return nil, err
	}
	ms := migrate.NewMigrations()
	if err := ms.Discover(files); err != nil {
		return nil, fmt.Errorf("reading migrations: %w", err)
	}
	return &Migrator{db: db, lockFile: lockFile, m: migrate.NewMigrator(db, ms, migrate.WithMarkAppliedOnSuccess(true))}, nil
}

// Up applies every migration not yet applied and returns their names.
func (m *Migrator) Up(ctx context.Context) ([]string, error) {
	var names []string
	err := m.locked(ctx, func() error {
		group, err := m.m.Migrate(ctx)
		if err != nil {
			return err
		}
		for _, mg := range group.Migrations {
			names = append(names, mg.Name)
		}
		return nil
	})
	return names, err
}

// Down rolls back the last group of migrations applied together and returns
// their names.
func (m *Migrator) Down(ctx context.Context) ([]string, error) {
	var names []string
	err := m.locked(ctx, func() error {
		group, err := m.m.Rollback(ctx)
		if err != nil {
			return err
		}
		for _, mg := range group.Migrations {
			names = append(names, mg.Name)
		}
		return nil
	})
	return names, err
}

// Status describes one migration: its name and whether it is applied.
type Status struct {
	Name    string
	Applied bool
}

// Status lists every migration with whether it is applied.
func (m *Migrator) Status(ctx context.Context) ([]Status, error) {
	var out []Status
	err := m.locked(ctx, func() error {
		ms, err := m.m.MigrationsWithStatus(ctx)
		if err != nil {
			return err
		}
		for _, mg := range ms {
			out = append(out, Status{Name: mg.Name, Applied: mg.IsApplied()})
		}
		return nil
	})
	return out, err
}

// locked runs fn holding the migration lock, after making sure bun's
// bookkeeping tables exist.
func (m *Migrator) locked(ctx context.Context, fn func() error) error {
	unlock, err := m.lock(ctx)
	if err != nil {
		return err
	}
	defer unlock()
	if err := m.m.Init(ctx); err != nil {
		return fmt.Errorf("preparing the migrations table: %w", err)
	}
	return fn()
}

func (m *Migrator) lock(ctx context.Context) (func(), error) {
	if m.db.Dialect().Name() == dialect.PG {
		// A transaction of its own, apart from the migrations (which bun
		// runs on other connections, each in transactions of their own),
		// which only the returned function ends: database/sql would roll
		// it back the moment ctx is done, while a migration may still run.
		tx, err := m.db.BeginTx(context.WithoutCancel(ctx), nil)
		if err != nil {
			return nil, err
		}
		if _, err := tx.ExecContext(ctx, "SELECT pg_advisory_xact_lock(?)", advisoryKey); err != nil {
			tx.Rollback()
			return nil, fmt.Errorf("taking the migration lock: %w", err)
		}
		// Ending the transaction releases the lock, even when ctx is done.
		return func() { tx.Rollback() }, nil
	}
	if m.lockFile == "" {
		return func() {}, nil
	}
	f, err := os.OpenFile(m.lockFile, os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, fmt.Errorf("opening the migration lock: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, fmt.Errorf("taking the migration lock: %w", err)
	}
	return func() {
		syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
}

// oneFilePerNumber refuses two migrations of one number: bun records a
// migration as applied by its number alone, so a database that applied one
// would silently never apply the other (two branches that each add
// 20261213000001_something do exactly that).
func oneFilePerNumber(files fs.FS) error {
	names, err := fs.Glob(files, "*.up.sql")
	if err != nil {
		return err
	}
	seen := make(map[string]string)
	for _, name := range names {
		number, _, _ := strings.Cut(name, "_")
		if other, ok := seen[number]; ok {
			return fmt.Errorf("migrations %s and %s have the same number %s: give the later one the next number", other, name, number)
		}
		seen[number] = name
	}
	return nil
}
