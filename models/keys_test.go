package models_test

import (
	"context"
	"os"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/uptrace/bun"

	"github.com/koredyne/schedule/models"
	"github.com/koredyne/schedule/models/modelstest"
)

// This file keeps the schema ready to shard by business (docs/operations.md,
// "Sharding by business"): it reads PostgreSQL's catalog after migrating.

// globalLookups are the unique constraints that leave business_id out, each
// found by a secret or name alone, with how a sharded database serves it.
// The statements of docs/operations.md replace each of them.
var globalLookups = map[string]string{
	"api_tokens_hash_key":     "a bearer token names no business: its hash is looked up in secret_lookups",
	"app_passwords_login_key": "a CalDAV login names no business: secret_lookups keeps logins unique across businesses",
	"feed_tokens_token_key":   "a feed URL names no business: its token is looked up in secret_lookups",
}

// rowTypes are the bun row types, one per table of the schema (the test
// fails for a table with none), whose pk tags must be the table's primary
// key.
var rowTypes = []any{
	(*models.Business)(nil), (*models.APIToken)(nil), (*models.Room)(nil), (*models.Staff)(nil),
	(*models.Activity)(nil), (*models.Class)(nil), (*models.ClassStaff)(nil), (*models.ClassTime)(nil),
	(*models.Series)(nil), (*models.SeriesEntry)(nil), (*models.Plan)(nil), (*models.Client)(nil),
	(*models.Subscription)(nil), (*models.OneOff)(nil), (*models.OneOffClient)(nil),
	(*models.DayChange)(nil), (*models.DayChangeStaff)(nil), (*models.Closure)(nil),
	(*models.ClosureRoom)(nil), (*models.RevisionTime)(nil), (*models.Tombstone)(nil),
	(*models.FeedToken)(nil), (*models.AppPassword)(nil), (*models.SyncState)(nil),
	(*models.CapacityRule)(nil), (*models.RoomBooking)(nil), (*models.SessionBooking)(nil),
	(*models.StandingBooking)(nil), (*models.StandingSkip)(nil),
	(*models.AcceptedClash)(nil),
	(*models.WebhookEndpoint)(nil), (*models.WebhookEvent)(nil), (*models.WebhookDelivery)(nil), (*models.WebhookAttempt)(nil),
	(*models.TimeOff)(nil), (*models.WorkingHours)(nil), (*models.Qualification)(nil),
}

// constraint is a primary key, unique constraint or foreign key of the
// catalog, its columns in order.
type constraint struct {
	Table, Name, Kind, Def string
	Columns                []string
}

