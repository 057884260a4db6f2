package graph

import (
	"fmt"
	"strings"

	"github.com/99designs/gqlgen/graphql/errcode"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"
)

// strictVariables refuses a variable whose value GraphQL's input coercion
// (the specification's "Input Coercion" of each scalar and of enums) does
// not accept, where gqlgen would take it all the same:
//
//   - an enum value the schema does not name exactly. GraphQL's validation
//     of variables (gqlparser) compares enum names without case and
//     gqlgen's generated unmarshalling turns a name it does not know into
//     the Go zero value, so "monday" became a Sunday and "client" a role
//     of "";
//   - a string for an Int or a Float. The specification refuses it (only
//     a number coerces), but gqlparser lets a string that parses as a
//     number through and gqlgen's UnmarshalInt reads it, so a capacity of
//     "5" became 5.
//
// The check has to come first. It walks each variable's value along its
// declared type, into lists and input objects, and names the variable (and
// the field inside it) that is wrong.
func strictVariables(schema *ast.Schema, defs ast.VariableDefinitionList, vars map[string]any) *gqlerror.Error {
	for _, d := range defs {
		v, ok := vars[d.Variable]
		if !ok {
			continue
		}
		if err := strictValue(schema, d.Type, v, "$"+d.Variable, 0); err != nil {
			return err
		}
	}
	return nil
}

// maxInputDepth bounds how deep strictValue follows nested lists and input
// objects (the schema nests three levels; JSON can nest further).
const maxInputDepth = 32

// numbers are the scalars that only a JSON number coerces to.
var numbers = map[string]string{"Int": "a whole number", "Float": "a number"}

func strictValue(schema *ast.Schema, t *ast.Type, v any, at string, depth int) *gqlerror.Error {
	if v == nil || t == nil || depth > maxInputDepth {
		return nil
	}
	if t.Elem != nil {
		list, ok := v.([]any)
		if !ok {
			return strictValue(schema, t.Elem, v, at, depth+1) // one value stands for a list of it
		}
		for i, e := range list {
			if err := strictValue(schema, t.Elem, e, fmt.Sprintf("%s[%d]", at, i), depth+1); err != nil {
				return err
			}
		}
		return nil
	}
	def := schema.Types[t.NamedType]
	if def == nil {
		return nil
	}
	switch def.Kind {
	case ast.Scalar:
		s, ok := v.(string)
		if what := numbers[def.Name]; what != "" && ok {
			return badVariable(at, fmt.Sprintf("The variable %s holds the text %q, but %s takes %s: send it without quotes", at, s, def.Name, what))
		}
	case ast.Enum:
		s, ok := v.(string)
		if ok && def.EnumValues.ForName(s) != nil {
			return nil
		}
		names := make([]string, len(def.EnumValues))
		for i, e := range def.EnumValues {
			names[i] = e.Name
		}
		shown := fmt.Sprintf("%v", v)
		if ok {
			shown = fmt.Sprintf("%q", s)
		}
		return badVariable(at, fmt.Sprintf("The variable %s holds %s, which is not a %s: use one of %s (in capitals, as written)",
			at, shown, def.Name, strings.Join(names, ", ")))
	case ast.InputObject:
		fields, ok := v.(map[string]any)
		if !ok {
			return nil // validation refuses it
		}
		for _, f := range def.Fields {
			if err := strictValue(schema, f.Type, fields[f.Name], at+"."+f.Name, depth+1); err != nil {
				return err
			}
		}
	}
	return nil
}

// badVariable is BAD_USER_INPUT naming the variable (or the field inside
// it, $in.capacity) at.
func badVariable(at, message string) *gqlerror.Error {
	err := gqlerror.Errorf("%s", message)
	errcode.Set(err, "BAD_USER_INPUT")
	err.Extensions["field"] = at
	return err
}
