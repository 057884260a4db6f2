package graph

import (
	"cmp"
	"context"
	"slices"
	"time"

	"github.com/koredyne/schedule/engine"
	"github.com/koredyne/schedule/graph/model"
	"github.com/koredyne/schedule/models"
)

// updateTimeOff applies an UpdateTimeOffInput (the update rule: fromTime,
// toTime and reason clear; the rest cannot be null).
func updateTimeOff(dst *engine.TimeOff, in model.UpdateTimeOffInput) error {
	clearable(&dst.FromTime, in.FromTime)
	clearable(&dst.ToTime, in.ToTime)
	clearable(&dst.Reason, in.Reason)
	if err := cmp.Or(keep(&dst.StaffID, in.StaffID, "staffId"), keep(&dst.From, in.From, "from"), keep(&dst.To, in.To, "to")); err != nil {
		return err
	}
	switch {
	case dst.ToTime == engine.EndOfDay:
		dst.ToTime = 0 // the whole last day, as null says
	case in.ToTime.IsSet() && in.ToTime.Value() != nil && dst.ToTime == 0:
		return badInput("toTime", "toTime 00:00 ends the time off before its last day starts: end it the day before, or leave toTime out for the whole day")
	}
	if dst.To < dst.From && dst.From.Valid() && dst.To.Valid() {
		return badInput("to", "Time off cannot end (%s) before it starts (%s)", dst.To, dst.From)
	}
	return nil
}

// timeOffPayload answers a time off write with the time off as the rest
// of the request reads it.
func timeOffPayload(res *models.Result, id int64) (*model.TimeOffPayload, error) {
	o, ok := rowByID(res.After.State.TimeOffs, res.ID(id), func(o *engine.TimeOff) int64 { return o.ID })
	if !ok {
		return nil, notFound("time off", id)
	}
	return &model.TimeOffPayload{DryRun: res.DryRun, Revision: int(res.Revision), Clashes: res.Clashes, TimeOff: o, NeedsCover: nonNil(res.NeedsCover)}, nil
}

// setHours puts a staff member's hours from a date into the edited state,
// replacing the set they have from that date, and returns its id.
func setHours(e *models.Edit, in model.SetWorkingHoursInput) int64 {
	spans := make([]engine.HoursSpan, len(in.Spans))
	for i, s := range in.Spans {
		spans[i] = engine.HoursSpan{Weekday: s.Weekday, Start: s.Start, End: s.End}
	}
	slices.SortFunc(spans, func(a, b engine.HoursSpan) int {
		return cmp.Or(cmp.Compare(a.Weekday, b.Weekday), cmp.Compare(a.Start, b.Start), cmp.Compare(a.End, b.End))
	})
	for i := range e.State.Hours {
		if h := &e.State.Hours[i]; h.StaffID == in.StaffID && h.From == in.From {
			h.Spans = spans
			return h.ID
		}
	}
	id := e.NewID()
	e.State.Hours = append(e.State.Hours, engine.WorkingHours{ID: id, StaffID: in.StaffID, From: in.From, Spans: spans})
	return id
}

// seesReason reports whether the request may read the reason of a time
// off of staff member staff: the front desk and above, and that staff
// member's own token.
func seesReason(ctx context.Context, staff int64) bool {
	p := principal(ctx)
	return p.Role.Can(models.EditDays) || p.Role == models.StaffRole && p.StaffID != 0 && p.StaffID == staff
}

// uncoveredSession is the session an Uncovered names on its first date,
// as the request's snapshot resolves it.
func (r *Resolver) uncoveredSession(ctx context.Context, u *engine.Uncovered) (*model.Session, error) {
	v, err := r.views(ctx)
	if err != nil {
		return nil, err
	}
	s := u.Session
	if !u.Dated {
		if found, ok := v.sn.Timetable.Session(engine.SessionRef{Date: u.First, ClassTimeID: u.ClassTimeID, ClassID: u.ClassID}); ok {
			s = found
		}
	}
	view := v.session(&s)
	return &view, nil
}

// sessionIDOf is the id of the session an Uncovered names on its first
// date.
func sessionIDOf(u engine.Uncovered) string {
	if u.Dated {
		return u.Session.Key()
	}
	return engine.SessionRef{Date: u.First, ClassTimeID: u.ClassTimeID, ClassID: u.ClassID}.Key()
}

