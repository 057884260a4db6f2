package models_test

import (
	"context"
	"errors"
	"testing"

	"github.com/koredyne/schedule/engine"
	"github.com/koredyne/schedule/models"
	"github.com/koredyne/schedule/models/modelstest"
)

// TestAcceptedClashes: a write that accepts its clashes keeps them as
// pre-existing; they never block an unrelated write, survive a reload, and
// a write that turns one into a different clash is refused.
func TestAcceptedClashes(t *testing.T) {
	ctx := context.Background()
	for _, d := range modelstest.Databases(t) {
		t.Run(d.Name, func(t *testing.T) {
			store, b := demoBusiness(t, d.DB, engine.Office)
			// A second standup in Room A at the same time, every weekday.
			double := func(e *models.Edit, start string) {
				s := &e.State
				var standup engine.ClassTime
				for _, ct := range s.ClassTimes {
					if ct.Label == "Daily standup" && ct.Weekday == 2 {
						standup = ct
					}
				}
				ct := standup
				ct.ID, ct.Label, ct.Start = e.NewID(), "Second standup", engine.MustTime(start)
				s.ClassTimes = append(s.ClassTimes, ct)
				for _, en := range s.Entries {
					if en.ClassTimeID == standup.ID {
						en.ID, en.ClassTimeID = e.NewID(), ct.ID
						s.Entries = append(s.Entries, en)
						break
					}
				}
			}
			_, err := store.Write(ctx, b.ID, false, func(e *models.Edit) error { double(e, "09:00"); return nil })
			var ce *models.ClashError
			if !errors.As(err, &ce) {
				t.Fatalf("without accepting: %v, want a clash", err)
			}
			res, err := store.Write(ctx, b.ID, false, func(e *models.Edit) error { e.AcceptClashes = true; double(e, "09:00"); return nil })
			if err != nil || len(res.Clashes) == 0 {
				t.Fatalf("accepting: %v, %d clashes", err, len(res.Clashes))
			}

			// A fresh process reads them back as pre-existing.
			sn, err := models.NewStore(d.DB, nil).Snapshot(ctx, b.ID, -1)
			if err != nil {
				t.Fatal(err)
			}
			report := sn.Clashes(engine.DateOf(today))
			if len(report.Clashes) != len(res.Clashes) {
				t.Fatalf("%d clashes stored, %d accepted", len(report.Clashes), len(res.Clashes))
			}
			for _, c := range report.Clashes {
				if !sn.PreExisting(&c) {
					t.Errorf("not flagged as pre-existing: %s", c.Message)
				}
			}

			// An unrelated write goes through.
			if _, err := store.Write(ctx, b.ID, false, func(e *models.Edit) error {
				e.State.Rooms = append(e.State.Rooms, engine.Room{ID: e.NewID(), Name: "Phone booth"})
				return nil
			}); err != nil {
				t.Fatalf("an unrelated write: %v", err)
			}
			second := func(e *models.Edit) *engine.ClassTime {
				for i := range e.State.ClassTimes {
					if e.State.ClassTimes[i].Label == "Second standup" {
						return &e.State.ClassTimes[i]
					}
				}
				t.Fatal("no second standup")
				return nil
			}
			// Moving the second standup five minutes makes a clash that was
			// not there: refused.
			_, err = store.Write(ctx, b.ID, false, func(e *models.Edit) error { second(e).Start = engine.MustTime("09:05"); return nil })
			if !errors.As(err, &ce) {
				t.Errorf("a write that changes an accepted clash: %v, want CLASH", err)
			}
			// Resolving it is always fine.
			if _, err := store.Write(ctx, b.ID, false, func(e *models.Edit) error {
				second(e).Start = engine.MustTime("10:00")
				second(e).End = engine.MustTime("10:15")
				return nil
			}); err != nil {
				t.Errorf("moving the second standup out of the way: %v", err)
			}
		})
	}
}