func catalog(t *testing.T, db bun.IDB) (tables []string, cons []constraint) {
	t.Helper()
	ctx := context.Background()
	if err := db.NewRaw(`SELECT c.relname FROM pg_class c
		WHERE c.relkind = 'r' AND c.relnamespace = (SELECT oid FROM pg_namespace WHERE nspname = current_schema())
		AND c.relname NOT LIKE 'bun\_%' ORDER BY 1`).Scan(ctx, &tables); err != nil {
		t.Fatal(err)
	}
	rows, err := db.QueryContext(ctx, `SELECT t.relname, c.conname, c.contype::text, pg_get_constraintdef(c.oid),
		(SELECT string_agg(a.attname, ',' ORDER BY k.i) FROM unnest(c.conkey) WITH ORDINALITY k(n, i)
			JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.n)
		FROM pg_constraint c JOIN pg_class t ON t.oid = c.conrelid
		WHERE c.contype IN ('p', 'u', 'f') AND t.relnamespace = (SELECT oid FROM pg_namespace WHERE nspname = current_schema())
		AND t.relname NOT LIKE 'bun\_%' ORDER BY 1, 2`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var c constraint
		var cols string
		if err := rows.Scan(&c.Table, &c.Name, &c.Kind, &c.Def, &cols); err != nil {
			t.Fatal(err)
		}
		c.Columns = strings.Split(cols, ",")
		cons = append(cons, c)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return tables, cons
}

// TestKeysCarryTheBusiness: every table but businesses has a primary key
// that begins with business_id, every foreign key begins with it (so no
// reference crosses businesses or shards), every unique constraint holds it
// but the global lookups, and the bun row types' pk tags are the primary
// keys.
func TestKeysCarryTheBusiness(t *testing.T) {
	d, ok := modelstest.Postgres(t)
	if !ok {
		t.Skip("needs PostgreSQL")
	}
	tables, cons := catalog(t, d.DB)
	pks := map[string][]string{}
	for _, c := range cons {
		switch c.Kind {
		case "p":
			pks[c.Table] = c.Columns
		case "f":
			if c.Table != "businesses" && c.Columns[0] != "business_id" {
				t.Errorf("%s: foreign key %s does not begin with business_id: %s", c.Table, c.Name, c.Def)
			}
		case "u":
			if _, ok := globalLookups[c.Name]; !ok && c.Table != "businesses" && !slices.Contains(c.Columns, "business_id") {
				t.Errorf("%s: unique constraint %s lacks business_id (a sharded database cannot enforce it): %s", c.Table, c.Name, c.Def)
			}
		}
	}
	for name := range globalLookups {
		if !slices.ContainsFunc(cons, func(c constraint) bool { return c.Name == name }) {
			t.Errorf("global lookup %s is no longer in the schema: take it out of globalLookups and docs/operations.md", name)
		}
	}
	bunPKs := map[string][]string{}
	for _, m := range rowTypes {
		table := d.DB.Table(reflect.TypeOf(m).Elem())
		bunPKs[table.Name] = []string{}
		for _, f := range table.PKs {
			bunPKs[table.Name] = append(bunPKs[table.Name], f.Name)
		}
	}
	for _, table := range tables {
		pk, ok := pks[table]
		switch {
		case !ok:
			t.Errorf("%s has no primary key", table)
		case table == "businesses":
			if !slices.Equal(pk, []string{"id"}) {
				t.Errorf("businesses: primary key %v, want (id)", pk)
			}
		case pk[0] != "business_id":
			t.Errorf("%s: primary key %v does not begin with business_id", table, pk)
		}
		bun, ok := bunPKs[table]
		if !ok {
			t.Errorf("%s has no row type in rowTypes", table)
			continue
		}
		slices.Sort(bun)
		pk = slices.Sorted(slices.Values(pk))
		if !slices.Equal(bun, pk) {
			t.Errorf("%s: the row type's pk tags are %v, the table's primary key %v", table, bun, pk)
		}
	}
}

var (
	distributedPattern = regexp.MustCompile(`create_distributed_table\('(\w+)', 'business_id'(?:, colocate_with => '(\w+)')?\)`)
	referencePattern   = regexp.MustCompile(`create_reference_table\('(\w+)'\)`)
	dropPattern        = regexp.MustCompile(`(?i)ALTER TABLE (\w+) DROP CONSTRAINT (\w+)`)
)

// TestShardingStatements checks the statements of docs/operations.md for distributing
// the schema with Citus against the catalog: Citus is not packaged for
// Debian 12, so the test cannot run them, only their preconditions. Every
// table is distributed by business_id, colocated with businesses' first
// distributed table, or a reference table; a distributed table's primary
// key and unique constraints hold business_id (the global lookups are
// dropped first); its foreign keys to another distributed table include
// business_id and those to a reference table are allowed; a reference
// table refers to no distributed table.
func TestShardingStatements(t *testing.T) {
	d, ok := modelstest.Postgres(t)
	if !ok {
		t.Skip("needs PostgreSQL")
	}
	readme, err := os.ReadFile("../docs/operations.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, found := strings.Cut(string(readme), "### Sharding by business")
	if !found {
		t.Fatal(`docs/operations.md has no "Sharding by business" section`)
	}
	section, _, _ = strings.Cut(section, "\n#")
	tables, cons := catalog(t, d.DB)
	distributed, reference := map[string]bool{}, map[string]bool{}
	first := ""
	for _, m := range distributedPattern.FindAllStringSubmatch(section, -1) {
		switch {
		case first == "":
			first = m[1]
			if m[2] != "" {
				t.Errorf("the first distributed table %s is colocated with %s", m[1], m[2])
			}
		case m[2] != first:
			t.Errorf("%s is colocated with %q, want %s (every business's rows on one node)", m[1], m[2], first)
		}
		distributed[m[1]] = true
	}
	for _, m := range referencePattern.FindAllStringSubmatch(section, -1) {
		reference[m[1]] = true
	}
	dropped := map[string]bool{}
	for _, m := range dropPattern.FindAllStringSubmatch(section, -1) {
		dropped[m[2]] = true
	}
	for name := range globalLookups {
		if !dropped[name] {
			t.Errorf("docs/operations.md's statements do not drop the global lookup %s", name)
		}
	}
	for _, table := range tables {
		if distributed[table] == reference[table] {
			t.Errorf("%s is distributed: %v, a reference table: %v; want exactly one", table, distributed[table], reference[table])
		}
	}
	if !reference["businesses"] {
		t.Error("businesses is not a reference table")
	}
	for _, c := range cons {
		switch {
		case distributed[c.Table] && (c.Kind == "p" || c.Kind == "u") && !dropped[c.Name]:
			if !slices.Contains(c.Columns, "business_id") {
				t.Errorf("%s of distributed table %s lacks business_id", c.Name, c.Table)
			}
		case distributed[c.Table] && c.Kind == "f":
			target := referenced(c.Def)
			if distributed[target] && !strings.Contains(c.Def, "(business_id,") {
				t.Errorf("%s: foreign key between distributed tables without business_id: %s", c.Table, c.Def)
			}
		case reference[c.Table] && c.Kind == "f":
			if distributed[referenced(c.Def)] {
				t.Errorf("reference table %s refers to distributed table: %s", c.Table, c.Def)
			}
		}
	}
}

// referenced is the table a foreign key's definition references.
func referenced(def string) string {
	_, after, _ := strings.Cut(def, "REFERENCES ")
	name, _, _ := strings.Cut(after, "(")
	if i := strings.LastIndex(name, "."); i >= 0 {
		name = name[i+1:]
	}
	return strings.TrimSpace(name)
}
