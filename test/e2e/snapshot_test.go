//go:build linux

package e2e_test

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/w365/w365/test/e2e"
	"github.com/w365/w365/test/testenv"
)

// snapPages serves testdata/pages on 127.0.0.1; "localhost" on the same port
// is a second origin for cross-origin iframes.
func snapPages(t *testing.T) (same, cross string) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(http.FileServer(http.Dir(filepath.Join(testenv.Root(), "testdata", "pages"))))
	srv.Listener.Close()
	srv.Listener = l
	srv.Start()
	t.Cleanup(srv.Close)
	port := l.Addr().(*net.TCPAddr).Port
	return fmt.Sprintf("http://127.0.0.1:%d", port), fmt.Sprintf("http://localhost:%d", port)
}

func snapRef(t *testing.T, text, what string) string {
	t.Helper()
	m := regexp.MustCompile(regexp.QuoteMeta(what) + `[^\n]*\[ref=(e\d+)\]`).FindStringSubmatch(text)
	if m == nil {
		t.Fatalf("no %q with a ref in:\n%s", what, text)
	}
	return m[1]
}

// snapshotOver takes a snapshot over MCP: its id (structured content) and its text (the
// result's text content, which structured content does not repeat).
func snapshotOver(t *testing.T, cs *mcp.ClientSession, args map[string]any) (id, text string) {
	t.Helper()
	res := e2e.Call(t, cs, "browser_snapshot", args)
	var snap struct {
		SnapshotID string `json:"snapshotId"`
	}
	e2e.Structured(t, res, &snap)
	return snap.SnapshotID, e2e.Text(res)
}

// evalLog reads window.__log through a separate CLI process.
func evalLog(t *testing.T, h *e2e.Harness) string {
	t.Helper()
	return h.MustRun("browser", "eval-js", "JSON.stringify(window.__log)")
}

// A snapshot taken by one CLI process gives refs that later CLI processes act on.
func TestSnapshotRefsAcrossSeparateCLIProcesses(t *testing.T) {
	t.Parallel()
	testenv.Require(t, "chromium")
	h := e2e.New(t)
	same, cross := snapPages(t)
	h.MustRun("browser", "navigate", same+"/snap_frames.html?x="+cross+"/snap_child.html")

	var snap struct {
		SnapshotID string           `json:"snapshotId"`
		Text       string           `json:"text"`
		Nodes      []map[string]any `json:"nodes"`
	}
	h.JSON(&snap, "browser", "snapshot")
	if snap.SnapshotID == "" || len(snap.Nodes) == 0 {
		t.Fatalf("snapshot: %+v", snap)
	}
	human := h.MustRun("browser", "snapshot")
	if !strings.Contains(human, "snapshotId: ") || !strings.Contains(human, `- button "Top button" [ref=`) {
		t.Errorf("human output:\n%s", human)
	}

	top := snapRef(t, snap.Text, `button "Top button"`)
	out := h.MustRun("browser", "click-ref", "--snapshot-id", snap.SnapshotID, "--ref", top)
	if !strings.Contains(out, "clicked "+top+` (button "Top button") at (`) {
		t.Errorf("click-ref said %q", out)
	}
	// The cross-origin iframe's button, in yet another process.
	crossBtn := regexp.MustCompile(`button "Child button" \[ref=(e\d+)\]`).FindAllStringSubmatch(snap.Text, -1)
	if len(crossBtn) != 2 {
		t.Fatalf("iframe buttons:\n%s", snap.Text)
	}
	h.MustRun("browser", "click-ref", "--snapshot-id", snap.SnapshotID, "--ref", crossBtn[1][1])
	input := regexp.MustCompile(`textbox "Child input" \[ref=(e\d+)\]`).FindAllStringSubmatch(snap.Text, -1)
	var typed struct {
		Characters int `json:"characters"`
	}
	h.JSON(&typed, "browser", "type-ref", "--snapshot-id", snap.SnapshotID, "--ref", input[1][1], "--text", "über")
	if typed.Characters != 4 {
		t.Errorf("type-ref characters: %d", typed.Characters)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		log := evalLog(t, h)
		if strings.Contains(log, "click:top") && strings.Contains(log, "cross click:Child button") && strings.Contains(log, "cross input:über") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the page saw %s", log)
		}
		time.Sleep(100 * time.Millisecond)
	}

	// browser find gives refs usable the same way.
	var found struct {
		SnapshotID string `json:"snapshotId"`
		Matches    []struct {
			Ref string `json:"ref"`
		} `json:"matches"`
	}
	h.JSON(&found, "browser", "find", "--role", "button", "--name", "top")
	if len(found.Matches) != 1 {
		t.Fatalf("find: %+v", found)
	}
	h.MustRun("browser", "hover-ref", "--snapshot-id", found.SnapshotID, "--ref", found.Matches[0].Ref)

	// After navigation, the old refs are SNAPSHOT_EXPIRED, and nothing is clicked.
	h.MustRun("browser", "navigate", same+"/snap_second.html")
	r := h.Run("browser", "click-ref", "--snapshot-id", snap.SnapshotID, "--ref", top)
	if r.Code == 0 || !strings.Contains(r.Stderr, "SNAPSHOT_EXPIRED") || !strings.Contains(r.Stderr, "new snapshot") {
		t.Errorf("stale ref: exit %d, stderr %q", r.Code, r.Stderr)
	}
}

