package models

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"database/sql/driver"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"reflect"
	"strconv"
	"strings"
	"unsafe"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/schema"
)

// A rowReader reads the rows of its business from a table into dest (a
// *[]R of a row type), in order; done runs once dest holds them. q narrows
// the query to the business, given as business. Loading a business's
// schedule is a list of such reads (loadState): run one after the other in
// a transaction (queryReader), or all in one round trip (batchReader),
// which is what a cold business costs on a busy machine.
type rowReader interface {
	read(dest any, q func(q *bun.SelectQuery, business any) *bun.SelectQuery, done func() error) error
}

// queryReader runs each read at once, in db (a transaction).
type queryReader struct {
	ctx      context.Context
	db       bun.IDB
	business int64
}

func (r queryReader) read(dest any, q func(*bun.SelectQuery, any) *bun.SelectQuery, done func() error) error {
	if err := q(r.db.NewSelect().Model(dest), r.business).Scan(r.ctx); err != nil {
		return fmt.Errorf("loading %T: %w", dest, err)
	}
	return done()
}

// batchReader queues the reads and runs them together (run): one message
// to PostgreSQL holding BEGIN (repeatable read, read only), every SELECT
// and COMMIT, so every read sees one point in time, as a transaction's
// reads do, for one round trip instead of one each.
//
// Each SELECT is a statement prepared once on the connection, with the
// business as its parameter, so PostgreSQL parses and plans the ~20 of
// them once per connection rather than once per load: on a replica
// answering cold loads back to back that was two fifths of its work. A
// statement is named by its SQL, so a name means the same statement on
// every connection, whoever prepared it. Where the connection is not a
// session of its own (PgBouncer before 1.21 in transaction pooling hands
// each transaction whichever server connection is free), a statement
// prepared on one is unknown to the next: the first such failure turns
// the database's batches to the simple query protocol for good, the
// business written into each SELECT, as the rest of the store speaks (see
// openPostgres), and the batch runs again that way.
type batchReader struct {
	db       *DB
	business int64
	reads    []batchRead
}

type batchRead struct {
	q    func(*bun.SelectQuery, any) *bun.SelectQuery
	dest any // *[]R
	done func() error
}

func (r *batchReader) read(dest any, q func(*bun.SelectQuery, any) *bun.SelectQuery, done func() error) error {
	r.reads = append(r.reads, batchRead{q: q, dest: dest, done: done})
	return nil
}

const (
	beginBatch  = "BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY"
	commitBatch = "COMMIT"
)

// run sends the queued reads, fills their dests, then calls their dones in
// the order they were queued.
func (r *batchReader) run(ctx context.Context) error {
	conn, err := r.db.DB.DB.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	err = conn.Raw(func(dc any) error {
		c, ok := dc.(*stdlib.Conn)
		if !ok {
			return fmt.Errorf("a batch read needs pgx's connection, not %T", dc)
		}
		if r.db.unnamed.Load() {
			return r.send(ctx, c.Conn(), false)
		}
		err := r.send(ctx, c.Conn(), true)
		if !preparedUnusable(err) {
			return err
		}
		if !r.db.unnamed.Swap(true) {
			slog.Warn("a statement prepared on a PostgreSQL connection cannot be used there (a pooler in transaction mode?): loads speak the simple query protocol from now on", "error", err)
		}
		for _, rd := range r.reads {
			reflect.ValueOf(rd.dest).Elem().SetLen(0) // filled in part
		}
		return r.send(ctx, c.Conn(), false)
	})
	if err != nil {
		return fmt.Errorf("reading %d tables in one batch: %w", len(r.reads), err)
	}
	for _, rd := range r.reads {
		if err := rd.done(); err != nil {
			return err
		}
	}
	return nil
}

