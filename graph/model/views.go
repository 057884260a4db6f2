package model

import (
	"time"

	"github.com/koredyne/schedule/engine"
)

// The types below are what the API shows of the engine's values on its hot
// paths, resolved up front from the request's snapshot. gqlgen resolves a
// field that needs a resolver on a goroutine of its own; a week of sessions
// read through resolvers costs thousands of them, read from these plain
// fields it costs none.

// Activity is an activity as the API shows it.
type Activity struct {
	ID    int64
	Name  string
	Color *string
}

// Class is a class with its activity and staff resolved.
type Class struct {
	ID       int64
	Activity Activity
	Staff    []engine.Staff
	// Name is how people name it: "Boxing with Marco Reyes".
	Name string
}

// SeriesWeek is one series a session belongs to, with its week.
type SeriesWeek struct {
	Series     engine.Series
	Week       int
	CycleWeeks int
}

// Session is a computed session with everything it names resolved.
type Session struct {
	ID           string
	Date         engine.Date
	Start, End   engine.LocalTime
	StartsAt     time.Time
	EndsAt       time.Time
	Room         engine.Room
	Class        *Class
	Staff        []engine.Staff
	Label        *string
	Capacity     *int
	Series       []SeriesWeek
	Ref          *engine.SessionRef
	OneOff       *engine.OneOff
	Cancelled    bool
	CancelReason *string
	Changed      bool
	Origin       *engine.Origin
	Note         *string
}
