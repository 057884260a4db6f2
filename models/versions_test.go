package models_test

import (
	"context"
	"slices"
	"testing"

	"github.com/koredyne/schedule/engine"
	"github.com/koredyne/schedule/models"
	"github.com/koredyne/schedule/models/modelstest"
)

// sessionVersions is the version of every session of a snapshot over a
// window, by session key.
func sessionVersions(sn *models.Snapshot, from, to engine.Date) map[string]int64 {
	out := map[string]int64{}
	for _, d := range sn.Timetable.Days(from, to) {
		for i := range d.Sessions {
			out[d.Sessions[i].Key()] = sn.Versions.Session(sn.Timetable, &d.Sessions[i])
		}
	}
	return out
}

// TestSessionVersions checks that a write marks exactly the sessions it
// changes with its revision, and that the versions a write computes are the
// ones the database gives back.
func TestSessionVersions(t *testing.T) {
	for _, d := range modelstest.Databases(t) {
		t.Run(d.Name, func(t *testing.T) {
			ctx := context.Background()
			store, b := demoBusiness(t, d.DB, engine.Office)
			from, to := engine.DateOf(today).WeekStart(0), engine.DateOf(today).WeekStart(0)+7*10
			before, _ := store.Snapshot(ctx, b.ID, -1)
			base := sessionVersions(before, from, to)
			for k, v := range base {
				if v != 1 {
					t.Fatalf("%s: version %d after the demo load, want 1", k, v)
				}
			}

			check := func(name string, edit func(e *models.Edit) error, changed func(s *engine.Session) bool) {
				t.Helper()
				res, err := store.Write(ctx, b.ID, false, edit)
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				got := sessionVersions(res.After, from, to)
				fresh, err := models.NewStore(d.DB, nil).Snapshot(ctx, b.ID, -1)
				if err != nil {
					t.Fatal(err)
				}
				loaded := sessionVersions(fresh, from, to)
				for k, v := range got {
					if loaded[k] != v {
						t.Errorf("%s: %s is version %d after the write but %d read back", name, k, v, loaded[k])
					}
				}
				for _, day := range res.After.Timetable.Days(from, to) {
					for i := range day.Sessions {
						s := &day.Sessions[i]
						want := base[s.Key()]
						if changed(s) || want == 0 {
							want = res.Revision
						}
						if got[s.Key()] != want {
							t.Errorf("%s: %s is version %d, want %d", name, s.Key(), got[s.Key()], want)
						}
					}
				}
				base = got
			}

			standup := before.State.ClassTimes[0] // Room A, Monday standup
			check("re-time one class time", func(e *models.Edit) error {
				e.State.ClassTimes[0].End = engine.MustTime("09:20")
				return nil
			}, func(s *engine.Session) bool { return s.ClassTimeID == standup.ID })

			ref := engine.SessionRef{Date: from.AddDays(7 + int(standup.Weekday-1)), ClassTimeID: standup.ID, ClassID: before.State.Entries[0].ClassID}
			check("cancel one session", func(e *models.Edit) error {
				e.State.Changes = append(e.State.Changes, engine.DayChange{Ref: ref, Cancelled: true})
				return nil
			}, func(s *engine.Session) bool { return s.Ref() == ref })
			check("restore it", func(e *models.Edit) error {
				e.State.Changes = slices.DeleteFunc(e.State.Changes, func(c engine.DayChange) bool { return c.Ref == ref })
				return nil
			}, func(s *engine.Session) bool { return s.Ref() == ref })

			room := before.State.Rooms[0]
			check("rename a room", func(e *models.Edit) error {
				e.State.Rooms[0].Name = "Lobby"
				return nil
			}, func(s *engine.Session) bool { return s.RoomID == room.ID })

			check("close a day", func(e *models.Edit) error {
				e.State.Closures = append(e.State.Closures, engine.Closure{ID: e.NewID(), From: ref.Date, To: ref.Date, Reason: "Holiday"})
				return nil
			}, func(s *engine.Session) bool { return s.Date == ref.Date })
		})
	}
}
