package graph

import (
	"context"

	"github.com/koredyne/schedule/graph/model"
	"github.com/koredyne/schedule/models"
)

// The access code's lists and lookups (access.graphqls,
// access.resolvers.go). Tokens and CalDAV logins live outside the guarded
// schedule, so they are read from the database, uncached, and written
// through aside.

func tokenID(t *models.APIToken) int64          { return t.ID }
func appPasswordID(p *models.AppPassword) int64 { return p.ID }

// Tokens and logins page oldest first: in id order.
func tokenKey(t *models.APIToken) string          { return idKey(t.ID) }
func appPasswordKey(p *models.AppPassword) string { return idKey(p.ID) }

// tokens lists the business's API tokens, for an owner.
func (r *Resolver) tokens(ctx context.Context) ([]models.APIToken, error) {
	if err := can(ctx, models.ManageTokens); err != nil {
		return nil, err
	}
	noCache(ctx) // tokens change outside the guarded write
	return models.Tokens(ctx, r.Store.DB, principal(ctx).BusinessID)
}

// appPasswords lists the business's CalDAV logins, for those who edit.
func (r *Resolver) appPasswords(ctx context.Context) ([]models.AppPassword, error) {
	if err := can(ctx, models.EditSchedule); err != nil {
		return nil, err
	}
	noCache(ctx)
	return models.AppPasswords(ctx, r.Store.DB, principal(ctx).BusinessID)
}

// token and appPassword look one up by id; another business's id is as
// unknown as one that never was.
func (r *Resolver) token(ctx context.Context, id int64) (*models.APIToken, error) {
	list, err := r.tokens(ctx)
	if err != nil {
		return nil, err
	}
	return row(list, id, tokenID, "token")
}

func (r *Resolver) appPassword(ctx context.Context, id int64) (*models.AppPassword, error) {
	list, err := r.appPasswords(ctx)
	if err != nil {
		return nil, err
	}
	return row(list, id, appPasswordID, "app password")
}

// shown is a secret made by a write, which only a real write shows.
func shown(res *models.Result, secret string) *string {
	if res.DryRun {
		return nil
	}
	return &secret
}

// createToken and createAppPassword take their input as input, as every
// create mutation does; for one release they also take the loose arguments
// they took before (deprecated): one way or the other, not both.

// tokenInput is createToken's input, given whole or loose.
func tokenInput(in *model.CreateTokenInput, role *models.Role, name *string, clientID, staffID *int64) (model.CreateTokenInput, error) {
	switch loose := role != nil || name != nil || clientID != nil || staffID != nil; {
	case in != nil && loose:
		return model.CreateTokenInput{}, badInput("input", "Give the token as input only, not the loose arguments role, name, clientId and staffId beside it")
	case in != nil:
		return *in, nil
	case role == nil:
		return model.CreateTokenInput{}, badInput("input", "Give the token to make as input: {role: …}")
	}
	return model.CreateTokenInput{Role: *role, Name: name, ClientID: clientID, StaffID: staffID}, nil
}

// appPasswordInput is createAppPassword's input, given whole or loose.
func appPasswordInput(in *model.CreateAppPasswordInput, login *string, role *models.Role, staffID *int64) (model.CreateAppPasswordInput, error) {
	switch loose := login != nil || role != nil || staffID != nil; {
	case in != nil && loose:
		return model.CreateAppPasswordInput{}, badInput("input", "Give the login as input only, not the loose arguments login, role and staffId beside it")
	case in != nil:
		return *in, nil
	case login == nil || role == nil:
		return model.CreateAppPasswordInput{}, badInput("input", "Give the login to make as input: {login: …, role: …}")
	}
	return model.CreateAppPasswordInput{Login: *login, Role: *role, StaffID: staffID}, nil
}