// send runs the batch on c, its SELECTs prepared (named) or written out
// in one simple query.
func (r *batchReader) send(ctx context.Context, c *pgx.Conn, named bool) error {
	pc := c.PgConn()
	var mrr *pgconn.MultiResultReader
	if named {
		var b pgconn.Batch
		b.ExecParams(beginBatch, nil, nil, nil, nil)
		arg := [][]byte{strconv.AppendInt(nil, r.business, 10)}
		for _, rd := range r.reads {
			sql := rd.q(r.db.NewSelect().Model(rd.dest), bun.Safe("$1")).String()
			sd, err := c.Prepare(ctx, statementName(sql), sql)
			if err != nil {
				return err
			}
			b.ExecStatement(sd, arg, nil, nil)
		}
		b.ExecParams(commitBatch, nil, nil, nil, nil)
		mrr = pc.ExecBatch(ctx, &b)
	} else {
		var sb strings.Builder
		sb.WriteString(beginBatch + ";\n")
		for _, rd := range r.reads {
			sb.WriteString(rd.q(r.db.NewSelect().Model(rd.dest), r.business).String())
			sb.WriteString(";\n")
		}
		sb.WriteString(commitBatch)
		mrr = pc.Exec(ctx, sb.String())
	}
	err := r.scan(mrr, c.TypeMap())
	if pc.TxStatus() != 'I' && !pc.IsClosed() {
		// A statement failed after BEGIN: PostgreSQL skipped the rest
		// of the batch, COMMIT with it, and the connection would go
		// back to the pool inside a failed transaction.
		if _, rerr := pc.Exec(ctx, "ROLLBACK").ReadAll(); rerr != nil || pc.TxStatus() != 'I' {
			return errors.Join(err, rerr, driver.ErrBadConn) // not to be used again
		}
	}
	return err
}

// statementName names a prepared statement by its SQL.
func statementName(sql string) string {
	h := sha256.Sum256([]byte(sql))
	return "koredyne_" + hex.EncodeToString(h[:12])
}

// preparedUnusable reports whether err says the connection does not hold
// the statements prepared on it or holds others of their names (it is not
// a session of its own), or that a statement's plan no longer fits its
// table (a column's type changed under it).
func preparedUnusable(err error) bool {
	var pe *pgconn.PgError
	if !errors.As(err, &pe) {
		return false
	}
	switch pe.Code {
	case "26000", // invalid_sql_statement_name: prepared statement "…" does not exist
		"42P05", // duplicate_prepared_statement
		"0A000": // feature_not_supported: cached plan must not change result type
		return true
	}
	return false
}

// scan reads the results of BEGIN, the reads and COMMIT into the dests.
func (r *batchReader) scan(mrr *pgconn.MultiResultReader, types *pgtype.Map) error {
	i := -1 // BEGIN's result comes first
	var err error
	for mrr.NextResult() {
		rr := mrr.ResultReader()
		if i >= 0 && i < len(r.reads) && err == nil {
			err = scanRows(r.db, rr, types, r.reads[i].dest)
		}
		if _, cerr := rr.Close(); err == nil && cerr != nil {
			err = cerr
		}
		i++
	}
	if cerr := mrr.Close(); cerr != nil {
		return cerr // the statement that failed; later ones never ran
	}
	if err == nil && i != len(r.reads)+1 {
		err = fmt.Errorf("a batch of %d reads answered %d results", len(r.reads), i)
	}
	return err
}

