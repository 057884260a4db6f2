package models_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/koredyne/schedule/engine"
	"github.com/koredyne/schedule/engine/enginetest"
	"github.com/koredyne/schedule/models"
	"github.com/koredyne/schedule/models/modelstest"
)

// TestTryIsTheWritesVerdict refuses a move of a gym class time onto a busy
// slot, and from inside the refusal tries moving it to every hour of its
// day in every room. Each answer is held to the write itself: the dry run
// of the same edit adds no clash and is not refused exactly when Try said
// yes. The refusal still refuses and changes nothing.
func TestTryIsTheWritesVerdict(t *testing.T) {
	for _, d := range modelstest.Databases(t) {
		t.Run(d.Name, func(t *testing.T) {
			ctx := context.Background()
			store, b := demoBusiness(t, d.DB, engine.Gym)
			sn, err := store.Snapshot(ctx, b.ID, -1)
			if err != nil {
				t.Fatal(err)
			}
			// A class time with sessions, moved onto another's slot in
			// the other's room.
			used := map[int64]bool{}
			for _, en := range sn.State.Entries {
				used[en.ClassTimeID] = true
			}
			var moved, onto engine.ClassTime
			for _, ct := range sn.State.ClassTimes {
				if !used[ct.ID] || ct.Inactive {
					continue
				}
				if moved.ID == 0 {
					moved = ct
				} else if ct.RoomID != moved.RoomID || ct.Weekday != moved.Weekday || ct.Start != moved.Start {
					onto = ct
					break
				}
			}
			move := func(room int64, wd time.Weekday, start, end engine.LocalTime) func(*models.Edit) error {
				return func(e *models.Edit) error {
					for i := range e.State.ClassTimes {
						if ct := &e.State.ClassTimes[i]; ct.ID == moved.ID {
							ct.RoomID, ct.Weekday, ct.Start, ct.End = room, wd, start, end
						}
					}
					return nil
				}
			}
			type candidate struct {
				room  int64
				start engine.LocalTime
			}
			var cands []candidate
			length := int(moved.End - moved.Start)
			for _, r := range sn.State.Rooms {
				for h := 6; h+length/60 <= 22; h++ {
					cands = append(cands, candidate{r.ID, engine.MustTime(fmt.Sprintf("%02d:00", h))})
				}
			}
			answers := map[candidate]bool{}
			refusedEdit := move(onto.RoomID, onto.Weekday, onto.Start, onto.Start+moved.End-moved.Start)
			called := 0
			_, err = store.Write(ctx, b.ID, false, func(e *models.Edit) error {
				e.Refused = func(_ error, try models.Try) {
					called++
					for _, c := range cands {
						answers[c] = try(move(c.room, onto.Weekday, c.start, c.start+moved.End-moved.Start))
					}
				}
				return refusedEdit(e)
			})
			var clash *models.ClashError
			var away *models.UnavailableError
			if !errors.As(err, &clash) && !errors.As(err, &away) {
				t.Fatalf("moving %+v onto %+v: got %v, want a refusal", moved, onto, err)
			}
			if called != 1 {
				t.Fatalf("Refused called %d times, want once", called)
			}
			yes := 0
			for _, c := range cands {
				res, err := store.Write(ctx, b.ID, true, move(c.room, onto.Weekday, c.start, c.start+moved.End-moved.Start))
				want := err == nil && len(res.Clashes) == 0
				if answers[c] != want {
					t.Errorf("room %d at %s: Try said %v, the write's dry run %v (%v)", c.room, c.start, answers[c], want, err)
				}
				if want {
					yes++
				}
			}
			if yes == 0 || yes == len(cands) {
				t.Errorf("%d of %d moves succeed: the test proves nothing", yes, len(cands))
			}
			after, err := store.Snapshot(ctx, b.ID, -1)
			if err != nil {
				t.Fatal(err)
			}
			if after.Business.Revision != sn.Business.Revision {
				t.Errorf("revision %d after the refusal and dry runs, want %d", after.Business.Revision, sn.Business.Revision)
			}
		})
	}
}

// BenchmarkTry is one trial of a refused write: a class time moved onto
// another of its room is refused, and moving it a quarter hour on instead
// is judged by the write's verdict in memory; on the gym demo and on
// generated businesses of 1,000 and 10,000 class times. A refusal's
// suggestions cost at most maxTrials (graph) of these more than the
// refusal.
func BenchmarkTry(b *testing.B) {
	for _, size := range []int{0, 1000, 10000} {
		name := "gym"
		if size > 0 {
			name = fmt.Sprint(size)
		}
		b.Run(name, func(b *testing.B) {
			ctx := context.Background()
			db := modelstest.SQLite(b).DB
			var store *models.Store
			var biz *models.Business
			if size == 0 {
				store, biz = demoBusiness(b, db, engine.Gym)
			} else {
				st := enginetest.Business(enginetest.Options{ClassTimes: size, Seed: 1, Today: engine.DateOf(today)})
				var err error
				if biz, err = models.CreateBusiness(ctx, db, "scale", st.Business); err != nil {
					b.Fatal(err)
				}
				store = models.NewStore(db, func() time.Time { return today })
				if _, err := store.Write(ctx, biz.ID, false, func(e *models.Edit) error { e.ReplaceSchedule(st); return nil }); err != nil {
					b.Fatal(err)
				}
			}
			benchmarkTry(b, store, biz)
		})
	}
}

func benchmarkTry(b *testing.B, store *models.Store, biz *models.Business) {
	ctx := context.Background()
	sn, err := store.Snapshot(ctx, biz.ID, -1)
	if err != nil {
		b.Fatal(err)
	}
	used := map[int64]bool{}
	for _, en := range sn.State.Entries {
		used[en.ClassTimeID] = true
	}
	var moved, onto engine.ClassTime
	for _, ct := range sn.State.ClassTimes {
		switch {
		case !used[ct.ID] || ct.Inactive:
		case moved.ID == 0:
			moved = ct
		case onto.ID == 0 && ct.RoomID == moved.RoomID && ct.Weekday == moved.Weekday && ct.Start != moved.Start:
			onto = ct
		}
	}
	move := func(start engine.LocalTime) func(*models.Edit) error {
		return func(e *models.Edit) error {
			for i := range e.State.ClassTimes {
				if ct := &e.State.ClassTimes[i]; ct.ID == moved.ID {
					ct.Start, ct.End = start, start+moved.End-moved.Start
				}
			}
			return nil
		}
	}
	ran := false
	_, err = store.Write(ctx, biz.ID, false, func(e *models.Edit) error {
		e.Refused = func(_ error, try models.Try) {
			ran = true
			for b.Loop() {
				try(move(onto.Start + 15))
			}
		}
		return move(onto.Start)(e)
	})
	if err == nil || !ran {
		b.Fatalf("the move onto %s was not refused: %v", onto.Start, err)
	}
}
