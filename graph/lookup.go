package graph

import (
	"context"
	"slices"
	"time"

	"github.com/koredyne/schedule/engine"
	"github.com/koredyne/schedule/graph/model"
)

// The lookups read the request's snapshot and answer NOT_FOUND, in the
// business's words, for an id the business does not have — including any
// id of another business.

func (r *Resolver) words(ctx context.Context) engine.Vocabulary {
	sn, err := r.snapshot(ctx)
	if err != nil {
		return engine.Words(engine.Gym)
	}
	return engine.Words(sn.State.Business.Kind)
}

func (r *Resolver) room(ctx context.Context, id int64) (*engine.Room, error) {
	return find(ctx, r, id, "room", (*engine.Timetable).Room)
}

func (r *Resolver) staffMember(ctx context.Context, id int64) (*engine.Staff, error) {
	return find(ctx, r, id, r.words(ctx).Staff.One, (*engine.Timetable).StaffMember)
}

func (r *Resolver) activity(ctx context.Context, id int64) (*model.Activity, error) {
	v, err := r.views(ctx)
	if err != nil {
		return nil, err
	}
	a, ok := v.activity(id)
	if !ok {
		return nil, notFound(r.words(ctx).Activity.One, id)
	}
	return a, nil
}

func (r *Resolver) class(ctx context.Context, id int64) (*model.Class, error) {
	v, err := r.views(ctx)
	if err != nil {
		return nil, err
	}
	c, ok := v.class(id)
	if !ok {
		return nil, notFound(r.words(ctx).Class.One, id)
	}
	return c, nil
}

func (r *Resolver) classTime(ctx context.Context, id int64) (*engine.ClassTime, error) {
	return find(ctx, r, id, "class time", (*engine.Timetable).ClassTime)
}

func (r *Resolver) seriesByID(ctx context.Context, id int64) (*engine.Series, error) {
	return find(ctx, r, id, r.words(ctx).Series.One, (*engine.Timetable).SeriesByID)
}

func find[T any](ctx context.Context, r *Resolver, id int64, what string, get func(*engine.Timetable, int64) (T, bool)) (*T, error) {
	tt, err := r.tt(ctx)
	if err != nil {
		return nil, err
	}
	v, ok := get(tt, id)
	if !ok {
		return nil, notFound(what, id)
	}
	return &v, nil
}

// staffList resolves a list of staff ids in order.
func (r *Resolver) staffList(ctx context.Context, ids []int64) ([]engine.Staff, error) {
	out := make([]engine.Staff, 0, len(ids))
	for _, id := range ids {
		s, err := r.staffMember(ctx, id)
		if err != nil {
			return nil, err
		}
		out = append(out, *s)
	}
	return out, nil
}

// rowByID finds a row of a state table that the timetable does not index.
func rowByID[T any](list []T, id int64, key func(*T) int64) (*T, bool) {
	p, err := row(list, id, key, "")
	if err != nil {
		return nil, false
	}
	v := *p // a copy: the snapshot is shared
	return &v, true
}

// sessions returns the views of computed sessions.
func (r *Resolver) sessions(ctx context.Context, ss []engine.Session) ([]model.Session, error) {
	v, err := r.views(ctx)
	if err != nil {
		return nil, err
	}
	return v.sessions(ss), nil
}

// optString and optInt turn the engine's "none" (empty, zero) into null.
func optString(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func optInt(n int) *int {
	if n == 0 {
		return nil
	}
	return &n
}

func optDate(d engine.Date) *engine.Date {
	if d == 0 {
		return nil
	}
	return &d
}

func plansOf(s engine.State, series int64) []engine.Plan {
	var out []engine.Plan
	for _, p := range s.Plans {
		if p.SeriesID == series {
			out = append(out, p)
		}
	}
	return out
}

// checkRange refuses an empty, inverted or too long range of days.
func checkRange(from, to engine.Date) error {
	if to <= from {
		return badInput("to", "The range must end after it starts: from %s to %s (to is not included)", from, to)
	}
	if to.Sub(from) > MaxDays {
		return badInput("to", "Ask for at most %d days at a time, not %d", MaxDays, to.Sub(from))
	}
	return nil
}

// sessionFilter checks the ids of a filter and returns its test.
func (r *Resolver) sessionFilter(ctx context.Context, f *model.SessionFilter) (func(*engine.Session) bool, error) {
	if f == nil {
		return func(*engine.Session) bool { return true }, nil
	}
	if f.StaffID != nil {
		if _, err := r.staffMember(ctx, *f.StaffID); err != nil {
			return nil, namedBy("staffId", err)
		}
	}
	if f.RoomID != nil {
		if _, err := r.room(ctx, *f.RoomID); err != nil {
			return nil, namedBy("roomId", err)
		}
	}
	if f.SeriesID != nil {
		if _, err := r.seriesByID(ctx, *f.SeriesID); err != nil {
			return nil, namedBy("seriesId", err)
		}
	}
	return func(s *engine.Session) bool {
		if f.IncludeCancelled != nil && !*f.IncludeCancelled && s.Cancelled {
			return false
		}
		if f.RoomID != nil && s.RoomID != *f.RoomID {
			return false
		}
		if f.StaffID != nil && !slices.Contains(s.StaffIDs, *f.StaffID) {
			return false
		}
		if f.SeriesID != nil && !slices.ContainsFunc(s.Series, func(w engine.SeriesWeek) bool { return w.SeriesID == *f.SeriesID }) {
			return false
		}
		return true
	}, nil
}

// instant is a wall-clock time of a date in the business's time zone.
func (r *Resolver) instant(ctx context.Context, d engine.Date, t engine.LocalTime) (*time.Time, error) {
	sn, err := r.snapshot(ctx)
	if err != nil {
		return nil, err
	}
	at := d.At(t, sn.State.Business.Location)
	return &at, nil
}

// lookupRow answers a lookup by id of a state table the timetable does not
// index (plans, one-offs, closures).
func lookupRow[T any](ctx context.Context, r *Resolver, id int64, what string, table func(*engine.State) []T, key func(*T) int64) (*T, error) {
	sn, err := r.snapshot(ctx)
	if err != nil {
		return nil, err
	}
	v, ok := rowByID(table(&sn.State), id, key)
	if !ok {
		return nil, notFound(what, id)
	}
	return v, nil
}

// nonNil keeps an empty list a list: a nullable list field answers null
// only when it failed, never for no rows.
func nonNil[T any](list []T) []T {
	if list == nil {
		return []T{}
	}
	return list
}