// scanRows appends the rows of a result to dest (*[]R), as bun scans a
// query's rows: every column into the row type's field of that name,
// converted to the value database/sql would have handed bun (driverValue).
// An integer or text column into a plain integer or string field is set
// from its text directly (directly), as bun would set it, without the
// value in between: boxing each id into an interface was a quarter of
// the scan.
func scanRows(db *DB, rr *pgconn.ResultReader, types *pgtype.Map, dest any) error {
	slice := reflect.ValueOf(dest).Elem()
	table := db.Table(slice.Type().Elem())
	fds := rr.FieldDescriptions()
	fields := make([]*schema.Field, len(fds))
	convert := make([]func([]byte) (driver.Value, error), len(fds))
	direct := make([]reflect.Kind, len(fds))
	for i, fd := range fds {
		if fields[i] = table.LookupField(fd.Name); fields[i] == nil {
			return fmt.Errorf("bun: %s does not have column %q", table.TypeName, fd.Name)
		}
		convert[i] = driverValue(types, fd)
		direct[i] = directly(fields[i], fd)
	}
	for rr.NextRow() {
		n := slice.Len()
		if n == slice.Cap() { // grown as append grows, without a zero row made and copied in each time
			grown := reflect.MakeSlice(slice.Type(), n, max(2*n, 16))
			reflect.Copy(grown, slice)
			slice.Set(grown)
		}
		slice.SetLen(n + 1)
		row := slice.Index(n)
		row.SetZero()
		for i, raw := range rr.Values() {
			switch {
			case raw == nil:
			case direct[i] == reflect.Int64:
				v, err := strconv.ParseInt(unsafe.String(unsafe.SliceData(raw), len(raw)), 10, 64)
				if err != nil {
					return fmt.Errorf("%s.%s: %w", table.Name, fds[i].Name, err)
				}
				fields[i].Value(row).SetInt(v)
				continue
			case direct[i] == reflect.String:
				fields[i].Value(row).SetString(string(raw))
				continue
			}
			var v driver.Value
			if raw != nil {
				var err error
				if v, err = convert[i](raw); err != nil {
					return fmt.Errorf("%s.%s: %w", table.Name, fds[i].Name, err)
				}
			}
			if err := fields[i].ScanValue(row, v); err != nil {
				return fmt.Errorf("%s.%s: %w", table.Name, fds[i].Name, err)
			}
		}
	}
	return nil
}

// directly returns reflect.Int64 for an integer column in text that bun
// would scan into f with its plain integer scanner, reflect.String for a
// text column it would scan with its string scanner, and reflect.Invalid
// for every other, which goes through driverValue and bun.
func directly(f *schema.Field, fd pgconn.FieldDescription) reflect.Kind {
	t := f.StructField.Type
	if fd.Format != pgtype.TextFormatCode || t.Implements(scannerType) || reflect.PointerTo(t).Implements(scannerType) ||
		f.Tag.HasOption("msgpack") || f.Tag.HasOption("json_use_number") {
		return reflect.Invalid
	}
	switch fd.DataTypeOID {
	case pgtype.Int2OID, pgtype.Int4OID, pgtype.Int8OID:
		switch t.Kind() {
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
			return reflect.Int64
		}
	case pgtype.TextOID, pgtype.VarcharOID:
		if t.Kind() == reflect.String {
			return reflect.String
		}
	}
	return reflect.Invalid
}

var scannerType = reflect.TypeFor[sql.Scanner]()

// driverValue converts a column's raw values to what pgx's database/sql
// driver returns for them (stdlib.Rows.Next), so that bun's scanners see
// the same values on either path.
func driverValue(m *pgtype.Map, fd pgconn.FieldDescription) func([]byte) (driver.Value, error) {
	oid, format := fd.DataTypeOID, fd.Format
	switch oid {
	case pgtype.BoolOID:
		var d bool
		plan := m.PlanScan(oid, format, &d)
		return func(src []byte) (driver.Value, error) { err := plan.Scan(src, &d); return d, err }
	case pgtype.ByteaOID, pgtype.JSONOID, pgtype.JSONBOID, pgtype.XMLOID:
		return func(src []byte) (driver.Value, error) {
			var d []byte
			err := m.PlanScan(oid, format, &d).Scan(src, &d)
			return d, err
		}
	case pgtype.Float4OID:
		var d float32
		plan := m.PlanScan(oid, format, &d)
		return func(src []byte) (driver.Value, error) { err := plan.Scan(src, &d); return float64(d), err }
	case pgtype.Float8OID:
		var d float64
		plan := m.PlanScan(oid, format, &d)
		return func(src []byte) (driver.Value, error) { err := plan.Scan(src, &d); return d, err }
	case pgtype.Int2OID:
		var d int16
		plan := m.PlanScan(oid, format, &d)
		return func(src []byte) (driver.Value, error) { err := plan.Scan(src, &d); return int64(d), err }
	case pgtype.Int4OID:
		var d int32
		plan := m.PlanScan(oid, format, &d)
		return func(src []byte) (driver.Value, error) { err := plan.Scan(src, &d); return int64(d), err }
	case pgtype.Int8OID:
		var d int64
		plan := m.PlanScan(oid, format, &d)
		return func(src []byte) (driver.Value, error) { err := plan.Scan(src, &d); return d, err }
	case pgtype.DateOID:
		var d pgtype.Date
		plan := m.PlanScan(oid, format, &d)
		return func(src []byte) (driver.Value, error) {
			if err := plan.Scan(src, &d); err != nil {
				return nil, err
			}
			return d.Value()
		}
	case pgtype.TimestampOID:
		var d pgtype.Timestamp
		plan := m.PlanScan(oid, format, &d)
		return func(src []byte) (driver.Value, error) {
			if err := plan.Scan(src, &d); err != nil {
				return nil, err
			}
			return d.Value()
		}
	case pgtype.TimestamptzOID:
		var d pgtype.Timestamptz
		plan := m.PlanScan(oid, format, &d)
		return func(src []byte) (driver.Value, error) {
			if err := plan.Scan(src, &d); err != nil {
				return nil, err
			}
			return d.Value()
		}
	default:
		var d string
		plan := m.PlanScan(oid, format, &d)
		return func(src []byte) (driver.Value, error) { err := plan.Scan(src, &d); return d, err }
	}
}

