// Package solve proposes a timetable: it places the sessions a business
// wants to run (the demand) into the weeks of a rotation, around what the
// business already runs, so that no room holds more than it can, no one is
// in two places, away or outside their hours, and the preferences of each
// line (windows, days apart, same room, same coach) are met as well as it
// can find. docs/solver.md says how and why.
//
// The solver proposes; it never decides. Its answer is checked by the
// guarded write's own clash proof before anyone sees it, so nothing it
// believes about the timetable is ever written unchecked. Like the engine
// it is a functional core: no clock, no I/O; the caller passes a stop
// function and a work budget.
package solve

import (
	"time"

	"github.com/koredyne/schedule/engine"
)

// Problem is what a solve takes: the frame, the demand, the staff and the
// rooms it may use.
type Problem struct {
	Frame Frame
	Lines []Line
	Staff []Staff
	Rooms []Room
}

// Frame is the rotation the proposal fills.
type Frame struct {
	// Cycle is the rotation's length in weeks, 1–8.
	Cycle int
	// Earliest and Latest bound every session of the day; Latest zero is
	// the end of the day.
	Earliest, Latest engine.LocalTime
	// Step is the grid session starts fall on, in minutes; zero is 15.
	Step int
	// Weights weigh each kind of preference ("window", "daysApart",
	// "sameRoom", "sameCoach"); a kind left out weighs 1.
	Weights map[string]int
}

// MaxCycle is the longest rotation the solver fills.
const MaxCycle = 8

// Line is one line of the demand: a number of sessions of one length, given
// by one of its crews in one of its rooms.
type Line struct {
	// Name is how reasons name the line ("Yoga").
	Name string
	// Sessions is how many sessions each week of Weeks holds or, with
	// PerRotation, how many the whole rotation holds.
	Sessions    int
	PerRotation bool
	Minutes     int
	// Crews are the staff who may give a session, each choice a set (a
	// class's staff, or one qualified coach); one is chosen per session.
	Crews [][]int64
	// Rooms may hold a session; empty: any room.
	Rooms []int64
	// Units is how much of the room a session uses; zero: all of it.
	Units int
	// Weeks (1..Cycle) the line runs in; empty: every week.
	Weeks []int
	// Windows are the preferred times; a session outside all of them costs
	// "window".
	Windows []Window
	// DaysApart: two sessions of a week fewer days apart than this cost
	// "daysApart" (1: not on one day, 2: not on consecutive days).
	DaysApart int
	// SameRoom and SameCoach: each room or crew beyond the first costs.
	SameRoom, SameCoach bool
	// Weight multiplies the line's preferences; zero is 1.
	Weight int
}

// Window is a preferred span on some weekdays (none listed: every day).
type Window struct {
	Weekdays   []time.Weekday
	Start, End engine.LocalTime
}

// Staff are the limits of one staff member.
type Staff struct {
	ID   int64
	Name string
	// Hours are the working hours a session must fit, every set of them
	// (the hours in force when the rotation starts and every later set);
	// a set without spans allows everything, and so do none.
	Hours []engine.WorkingHours
	// MaxMinutes and MaxSessions a week, counting what they already give;
	// zero: no limit.
	MaxMinutes, MaxSessions int
	// Rest is the fewest minutes between two of their sessions.
	Rest int
}

// Room is a room and its weekly capacity.
type Room struct {
	ID    int64
	Name  string
	Units int // zero: 1
	// Levels, when any, are the room's weekly capacity rules: time no
	// level covers has no capacity (the engine's CapacityRule).
	Levels []Level
}

// Level is a weekly capacity of a room.
type Level struct {
	Weekdays   []time.Weekday
	Start, End engine.LocalTime
	Units      int
}

// Occupancy is what the business already runs, seen from the rotation: for
// week w (0-based) of the frame's cycle and a weekday, what of each room is
// taken and when each staff member is busy, on any date that week and day
// of the rotation fall on.
type Occupancy interface {
	RoomUse(room int64, week int, wd time.Weekday) []Use
	StaffBusy(staff int64, week int, wd time.Weekday) []Busy
}

