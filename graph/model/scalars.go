// Package model holds the GraphQL-only types: the scalars' marshalling and
// the types gqlgen generates for payloads and inputs.
package model

import (
	"encoding/json"
	"io"
	"strconv"

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
