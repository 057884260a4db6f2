package engine

import (
	"errors"
	"fmt"
)

// Code classifies an error for the edges that report it (GraphQL
// extensions.code, HTTP status); each edge maps the codes once.
type Code string

const (
	Invalid  Code = "invalid"   // bad input: nothing is written
	NotFound Code = "not found" // the thing named does not exist (in this business)
	InUse    Code = "in use"    // it cannot be removed while something uses it
	Conflict Code = "conflict"  // the write would add a clash
	// Unavailable: the write would put a staff member into a session they
	// are away for or outside their working hours.
	Unavailable Code = "unavailable"
	Full        Code = "full"      // no places or units left
	OverPlan    Code = "over plan" // the client's plan has no sessions left this month
	Stopped     Code = "stopped"   // the caller's deadline passed before the work was done
)

// ErrStopped is returned by work that the caller's stop function ended
// (see Timetable.ClashesOrStop): the request ran out of time, and nothing
// was decided.
var ErrStopped = &Error{Code: Stopped, Message: stopped, Format: stopped}

const stopped = "The request took too long and was stopped; nothing was changed"

// Error is an error with a code, the field it is about (API names, such as
// "anchorDate"; may be empty) and a message in the business's words.
type Error struct {
	Code    Code
	Field   string
	Message string
	// Format and Args are what Message was written from (Errorf): the edges
	// look Format up in a language's catalogue and write the message in it.
	Format string
	Args   []any
	// Details are facts a client can act on ("placesLeft", "used").
	Details map[string]any
}

func (e *Error) Error() string { return e.Message }

// Errorf returns an *Error with a formatted message.
func Errorf(code Code, field, format string, args ...any) *Error {
	return &Error{Code: code, Field: field, Message: fmt.Sprintf(format, args...), Format: format, Args: args}
}

// ErrorCode returns the code of err: that of an *Error or a
// *ValidationError, and "" for anything else (an internal error).
func ErrorCode(err error) Code {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	var v *ValidationError
	if errors.As(err, &v) {
		return v.Code()
	}
	return ""
}
