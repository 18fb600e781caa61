// Package tool is the shape of a w365 tool: its names, help, annotations, typed input
// and output with their JSON schemas, validation of raw arguments, and the narrow
// environment a handler runs in. The definitions live in package commands; the
// front-ends (commands/cli, commands/host, repl) read them through this package.
package tool

import (
	"context"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"sync"
	"unicode"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/w365/w365/engine/session"
	"github.com/w365/w365/engine/werr"
)

// Hint is one MCP behaviour hint. Its zero value is Unset, so a test can insist
// that every tool states every hint.
type Hint int8

// The values of a Hint.
const (
	Unset Hint = iota
	Yes
	No
)

// Bool is the hint as MCP's plain booleans carry it (Unset and No are false).
func (h Hint) Bool() bool { return h == Yes }

// Ptr is the hint as MCP's optional booleans carry it.
func (h Hint) Ptr() *bool { b := h == Yes; return &b }

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
	// Set puts something into a given state (a position, a size, the focus); repeating
	// it changes nothing more.
	Set = Annotations{ReadOnly: No, Destructive: No, Idempotent: Yes, OpenWorld: No}
	// Destructive ends, kills or overwrites something that cannot be brought back.
	Destructive = Annotations{ReadOnly: No, Destructive: Yes, Idempotent: No, OpenWorld: No}
)

// Toolset groups tools so that a server can expose only some of them.
type Toolset struct {
	Name        string
	Description string
	// Default says whether a server exposes the toolset when no --toolsets are given.
	Default bool
}

// Image is binary image output: MCP image content, a file for the CLI.
type Image struct {
	Data     []byte
	MIMEType string
}

// ImageOutput is implemented by output types that carry images beside their JSON.
type ImageOutput interface{ OutputImages() []Image }

// SavedOutput is implemented by output types that name files the session itself may
// have written (downloads, a saved PDF): over MCP each is read by the host beneath its directory
// without following anything there (engine/safefs) and becomes a resource of the call's
// session.
type SavedOutput interface{ SavedPaths() []string }

// Texter is implemented by output types with a better human form than the default.
type Texter interface{ Text() string }

// Tool is one tool: its names, help, schemas and handler. Build it with Define.
type Tool struct {
	// Name is the MCP name: the newest name of the tool (older ones go in Legacy).
	Name string
	// Legacy lists older MCP names exposed with serve --legacy-names.
	Legacy []string
	// Path is the CLI path; empty means derived from Name by CLIPath.
	Path []string
	// Aliases are extra CLI names of the leaf command.
	Aliases []string
	Summary string
	Long    string
	// Example holds "$ w365 ..." lines.
	Example string
	// Toolset is the name of the toolset the registry files the tool under.
	Toolset     string
	Annotations Annotations
	// Args names the input fields (JSON names) filled by positional CLI arguments, in order.
	// A slice-typed last field takes all remaining arguments.
	Args []string
	// InText names the output fields (JSON names, top level) that the text content
	// carries in full: a snapshot's tree, a page's text. MCP clients get the structured
	// content without them, so that a large result is not paid for twice; the CLI
	// (Structured with full) keeps them.
	InText []string
	// Instead maps a required input property (JSON name) to the properties another
	// contract names the same thing by (W365's selector, PW's target): the schema marks the
	// first required, as TOOLS.md does, and Prepare accepts any of them in its place.
	Instead map[string][]string
	// AnyOf lists groups of input properties of which a call must give at least one, none
	// required alone (find_ui_element's text, role, name: TOOLS.md R12); Prepare refuses a
	// call that gives none. A plain anyOf of required sets in the schema would be a subschema
	// without a type, which strict clients reject (commands.TestEverySchemaIsStrictlyPortable).
	AnyOf [][]string
	// Spellings maps older spellings of input properties to the current ones (V1/V2's
	// titlePattern, V2's timeoutMS): Prepare accepts them under every name of the tool;
	// the schema lists only the current ones.
	Spellings map[string]string
	// Sessionless tools run outside any session queue (session management, host info).
	Sessionless bool
	// UI is the ui:// resource of the MCP App a client that renders apps shows with the
	// tool's result (docs/mcp.md#the-live-view-in-the-chat); empty for most tools.
	UI string
	// Describe gives input property descriptions that a struct tag cannot hold because
	// they come from elsewhere (the sandbox's allowlist); they win over the tag. It runs
	// when the schema is built, not when the program starts.
	Describe func() map[string]string

	in, out reflect.Type
	// The input schema (what Prepare validates against) and the output schema are built
	// apart: a one-shot CLI call needs only the first.
	inOnce, outOnce   *sync.Once
	buildIn, buildOut func(*Tool)
	inSchema          *jsonschema.Schema
	outSchema         *jsonschema.Schema
	resolved          *jsonschema.Resolved
	// enums maps a property to its allowed values, for case-insensitive matching.
	enums   map[string][]string
	handler func(ctx context.Context, env *Env, in any) (any, error)
}

