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
func (s *Store) AuthenticateCalendar(ctx context.Context, login, password string) (CalendarUser, error) {
	return AuthenticateCalendar(ctx, s.DB, login, password)
}

// FeedByToken finds the calendar a feed token opens; an unknown token is
// ErrBadToken.
func (s *Store) FeedByToken(ctx context.Context, token string) (*FeedToken, error) {
	return FeedByToken(ctx, s.DB, token)
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
