package graph

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strconv"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"

	"github.com/koredyne/schedule/engine"
	"github.com/koredyne/schedule/graph/model"
)

// plainSchema answers the timetable's common queries — days, day and
// sessions, with what a session shows of itself, its room, class,
// activity, staff and series — by writing their JSON directly from the
// same resolvers and marshalers, instead of gqlgen's execution: that
// spends a goroutine on every element of every list, grows each one's
// stack, and allocates a field context, a field set and a path for every
// field and object (42,900 allocations and 8.4 ms for a week of the gym
// demo, 103 sessions; 2,200 and 2.0 ms here). Any other query, and one
// with fragments, directives, arguments or fields it does not know, goes
// to gqlgen, and so does one whose resolvers return an error (gqlgen then
// reports it as it would): the answer is byte for byte gqlgen's
// (TestPlainAnswersAreGqlgens).
type plainSchema struct {
	graphql.ExecutableSchema
	r *Resolver
	// most is the largest answer written here; a larger one goes to
	// gqlgen, where the response limit follows it field by field.
	most int
}

func (s plainSchema) Exec(ctx context.Context) graphql.ResponseHandler {
	oc := graphql.GetOperationContext(ctx)
	roots, ok := plainQuery(oc.Operation, oc.Variables)
	if !ok {
		return s.ExecutableSchema.Exec(ctx)
	}
	var gqlgen graphql.ResponseHandler
	first := true
	return func(ctx context.Context) *graphql.Response {
		switch {
		case gqlgen != nil:
			return gqlgen(ctx)
		case !first:
			return nil
		}
		first = false
		if data, ok := s.answer(ctx, roots); ok {
			return &graphql.Response{Data: data}
		}
		gqlgen = s.ExecutableSchema.Exec(ctx)
		return gqlgen(ctx)
	}
}

// plainField is a field of a query plainSchema answers: its response key,
// written as JSON (`"alias":`), its name, and what is selected of it.
type plainField struct {
	key  string
	name string
	sub  []plainField
	date engine.Date // day's date; days' and sessions' first date
	to   engine.Date // days' and sessions' last date, exclusive
	// staff, room and series are sessions' filters.
	staff, room, series *int64
}

// plainTypes are the fields plainSchema answers, by type, each with the
// type it selects from (none for a scalar).
var plainTypes = map[string]map[string]string{
	"Day": {"date": "", "sessions": "Session"},
	"Session": {"id": "", "date": "", "start": "", "end": "", "startsAt": "", "endsAt": "",
		"room": "Room", "class": "Class", "staff": "Staff", "label": "", "capacity": "",
		"series": "SeriesWeek", "cancelled": "", "cancelReason": "", "changed": "", "note": ""},
	"Room":       {"id": "", "name": "", "capacity": ""},
	"Class":      {"id": "", "name": "", "activity": "Activity"},
	"Activity":   {"id": "", "name": "", "color": ""},
	"Staff":      {"id": "", "name": ""},
	"SeriesWeek": {"series": "Series", "week": "", "cycleWeeks": ""},
	"Series":     {"id": "", "name": ""},
}

// plainQuery returns the root fields of op when plainSchema answers it:
// a query of days (without a filter), day and sessions.
func plainQuery(op *ast.OperationDefinition, vars map[string]any) ([]plainField, bool) {
	if op.Operation != ast.Query || len(op.Directives) > 0 {
		return nil, false
	}
	roots := make([]plainField, 0, len(op.SelectionSet))
	for _, sel := range op.SelectionSet {
		f, ok := sel.(*ast.Field)
		if !ok || len(f.Directives) > 0 || repeated(roots, f.Alias) {
			return nil, false
		}
		p := plainField{key: `"` + f.Alias + `":`, name: f.Name}
		var err error
		args := f.ArgumentMap(vars)
		switch f.Name {
		case "__typename":
			roots = append(roots, p)
			continue
		case "day":
			p.date, err = model.UnmarshalDate(args["date"])
		case "days", "sessions":
			if args["filter"] != nil {
				return nil, false
			}
			p.date, err = model.UnmarshalDate(args["from"])
			if err == nil {
				p.to, err = model.UnmarshalDate(args["to"])
			}
			var errs [3]error
			p.staff, errs[0] = optionalID(args["staffId"])
			p.room, errs[1] = optionalID(args["roomId"])
			p.series, errs[2] = optionalID(args["seriesId"])
			err = errors.Join(err, errs[0], errs[1], errs[2])
		default:
			return nil, false
		}
		if err != nil {
			return nil, false
		}
		typ := "Day"
		if f.Name == "sessions" {
			typ = "Session"
		}
		if p.sub, ok = plainSelection(f.SelectionSet, typ); !ok {
			return nil, false
		}
		roots = append(roots, p)
	}
	return roots, true
}

