package graph

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/vektah/gqlparser/v2/ast"

	"github.com/koredyne/schedule/engine"
	"github.com/koredyne/schedule/graph/generated"
)

// TestEveryListHasABound walks the schema: every list field (the payloads'
// and introspection's too) must have a bound of its own, not the fallback
// that prices an unknown list like the longest the business has.
func TestEveryListHasABound(t *testing.T) {
	schema := generated.NewExecutableSchema(generated.Config{}).Schema()
	const fallback = 987654321
	w := &costWalk{ctx: context.Background(), c: &costLimit{schema: schemaBounds(schema)},
		counts: &counts{largest: fallback, clientsCounted: true}}
	lists := 0
	for name, def := range schema.Types {
		if def.Kind != ast.Object {
			continue
		}
		for _, f := range def.Fields {
			if f.Type.Elem == nil || strings.HasPrefix(f.Name, "__") {
				continue
			}
			lists++
			b := w.bound(&ast.Field{Name: f.Name, Alias: f.Name, Definition: f, ObjectDefinition: def})
			if b.each == fallback {
				t.Errorf("%s.%s has no bound", name, f.Name)
			}
			if b.each < 0 {
				t.Errorf("%s.%s: bound %+v", name, f.Name, b)
			}
		}
	}
	if lists < 40 {
		t.Errorf("only %d lists found", lists)
	}
}

// TestCountsOfADay: the most sessions one date can hold counts a class
// shared by several series once, and adds the most moves onto one date and
// the most one-offs of one date.
func TestCountsOfADay(t *testing.T) {
	d := func(s string) engine.Date {
		v, err := engine.ParseDate(s)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	st := engine.State{
		ClassTimes: []engine.ClassTime{{ID: 1, Weekday: time.Monday}, {ID: 2, Weekday: time.Monday}, {ID: 3, Weekday: time.Friday}},
		Classes:    []engine.Class{{ID: 1, StaffIDs: []int64{1}}, {ID: 2, StaffIDs: []int64{1, 2, 3}}},
		Entries: []engine.Entry{
			{SeriesID: 1, ClassTimeID: 1, ClassID: 1}, {SeriesID: 2, ClassTimeID: 1, ClassID: 1}, // one session, two series
			{SeriesID: 1, ClassTimeID: 2, ClassID: 2}, {SeriesID: 1, ClassTimeID: 3, ClassID: 1},
		},
		Changes: []engine.DayChange{
			{Ref: engine.SessionRef{Date: d("2026-12-07"), ClassTimeID: 1, ClassID: 1}, Date: d("2026-12-09")},
			{Ref: engine.SessionRef{Date: d("2026-12-14"), ClassTimeID: 1, ClassID: 1}, Date: d("2026-12-09")},
			{Ref: engine.SessionRef{Date: d("2026-12-21"), ClassTimeID: 1, ClassID: 1}, Cancelled: true},
		},
		OneOffs: []engine.OneOff{{Date: d("2026-12-10")}, {Date: d("2026-12-10")}, {Date: d("2026-12-10"), ClientIDs: []int64{1, 2}}, {Date: d("2026-12-11")}},
	}
	k := countsOf(&st)
	if k.perDay != 2+2+3 || k.seriesPerSession != 2 || k.entriesPerSeries != 3 || k.staffPerSession != 3 || k.clientsPerOneOff != 2 || k.oneOffClients != 2 {
		t.Errorf("got %+v", *k)
	}
	if add(costCeiling, 1) != costCeiling || mul(costCeiling, 2) != costCeiling || mul(0, costCeiling) != 0 {
		t.Error("cost arithmetic does not saturate")
	}
}
