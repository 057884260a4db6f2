package models_test

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/koredyne/schedule/engine"
	"github.com/koredyne/schedule/models"
	"github.com/koredyne/schedule/models/modelstest"
)

// TestTimeOffAndHoursStored writes time off and working hours through the
// guarded write and reads them back from the database with a fresh store;
// a timetable write that puts the staff member into a session they are
// away for is refused with an UnavailableError and writes nothing, unless
// the edit allows it.
func TestTimeOffAndHoursStored(t *testing.T) {
	for _, d := range modelstest.Databases(t) {
		t.Run(d.Name, func(t *testing.T) {
			ctx := context.Background()
			store, b := demoBusiness(t, d.DB, engine.Gym)
			sn, err := store.Snapshot(ctx, b.ID, -1)
			if err != nil {
				t.Fatal(err)
			}
			staff := sn.State.Classes[0].StaffIDs[0]
			from := engine.DateOf(today) + 7
			res, err := store.Write(ctx, b.ID, false, func(e *models.Edit) error {
				e.AllowNeedsCover = true
				e.State.TimeOffs = append(e.State.TimeOffs, engine.TimeOff{ID: e.NewID(), StaffID: staff, From: from, To: from + 13,
					FromTime: engine.MustTime("12:00"), Reason: "Course"})
				e.State.Hours = append(e.State.Hours, engine.WorkingHours{ID: e.NewID(), StaffID: staff, From: from + 30,
					Spans: []engine.HoursSpan{{Weekday: time.Monday, Start: engine.MustTime("06:00"), End: engine.MustTime("22:00")}}})
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.NeedsCover) == 0 {
				t.Error("the write reports no session needing cover")
			}
			// One session.needs_cover event a session, each naming it.
			want := 0
			for _, u := range res.NeedsCover {
				want += len(u.Dates(engine.DateOf(today), engine.DateOf(today).AddDays(models.SessionEventDays-1)))
			}
			got := 0
			for _, ev := range res.Events {
				if ev.Type == models.SessionNeedsCover {
					got++
					if !strings.Contains(ev.Body, `"reason":"time_off"`) && !strings.Contains(ev.Body, `"reason":"outside_hours"`) {
						t.Errorf("event %s gives no reason", ev.Body)
					}
				}
			}
			if got == 0 || got != want {
				t.Errorf("%d session.needs_cover events, want %d", got, want)
			}
			loaded, err := models.NewStore(d.DB, nil).Snapshot(ctx, b.ID, -1)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(loaded.State.TimeOffs, res.After.State.TimeOffs) || !reflect.DeepEqual(loaded.State.Hours, res.After.State.Hours) {
				t.Errorf("read back %+v %+v, wrote %+v %+v", loaded.State.TimeOffs, loaded.State.Hours, res.After.State.TimeOffs, res.After.State.Hours)
			}

			// A one-off of the staff member's class during the time off.
			class, room := sn.State.Classes[0].ID, sn.State.Rooms[0].ID
			oneOff := func(e *models.Edit) error {
				e.State.OneOffs = append(e.State.OneOffs, engine.OneOff{ID: e.NewID(), ClassID: class, RoomID: room, Date: from + 3,
					Start: engine.MustTime("05:00"), End: engine.MustTime("05:30")})
				return nil
			}
			rev := res.Revision
			var away *models.UnavailableError
			if _, err := store.Write(ctx, b.ID, false, oneOff); !errors.As(err, &away) || away.NeedsCover[0].First != from+3 {
				t.Fatalf("got %v, want an UnavailableError first on %s", err, from+3)
			}
			if sn, _ := store.Snapshot(ctx, b.ID, -1); sn.Business.Revision != rev {
				t.Errorf("a refused write moved the revision to %d", sn.Business.Revision)
			}
			if _, err := store.Write(ctx, b.ID, false, func(e *models.Edit) error { e.AllowNeedsCover = true; return oneOff(e) }); err != nil {
				t.Fatalf("allowed: %v", err)
			}
		})
	}
}
