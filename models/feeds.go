package models

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/uptrace/bun"

	"github.com/koredyne/schedule/engine"
)

// CalendarOf names a published calendar: "all" for the whole business
// (kind ""), "staff-12", "room-3". The names are stable across renames.
func CalendarOf(kind string, id int64) string {
	if kind == "" {
		return "all"
	}
	return kind + "-" + strconv.FormatInt(id, 10)
}

// TimetablePage is the "calendar" whose feed token opens the business's
// public timetable page.
const TimetablePage = "timetable"

// FeedToken is the secret in the plain .ics URL of one calendar of a
// business ("all", "staff-12", "room-3").
type FeedToken struct {
	bun.BaseModel `bun:"table:feed_tokens"`

	BusinessID int64  `bun:",pk"`
	Calendar   string `bun:",pk"`
	Token      string
}

func randomSecret() string {
	b := make([]byte, 24)
	if _, err := rand.Read(b); err != nil {
		panic(err) // crypto/rand does not fail on supported systems
	}
	return base64.RawURLEncoding.EncodeToString(b)
}

// Feed returns the feed token of a calendar, making one the first time it
// is asked for.
func Feed(ctx context.Context, db bun.IDB, business int64, calendar string) (string, error) {
	row := &FeedToken{BusinessID: business, Calendar: calendar, Token: randomSecret()}
	if _, err := db.NewInsert().Model(row).On("CONFLICT (business_id, calendar) DO NOTHING").Exec(ctx); err != nil {
		return "", fmt.Errorf("making a feed token: %w", err)
	}
	if err := db.NewSelect().Model(row).WherePK().Scan(ctx); err != nil {
		return "", fmt.Errorf("reading a feed token: %w", err)
	}
	return row.Token, nil
}

// RotateFeed gives a calendar a new feed token; the old URL stops working.
func RotateFeed(ctx context.Context, db bun.IDB, business int64, calendar string) (string, error) {
	row := &FeedToken{BusinessID: business, Calendar: calendar, Token: randomSecret()}
	if _, err := db.NewInsert().Model(row).On("CONFLICT (business_id, calendar) DO UPDATE").Set("token = EXCLUDED.token").Exec(ctx); err != nil {
		return "", fmt.Errorf("rotating a feed token: %w", err)
	}
	return row.Token, nil
}

// FeedByToken finds the calendar a feed token opens.
func FeedByToken(ctx context.Context, db bun.IDB, token string) (*FeedToken, error) {
	if !lookable(token) {
		return nil, ErrBadToken
	}
	row := new(FeedToken)
	err := db.NewSelect().Model(row).Where("token = ?", token).Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, ErrBadToken
	}
	if err != nil {
		return nil, fmt.Errorf("finding a feed: %w", err)
	}
	return row, nil
}

// AppPassword is a CalDAV login. Tied to a staff member with the staff role
// it opens only that member's calendar.
type AppPassword struct {
	bun.BaseModel `bun:"table:app_passwords"`

	ID         int64 `bun:",pk,autoincrement"`
	BusinessID int64 `bun:",pk"`
	Login      string
	StaffID    int64 `bun:",nullzero"`
	Role       Role
	Hash       string
}

// CreateAppPassword stores a login and returns its password, shown once.
func CreateAppPassword(ctx context.Context, db bun.IDB, business int64, login string, staff int64, role Role) (string, *AppPassword, error) {
	login = strings.TrimSpace(login)
	if !slugPattern.MatchString(strings.ToLower(login)) || strings.ContainsAny(login, ":/") {
		return "", nil, engine.Errorf(engine.Invalid, "login", "%q is not a usable login: use letters, digits and dashes", login)
	}
	password := randomSecret()
	row := &AppPassword{BusinessID: business, Login: strings.ToLower(login), StaffID: staff, Role: role, Hash: HashToken(password)}
	if _, err := db.NewInsert().Model(row).Returning("id").Exec(ctx); err != nil {
		if strings.Contains(strings.ToLower(err.Error()), "unique") {
			return "", nil, engine.Errorf(engine.Invalid, "login", "The login %q is taken", login)
		}
		return "", nil, fmt.Errorf("storing an app password: %w", err)
	}
	return password, row, nil
}

