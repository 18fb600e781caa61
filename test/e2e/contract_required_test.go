//go:build linux

package e2e_test

import (
	"encoding/json"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/w365/w365/test/e2e"
	"github.com/w365/w365/test/testenv"
)

// inputSchema is the part of a listed tool's input schema this file reads.
type inputSchema struct {
	Properties map[string]json.RawMessage `json:"properties"`
	Required   []string                   `json:"required"`
}

func schemaOf(t *testing.T, tl *mcp.Tool) inputSchema {
	t.Helper()
	b, _ := json.Marshal(tl.InputSchema)
	var s inputSchema
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatalf("%s: input schema %s: %v", tl.Name, b, err)
	}
	return s
}

// atLeastOne are the tools whose contract asks for one of several optional parameters
// (TOOLS.md R12 for find_ui_element; browser_find the same for its search): a call with
// none is refused in these words, which name only optional parameters of the tool.
var atLeastOne = map[string]*regexp.Regexp{
	"find_ui_element": regexp.MustCompile(`^INVALID_ARGUMENT: give text, role or name`),
	"browser_find":    regexp.MustCompile(`^INVALID_ARGUMENT: give text, regex, role or name`),
}

// lastly are the tools that end what the others run in: called after all the rest.
var lastly = []string{"mcp_W365ComputerUse_EndSession", "close_browser_session"}

// What a model reads in a schema is what the server asks: every tool, called as an agent
// that read only its schema would call it with the least it may give (nothing but the
// required parameters; here, nothing at all), is either refused for a missing required
// parameter the schema names, or not refused for its input at all. The seven parameters
// the server required while their schemas called them optional (the title of
// activate_window and close_window, the selector of browser_click, browser_type and
// browser_wait_for, tabIndex, the dialog's action) fail here when their mark is missing.
func TestSchemasRequireWhatTheServerRequires(t *testing.T) {
	t.Parallel()
	testenv.Require(t, "chromium", "Xvfb")
	h := e2e.New(t)
	cs := h.MCP("--toolsets", "all")
	tools := toolsLastly(t, cs)
	missing := regexp.MustCompile(`^INVALID_ARGUMENT: missing required parameter "([A-Za-z]+)"`)
	for _, tl := range tools {
		s := schemaOf(t, tl)
		r := e2e.Call(t, cs, tl.Name, map[string]any{})
		text := e2e.Text(r)
		switch {
		case e2e.ErrorCode(r) != "INVALID_ARGUMENT":
			if len(s.Required) > 0 {
				t.Errorf("%s: called without its required %v, answered %.120q", tl.Name, s.Required, text)
			}
		case missing.MatchString(text):
			if p := missing.FindStringSubmatch(text)[1]; !slices.Contains(s.Required, p) {
				t.Errorf("%s: refused for missing %q, which its schema does not require (required: %v)", tl.Name, p, s.Required)
			}
		case atLeastOne[tl.Name] != nil && atLeastOne[tl.Name].MatchString(text):
		default:
			t.Errorf("%s: with no arguments, which its schema allows, refused: %.160q", tl.Name, text)
		}
	}
}

// toolsLastly lists the server's tools, those that end what the others run in last.
func toolsLastly(t *testing.T, cs *mcp.ClientSession) []*mcp.Tool {
	t.Helper()
	res, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	tools := res.Tools
	slices.SortStableFunc(tools, func(a, b *mcp.Tool) int {
		return btoi(slices.Contains(lastly, a.Name)) - btoi(slices.Contains(lastly, b.Name))
	})
	return tools
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// The contract where an agent meets it: older names take older spellings, null is "not
// given", a value out of range is refused in the tool's words, an empty desktop is an
// empty tree, and the tree and the OCR text are in the structured result.
func TestContractSpellingsNullsRangesAndEmptyResults(t *testing.T) {
	t.Parallel()
	testenv.Require(t, "Xvfb", "tesseract")
	h := e2e.New(t)
	cs := h.MCP("--legacy-names")

	// An empty desktop: no window has the focus. The tree is empty, not NOT_FOUND, and
	// windowHandle null is the foreground window.
	var tree struct {
		Root  map[string]any `json:"root"`
		Count *int           `json:"count"`
	}
	e2e.Structured(t, e2e.Call(t, cs, "get_accessibility_tree", nil), &tree)
	if tree.Root == nil || tree.Count == nil || *tree.Count != 0 {
		t.Errorf("empty desktop: tree %+v", tree)
	}
	r := e2e.Call(t, cs, "find_ui_element", map[string]any{"text": "OK", "windowHandle": nil})
	var found struct {
		Matches []any `json:"matches"`
	}
	e2e.Structured(t, r, &found)
	if found.Matches == nil || len(found.Matches) != 0 || strings.Contains(e2e.Text(r), "reflect") {
		t.Errorf("find_ui_element with windowHandle null: %q", e2e.Text(r))
	}
	// Its text says why it found nothing: an agent whose click fell off a window (gnome-clocks'
	// hidden tab, below its window) read "no element matches" and looked for the element again.
	if !strings.Contains(e2e.Text(r), "no window has the focus") {
		t.Errorf("find_ui_element with no window focused says %q", e2e.Text(r))
	}

	// The V1/V2 names with the V1/V2 spellings.
	r = e2e.Call(t, cs, "mcp_desktop_activate_window", map[string]any{"titlePattern": "no such window"})
	if e2e.ErrorCode(r) != "NOT_FOUND" {
		t.Errorf("activate_window by titlePattern: %q, want NOT_FOUND for a window that is not there", e2e.Text(r))
	}
	r = e2e.Call(t, cs, "mcp_desktop_close_window", map[string]any{"titlePattern": "no such window"})
	if e2e.ErrorCode(r) != "NOT_FOUND" {
		t.Errorf("close_window by titlePattern: %q", e2e.Text(r))
	}
	var sh struct {
		Stdout string `json:"stdout"`
	}
	e2e.Structured(t, e2e.Call(t, cs, "mcp_desktop_execute_shell_command", map[string]any{"command": "ls /", "timeoutMS": 5000}), &sh)
	if !strings.Contains(sh.Stdout, "usr") {
		t.Errorf("execute_shell_command with timeoutMS: stdout %q", sh.Stdout)
	}

	// Range and type errors in the tool's words.
	for _, c := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"click", map[string]any{"x": 10, "y": 10, "clickCount": 3}, "INVALID_ARGUMENT: clickCount must be at most 2, not 3"},
		{"get_accessibility_tree", map[string]any{"maxDepth": 11}, "INVALID_ARGUMENT: maxDepth must be at most 10, not 11"},
		{"wait_milliseconds", map[string]any{"ms": 1.5}, "INVALID_ARGUMENT: ms must be a whole number, not 1.5"},
		{"type_text", map[string]any{"text": 5}, "INVALID_ARGUMENT: text must be a string, not the number 5"},
	} {
		r := e2e.Call(t, cs, c.tool, c.args)
		if !strings.HasPrefix(e2e.Text(r), c.want) {
			t.Errorf("%s %v: %q, want %q", c.tool, c.args, e2e.Text(r), c.want)
		}
	}

	// analyze_screen's fullText is a field of the structured result.
	var ocr struct {
		FullText *string `json:"fullText"`
		Boxes    []any   `json:"boxes"`
	}
	e2e.Structured(t, e2e.Call(t, cs, "analyze_screen", nil), &ocr)
	if ocr.FullText == nil || ocr.Boxes == nil {
		t.Errorf("analyze_screen structured result lacks fullText or boxes: %+v", ocr)
	}
}
