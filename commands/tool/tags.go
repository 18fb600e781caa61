package tool

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

// applyTags reads `w365:"default=..,min=..,max=..,enum=a|b,minLength=..,maxLength=..,maxItems=.."`
// on the input struct's fields and writes them into the inferred schema.
func applyTags(s *jsonschema.Schema, typ reflect.Type, enums map[string][]string) error {
	if typ.Kind() == reflect.Pointer {
		typ = typ.Elem()
	}
	if typ.Kind() != reflect.Struct {
		return fmt.Errorf("input type %s must be a struct", typ)
	}
	for i := range typ.NumField() {
		f := typ.Field(i)
		name := JSONName(f)
		if name == "" {
			continue
		}
		tag, ok := f.Tag.Lookup("w365")
		if !ok {
			continue
		}
		p := s.Properties[name]
		if p == nil {
			return fmt.Errorf("field %s: no schema property", f.Name)
		}
		for _, kv := range strings.Split(tag, ",") {
			k, v, _ := strings.Cut(strings.TrimSpace(kv), "=")
			switch k {
			case "default":
				raw, err := defaultJSON(f.Type, v)
				if err != nil {
					return fmt.Errorf("field %s: default %q: %v", f.Name, v, err)
				}
				p.Default = raw
			case "min", "max":
				n, err := strconv.ParseFloat(v, 64)
				if err != nil {
					return fmt.Errorf("field %s: %s=%q", f.Name, k, v)
				}
				target := p
				if p.Items != nil {
					target = p.Items
				}
				if k == "min" {
					target.Minimum = &n
				} else {
					target.Maximum = &n
				}
			case "enum":
				vals := strings.Split(v, "|")
				enums[name] = vals
				target := p
				if p.Items != nil {
					target = p.Items
				}
				target.Enum = nil
				for _, e := range vals {
					target.Enum = append(target.Enum, e)
				}
			case "minLength", "maxLength", "minItems", "maxItems":
				n, err := strconv.Atoi(v)
				if err != nil {
					return fmt.Errorf("field %s: %s=%q", f.Name, k, v)
				}
				switch k {
				case "minLength":
					p.MinLength = &n
				case "maxLength":
					p.MaxLength = &n
				case "minItems":
					p.MinItems = &n
				case "maxItems":
					p.MaxItems = &n
				}
			default:
				return fmt.Errorf("field %s: unknown w365 tag key %q", f.Name, k)
			}
		}
	}
	return nil
}

func defaultJSON(t reflect.Type, v string) (json.RawMessage, error) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		return json.Marshal(v)
	case reflect.Bool:
		b, err := strconv.ParseBool(v)
		if err != nil {
			return nil, err
		}
		return json.Marshal(b)
	case reflect.Int, reflect.Int64, reflect.Int32, reflect.Uint32, reflect.Uint64:
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return nil, err
		}
		return json.Marshal(n)
	case reflect.Float64:
		n, err := strconv.ParseFloat(v, 64)
		if err != nil {
			return nil, err
		}
		return json.Marshal(n)
	}
	return nil, fmt.Errorf("no default for kind %s", t.Kind())
}

// Flattened is the struct type of an embedded field whose properties JSON (and so the
// schema) lifts into the outer object: anonymous, a struct or a pointer to one, with no JSON
// name of its own. It is nil for every other field.
func Flattened(f reflect.StructField) reflect.Type {
	t := f.Type
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if !f.Anonymous || t.Kind() != reflect.Struct || strings.Split(f.Tag.Get("json"), ",")[0] != "" {
		return nil
	}
	return t
}

// EachField calls fn for each field of the struct type typ as JSON sees them: the fields of a
// Flattened embedded struct in its place, in declaration order.
func EachField(typ reflect.Type, fn func(reflect.StructField)) {
	for i := range typ.NumField() {
		f := typ.Field(i)
		if et := Flattened(f); et != nil {
			EachField(et, fn)
			continue
		}
		fn(f)
	}
}

// JSONName is the JSON property name of a struct field, or "" when not serialized.
func JSONName(f reflect.StructField) string {
	if !f.IsExported() {
		return ""
	}
	tag := f.Tag.Get("json")
	if tag == "-" {
		return ""
	}
	name, _, _ := strings.Cut(tag, ",")
	if name == "" {
		return f.Name
	}
	return name
}
