package models

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/uptrace/bun"

	"github.com/koredyne/schedule/engine"
)

var slugPattern = regexp.MustCompile(`^[a-z0-9][a-z0-9-]{0,62}$`)

// CheckSlug refuses a name no business can have (CreateBusiness does), so
// that a dry run refuses what the real run would. It suggests one that
// would do.
func CheckSlug(slug string) error {
	if slugPattern.MatchString(slug) {
		return nil
	}
	msg := fmt.Sprintf("%q is not a usable name for a business: use lower-case letters, digits and dashes", slug)
	if s := suggestSlug(slug); slugPattern.MatchString(s) {
		msg += fmt.Sprintf(" (such as %q)", s)
	}
	return engine.Errorf(engine.Invalid, "slug", "%s", msg)
}

// suggestSlug is slug in lower case, its runs of other characters made
// one dash.
func suggestSlug(slug string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(slug) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			b.WriteRune(r)
			dash = false
		} else {
			dash = true
		}
	}
	return b.String()
}

// CreateBusiness adds a tenant with the given settings and no schedule.
func CreateBusiness(ctx context.Context, db bun.IDB, slug string, settings engine.Business) (*Business, error) {
	if err := CheckSlug(slug); err != nil {
		return nil, err
	}
	if err := engine.Validate(engine.State{Business: settings}); err != nil {
		return nil, err
	}
	b := &Business{Slug: slug, CursorKey: randomKey()}
	b.SetSettings(settings)
	if _, err := db.NewInsert().Model(b).Returning("id").Exec(ctx); err != nil {
		return nil, fmt.Errorf("creating business %s: %w", slug, err)
	}
	return b, nil
}

// randomKey is a new secret of 256 bits, as hex.
func randomKey() string {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		panic(err) // crypto/rand does not fail on supported systems
	}
	return hex.EncodeToString(b)
}

// BusinessBySlug finds a business by its slug.
func BusinessBySlug(ctx context.Context, db bun.IDB, slug string) (*Business, error) {
	if !slugPattern.MatchString(slug) {
		return nil, engine.Errorf(engine.NotFound, "slug", "there is no business %q", slug)
	}
	b := new(Business)
	err := db.NewSelect().Model(b).Where("slug = ?", slug).Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, engine.Errorf(engine.NotFound, "slug", "there is no business %q", slug)
	}
	if err != nil {
		return nil, fmt.Errorf("finding business %s: %w", slug, err)
	}
	return b, nil
}

// AnyBusiness reports whether the database holds a business at all (an
// empty one is seeded on a server's first start).
func AnyBusiness(ctx context.Context, db bun.IDB) (bool, error) {
	found, err := db.NewSelect().Model((*Business)(nil)).Exists(ctx)
	if err != nil {
		return false, fmt.Errorf("looking for a business: %w", err)
	}
	return found, nil
}

// TakeBackBusiness removes a business that CreateBusiness just made and no
// write has committed to (revision 0), such as one made for an import
// that was then refused. A business that holds anything is left alone.
func TakeBackBusiness(ctx context.Context, db bun.IDB, id int64) error {
	if _, err := db.NewDelete().Model((*Business)(nil)).Where("id = ?", id).Where("revision = 0").Exec(ctx); err != nil {
		return fmt.Errorf("taking back business %d: %w", id, err)
	}
	return nil
}

// ReplaceSchedule makes s the whole data of the edited business, with its
// settings: every row of s, its clients and subscriptions included, is
// written as new, and everything the business had is removed (demos,
// imports, clearing the data).
func (e *Edit) ReplaceSchedule(s engine.State) {
	s = s.Clone()
	clientIDs := map[int64]int64{} // temporary to real; SaveState does not see clients
	Renumber(&s, e.NewID)
	clients, subs := s.Clients, s.Subscriptions
	attendees := map[int64][]int64{}
	for i := range s.OneOffs {
		if o := &s.OneOffs[i]; len(o.ClientIDs) > 0 {
			attendees[o.ID], o.ClientIDs = o.ClientIDs, nil
		}
	}
	s.Clients, s.Subscriptions = nil, nil
	e.State = s
	e.replaced = true
	b := e.Business.ID
	if len(clients) > 0 {
		e.changedApart = true
	}
	e.AfterSave(func(ctx context.Context, id func(int64) int64) error {
		res, err := e.Tx.NewDelete().Model((*Client)(nil)).Where("business_id = ?", b).Exec(ctx)
		if err != nil {
			return fmt.Errorf("removing clients: %w", err)
		}
		e.clients = nil
		if n, err := res.RowsAffected(); err != nil || n > 0 {
			e.changedApart = true
		}
		for _, c := range clients {
			row := &Client{BusinessID: b, Name: c.Name, Email: c.Email, Phone: c.Phone}
			if _, err := e.Tx.NewInsert().Model(row).Returning("id").Exec(ctx); err != nil {
				return fmt.Errorf("adding a client: %w", err)
			}
			clientIDs[c.ID] = row.ID
			e.noteClient(row.ID)
		}
		for _, sub := range subs {
			row := &Subscription{BusinessID: b, ClientID: clientIDs[sub.ClientID], SeriesID: id(sub.SeriesID), PlanID: id(sub.PlanID),
				StartDate: Day(sub.Start), EndDate: Day(sub.End)}
			if _, err := e.Tx.NewInsert().Model(row).Exec(ctx); err != nil {
				return fmt.Errorf("adding a subscription: %w", err)
			}
		}
		for o, cs := range attendees {
			for _, c := range cs {
				row := &OneOffClient{BusinessID: b, OneOffID: id(o), ClientID: clientIDs[c]}
				if _, err := e.Tx.NewInsert().Model(row).Exec(ctx); err != nil {
					return fmt.Errorf("adding a client to a one-off: %w", err)
				}
			}
		}
		return nil
	})
}
