package models

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/schema"

	"github.com/koredyne/schedule/engine"
)

// A backup is a business's own data as JSON: its settings and every row of
// its tables, under their column names, ids kept. Secrets (tokens, app
// passwords, feed tokens) and bookkeeping that a restore starts afresh
// (revisions, tombstones, sync states) are left out; so are the revision
// columns, which a restore sets to its own first revision.
const (
	BackupFormat  = "koredyne-backup"
	BackupVersion = 1
)

// backupFile is the file: Tables maps a table's name to its rows, each row
// a column → value object.
type backupFile[Row any] struct {
	Format   string           `json:"format"`
	Version  int              `json:"version"`
	Business *BackupBusiness  `json:"business"`
	Tables   map[string][]Row `json:"tables"`
}

// BackupBusiness is the business's settings.
type BackupBusiness struct {
	Slug      string `json:"slug"`
	Name      string `json:"name"`
	Kind      string `json:"kind"`
	Currency  string `json:"currency"`
	TimeZone  string `json:"timeZone"`
	WeekStart int    `json:"weekStart"`
	// The locale; left out of backups of a business in English with the
	// defaults, and of backups made before businesses had a language.
	Language string `json:"language,omitempty"`
	FirstDay int8   `json:"firstDay,omitempty"`
	Clock    int8   `json:"clock,omitempty"`
	Digits   string `json:"digits,omitempty"`
}

// backupTables are the tables a backup holds: every table of the registry
// and its children, parents before the rows that refer to them.
func backupTables() []rowTable {
	var out []rowTable
	for _, t := range tables {
		out = append(out, t)
		out = append(out, t.children()...)
	}
	return out
}

// newRows returns a pointer to an empty slice of a table's row type.
func newRows(t rowTable) any { return reflect.New(reflect.SliceOf(t.rowType())).Interface() }

// skipped columns: the tenant, which a restore sets, and revisions.
var backupSkips = []string{"business_id", "revision", "settings_revision"}

// idColumns are a table's id columns but the tenant: its own id and its
// references to other rows.
func idColumns(table *schema.Table) []*schema.Field {
	var out []*schema.Field
	for _, f := range table.Fields {
		if (f.Name == "id" || strings.HasSuffix(f.Name, "_id")) && f.Name != "business_id" && f.IndirectType.Kind() == reflect.Int64 {
			out = append(out, f)
		}
	}
	return out
}

// largestID is the largest id of any row of the tables a backup holds.
func largestID(ctx context.Context, tx bun.Tx, db *DB) (int64, error) {
	var most int64
	for _, t := range backupTables() {
		table := db.Table(t.rowType())
		if _, ok := table.FieldMap["id"]; !ok {
			continue
		}
		var n sql.NullInt64
		if err := tx.NewSelect().TableExpr(table.Name).ColumnExpr("max(id)").Scan(ctx, &n); err != nil {
			return 0, fmt.Errorf("reading the ids of %s: %w", table.Name, err)
		}
		most = max(most, n.Int64)
	}
	return most, nil
}

