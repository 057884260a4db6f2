package graph

import (
	"context"
	"sync"

	"github.com/koredyne/schedule/engine"
	"github.com/koredyne/schedule/graph/model"
	"github.com/koredyne/schedule/models"
)

// views builds the API's views of one snapshot, remembering the classes it
// has built (a week of sessions names a few classes many times).
type views struct {
	sn *models.Snapshot

	mu      sync.Mutex
	classes map[int64]*model.Class
}

// views returns the view builder of the request's snapshot.
func (r *Resolver) views(ctx context.Context) (*views, error) {
	sn, err := r.snapshot(ctx)
	if err != nil {
		return nil, err
	}
	req := requestFrom(ctx)
	req.mu.Lock()
	defer req.mu.Unlock()
	if req.views == nil || req.views.sn != sn {
		req.views = &views{sn: sn, classes: map[int64]*model.Class{}}
	}
	return req.views, nil
}

func (v *views) activity(id int64) (*model.Activity, bool) {
	a, ok := v.sn.Timetable.Activity(id)
	if !ok {
		return nil, false
	}
	return &model.Activity{ID: a.ID, Name: a.Name, Color: optString(a.Color)}, true
}

func (v *views) class(id int64) (*model.Class, bool) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if c, ok := v.classes[id]; ok {
		return c, true
	}
	tt := v.sn.Timetable
	c, ok := tt.Class(id)
	if !ok {
		return nil, false
	}
	a, _ := v.activity(c.ActivityID)
	view := &model.Class{ID: c.ID, Activity: *a, Staff: v.staff(c.StaffIDs)}
	names := make([]string, len(view.Staff))
	for i, s := range view.Staff {
		names[i] = s.Name
	}
	view.Name = engine.ClassName(a.Name, names)
	v.classes[id] = view
	return view, true
}

func (v *views) staff(ids []int64) []engine.Staff {
	out := make([]engine.Staff, 0, len(ids))
	for _, id := range ids {
		if s, ok := v.sn.Timetable.StaffMember(id); ok {
			out = append(out, s)
		}
	}
	return out
}

func (v *views) session(s *engine.Session) model.Session {
	tt := v.sn.Timetable
	room, _ := tt.Room(s.RoomID)
	class, _ := v.class(s.ClassID)
	startsAt, endsAt := s.Instants(v.sn.State.Business.Location)
	out := model.Session{
		ID: s.Key(), Date: s.Date, Start: s.Start, End: s.End,
		StartsAt: startsAt, EndsAt: endsAt,
		Room: room, Class: class, Staff: v.staff(s.StaffIDs),
		Label: optString(s.Label), Capacity: optInt(int(s.Capacity)), Series: make([]model.SeriesWeek, len(s.Series)),
		Cancelled: s.Cancelled, Changed: s.Changed, Origin: s.Origin(), Note: optString(s.Note()),
	}
	for i, w := range s.Series {
		series, _ := tt.SeriesByID(w.SeriesID)
		out.Series[i] = model.SeriesWeek{Series: series, Week: w.Week, CycleWeeks: w.Cycle}
	}
	if s.Cancelled {
		out.CancelReason = optString(s.Reason())
	}
	if s.IsOneOff() {
		out.OneOff, _ = rowByID(v.sn.State.OneOffs, s.OneOffID, func(o *engine.OneOff) int64 { return o.ID })
	} else {
		ref := s.Ref()
		out.Ref = &ref
	}
	return out
}

func (v *views) sessions(ss []engine.Session) []model.Session {
	out := make([]model.Session, len(ss))
	for i := range ss {
		out[i] = v.session(&ss[i])
	}
	return out
}
