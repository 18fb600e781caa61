package tool

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/w365/w365/engine/werr"
)

// Prepare turns raw arguments into the handler's typed input: it matches enum values
// case-insensitively, applies schema defaults and validates against the schema.
// Every failure is INVALID_ARGUMENT with a message naming the parameter.
func (t *Tool) Prepare(args map[string]any) (any, error) {
	t.schemas()
	if args == nil {
		args = map[string]any{}
	}
	for old, cur := range t.Spellings {
		if v, ok := args[old]; ok {
			if _, both := args[cur]; both {
				return nil, werr.Invalid("give %s or its older spelling %s, not both", cur, old).WithDetail("parameter", old)
			}
			delete(args, old)
			args[cur] = v
		}
	}
	for name, v := range args {
		if _, ok := t.inSchema.Properties[name]; ok {
			if v == nil {
				// null is how many clients spell "not given" (find_ui_element's windowHandle:
				// null is the contract's "the foreground window").
				delete(args, name)
			}
			continue
		}
		if name == "sessionId" || name == "browserSessionId" {
			// Any tool may name its session, by either name; the handler wrapper used it already.
			delete(args, name)
			continue
		}
		return nil, werr.Invalid("unknown parameter %q; known: %s", name, strings.Join(t.paramNames(), ", ")).
			WithDetail("parameter", name)
	}
	for name, vals := range t.enums {
		switch v := args[name].(type) {
		case string:
			args[name] = canonicalEnum(v, vals)
		case []any:
			for i, e := range v {
				if s, ok := e.(string); ok {
					v[i] = canonicalEnum(s, vals)
				}
			}
		}
	}
	if err := t.resolved.ApplyDefaults(&args); err != nil {
		return nil, werr.Invalid("%v", err)
	}
	if err := t.resolved.Validate(args); err != nil {
		return nil, t.validationError(args, err)
	}
	given := func(n string) bool { _, ok := args[n]; return ok }
	for _, name := range slices.Sorted(maps.Keys(t.Instead)) {
		if alt := t.Instead[name]; !given(name) && !slices.ContainsFunc(alt, given) {
			return nil, werr.Invalid("missing required parameter %q (or give %s instead)", name, orList(alt)).
				WithDetail("parameter", name).WithDetail("anyOf", append([]string{name}, alt...))
		}
	}
	for _, group := range t.AnyOf {
		if !slices.ContainsFunc(group, given) {
			return nil, werr.Invalid("give %s", orList(group)).WithDetail("parameter", group[0]).WithDetail("anyOf", group)
		}
	}
	b, err := json.Marshal(args)
	if err != nil {
		return nil, werr.Invalid("arguments are not JSON: %v", err)
	}
	ptr := reflect.New(t.in)
	if err := json.Unmarshal(b, ptr.Interface()); err != nil {
		return nil, decodeError(err)
	}
	return ptr.Elem().Interface(), nil
}

// decodeError says in the tool's words why arguments the schema let through do not fit the
// fields they fill: a number past what the field's type holds (1e308 for an int, -1 for an
// unsigned one), which a schema without bounds does not refuse.
func decodeError(err error) *werr.Error {
	var te *json.UnmarshalTypeError
	if !errors.As(err, &te) || te.Field == "" {
		return werr.Invalid("the arguments do not fit the tool's parameters")
	}
	got := strings.TrimPrefix(te.Value, "number ")
	var lo, hi string
	switch k := te.Type.Kind(); {
	case k >= reflect.Int && k <= reflect.Int64:
		bits := te.Type.Bits()
		lo, hi = strconv.FormatInt(-1<<(bits-1), 10), strconv.FormatInt(1<<(bits-1)-1, 10)
	case k >= reflect.Uint && k <= reflect.Uint64:
		lo, hi = "0", strconv.FormatUint(math.MaxUint64>>(64-te.Type.Bits()), 10)
	default:
		return werr.Invalid("%s cannot be %s", te.Field, got).WithDetail("parameter", te.Field)
	}
	return werr.Invalid("%s must be a whole number from %s to %s, not %s", te.Field, lo, hi, got).
		WithDetail("parameter", te.Field)
}

func canonicalEnum(v string, vals []string) string {
	for _, e := range vals {
		if strings.EqualFold(v, e) {
			return e
		}
	}
	return v
}

// validationError rewrites the schema validator's message into one a person can act on.
func (t *Tool) validationError(args map[string]any, verr error) error {
	for name, vals := range t.enums {
		if v, ok := args[name].(string); ok && canonicalEnum(v, vals) == v && !slices.Contains(vals, v) {
			return werr.Invalid("%s: %q is not allowed; use one of %s", name, v, strings.Join(vals, ", ")).
				WithDetail("parameter", name).WithDetail("allowed", vals)
		}
	}
	for _, name := range t.inSchema.Required {
		if _, ok := args[name]; !ok && t.Instead[name] == nil {
			return werr.Invalid("missing required parameter %q", name).WithDetail("parameter", name)
		}
	}
	for _, name := range t.paramNames() {
		if v, ok := args[name]; ok {
			if err := checkValue(name, v, t.inSchema.Properties[name]); err != nil {
				return err.WithDetail("parameter", name)
			}
		}
	}
	msg := verr.Error()
	// "validating root: validating /properties/x: type: ..." -> "x: type: ..."
	if i := strings.LastIndex(msg, "validating /properties/"); i >= 0 {
		msg = strings.Replace(msg[i+len("validating /properties/"):], ": ", ": ", 1)
	}
	return werr.Invalid("%s", msg)
}