// Over MCP: batches, the overlay hit test and the upload policy.
func TestSnapshotToolsOverMCP(t *testing.T) {
	t.Parallel()
	testenv.Require(t, "chromium")
	h := e2e.New(t)
	same, _ := snapPages(t)
	cs := h.MCP()

	res := e2e.Call(t, cs, "browser_execute_batch", map[string]any{"actions": []any{
		map[string]any{"action": "navigate", "params": map[string]any{"url": same + "/snap_list.html"}},
		map[string]any{"action": "snapshot"},
		map[string]any{"action": "eval_js", "params": map[string]any{"expression": "document.title"}},
	}})
	var batch struct {
		Results []struct {
			Action string          `json:"action"`
			Result json.RawMessage `json:"result"`
		} `json:"results"`
		Failed *struct {
			Index int    `json:"index"`
			Code  string `json:"code"`
		} `json:"failed"`
	}
	e2e.Structured(t, res, &batch)
	if len(batch.Results) != 3 || batch.Failed != nil {
		t.Fatalf("batch: %+v", batch)
	}
	var snap struct {
		SnapshotID string `json:"snapshotId"`
		Text       string `json:"text"`
	}
	json.Unmarshal(batch.Results[1].Result, &snap)
	beta := snapRef(t, snap.Text, "Done Beta")

	// A ref action without snapshotId uses the latest snapshot; the batch
	// stops at the first failure (an unknown ref) and reports it.
	res = e2e.Call(t, cs, "browser_execute_batch", map[string]any{"actions": []any{
		map[string]any{"action": "click_ref", "params": map[string]any{"ref": beta}},
		map[string]any{"action": "click_ref", "params": map[string]any{"snapshotId": snap.SnapshotID, "ref": "e999"}},
		map[string]any{"action": "click_ref", "params": map[string]any{"ref": beta}},
	}})
	batch.Results, batch.Failed = nil, nil
	batchError(t, res, &batch)
	if len(batch.Results) != 1 || batch.Failed == nil || batch.Failed.Index != 1 || batch.Failed.Code != "NOT_FOUND" || e2e.ErrorCode(res) != "NOT_FOUND" {
		t.Fatalf("failing batch: %+v", batch)
	}
	var ev struct {
		Value string `json:"value"`
	}
	e2e.Structured(t, e2e.Call(t, cs, "browser_eval_js", map[string]any{"expression": "JSON.stringify(window.__log)"}), &ev)
	if ev.Value != `["done:Beta"]` {
		t.Errorf("the page saw %s (want exactly one click)", ev.Value)
	}
	// Every other batch action: add an item, wait for it, snapshot, hover,
	// scroll and press a key on refs of the new snapshot.
	res = e2e.Call(t, cs, "browser_execute_batch", map[string]any{"actions": []any{
		map[string]any{"action": "click_ref", "params": map[string]any{"ref": snapRef(t, snap.Text, "Add item")}},
		map[string]any{"action": "wait_for", "params": map[string]any{"text": "Done Item3"}},
		map[string]any{"action": "snapshot", "params": map[string]any{"maxDepth": 3}},
		map[string]any{"action": "hover_ref", "params": map[string]any{"ref": beta}},
		map[string]any{"action": "scroll_ref", "params": map[string]any{"ref": beta, "deltaY": 10}},
		map[string]any{"action": "keypress_ref", "params": map[string]any{"ref": beta, "key": "Enter"}},
		map[string]any{"action": "type_ref", "params": map[string]any{"ref": beta, "text": "x"}},
	}})
	batch.Results, batch.Failed = nil, nil
	batchError(t, res, &batch)
	// type_ref on a button is INVALID_ARGUMENT: six actions ran, the seventh failed.
	if len(batch.Results) != 6 || batch.Failed == nil || batch.Failed.Index != 6 || batch.Failed.Code != "INVALID_ARGUMENT" {
		t.Fatalf("full batch: %+v %s", batch, e2e.Text(res))
	}
	e2e.Structured(t, e2e.Call(t, cs, "browser_eval_js", map[string]any{"expression": "JSON.stringify(window.__log)"}), &ev)
	if ev.Value != `["done:Beta","done:Beta"]` { // Enter on a focused button clicks it
		t.Errorf("the page saw %s", ev.Value)
	}
	// An action outside the allowlist fails before anything runs.
	res = e2e.Call(t, cs, "browser_execute_batch", map[string]any{"actions": []any{
		map[string]any{"action": "click_ref", "params": map[string]any{"ref": beta}},
		map[string]any{"action": "close_tab"},
	}})
	if code := e2e.ErrorCode(res); code != "INVALID_ARGUMENT" {
		t.Errorf("disallowed action: %q %s", code, e2e.Text(res))
	}

	// The overlay: OBSCURED, and the covered button is not clicked.
	e2e.Must(t, cs, "browser_navigate", map[string]any{"url": same + "/snap_overlay.html"})
	res = e2e.Call(t, cs, "browser_snapshot", map[string]any{})
	e2e.Structured(t, res, &snap)
	res = e2e.Call(t, cs, "browser_click_ref", map[string]any{"snapshotId": snap.SnapshotID, "ref": snapRef(t, e2e.Text(res), "Covered button")})
	if code := e2e.ErrorCode(res); code != "OBSCURED" || !strings.Contains(e2e.Text(res), "div#overlay") {
		t.Errorf("covered click: %q %s", code, e2e.Text(res))
	}
	e2e.Structured(t, e2e.Call(t, cs, "browser_eval_js", map[string]any{"expression": "JSON.stringify(window.__log)"}), &ev)
	if ev.Value != `[]` {
		t.Errorf("the covered page saw %s", ev.Value)
	}

	// Uploads: a file of the session's temporary directory is set; a file elsewhere is BLOCKED_BY_POLICY.
	e2e.Must(t, cs, "browser_navigate", map[string]any{"url": same + "/snap_files.html"})
	res = e2e.Call(t, cs, "browser_snapshot", map[string]any{})
	e2e.Structured(t, res, &snap)
	up := snapRef(t, e2e.Text(res), `button "Attachment"`)
	py, ok := pyOver(t, cs, "import os\nopen('cv.txt', 'w').write('12345')\nprint(os.path.join(os.getcwd(), 'cv.txt'))", "")
	if !ok || !py.Success {
		t.Fatalf("python: %+v", py)
	}
	f := strings.TrimSpace(py.Stdout)
	res = e2e.Call(t, cs, "browser_set_file_input_ref", map[string]any{"snapshotId": snap.SnapshotID, "ref": up, "filePaths": []string{f}})
	if res.IsError {
		t.Fatalf("set files: %s", e2e.Text(res))
	}
	e2e.Structured(t, e2e.Call(t, cs, "browser_eval_js", map[string]any{"expression": "JSON.stringify(window.__log)"}), &ev)
	if ev.Value != `["files:cv.txt/5"]` {
		t.Errorf("the page saw %s", ev.Value)
	}
	res = e2e.Call(t, cs, "browser_set_file_input_ref", map[string]any{"snapshotId": snap.SnapshotID, "ref": up, "filePaths": []string{"/etc/hostname"}})
	if code := e2e.ErrorCode(res); code != "BLOCKED_BY_POLICY" {
		t.Errorf("outside file: %q %s", code, e2e.Text(res))
	}

	// Inline uploads, by ref (latest snapshot) and by selector.
	res = e2e.Call(t, cs, "browser_file_upload", map[string]any{"target": up, "files": []any{
		map[string]any{"name": "a.txt", "data": "aGVsbG8="},
		map[string]any{"name": "../../b.bin", "data": "AAEC", "mimeType": "application/x-test"},
	}})
	if res.IsError {
		t.Fatalf("file upload: %s", e2e.Text(res))
	}
	e2e.Must(t, cs, "browser_file_upload", map[string]any{"target": "#up", "files": []any{map[string]any{"name": "c.txt", "data": "Yw=="}}})
	e2e.Structured(t, e2e.Call(t, cs, "browser_eval_js", map[string]any{"expression": "JSON.stringify(window.__log)"}), &ev)
	if ev.Value != `["files:cv.txt/5","files:a.txt/5,b.bin/3","files:c.txt/1"]` {
		t.Errorf("the page saw %s", ev.Value)
	}
	for _, bad := range []map[string]any{
		{"target": "#up", "files": []any{map[string]any{"name": "x", "data": "%%%"}}},
		{"target": "#up", "files": []any{}},
	} {
		if code := e2e.ErrorCode(e2e.Call(t, cs, "browser_file_upload", bad)); code != "INVALID_ARGUMENT" {
			t.Errorf("bad upload %v: %q", bad, code)
		}
	}

	// Without target the upload answers the file chooser the page opened, and there
	// must be one.
	d := []any{map[string]any{"name": "d.txt", "data": "ZA=="}}
	if code := e2e.ErrorCode(e2e.Call(t, cs, "browser_file_upload", map[string]any{"files": d})); code != "NOT_FOUND" {
		t.Errorf("upload with no chooser open: %q", code)
	}
	e2e.Must(t, cs, "browser_click", map[string]any{"selector": "#up"})
	e2e.Must(t, cs, "browser_file_upload", map[string]any{"files": d})
	e2e.Structured(t, e2e.Call(t, cs, "browser_eval_js", map[string]any{"expression": "JSON.stringify(window.__log)"}), &ev)
	if !strings.HasSuffix(ev.Value, `"files:d.txt/1"]`) {
		t.Errorf("the page saw %s after answering its file chooser", ev.Value)
	}
}