// setQualifications replaces a staff member's qualifications in the edited
// state; the engine checks the ids.
func setQualifications(e *models.Edit, in model.SetQualificationsInput) error {
	if _, err := row(e.State.Staff, in.StaffID, func(p *engine.Staff) int64 { return p.ID }, "staff member"); err != nil {
		return namedBy("staffId", err)
	}
	for i, a := range in.ActivityIds {
		if slices.Contains(in.ActivityIds[:i], a) {
			return badInput("activityIds", "activityIds lists id %d twice; name each once", a)
		}
	}
	e.State.Qualifications = slices.DeleteFunc(e.State.Qualifications, func(q engine.Qualification) bool { return q.StaffID == in.StaffID })
	for _, a := range in.ActivityIds {
		e.State.Qualifications = append(e.State.Qualifications, engine.Qualification{ID: e.NewID(), StaffID: in.StaffID, ActivityID: a})
	}
	return nil
}

// maxCovers is the most covers one assignCover takes.
const maxCovers = 500

// assignCover applies covers to the edited state as day changes, in order,
// and returns the sessions they cover.
func assignCover(e *models.Edit, in []model.AssignCoverInput) ([]engine.SessionRef, error) {
	tt := e.Before.Timetable
	words := engine.Words(e.State.Business.Kind)
	if len(in) > maxCovers {
		return nil, badInput("input", "Assign at most %d covers at a time, not %d", maxCovers, len(in))
	}
	staff := map[engine.SessionRef][]int64{} // each session's staff as the covers so far leave it
	var refs []engine.SessionRef
	for _, c := range in {
		if c.SessionID.OneOff != 0 {
			return nil, badInput("sessionId", "A one-off's %s are its %s's: give it another %s instead of a cover", words.Staff.Many, words.Class.One, words.Class.One)
		}
		ref := c.SessionID.Ref
		s, ok := tt.Session(ref)
		if !ok {
			return nil, noSession(words, ref, "sessionId")
		}
		for _, f := range []struct {
			id    int64
			field string
		}{{c.StaffID, "staffId"}, {c.Replaces, "replaces"}} {
			if _, ok := tt.StaffMember(f.id); !ok {
				return nil, namedBy(f.field, notFound(words.Staff.One, f.id))
			}
		}
		if c.StaffID == c.Replaces {
			return nil, badInput("staffId", "A %s cannot cover for themselves: name someone else", words.Staff.One)
		}
		list, ok := staff[ref]
		if !ok {
			list = slices.Clone(s.StaffIDs)
		}
		i := slices.Index(list, c.Replaces)
		if i < 0 {
			return nil, badInput("replaces", "replaces names a %s who is not in that %s", words.Staff.One, words.Class.One)
		}
		if slices.Contains(list, c.StaffID) {
			return nil, badInput("staffId", "staffId names a %s who is already in that %s", words.Staff.One, words.Class.One)
		}
		class, _ := tt.Class(s.ClassID)
		if !tt.Qualified(c.StaffID, class.ActivityID) {
			p, _ := tt.StaffMember(c.StaffID)
			return nil, badInput("staffId", "%s may not give that %s: set their qualifications first", p.Name, words.Activity.One)
		}
		list[i] = c.StaffID
		staff[ref] = list
		if err := setChange(e, ref, engine.ChangePatch{StaffIDs: slices.Clone(list)}); err != nil {
			return nil, renamed(err, "ref", "sessionId")
		}
		if !slices.Contains(refs, ref) {
			refs = append(refs, ref)
		}
	}
	return refs, nil
}

// engineSession is the session an id names, as the request's snapshot
// resolves it; NOT_FOUND naming field for one that is not there.
func (r *Resolver) engineSession(ctx context.Context, id model.SessionID, field string) (engine.Session, error) {
	v, err := r.views(ctx)
	if err != nil {
		return engine.Session{}, err
	}
	if id.OneOff != 0 {
		o, ok := rowByID(v.sn.State.OneOffs, id.OneOff, func(o *engine.OneOff) int64 { return o.ID })
		if ok {
			for _, s := range v.sn.Timetable.Day(o.Date) {
				if s.OneOffID == id.OneOff {
					return s, nil
				}
			}
		}
		return engine.Session{}, namedBy(field, notFound("one-off", id.OneOff))
	}
	s, ok := v.sn.Timetable.Session(id.Ref)
	if !ok {
		return engine.Session{}, noSession(r.words(ctx), id.Ref, field)
	}
	return s, nil
}

