package graph

import (
	"context"

	"github.com/99designs/gqlgen/graphql"

	"github.com/koredyne/schedule/graph/model"
	"github.com/koredyne/schedule/models"
)

// write runs fn through the guarded write for the request's business, after
// checking the role, and makes the rest of the request read its result.
func (r *Resolver) write(ctx context.Context, need models.Permission, dryRun *bool, fn func(*models.Edit) error) (*models.Result, error) {
	if err := can(ctx, need); err != nil {
		return nil, err
	}
	return r.writeAs(ctx, dryRun, fn)
}

// writeAs is write for callers that check access themselves (a client
// token books for itself).
func (r *Resolver) writeAs(ctx context.Context, dryRun *bool, fn func(*models.Edit) error) (*models.Result, error) {
	if requestFrom(ctx) == nil {
		return nil, errUnauthenticated
	}
	res, err := r.Store.Write(ctx, principal(ctx).BusinessID, dryRun != nil && *dryRun, fn)
	if err != nil {
		return nil, err
	}
	use(ctx, res.After)
	remember(ctx, res)
	return res, nil
}

// row finds the row with id in a table of the edited state.
func row[T any](list []T, id int64, key func(*T) int64, what string) (*T, error) {
	for i := range list {
		if key(&list[i]) == id {
			return &list[i], nil
		}
	}
	return nil, notFound(what, id)
}

func set[T any](dst *T, v *T) {
	if v != nil {
		*dst = *v
	}
}

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}

// remove and removeWith run a deletion and answer with the id.
func (r *Resolver) remove(ctx context.Context, id int64, dryRun *bool, fn func(*models.Edit) error) (*model.DeletePayload, error) {
	return r.removeWith(ctx, models.EditSchedule, id, dryRun, fn)
}

func (r *Resolver) removeWith(ctx context.Context, need models.Permission, id int64, dryRun *bool, fn func(*models.Edit) error) (*model.DeletePayload, error) {
	res, err := r.write(ctx, need, dryRun, fn)
	if err != nil {
		return nil, err
	}
	return &model.DeletePayload{DryRun: res.DryRun, Revision: int(res.Revision), Clashes: res.Clashes, ID: id}, nil
}

// written runs a write of one row — fn adds or edits it and returns its
// id — and answers with the row as the rest of the request reads it, under
// its real id when the write made it.
func written[T any](ctx context.Context, r *Resolver, dryRun *bool, fn func(*models.Edit) (int64, error), get func(context.Context, int64) (*T, error)) (*models.Result, *T, error) {
	var id int64
	res, err := r.write(ctx, models.EditSchedule, dryRun, func(e *models.Edit) (err error) {
		id, err = fn(e)
		return err
	})
	if err != nil {
		return nil, nil, err
	}
	v, err := get(ctx, res.ID(id))
	return res, v, err
}

// edit applies an update to the row with id in a table of the edited state.
func edit[T any](list []T, id int64, key func(*T) int64, what string, apply func(*T) error) (int64, error) {
	p, err := row(list, id, key, what)
	if err != nil {
		return 0, err
	}
	return id, apply(p)
}

// The update rule of every UpdateXInput: a field left out keeps its value;
// a field set to null clears it where it can be empty (clearable), and is
// refused with BAD_USER_INPUT naming it where it cannot (keep, given,
// givenList). Such fields are @goField(omittable: true), so Go tells the two
// apart.

// given reads an update field that cannot be empty: nil when left out, the
// value when set, and an error when set to null.
func given[T any](v graphql.Omittable[*T], field string) (*T, error) {
	if p, ok := v.ValueOK(); ok && p == nil {
		return nil, cannotClear(field)
	}
	return v.Value(), nil
}

// keep applies an update field that cannot be empty.
func keep[T any](dst *T, v graphql.Omittable[*T], field string) error {
	p, err := given(v, field)
	set(dst, p)
	return err
}

// givenList is given for a list, which null never clears: [] empties it
// where it can be empty.
func givenList[T any](v graphql.Omittable[[]T], field string) ([]T, bool, error) {
	l, ok := v.ValueOK()
	if ok && l == nil {
		return nil, false, badInput(field, "%s is a list, which null does not clear: give [] to empty it, or leave it out to keep it", field)
	}
	return l, ok, nil
}

// clearable applies an update field that can be empty: null stores the
// zero value, which the engine reads as "none".
func clearable[T any](dst *T, v graphql.Omittable[*T]) {
	if p, ok := v.ValueOK(); ok {
		*dst = deref(p)
	}
}

func cannotClear(field string) error {
	return badInput(field, "%s cannot be empty, so it cannot be null: leave it out to keep its value", field)
}

// aside runs a write outside the guarded schedule write — tokens, CalDAV
// logins, feed secrets — after checking the role; a dry run is a trial
// (models.Store.Trial), rolled back. The result carries the business's
// current revision (these writes do not move it) and no clashes.
func (r *Resolver) aside(ctx context.Context, need models.Permission, dryRun *bool, fn func(db models.IDB, dry bool) error) (*models.Result, error) {
	if err := can(ctx, need); err != nil {
		return nil, err
	}
	sn, err := r.snapshot(ctx)
	if err != nil {
		return nil, err
	}
	noCache(ctx) // what these write lies outside every revision
	res := &models.Result{DryRun: dryRun != nil && *dryRun, Revision: sn.Business.Revision}
	if res.DryRun {
		err = r.Store.Trial(ctx, func(db models.IDB) error { return fn(db, true) })
	} else {
		err = fn(r.Store.DB, false)
	}
	if err != nil {
		return nil, err
	}
	return res, nil
}