// Define builds a Tool from its description and a typed handler. Schemas are built
// on first use (a one-shot CLI call needs only its own tool's); a malformed definition
// panics then, and the registry test builds every tool's.
func Define[In, Out any](t Tool, h func(ctx context.Context, env *Env, in In) (Out, error)) *Tool {
	t.in = reflect.TypeFor[In]()
	t.inOnce, t.outOnce = new(sync.Once), new(sync.Once)
	t.out = reflect.TypeFor[Out]()
	if t.in.Kind() != reflect.Struct {
		panic(fmt.Sprintf("tool %s: input type %s must be a struct", t.Name, t.in))
	}
	if len(t.Path) == 0 {
		t.Path = CLIPath(t.Name)
	}
	t.handler = func(ctx context.Context, env *Env, in any) (any, error) {
		return h(ctx, env, in.(In))
	}
	t.buildIn = func(t *Tool) {
		in, err := jsonschema.For[In](&jsonschema.ForOptions{TypeSchemas: typeSchemas(t.in)})
		if err != nil {
			panic(fmt.Sprintf("tool %s: input schema: %v", t.Name, err))
		}
		t.enums = map[string][]string{}
		if err := applyTags(in, t.in, t.enums); err != nil {
			panic(fmt.Sprintf("tool %s: %v", t.Name, err))
		}
		if t.Describe != nil {
			for name, d := range t.Describe() {
				p := in.Properties[name]
				if p == nil {
					panic(fmt.Sprintf("tool %s: Describe names no input property %q", t.Name, name))
				}
				p.Description = d
			}
		}
		for _, group := range t.groups() {
			for _, name := range group {
				if in.Properties[name] == nil {
					panic(fmt.Sprintf("tool %s: Instead or AnyOf names no input property %q", t.Name, name))
				}
			}
		}
		for old, cur := range t.Spellings {
			if in.Properties[cur] == nil || in.Properties[old] != nil {
				panic(fmt.Sprintf("tool %s: spelling %q of %q: no such property, or listed itself", t.Name, old, cur))
			}
		}
		addSessionParams(t, in)
		portable(in)
		// The validator checks the schema without the Instead properties' required marks:
		// Prepare checks those groups itself.
		if t.resolved, err = in.CloneSchemas().Resolve(nil); err != nil {
			panic(fmt.Sprintf("tool %s: resolve input schema: %v", t.Name, err))
		}
		in.Required = append(in.Required, slices.Sorted(maps.Keys(t.Instead))...)
		t.inSchema = in
	}
	t.buildOut = func(t *Tool) {
		if t.out.Kind() == reflect.Struct {
			out, err := jsonschema.For[Out](&jsonschema.ForOptions{TypeSchemas: typeSchemas(t.out)})
			if err != nil {
				panic(fmt.Sprintf("tool %s: output schema: %v (a recursive type needs RegisterTree)", t.Name, err))
			}
			for _, n := range t.InText {
				if out.Properties[n] == nil {
					panic(fmt.Sprintf("tool %s: InText names no output property %q", t.Name, n))
				}
			}
			omitProperties(out, t.InText)
			portable(out)
			leanOutput(out)
			t.outSchema = out
		}
	}
	return &t
}

