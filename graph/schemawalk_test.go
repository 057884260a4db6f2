package graph_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// The schema as a client sees it: read by introspection through the real
// handler, so the walks below follow what is served, not what a file says.

type schemaInfo struct {
	query, mutation, subscription string
	types                         map[string]*gqlType
}

type gqlType struct {
	Name        string
	Kind        string
	Fields      []gqlField
	InputFields []gqlInput
	EnumValues  []struct{ Name string }
}

type gqlField struct {
	Name string
	Args []gqlInput
	Type typeRef
}

type gqlInput struct {
	Name         string
	Type         typeRef
	DefaultValue *string
}

type typeRef struct {
	Kind   string
	Name   *string
	OfType *typeRef
}

// named is the type under the lists and non-nulls.
func (r typeRef) named() string {
	for r.Name == nil && r.OfType != nil {
		r = *r.OfType
	}
	if r.Name == nil {
		return ""
	}
	return *r.Name
}

// list reports whether the type is a list (under a non-null).
func (r typeRef) list() bool {
	if r.Kind == "NON_NULL" && r.OfType != nil {
		r = *r.OfType
	}
	return r.Kind == "LIST"
}

func (r typeRef) required() bool { return r.Kind == "NON_NULL" }

const introspection = `{ __schema { queryType { name } mutationType { name } subscriptionType { name }
	types { name kind enumValues { name }
		fields { name args { name defaultValue type { ...T } } type { ...T } }
		inputFields { name defaultValue type { ...T } } } } }
fragment T on __Type { kind name ofType { kind name ofType { kind name ofType { kind name ofType { kind name } } } } }`

func introspect(a *api, tok string) schemaInfo {
	a.t.Helper()
	raw, err := json.Marshal(a.ok(tok, introspection, nil)["__schema"])
	if err != nil {
		a.t.Fatal(err)
	}
	var s struct {
		QueryType, MutationType, SubscriptionType *struct{ Name string }
		Types                                     []*gqlType
	}
	if err := json.Unmarshal(raw, &s); err != nil {
		a.t.Fatal(err)
	}
	out := schemaInfo{query: s.QueryType.Name, mutation: s.MutationType.Name, types: map[string]*gqlType{}}
	if s.SubscriptionType != nil {
		out.subscription = s.SubscriptionType.Name
	}
	for _, t := range s.Types {
		out.types[t.Name] = t
	}
	return out
}

// reaching is the set of object types from which a field path leads to
// one of targets (the targets included).
func (s schemaInfo) reaching(targets ...string) map[string]bool {
	in := map[string]bool{}
	for _, t := range targets {
		in[t] = true
	}
	for changed := true; changed; {
		changed = false
		for name, t := range s.types {
			if in[name] || strings.HasPrefix(name, "__") {
				continue
			}
			for _, f := range t.Fields {
				if in[f.Type.named()] {
					in[name], changed = true, true
					break
				}
			}
		}
	}
	return in
}

// edgesInto lists every field of an object type whose type is one of
// targets, as "Type.field".
func (s schemaInfo) edgesInto(targets map[string]bool) []string {
	var out []string
	for name, t := range s.types {
		if t.Kind != "OBJECT" || strings.HasPrefix(name, "__") {
			continue
		}
		for _, f := range t.Fields {
			if targets[f.Type.named()] {
				out = append(out, name+"."+f.Name)
			}
		}
	}
	slices.Sort(out)
	return out
}

func hasRequiredArgs(f gqlField) bool {
	return slices.ContainsFunc(f.Args, func(a gqlInput) bool { return a.Type.required() && a.DefaultValue == nil })
}

// selNode is one field of a generated selection: the field, the type that
// holds it and its own (named) type.
type selNode struct {
	field, parent, typ string
	kids               []*selNode
}

