package models

import (
	"context"
	"errors"
	"strings"
	"sync"

	"github.com/koredyne/schedule/engine"
)

// The methods below are what the calendar gateway (caldav.Backend) and the
// timetable page (page.Backend) ask of the store; each is the package
// function of the same name on the store's database and clock.

// AuthenticateCalendar checks HTTP Basic credentials (see the function
// AuthenticateCalendar); unknown ones are ErrBadToken.
// It reads a replica when one may serve it (see Store.Authenticate).
//
// Credentials checked once are remembered by login and the hash of the
// password (never the password), so that a calendar app's next request
// costs one look-up by primary key, which also reads the revision, instead
// of searching the app passwords, the tokens and the business. That
// look-up is made on every request, on the database every process shares:
// a credential revoked, rotated, deleted with its staff member or given
// other rights, by this process or another, is refused from the very next
// request, exactly as when every request searched for it.
func (s *Store) AuthenticateCalendar(ctx context.Context, login, password string) (CalendarUser, error) {
	login = strings.ToLower(strings.TrimSpace(login))
	key := loginKey{login: login, hash: HashToken(password)}
	if u, ok := s.logins.get(key); ok {
		var rev int64
		var valid bool
		err := s.lagging(ctx, func(db *DB) error {
			var err error
			rev, valid, err = stillValid(ctx, db, &u, key.hash)
			switch {
			case err != nil:
				return err
			case !valid && db != s.DB:
				return ErrBadToken // a replica that does not know it yet: the primary has the last word
			case db != s.DB && rev < s.replicas.floor(ctx, u.BusinessID):
				return errBehind
			}
			return nil
		})
		if err != nil && !errors.Is(err, ErrBadToken) {
			return CalendarUser{}, err
		}
		if err == nil && valid {
			u.Revision = rev
			return u, nil
		}
		s.logins.forget(key)
	}
	var u CalendarUser
	err := s.lagging(ctx, func(db *DB) error {
		var err error
		if u, err = authenticateCalendar(ctx, db, login, key.hash); err == nil && db != s.DB && u.Revision < s.replicas.floor(ctx, u.BusinessID) {
			return errBehind
		}
		return err
	})
	if err == nil {
		s.logins.put(key, u)
	}
	return u, err
}

// loginKey is a login and the hash of the password it signed in with.
type loginKey struct{ login, hash string }

// logins are the calendar credentials a store has checked, to be checked
// again by primary key (see Store.AuthenticateCalendar).
type logins struct {
	mu sync.Mutex
	m  map[loginKey]CalendarUser
}

// maxLogins bounds the credentials remembered; past it they are forgotten
// all at once and checked afresh, one search each.
const maxLogins = 10000

func (l *logins) get(k loginKey) (CalendarUser, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	u, ok := l.m[k]
	return u, ok
}

func (l *logins) put(k loginKey, u CalendarUser) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.m == nil || len(l.m) >= maxLogins {
		l.m = make(map[loginKey]CalendarUser)
	}
	l.m[k] = u
}

func (l *logins) forget(k loginKey) {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.m, k)
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