// RevokeAppPassword deletes a login of a business.
func RevokeAppPassword(ctx context.Context, db bun.IDB, business, id int64) error {
	res, err := db.NewDelete().Model((*AppPassword)(nil)).Where("business_id = ?", business).Where("id = ?", id).Exec(ctx)
	if err != nil {
		return fmt.Errorf("revoking an app password: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return engine.Errorf(engine.NotFound, "id", "There is no app password with id %d", id)
	}
	return nil
}

// CalendarUser is who a CalDAV request acts as.
type CalendarUser struct {
	Principal
	Login   string
	StaffID int64 // set: only this staff member's calendar, unless the role reads more

	app int64 // the app password signed in with; 0: an API token (Principal.TokenID)
}

// AuthenticateCalendar checks HTTP Basic credentials: the user name is the
// business slug with one of its API tokens or app passwords, or a staff
// login with its app password.
func AuthenticateCalendar(ctx context.Context, db bun.IDB, user, password string) (CalendarUser, error) {
	return authenticateCalendar(ctx, db, strings.ToLower(strings.TrimSpace(user)), HashToken(password))
}

// authenticateCalendar is AuthenticateCalendar for a login already
// trimmed and lowered, with the hash of its password.
func authenticateCalendar(ctx context.Context, db bun.IDB, user, hash string) (CalendarUser, error) {
	if !lookable(user) {
		return CalendarUser{}, ErrBadToken
	}
	var app AppPassword
	err := db.NewSelect().Model(&app).Where("login = ?", user).Where("hash = ?", hash).Scan(ctx)
	if err == nil {
		var rev int64
		if err := db.NewSelect().Model((*Business)(nil)).Column("revision").Where("id = ?", app.BusinessID).Scan(ctx, &rev); err != nil {
			return CalendarUser{}, fmt.Errorf("reading a revision: %w", err)
		}
		return CalendarUser{Principal: Principal{BusinessID: app.BusinessID, Role: app.Role, Revision: rev}, Login: user, StaffID: app.StaffID, app: app.ID}, nil
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return CalendarUser{}, fmt.Errorf("checking an app password: %w", err)
	}
	var p Principal
	var slug string
	err = db.NewSelect().TableExpr("api_tokens AS t").
		Join("JOIN businesses AS b ON b.id = t.business_id").
		ColumnExpr("t.business_id, t.role, t.id, coalesce(t.client_id, 0), coalesce(t.staff_id, 0), b.revision, b.slug").
		Where("t.hash = ?", hash).
		Scan(ctx, &p.BusinessID, &p.Role, &p.TokenID, &p.ClientID, &p.StaffID, &p.Revision, &slug)
	if errors.Is(err, sql.ErrNoRows) {
		return CalendarUser{}, ErrBadToken
	}
	if err != nil {
		return CalendarUser{}, fmt.Errorf("checking a token: %w", err)
	}
	if slug != user {
		return CalendarUser{}, ErrBadToken // a token of one business never opens another
	}
	return CalendarUser{Principal: p, Login: user}, nil
}

// stillValid reads the revision of the business of a user signed in
// before, in one look-up by primary key that finds nothing once the
// credential is revoked, rotated, deleted with its staff member, or holds
// other rights than it did (its role, its staff member or client): then
// ok is false and the credentials are checked afresh.
func stillValid(ctx context.Context, db bun.IDB, u *CalendarUser, hash string) (rev int64, ok bool, err error) {
	var q *bun.SelectQuery
	if u.app != 0 {
		q = db.NewSelect().TableExpr("app_passwords AS a").
			Join("JOIN businesses AS b ON b.id = a.business_id").
			ColumnExpr("b.revision").
			Where("a.id = ?", u.app).Where("a.hash = ?", hash).Where("a.login = ?", u.Login).
			Where("a.business_id = ?", u.BusinessID).Where("a.role = ?", u.Role).
			Where("coalesce(a.staff_id, 0) = ?", u.StaffID)
	} else {
		q = db.NewSelect().TableExpr("api_tokens AS t").
			Join("JOIN businesses AS b ON b.id = t.business_id").
			ColumnExpr("b.revision").
			Where("t.id = ?", u.TokenID).Where("t.hash = ?", hash).Where("b.slug = ?", u.Login).
			Where("t.business_id = ?", u.BusinessID).Where("t.role = ?", u.Role).
			Where("coalesce(t.client_id, 0) = ?", u.ClientID).Where("coalesce(t.staff_id, 0) = ?", u.Principal.StaffID)
	}
	err = q.Scan(ctx, &rev)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, fmt.Errorf("checking a login again: %w", err)
	}
	return rev, true, nil
}