// browser_file_upload drops files onto a drop zone that has no file input, as a file
// dragged from the desktop is: it answered INVALID_ARGUMENT, "is not a file input", and no
// tool put a file there (the agent task "drop a file onto a drop zone that has no file
// input"). An element that takes no files gets no drop.
func TestFileUploadDropsOntoADropZone(t *testing.T) {
	t.Parallel()
	testenv.Require(t, "chromium")
	h := e2e.New(t)
	cs := h.MCP()
	same, _ := snapPages(t)
	e2e.Must(t, cs, "browser_navigate", map[string]any{"url": same + "/snap_dropzone.html"})
	_, text := snapshotOver(t, cs, nil)
	zone, heading := snapRef(t, text, `region "Drop files here"`), snapRef(t, text, `heading "Scans"`)
	files := []any{
		map[string]any{"name": "a.txt", "data": "aGVsbG8=", "mimeType": "text/plain"},
		map[string]any{"name": "b.bin", "data": "AAEC"},
	}
	e2e.Must(t, cs, "browser_file_upload", map[string]any{"target": zone, "snapshotId": "latest", "files": files})
	res := e2e.Call(t, cs, "browser_file_upload", map[string]any{"target": heading, "snapshotId": "latest", "files": files})
	if code := e2e.ErrorCode(res); code != "INVALID_ARGUMENT" || !strings.Contains(e2e.Text(res), "drop zone") {
		t.Errorf("drop onto the heading: %q %s", code, e2e.Text(res))
	}
	var ev struct {
		Value string `json:"value"`
	}
	e2e.Structured(t, e2e.Call(t, cs, "browser_eval_js", map[string]any{"expression": "JSON.stringify(window.__log)"}), &ev)
	if ev.Value != `["drop:SPAN:a.txt/5/text/plain,b.bin/3/application/octet-stream"]` {
		t.Errorf("the page saw %s", ev.Value)
	}
}

