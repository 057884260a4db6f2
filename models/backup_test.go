package models_test

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/koredyne/schedule/engine"
	"github.com/koredyne/schedule/models"
	"github.com/koredyne/schedule/models/modelstest"
)

// TestBackupRoundTrip backs up each demo with what is stored besides the
// rules (a capacity rule, a room booking, a session booking), restores it
// into an empty database and backs it up again: the same file, the same
// schedule with the same ids, and the same bookings.
func TestBackupRoundTrip(t *testing.T) {
	ctx := context.Background()
	for _, d := range modelstest.Databases(t) {
		t.Run(d.Name, func(t *testing.T) {
			for _, kind := range []engine.Kind{engine.Gym, engine.Clinic, engine.Office} {
				store, b := demoBusiness(t, d.DB, kind)
				addPast(t, store, b)
				if kind == engine.Gym { // a business's language and locale facts travel too
					if _, err := store.Write(ctx, b.ID, false, func(e *models.Edit) error {
						e.State.Business.Locale = engine.Locale{Language: "ar", FirstDay: 1, Clock: 24, Digits: "latn"}
						return nil
					}); err != nil {
						t.Fatal(err)
					}
				}
				first, err := models.ExportBackup(ctx, d.DB, mustBusiness(t, d.DB, b.Slug))
				if err != nil {
					t.Fatal(err)
				}

				empty := modelstest.SQLite(t)
				if d.Name == "postgres" {
					empty, _ = modelstest.Postgres(t)
				}
				restored, err := models.RestoreBackup(ctx, empty.DB, first, "", today.Unix())
				if err != nil {
					t.Fatalf("%s: %v", kind, err)
				}
				second, err := models.ExportBackup(ctx, empty.DB, restored)
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(first, second) {
					t.Errorf("%s: the backup of the restored business differs:\n%s", kind, firstDiff(string(first), string(second)))
				}
				was, err := models.NewStore(d.DB, nil).Snapshot(ctx, b.ID, -1)
				if err != nil {
					t.Fatal(err)
				}
				is, err := models.NewStore(empty.DB, nil).Snapshot(ctx, restored.ID, -1)
				if err != nil {
					t.Fatal(err)
				}
				if kind == engine.Gym && was.State.Business.Locale.Language != "ar" {
					t.Errorf("the gym's language was not stored: %+v", was.State.Business.Locale)
				}
				if was.State.Business.Locale != is.State.Business.Locale {
					t.Errorf("%s: restored the locale %+v, want %+v", kind, is.State.Business.Locale, was.State.Business.Locale)
				}
				if !sameState(was.State, is.State) {
					t.Errorf("%s: the restored schedule differs", kind)
				}
				if is.Business.Revision != 1 {
					t.Errorf("%s: restored at revision %d, want 1", kind, is.Business.Revision)
				}

				// New rows after a restore take ids past the restored ones.
				if _, err := models.NewStore(empty.DB, nil).Write(ctx, restored.ID, false, func(e *models.Edit) error {
					e.State.Rooms = append(e.State.Rooms, engine.Room{ID: e.NewID(), Name: "After the restore"})
					return nil
				}); err != nil {
					t.Fatalf("%s: a write after the restore: %v", kind, err)
				}

				// The same ids cannot be restored twice into one database
				// under the backup's own name...
				if _, err := models.RestoreBackup(ctx, empty.DB, first, "", today.Unix()); err == nil || !strings.Contains(err.Error(), "already") {
					t.Errorf("%s: restoring twice: %v", kind, err)
				}
				// ...but under another name the rows take new ids, and the
				// copy sits beside its original: the same schedule, its
				// clashes accepted as they were (a write is not refused).
				copied, err := models.RestoreBackup(ctx, d.DB, first, "copy-"+string(kind), today.Unix())
				if err != nil {
					t.Fatalf("%s: restoring beside the original: %v", kind, err)
				}
				twin, err := models.NewStore(d.DB, nil).Snapshot(ctx, copied.ID, -1)
				if err != nil {
					t.Fatal(err)
				}
				a, c := was.State.Clone(), twin.State.Clone()
				var n, m int64
				models.Renumber(&a, func() int64 { n++; return n })
				models.Renumber(&c, func() int64 { m++; return m })
				if !sameState(a, c) {
					t.Errorf("%s: the copy's schedule differs from the original's", kind)
				}
				if len(twin.State.Rooms) > 0 && twin.State.Rooms[0].ID == was.State.Rooms[0].ID {
					t.Errorf("%s: the copy kept the original's ids", kind)
				}
				if _, err := models.NewStore(d.DB, nil).Write(ctx, copied.ID, false, func(e *models.Edit) error {
					e.State.Rooms = append(e.State.Rooms, engine.Room{ID: e.NewID(), Name: "Beside the original"})
					return nil
				}); err != nil {
					t.Errorf("%s: a write to the copy: %v", kind, err)
				}
				if again, _ := models.NewStore(d.DB, nil).Snapshot(ctx, b.ID, -1); !sameState(again.State, was.State) {
					t.Errorf("%s: restoring the copy changed the original", kind)
				}
			}
		})
	}
}

