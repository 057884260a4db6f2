package models

import (
	"context"

	"github.com/koredyne/schedule/engine"
)

// The methods below are what the calendar gateway (caldav.Backend) and the
// timetable page (page.Backend) ask of the store; each is the package
// function of the same name on the store's database and clock.

// AuthenticateCalendar checks HTTP Basic credentials (see the function
// AuthenticateCalendar); unknown ones are ErrBadToken.
// It reads a replica when one may serve it (see Store.Authenticate).
func (s *Store) AuthenticateCalendar(ctx context.Context, login, password string) (CalendarUser, error) {
	var u CalendarUser
	err := s.lagging(ctx, func(db *DB) error {
		var err error
		if u, err = AuthenticateCalendar(ctx, db, login, password); err == nil && db != s.DB && u.Revision < s.replicas.floor(ctx, u.BusinessID) {
			return errBehind
		}
		return err
	})
	return u, err
}

// FeedByToken finds the calendar a feed token opens; an unknown token is
// ErrBadToken.
// It reads a replica when one may serve it: a token the replica does not
// know yet is asked of the primary.
func (s *Store) FeedByToken(ctx context.Context, token string) (*FeedToken, error) {
	var f *FeedToken
	err := s.lagging(ctx, func(db *DB) error {
		var err error
		f, err = FeedByToken(ctx, db, token)
		return err
	})
	return f, err
}

// SaveSync stores the items behind a sync token of a calendar, stamped with
// the store's clock.
func (s *Store) SaveSync(ctx context.Context, business int64, calendar, token string, items map[string]string) error {
	return SaveSync(ctx, s.DB, business, calendar, token, items, s.now())
}

// LoadSync returns the items behind a sync token of a calendar, or false
// when the token is unknown or expired.
func (s *Store) LoadSync(ctx context.Context, business int64, calendar, token string) (map[string]string, bool, error) {
	return LoadSync(ctx, s.DB, business, calendar, token)
}

// NewSnapshot compiles a schedule held in memory, for readers that are
// given one rather than reading it from a database (a gateway's tests).
// No revision of it is known to have written any part, so its sessions
// carry no last-modified time.
func NewSnapshot(b Business, s engine.State) (*Snapshot, error) {
	return newSnapshot(b, s, newVersions(), nil)
}