// browser_wait_for for text goes on when the tab it waits in closes under it: a sign-in
// popup hands back to its opener and closes itself a moment after its button, and the
// wait for the opener to say so answered CANCELLED, "the call was cancelled" (the agent
// task "sign in through a popup that closes itself; place a hold", one run in five).
func TestWaitForTextOutlivesAPopupThatClosesItself(t *testing.T) {
	// Not parallel (docs/development.md#tests): its page's popup opens late and closes itself by timers.
	testenv.Require(t, "chromium")
	h := e2e.New(t)
	cs := h.MCP()
	same, _ := snapPages(t)
	e2e.Must(t, cs, "browser_navigate", map[string]any{"url": same + "/popup.html"})
	click := func(name string) {
		t.Helper()
		_, text := snapshotOver(t, cs, nil)
		e2e.Must(t, cs, "browser_click_ref", map[string]any{"snapshotId": "latest", "ref": snapRef(t, text, `button "`+name+`"`)})
	}
	click("Open late picker")
	click("Teal") // in the popup, which closes itself 0.5 s later
	e2e.Must(t, cs, "browser_wait_for", map[string]any{"text": "Chosen: Teal"})
}

// batchError decodes a failed browser_execute_batch: an error result (isError)
// whose details hold the results so far and the failed action.
func batchError(t *testing.T, res *mcp.CallToolResult, v any) {
	t.Helper()
	if !res.IsError {
		t.Fatalf("a failed batch is not an error result: %s", e2e.Text(res))
	}
	var p struct {
		Error struct {
			Details json.RawMessage `json:"details"`
		} `json:"error"`
	}
	b := []byte(e2e.ErrorMeta(res)) // the error's details travel in _meta
	if err := json.Unmarshal(b, &p); err != nil || json.Unmarshal(p.Error.Details, v) != nil {
		t.Fatalf("batch error %s: %v", b, err)
	}
}