// rhythm checks freeRooms' arguments and returns its dates and units.
func rhythm(from, to engine.Date, start, end engine.LocalTime, everyWeeks, units *int) ([]engine.Date, int, error) {
	every, need := 1, 1
	if everyWeeks != nil {
		every = *everyWeeks
	}
	if units != nil {
		need = *units
	}
	switch {
	case end <= start:
		return nil, 0, badInput("end", "The span must end after it starts: %s to %s", start, end)
	case every < 1 || every > engine.MaxCycle:
		return nil, 0, badInput("everyWeeks", "everyWeeks must be between 1 and %d, not %d", engine.MaxCycle, every)
	case need < 1 || need > engine.MaxUnits:
		return nil, 0, badInput("units", "units must be between 1 and %d, not %d", engine.MaxUnits, need)
	}
	if err := checkRange(from, to+1); err != nil {
		return nil, 0, err
	}
	var dates []engine.Date
	for d := from; d <= to; d += engine.Date(7 * every) {
		dates = append(dates, d)
	}
	return dates, need, nil
}

// placementRequest reads the input of placements: what is left out takes
// its default (see PlacementsInput) — the units and buffer the class's
// first class time has — and what is given must be in range. Rooms,
// weekdays and weeks named twice count once, so that each placement is
// one row of the list (placementKey).
func placementRequest(t *engine.Timetable, in model.PlacementsInput) (engine.PlacementRequest, error) {
	q := engine.PlacementRequest{ClassID: in.ClassID, Minutes: in.Minutes, Cycle: 1, Earliest: 6 * 60, Latest: 22 * 60, Step: 15}
	q.Units, q.Buffer = t.ClassShape(in.ClassID)
	if in.CycleWeeks != nil {
		if q.Cycle = *in.CycleWeeks; q.Cycle < 1 {
			return q, badInput("cycleWeeks", "A placement's rotation is 1 to %d weeks, not %d", engine.MaxPlacementCycle, q.Cycle)
		}
	}
	if in.Step != nil {
		if q.Step = *in.Step; q.Step < 1 {
			return q, badInput("step", "The step between starts is 1 to 1440 minutes, not %d", q.Step)
		}
	}
	if in.Earliest != nil {
		q.Earliest = *in.Earliest
	}
	if in.Latest != nil {
		q.Latest = *in.Latest
	}
	if q.Earliest >= q.Latest {
		return q, badInput("earliest", "The earliest start (%s) must come before the latest end (%s)", q.Earliest, q.Latest)
	}
	if in.Units != nil {
		q.Units = *in.Units
	}
	if in.BufferMinutes != nil {
		q.Buffer = *in.BufferMinutes
	}
	if in.From != nil {
		q.From = *in.From
	}
	// Every list is spelled out, so that a placement's key is its place in
	// the request's order.
	q.Weeks = append([]int{}, slices.Compact(slices.Sorted(slices.Values(in.Weeks)))...)
	if in.Weeks == nil {
		for k := 1; k <= min(q.Cycle, engine.MaxPlacementCycle); k++ {
			q.Weeks = append(q.Weeks, k)
		}
	}
	q.RoomIDs = once(in.RoomIds)
	if in.RoomIds == nil {
		for _, r := range t.State().Rooms {
			q.RoomIDs = append(q.RoomIDs, r.ID)
		}
	}
	q.Weekdays = once(in.Weekdays)
	if in.Weekdays == nil {
		for i := range 7 {
			q.Weekdays = append(q.Weekdays, (t.State().Business.WeekStart+time.Weekday(i))%7)
		}
	}
	if in.Minutes >= 1 {
		starts := max(0, (int(q.Latest-q.Earliest)-in.Minutes)/q.Step+1)
		if n := len(q.RoomIDs) * len(q.Weekdays) * starts * len(q.Weeks); n > maxPlacementPoints {
			return q, badInput("step", "Placements would try %d places (rooms × days × starts × weeks), at most %d at once: ask for fewer rooms, days or weeks, or a longer step", n, maxPlacementPoints)
		}
	}
	return q, nil
}

// maxPlacementPoints is the most (room, weekday, start, week) one request
// of placements may try: every one may be a placement, and the list is
// held whole to be paged. Ten thousand class times' rooms, every day
// 06:00–22:00 every 15 minutes, in a rotation of 4 weeks are fewer.
const maxPlacementPoints = 2_000_000

// once returns xs without the repeats, in the order of their first time.
func once[T comparable](xs []T) []T {
	out := make([]T, 0, len(xs))
	for _, x := range xs {
		if !slices.Contains(out, x) {
			out = append(out, x)
		}
	}
	return out
}

// placementKey is the sort key of the placements of q, in the order
// Placements gives them: room, weekday, start, week, each by its place in
// the request.
func placementKey(q engine.PlacementRequest) func(p *engine.Placement) string {
	return func(p *engine.Placement) string {
		return seqKey(int64(slices.Index(q.RoomIDs, p.RoomID)), int64(slices.Index(q.Weekdays, p.Weekday)), int64(p.Start),
			int64(slices.Index(q.Weeks, p.Week)))
	}
}
