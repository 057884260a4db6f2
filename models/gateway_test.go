package models_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/koredyne/schedule/engine"
	"github.com/koredyne/schedule/models"
	"github.com/koredyne/schedule/models/modelstest"
)

// TestCalendarLoginsRefusedAtOnceEverywhere runs two stores on one database,
// as two servers would (on SQLite, two handles on one file; on PostgreSQL,
// two connection pools), each having checked a login already: whatever
// takes a credential away on one, the other refuses it on the very next
// request, without being told.
func TestCalendarLoginsRefusedAtOnceEverywhere(t *testing.T) {
	for _, d := range modelstest.Databases(t) {
		t.Run(d.Name, func(t *testing.T) {
			ctx := context.Background()
			clock := func() time.Time { return today }
			a := models.NewStore(d.DB, clock)
			b := models.NewStore(modelstest.Open(t, d.DSN), clock)
			biz, err := models.CreateBusiness(ctx, d.DB, "harbor", engine.Business{Kind: engine.Gym, Name: "Harbor", Currency: "KD", Location: time.UTC})
			if err != nil {
				t.Fatal(err)
			}
			res, err := a.Write(ctx, biz.ID, false, func(e *models.Edit) error {
				e.State.Rooms = []engine.Room{{ID: e.NewID(), Name: "Ring"}}
				e.State.Staff = []engine.Staff{{ID: e.NewID(), Name: "Marco"}, {ID: e.NewID(), Name: "Lee"}}
				e.State.Activities = []engine.Activity{{ID: e.NewID(), Name: "Boxing"}}
				e.State.Classes = []engine.Class{{ID: e.NewID(), ActivityID: e.State.Activities[0].ID, StaffIDs: []int64{e.State.Staff[0].ID}}}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			lee := res.After.State.Staff[1].ID

			// signIn checks a login on b twice: the second is the remembered one.
			signIn := func(login, password string) (models.CalendarUser, error) {
				t.Helper()
				first, err1 := b.AuthenticateCalendar(ctx, login, password)
				again, err2 := b.AuthenticateCalendar(ctx, login, password)
				if !errors.Is(err1, err2) && (err1 != nil || err2 != nil) || first != again {
					t.Fatalf("%s signed in as %+v (%v), then as %+v (%v)", login, first, err1, again, err2)
				}
				return again, err2
			}
			mustSignIn := func(login, password string) models.CalendarUser {
				t.Helper()
				u, err := signIn(login, password)
				if err != nil {
					t.Fatalf("%s: %v", login, err)
				}
				return u
			}
			refused := func(what, login, password string) {
				t.Helper()
				if u, err := b.AuthenticateCalendar(ctx, login, password); !errors.Is(err, models.ErrBadToken) {
					t.Errorf("%s: the other store still signs %s in as %+v (%v)", what, login, u, err)
				}
			}

			// An app password, revoked.
			pw, app, err := models.CreateAppPassword(ctx, a.DB, biz.ID, "desk", 0, models.Manager)
			if err != nil {
				t.Fatal(err)
			}
			if u := mustSignIn("Desk", pw); u.Role != models.Manager || u.BusinessID != biz.ID || u.Revision != res.Revision {
				t.Fatalf("signed in as %+v", u)
			}
			if _, err := signIn("desk", pw+"x"); !errors.Is(err, models.ErrBadToken) {
				t.Fatalf("a wrong password: %v", err)
			}
			if err := models.RevokeAppPassword(ctx, a.DB, biz.ID, app.ID); err != nil {
				t.Fatal(err)
			}
			refused("revoking an app password", "desk", pw)

			// An API token with the business's slug, revoked by the store
			// that announces it.
			tok, row, err := models.CreateToken(ctx, a.DB, biz.ID, models.ReadOnly, "phone", "")
			if err != nil {
				t.Fatal(err)
			}
			mustSignIn("harbor", tok)
			if _, err := signIn("other", tok); !errors.Is(err, models.ErrBadToken) {
				t.Fatalf("a token under another slug: %v", err)
			}
			if _, err := a.RevokeToken(ctx, biz.ID, row.ID); err != nil {
				t.Fatal(err)
			}
			refused("revoking a token", "harbor", tok)

			// A login of a staff member who is deleted.
			pw, _, err = models.CreateAppPassword(ctx, a.DB, biz.ID, "lee", lee, models.StaffRole)
			if err != nil {
				t.Fatal(err)
			}
			if u := mustSignIn("lee", pw); u.StaffID != lee {
				t.Fatalf("signed in as %+v", u)
			}
			if _, err := a.Write(ctx, biz.ID, false, func(e *models.Edit) error {
				e.State.Staff = e.State.Staff[:1]
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			refused("deleting the staff member", "lee", pw)

			// A login whose role is lowered, and a token's, in the database
			// directly: the next request has the lower role.
			pw, app, err = models.CreateAppPassword(ctx, a.DB, biz.ID, "boss", 0, models.Manager)
			if err != nil {
				t.Fatal(err)
			}
			mustSignIn("boss", pw)
			tok, row, err = models.CreateToken(ctx, a.DB, biz.ID, models.Manager, "laptop", "")
			if err != nil {
				t.Fatal(err)
			}
			mustSignIn("harbor", tok)
			if _, err := a.DB.NewUpdate().Model((*models.AppPassword)(nil)).Set("role = ?", models.ReadOnly).Where("id = ?", app.ID).Exec(ctx); err != nil {
				t.Fatal(err)
			}
			if _, err := a.DB.NewUpdate().Model((*models.APIToken)(nil)).Set("role = ?", models.ReadOnly).Where("id = ?", row.ID).Exec(ctx); err != nil {
				t.Fatal(err)
			}
			if u, err := b.AuthenticateCalendar(ctx, "boss", pw); err != nil || u.Role != models.ReadOnly {
				t.Errorf("a login made read-only signs in as %+v (%v)", u, err)
			}
			if u, err := b.AuthenticateCalendar(ctx, "harbor", tok); err != nil || u.Role != models.ReadOnly {
				t.Errorf("a token made read-only signs in as %+v (%v)", u, err)
			}

			// A write on one store is the other's revision at the next request.
			w, err := a.Write(ctx, biz.ID, false, func(e *models.Edit) error {
				e.State.Rooms = append(e.State.Rooms, engine.Room{ID: e.NewID(), Name: "Mat"})
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if u, err := b.AuthenticateCalendar(ctx, "boss", pw); err != nil || u.Revision != w.Revision {
				t.Errorf("after a write at revision %d, signed in as %+v (%v)", w.Revision, u, err)
			}

			// A feed token rotated.
			feed, err := models.Feed(ctx, a.DB, biz.ID, "all")
			if err != nil {
				t.Fatal(err)
			}
			if _, err := b.FeedByToken(ctx, feed); err != nil {
				t.Fatal(err)
			}
			if _, err := models.RotateFeed(ctx, a.DB, biz.ID, "all"); err != nil {
				t.Fatal(err)
			}
			if f, err := b.FeedByToken(ctx, feed); !errors.Is(err, models.ErrBadToken) {
				t.Errorf("a rotated feed token still opens %+v (%v)", f, err)
			}
		})
	}
}
