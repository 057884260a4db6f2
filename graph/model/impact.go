package model

import (
	"github.com/koredyne/schedule/engine"
	"github.com/koredyne/schedule/models"
)

// ImpactSession is one session a write affects, as the API shows it, with
// the people on it the request may see.
type ImpactSession struct {
	ID               string
	Changes          []ImpactChange
	Before           *engine.Origin
	Session          *Session
	Bookings         []models.SessionBooking
	Standing         []engine.Standing
	Waitlist         []models.SessionBooking
	StandingWaitlist []engine.Standing
}
