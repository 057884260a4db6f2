// Package models stores businesses in PostgreSQL or SQLite with bun: one row
// type per table, conversion between a business's rows and an engine.State,
// and the guarded write, the only path by which anything is written. Every
// table of a business's data is an entry of one list (tables, in
// tables.go), which saving, loading, id rewriting and backups all walk.
package models

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"
	"github.com/uptrace/bun/dialect/pgdialect"
	"github.com/uptrace/bun/dialect/sqlitedialect"
	"github.com/uptrace/bun/driver/sqliteshim"
)

// DB is an open database.
type DB struct {
	*bun.DB
	// Path is the file of a SQLite database ("" for PostgreSQL and for
	// in-memory SQLite).
	Path string

	stmts statements // see prepared
	// unnamed is set once PostgreSQL has shown that statements prepared
	// on a connection do not stay there (see batchReader).
	unnamed atomic.Bool
}

// statements are the statements prepared on a SQLite database, by their SQL.
type statements struct {
	mu sync.Mutex
	m  map[string]*sql.Stmt
}

// prepared returns query prepared on a SQLite database, once: for the
// statements every request runs (the token check), where SQLite spends
// more preparing a statement than running it. PostgreSQL statements are
// never prepared (see openPostgres), so there it returns nil and the
// caller builds the query with bun.
func (db *DB) prepared(ctx context.Context, query string) (*sql.Stmt, error) {
	if db.Postgres() {
		return nil, nil
	}
	db.stmts.mu.Lock()
	defer db.stmts.mu.Unlock()
	if st := db.stmts.m[query]; st != nil {
		return st, nil
	}
	st, err := db.DB.DB.PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	if db.stmts.m == nil {
		db.stmts.m = make(map[string]*sql.Stmt)
	}
	db.stmts.m[query] = st
	return st, nil
}

// Open opens a database from a DSN: postgres://… (or postgresql://) for
// PostgreSQL through pgx, anything else is a SQLite file path, or
// ":memory:" for a private in-memory database.
//
// SQLite runs in WAL mode with foreign keys on and a busy timeout, and every
// transaction that is not read-only begins IMMEDIATE, so the guarded write
// holds the database's write lock from its first statement.
func Open(ctx context.Context, dsn string) (*DB, error) {
	if strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://") {
		return openPostgres(ctx, dsn, true)
	}
	return openSQLite(ctx, dsn)
}

// openPostgres opens a PostgreSQL database through pgx; ping checks that
// it answers (a replica need not, yet).
func openPostgres(ctx context.Context, dsn string, ping bool) (*DB, error) {
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("opening PostgreSQL: %w", err)
	}
	if !strings.Contains(dsn, "default_query_exec_mode=") {
		// bun writes the arguments into the SQL, so every statement
		// is new to pgx: preparing and caching each one would cost a
		// round trip and a deallocation per query for nothing. And a
		// statement prepared on one server connection is unknown to
		// the next: PgBouncer in transaction pooling hands each
		// transaction whichever connection is free.
		cfg.DefaultQueryExecMode = pgx.QueryExecModeSimpleProtocol
	}
	// bun writes values into the statement as literals, doubling quotes
	// and leaving backslashes alone: that is only the value when
	// backslashes are plain characters, whatever the server's setting.
	cfg.RuntimeParams["standard_conforming_strings"] = "on"
	if !ping && cfg.ConnectTimeout == 0 {
		// A replica that does not answer is passed over, after this long.
		cfg.ConnectTimeout = 2 * time.Second
	}
	sqldb := stdlib.OpenDB(*cfg)
	sqldb.SetMaxOpenConns(20)
	sqldb.SetMaxIdleConns(20)
	db := &DB{DB: bun.NewDB(sqldb, pgdialect.New())}
	if !ping {
		return db, nil
	}
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("connecting to PostgreSQL: %w", err)
	}
	return db, nil
}

// openSQLite opens a SQLite file, or a private in-memory database.
func openSQLite(ctx context.Context, dsn string) (*DB, error) {
	path, memory := dsn, dsn == ":memory:"
	q := url.Values{}
	q.Add("_pragma", "foreign_keys(1)")
	q.Add("_pragma", "busy_timeout(10000)")
	q.Add("_txlock", "immediate")
	var source string
	if memory {
		// One shared connection: each new connection to ":memory:" would be
		// a new, empty database.
		source = "file::memory:?" + q.Encode()
		path = ""
	} else {
		abs, err := filepath.Abs(path)
		if err != nil {
			return nil, err
		}
		path = abs
		q.Add("_pragma", "journal_mode(WAL)")
		q.Add("_pragma", "synchronous(NORMAL)")
		source = "file:" + abs + "?" + q.Encode()
	}
	sqldb, err := sql.Open(sqliteshim.ShimName, source)
	if err != nil {
		return nil, fmt.Errorf("opening SQLite: %w", err)
	}
	if memory {
		sqldb.SetMaxOpenConns(1)
	} else {
		// database/sql keeps 2 idle connections by default and closes the
		// rest as they come back, so concurrent requests opened a new
		// connection (and ran its pragmas) for most token checks.
		sqldb.SetMaxIdleConns(sqliteIdleConns)
	}
	sqldb.SetConnMaxLifetime(0)
	sqldb.SetConnMaxIdleTime(0)
	db := &DB{DB: bun.NewDB(sqldb, sqlitedialect.New()), Path: path}
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("opening SQLite at %s: %w", path, err)
	}
	return db, nil
}

// sqliteIdleConns is how many SQLite connections a process keeps open
// between requests.
const sqliteIdleConns = 32

// Postgres reports whether db is PostgreSQL.
func (db *DB) Postgres() bool { return db.Dialect().Name() == dialect.PG }

// LockFile is the file that SQLite migrations lock ("" when none is needed).
func (db *DB) LockFile() string {
	if db.Path == "" {
		return ""
	}
	return db.Path + ".lock"
}
