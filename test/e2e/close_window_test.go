//go:build linux

package e2e_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/w365/w365/test/e2e"
	"github.com/w365/w365/test/testenv"
)

func windowTitles(t *testing.T, cs *mcp.ClientSession) []string {
	t.Helper()
	var out struct{ Windows []struct{ Title string } }
	e2e.Structured(t, e2e.Call(t, cs, "list_windows", nil), &out)
	var titles []string
	for _, w := range out.Windows {
		titles = append(titles, w.Title)
	}
	return titles
}

// clickFirst clicks the centre of the first element find_ui_element finds for args.
func clickFirst(t *testing.T, cs *mcp.ClientSession, args map[string]any) {
	t.Helper()
	var found struct {
		Matches []struct{ CenterX, CenterY int }
	}
	e2e.Structured(t, e2e.Call(t, cs, "find_ui_element", args), &found)
	if len(found.Matches) == 0 {
		t.Fatalf("find_ui_element %v found nothing", args)
	}
	e2e.Must(t, cs, "click", map[string]any{"x": found.Matches[0].CenterX, "y": found.Matches[0].CenterY})
}

// close_window takes a part of the title, as every window tool does (desktop.TitleMatches),
// but closes only one window: a query that fits two closes neither, and a part of one
// title closes that one.
func TestCloseWindowTakesAPartOfTheTitleAndOneWindow(t *testing.T) {
	t.Parallel()
	h := e2e.New(t)
	cs := agentOnItsSession(t, h)
	env := h.SessionEnvOf("default-agent")
	one, two, three := "Quarterly Report - Draft 1", "Quarterly Report - Draft 2", "/home/me/notes.txt - Mousepad"
	e2e.StartProbeEnv(t, env, "--title", one, "--position", "100,100", "--size", "300,200")
	e2e.StartProbeEnv(t, env, "--title", two, "--position", "500,100", "--size", "300,200")
	e2e.StartProbeEnv(t, env, "--title", three, "--position", "900,100", "--size", "300,200")

	both := func(when string) {
		t.Helper()
		if ts := windowTitles(t, cs); !slices.Contains(ts, one) || !slices.Contains(ts, two) {
			t.Fatalf("%s: a window went away; open: %q", when, ts)
		}
	}
	for _, q := range []string{"Q", "Quarterly", "Quarterly Report"} {
		if code := e2e.ErrorCode(e2e.Call(t, cs, "close_window", map[string]any{"title": q})); code != "INVALID_ARGUMENT" {
			t.Errorf("close_window %q, a part of two titles: code %q, want INVALID_ARGUMENT", q, code)
		}
	}
	if code := e2e.ErrorCode(e2e.Call(t, cs, "close_window", map[string]any{"title": "Spreadsheet"})); code != "NOT_FOUND" {
		t.Errorf("close_window of no title's part: code %q, want NOT_FOUND", code)
	}
	both("after ambiguous queries")

	// A part of one title, the way activate_window takes it.
	var mp struct {
		MatchedTitle string
		Closed       bool
	}
	e2e.Structured(t, e2e.Call(t, cs, "close_window", map[string]any{"title": "Mousepad"}), &mp)
	if mp.MatchedTitle != three || !mp.Closed {
		t.Fatalf("close_window Mousepad: %+v", mp)
	}

	res := e2e.Call(t, cs, "close_window", map[string]any{"title": "quarterly report - draft"})
	if code := e2e.ErrorCode(res); code != "INVALID_ARGUMENT" {
		t.Fatalf("ambiguous query: code %q (%s), want INVALID_ARGUMENT", code, e2e.Text(res))
	}
	b := e2e.ErrorMeta(res)
	if !strings.Contains(b, one) || !strings.Contains(b, two) || !strings.Contains(b, "candidates") {
		t.Errorf("ambiguous refusal does not list the candidates: %s", b)
	}
	both("after an ambiguous query")

	// The exact title picks one of two near-identical windows.
	var closed struct {
		MatchedTitle string
		Closed       bool
	}
	e2e.Structured(t, e2e.Call(t, cs, "close_window", map[string]any{"title": "quarterly report - draft 2"}), &closed)
	if closed.MatchedTitle != two || !closed.Closed {
		t.Fatalf("exact title: %+v", closed)
	}
	if ts := windowTitles(t, cs); !slices.Contains(ts, one) || slices.Contains(ts, two) {
		t.Fatalf("after closing %q, open: %q", two, ts)
	}
}

// A GTK application takes no close while one of its menus is open (galculator's View
// menu): close_window says closed false and why; after escape the window closes.
func TestCloseWindowNotesAnOpenPopup(t *testing.T) {
	t.Parallel()
	cs := galculatorSession(t)
	clickFirst(t, cs, map[string]any{"role": "Menu", "name": "View"})
	var res struct {
		Closed bool
		Note   string
	}
	for i := 0; i < 20; i++ { // until the menu is open, as list_windows sees it
		var ws struct{ Windows []struct{ Popups []any } }
		if e2e.Structured(t, e2e.Call(t, cs, "list_windows", nil), &ws); len(ws.Windows) > 0 && len(ws.Windows[0].Popups) > 0 {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	e2e.Structured(t, e2e.Call(t, cs, "close_window", map[string]any{"title": "galculator"}), &res)
	if res.Closed || !strings.Contains(res.Note, "press escape") {
		t.Fatalf("close_window with the menu open: %+v", res)
	}
	e2e.Must(t, cs, "press_keys", map[string]any{"keys": []string{"escape"}})
	res.Note = ""
	if e2e.Structured(t, e2e.Call(t, cs, "close_window", map[string]any{"title": "galculator"}), &res); !res.Closed || res.Note != "" {
		t.Fatalf("close_window with the menu closed: %+v", res)
	}
}

// An application that asks what to do with unsaved changes (gnome-text-editor's "Save
// Changes?") stays open: close_window says closed false and names the window it opened, which
// the agent answers (Discard) for the window to close.
func TestCloseWindowNamesTheWindowItOpened(t *testing.T) {
	// Not parallel (docs/development.md#tests): its editor must show its question within close_window's wait.
	testenv.Require(t, "gnome-text-editor")
	cs := launchedSession(t, "gnome-text-editor", "Text Editor")
	e2e.Must(t, cs, "type_text", map[string]any{"text": "unsaved"})
	var res struct {
		Closed bool
		Note   string
	}
	e2e.Structured(t, e2e.Call(t, cs, "close_window", map[string]any{"title": "Text Editor"}), &res)
	if res.Closed || !strings.Contains(res.Note, `opened the window "Save Changes?"`) {
		t.Fatalf("close_window with unsaved text: %+v", res)
	}
	e2e.Must(t, cs, "activate_window", map[string]any{"title": "Save Changes?"})
	clickFirst(t, cs, map[string]any{"role": "Button", "name": "Discard"})
	for i := 0; slices.ContainsFunc(windowTitles(t, cs), func(s string) bool { return strings.Contains(s, "Text Editor") }); i++ {
		if i == 50 {
			t.Fatalf("the editor is still open after Discard: %q", windowTitles(t, cs))
		}
		time.Sleep(100 * time.Millisecond)
	}
}
