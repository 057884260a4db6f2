package models

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/koredyne/schedule/engine"
)

// notBusinessData are the row types that are not a business's own data, so
// in no entry of tables, each with the reason. A new row type goes either
// into tables or here.
var notBusinessData = map[string]string{
	"Business":     "the tenant itself: its settings are the header of a backup and of every state",
	"APIToken":     "a secret: a restored business gets new tokens",
	"FeedToken":    "a secret: a restored business gets new feed URLs",
	"AppPassword":  "a secret: a restored business gets new app passwords",
	"RevisionTime": "bookkeeping of revisions, which a restore starts afresh",
	"Tombstone":    "bookkeeping of revisions, which a restore starts afresh",
	"SyncState":    "calendar sync bookkeeping, which a restore starts afresh",
	// Webhooks: endpoints hold a secret; events, deliveries and attempts
	// are the sending's own, kept 30 days (docs/webhooks.md).
	"WebhookEndpoint": "a secret: a restored business registers its endpoints again",
	"WebhookEvent":    "the outbox of sent events, which a restore writes afresh (schedule.changed, client.created)",
	"WebhookDelivery": "the outbox's queues",
	"WebhookAttempt":  "the delivery log",
}

// TestEveryStateListIsStored: every list of engine.State, found by
// reflection, is filled by exactly one table, so that saving, loading, id
// rewriting and backups all know it.
func TestEveryStateListIsStored(t *testing.T) {
	var s engine.State
	v := reflect.ValueOf(&s).Elem()
	owner := map[uintptr]int{}
	for i, tb := range tables {
		if l := tb.list(&s); l != nil {
			owner[reflect.ValueOf(l).Pointer()]++
			if reflect.TypeOf(l).Elem().Kind() != reflect.Slice {
				t.Errorf("table %d (%s) fills a %T, not a list", i, tb.rowType().Name(), l)
			}
		}
	}
	for i := range v.NumField() {
		f := v.Field(i)
		if f.Kind() != reflect.Slice {
			continue
		}
		if n := owner[f.Addr().Pointer()]; n != 1 {
			t.Errorf("engine.State.%s is filled by %d tables, want 1: add it to tables (models/tables.go)", v.Type().Field(i).Name, n)
		}
	}
}

// TestEveryRowTypeIsListed: every bun row type declared in this package is
// a table (or a child table) of tables, or in notBusinessData with a
// reason, and never both.
func TestEveryRowTypeIsListed(t *testing.T) {
	declared := bunRowTypes(t)
	registered := map[string]bool{}
	for _, tb := range backupTables() {
		name := tb.rowType().Name()
		if registered[name] {
			t.Errorf("%s is in tables twice", name)
		}
		registered[name] = true
	}
	for _, name := range declared {
		_, apart := notBusinessData[name]
		switch {
		case registered[name] && apart:
			t.Errorf("%s is both in tables and in notBusinessData", name)
		case !registered[name] && !apart:
			t.Errorf("the row type %s is in no list: add it to tables (models/tables.go) or, if it is not a business's data, to notBusinessData with the reason", name)
		}
	}
	for name := range registered {
		if !slices.Contains(declared, name) {
			t.Errorf("%s is in tables but declares no bun.BaseModel", name)
		}
	}
	for name := range notBusinessData {
		if !slices.Contains(declared, name) {
			t.Errorf("notBusinessData names %s, which is no row type of models", name)
		}
	}
}

// bunRowTypes returns the struct types of this package that embed
// bun.BaseModel, read from its source.
func bunRowTypes(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			ts, ok := n.(*ast.TypeSpec)
			if !ok {
				return true
			}
			st, ok := ts.Type.(*ast.StructType)
			if !ok {
				return false
			}
			for _, field := range st.Fields.List {
				if sel, ok := field.Type.(*ast.SelectorExpr); ok && len(field.Names) == 0 && sel.Sel.Name == "BaseModel" {
					out = append(out, ts.Name.Name)
				}
			}
			return false
		})
	}
	if len(out) < len(notBusinessData) {
		t.Fatalf("found only the row types %v in the source", out)
	}
	return out
}

// TestTablesInOrderOfReferences: a table comes after every table its rows
// (and its children's rows) refer to, since saving inserts in the order of
// tables. Each table is given one value whose ids are all different; the
// id a table's own rows carry is the value's ID field.
func TestTablesInOrderOfReferences(t *testing.T) {
	owner := map[Table]int{} // the position of the table that holds each kind of id
	refs := make([][]Table, len(tables))
	for i, tb := range tables {
		var s engine.State
		l := tb.list(&s)
		if l == nil {
			continue
		}
		list := reflect.ValueOf(l).Elem()
		list.Set(reflect.MakeSlice(list.Type(), 1, 1))
		n := int64(0)
		distinct(list.Index(0), &n)
		own := int64(-1)
		if id := list.Index(0).FieldByName("ID"); id.IsValid() {
			own = id.Int()
		}
		tb.remap(&s, func(k Table, id int64) int64 {
			if id == own {
				if o, dup := owner[k]; dup {
					t.Errorf("tables %d and %d both hold ids of kind %d", o, i, k)
				}
				owner[k] = i
			} else {
				refs[i] = append(refs[i], k)
			}
			return id
		})
	}
	for i, ks := range refs {
		for _, k := range ks {
			o, ok := owner[k]
			switch {
			case !ok:
				t.Errorf("%s refers to ids of kind %d, which no table holds", tables[i].rowType().Name(), k)
			case o >= i:
				t.Errorf("%s refers to %s, which comes after it in tables: move it after", tables[i].rowType().Name(), tables[o].rowType().Name())
			}
		}
	}
}

// distinct sets every number in v to a new value.
func distinct(v reflect.Value, n *int64) {
	switch v.Kind() {
	case reflect.Struct:
		for i := range v.NumField() {
			distinct(v.Field(i), n)
		}
	case reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 2, 2))
		distinct(v.Index(0), n)
		distinct(v.Index(1), n)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		*n++
		v.SetInt(*n)
	}
}