// TestBackupRefusesOtherFiles: files that are not our backups, or name
// columns we do not have, write nothing.
func TestBackupRefusesOtherFiles(t *testing.T) {
	ctx := context.Background()
	d := modelstest.SQLite(t)
	for _, c := range []struct{ file, want string }{
		{`[]`, "not a backup"},
		{`{"format": "recurring-scheduler-export", "version": 1}`, "not a Koredyne backup"},
		{`{"format": "koredyne-backup", "version": 2}`, "version 2"},
		{`{"format": "koredyne-backup", "version": 1, "business": {"slug": "x", "name": "X", "kind": "gym", "currency": "KD", "timeZone": "Mars/Olympus"}}`, "Mars/Olympus"},
		{`{"format": "koredyne-backup", "version": 1, "business": {"slug": "x", "name": "X", "kind": "gym", "currency": "KD", "timeZone": "UTC"}, "tables": {"rooms": [{"id": 1, "name": "A", "colour": "red"}]}}`, `no column "colour"`},
		{`{"format": "koredyne-backup", "version": 1, "business": {"slug": "x", "name": "X", "kind": "gym", "currency": "KD", "timeZone": "UTC"}, "tables": {"lockers": []}}`, `table "lockers"`},
	} {
		_, err := models.RestoreBackup(ctx, d.DB, []byte(c.file), "", today.Unix())
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.file, err, c.want)
		}
	}
	if n, _ := d.DB.NewSelect().Table("businesses").Count(ctx); n != 0 {
		t.Errorf("%d businesses after refused restores", n)
	}
}

// addPast stores what a schedule does not hold: a capacity rule, a room
// booking and a booked session.
func addPast(t *testing.T, store *models.Store, b *models.Business) {
	t.Helper()
	ctx := context.Background()
	day := engine.DateOf(today).AddDays(3)
	var oneOff int64
	res, err := store.Write(ctx, b.ID, false, func(e *models.Edit) error {
		s := &e.State
		room, staff, activity, class := e.NewID(), e.NewID(), e.NewID(), e.NewID()
		oneOff = e.NewID()
		s.Rooms = append(s.Rooms, engine.Room{ID: room, Name: "Backup Room", Capacity: 4})
		s.Staff = append(s.Staff, engine.Staff{ID: staff, Name: "Backup Coach"})
		s.Activities = append(s.Activities, engine.Activity{ID: activity, Name: "Backup Class"})
		s.Classes = append(s.Classes, engine.Class{ID: class, ActivityID: activity, StaffIDs: []int64{staff}})
		s.Capacity = append(s.Capacity, engine.CapacityRule{ID: e.NewID(), RoomID: room, Weekdays: []time.Weekday{day.Weekday()},
			Start: engine.MustTime("08:00"), End: engine.MustTime("20:00"), Units: 4})
		s.OneOffs = append(s.OneOffs, engine.OneOff{ID: oneOff, ClassID: class, RoomID: room, Date: day,
			Start: engine.MustTime("10:00"), End: engine.MustTime("11:00"), Capacity: 5, Units: 1})
		s.RoomBookings = append(s.RoomBookings, engine.RoomBooking{ID: e.NewID(), RoomID: room, Date: day,
			Start: engine.MustTime("12:00"), End: engine.MustTime("13:00"), Units: 2, Note: "late key"})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	oneOff = res.ID(oneOff)
	if _, err := store.Write(ctx, b.ID, false, func(e *models.Edit) error {
		c, err := e.SaveClient(ctx, engine.Client{Name: "Backup Client", Email: "backup@example.com"})
		if err != nil {
			return err
		}
		for _, s := range e.Before.Timetable.Day(day) {
			if s.OneOffID == oneOff {
				_, err := e.BookSession(ctx, s, c.ID, false, today)
				return err
			}
		}
		return errors.New("no one-off to book")
	}); err != nil {
		t.Fatal(err)
	}
}

func mustBusiness(t *testing.T, db *models.DB, slug string) *models.Business {
	t.Helper()
	b, err := models.BusinessBySlug(context.Background(), db, slug)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func firstDiff(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := range min(len(al), len(bl)) {
		if al[i] != bl[i] {
			return al[i] + "\n" + bl[i]
		}
	}
	return "(one is longer)"
}

// TestBackupKeepsEveryScript: names in Arabic, Cyrillic and Turkish (with
// its dotted and dotless i) come back from a backup byte for byte, as does
// the business's language.
func TestBackupKeepsEveryScript(t *testing.T) {
	ctx := context.Background()
	names := []string{"الحلبة", "Зал бокса", "İnce ıslak Şükrü", "مدرب عمر الخالد", "Ёлка ёж", "Bağış İğne"}
	for _, d := range modelstest.Databases(t) {
		t.Run(d.Name, func(t *testing.T) {
			store, b := demoBusiness(t, d.DB, engine.Gym)
			if _, err := store.Write(ctx, b.ID, false, func(e *models.Edit) error {
				e.State.Business.Locale = engine.Locale{Language: "ar"}
				e.State.Rooms[0].Name = names[0]
				e.State.Rooms[1].Name = names[1]
				e.State.Staff[0].Name = names[2]
				e.State.Staff[1].Name = names[3]
				e.State.Activities[0].Name = names[4]
				e.State.Series[0].Name = names[5]
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			data, err := models.ExportBackup(ctx, d.DB, mustBusiness(t, d.DB, b.Slug))
			if err != nil {
				t.Fatal(err)
			}
			empty := modelstest.SQLite(t)
			if d.Name == "postgres" {
				empty, _ = modelstest.Postgres(t)
			}
			restored, err := models.RestoreBackup(ctx, empty.DB, data, "", today.Unix())
			if err != nil {
				t.Fatal(err)
			}
			is, err := models.NewStore(empty.DB, nil).Snapshot(ctx, restored.ID, -1)
			if err != nil {
				t.Fatal(err)
			}
			st := is.State
			got := []string{st.Rooms[0].Name, st.Rooms[1].Name, st.Staff[0].Name, st.Staff[1].Name, st.Activities[0].Name, st.Series[0].Name}
			for i := range names {
				if got[i] != names[i] {
					t.Errorf("restored %q, want %q", got[i], names[i])
				}
			}
			if st.Business.Locale.Language != "ar" {
				t.Errorf("restored language %q", st.Business.Locale.Language)
			}
		})
	}
}
