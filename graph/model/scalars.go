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
		return 0, engine.Errorf(engine.Invalid, "id", "%v is not an id", v)
	}
	id, err := strconv.ParseInt(s, 10, 64)
	if err != nil || id <= 0 {
		return 0, engine.Errorf(engine.Invalid, "id", "%q is not an id", s)
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
		return 0, engine.Errorf(engine.Invalid, "date", "a date is written as a string, YYYY-MM-DD")
	}
	d, err := engine.ParseDate(s)
	if err != nil {
		return 0, engine.Errorf(engine.Invalid, "date", "%v", err)
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
		return 0, engine.Errorf(engine.Invalid, "time", "a time is written as a string, HH:MM")
	}
	t, err := engine.ParseLocalTime(s)
	if err != nil {
		return 0, engine.Errorf(engine.Invalid, "time", "%v", err)
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
		return time.Time{}, engine.Errorf(engine.Invalid, "dateTime", "an instant is written as a string in RFC 3339, such as 2026-12-01T09:00:00Z")
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}, engine.Errorf(engine.Invalid, "dateTime", "%q is not an instant in RFC 3339, such as 2026-12-01T09:00:00Z or 2026-12-01T10:00:00+01:00", s)
	}
	return t, nil
}
