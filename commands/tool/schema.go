package tool

import (
	"bytes"
	"encoding/json"
	"reflect"
	"slices"

	"github.com/google/jsonschema-go/jsonschema"
)

// This file is the one place where inferred schemas are shaped for the clients that read
// them. Strict validators (MCP Inspector --strict, ajv strict mode, Gemini's OpenAPI subset)
// reject bare true/false subschemas and type arrays; every byte of tools/list is paid in a
// model's context once per conversation. So, after inference:
//   - a nullable field (["null", T], from a pointer or slice) is simply T: an absent field
//     already means "none", and results never carry null (see Structured);
//   - a Go `any` is a value of any JSON type but null, spelled as an anyOf of single types,
//     and a map[string]any a free-form object;
//   - a boolean's default false is left unsaid: it is what an omitted boolean means;
//   - output schemas keep the result's field names and types (and descriptions where
//     written), and drop what only a validator reads: required lists, additionalProperties,
//     bounds, the members of nested objects, optional nested objects. Input schemas keep
//     all their constraints.

// anyValue is the schema of a Go `any`.
func anyValue() *jsonschema.Schema {
	s := &jsonschema.Schema{}
	for _, t := range []string{"string", "number", "boolean", "object", "array"} {
		s.AnyOf = append(s.AnyOf, &jsonschema.Schema{Type: t})
	}
	return s
}

// typeSchemas are the inference overrides a schema of t is built with: the recursive
// types' schemas only where t holds them, since building one is most of the time a one-shot
// call's own input schema takes.
func typeSchemas(t reflect.Type) map[reflect.Type]*jsonschema.Schema {
	m := map[reflect.Type]*jsonschema.Schema{
		reflect.TypeFor[any](): anyValue(),
		// A free-form object: additionalProperties true, not the anyOf again.
		reflect.TypeFor[map[string]any](): {Type: "object", AdditionalProperties: &jsonschema.Schema{}},
	}
	seen := map[reflect.Type]bool{}
	var walk func(reflect.Type)
	walk = func(t reflect.Type) {
		if seen[t] {
			return
		}
		seen[t] = true
		if s, ok := recursiveSchemas[t]; ok {
			m[t] = s()
			return
		}
		switch t.Kind() {
		case reflect.Pointer, reflect.Slice, reflect.Array:
			walk(t.Elem())
		case reflect.Map:
			walk(t.Key())
			walk(t.Elem())
		case reflect.Struct:
			for i := range t.NumField() {
				walk(t.Field(i).Type)
			}
		}
	}
	walk(t)
	return m
}

// portable rewrites s and its subschemas in place into single-type, non-boolean form.
func portable(s *jsonschema.Schema) {
	if s == nil {
		return
	}
	if len(s.Types) == 2 && s.Types[0] == "null" {
		s.Type, s.Types = s.Types[1], nil
	}
	if s.Type == "boolean" && string(s.Default) == "false" {
		s.Default = nil // what an omitted boolean means anyway
	}
	for _, p := range s.Properties {
		portable(p)
	}
	portable(s.Items)
	for _, b := range s.AnyOf {
		portable(b)
	}
	portable(s.AdditionalProperties)
}

// leanOutput trims an output schema to the result's own field names and types, with
// descriptions where a name cannot explain itself. Nested objects (a list's items) are
// given by type alone, and optional ones (a pending dialog, new downloads) not at all:
// the text content describes them when they occur, and the schema leaves other
// properties open, so a result that has them still validates.
func leanOutput(s *jsonschema.Schema) {
	s.AdditionalProperties = nil
	for name, p := range s.Properties {
		composite := p.Type == "object" || (p.Items != nil && p.Items.Type == "object")
		if composite && !slices.Contains(s.Required, name) {
			delete(s.Properties, name)
			continue
		}
		items := p.Items
		*p = jsonschema.Schema{Type: p.Type, Description: p.Description, AnyOf: p.AnyOf}
		if items != nil && items.Type != "object" {
			p.Items = &jsonschema.Schema{Type: items.Type, AnyOf: items.AnyOf}
		}
	}
	s.Required = nil
}

// omitProperties removes the named top-level properties from an output schema.
func omitProperties(s *jsonschema.Schema, names []string) {
	for _, n := range names {
		delete(s.Properties, n)
		s.Required = slices.DeleteFunc(s.Required, func(r string) bool { return r == n })
	}
}

// Structured is out as an MCP client's structured content, in the shape OutputSchema
// declares: without the InText fields and without null values (a nil slice or pointer is
// an absent field). full keeps everything, as the w365 CLI reads it.
func (t *Tool) Structured(out any, full bool) (any, error) {
	if full || out == nil || t.OutputSchema() == nil {
		return out, nil
	}
	b, err := json.Marshal(out)
	if err != nil {
		return nil, err
	}
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var m map[string]any
	if err := d.Decode(&m); err != nil {
		return nil, err
	}
	for _, n := range t.InText {
		delete(m, n)
	}
	dropNulls(m)
	return m, nil
}

func dropNulls(v any) {
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			if e == nil {
				delete(v, k)
			} else {
				dropNulls(e)
			}
		}
	case []any:
		for _, e := range v {
			dropNulls(e)
		}
	}
}
