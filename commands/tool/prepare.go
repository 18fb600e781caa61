package tool

import (
	"encoding/json"
	"reflect"
	"slices"
	"sort"
	"strings"

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
	for name := range args {
		if _, ok := t.inSchema.Properties[name]; ok {
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
	b, err := json.Marshal(args)
	if err != nil {
		return nil, werr.Invalid("arguments are not JSON: %v", err)
	}
	ptr := reflect.New(t.in)
	if err := json.Unmarshal(b, ptr.Interface()); err != nil {
		return nil, werr.Invalid("%v", err)
	}
	return ptr.Elem().Interface(), nil
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
		if _, ok := args[name]; !ok {
			return werr.Invalid("missing required parameter %q", name).WithDetail("parameter", name)
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