// Use is a span of a room taken; Units zero is the whole room.
type Use struct {
	Start, End engine.LocalTime
	Units      int
}

// Busy is a span a staff member is not free: in a session, or Away (time
// off), which counts toward neither their load nor their rest.
type Busy struct {
	Start, End engine.LocalTime
	Away       bool
}

// Nothing is the occupancy of an empty timetable.
type Nothing struct{}

func (Nothing) RoomUse(int64, int, time.Weekday) []Use    { return nil }
func (Nothing) StaffBusy(int64, int, time.Weekday) []Busy { return nil }

// Options steer a solve.
type Options struct {
	Seed uint64
	// Work is the budget of the search in units of options looked at;
	// zero is DefaultWork. The same problem, seed and budget always give
	// the same proposal.
	Work int64
	// Stop, checked now and then, ends the search early with the best
	// proposal found (a deadline, a cancelled request).
	Stop func() bool
	// Progress, when set, hears how the search goes: just before each
	// check of Stop (the first once the construction is done) and once
	// when it ends. It runs on the search's goroutine, so a caller that
	// blocks in it holds the search at a known count of work.
	Progress func(Progress)
}

// Progress is a search under way: the Work it has spent of its Budget
// (the construction not counted), and the best solution it has found so
// far.
type Progress struct {
	Work, Budget     int64
	Placed, Unplaced int
	Soft             int
}

// DefaultWork is the budget of a solve left without one.
const DefaultWork = 20_000_000

// Proposal is a solve's answer.
type Proposal struct {
	Placements []Placement
	Unplaced   []Unplaced
	Score      Score
	// Work is the budget spent; Stopped is set when Stop ended the search.
	Work    int64
	Stopped bool
}

// Placement is one placed session: line Line in week Week (1..Cycle).
type Placement struct {
	Line       int
	Week       int
	Weekday    time.Weekday
	Start, End engine.LocalTime
	Room       int64
	Crew       []int64
}

// Unplaced is a line not fully placed: Missing sessions, and Reason, the
// constraints that together leave no room for one more (no one of them
// can be dropped and still leave none).
type Unplaced struct {
	Line    int
	Missing int
	Reason  []Constraint
}

// Constraint kinds, as Unplaced reasons name them.
const (
	NoCrew       = "noCrew"       // the line has no one to give it
	NoRoom       = "noRoom"       // the line has no room to be in
	DayBounds    = "frame"        // the day's earliest and latest times
	Hours        = "hours"        // Staff's working hours
	TimeOff      = "timeOff"      // Staff's time off
	StaffBusy    = "staffBusy"    // Staff's other sessions
	StaffLimit   = "staffLimit"   // Staff's most a week, or their rest
	RoomCapacity = "roomCapacity" // Room's capacity and closed times
	RoomBusy     = "roomBusy"     // Room's other sessions
	Timetable    = "timetable"    // the timetable, exactly (Slots): something dated, or beyond one window
)

// Constraint is one hard constraint, of a staff member or a room or of the
// line itself.
type Constraint struct {
	Kind  string
	Staff int64
	Room  int64
}

// Score is how good a proposal is: Unplaced sessions first (hard), then the
// weighted preferences missed (soft, lower is better), per kind.
type Score struct {
	Unplaced int
	Soft     int
	Parts    []Part
}

// Part is the weighted cost of one kind of preference.
type Part struct {
	Name  string
	Value int
}

// Preference kinds.
const (
	PrefWindow    = "window"
	PrefDaysApart = "daysApart"
	PrefSameRoom  = "sameRoom"
	PrefSameCoach = "sameCoach"
)

var prefKinds = []string{PrefWindow, PrefDaysApart, PrefSameRoom, PrefSameCoach}
