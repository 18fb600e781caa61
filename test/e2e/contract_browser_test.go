//go:build linux

package e2e_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/w365/w365/test/e2e"
	"github.com/w365/w365/test/testenv"
)

// The Playwright Workspaces contract over MCP, judged by what the page saw:
// one target grammar (ref or CSS), click options, real modifier keys, appending
// type, dialogs opened by an action's own effect, form limits, batch errors.
func TestBrowserContractOverMCP(t *testing.T) {
	t.Parallel()
	testenv.Require(t, "chromium")
	h := e2e.New(t)
	same, cross := snapPages(t)
	cs := h.MCP()
	e2e.Must(t, cs, "browser_navigate", map[string]any{"url": same + "/contract.html"})
	log := func() string { return evalValue(t, cs, "JSON.stringify(window.__log)") }
	reset := func() { evalValue(t, cs, "(window.__log = [], '')") }
	snapID, snapText := snapshotOver(t, cs, map[string]any{})
	goRef, nameRef, alertRef := snapRef(t, snapText, `button "Go"`), snapRef(t, snapText, `textbox "Name"`), snapRef(t, snapText, `button "Alert"`)

	// browser_click: a ref (alone, with ref=, with its snapshot id) and a CSS selector.
	for _, target := range []string{goRef, "ref=" + goRef, snapID + ":" + goRef, "#go"} {
		reset()
		res := e2e.Call(t, cs, "browser_click", map[string]any{"target": target})
		if res.IsError || log() != `["click:0:1:"]` {
			t.Fatalf("click %s: %s, page saw %s", target, e2e.Text(res), log())
		}
	}
	reset()
	e2e.Must(t, cs, "browser_click", map[string]any{"target": goRef, "doubleClick": true})
	if got := log(); got != `["click:0:1:","click:0:2:","dblclick"]` {
		t.Fatalf("double click: page saw %s", got)
	}
	reset()
	e2e.Must(t, cs, "browser_click", map[string]any{"target": goRef, "button": "right"})
	if got := log(); got != `["contextmenu"]` {
		t.Fatalf("right click: page saw %s", got)
	}
	// Modifiers are real keys: down before the click, up after it.
	reset()
	e2e.Must(t, cs, "browser_click", map[string]any{"target": goRef, "modifiers": []string{"Shift"}})
	if got := log(); got != `["keydown:Shift+shift","click:0:1:shift","keyup:Shift"]` {
		t.Fatalf("shift click: page saw %s", got)
	}
	reset()
	e2e.Must(t, cs, "browser_keypress_ref", map[string]any{"snapshotId": snapID, "ref": nameRef, "key": "a", "modifiers": []string{"Ctrl", "Shift"}})
	if got := log(); got != `["keydown:Control+ctrl","keydown:Shift+ctrl+shift","keydown:a+ctrl+shift","keyup:a+ctrl+shift","keyup:Shift+ctrl","keyup:Control"]` {
		t.Fatalf("Ctrl+Shift+a: page saw %s", got)
	}

	// Typing: clear:false appends at the end, whatever an earlier call left.
	e2e.Must(t, cs, "browser_type_ref", map[string]any{"snapshotId": snapID, "ref": nameRef, "text": "old"})
	evalValue(t, cs, "(document.getElementById('name').setSelectionRange(0, 0), '')")
	e2e.Must(t, cs, "browser_type_ref", map[string]any{"snapshotId": snapID, "ref": nameRef, "text": "er", "clear": false})
	if got := evalValue(t, cs, "document.getElementById('name').value"); got != "older" {
		t.Fatalf("clear:false: value %q", got)
	}
	e2e.Must(t, cs, "browser_type", map[string]any{"target": nameRef, "text": "new", "slowly": true})
	e2e.Must(t, cs, "browser_type", map[string]any{"target": "#name", "text": "!", "append": true})
	if got := evalValue(t, cs, "document.getElementById('name').value"); got != "new!" {
		t.Fatalf("browser_type with target: value %q", got)
	}
	// Other tools take the same target grammar.
	var ev struct {
		Value string `json:"value"`
	}
	e2e.Structured(t, e2e.Call(t, cs, "browser_evaluate", map[string]any{"function": "el => el.id", "target": goRef}), &ev)
	if ev.Value != "go" {
		t.Fatalf("evaluate on a ref: %q", ev.Value)
	}
	e2e.Must(t, cs, "browser_fill_form", map[string]any{"fields": []any{map[string]any{"target": nameRef, "value": "filled"}}})
	if got := evalValue(t, cs, "document.getElementById('name').value"); got != "filled" {
		t.Fatalf("fill_form on a ref: value %q", got)
	}
	e2e.Must(t, cs, "browser_take_screenshot", map[string]any{"target": goRef})
	// PW limits of browser_fill_form, checked before anything is filled.
	for _, f := range []map[string]any{
		{"target": "#name", "value": strings.Repeat("x", 100<<10+1)},
		{"target": "#name", "value": "x", "name": strings.Repeat("n", 1025)},
		{"target": "#name", "value": "x", "type": strings.Repeat("t", 129)},
	} {
		if code := e2e.ErrorCode(e2e.Call(t, cs, "browser_fill_form", map[string]any{"fields": []any{f}})); code != "INVALID_ARGUMENT" {
			t.Fatalf("fill_form over a limit: %q", code)
		}
	}
	if got := evalValue(t, cs, "document.getElementById('name').value"); got != "filled" {
		t.Fatalf("a refused fill changed the field: %q", got)
	}

	// browser_file_upload: the page sees the given MIME type, application/octet-stream
	// by default, never one guessed from the name.
	reset()
	e2e.Must(t, cs, "browser_file_upload", map[string]any{"target": "#up", "files": []any{map[string]any{"name": "a.txt", "data": "aGk="}}})
	e2e.Must(t, cs, "browser_file_upload", map[string]any{"target": snapRef(t, snapText, "Upload"), "files": []any{map[string]any{"name": "b.png", "data": "aGk=", "mimeType": "text/csv"}}})
	if got := log(); got != `["file:a.txt|application/octet-stream|2","file:b.png|text/csv|2"]` {
		t.Fatalf("uploads: page saw %s", got)
	}
	two := []any{map[string]any{"name": "a", "data": "aGk="}, map[string]any{"name": "b", "data": "aGk="}}
	if code := e2e.ErrorCode(e2e.Call(t, cs, "browser_file_upload", map[string]any{"target": "#up", "files": two})); code != "INVALID_ARGUMENT" {
		t.Fatalf("two files into a single-file input: %q", code)
	}
	reset()

	// A dialog opened by the action's own effect is a success that describes it;
	// the next action is refused with DIALOG_PENDING.
	var pt struct {
		Dialog *struct {
			Type    string `json:"type"`
			Message string `json:"message"`
		} `json:"dialog"`
	}
	e2e.Structured(t, e2e.Call(t, cs, "browser_click_ref", map[string]any{"snapshotId": snapID, "ref": alertRef}), &pt)
	if pt.Dialog == nil || pt.Dialog.Type != "alert" || pt.Dialog.Message != "Hello alert" {
		t.Fatalf("click_ref that opened an alert: %+v", pt)
	}
	if code := e2e.ErrorCode(e2e.Call(t, cs, "browser_click_ref", map[string]any{"snapshotId": snapID, "ref": goRef})); code != "DIALOG_PENDING" {
		t.Fatalf("a later action while the alert is open: %q", code)
	}
	e2e.Must(t, cs, "browser_handle_dialog", map[string]any{"accept": true})
	if got := evalValue(t, cs, "document.getElementById('out').textContent"); got != "alert done" {
		t.Fatalf("after the alert: %q", got)
	}
	// Same in a batch: the step that opened the dialog succeeded, the next one fails the call.
	reset()
	res := e2e.Call(t, cs, "browser_execute_batch", map[string]any{"actions": []any{
		map[string]any{"action": "click_ref", "params": map[string]any{"ref": alertRef}},
		map[string]any{"action": "click_ref", "params": map[string]any{"ref": goRef}},
	}})
	var batch struct {
		Results []struct {
			Result json.RawMessage `json:"result"`
		} `json:"results"`
		Failed *struct {
			Index int    `json:"index"`
			Code  string `json:"code"`
		} `json:"failed"`
	}
	batchError(t, res, &batch)
	if len(batch.Results) != 1 || !strings.Contains(string(batch.Results[0].Result), `"Hello alert"`) || batch.Failed == nil || batch.Failed.Index != 1 || batch.Failed.Code != "DIALOG_PENDING" || e2e.ErrorCode(res) != "DIALOG_PENDING" {
		t.Fatalf("batch with a dialog: %+v %s", batch, e2e.Text(res))
	}
	e2e.Must(t, cs, "browser_handle_dialog", map[string]any{"action": "dismiss"})
	if got := log(); got != `[]` {
		t.Fatalf("the refused batch step reached the page: %s", got)
	}

	// browser_wait_for sees text in every frame, cross-origin too, and waits a bounded time.
	e2e.Must(t, cs, "browser_wait_for", map[string]any{"text": "Inner frame text"})
	if code := e2e.ErrorCode(e2e.Call(t, cs, "browser_wait_for", map[string]any{"textGone": "Inner frame text", "timeoutMs": 500})); code != "TIMEOUT" {
		t.Fatalf("textGone of a frame's text: %q", code)
	}
	// The result says the line that held the text: a toast gone before the agent's next
	// look is still read.
	evalValue(t, cs, "(setTimeout(() => { const d = document.createElement('p'); d.textContent = 'Saved. Your reference is J-42'; document.body.append(d); setTimeout(() => d.remove(), 500); }, 200), '')")
	if got := e2e.Text(e2e.Call(t, cs, "browser_wait_for", map[string]any{"text": "reference is"})); !strings.HasSuffix(got, `: "Saved. Your reference is J-42"`) {
		t.Fatalf("wait_for for a toast's text says %q, not the toast's line", got)
	}
	e2e.Must(t, cs, "browser_navigate", map[string]any{"url": same + "/snap_frames.html?x=" + cross + "/snap_child.html"})
	evalValue(t, cs, "(document.getElementById('same').remove(), '')") // only the cross-origin child is left
	e2e.Must(t, cs, "browser_wait_for", map[string]any{"text": "Child button", "timeoutMs": 10000})
	if code := e2e.ErrorCode(e2e.Call(t, cs, "browser_wait_for", map[string]any{"text": "No such text anywhere", "timeoutMs": 300})); code != "TIMEOUT" {
		t.Fatalf("missing text: %q", code)
	}
	// A ref inside the cross-origin iframe works as a target too.
	snapID, snapText = snapshotOver(t, cs, map[string]any{})
	e2e.Must(t, cs, "browser_click", map[string]any{"target": snapRef(t, snapText, `button "Child button"`)})
	e2e.Must(t, cs, "browser_type", map[string]any{"target": snapRef(t, snapText, `textbox "Child input"`), "text": "xo"})
	e2e.Must(t, cs, "browser_wait_for", map[string]any{"text": "Frames"})
	if got := evalValue(t, cs, "JSON.stringify(window.__log)"); got != `["cross click:Child button","cross input:x","cross input:xo"]` {
		t.Fatalf("cross-origin targets: the page saw %s", got)
	}
	var w struct {
		ElapsedMs int64 `json:"elapsedMs"`
	}
	e2e.Structured(t, e2e.Call(t, cs, "browser_wait_for", map[string]any{"time": 0.3}), &w)
	if w.ElapsedMs < 300 {
		t.Fatalf("time 0.3 s waited %d ms", w.ElapsedMs)
	}
}

