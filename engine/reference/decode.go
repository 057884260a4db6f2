package reference

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/big"
	"sort"
	"strings"

	"github.com/koredyne/schedule/engine"
)

// Problem is one thing in the export that stops it from being imported.
// Table and Field use the export's names; ID is the row's id, or zero for
// rows without one, which Row (1-based) then points at. Problems about the
// file as a whole have no table.
type Problem struct {
	Table   string
	ID      int64
	Row     int
	Field   string
	Message string
	// kind is the message's pattern (the format it was written from): the
	// problems of one table and field with one kind are alike, and are
	// counted rather than listed past the first few.
	kind string
}

func (p Problem) String() string {
	var b strings.Builder
	b.WriteString(p.Table)
	switch {
	case p.ID != 0:
		fmt.Fprintf(&b, " id %d", p.ID)
	case p.Row != 0:
		fmt.Fprintf(&b, " row %d", p.Row)
	}
	if p.Field != "" {
		if b.Len() > 0 {
			b.WriteString(", ")
		}
		b.WriteString(p.Field)
	}
	if b.Len() > 0 {
		b.WriteString(": ")
	}
	b.WriteString(p.Message)
	return b.String()
}

// Error lists every problem found in an export, not just the first.
type Error struct {
	Problems []Problem
}

// Error writes the problems as Lines does, on one line.
func (e *Error) Error() string {
	return "the export cannot be imported: " + strings.Join(e.Lines(), "; ")
}

// Alike is how many problems of one kind (one table, one field, one
// message but for its values) Lines writes out before it counts the rest.
const Alike = 3

// Lines writes the problems for people, in the order found: the first
// Alike of each kind, then how many more of that kind there are. A broken
// export tends to break every row of a table the same way: a hundred slots
// naming an area that is not there are three lines and a count, not a
// hundred lines.
func (e *Error) Lines() []string {
	type group struct {
		first []Problem
		more  int
	}
	var order []string
	groups := map[string]*group{}
	for _, p := range e.Problems {
		kind := p.kind
		if kind == "" {
			kind = p.Message
		}
		key := p.Table + "\x00" + p.Field + "\x00" + kind
		g := groups[key]
		if g == nil {
			g = &group{}
			groups[key] = g
			order = append(order, key)
		}
		if len(g.first) < Alike {
			g.first = append(g.first, p)
		} else {
			g.more++
		}
	}
	var out []string
	for _, key := range order {
		g := groups[key]
		for _, p := range g.first {
			out = append(out, p.String())
		}
		if g.more > 0 {
			where := g.first[0].Table
			if f := g.first[0].Field; f != "" {
				where += ", " + f
			}
			out = append(out, fmt.Sprintf("and %d more like these in %s", g.more, where))
		}
	}
	return out
}

// Note reports something the import did not carry over as it stood: an
// unknown table or field (Field empty for a whole table), or a value
// converted to an equivalent our engine accepts.
type Note struct {
	Table   string
	Field   string
	Message string
}

func (n Note) String() string {
	if n.Table == "" && n.Field == "" {
		return n.Message
	}
	where := n.Table
	if n.Field != "" {
		if where != "" {
			where += "."
		}
		where += n.Field
	}
	return where + ": " + n.Message
}

// row is one object of a table; getters mark the fields they read so that
// the rest can be reported as unknown.
type row struct {
	table string
	n     int // 1-based position in its table
	id    int64
	f     map[string]json.RawMessage
	read  map[string]bool
}

// decoder collects problems and notes while reading rows.
type decoder struct {
	problems []Problem
	notes    []Note
	unknown  map[[2]string]int // (table, field) → rows that carry it
}

func (d *decoder) fail(r *row, field, format string, args ...any) {
	p := Problem{Field: field, Message: fmt.Sprintf(format, args...), kind: format}
	if r != nil {
		p.Table, p.ID = r.table, r.id
		if r.id == 0 {
			p.Row = r.n
		}
	}
	d.problems = append(d.problems, p)
}

func (d *decoder) note(table, field, format string, args ...any) {
	d.notes = append(d.notes, Note{Table: table, Field: field, Message: fmt.Sprintf(format, args...)})
}

// rows splits a table into its row objects.
func (d *decoder) rows(table string, raw json.RawMessage) []*row {
	if raw == nil || isNull(raw) {
		return nil
	}
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		d.problems = append(d.problems, Problem{Table: table, Message: "must be a list of rows ([...])"})
		return nil
	}
	out := make([]*row, 0, len(items))
	for i, it := range items {
		r := &row{table: table, n: i + 1, read: map[string]bool{}}
		if err := json.Unmarshal(it, &r.f); err != nil || r.f == nil {
			d.fail(r, "", "is not an object ({...})")
			continue
		}
		out = append(out, r)
	}
	return out
}

// done reports the fields of r that no getter read.
func (d *decoder) done(r *row) {
	for k := range r.f {
		if !r.read[k] {
			d.unknown[[2]string{r.table, k}]++
		}
	}
}

func (d *decoder) unknownNotes() {
	keys := make([][2]string, 0, len(d.unknown))
	for k := range d.unknown {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i][0] != keys[j][0] {
			return keys[i][0] < keys[j][0]
		}
		return keys[i][1] < keys[j][1]
	})
	for _, k := range keys {
		n := d.unknown[k]
		rows := "1 row"
		if n != 1 {
			rows = fmt.Sprintf("%d rows", n)
		}
		d.note(k[0], k[1], "unknown field (in %s); not imported", rows)
	}
}