// txReads are reads a write makes together, in its transaction and under
// its lock: on PostgreSQL every SELECT goes in one message (a simple query
// of several statements) on the transaction's connection, one round trip
// instead of one each; elsewhere, or where the write has no connection of
// its own, they run one after the other.
type txReads struct {
	e     *Edit
	reads []txRead
}

type txRead struct {
	q    *bun.SelectQuery
	dest any // *[]R
}

// reads starts a batch of the edit's reads.
func (e *Edit) reads() *txReads { return &txReads{e: e} }

// add queues q, whose rows run fills dest (a *[]R whose fields are q's
// columns).
func (r *txReads) add(q *bun.SelectQuery, dest any) { r.reads = append(r.reads, txRead{q, dest}) }

// run runs the queued reads and fills their dests.
func (r *txReads) run(ctx context.Context) error {
	if len(r.reads) == 0 {
		return nil
	}
	if r.e.conn == nil || len(r.reads) == 1 {
		for _, rd := range r.reads {
			if err := rd.q.Scan(ctx, rd.dest); err != nil {
				return err
			}
		}
		return nil
	}
	var sb strings.Builder
	for i, rd := range r.reads {
		if i > 0 {
			sb.WriteString(";\n")
		}
		sb.WriteString(rd.q.String())
	}
	db := r.e.db
	err := r.e.conn.Raw(func(dc any) error {
		c, ok := dc.(*stdlib.Conn)
		if !ok {
			return fmt.Errorf("a batch read needs pgx's connection, not %T", dc)
		}
		mrr := c.Conn().PgConn().Exec(ctx, sb.String())
		var err error
		i := 0
		for mrr.NextResult() {
			rr := mrr.ResultReader()
			if i < len(r.reads) && err == nil {
				err = scanRows(db, rr, c.Conn().TypeMap(), r.reads[i].dest)
			}
			if _, cerr := rr.Close(); err == nil && cerr != nil {
				err = cerr
			}
			i++
		}
		if cerr := mrr.Close(); cerr != nil {
			err = cerr // the statement that failed; later ones never ran
		}
		if err == nil && i != len(r.reads) {
			err = fmt.Errorf("a batch of %d reads answered %d results", len(r.reads), i)
		}
		if errors.Is(err, driver.ErrBadConn) {
			// Said from within the transaction, it would have
			// database/sql close the connection the transaction
			// still holds, and wait for it for ever: the
			// transaction's next statement, or its rollback, finds
			// the connection broken instead.
			err = errors.New(err.Error())
		}
		return err
	})
	if err != nil {
		return fmt.Errorf("reading %d queries in one batch: %w", len(r.reads), err)
	}
	return nil
}