// browser_drag drags a ref inside a cross-origin frame onto another one there (a card onto
// a board's column): it answered UNSUPPORTED, "inside a cross-origin iframe, which this
// tool cannot reach", and no other tool drags (the agent task "drag a card to another
// column of a board in a frame of another origin").
func TestDragRefsInACrossOriginFrame(t *testing.T) {
	t.Parallel()
	testenv.Require(t, "chromium")
	h := e2e.New(t)
	cs := h.MCP()
	same, cross := snapPages(t)
	e2e.Must(t, cs, "browser_navigate", map[string]any{"url": same + "/columns_frame.html?x=" + cross + "/columns.html"})
	var snap string
	for i := 0; i < 50 && !strings.Contains(snap, `list "Finished"`); i++ {
		time.Sleep(100 * time.Millisecond)
		_, snap = snapshotOver(t, cs, nil)
	}
	dune := regexp.MustCompile(`listitem \[ref=(e\d+)\]: Dune`).FindStringSubmatch(snap)
	if dune == nil {
		t.Fatalf("no Dune with a ref in:\n%s", snap)
	}
	res := e2e.Call(t, cs, "browser_drag", map[string]any{"sourceSelector": dune[1], "targetSelector": snapRef(t, snap, `list "Finished"`)})
	if res.IsError {
		t.Fatalf("browser_drag: %s", e2e.Text(res))
	}
	_, snap = snapshotOver(t, cs, nil)
	if !regexp.MustCompile(`list "Finished"[^\n]*\n\s+- listitem[^\n]*: Middlemarch\n\s+- listitem[^\n]*: Dune`).MatchString(snap) {
		t.Fatalf("Dune is not in the Finished list:\n%s", snap)
	}
}

