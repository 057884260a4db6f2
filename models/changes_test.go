package models_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/koredyne/schedule/engine"
	"github.com/koredyne/schedule/models"
	"github.com/koredyne/schedule/models/modelstest"
)

// addOneOff writes a one-off on date d (twice over, so that it clashes
// with itself, when clash is set) and returns the write's error.
func addOneOff(store *models.Store, b *models.Business, d engine.Date, dryRun, clash bool) error {
	_, err := store.Write(context.Background(), b.ID, dryRun, func(e *models.Edit) error {
		o := engine.OneOff{ID: e.NewID(), ClassID: e.State.Classes[0].ID, RoomID: e.State.Rooms[0].ID, Date: d,
			Start: engine.MustTime("05:00"), End: engine.MustTime("05:30")}
		e.State.OneOffs = append(e.State.OneOffs, o)
		if clash {
			o.ID = e.NewID()
			e.State.OneOffs = append(e.State.OneOffs, o)
		}
		return nil
	})
	return err
}

// next waits for the next change, failing the test after a few seconds.
func next(t *testing.T, ch <-chan models.Change) models.Change {
	t.Helper()
	select {
	case c := <-ch:
		return c
	case <-time.After(5 * time.Second):
		t.Fatal("no change arrived")
		return models.Change{}
	}
}

func wantChange(t *testing.T, got models.Change, business, revision int64, from, to string) {
	t.Helper()
	want := models.Change{Business: business, Revision: revision, From: mustDate(t, from), To: mustDate(t, to)}
	if got != want {
		t.Errorf("got %+v, want %+v", got, want)
	}
}

func mustDate(t *testing.T, s string) engine.Date {
	t.Helper()
	d, err := engine.ParseDate(s)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// TestChangesInProcess subscribes to a business and writes to it in the
// same process: a committed write sends its revision and dates, a dry run
// and a refused write send nothing (the next change is the next revision),
// a reader that falls behind gets one change holding every date it missed,
// and another business's writes are not heard.
func TestChangesInProcess(t *testing.T) {
	for _, d := range modelstest.Databases(t) {
		t.Run(d.Name, func(t *testing.T) {
			store, b := demoBusiness(t, d.DB, engine.Gym)
			ch, cancel := store.Subscribe(b.ID)
			defer cancel()

			if err := addOneOff(store, b, mustDate(t, "2026-12-09"), false, false); err != nil {
				t.Fatal(err)
			}
			wantChange(t, next(t, ch), b.ID, 2, "2026-12-09", "2026-12-10")

			if err := addOneOff(store, b, mustDate(t, "2026-12-20"), true, false); err != nil {
				t.Fatal(err)
			}
			var clash *models.ClashError
			if err := addOneOff(store, b, mustDate(t, "2026-12-21"), false, true); !errors.As(err, &clash) {
				t.Fatalf("the clashing write: got %v, want a clash", err)
			}
			other := otherBusiness(t, d.DB)
			if err := addOneOff(store, other, mustDate(t, "2026-12-22"), false, false); err != nil {
				t.Fatal(err)
			}
			// Three writes unread: one change, the newest revision, every date.
			for _, day := range []string{"2026-12-15", "2026-12-03", "2026-12-11"} {
				if err := addOneOff(store, b, mustDate(t, day), false, false); err != nil {
					t.Fatal(err)
				}
			}
			wantChange(t, next(t, ch), b.ID, 5, "2026-12-03", "2026-12-16")
			select {
			case c := <-ch:
				t.Errorf("a second change arrived: %+v", c)
			default:
			}
		})
	}
}

// otherBusiness is a second business on the same database.
func otherBusiness(t *testing.T, db *models.DB) *models.Business {
	t.Helper()
	ctx := context.Background()
	b, err := models.CreateBusiness(ctx, db, "other", engine.Business{Kind: engine.Gym, Name: "Other", Currency: "KD", Location: time.UTC})
	if err != nil {
		t.Fatal(err)
	}
	store := models.NewStore(db, func() time.Time { return today })
	_, err = store.Write(ctx, b.ID, false, func(e *models.Edit) error {
		e.State.Rooms = []engine.Room{{ID: e.NewID(), Name: "Ring"}}
		e.State.Staff = []engine.Staff{{ID: e.NewID(), Name: "Marco"}}
		e.State.Activities = []engine.Activity{{ID: e.NewID(), Name: "Boxing"}}
		e.State.Classes = []engine.Class{{ID: e.NewID(), ActivityID: e.State.Activities[0].ID, StaffIDs: []int64{e.State.Staff[0].ID}}}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestChangesAcrossProcesses runs two stores on one PostgreSQL database,
// as two servers would: the one that listens hears the other's writes, and
// a store that listens too hears its own writes once.
func TestChangesAcrossProcesses(t *testing.T) {
	pg, ok := modelstest.Postgres(t)
	if !ok {
		t.Skip("needs PostgreSQL")
	}
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	a, b := demoBusiness(t, pg.DB, engine.Gym)
	dbB, err := models.Open(ctx, pg.DSN)
	if err != nil {
		t.Fatal(err)
	}
	defer dbB.Close()
	storeB := models.NewStore(dbB, func() time.Time { return today })
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	for _, s := range []*models.Store{a, storeB} {
		if err := s.Listen(ctx, pg.DSN, log); err != nil {
			t.Fatal(err)
		}
	}
	chA, cancelA := a.Subscribe(b.ID)
	defer cancelA()
	chB, cancelB := storeB.Subscribe(b.ID)
	defer cancelB()

	if err := addOneOff(a, b, mustDate(t, "2026-12-09"), false, false); err != nil {
		t.Fatal(err)
	}
	wantChange(t, next(t, chB), b.ID, 2, "2026-12-09", "2026-12-10")
	wantChange(t, next(t, chA), b.ID, 2, "2026-12-09", "2026-12-10")

	if err := addOneOff(a, b, mustDate(t, "2026-12-20"), true, false); err != nil {
		t.Fatal(err)
	}
	if err := addOneOff(storeB, b, mustDate(t, "2026-12-14"), false, false); err != nil {
		t.Fatal(err)
	}
	// Not the dry run, and not revision 2 again.
	wantChange(t, next(t, chA), b.ID, 3, "2026-12-14", "2026-12-15")
	wantChange(t, next(t, chB), b.ID, 3, "2026-12-14", "2026-12-15")
}
