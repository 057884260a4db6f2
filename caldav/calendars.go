package caldav

import (
	"fmt"
	"slices"

	"github.com/koredyne/schedule/engine"
	"github.com/koredyne/schedule/models"
)

// calendar is one published calendar: the whole business, one staff member
// or one room.
type calendar struct {
	id          string // "all", "staff-12", "room-3": stable across renames
	name        string
	color       string
	staff, room int64 // whose sessions it lists; neither: the business's
}

// keep reports whether the calendar lists the session.
func (c calendar) keep(s *engine.Session) bool {
	switch {
	case c.staff != 0:
		return slices.Contains(s.StaffIDs, c.staff)
	case c.room != 0:
		return s.RoomID == c.room
	}
	return true
}

// palette gives calendars distinct, readable colours, by id.
var palette = []string{"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#8c564b", "#e377c2", "#bcbd22", "#7f7f7f"}

// calendars lists the calendars of a snapshot that user may read: a login
// tied to a staff member with the staff role reads only that member's.
func calendars(sn *models.Snapshot, user models.CalendarUser) []calendar {
	b := sn.State.Business
	var out []calendar
	all := user.StaffID == 0 || user.Role != models.StaffRole
	if all {
		out = append(out, calendar{id: models.CalendarOf("", 0), name: b.Name, color: "#2a9d8f"})
	}
	for _, p := range sn.State.Staff {
		if !all && p.ID != user.StaffID {
			continue
		}
		id := p.ID
		out = append(out, calendar{
			id: models.CalendarOf("staff", id), name: fmt.Sprintf("%s · %s", p.Name, b.Name),
			color: palette[id%int64(len(palette))], staff: id,
		})
	}
	if all {
		for _, r := range sn.State.Rooms {
			id := r.ID
			out = append(out, calendar{
				id: models.CalendarOf("room", id), name: fmt.Sprintf("%s · %s", r.Name, b.Name),
				color: palette[(id+5)%int64(len(palette))], room: id,
			})
		}
	}
	return out
}

// findCalendar returns the calendar with an id, if user may read it.
func findCalendar(sn *models.Snapshot, user models.CalendarUser, id string) (calendar, bool) {
	for _, c := range calendars(sn, user) {
		if c.id == id {
			return c, true
		}
	}
	return calendar{}, false
}
