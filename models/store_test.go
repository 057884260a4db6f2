package models_test

import (
	"context"
	"errors"
	"reflect"
	"testing"
	"time"
	_ "time/tzdata"

	"github.com/uptrace/bun"

	"github.com/koredyne/schedule/engine"
	"github.com/koredyne/schedule/engine/demo"
	"github.com/koredyne/schedule/models"
	"github.com/koredyne/schedule/models/modelstest"
)

var today = time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)

func demoBusiness(t testing.TB, db *models.DB, kind engine.Kind) (*models.Store, *models.Business) {
	t.Helper()
	ctx := context.Background()
	st, _ := demo.ByKind(kind, engine.DateOf(today))
	b, err := models.CreateBusiness(ctx, db, "demo-"+string(kind), st.Business)
	if err != nil {
		t.Fatal(err)
	}
	store := models.NewStore(db, func() time.Time { return today })
	if _, err := store.Write(ctx, b.ID, false, func(e *models.Edit) error { e.ReplaceSchedule(st); return nil }); err != nil {
		t.Fatal(err)
	}
	return store, b
}

// TestSaveAndLoad writes each demo through the guarded write and reads it
// back: what is loaded is what was written.
func TestSaveAndLoad(t *testing.T) {
	for _, d := range modelstest.Databases(t) {
		t.Run(d.Name, func(t *testing.T) {
			ctx := context.Background()
			for _, kind := range []engine.Kind{engine.Gym, engine.Clinic, engine.Office} {
				store, b := demoBusiness(t, d.DB, kind)
				written, err := store.Snapshot(ctx, b.ID, -1)
				if err != nil {
					t.Fatal(err)
				}
				fresh := models.NewStore(d.DB, nil)
				loaded, err := fresh.Snapshot(ctx, b.ID, -1)
				if err != nil {
					t.Fatal(err)
				}
				if loaded.Business.Revision != 1 {
					t.Errorf("%s: revision %d, want 1", kind, loaded.Business.Revision)
				}
				if !sameState(written.State, loaded.State) {
					t.Errorf("%s: the state read back differs from the state written", kind)
				}
				want, _ := demo.ByKind(kind, engine.DateOf(today))
				if got := len(loaded.State.ClassTimes); got != len(want.ClassTimes) || len(loaded.State.Changes) != len(want.Changes) {
					t.Errorf("%s: %d class times and %d changes, want %d and %d", kind, got, len(loaded.State.Changes), len(want.ClassTimes), len(want.Changes))
				}
				clients, err := d.DB.NewSelect().Model((*models.Client)(nil)).Where("business_id = ?", b.ID).Count(ctx)
				if err != nil || clients != int64(len(want.Clients)) {
					t.Errorf("%s: %d clients (%v), want %d", kind, clients, err, len(want.Clients))
				}
				// The same day from the stored rows as from the demo's values.
				tt, _ := engine.New(want)
				for day := engine.DateOf(today); day < engine.DateOf(today)+14; day++ {
					if g, w := len(loaded.Timetable.Day(day)), len(tt.Day(day)); g != w {
						t.Errorf("%s %s: %d sessions, want %d", kind, day, g, w)
					}
				}
			}
		})
	}
}

func sameState(a, b engine.State) bool {
	la, lb := a.Business.Location, b.Business.Location
	a.Business.Location, b.Business.Location = nil, nil
	return la.String() == lb.String() && reflect.DeepEqual(a, b)
}

