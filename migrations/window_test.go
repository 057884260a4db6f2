package migrations_test

import (
	"context"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/koredyne/schedule/engine"
	"github.com/koredyne/schedule/engine/demo"
	"github.com/koredyne/schedule/models"
	"github.com/koredyne/schedule/models/modelstest"
)

// TestDateWindowMigration writes, behind the engine's back, the far-future
// rows a database could hold from before the date window (a closure and a
// capacity rule to 9999-12-31, a rule that starts in 3000): the business
// no longer loads. The migration's statements make it load again with the
// same sessions.
func TestDateWindowMigration(t *testing.T) {
	for _, d := range modelstest.Databases(t) {
		t.Run(d.Name, func(t *testing.T) {
			ctx := context.Background()
			now := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
			st := demo.Gym(engine.DateOf(now))
			b, err := models.CreateBusiness(ctx, d.DB, "gym", st.Business)
			if err != nil {
				t.Fatal(err)
			}
			store := models.NewStore(d.DB, func() time.Time { return now })
			if _, err := store.Write(ctx, b.ID, false, func(e *models.Edit) error {
				e.ReplaceSchedule(st)
				e.State.Closures = append(e.State.Closures, engine.Closure{ID: e.NewID(), From: engine.MustDate(2031, 1, 1), To: engine.MaxDate, Reason: "far"})
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			want, err := store.Snapshot(ctx, b.ID, -1)
			if err != nil {
				t.Fatal(err)
			}
			room := want.State.Rooms[0].ID
			for _, q := range []string{
				"UPDATE closures SET to_date = '9999-12-31' WHERE to_date = '2199-12-31'",
				"INSERT INTO capacity_rules (business_id, room_id, from_date, to_date, start_minute, end_minute, units, revision) VALUES (?, ?, '3000-01-01', '9999-12-31', 0, 1440, 1, 1)",
			} {
				if _, err := d.DB.ExecContext(ctx, q, b.ID, room); err != nil {
					t.Fatalf("%s: %v", q, err)
				}
			}
			fresh := models.NewStore(d.DB, func() time.Time { return now })
			if _, err := fresh.Snapshot(ctx, b.ID, -1); err == nil {
				t.Fatal("a business holding 9999-12-31 loaded")
			}
			sql, err := os.ReadFile(d.Name + "/20261212000201_date_window.tx.up.sql")
			if err != nil {
				t.Fatal(err)
			}
			for _, q := range strings.Split(string(sql), "--bun:split") {
				if _, err := d.DB.ExecContext(ctx, q); err != nil {
					t.Fatalf("%s: %v", q, err)
				}
			}
			got, err := models.NewStore(d.DB, func() time.Time { return now }).Snapshot(ctx, b.ID, -1)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.EqualFunc(got.State.Closures, want.State.Closures, func(a, b engine.Closure) bool { return a.From == b.From && a.To == b.To }) ||
				len(got.State.Capacity) != len(want.State.Capacity) {
				t.Fatalf("closures %+v, capacity %+v; want %+v, %+v", got.State.Closures, got.State.Capacity, want.State.Closures, want.State.Capacity)
			}
		})
	}
}
