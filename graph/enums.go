package graph

import (
	"fmt"
	"strings"

	"github.com/99designs/gqlgen/graphql/errcode"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"
)

// strictEnums refuses a variable holding an enum value the schema does not
// name exactly. GraphQL's validation of variables compares enum names
// without case and gqlgen's generated unmarshalling turns a name it does
// not know into the Go zero value, so "monday" became a Sunday and
// "client" a role of "": the check has to come first. It walks each
// variable's value along its declared type, into lists and input objects,
// and names the variable (and the field inside it) that is wrong.
func strictEnums(schema *ast.Schema, defs ast.VariableDefinitionList, vars map[string]any) *gqlerror.Error {
	for _, d := range defs {
		v, ok := vars[d.Variable]
		if !ok {
			continue
		}
		if err := enumValue(schema, d.Type, v, "$"+d.Variable, 0); err != nil {
			return err
		}
	}
	return nil
}

// maxInputDepth bounds how deep enumValue follows nested lists and input
// objects (the schema nests three levels; JSON can nest further).
const maxInputDepth = 32

func enumValue(schema *ast.Schema, t *ast.Type, v any, at string, depth int) *gqlerror.Error {
	if v == nil || t == nil || depth > maxInputDepth {
		return nil
	}
	if t.Elem != nil {
		list, ok := v.([]any)
		if !ok {
			return enumValue(schema, t.Elem, v, at, depth+1) // one value stands for a list of it
		}
		for i, e := range list {
			if err := enumValue(schema, t.Elem, e, fmt.Sprintf("%s[%d]", at, i), depth+1); err != nil {
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
		err := gqlerror.Errorf("The variable %s holds %s, which is not a %s: use one of %s (in capitals, as written)",
			at, shown, def.Name, strings.Join(names, ", "))
		errcode.Set(err, "BAD_USER_INPUT")
		err.Extensions["field"] = at
		return err
	case ast.InputObject:
		fields, ok := v.(map[string]any)
		if !ok {
			return nil // validation refuses it
		}
		for _, f := range def.Fields {
			if err := enumValue(schema, f.Type, fields[f.Name], at+"."+f.Name, depth+1); err != nil {
				return err
			}
		}
	}
	return nil
}
