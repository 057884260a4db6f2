package models

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"database/sql"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"

	"github.com/uptrace/bun"

	"github.com/koredyne/schedule/engine"
)

// Role is what a token may do.
type Role string

const (
	Owner      Role = "owner"      // everything, including tokens
	Manager    Role = "manager"    // everything but tokens
	FrontDesk  Role = "front_desk" // day changes, one-offs, clients, subscriptions
	StaffRole  Role = "staff"      // reads; with a staff member, who is booked into their sessions
	ReadOnly   Role = "read_only"  // reads
	ClientRole Role = "client"     // the schedule, and booking for one client, who sees no other
)

// Roles lists every role, most powerful first.
var Roles = []Role{Owner, Manager, FrontDesk, StaffRole, ReadOnly, ClientRole}

// ParseRole reads a role name ("front_desk" or "front-desk").
func ParseRole(s string) (Role, error) {
	r := Role(strings.ReplaceAll(strings.ToLower(s), "-", "_"))
	for _, known := range Roles {
		if r == known {
			return r, nil
		}
	}
	return "", fmt.Errorf("%q is not a role: use owner, manager, front_desk, staff, read_only or client", s)
}

// Permission is a kind of access a request needs.
type Permission int

const (
	Read         Permission = iota // read the schedule and clients
	EditDays                       // day changes and one-offs
	EditClients                    // clients and subscriptions
	EditSchedule                   // everything else that is written
	ManageTokens                   // create and revoke tokens
)

// Can reports whether the role grants p.
func (r Role) Can(p Permission) bool {
	switch r {
	case Owner:
		return true
	case Manager:
		return p != ManageTokens
	case FrontDesk:
		return p == Read || p == EditDays || p == EditClients
	case StaffRole, ReadOnly, ClientRole:
		return p == Read
	}
	return false
}

// Principal is who a request acts as: a token of one business.
type Principal struct {
	BusinessID int64
	Role       Role
	TokenID    int64
	// ClientID and StaffID, when set, are the client or staff member the
	// token acts for.
	ClientID int64
	StaffID  int64
	// Revision is the business's revision when the token was checked, so a
	// request can pick its snapshot without asking again.
	Revision int64
}

// ErrBadToken means the token is unknown or revoked.
var ErrBadToken = errors.New("unknown or revoked token")

// NewToken returns a fresh random token and the hash that is stored.
func NewToken() (token, hash string) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		panic(err) // crypto/rand does not fail on supported systems
	}
	token = "kd_" + base64.RawURLEncoding.EncodeToString(b)
	return token, HashToken(token)
}

// HashToken returns the stored form of a token.
func HashToken(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

// CreateToken stores a token for a business and returns it; the token itself
// is shown once and never stored. If token is empty a random one is made.
func CreateToken(ctx context.Context, db bun.IDB, businessID int64, role Role, name, token string) (string, *APIToken, error) {
	return CreateScopedToken(ctx, db, businessID, role, name, token, 0, 0)
}

// CreateScopedToken is CreateToken for a token that acts for one client or
// one staff member.
func CreateScopedToken(ctx context.Context, db bun.IDB, businessID int64, role Role, name, token string, client, staff int64) (string, *APIToken, error) {
	if err := engine.NameText.Check("name", "The name of a token", name); err != nil {
		return "", nil, err
	}
	hash := HashToken(token)
	if token == "" {
		token, hash = NewToken()
	}
	row := &APIToken{BusinessID: businessID, Role: role, Name: name, Hash: hash, ClientID: client, StaffID: staff}
	if _, err := db.NewInsert().Model(row).Returning("id").Exec(ctx); err != nil {
		return "", nil, fmt.Errorf("storing the token: %w", err)
	}
	return token, row, nil
}

// Authenticate finds the business and role of a token, and the business's
// current revision, in one query.
func Authenticate(ctx context.Context, db bun.IDB, token string) (Principal, error) {
	return authenticate(ctx, db, HashToken(token))
}

// authenticate is Authenticate for the token's hash.
func authenticate(ctx context.Context, db bun.IDB, hash string) (Principal, error) {
	var p Principal
	dest := []any{&p.BusinessID, &p.Role, &p.TokenID, &p.ClientID, &p.StaffID, &p.Revision}
	var err error
	if st := preparedAuth(ctx, db); st != nil {
		err = st.QueryRowContext(ctx, hash).Scan(dest...)
	} else {
		err = db.NewSelect().TableExpr("api_tokens AS t").
			Join("JOIN businesses AS b ON b.id = t.business_id").
			ColumnExpr("t.business_id, t.role, t.id, coalesce(t.client_id, 0), coalesce(t.staff_id, 0), b.revision").
			Where("t.hash = ?", hash).
			Scan(ctx, dest...)
	}
	if errors.Is(err, sql.ErrNoRows) {
		return Principal{}, ErrBadToken
	}
	if err != nil {
		return Principal{}, fmt.Errorf("checking a token: %w", err)
	}
	return p, nil
}

// authQuery is Authenticate's query as a statement SQLite prepares once.
const authQuery = `SELECT t.business_id, t.role, t.id, coalesce(t.client_id, 0), coalesce(t.staff_id, 0), b.revision
FROM api_tokens AS t JOIN businesses AS b ON b.id = t.business_id WHERE t.hash = ?`

// preparedAuth is authQuery prepared on db when db is a SQLite database
// (not a transaction), else nil.
func preparedAuth(ctx context.Context, db bun.IDB) *sql.Stmt {
	d, ok := db.(*DB)
	if !ok {
		return nil
	}
	st, err := d.prepared(ctx, authQuery)
	if err != nil {
		return nil // bun's query says what is wrong
	}
	return st
}

// Tokens lists the tokens of a business (never their secrets).
func Tokens(ctx context.Context, db bun.IDB, businessID int64) ([]APIToken, error) {
	var out []APIToken
	if err := db.NewSelect().Model(&out).Where("business_id = ?", businessID).OrderExpr("id").Scan(ctx); err != nil {
		return nil, fmt.Errorf("listing tokens: %w", err)
	}
	return out, nil
}

// RevokeToken deletes a token of a business.
func RevokeToken(ctx context.Context, db bun.IDB, businessID, id int64) (*APIToken, error) {
	t := new(APIToken)
	err := db.NewSelect().Model(t).Where("business_id = ?", businessID).Where("id = ?", id).Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, engine.Errorf(engine.NotFound, "id", "There is no token with id %d", id)
	}
	if err != nil {
		return nil, fmt.Errorf("finding the token: %w", err)
	}
	if _, err := db.NewDelete().Model(t).WherePK().Exec(ctx); err != nil {
		return nil, fmt.Errorf("revoking the token: %w", err)
	}
	return t, nil
}