// optionalID is an ID argument that may be left out (nil).
func optionalID(v any) (*int64, error) {
	if v == nil {
		return nil, nil
	}
	id, err := model.UnmarshalID64(v)
	return &id, err
}

// plainSelection returns what set selects of typ, when plainSchema
// answers all of it.
func plainSelection(set ast.SelectionSet, typ string) ([]plainField, bool) {
	fields := plainTypes[typ]
	out := make([]plainField, 0, len(set))
	for _, sel := range set {
		f, ok := sel.(*ast.Field)
		if !ok || len(f.Directives) > 0 || len(f.Arguments) > 0 || repeated(out, f.Alias) {
			return nil, false
		}
		p := plainField{key: `"` + f.Alias + `":`, name: f.Name}
		if f.Name != "__typename" {
			sub, known := fields[f.Name]
			if !known || (sub == "") != (len(f.SelectionSet) == 0) {
				return nil, false
			}
			if sub != "" {
				if p.sub, ok = plainSelection(f.SelectionSet, sub); !ok {
					return nil, false
				}
			}
		}
		out = append(out, p)
	}
	return out, true
}

// repeated is whether a response key is taken already: gqlgen merges
// fields of one key, which plainSchema leaves to it.
func repeated(fs []plainField, alias string) bool {
	for _, f := range fs {
		if f.key[1:len(f.key)-2] == alias {
			return true
		}
	}
	return false
}

// answer writes the answer of roots, or reports that gqlgen should.
func (s plainSchema) answer(ctx context.Context, roots []plainField) (data []byte, ok bool) {
	defer func() {
		if recover() != nil {
			ok = false // gqlgen's execution recovers and reports it
		}
	}()
	q := s.r.Query()
	w := &plainWriter{}
	w.WriteByte('{')
	for i, f := range roots {
		if i > 0 {
			w.WriteByte(',')
		}
		w.WriteString(f.key)
		switch f.name {
		case "__typename":
			w.str("Query")
		case "day":
			day, err := q.Day(ctx, f.date)
			if err != nil || day == nil {
				return nil, false
			}
			w.day(day, f.sub)
		case "days":
			days, err := q.Days(ctx, f.date, f.to, nil)
			if err != nil || days == nil {
				return nil, false
			}
			w.WriteByte('[')
			for i := range days {
				if i > 0 {
					w.WriteByte(',')
				}
				w.day(&days[i], f.sub)
				if w.Len() > s.most {
					return nil, false
				}
			}
			w.WriteByte(']')
		case "sessions":
			sessions, err := q.Sessions(ctx, f.date, f.to, f.staff, f.room, f.series)
			if err != nil || sessions == nil {
				return nil, false
			}
			w.list(len(sessions), func(i int) { w.session(&sessions[i], f.sub) })
		}
		if w.null || w.Len() > s.most || ctx.Err() != nil {
			return nil, false
		}
	}
	w.WriteByte('}')
	return w.Bytes(), true
}

// plainWriter writes an answer's objects, each field as gqlgen marshals it.
type plainWriter struct {
	bytes.Buffer
	null bool // a non-null field was null: gqlgen reports it
}

func (w *plainWriter) str(s string)            { graphql.MarshalString(s).MarshalGQL(w) }
func (w *plainWriter) int(n int)               { w.WriteString(strconv.Itoa(n)) }
func (w *plainWriter) id(id int64)             { model.MarshalID64(id).MarshalGQL(w) }
func (w *plainWriter) bool(b bool)             { graphql.MarshalBoolean(b).MarshalGQL(w) }
func (w *plainWriter) date(d engine.Date)      { model.MarshalDate(d).MarshalGQL(w) }
func (w *plainWriter) time(t engine.LocalTime) { model.MarshalLocalTime(t).MarshalGQL(w) }