func (t *Tool) paramNames() []string {
	var names []string
	for n := range t.inSchema.Properties {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// orList is "a", "a or b", "a, b or c".
func orList(names []string) string {
	if len(names) == 1 {
		return names[0]
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// checkValue says in a tool's words what is wrong with the value v of the parameter name
// (its schema p), for the constraints the w365 tags set and the JSON types; nil when it
// finds nothing (the validator's own message then stands).
func checkValue(name string, v any, p *jsonschema.Schema) *werr.Error {
	if len(p.AnyOf) > 0 { // a Go any: one of several single types (schema.go)
		var kinds []string
		for _, b := range p.AnyOf {
			if checkValue(name, v, b) == nil {
				return nil
			}
			kinds = append(kinds, kindName[b.Type])
		}
		return werr.Invalid("%s must be %s, not %s", name, orList(kinds), jsonKind(v))
	}
	num := func(f float64) string {
		if math.Abs(f) >= 1e21 { // 1e+308, not 309 digits
			return strconv.FormatFloat(f, 'g', -1, 64)
		}
		return strconv.FormatFloat(f, 'f', -1, 64)
	}
	switch p.Type {
	case "integer", "number":
		n, ok := number(v)
		switch {
		case !ok:
			return werr.Invalid("%s must be a number, not %s", name, jsonKind(v))
		case p.Type == "integer" && n != math.Trunc(n):
			return werr.Invalid("%s must be a whole number, not %s", name, num(n))
		case p.Minimum != nil && n < *p.Minimum:
			return werr.Invalid("%s must be at least %s, not %s", name, num(*p.Minimum), num(n))
		case p.Maximum != nil && n > *p.Maximum:
			return werr.Invalid("%s must be at most %s, not %s", name, num(*p.Maximum), num(n))
		}
	case "string":
		str, ok := v.(string)
		switch {
		case !ok:
			return werr.Invalid("%s must be a string, not %s", name, jsonKind(v))
		case p.MinLength != nil && utf8.RuneCountInString(str) < *p.MinLength:
			if *p.MinLength == 1 {
				return werr.Invalid("%s must not be empty", name)
			}
			return werr.Invalid("%s must be at least %d characters long", name, *p.MinLength)
		case p.MaxLength != nil && utf8.RuneCountInString(str) > *p.MaxLength:
			return werr.Invalid("%s must be at most %d characters long, not %d", name, *p.MaxLength, utf8.RuneCountInString(str))
		}
	case "boolean":
		if _, ok := v.(bool); !ok {
			return werr.Invalid("%s must be true or false, not %s", name, jsonKind(v))
		}
	case "array":
		list, ok := v.([]any)
		switch {
		case !ok:
			return werr.Invalid("%s must be a list, not %s", name, jsonKind(v))
		case p.MinItems != nil && len(list) < *p.MinItems:
			return werr.Invalid("%s must have at least %d item(s)", name, *p.MinItems)
		case p.MaxItems != nil && len(list) > *p.MaxItems:
			return werr.Invalid("%s must have at most %d items, not %d", name, *p.MaxItems, len(list))
		}
		if p.Items != nil {
			for i, e := range list {
				if err := checkValue(fmt.Sprintf("%s[%d]", name, i), e, p.Items); err != nil {
					return err
				}
			}
		}
	case "object":
		obj, ok := v.(map[string]any)
		if !ok {
			return werr.Invalid("%s must be an object, not %s", name, jsonKind(v))
		}
		// An object inside a parameter (one of browser_file_upload's files) is checked as
		// the parameters are: what it requires, then each property it has.
		for _, k := range p.Required {
			if _, ok := obj[k]; !ok {
				return werr.Invalid("%s.%s is required", name, k)
			}
		}
		for _, k := range slices.Sorted(maps.Keys(obj)) {
			if ps := p.Properties[k]; ps != nil {
				if err := checkValue(name+"."+k, obj[k], ps); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// kindName names a JSON schema type as checkValue's messages say it.
var kindName = map[string]string{"string": "a string", "integer": "a whole number", "number": "a number",
	"boolean": "true or false", "array": "a list", "object": "an object"}

// jsonKind names the JSON type of a decoded value.
func jsonKind(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case string:
		return fmt.Sprintf("the string %q", v)
	case bool:
		return fmt.Sprintf("%v", v)
	case float64, int, int64, json.Number:
		return fmt.Sprintf("the number %v", v)
	case []any:
		return "a list"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}

// number is a decoded JSON number as a float64.
func number(v any) (float64, bool) {
	switch v := v.(type) {
	case float64:
		return v, true
	case int:
		return float64(v), true
	case int64:
		return float64(v), true
	case json.Number:
		f, err := v.Float64()
		return f, err == nil
	}
	return 0, false
}
