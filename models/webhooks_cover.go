package models

import (
	"strconv"

	"github.com/koredyne/schedule/engine"
	"github.com/koredyne/schedule/models/webhook"
)

// SessionNeedsCover is the event of a session a write leaves without one
// of its staff (issue 31): time off recorded, hours set, or a timetable
// write that passed allowNeedsCover.
const SessionNeedsCover = "session.needs_cover"

func init() {
	webhook.Register(SessionNeedsCover, "A write left a session without one of its staff (time off, or outside their working hours): "+
		"session, staff (who is missing), reason (time_off or outside_hours), timeOffId or hoursFrom. One event for each session "+
		"from today up to 90 days ahead.")
}

// noteNeedsCover records a session.needs_cover event for each session the
// runs us leave uncovered from today up to SessionEventDays ahead, at most
// maxSessionEvents in all.
func (e *Edit) noteNeedsCover(tt *engine.Timetable, us []engine.Uncovered, today engine.Date) {
	n := 0
	for i := range us {
		u := &us[i]
		for _, d := range u.Dates(today, today.AddDays(SessionEventDays-1)) {
			if n >= maxSessionEvents {
				return
			}
			s := u.Session
			if !u.Dated {
				var ok bool
				if s, ok = tt.Session(engine.SessionRef{Date: d, ClassTimeID: u.ClassTimeID, ClassID: u.ClassID}); !ok {
					continue
				}
			}
			p, _ := tt.StaffMember(u.StaffID)
			data := map[string]any{"session": sessionJSON(&s, tt),
				"staff": map[string]any{"id": strconv.FormatInt(u.StaffID, 10), "name": p.Name}}
			if u.Reason == engine.OnTimeOff {
				data["reason"], data["timeOffId"] = "time_off", strconv.FormatInt(u.TimeOffID, 10)
			} else {
				data["reason"], data["hoursFrom"] = "outside_hours", u.HoursFrom.String()
			}
			e.note(SessionNeedsCover, data, []string{s.Key()})
			n++
		}
	}
}