// A word in a strong or an em has a ref of its own (as in playwright-mcp's snapshot), so an
// agent double-clicks it or hovers it; and the text around an inline element reads as the
// page shows it, with no space before the punctuation that follows it.
func TestInlineWordsHaveRefsAndTheirTextRunsOn(t *testing.T) {
	t.Parallel()
	testenv.Require(t, "chromium")
	h := e2e.New(t)
	cs := h.MCP()
	same, _ := snapPages(t)
	e2e.Must(t, cs, "browser_navigate", map[string]any{"url": same + "/inline_words.html"})
	_, snap := snapshotOver(t, cs, nil)
	for _, want := range []string{"- text: , then renew\n", "- paragraph: A bold word, an italic one and a plain!\n"} {
		if !strings.Contains(snap, want) {
			t.Errorf("the snapshot has no %q:\n%s", want, snap)
		}
	}
	word := snapRef(t, snap, "strong")
	e2e.Must(t, cs, "browser_click_ref", map[string]any{"snapshotId": "latest", "ref": word, "clickCount": 2})
	var sel struct{ Value string }
	e2e.Structured(t, e2e.Call(t, cs, "browser_eval_js", map[string]any{"expression": "getSelection().toString()"}), &sel)
	if strings.TrimSpace(sel.Value) != "Middlemarch" {
		t.Errorf("a double click on %s (strong) selected %q, not Middlemarch", word, sel.Value)
	}
	e2e.Must(t, cs, "browser_hover_ref", map[string]any{"snapshotId": "latest", "ref": snapRef(t, snap, "emphasis")})
	if _, after := snapshotOver(t, cs, nil); !strings.Contains(after, "Dune hovered") {
		t.Errorf("hovering the emphasis did not reach it:\n%s", after)
	}
}

// In a rich-text editor a word in bold has a ref too (its words are selected there to be
// formatted), though the editor's value holds it, and browser_find finds it inside the editor.
func TestAWordInAnEditorIsFoundAndFormatted(t *testing.T) {
	t.Parallel()
	testenv.Require(t, "chromium")
	h := e2e.New(t)
	cs := h.MCP()
	same, _ := snapPages(t)
	e2e.Must(t, cs, "browser_navigate", map[string]any{"url": same + "/inline_words.html"})
	if _, snap := snapshotOver(t, cs, nil); !regexp.MustCompile(`textbox "Review"[^\n]*\n\s+- emphasis \[ref=e\d+\]: long\n\s+- strong \[ref=e\d+\]: wonderful\b`).MatchString(snap) {
		t.Errorf("the editor's words in emphasis and in bold have no refs:\n%s", snap)
	}
	found := e2e.Text(e2e.Must(t, cs, "browser_find", map[string]any{"text": "wonderful"}))
	word := snapRef(t, found, "strong")
	e2e.Must(t, cs, "browser_click_ref", map[string]any{"snapshotId": "latest", "ref": word, "clickCount": 2})
	e2e.Must(t, cs, "browser_keypress_ref", map[string]any{"snapshotId": "latest", "ref": snapRef(t, found, `textbox "Review"`), "key": "Control+b"})
	var html struct{ Value string }
	e2e.Structured(t, e2e.Call(t, cs, "browser_eval_js", map[string]any{"expression": "document.getElementById('review').innerHTML"}), &html)
	if html.Value != "Dune is <em>long</em> but wonderful, and worth it." {
		t.Errorf("after a double click on %s and Ctrl+B the review reads %q", word, html.Value)
	}
}
