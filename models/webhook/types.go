package webhook

import (
	"slices"
	"strings"
)

// Type is a kind of event a business's endpoints may ask for.
type Type struct {
	// Name is the event's type as sent: "session.cancelled".
	Name string
	// Description says when it is sent and what its data holds.
	Description string
}

// The event types the schedule sends. A feature that adds events (a
// session that needs cover, standing bookings) adds its types here, with
// Register, and records them in the writes that cause them; endpoints
// can ask for a type once it is registered.
const (
	ScheduleChanged  = "schedule.changed"
	SessionCancelled = "session.cancelled"
	SessionRestored  = "session.restored"
	SessionMoved     = "session.moved"
	SessionChanged   = "session.changed"
	BookingCreated   = "booking.created"
	BookingCancelled = "booking.cancelled"
	BookingPromoted  = "booking.promoted"
	ClientCreated    = "client.created"
	StandingCreated  = "standing_booking.created"
	StandingUpdated  = "standing_booking.updated"
	StandingEnded    = "standing_booking.ended"
	StandingSkipped  = "standing_booking.skipped"
)

var types = []Type{
	{ScheduleChanged, "Once per committed write: the business's new revision and the dates whose sessions (or their bookings) may differ, from up to the exclusive to (null: every date from from on)."},
	{SessionCancelled, "A session that was on is cancelled, or no longer exists (removed: its series ended, its class time or one-off was deleted)."},
	{SessionRestored, "A cancelled session is on again."},
	{SessionMoved, "A session is on another date: from and to say where it was and where it is."},
	{SessionChanged, "A session on its date starts or ends at another time, is in another room, has other staff, is another class or has another number of places: changes lists which, before and after hold both versions."},
	{BookingCreated, "A client booked a place in a session, or a place on its wait list (status waitlisted)."},
	{BookingCancelled, "A booking or a place on a wait list was cancelled (status cancelled, or late_cancel within 12 hours of the start)."},
	{BookingPromoted, "A wait-listed client got a place that was freed."},
	{ClientCreated, "A client was added (by a request, an import, a demo or a restored backup)."},
	{StandingCreated, "A client was given a standing place: a place in every occurrence of a series session from a date (waitlist: it waits on the dates that were full)."},
	{StandingUpdated, "A standing place's dates or wait list changed (by a request, or a membership that ends sooner)."},
	{StandingEnded, "A standing place ends: it holds no date from the day after until (removed: it never started)."},
	{StandingSkipped, "A client gave up a standing place on one date (late: within 12 hours of the start, counted on the plan)."},
}

// Register adds an event type, for features that send events of their
// own; it is called before the server starts, and a name registered
// twice keeps its first description.
func Register(name, description string) {
	if !Known(name) {
		types = append(types, Type{name, description})
	}
}

// Types lists the registered event types by name.
func Types() []Type {
	out := slices.Clone(types)
	slices.SortFunc(out, func(a, b Type) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// Known reports whether name is a registered event type.
func Known(name string) bool {
	return slices.ContainsFunc(types, func(t Type) bool { return t.Name == name })
}
