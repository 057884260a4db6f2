package icalendar

import (
	"strings"

	"github.com/koredyne/schedule/engine"
)

// catalog finds the rooms, staff, activities and classes an import names in
// the existing state, by name without case, and adds the ones it lacks
// with temporary ids: negative, unique across tables, below any id already
// there (the caller's write renumbers them, as models.Renumber does).
type catalog struct {
	st   *engine.State
	next int64

	rooms      map[string]int64
	staff      map[string]int64
	activities map[string]int64
	classes    map[string]int64 // classKey
	staffName  map[int64]string
	actName    map[int64]string
	classStaff map[int64][]int64
}

func newCatalog(st *engine.State) *catalog {
	c := &catalog{st: st, rooms: map[string]int64{}, staff: map[string]int64{}, activities: map[string]int64{},
		classes: map[string]int64{}, staffName: map[int64]string{}, actName: map[int64]string{},
		classStaff: map[int64][]int64{}}
	low := int64(0)
	see := func(id int64) { low = min(low, id) }
	for _, r := range st.Rooms {
		see(r.ID)
		if k := key(r.Name); c.rooms[k] == 0 {
			c.rooms[k] = r.ID
		}
	}
	for _, p := range st.Staff {
		see(p.ID)
		c.staffName[p.ID] = p.Name
		if k := key(p.Name); c.staff[k] == 0 {
			c.staff[k] = p.ID
		}
	}
	for _, a := range st.Activities {
		see(a.ID)
		c.actName[a.ID] = a.Name
		if k := key(a.Name); c.activities[k] == 0 {
			c.activities[k] = a.ID
		}
	}
	for _, cl := range st.Classes {
		see(cl.ID)
		c.classStaff[cl.ID] = cl.StaffIDs
		names := make([]string, len(cl.StaffIDs))
		for i, id := range cl.StaffIDs {
			names[i] = c.staffName[id]
		}
		if k := engine.ClassKey(c.actName[cl.ActivityID], names); c.classes[k] == 0 {
			c.classes[k] = cl.ID
		}
	}
	for _, ct := range st.ClassTimes {
		see(ct.ID)
	}
	for _, s := range st.Series {
		see(s.ID)
	}
	for _, e := range st.Entries {
		see(e.ID)
	}
	for _, o := range st.OneOffs {
		see(o.ID)
	}
	for _, x := range st.Plans {
		see(x.ID)
	}
	for _, x := range st.Clients {
		see(x.ID)
	}
	for _, x := range st.Subscriptions {
		see(x.ID)
	}
	for _, x := range st.Closures {
		see(x.ID)
	}
	for _, x := range st.Capacity {
		see(x.ID)
	}
	for _, x := range st.RoomBookings {
		see(x.ID)
	}
	c.next = low
	return c
}

func (c *catalog) id() int64 {
	c.next--
	return c.next
}

func (c *catalog) room(name string, capacity int) int64 {
	k := key(name)
	if id := c.rooms[k]; id != 0 {
		return id
	}
	id := c.id()
	c.rooms[k] = id
	c.st.Rooms = append(c.st.Rooms, engine.Room{ID: id, Name: strings.TrimSpace(name), Capacity: capacity})
	return id
}

// existingRoom returns the id of a room the state already has, or 0.
func (c *catalog) existingRoom(name string) int64 {
	id := c.rooms[key(name)]
	if id < 0 {
		return 0
	}
	return id
}

func (c *catalog) person(name string) int64 {
	k := key(name)
	if id := c.staff[k]; id != 0 {
		return id
	}
	id := c.id()
	c.staff[k] = id
	c.staffName[id] = name
	c.st.Staff = append(c.st.Staff, engine.Staff{ID: id, Name: name})
	return id
}

func (c *catalog) people(names []string) []int64 {
	ids := make([]int64, len(names))
	for i, n := range names {
		ids[i] = c.person(n)
	}
	return ids
}

func (c *catalog) activity(name, color string) int64 {
	k := key(name)
	if id := c.activities[k]; id != 0 {
		return id
	}
	id := c.id()
	c.activities[k] = id
	c.actName[id] = name
	c.st.Activities = append(c.st.Activities, engine.Activity{ID: id, Name: strings.TrimSpace(name), Color: color})
	return id
}

// class returns the class of an activity given by a set of staff: an
// existing one with the same activity and staff set, whatever its order, or
// a new one with the staff in the order given (the first is the main one).
func (c *catalog) class(activity, color string, staff []string) int64 {
	k := engine.ClassKey(activity, staff)
	if id := c.classes[k]; id != 0 {
		return id
	}
	act := c.activity(activity, color)
	id := c.id()
	c.classes[k] = id
	ids := c.people(staff)
	c.classStaff[id] = ids
	c.st.Classes = append(c.st.Classes, engine.Class{ID: id, ActivityID: act, StaffIDs: ids})
	return id
}

// staffOf returns the staff of a class.
func (c *catalog) staffOf(class int64) []int64 { return c.classStaff[class] }