// SyncState is what a calendar held when a sync token was handed out.
type SyncState struct {
	bun.BaseModel `bun:"table:sync_states"`

	Token       string `bun:",pk"`
	BusinessID  int64  `bun:",pk"`
	Calendar    string
	CreatedUnix int64
	Items       string // JSON: href → ETag
}

// KeepSyncTokens is how many sync tokens each calendar keeps; an older one
// is answered as expired and the client syncs afresh.
const KeepSyncTokens = 50

// SaveSync stores the items behind a sync token (once) and forgets the
// oldest tokens of the calendar beyond KeepSyncTokens.
func SaveSync(ctx context.Context, db bun.IDB, business int64, calendar, token string, items map[string]string, now time.Time) error {
	data, err := json.Marshal(items)
	if err != nil {
		return err
	}
	row := &SyncState{Token: token, BusinessID: business, Calendar: calendar, CreatedUnix: now.Unix(), Items: string(data)}
	res, err := db.NewInsert().Model(row).On("CONFLICT (business_id, token) DO NOTHING").Exec(ctx)
	if err != nil {
		return fmt.Errorf("storing a sync token: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return nil
	}
	old := db.NewSelect().Model((*SyncState)(nil)).Column("token").
		Where("business_id = ?", business).Where("calendar = ?", calendar).
		OrderExpr("created_unix DESC, token DESC").Limit(1 << 30).Offset(KeepSyncTokens)
	if _, err := db.NewDelete().Model((*SyncState)(nil)).Where("business_id = ?", business).Where("token IN (?)", old).Exec(ctx); err != nil {
		return fmt.Errorf("forgetting old sync tokens: %w", err)
	}
	return nil
}

// LoadSync returns the items behind a sync token of a calendar, or false
// when the token is unknown or expired.
func LoadSync(ctx context.Context, db bun.IDB, business int64, calendar, token string) (map[string]string, bool, error) {
	if !lookable(token) {
		return nil, false, nil
	}
	row := new(SyncState)
	err := db.NewSelect().Model(row).Where("token = ?", token).Where("business_id = ?", business).Where("calendar = ?", calendar).Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("reading a sync token: %w", err)
	}
	var items map[string]string
	if err := json.Unmarshal([]byte(row.Items), &items); err != nil {
		return nil, false, fmt.Errorf("reading a sync token: %w", err)
	}
	return items, true, nil
}

// AppPasswords lists the CalDAV logins of a business (never their secrets).
func AppPasswords(ctx context.Context, db bun.IDB, business int64) ([]AppPassword, error) {
	var out []AppPassword
	if err := db.NewSelect().Model(&out).Where("business_id = ?", business).OrderExpr("id").Scan(ctx); err != nil {
		return nil, fmt.Errorf("listing app passwords: %w", err)
	}
	return out, nil
}

// lookable reports whether a key from a request (a feed token, a login, a
// sync token) could be stored at all: valid UTF-8 without control
// characters, of a sane length. Anything else matches nothing, so it is
// answered as unknown without asking the database, which cannot take a
// NUL in a statement.
func lookable(key string) bool {
	return len(key) <= 1024 && (engine.Text{Max: 1024}).Problem("", key) == ""
}