// groups are the tool's Instead and AnyOf groups: sets of input properties of which a call
// gives at least one.
func (t *Tool) groups() [][]string {
	gs := slices.Clone(t.AnyOf)
	for _, name := range slices.Sorted(maps.Keys(t.Instead)) {
		gs = append(gs, append([]string{name}, t.Instead[name]...))
	}
	return gs
}

// schemas builds the tool's input schema once.
func (t *Tool) schemas() *Tool {
	t.inOnce.Do(func() { t.buildIn(t) })
	return t
}

// CLIPath is the naming rule of CLI paths: browser_* under "browser", the rest top-level,
// underscores turned into dashes.
func CLIPath(name string) []string {
	if rest, ok := strings.CutPrefix(name, "browser_"); ok {
		return []string{"browser", strings.ReplaceAll(rest, "_", "-")}
	}
	return []string{strings.ReplaceAll(name, "_", "-")}
}

// Help is the tool's long help as every front-end shows it: the summary, the details
// and, in a build that cannot run desktops, that the tool is not available.
func (t *Tool) Help() string {
	h := t.Summary + "\n\n" + t.Long
	if err := session.Unsupported(); err != nil && !t.Sessionless {
		h += "\n\nUNSUPPORTED in this build: " + werr.As(err).Message
	}
	return h
}

// Title is the tool's short display name, from its MCP name: "Take screenshot",
// "Browser click ref", "Start session".
func (t *Tool) Title() string {
	name := strings.TrimPrefix(t.Name, "mcp_W365ComputerUse_")
	if !strings.Contains(name, "_") { // a CamelCase V3 session tool name
		var b strings.Builder
		for i, r := range name {
			if i > 0 && unicode.IsUpper(r) {
				b.WriteByte('_')
			}
			b.WriteRune(r)
		}
		name = b.String()
	}
	words := strings.Split(name, "_")
	for i, w := range words {
		if up := strings.ToUpper(w); slices.Contains(initialisms, up) {
			words[i] = up
		} else if i == 0 {
			words[i] = strings.ToUpper(w[:1]) + w[1:]
		} else {
			words[i] = strings.ToLower(w)
		}
	}
	return strings.Join(words, " ")
}

// initialisms are written in capitals in titles.
var initialisms = []string{"URL", "HTML", "JS", "PDF", "UI", "OCR"}

// Description is the tool's description for MCP: the summary, which says what the tool
// does, when to use it and its key limits, and, in a build that cannot run desktops,
// that the tool is not available. The CLI's help adds Long.
func (t *Tool) Description() string {
	if err := session.Unsupported(); err != nil && !t.Sessionless {
		return t.Summary + ". UNSUPPORTED in this build: " + werr.As(err).Message
	}
	return t.Summary
}

// InputSchema is the schema of the tool's arguments.
func (t *Tool) InputSchema() *jsonschema.Schema { return t.schemas().inSchema }

// OutputSchema is the schema of the tool's structured result (nil for a non-object output).
func (t *Tool) OutputSchema() *jsonschema.Schema {
	t.outOnce.Do(func() { t.buildOut(t) })
	return t.outSchema
}

// Enum is the list of allowed values of an input property, nil when it is free.
func (t *Tool) Enum(property string) []string { return t.schemas().enums[property] }

// InputType is the Go type of the handler's input.
func (t *Tool) InputType() reflect.Type { return t.in }

// OutputType is the Go type of the handler's output.
func (t *Tool) OutputType() reflect.Type { return t.out }

// Run calls the handler with an input Prepare returned.
func (t *Tool) Run(ctx context.Context, env *Env, in any) (any, error) {
	return t.handler(ctx, env, in)
}
