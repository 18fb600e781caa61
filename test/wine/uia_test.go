//go:build linux

package wine

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
)

// What wine 8.0 lacks for the accessibility tools, measured: its uiautomationcore.dll
// registers no UI Automation client class and exports DllGetClassObject only as an
// unimplemented stub, so CoCreateInstance of CLSID_CUIAutomation8 and CLSID_CUIAutomation
// fails with REGDB_E_CLASSNOTREG and nothing of IUIAutomation is reachable (nor is the
// flat client API a way round: its UiaNodeFromHandle returns E_NOTIMPL). The tools must
// say exactly that, as UNSUPPORTED, and never answer with an empty tree.
const wine8MissingUIA = "UNSUPPORTED: UI Automation's COM client is not available: " +
	"CoCreateInstance(CLSID_CUIAutomation8) failed with REGDB_E_CLASSNOTREG (0x80040154) and " +
	"CoCreateInstance(CLSID_CUIAutomation) with REGDB_E_CLASSNOTREG (0x80040154)"

// TestWineUIA drives get_accessibility_tree and find_ui_element against wine's notepad.
// Under wine 8 it asserts the exact UNSUPPORTED error naming the missing class; under a
// wine with a UI Automation client it asserts the tree itself (a Window named
// "Untitled - Notepad" with an Edit child) and that find_ui_element finds the Edit.
func TestWineUIA(t *testing.T) {
	x := New(t, screenW, screenH)
	t.Logf("display %s, %s", x.Display, x.Version())
	wine8 := x.Wine8()

	x.Start("notepad")
	w := waitWindow(t, x, "Notepad")
	if w.Title != "Untitled - Notepad" {
		t.Fatalf("notepad's window is titled %q, want %q", w.Title, "Untitled - Notepad")
	}
	x.JSON(&struct{}{}, "activate-window", w.Title)

	x.RunSteps(t,
		Step{"Tree", func(t *testing.T, x *Wine) { testUIATree(t, x, w, wine8) }},
		Step{"FindEdit", func(t *testing.T, x *Wine) { testUIAFindEdit(t, x, w, wine8) }},
		Step{"Walk", func(t *testing.T, x *Wine) { testUIAWalk(t, x, w, wine8) }},
	)
}

// uiaNode is a node of get_accessibility_tree's result.
type uiaNode struct {
	Role, NativeRole, Name, Value string
	X, Y, Width, Height           int
	Children                      []uiaNode
}

// wantMissingUIA asserts that a run failed with exactly wine 8's missing class.
func wantMissingUIA(t *testing.T, r Result, what string) {
	t.Helper()
	if r.Code != 8 || !strings.Contains(r.Stderr, wine8MissingUIA) {
		t.Fatalf("%s under wine 8: exit %d, stdout %q, stderr %q; want exit 8 (UNSUPPORTED) with %q", what, r.Code, r.Stdout, r.Stderr, wine8MissingUIA)
	}
	if strings.TrimSpace(r.Stdout) != "" {
		t.Fatalf("%s failed but printed a result: %q", what, r.Stdout)
	}
	t.Logf("%s: wine 8 lacks CLSID_CUIAutomation8 and CLSID_CUIAutomation (REGDB_E_CLASSNOTREG): %s", what, strings.TrimSpace(r.Stderr))
}

// testUIATree: the foreground window's tree (notepad, just activated).
func testUIATree(t *testing.T, x *Wine, w window, wine8 bool) {
	r := x.Run("get-accessibility-tree", "--max-depth", "3", "--json")
	if wine8 {
		wantMissingUIA(t, r, "get_accessibility_tree")
		return
	}
	if r.Code != 0 {
		t.Fatalf("get_accessibility_tree: exit %d, %s", r.Code, r.Stderr)
	}
	var tree struct {
		Root  uiaNode
		Count int
	}
	if err := json.Unmarshal([]byte(r.Stdout), &tree); err != nil {
		t.Fatalf("get_accessibility_tree: %v in %q", err, r.Stdout)
	}
	root := tree.Root
	if root.Role != "Window" || root.Name != w.Title || tree.Count < 2 {
		t.Fatalf("tree root %s %q with %d nodes, want the Window %q with children", root.Role, root.Name, tree.Count, w.Title)
	}
	var edit *uiaNode
	for i := range root.Children {
		if root.Children[i].Role == "Edit" {
			edit = &root.Children[i]
		}
	}
	if edit == nil {
		t.Fatalf("notepad's Window has no Edit child: %+v", root.Children)
	}
	if edit.X < w.X || edit.Y < w.Y || edit.X+edit.Width > w.X+w.Width || edit.Y+edit.Height > w.Y+w.Height || edit.Width == 0 {
		t.Fatalf("the Edit at %d,%d %dx%d is not inside notepad's window %d,%d %dx%d", edit.X, edit.Y, edit.Width, edit.Height, w.X, w.Y, w.Width, w.Height)
	}
}

// testUIAFindEdit: find_ui_element by role in notepad's window (by handle).
func testUIAFindEdit(t *testing.T, x *Wine, w window, wine8 bool) {
	args := []string{"find-ui-element", "--role", "Edit", "--window-handle", strconv.FormatUint(uint64(w.Handle), 10), "--json"}
	r := x.Run(args...)
	if wine8 {
		wantMissingUIA(t, r, "find_ui_element")
		return
	}
	if r.Code != 0 {
		t.Fatalf("find_ui_element: exit %d, %s", r.Code, r.Stderr)
	}
	var found struct {
		Matches []struct {
			Role             string
			CenterX, CenterY int
		}
	}
	if err := json.Unmarshal([]byte(r.Stdout), &found); err != nil {
		t.Fatalf("find_ui_element: %v in %q", err, r.Stdout)
	}
	if len(found.Matches) == 0 || found.Matches[0].Role != "Edit" {
		t.Fatalf("find_ui_element --role Edit in notepad = %+v, want its Edit", found.Matches)
	}
	m := found.Matches[0]
	if m.CenterX < w.X || m.CenterX > w.X+w.Width || m.CenterY < w.Y || m.CenterY > w.Y+w.Height {
		t.Fatalf("the Edit's centre %d,%d is outside notepad's window %+v", m.CenterX, m.CenterY, w)
	}
}

// testUIAWalk runs engine/desktop/win32's UI Automation tests under wine: with no UI Automation client
// in wine 8 they are where the walk, the cached reads and the error mapping run, over COM
// objects of the test's making that inject faults (engine/desktop/win32/uia_test.go).
func testUIAWalk(t *testing.T, x *Wine, w window, wine8 bool) {
	r := x.GoTest("./engine/desktop/win32", "-test.run", "TestUIAWalk")
	t.Log(strings.TrimSpace(r.Stdout))
	if r.Code != 0 || !strings.Contains(r.Stdout, "--- PASS: TestUIAWalk") || strings.Contains(r.Stdout, "FAIL") {
		t.Fatalf("engine/desktop/win32's UI Automation tests under wine: exit %d\n%s\n%s", r.Code, r.Stdout, r.Stderr)
	}
}
