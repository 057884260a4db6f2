package models_test

import (
	"context"
	"strings"
	"testing"

	"github.com/koredyne/schedule/models/modelstest"
)

// TestEveryTableIsFoundByBusiness: every table with a business_id has an
// index that finds a business's rows, so loading one business reads its
// rows only, however many businesses the database holds. With sequential
// scans turned off, PostgreSQL still plans one for a table it has no
// usable index for; the plan says so.
func TestEveryTableIsFoundByBusiness(t *testing.T) {
	d, ok := modelstest.Postgres(t)
	if !ok {
		t.Skip("PostgreSQL is not configured")
	}
	ctx := context.Background()
	var tables []string
	if err := d.DB.NewRaw(`SELECT table_name FROM information_schema.columns
		WHERE column_name = 'business_id' AND table_schema = current_schema() ORDER BY table_name`).Scan(ctx, &tables); err != nil {
		t.Fatal(err)
	}
	if len(tables) < 20 {
		t.Fatalf("only %d tables have a business_id: %v", len(tables), tables)
	}
	conn, err := d.DB.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "SET enable_seqscan = off"); err != nil {
		t.Fatal(err)
	}
	for _, table := range tables {
		rows, err := conn.QueryContext(ctx, "EXPLAIN SELECT * FROM "+table+" WHERE business_id = 1")
		if err != nil {
			t.Fatal(err)
		}
		var plan []string
		for rows.Next() {
			var line string
			rows.Scan(&line)
			plan = append(plan, line)
		}
		rows.Close()
		if p := strings.Join(plan, "\n"); strings.Contains(p, "Seq Scan") {
			t.Errorf("%s has no index on business_id:\n%s", table, p)
		}
	}
}