// selection selects, of an object of type typ, every field: each object
// type at most once on a path, but a target met again on the path is still
// selected, for its id. reach is the set of types that lead to a target; a
// field the walk cannot follow (it needs arguments, or its type is
// abstract) is an error when it leads to one.
func (s schemaInfo) selection(t *testing.T, typ string, reach, targets, onPath map[string]bool) []*selNode {
	var out []*selNode
	for _, f := range s.types[typ].Fields {
		ft := f.Type.named()
		kind := s.types[ft].Kind
		switch {
		case hasRequiredArgs(f):
			if reach[ft] {
				t.Errorf("%s.%s leads to %v but needs arguments: give the walk a way to follow it", typ, f.Name, keys(targets))
			}
		case kind == "SCALAR" || kind == "ENUM":
			out = append(out, &selNode{field: f.Name, parent: typ, typ: ft})
		case kind != "OBJECT":
			if reach[ft] {
				t.Errorf("%s.%s is %s %s, which leads to %v: teach the walk to select through it", typ, f.Name, kind, ft, keys(targets))
			}
		case onPath[ft] && targets[ft]:
			out = append(out, &selNode{field: f.Name, parent: typ, typ: ft, kids: []*selNode{{field: "id", parent: ft, typ: "ID"}}})
		case onPath[ft]:
		default:
			onPath[ft] = true
			out = append(out, &selNode{field: f.Name, parent: typ, typ: ft, kids: s.selection(t, ft, reach, targets, onPath)})
			delete(onPath, ft)
		}
	}
	return out
}

func render(nodes []*selNode) string {
	var b strings.Builder
	for _, n := range nodes {
		b.WriteString(" " + n.field)
		if len(n.kids) > 0 {
			b.WriteString(" {" + render(n.kids) + " }")
		}
	}
	return b.String()
}

// placeholder is a value of an input type, with every required field
// filled: enough for a document the schema accepts.
func (s schemaInfo) placeholder(ref typeRef) string {
	name := ref.named()
	var v string
	switch t := s.types[name]; {
	case t.Kind == "ENUM":
		v = t.EnumValues[0].Name
	case t.Kind == "INPUT_OBJECT":
		var fields []string
		for _, f := range t.InputFields {
			if f.Type.required() && f.DefaultValue == nil {
				fields = append(fields, f.Name+": "+s.placeholder(f.Type))
			}
		}
		v = "{" + strings.Join(fields, ", ") + "}"
	default:
		v = map[string]string{"ID": `"1"`, "Int": "1", "Float": "1", "Boolean": "false", "String": `"x"`,
			"Date": `"2026-12-08"`, "LocalTime": `"10:00"`, "DateTime": `"2026-12-08T10:00:00Z"`}[name]
		if v == "" {
			v = `"x"`
		}
	}
	if ref.list() {
		return "[" + v + "]"
	}
	return v
}

// placeholderArgs fills the required arguments of a field, and dryRun.
func (s schemaInfo) placeholderArgs(f gqlField) string {
	var args []string
	for _, a := range f.Args {
		switch {
		case a.Name == "dryRun":
			args = append(args, "dryRun: true")
		case a.Type.required() && a.DefaultValue == nil:
			args = append(args, a.Name+": "+s.placeholder(a.Type))
		}
	}
	if len(args) == 0 {
		return ""
	}
	return "(" + strings.Join(args, ", ") + ")"
}

func keys(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// sighting is where an answer holds objects of a target type: the field
// ("Type.field"), the object holding it (its id, "" when it has none),
// where in the answer (each list element by its id), and the ids found
// there.
type sighting struct {
	edge, typ, parent, at string
	ids                   []string
}

// walkAnswer follows a generated selection through an answer, reporting
// every sighting of a target and every string.
func walkAnswer(nodes []*selNode, obj map[string]any, at string, targets map[string]bool, see func(sighting), text func(string)) {
	parent, _ := obj["id"].(string)
	for _, n := range nodes {
		v, ok := obj[n.field]
		if !ok {
			continue
		}
		here := at + "/" + n.field
		var elems []map[string]any
		switch x := v.(type) {
		case map[string]any:
			elems = []map[string]any{x}
		case []any:
			for _, e := range x {
				switch e := e.(type) {
				case map[string]any:
					elems = append(elems, e)
				case string:
					text(e)
				}
			}
		case string:
			text(x)
		}
		if targets[n.typ] && v != nil {
			s := sighting{edge: n.parent + "." + n.field, typ: n.typ, parent: parent, at: here}
			for _, e := range elems {
				s.ids = append(s.ids, fmt.Sprint(e["id"]))
			}
			see(s)
		}
		for _, e := range elems {
			where := here
			if id, ok := e["id"].(string); ok {
				where += "#" + id
			}
			walkAnswer(n.kids, e, where, targets, see, text)
		}
	}
}