func isNull(raw json.RawMessage) bool { return string(bytes.TrimSpace(raw)) == "null" }

// value returns a field's raw JSON, or nil when it is absent or null.
func (r *row) value(field string) json.RawMessage {
	r.read[field] = true
	v, ok := r.f[field]
	if !ok || isNull(v) {
		return nil
	}
	return bytes.TrimSpace(v)
}

// id reads the row's id: a positive whole number.
func (d *decoder) id(r *row) int64 {
	v, ok := d.integer(r, "id", true)
	if ok && v <= 0 {
		d.fail(r, "id", "must be a positive whole number, not %d", v)
		return 0
	}
	r.id = v
	return v
}

// ref reads a required or optional id naming a row of another table.
func (d *decoder) ref(r *row, field string, required bool) int64 {
	v, ok := d.integer(r, field, required)
	if ok && v <= 0 {
		d.fail(r, field, "must be a positive id, not %d", v)
		return 0
	}
	return v
}

func (d *decoder) missing(r *row, field string) { d.fail(r, field, "is missing") }

// number reads a JSON number exactly, as a rational.
func (d *decoder) number(r *row, field string, required bool) (*big.Rat, bool) {
	v := r.value(field)
	if v == nil {
		if required {
			d.missing(r, field)
		}
		return nil, false
	}
	if v[0] == '"' {
		d.fail(r, field, "must be a number, not the text %s", v)
		return nil, false
	}
	var n json.Number
	if err := json.Unmarshal(v, &n); err != nil {
		d.fail(r, field, "must be a number, not %s", v)
		return nil, false
	}
	q, ok := new(big.Rat).SetString(n.String())
	if !ok {
		d.fail(r, field, "must be a number, not %s", v)
		return nil, false
	}
	return q, true
}

// integer reads a whole number.
func (d *decoder) integer(r *row, field string, required bool) (int64, bool) {
	q, ok := d.number(r, field, required)
	if !ok {
		return 0, false
	}
	if !q.IsInt() || !q.Num().IsInt64() || q.Num().Int64() > 1<<53 || q.Num().Int64() < -(1<<53) {
		d.fail(r, field, "must be a whole number, not %s", r.f[field])
		return 0, false
	}
	return q.Num().Int64(), true
}

// count reads a whole number in lo..hi; def when absent.
func (d *decoder) count(r *row, field string, lo, hi, def int) int {
	v, ok := d.integer(r, field, false)
	if !ok {
		return def
	}
	if v < int64(lo) || v > int64(hi) {
		d.fail(r, field, "must be between %d and %d, not %d", lo, hi, v)
		return def
	}
	return int(v)
}

// money reads an amount of currency units (SQLite REAL), kept to the
// thousandth; ok is false when it is absent. An amount with more decimals
// (a float's 33.333333333333336) is rounded, with a note.
func (d *decoder) money(r *row, field string) (_ engine.Money, ok bool) {
	q, ok := d.number(r, field, false)
	if !ok {
		return 0, false
	}
	text := r.f[field]
	m := new(big.Rat).Mul(q, big.NewRat(1000, 1))
	if !m.IsInt() {
		// Round half up to whole thousandths (negatives fail below).
		n := new(big.Int).Quo(new(big.Int).Add(new(big.Int).Mul(m.Num(), big.NewInt(2)), m.Denom()), new(big.Int).Mul(m.Denom(), big.NewInt(2)))
		m.SetInt(n)
		d.note(r.table, field, "%s is kept to the thousandth, as %s", text, engine.Money(n.Int64()))
	}
	switch {
	case q.Sign() < 0:
		d.fail(r, field, "must be 0 or more, not %s", text)
	case !m.Num().IsInt64() || m.Num().Int64() >= 1e15:
		d.fail(r, field, "%s is too large an amount", text)
	default:
		return engine.Money(m.Num().Int64()), true
	}
	return 0, true
}

// text reads a string; required text must not be blank.
func (d *decoder) text(r *row, field string, required bool) string {
	v := r.value(field)
	if v == nil {
		if required {
			d.missing(r, field)
		}
		return ""
	}
	var s string
	if err := json.Unmarshal(v, &s); err != nil {
		d.fail(r, field, "must be text (a JSON string), not %s", v)
		return ""
	}
	if required && strings.TrimSpace(s) == "" {
		d.fail(r, field, "is empty")
	}
	return s
}

func (d *decoder) date(r *row, field string, required bool) engine.Date {
	s := d.text(r, field, required)
	if s == "" {
		return 0
	}
	v, err := engine.ParseDate(s)
	if err != nil {
		d.fail(r, field, "%v", err)
		return 0
	}
	return v
}

// clock reads an "HH:MM" time; nil when absent.
func (d *decoder) clock(r *row, field string, required bool) *engine.LocalTime {
	s := d.text(r, field, required)
	if s == "" {
		return nil
	}
	v, err := engine.ParseLocalTime(s)
	if err != nil {
		d.fail(r, field, "%v", err)
		return nil
	}
	return &v
}

// flag reads true/false, or 0/1 as SQLite stores them; def when absent.
func (d *decoder) flag(r *row, field string, def bool) bool {
	v := r.value(field)
	switch string(v) {
	case "":
		return def
	case "true", "1":
		return true
	case "false", "0":
		return false
	}
	d.fail(r, field, "must be true or false (or 1 or 0), not %s", v)
	return def
}
