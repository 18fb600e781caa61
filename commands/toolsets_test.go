package commands

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/w365/w365/commands/tool"
	"github.com/w365/w365/engine/werr"
)

// TestEveryToolIsCompletelyDefined walks the registry: help, example and all four
// annotations are set on every tool, and names are unique.
func TestEveryToolIsCompletelyDefined(t *testing.T) {
	seen := map[string]string{}
	paths := map[string]string{}
	for _, tl := range All() {
		t.Run(tl.Name, func(t *testing.T) {
			if tl.Summary == "" || tl.Long == "" {
				t.Error("missing summary or long help")
			}
			if !strings.Contains(tl.Example, "$ w365 ") {
				t.Errorf("example has no `$ w365 ...` line: %q", tl.Example)
			}
			if FindToolset(tl.Toolset) == nil {
				t.Errorf("toolset %q is not one of %v", tl.Toolset, ToolsetNames())
			}
			a := tl.Annotations
			for name, h := range map[string]tool.Hint{"readOnly": a.ReadOnly, "destructive": a.Destructive, "idempotent": a.Idempotent, "openWorld": a.OpenWorld} {
				if h == tool.Unset {
					t.Errorf("annotation %s not set explicitly", name)
				}
			}
			if a.ReadOnly == tool.Yes && a.Destructive == tool.Yes {
				t.Error("a read-only tool cannot be destructive")
			}
			for _, n := range append([]string{tl.Name}, tl.Legacy...) {
				if prev, ok := seen[n]; ok {
					t.Errorf("MCP name %q also used by %s", n, prev)
				}
				seen[n] = tl.Name
			}
			p := strings.Join(tl.Path, " ")
			if prev, ok := paths[p]; ok {
				t.Errorf("CLI path %q also used by %s", p, prev)
			}
			paths[p] = tl.Name
			for _, arg := range tl.Args {
				if _, ok := tl.InputSchema().Properties[arg]; !ok {
					t.Errorf("positional arg %q is not an input field", arg)
				}
			}
		})
	}
}

func TestEveryToolsetIsDescribedAndUsed(t *testing.T) {
	used := map[string]int{}
	for _, tl := range All() {
		used[tl.Toolset]++
	}
	for _, ts := range toolsets {
		if ts.Description == "" {
			t.Errorf("toolset %s has no description", ts.Name)
		}
		if used[ts.Name] == 0 {
			t.Errorf("toolset %s has no tools", ts.Name)
		}
	}
}

// TestToolsLiveWhereTheirNameSays keeps the rule that finds a tool's code from its MCP
// name: it is the variable named after it (browser_click_ref: BrowserClickRef; the V3
// session tools drop their mcp_W365ComputerUse_ prefix) in the file of its toolset
// (snapshot.go), and it is listed once.
func TestToolsLiveWhereTheirNameSays(t *testing.T) {
	fset := token.NewFileSet()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	where := map[string]string{} // MCP name -> "file:Var"
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		af, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range af.Decls {
			gd, ok := d.(*ast.GenDecl)
			if !ok || gd.Tok != token.VAR {
				continue
			}
			for _, spec := range gd.Specs {
				vs := spec.(*ast.ValueSpec)
				if len(vs.Values) != 1 {
					continue
				}
				if name := definedName(vs.Values[0]); name != "" {
					if prev, ok := where[name]; ok {
						t.Errorf("%s is defined twice: %s and %s:%s", name, prev, f, vs.Names[0].Name)
					}
					where[name] = f + ":" + vs.Names[0].Name
				}
			}
		}
	}
	for _, tl := range All() {
		got, ok := where[tl.Name]
		if !ok {
			t.Errorf("%s: no `var X = tool.Define(tool.Tool{Name: ...})` found", tl.Name)
			continue
		}
		if want := tl.Toolset + ".go:" + varName(tl.Name); got != want {
			t.Errorf("%s is defined at %s, want %s", tl.Name, got, want)
		}
	}
	if len(where) != len(All()) {
		t.Errorf("%d tool definitions in the files, %d tools in the registry: a definition is missing from its toolset's list", len(where), len(All()))
	}
}