// ExportBackup reads a business's data in one consistent read.
func ExportBackup(ctx context.Context, db *DB, b *Business) ([]byte, error) {
	out := backupFile[map[string]any]{Format: BackupFormat, Version: BackupVersion,
		Business: &BackupBusiness{b.Slug, b.Name, b.Kind, b.Currency, b.TimeZone, b.WeekStart, b.Language, b.FirstDay, b.Clock, b.Digits}, Tables: map[string][]map[string]any{}}
	err := db.RunInTx(ctx, &sql.TxOptions{Isolation: sql.LevelRepeatableRead, ReadOnly: true}, func(ctx context.Context, tx bun.Tx) error {
		for _, t := range backupTables() {
			rows := newRows(t)
			if err := tx.NewSelect().Model(rows).Where("business_id = ?", b.ID).OrderExpr(t.orderBy()).Scan(ctx); err != nil {
				return fmt.Errorf("reading %T: %w", rows, err)
			}
			table := db.Table(t.rowType())
			list := reflect.ValueOf(rows).Elem()
			objects := make([]map[string]any, list.Len())
			for i := range objects {
				objects[i] = map[string]any{}
				for _, f := range table.Fields {
					if !slices.Contains(backupSkips, f.Name) {
						objects[i][f.Name] = f.Value(list.Index(i)).Interface()
					}
				}
			}
			out.Tables[table.Name] = objects
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return json.MarshalIndent(out, "", "  ")
}

// RestoreBackup creates a business from a backup. Under its own name (slug
// empty or the backup's), every row keeps its id: the ids must be free, so
// restore into another database than the one the backup came from, or
// after removing that business. Under another name, every row takes a new
// id (references follow), so the backup can be restored beside its
// original. Nothing is written unless all of it is.
func RestoreBackup(ctx context.Context, db *DB, data []byte, slug string, now int64) (*Business, error) {
	var in backupFile[map[string]json.RawMessage]
	if err := json.Unmarshal(data, &in); err != nil {
		return nil, engine.Errorf(engine.Invalid, "file", "This is not a backup file: %s", jsonProblem(data, err))
	}
	switch {
	case in.Format != BackupFormat:
		return nil, engine.Errorf(engine.Invalid, "format", "This is not a Koredyne backup (format %q, want %q)", in.Format, BackupFormat)
	case in.Version != BackupVersion:
		return nil, engine.Errorf(engine.Invalid, "version", "This backup has version %d; this version of Koredyne reads version %d", in.Version, BackupVersion)
	case in.Business == nil:
		return nil, engine.Errorf(engine.Invalid, "business", "The backup names no business")
	}
	if slug == "" {
		slug = in.Business.Slug
	}
	newIDs := slug != in.Business.Slug
	known := map[string]bool{}
	for _, t := range backupTables() {
		known[db.Table(t.rowType()).Name] = true
	}
	for name := range in.Tables {
		if !known[name] {
			return nil, engine.Errorf(engine.Invalid, "tables", "The backup has a table %q this version does not know", name)
		}
	}
	var b *Business
	err := db.RunInTx(ctx, &sql.TxOptions{}, func(ctx context.Context, tx bun.Tx) error {
		settings := &Business{Name: in.Business.Name, Kind: in.Business.Kind, Currency: in.Business.Currency, TimeZone: in.Business.TimeZone, WeekStart: in.Business.WeekStart,
			Language: in.Business.Language, FirstDay: in.Business.FirstDay, Clock: in.Business.Clock, Digits: in.Business.Digits}
		engineSettings, err := settings.Settings()
		if err != nil {
			return engine.Errorf(engine.Invalid, "timeZone", "%v", err)
		}
		if _, err := BusinessBySlug(ctx, tx, slug); err == nil {
			return engine.Errorf(engine.Invalid, "slug", "There is a business %q already: restore under another name (--business) or remove it first", slug)
		}
		if b, err = CreateBusiness(ctx, tx, slug, engineSettings); err != nil {
			return err
		}
		const rev = 1
		// New ids are the backup's shifted past every id in use: each id
		// column ("id", "…_id") moves by the same amount, so references
		// follow; the accepted clashes, whose keys are made of ids, are
		// accepted again below.
		var shift int64
		if newIDs {
			if shift, err = largestID(ctx, tx, db); err != nil {
				return err
			}
		}
		for _, t := range backupTables() {
			rows := newRows(t)
			table := db.Table(t.rowType())
			objects := in.Tables[table.Name]
			if newIDs && t.rowType() == reflect.TypeFor[AcceptedClash]() {
				continue
			}
			if len(objects) == 0 {
				continue
			}
			list := reflect.ValueOf(rows).Elem()
			list.Set(reflect.MakeSlice(list.Type(), len(objects), len(objects)))
			for i, obj := range objects {
				row := list.Index(i)
				for col, raw := range obj {
					f, ok := table.FieldMap[col]
					if !ok || slices.Contains(backupSkips, col) {
						return engine.Errorf(engine.Invalid, "tables", "Table %q, row %d: there is no column %q", table.Name, i+1, col)
					}
					if err := json.Unmarshal(raw, f.Value(row).Addr().Interface()); err != nil {
						return engine.Errorf(engine.Invalid, "tables", "Table %q, row %d, column %q: %v", table.Name, i+1, col, err)
					}
				}
				table.FieldMap["business_id"].Value(row).SetInt(b.ID)
				for _, f := range idColumns(table) {
					if v := f.Value(row); v.Int() != 0 {
						v.SetInt(v.Int() + shift)
					}
				}
				if v, ok := row.Addr().Interface().(revisioned); ok {
					v.setRevision(rev)
				}
			}
			if _, err := tx.NewInsert().Model(rows).Exec(ctx); err != nil {
				if !newIDs {
					return fmt.Errorf("restoring %s: %w (are its ids in use by another business in this database? restore under another name, --business, for new ids)", table.Name, err)
				}
				return fmt.Errorf("restoring %s: %w", table.Name, err)
			}
			if id, ok := table.FieldMap["id"]; ok && id.AutoIncrement && tx.Dialect().Name().String() == "pg" {
				// Rows came with their ids: move the sequence past them.
				if _, err := tx.ExecContext(ctx, fmt.Sprintf("SELECT setval(pg_get_serial_sequence('%s', 'id'), (SELECT max(id) FROM %s))", table.Name, table.Name)); err != nil {
					return fmt.Errorf("advancing the ids of %s: %w", table.Name, err)
				}
			}
		}
		b.Revision = rev
		if _, err := tx.NewUpdate().Model(b).Column("revision").WherePK().Exec(ctx); err != nil {
			return err
		}
		if _, err := tx.NewInsert().Model(&RevisionTime{BusinessID: b.ID, Revision: rev, CommittedUnix: now}).Exec(ctx); err != nil {
			return err
		}
		// What was restored must be a schedule the engine accepts.
		st, _, err := b.LoadState(ctx, tx)
		if err != nil {
			return err
		}
		if err := engine.Validate(st); err != nil {
			return err
		}
		if err := restoredEvents(ctx, tx, b, st, time.Unix(now, 0)); err != nil {
			return err
		}
		if newIDs {
			// Every clash of a stored schedule was accepted when it was
			// written: accept them again under their new keys.
			report, err := engine.Clashes(st, engine.DateOf(time.Unix(now, 0).In(engineSettings.Location)))
			if err != nil {
				return err
			}
			_, err = accept(ctx, tx, b.ID, nil, report.Clashes)
			return err
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("restoring %s: %w", slug, err)
	}
	return b, nil
}

// jsonProblem says where a file's JSON breaks: a file cut short ends early,
// anything else is wrong at a line and column (as an editor counts them,
// from 1, columns in characters), with the byte offset from 0.
func jsonProblem(data []byte, err error) string {
	var syntax *json.SyntaxError
	if !errors.As(err, &syntax) {
		return err.Error()
	}
	// Offset counts the bytes read, the wrong one last; a file cut short
	// is read to its end ("unexpected end of JSON input").
	at := min(max(syntax.Offset-1, 0), int64(len(data)))
	short := syntax.Offset >= int64(len(data)) && strings.HasSuffix(syntax.Error(), "end of JSON input")
	if short {
		at = int64(len(data))
	}
	before := data[:at]
	where := fmt.Sprintf("line %d, column %d (byte offset %d)", bytes.Count(before, []byte("\n"))+1,
		utf8.RuneCount(before[bytes.LastIndexByte(before, '\n')+1:])+1, at)
	if short {
		return "it ends early, at " + where + ", inside an unfinished value: the file may have been cut short"
	}
	return "at " + where + ": " + err.Error()
}
