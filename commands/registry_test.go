package commands

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/w365/w365/engine/werr"
)

// TestEveryToolIsCompletelyDefined walks the registry: help, example, toolset and all
// four annotations are set on every tool, and names are unique.
func TestEveryToolIsCompletelyDefined(t *testing.T) {
	seen := map[string]string{}
	paths := map[string]string{}
	for _, tool := range All() {
		tool.schemas()
		t.Run(tool.Name, func(t *testing.T) {
			if tool.Summary == "" || tool.Long == "" {
				t.Error("missing summary or long help")
			}
			if !strings.Contains(tool.Example, "$ w365 ") {
				t.Errorf("example has no `$ w365 ...` line: %q", tool.Example)
			}
			if !slices.Contains(Toolsets, tool.Toolset) {
				t.Errorf("toolset %q is not one of %v", tool.Toolset, Toolsets)
			}
			a := tool.Annotations
			for name, h := range map[string]Hint{"readOnly": a.ReadOnly, "destructive": a.Destructive, "idempotent": a.Idempotent, "openWorld": a.OpenWorld} {
				if h == Unset {
					t.Errorf("annotation %s not set explicitly", name)
				}
			}
			if a.ReadOnly == Yes && a.Destructive == Yes {
				t.Error("a read-only tool cannot be destructive")
			}
			for _, n := range append(append([]string{tool.Name}, tool.Legacy...), tool.MCPAliases...) {
				if prev, ok := seen[n]; ok {
					t.Errorf("MCP name %q also used by %s", n, prev)
				}
				seen[n] = tool.Name
			}
			p := strings.Join(tool.Path, " ")
			if prev, ok := paths[p]; ok {
				t.Errorf("CLI path %q also used by %s", p, prev)
			}
			paths[p] = tool.Name
			for _, arg := range tool.Args {
				if _, ok := tool.inSchema.Properties[arg]; !ok {
					t.Errorf("positional arg %q is not an input field", arg)
				}
			}
			checkClientFriendly(t, "input", tool.inSchema)
		})
	}
}

// checkClientFriendly rejects schema shapes some MCP clients choke on.
func checkClientFriendly(t *testing.T, where string, s *jsonschema.Schema) {
	if s == nil {
		return
	}
	if len(s.Types) > 1 {
		t.Errorf("%s: type array %v", where, s.Types)
	}
	for name, p := range s.Properties {
		checkClientFriendly(t, where+"."+name, p)
	}
	checkClientFriendly(t, where+"[]", s.Items)
}

// TestToolSchemasMatchSnapshots keeps each tool's schemas under review: a change
// fails here until the snapshot is rewritten on purpose with UPDATE_TOOLSNAPS=true.
func TestToolSchemasMatchSnapshots(t *testing.T) {
	dir := filepath.Join("..", "testdata", "toolsnaps")
	update := os.Getenv("UPDATE_TOOLSNAPS") == "true"
	want := map[string]bool{}
	for _, tool := range All() {
		tool.schemas()
		file := filepath.Join(dir, tool.Name+".json")
		want[filepath.Base(file)] = true
		got, err := json.MarshalIndent(map[string]any{"input": tool.inSchema, "output": tool.outSchema}, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, '\n')
		if update {
			os.MkdirAll(dir, 0o755)
			if err := os.WriteFile(file, got, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		old, err := os.ReadFile(file)
		if err != nil {
			t.Errorf("%s: no snapshot (run with UPDATE_TOOLSNAPS=true to create it): %v", tool.Name, err)
			continue
		}
		if !bytes.Equal(old, got) {
			t.Errorf("%s: schema differs from %s; review and rerun with UPDATE_TOOLSNAPS=true", tool.Name, file)
		}
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if !want[e.Name()] {
			if update {
				os.Remove(filepath.Join(dir, e.Name()))
			} else {
				t.Errorf("snapshot %s belongs to no tool", e.Name())
			}
		}
	}
}

func TestPrepareValidatesAndNormalizes(t *testing.T) {
	click := Lookup("click")
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
			in, err := click.Prepare(c.args)
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
	_, err := click.Prepare(map[string]any{"button": "Side"})
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
		if got := strings.Join(cliPath(name), " "); got != want {
			t.Errorf("cliPath(%s) = %q, want %q", name, got, want)
		}
	}
}
