package caldav_test

import (
	"context"
	"strings"
	"testing"

	"github.com/emersion/go-ical"

	"github.com/koredyne/schedule/engine"
	"github.com/koredyne/schedule/models"
	"github.com/koredyne/schedule/models/modelstest"
)

// TestStoredControlCharactersAreReadClean: rows written before control
// characters were refused (here straight into the table) are read without
// them, so the feeds never carry one and the business stays readable.
func TestStoredControlCharactersAreReadClean(t *testing.T) {
	for _, d := range modelstest.Databases(t) {
		t.Run(d.Name, func(t *testing.T) {
			g := newGateway(t, d, "dirty", engine.Gym, 0, 2)
			ctx := context.Background()
			sn, err := g.store.Snapshot(ctx, g.biz.ID, -1)
			if err != nil {
				t.Fatal(err)
			}
			room := sn.State.Rooms[0].ID
			if _, err := d.DB.NewUpdate().Table("rooms").Set("name = ?", "Ring\rSTATUS:CANCELLED").
				Where("id = ?", room).Exec(ctx); err != nil {
				t.Fatal(err)
			}
			if _, err := d.DB.NewUpdate().Table("businesses").Set("revision = revision + 1").Where("id = ?", g.biz.ID).Exec(ctx); err != nil {
				t.Fatal(err)
			}
			resp := get(t, g.feed(models.CalendarOf("room", room)), "")
			body := read(t, resp)
			if resp.StatusCode != 200 {
				t.Fatalf("feed: %s\n%s", resp.Status, body)
			}
			if strings.Contains(strings.ReplaceAll(body, "\r\n", ""), "\r") {
				t.Fatal("a bare CR reached the feed")
			}
			cal, err := ical.NewDecoder(strings.NewReader(body)).Decode()
			if err != nil {
				t.Fatal(err)
			}
			if len(cal.Events()) == 0 {
				t.Fatal("the room's feed is empty")
			}
			for _, ev := range cal.Events() {
				loc, _ := ev.Props.Get("LOCATION").Text()
				if loc != "Ring STATUS:CANCELLED" || len(ev.Props["STATUS"]) != 1 {
					t.Fatalf("LOCATION %q, STATUS %v", loc, ev.Props["STATUS"])
				}
			}
			// The next edit of the room stores it clean.
			g.write(func(e *models.Edit) error { e.State.Rooms[0].Capacity = 2; return nil })
			var stored string
			if err := d.DB.NewSelect().Table("rooms").Column("name").Where("id = ?", room).Scan(ctx, &stored); err != nil {
				t.Fatal(err)
			}
			if stored != "Ring STATUS:CANCELLED" {
				t.Errorf("stored after an edit: %q", stored)
			}
		})
	}
}
