// Package commands defines every w365 tool exactly once and derives from that
// definition the cobra CLI, the REPL's commands and the MCP tools.
package commands

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/w365/w365/engine/werr"
)

// Toolsets group tools so that a server can expose only some of them.
var Toolsets = []string{"desktop", "screen", "windows", "process", "exec", "browser", "snapshot", "a11y", "session"}

// Hint is one MCP behaviour hint. Its zero value is Unset, so a test can insist
// that every tool states every hint.
type Hint int8

// The values of a Hint.
const (
	Unset Hint = iota
	Yes
	No
)

// Annotations are the MCP behaviour hints; every tool sets all four explicitly.
type Annotations struct {
	ReadOnly    Hint
	Destructive Hint
	Idempotent  Hint
	OpenWorld   Hint
}

// Common hint sets.
var (
	// Observe reads state and changes nothing.
	Observe = Annotations{ReadOnly: Yes, Destructive: No, Idempotent: Yes, OpenWorld: No}
	// Act changes the desktop or page; repeating it repeats the effect.
	Act = Annotations{ReadOnly: No, Destructive: No, Idempotent: No, OpenWorld: No}
)

// Image is binary image output: MCP image content, a file for the CLI.
type Image struct {
	Data     []byte
	MIMEType string
}

// ImageOutput is implemented by output types that carry images beside their JSON.
type ImageOutput interface{ OutputImages() []Image }

// Texter is implemented by output types with a better one-line human form than the default.
type Texter interface{ Text() string }

// Tool is one tool: its names, help, schemas and handler. Build it with Define.
type Tool struct {
	// Name is the MCP name (the newest name in TOOLS.md).
	Name string
	// Legacy lists older MCP names exposed with serve --legacy-names.
	Legacy []string
	// MCPAliases are further MCP names always exposed (start_session for the V3 session tools).
	MCPAliases []string
	// Path is the CLI path; empty means derived from Name (DESIGN.md naming rule).
	Path []string
	// Aliases are extra CLI names of the leaf command.
	Aliases []string
	Summary string
	Long    string
	// Example holds "$ w365 ..." lines.
	Example     string
	Toolset     string
	Annotations Annotations
	// Args names the input fields (JSON names) filled by positional CLI arguments, in order.
	// A slice-typed last field takes all remaining arguments.
	Args []string
	// Sessionless tools run outside any session queue (session management, host info).
	Sessionless bool

	in, out   reflect.Type
	once      *sync.Once
	build     func(*Tool)
	inSchema  *jsonschema.Schema
	outSchema *jsonschema.Schema
	resolved  *jsonschema.Resolved
	// enums maps a property to its allowed values, for case-insensitive matching.
	enums   map[string][]string
	handler func(ctx context.Context, env *Env, in any) (any, error)
}

var registry []*Tool

// register adds tools to the registry; each area file calls it from init.
func register(ts ...*Tool) { registry = append(registry, ts...) }

// All returns every tool, sorted by MCP name.
func All() []*Tool {
	out := append([]*Tool(nil), registry...)
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Lookup finds a tool by MCP name or legacy name.
func Lookup(name string) *Tool {
	for _, t := range registry {
		if t.Name == name {
			return t
		}
		if contains(t.Legacy, name) || contains(t.MCPAliases, name) {
			return t
		}
	}
	return nil
}

// Define builds a Tool from its description and a typed handler. Schemas are built
// on first use (a one-shot CLI call needs only its own tool's); a malformed definition
// panics then, and the registry test builds every tool's.
func Define[In, Out any](t Tool, h func(ctx context.Context, env *Env, in In) (Out, error)) *Tool {
	t.in = reflect.TypeFor[In]()
	t.once = new(sync.Once)
	t.out = reflect.TypeFor[Out]()
	if t.in.Kind() != reflect.Struct {
		panic(fmt.Sprintf("tool %s: input type %s must be a struct", t.Name, t.in))
	}
	if len(t.Path) == 0 {
		t.Path = cliPath(t.Name)
	}
	t.handler = func(ctx context.Context, env *Env, in any) (any, error) {
		return h(ctx, env, in.(In))
	}
	t.build = func(t *Tool) {
		in, err := jsonschema.For[In](nil)
		if err != nil {
			panic(fmt.Sprintf("tool %s: input schema: %v", t.Name, err))
		}
		t.enums = map[string][]string{}
		if err := applyTags(in, t.in, t.enums); err != nil {
			panic(fmt.Sprintf("tool %s: %v", t.Name, err))
		}
		t.inSchema = in
		if t.resolved, err = in.Resolve(nil); err != nil {
			panic(fmt.Sprintf("tool %s: resolve input schema: %v", t.Name, err))
		}
		if t.out.Kind() == reflect.Struct {
			out, err := jsonschema.For[Out](&jsonschema.ForOptions{TypeSchemas: recursiveSchemas})
			if err != nil {
				panic(fmt.Sprintf("tool %s: output schema: %v (a recursive type needs an entry in recursiveSchemas)", t.Name, err))
			}
			t.outSchema = out
		}
	}
	return &t
}

// recursiveSchemas gives recursive output types (trees) the schema inference cannot
// compute; registered by the files that define such tools.
var recursiveSchemas = map[reflect.Type]*jsonschema.Schema{}

// schemas builds the tool's schemas once.
func (t *Tool) schemas() *Tool {
	t.once.Do(func() { t.build(t) })
	return t
}

// cliPath applies DESIGN.md's rule: browser_* under "browser", the rest top-level, dashes.
func cliPath(name string) []string {
	if rest, ok := strings.CutPrefix(name, "browser_"); ok {
		return []string{"browser", strings.ReplaceAll(rest, "_", "-")}
	}
	return []string{strings.ReplaceAll(name, "_", "-")}
}

// InputSchema and OutputSchema expose the schemas (for snapshots and docs).
func (t *Tool) InputSchema() *jsonschema.Schema  { return t.schemas().inSchema }
func (t *Tool) OutputSchema() *jsonschema.Schema { return t.schemas().outSchema }

// applyTags reads `w365:"default=..,min=..,max=..,enum=a|b,minLength=..,maxLength=..,maxItems=.."`
// on the input struct's fields and writes them into the inferred schema.
func applyTags(s *jsonschema.Schema, typ reflect.Type, enums map[string][]string) error {
	if typ.Kind() == reflect.Pointer {
		typ = typ.Elem()
	}
	if typ.Kind() != reflect.Struct {
		return fmt.Errorf("input type %s must be a struct", typ)
	}
	for _, p := range s.Properties {
		// Pointer fields infer as ["null", T]; an omitted field already means "absent",
		// and some clients reject type arrays.
		if len(p.Types) == 2 && p.Types[0] == "null" {
			p.Type, p.Types = p.Types[1], nil
		}
	}
	for i := range typ.NumField() {
		f := typ.Field(i)
		name := jsonName(f)
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
				if p.Items != nil && (p.Type == "array" || len(p.Types) > 0) {
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

// jsonName is the JSON property name of a struct field, or "" when not serialized.
func jsonName(f reflect.StructField) string {
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
			// Any tool may name its session (PLATFORM.md); the handler wrapper used it already.
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
		if v, ok := args[name].(string); ok && canonicalEnum(v, vals) == v && !contains(vals, v) {
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

func contains(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}