// TestGuardedWrite checks the write path's promises: bad input and clashes
// write nothing, a dry run changes nothing, an edit keeps ids.
func TestGuardedWrite(t *testing.T) {
	for _, d := range modelstest.Databases(t) {
		t.Run(d.Name, func(t *testing.T) {
			ctx := context.Background()
			store, b := demoBusiness(t, d.DB, engine.Office)
			before, _ := store.Snapshot(ctx, b.ID, -1)

			_, err := store.Write(ctx, b.ID, false, func(e *models.Edit) error {
				e.State.Rooms[0].Name = "Renamed"
				e.State.Series[0].Cycle = 0
				return nil
			})
			if engine.ErrorCode(err) != engine.Invalid {
				t.Fatalf("bad input: got %v, want a validation error", err)
			}

			// A second standup in the same room at the same time clashes.
			clash := func(e *models.Edit) error {
				e.State.Rooms[0].Name = "Renamed too"
				ct := e.State.ClassTimes[0]
				ct.ID = e.NewID()
				e.State.ClassTimes = append(e.State.ClassTimes, ct)
				e.State.Entries = append(e.State.Entries, engine.Entry{ID: e.NewID(), SeriesID: e.State.Series[1].ID, ClassTimeID: ct.ID, ClassID: e.State.Classes[1].ID, Week: 1})
				return nil
			}
			_, err = store.Write(ctx, b.ID, false, clash)
			var ce *models.ClashError
			if !errors.As(err, &ce) || engine.ErrorCode(err) != engine.Conflict || len(ce.Clashes) == 0 {
				t.Fatalf("clash: got %v", err)
			}
			res, err := store.Write(ctx, b.ID, true, clash)
			if err != nil || !res.DryRun || len(res.Clashes) == 0 || res.Revision != before.Business.Revision {
				t.Fatalf("dry run: got %+v, %v", res, err)
			}
			if n := len(res.After.State.ClassTimes); n != len(before.State.ClassTimes)+1 {
				t.Errorf("dry run shows %d class times, want %d", n, len(before.State.ClassTimes)+1)
			}

			fresh := models.NewStore(d.DB, func() time.Time { return today })
			now, err := fresh.Snapshot(ctx, b.ID, -1)
			if err != nil {
				t.Fatal(err)
			}
			if now.Business.Revision != before.Business.Revision || !sameState(now.State, before.State) {
				t.Fatalf("refused writes and a dry run changed the data (revision %d → %d)", before.Business.Revision, now.Business.Revision)
			}

			res, err = store.Write(ctx, b.ID, false, func(e *models.Edit) error {
				e.State.Rooms[0].Name = "Lobby"
				e.State.Rooms = append(e.State.Rooms, engine.Room{ID: e.NewID(), Name: "Annex", Capacity: 3})
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if res.Revision != before.Business.Revision+1 {
				t.Errorf("revision %d, want %d", res.Revision, before.Business.Revision+1)
			}
			again, _ := models.NewStore(d.DB, nil).Snapshot(ctx, b.ID, -1)
			if !sameState(again.State, res.After.State) {
				t.Error("the state after a write differs from what is read back")
			}
			if again.State.Rooms[0].ID != before.State.Rooms[0].ID || again.State.Rooms[0].Name != "Lobby" {
				t.Errorf("edited room: %+v", again.State.Rooms[0])
			}
		})
	}
}

// TestWriteThatChangesNothing: a guarded write whose edit leaves every row
// as it was — the schedule's and those outside it — keeps the revision,
// tells no subscriber, and says so to OnWrite; a write that changes a row
// moves the revision by one.
func TestWriteThatChangesNothing(t *testing.T) {
	for _, d := range modelstest.Databases(t) {
		t.Run(d.Name, func(t *testing.T) {
			ctx := context.Background()
			store, b := demoBusiness(t, d.DB, engine.Office)
			var outcomes []string
			store.OnWrite = func(o string) { outcomes = append(outcomes, o) }
			heard, stop := store.Subscribe(b.ID)
			defer stop()
			before, err := store.Snapshot(ctx, b.ID, -1)
			if err != nil {
				t.Fatal(err)
			}
			rev := before.Business.Revision
			var first engine.Client
			if err := store.Read(ctx, func(tx bun.Tx) error {
				found, err := models.SearchClients(ctx, tx, b.ID, "")
				first = found[0]
				return err
			}); err != nil {
				t.Fatal(err)
			}
			for name, fn := range map[string]func(*models.Edit) error{
				"nothing": func(*models.Edit) error { return nil },
				"a room set to itself": func(e *models.Edit) error {
					e.State.Rooms[0].Name = before.State.Rooms[0].Name
					return nil
				},
				"a client saved as it is": func(e *models.Edit) error {
					_, err := e.SaveClient(ctx, first)
					return err
				},
			} {
				for _, dry := range []bool{true, false} {
					res, err := store.Write(ctx, b.ID, dry, fn)
					if err != nil {
						t.Fatalf("%s: %v", name, err)
					}
					if res.Revision != rev || res.After.Business.Revision != rev {
						t.Errorf("%s (dry run %v): revision %d, after %d, want %d", name, dry, res.Revision, res.After.Business.Revision, rev)
					}
				}
			}
			for _, o := range outcomes {
				if o != "unchanged" {
					t.Errorf("outcomes %v, want unchanged only", outcomes)
					break
				}
			}
			select {
			case c := <-heard:
				t.Errorf("a write that changed nothing was heard: %+v", c)
			default:
			}
			first.Phone = "+1 555 0199"
			res, err := store.Write(ctx, b.ID, false, func(e *models.Edit) error { _, err := e.SaveClient(ctx, first); return err })
			if err != nil || res.Revision != rev+1 {
				t.Fatalf("a client's new phone: revision %v, %v; want %d", res, err, rev+1)
			}
		})
	}
}
