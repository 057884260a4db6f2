// Package model holds the GraphQL-only types: the scalars' marshalling and
// the types gqlgen generates for payloads and inputs.
package model

import (
	"encoding/json"
	"io"
	"strconv"
	"time"

	"github.com/99designs/gqlgen/graphql"

	"github.com/koredyne/schedule/engine"
)

// ValueError is a value a scalar cannot read: BAD_USER_INPUT. The scalar
// does not know where the value was given; the API's error presenter
// names it from the error's path (the argument, or the field of an input
// inside it), as the client wrote it.
type ValueError struct{ err *engine.Error }

func (e *ValueError) Error() string { return e.err.Error() }
func (e *ValueError) Unwrap() error { return e.err }

func badValue(format string, args ...any) error {
	return &ValueError{engine.Errorf(engine.Invalid, "", format, args...)}
}

// MarshalID64 writes a row id as a GraphQL ID (a string).
func MarshalID64(id int64) graphql.Marshaler {
	return graphql.WriterFunc(func(w io.Writer) {
		io.WriteString(w, strconv.Quote(strconv.FormatInt(id, 10)))
	})
}

// UnmarshalID64 reads a GraphQL ID naming a row.
func UnmarshalID64(v any) (int64, error) {
	var s string
	switch x := v.(type) {
	case string:
		s = x
	case json.Number:
		s = x.String()
	case int64:
		return x, nil
	case int:
		return int64(x), nil
	default:
		return 0, badValue("%v is not an id", v)
	}
	id, err := strconv.ParseInt(s, 10, 64)
	if err != nil || id <= 0 {
		return 0, badValue("%q is not an id", s)
	}
	return id, nil
}

// MarshalDate writes an engine.Date as YYYY-MM-DD.
func MarshalDate(d engine.Date) graphql.Marshaler {
	return graphql.WriterFunc(func(w io.Writer) { io.WriteString(w, strconv.Quote(d.String())) })
}

// UnmarshalDate reads YYYY-MM-DD strictly.
func UnmarshalDate(v any) (engine.Date, error) {
	s, ok := v.(string)
	if !ok {
		return 0, badValue("a date is written as a string, YYYY-MM-DD")
	}
	d, err := engine.ParseDate(s)
	if err != nil {
		return 0, badValue("%v", err)
	}
	return d, nil
}

// MarshalLocalTime writes an engine.LocalTime as HH:MM.
func MarshalLocalTime(t engine.LocalTime) graphql.Marshaler {
	return graphql.WriterFunc(func(w io.Writer) { io.WriteString(w, strconv.Quote(t.String())) })
}

// UnmarshalLocalTime reads HH:MM strictly.
func UnmarshalLocalTime(v any) (engine.LocalTime, error) {
	s, ok := v.(string)
	if !ok {
		return 0, badValue("a time is written as a string, HH:MM")
	}
	t, err := engine.ParseLocalTime(s)
	if err != nil {
		return 0, badValue("%v", err)
	}
	return t, nil
}

// MarshalDateTime writes an instant in RFC 3339, as gqlgen's Time does.
func MarshalDateTime(t time.Time) graphql.Marshaler { return graphql.MarshalTime(t) }

// UnmarshalDateTime reads an RFC 3339 instant ("2026-12-01T09:00:00Z" or
// with an offset); anything else is the client's mistake, said as such.
func UnmarshalDateTime(v any) (time.Time, error) {
	s, ok := v.(string)
	if !ok {
		return time.Time{}, badValue("an instant is written as a string in RFC 3339, such as 2026-12-01T09:00:00Z")
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}, badValue("%q is not an instant in RFC 3339, such as 2026-12-01T09:00:00Z or 2026-12-01T10:00:00+01:00", s)
	}
	return t, nil
}

// SessionID is a session's id as an argument (the SessionID scalar): a
// series session by its ref, or a one-off by its id (OneOff not 0).
type SessionID struct {
	Ref    engine.SessionRef
	OneOff int64
}

// String is the id as the API writes it (engine.SessionKey).
func (s SessionID) String() string { return engine.SessionKey(s.Ref, s.OneOff) }

// MarshalSessionID writes a session's id as text.
func MarshalSessionID(s SessionID) graphql.Marshaler {
	return graphql.WriterFunc(func(w io.Writer) { io.WriteString(w, strconv.Quote(s.String())) })
}

// UnmarshalSessionID reads a session's id as engine.ParseSessionKey does,
// strictly; whether the session happens is for the resolver to check.
func UnmarshalSessionID(v any) (SessionID, error) {
	s, ok := v.(string)
	if !ok {
		return SessionID{}, badValue("a session id is written as text, such as s/2026-12-05/103/19 or o/42")
	}
	ref, oneOff, err := engine.ParseSessionKey(s)
	if e, ok := err.(*engine.Error); ok {
		return SessionID{}, &ValueError{e}
	}
	return SessionID{Ref: ref, OneOff: oneOff}, err
}