// definedName is the Name of a tool definition expression (a call whose first argument
// is a tool.Tool literal), or "".
func definedName(e ast.Expr) string {
	call, ok := e.(*ast.CallExpr)
	if !ok || len(call.Args) == 0 {
		return ""
	}
	lit, ok := call.Args[0].(*ast.CompositeLit)
	if !ok {
		return ""
	}
	if sel, ok := lit.Type.(*ast.SelectorExpr); !ok || sel.Sel.Name != "Tool" {
		return ""
	}
	for _, el := range lit.Elts {
		if kv, ok := el.(*ast.KeyValueExpr); ok {
			if k, ok := kv.Key.(*ast.Ident); ok && k.Name == "Name" {
				if v, ok := kv.Value.(*ast.BasicLit); ok {
					s, _ := strconv.Unquote(v.Value)
					return s
				}
			}
		}
	}
	return ""
}

// varName is the Go name of the tool with MCP name name.
func varName(name string) string {
	name = strings.TrimPrefix(name, "mcp_W365ComputerUse_")
	var b strings.Builder
	for _, part := range strings.Split(name, "_") {
		if up := strings.ToUpper(part); slices.Contains([]string{"URL", "HTML", "JS", "PDF", "UI"}, up) {
			b.WriteString(up)
			continue
		}
		b.WriteString(strings.ToUpper(part[:1]) + part[1:])
	}
	return b.String()
}

func TestBatchActionsAreTools(t *testing.T) {
	for _, a := range batchActions {
		if Lookup("browser_"+a) == nil {
			t.Errorf("batch action %s has no tool browser_%s", a, a)
		}
	}
}

func TestPrepareValidatesAndNormalizes(t *testing.T) {
	cases := []struct {
		name string
		args map[string]any
		code werr.Code
		want func(t *testing.T, in ClickIn)
	}{
		{"defaults fill button and count", map[string]any{"x": 5.0, "y": 6.0}, "", func(t *testing.T, in ClickIn) {
			if in.Button != "Left" || in.ClickCount != 1 || *in.X != 5 {
				t.Errorf("got %+v", in)
			}
		}},
		{"enum matches case-insensitively", map[string]any{"button": "forward"}, "", func(t *testing.T, in ClickIn) {
			if in.Button != "Forward" {
				t.Errorf("button %q", in.Button)
			}
		}},
		{"unknown button names the allowed ones", map[string]any{"button": "Side"}, werr.InvalidArgument, nil},
		{"click count above range", map[string]any{"clickCount": 3.0}, werr.InvalidArgument, nil},
		{"string for x", map[string]any{"x": "abc", "y": 1.0}, werr.InvalidArgument, nil},
		{"unknown parameter", map[string]any{"z": 1.0}, werr.InvalidArgument, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in, err := Click.Prepare(c.args)
			if c.code != "" {
				if werr.CodeOf(err) != c.code {
					t.Fatalf("got %v, want %s", err, c.code)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			c.want(t, in.(ClickIn))
		})
	}
	_, err := Click.Prepare(map[string]any{"button": "Side"})
	if !strings.Contains(err.Error(), "Backward") {
		t.Errorf("error does not list allowed buttons: %v", err)
	}
}

func TestCLIPathsFollowTheNamingRule(t *testing.T) {
	cases := map[string]string{
		"take_screenshot":   "take-screenshot",
		"browser_click_ref": "browser click-ref",
		"get_screen_size":   "get-screen-size",
	}
	for name, want := range cases {
		if got := strings.Join(tool.CLIPath(name), " "); got != want {
			t.Errorf("CLIPath(%s) = %q, want %q", name, got, want)
		}
	}
}

func TestTitlesAreShortNames(t *testing.T) {
	for name, want := range map[string]string{
		"take_screenshot":                  "Take screenshot",
		"click":                            "Click",
		"browser_get_url":                  "Browser get URL",
		"mcp_W365ComputerUse_StartSession": "Start session",
	} {
		if got := Lookup(name).Title(); got != want {
			t.Errorf("%s: %q, want %q", name, got, want)
		}
	}
}