// find_ui_element's text looks into page content: a Chromium paragraph has no
// accessible name, only its text (its static children are named by their pieces).
func TestFindUIElementFindsAChromiumParagraphByText(t *testing.T) {
	t.Parallel()
	testenv.Require(t, "chromium")
	h := e2e.New(t)
	same, _ := snapPages(t)
	cs := h.MCP()
	e2e.Must(t, cs, "browser_navigate", map[string]any{"url": same + "/contract.html"})
	e2e.Must(t, cs, "focus_browser", map[string]any{"pattern": "contract"})
	// The text runs over three nodes, so no single one is named by it.
	evalValue(t, cs, "(document.getElementById('out').innerHTML = 'A paragraph <b>only its text</b> names', '')")
	var found struct {
		Matches []struct {
			Role  string `json:"role"`
			Name  string `json:"name"`
			Value string `json:"value"`
		} `json:"matches"`
	}
	var res *mcp.CallToolResult
	for range 50 { // the accessibility tree follows the page a moment later
		res = e2e.Call(t, cs, "find_ui_element", map[string]any{"text": "only its text names"})
		if e2e.Structured(t, res, &found); len(found.Matches) > 0 {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	if len(found.Matches) == 0 || !strings.Contains(found.Matches[0].Name+found.Matches[0].Value, "A paragraph only its text names") {
		t.Fatalf("find_ui_element text: %s", e2e.Text(res))
	}
}
