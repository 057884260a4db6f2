package locale

import (
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/koredyne/schedule/engine"
)

// Codes are the extensions.code values the API answers; each has a message
// in every catalogue ("code.NOT_FOUND"), the words of an error whose own
// message a catalogue does not have.
var Codes = []string{
	"BAD_USER_INPUT", "NOT_FOUND", "IN_USE", "CLASH", "CAPACITY_FULL", "PLAN_LIMIT", "TIMEOUT",
	"UNAUTHENTICATED", "FORBIDDEN", "UNAVAILABLE", "NOT_SERVED", "INTERNAL", "BAD_REQUEST",
	"REQUEST_TOO_LARGE", "RESPONSE_TOO_LARGE", "METHOD_NOT_ALLOWED", "UNSUPPORTED_MEDIA_TYPE",
	"QUERY_TOO_COMPLEX", "QUERY_TOO_DEEP", "RATE_LIMITED", "GRAPHQL_VALIDATION_FAILED",
	"GRAPHQL_PARSE_FAILED", "PERSISTED_QUERY_NOT_FOUND",
}

// errorPrefix marks the catalogue entries that translate an English message
// format of the code (engine.Errorf and its kind): "error:" + the format.
const errorPrefix = "error:"

// Message writes an error in the locale's language: the English format the
// code wrote it from (engine.Error.Format) looked up in the catalogue and
// filled with args, the vocabulary words and day names among them in the
// language too; an English locale writes it as the code does, byte for
// byte. Where the catalogue has no such message (a message written without
// a format, or a new one a catalogue lags behind on) it is the code's
// message with the field it names.
func (l *Locale) Message(kind engine.Kind, code, field, english, format string, args []any) string {
	if l.Language == "en" {
		return english
	}
	if format != "" {
		if m, ok := l.lang.messages[errorPrefix+format]; ok {
			return l.printer.Sprintf(m["other"], l.args(kind, args)...)
		}
	}
	return l.Code(code, field)
}

// Code is the code's own message, naming the field when there is one.
func (l *Locale) Code(code, field string) string {
	id := "code." + code
	if !l.Has(id) {
		id = "code.INTERNAL"
	}
	msg := l.Text(id, nil)
	if field != "" {
		msg += " (" + field + ")"
	}
	return msg
}

var counted = regexp.MustCompile(`^(\d+) (.+)$`)

// args puts the English words among args (what the code writes with
// engine.Words and time.Weekday) into the locale's language; names,
// dates and numbers pass as they are.
func (l *Locale) args(kind engine.Kind, args []any) []any {
	here := l.Words(kind)
	ew := engine.Words(kind)
	pairs := []struct {
		e engine.Word
		w Word
	}{{ew.Class, here.Class}, {ew.Staff, here.Staff}, {ew.Activity, here.Activity}, {ew.Client, here.Client}, {ew.Series, here.Series}, {ew.Room, here.Room}}
	out := make([]any, len(args))
	for i, a := range args {
		out[i] = a
		switch v := a.(type) {
		case time.Weekday:
			out[i] = l.Weekday(v)
		case string:
			for _, p := range pairs {
				switch v {
				case p.e.One, p.e.A(), p.e.Title():
					out[i] = p.w.One
				case p.e.Many, capitalize(p.e.Many):
					out[i] = p.w.Many
				}
			}
			if m := counted.FindStringSubmatch(v); m != nil {
				n, err := strconv.Atoi(m[1])
				for _, p := range pairs {
					if err == nil && (m[2] == p.e.One || m[2] == p.e.Many) {
						out[i] = l.Count(n, p.w)
					}
				}
			}
		}
	}
	return out
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