func (w *plainWriter) optStr(s *string) {
	if s == nil {
		io.WriteString(w, "null")
		return
	}
	w.str(*s)
}

// list writes a list of n elements, each with elem.
func (w *plainWriter) list(n int, elem func(i int)) {
	w.WriteByte('[')
	for i := range n {
		if i > 0 {
			w.WriteByte(',')
		}
		elem(i)
	}
	w.WriteByte(']')
}

// named writes an object of type typ that shows an id and a name.
func (w *plainWriter) named(typ string, fs []plainField, id int64, name string) {
	w.object(typ, fs, func(f *plainField) {
		if f.name == "id" {
			w.id(id)
		} else {
			w.str(name)
		}
	})
}

// object writes the fields fs of an object of type typ, each with value.
func (w *plainWriter) object(typ string, fs []plainField, value func(f *plainField)) {
	w.WriteByte('{')
	for i := range fs {
		if i > 0 {
			w.WriteByte(',')
		}
		w.WriteString(fs[i].key)
		if fs[i].name == "__typename" {
			w.str(typ)
		} else {
			value(&fs[i])
		}
	}
	w.WriteByte('}')
}

func (w *plainWriter) day(d *model.Day, fs []plainField) {
	w.object("Day", fs, func(f *plainField) {
		switch f.name {
		case "date":
			w.date(d.Date)
		case "sessions":
			w.list(len(d.Sessions), func(i int) { w.session(&d.Sessions[i], f.sub) })
		}
	})
}

func (w *plainWriter) session(s *model.Session, fs []plainField) {
	w.object("Session", fs, func(f *plainField) {
		switch f.name {
		case "id":
			graphql.MarshalID(s.ID).MarshalGQL(w)
		case "date":
			w.date(s.Date)
		case "start":
			w.time(s.Start)
		case "end":
			w.time(s.End)
		case "startsAt":
			model.MarshalDateTime(s.StartsAt).MarshalGQL(w)
		case "endsAt":
			model.MarshalDateTime(s.EndsAt).MarshalGQL(w)
		case "room":
			w.object("Room", f.sub, func(f *plainField) {
				switch f.name {
				case "id":
					w.id(s.Room.ID)
				case "name":
					w.str(s.Room.Name)
				case "capacity":
					w.int(s.Room.Units())
				}
			})
		case "class":
			if s.Class == nil {
				w.null = true
				return
			}
			w.object("Class", f.sub, func(f *plainField) {
				switch f.name {
				case "id":
					w.id(s.Class.ID)
				case "name":
					w.str(s.Class.Name)
				case "activity":
					a := &s.Class.Activity
					w.object("Activity", f.sub, func(f *plainField) {
						switch f.name {
						case "id":
							w.id(a.ID)
						case "name":
							w.str(a.Name)
						case "color":
							w.optStr(a.Color)
						}
					})
				}
			})
		case "staff":
			w.list(len(s.Staff), func(i int) { w.named("Staff", f.sub, s.Staff[i].ID, s.Staff[i].Name) })
		case "label":
			w.optStr(s.Label)
		case "capacity":
			if s.Capacity == nil {
				io.WriteString(w, "null")
			} else {
				w.int(*s.Capacity)
			}
		case "series":
			w.list(len(s.Series), func(i int) {
				sw := &s.Series[i]
				w.object("SeriesWeek", f.sub, func(f *plainField) {
					switch f.name {
					case "week":
						w.int(sw.Week)
					case "cycleWeeks":
						w.int(sw.CycleWeeks)
					case "series":
						w.named("Series", f.sub, sw.Series.ID, sw.Series.Name)
					}
				})
			})
		case "cancelled":
			w.bool(s.Cancelled)
		case "cancelReason":
			w.optStr(s.CancelReason)
		case "changed":
			w.bool(s.Changed)
		case "note":
			w.optStr(s.Note)
		}
	})
}
