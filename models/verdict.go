package models

import (
	"context"

	"github.com/uptrace/bun"

	"github.com/koredyne/schedule/engine"
)

// verdict is what the guarded write decides about an edit: the clashes it
// adds and the sessions it newly leaves needing cover.
type verdict struct {
	clashes    []engine.Clash
	needsCover []engine.Uncovered
	today      engine.Date
	after      *Snapshot
}

// judge is the guarded write's proof of the edit e of before into after
// (step leads there): standing places it would overfill refuse it at once
// (CAPACITY_FULL), then the clashes and the sessions needing cover it adds
// from the week of today on. changed is false when the save found no row
// changed, which leaves the standing places as they were. Write and Try
// both decide by it: there is one copy of the rules a write must keep.
func judge(ctx context.Context, e *Edit, before, after *Snapshot, step *engine.Step, today engine.Date, changed bool) (*verdict, error) {
	if changed {
		if err := proveStanding(ctx, e, before, after); err != nil {
			return nil, err
		}
	}
	was, err := before.ProveClashes(ctx, today)
	if err != nil {
		return nil, err
	}
	is, err := after.proveFrom(ctx, before, step, today)
	if err != nil {
		return nil, err
	}
	v := &verdict{clashes: engine.NewClashes(was, is), today: today, after: after}
	if after.Timetable.HasCoverRules() {
		v.needsCover = engine.NewUncovered(before.Uncovered(today), after.Uncovered(today))
	}
	return v, nil
}

// unavailable is the refusal of an edit that leaves sessions needing cover
// it did not allow, or nil. An edit that also adds clashes is refused for
// those instead (ClashError), once its dry run has reported them.
func (v *verdict) unavailable(e *Edit) *UnavailableError {
	if len(v.needsCover) == 0 || e.AllowNeedsCover || e.AcceptClashes || e.replaced || len(v.clashes) > 0 {
		return nil
	}
	ue := &UnavailableError{NeedsCover: v.needsCover}
	for i := range v.needsCover {
		ue.Messages = append(ue.Messages, v.after.Timetable.Message(&v.needsCover[i], v.today))
	}
	return ue
}

// succeeds reports whether the write e would be saved: it adds no clash it
// does not accept, and leaves no one away it did not allow.
func (v *verdict) succeeds(e *Edit) bool {
	return (len(v.clashes) == 0 || e.AcceptClashes) && v.unavailable(e) == nil
}

// Try answers whether another edit of the schedule a write was refused on
// would be saved: the guarded write's own verdict (validation, standing
// places, the clash proof and the sessions needing cover, as Write
// decides), made in memory on a copy of that schedule. Nothing it edits is
// saved; it never changes the refusal. Another write may have been saved
// since: what Try answers is a proposal, which the write that takes it up
// decides again.
type Try func(edit func(*Edit) error) bool

// refusal is a write refused for what it adds, kept for Edit.Refused.
type refusal struct {
	e      *Edit
	err    error // the *ClashError or *UnavailableError
	before *Snapshot
	today  engine.Date
}

// tell hands the refused write's e.Refused a Try on the schedule before
// the write. It runs once the write's transaction has rolled back, so the
// trials hold no write lock (SQLite's is the whole database's), in a read
// transaction of their own for what they read (the single bookings of
// standing places).
func (r *refusal) tell(ctx context.Context, s *Store) {
	if r == nil || r.e.Refused == nil {
		return
	}
	tried := false
	_ = s.read(ctx, func(tx bun.Tx) error {
		tried = true
		r.e.Refused(r.err, func(edit func(*Edit) error) bool {
			ok, _ := trial(ctx, tx, r.e, r.before, r.today, edit)
			return ok
		})
		return nil
	})
	if !tried {
		// The database could not be read: no trial can be made, and
		// the refusal says so by suggesting nothing.
		r.e.Refused(r.err, func(func(*Edit) error) bool { return false })
	}
}

// trial is Try for the write of refused: edit changes a fresh copy of the
// schedule before it, as a dry run of the same write would.
func trial(ctx context.Context, tx bun.Tx, refused *Edit, before *Snapshot, today engine.Date, edit func(*Edit) error) (bool, error) {
	e := &Edit{State: before.State.Clone(), Before: before, Business: refused.Business, Tx: tx, Today: refused.Today,
		dryRun: true, newID: refused.newID}
	if err := edit(e); err != nil {
		return false, err
	}
	step, err := before.Timetable.Check(e.State)
	if err != nil {
		return false, err
	}
	after := e.State
	canonical(&after)
	step.Saved(after, func(id int64) int64 { return id })
	sn, err := nextSnapshot(step, *refused.Business, after, before.Versions, before.Accepted)
	if err != nil {
		return false, err
	}
	v, err := judge(ctx, e, before, sn, step, today, true)
	if err != nil {
		return false, err
	}
	return v.succeeds(e), nil
}
