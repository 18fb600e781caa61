//go:build linux

package e2e_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/w365/w365/test/e2e"
	"github.com/w365/w365/test/testenv"
)

// tmuxServer is a private tmux server whose windows run w365 on a real terminal.
type tmuxServer struct {
	t    *testing.T
	sock string
	env  []string
	bin  string
	logs map[string]string
}

func newTmux(t *testing.T, h *e2e.Harness, w, ht int) *tmuxServer {
	t.Helper()
	testenv.Require(t, "tmux")
	m := &tmuxServer{t: t, sock: filepath.Join(t.TempDir(), "tmux.sock"), env: h.Env, bin: h.Bin, logs: map[string]string{}}
	m.tmux("-f", "/dev/null", "new-session", "-d", "-s", "t", "-n", "idle", "-x", fmt.Sprint(w), "-y", fmt.Sprint(ht), "sleep 3600")
	m.tmux("set-option", "-g", "remain-on-exit", "on")
	t.Cleanup(func() { exec.Command("tmux", "-S", m.sock, "kill-server").Run() })
	return m
}

func (m *tmuxServer) tmux(args ...string) string {
	m.t.Helper()
	out, err := exec.Command("tmux", append([]string{"-S", m.sock}, args...)...).CombinedOutput()
	if err != nil {
		m.t.Fatalf("tmux %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// run opens window name running w365 with args on the harness's environment; its
// output also goes to a file, returned (the terminal's bytes, colours included).
func (m *tmuxServer) run(name string, args ...string) string {
	m.t.Helper()
	cmd := []string{"env", "-i"}
	for _, kv := range m.env {
		cmd = append(cmd, shellQuote(kv))
	}
	cmd = append(cmd, "TERM=xterm-256color", shellQuote(m.bin))
	for _, a := range args {
		cmd = append(cmd, shellQuote(a))
	}
	log := filepath.Join(m.t.TempDir(), name+".out")
	m.logs[name] = log
	// The command waits until its output is piped to the file: a w365 that exits at once
	// would leave a dead pane, which takes no pipe. The exit status is printed last, for dead.
	start := "tmux -S " + shellQuote(m.sock) + " wait-for " + shellQuote("start-"+name) + "; "
	m.tmux("new-window", "-d", "-n", name, start+strings.Join(cmd, " ")+`; echo "[w365 exited $?]"`)
	m.tmux("pipe-pane", "-t", "t:"+name, "cat >> "+shellQuote(log))
	m.tmux("wait-for", "-S", "start-"+name)
	return log
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// screen is the window's screen, wrapped lines joined (so a too-long line shows).
func (m *tmuxServer) screen(name string) string {
	return m.tmux("capture-pane", "-p", "-J", "-t", "t:"+name)
}

func (m *tmuxServer) keys(name, text string) {
	m.tmux("send-keys", "-t", "t:"+name, "-l", text)
	m.tmux("send-keys", "-t", "t:"+name, "Enter")
}

// waitScreen waits until the window's screen matches re.
func (m *tmuxServer) waitScreen(name string, re *regexp.Regexp) string {
	m.t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		s := m.screen(name)
		if re.MatchString(s) {
			return s
		}
		if time.Now().After(deadline) {
			m.t.Fatalf("window %s never showed %s:\n%s", name, re, s)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

var exited = regexp.MustCompile(`\[w365 exited (\d+)\]`)

// dead is the exit status of the window's program once it ended.
func (m *tmuxServer) dead(name string) (int, bool) {
	screen := m.screen(name)
	if b, err := os.ReadFile(m.logs[name]); err == nil {
		screen += string(b)
	}
	if mm := exited.FindStringSubmatch(screen); mm != nil {
		var code int
		fmt.Sscan(mm[1], &code)
		return code, true
	}
	return 0, false
}

// waitFile waits until the file holds re.
func waitFile(t *testing.T, path string, re *regexp.Regexp) string {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		b, _ := os.ReadFile(path)
		if re.Match(b) {
			return string(b)
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s never held %s:\n%s", path, re, b)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// httpAgent is an MCP client over streamable HTTP of a serve --http joined to the
// harness's host, with API key key.
func httpAgent(t *testing.T, h *e2e.Harness, key string) *mcp.ClientSession {
	t.Helper()
	url, _ := serveHTTP(t, h, []string{"W365_API_KEY=" + key})
	return connectHTTP(t, url, "Authorization", "Bearer "+key, nil)
}

var snapID = regexp.MustCompile(`s[0-9a-f]{6}-[0-9]+`)

// The person's REPL snapshot in an agent's session changes nothing for the agent: its
// "latest" stays its own, over HTTP and over stdio, and so does its tab when the person
// opens another; a dialog the person opened and answered still reaches the agent; and
// `watch` of an unknown session says NOT_FOUND and exits non-zero.
func TestObservingLeavesTheAgentsLatestAlone(t *testing.T) {
	t.Parallel()
	testenv.Require(t, "chromium")
	h := e2e.New(t)
	ps := newPageServer(t)
	h.MustRun("get-screen-size")
	m := newTmux(t, h, 200, 50)

	typoOut := m.run("typo", "--session", "nope", "watch")
	deadline := time.Now().Add(20 * time.Second)
	for {
		if code, ok := m.dead("typo"); ok {
			if b, _ := os.ReadFile(typoOut); code == 0 || !bytes.Contains(b, []byte(`NOT_FOUND: no session "nope"`)) {
				t.Errorf("watch of an unknown session exited %d: %q", code, b)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("watch of an unknown session still runs:\n%s", m.screen("typo"))
		}
		time.Sleep(100 * time.Millisecond)
	}

	web := httpAgent(t, h, "agent-key-1")
	// The person's default session is the person's: watching it shows no other
	// principal's default session's calls.
	defaultWatch := m.run("watch-default", "watch")
	waitFile(t, defaultWatch, regexp.MustCompile(`watching session default`))
	e2e.Must(t, web, "get_screen_size", map[string]any{})
	h.MustRun("get-cursor-position")
	if w := waitFile(t, defaultWatch, regexp.MustCompile(`end\s+#\d+ get_cursor_position`)); strings.Contains(w, "get_screen_size") {
		t.Errorf("watch of the person's default shows the HTTP agent's own default session:\n%s", w)
	}
	var bs struct{ BrowserSessionID string }
	e2e.Structured(t, e2e.Call(t, web, "create_browser_session", nil), &bs)
	b := bs.BrowserSessionID
	call := func(cs *mcp.ClientSession, name string, args map[string]any) *mcp.CallToolResult {
		t.Helper()
		if cs == web {
			args["browserSessionId"] = b
		}
		return e2e.Call(t, cs, name, args)
	}
	if res := call(web, "browser_navigate", map[string]any{"url": ps.URL + "/trace_login.html"}); res.IsError {
		t.Fatal(e2e.Text(res))
	}
	var agentSnap struct{ SnapshotID string }
	e2e.Structured(t, call(web, "browser_snapshot", map[string]any{}), &agentSnap)

	// The person attaches to the agent's session in the REPL and takes a snapshot.
	m.run("repl", "--session", b, "repl")
	m.waitScreen("repl", regexp.MustCompile(`(?m)^.*> `))
	m.keys("repl", "browser snapshot")
	personSnap := snapID.FindString(m.waitScreen("repl", regexp.MustCompile(`snapshotId: s[0-9a-f]{6}-[0-9]+`)))
	// One store per session: the same prefix says the person snapshotted the agent's session.
	if prefix := func(id string) string { p, _, _ := strings.Cut(id, "-"); return p }; personSnap == "" ||
		personSnap == agentSnap.SnapshotID || prefix(personSnap) != prefix(agentSnap.SnapshotID) {
		t.Fatalf("person's snapshot %q, agent's %q; CLI: %+v; sessions %s", personSnap, agentSnap.SnapshotID, h.Run("--session", b, "browser", "snapshot"), h.Run("session", "list", "--json").Stdout)
	}
	res := call(web, "browser_click_ref", map[string]any{"snapshotId": "latest", "ref": "e999"})
	if !res.IsError || !strings.Contains(e2e.Text(res), agentSnap.SnapshotID) || strings.Contains(e2e.Text(res), personSnap) {
		t.Errorf("the HTTP agent's latest after the person's snapshot: %s (want its own %s, not %s)", e2e.Text(res), agentSnap.SnapshotID, personSnap)
	}
	// And the person's latest is the person's.
	m.keys("repl", "browser click-ref --snapshot-id latest --ref e998")
	if s := m.waitScreen("repl", regexp.MustCompile(`e998`)); !strings.Contains(m.waitScreen("repl", regexp.MustCompile(`has no ref "e998"`)), personSnap) {
		t.Errorf("the person's latest is not the person's snapshot %s:\n%s", personSnap, s)
	}
	// The person opens a tab there: the agent's calls stay on the agent's tab. A dialog
	// the person opens and answers on it reaches the agent's next action all the same.
	m.keys("repl", "browser new-tab "+ps.URL+"/dialogs.html")
	m.waitScreen("repl", regexp.MustCompile(`dialogs\.html "Dialogs"`))
	var title struct{ Title string }
	if e2e.Structured(t, call(web, "browser_get_title", map[string]any{}), &title); title.Title != "Trace login" {
		t.Errorf("after the person's new tab the agent acts on %q", title.Title)
	}
	m.keys("repl", "browser click --target '#alert'")
	m.waitScreen("repl", regexp.MustCompile(`alert dialog opened: "Hello alert"`))
	m.keys("repl", "browser handle-dialog --action accept")
	m.waitScreen("repl", regexp.MustCompile(`alert dialog accepted`))
	if res := call(web, "browser_navigate", map[string]any{"url": ps.URL + "/trace_login.html"}); !strings.Contains(e2e.Text(res), `alert dialog "Hello alert" (not opened by this call) was accepted`) {
		t.Errorf("the person's dialog did not reach the agent: %s", e2e.Text(res))
	}

	// A stdio agent on the default session: a person's snapshot there leaves it with
	// none of its own.
	stdio := h.MCP()
	if res := call(stdio, "browser_navigate", map[string]any{"url": ps.URL + "/trace_login.html"}); res.IsError {
		t.Fatal(e2e.Text(res))
	}
	m.keys("repl", "use default")
	m.keys("repl", "browser snapshot")
	m.waitScreen("repl", regexp.MustCompile(`(?s)use default.*snapshotId: s[0-9a-f]{6}-[0-9]+`))
	if res := call(stdio, "browser_click_ref", map[string]any{"snapshotId": "latest", "ref": "e1"}); e2e.ErrorCode(res) != "SNAPSHOT_EXPIRED" {
		t.Errorf("the stdio agent took no snapshot, yet latest meant: %s", e2e.Text(res))
	}
	// A port Chromium never connects to is no passing failure.
	if res := call(stdio, "browser_navigate", map[string]any{"url": "http://127.0.0.1:6000/"}); !strings.Contains(e2e.Text(res), "ERR_UNSAFE_PORT") ||
		!strings.Contains(e2e.ErrorMeta(res), `"retryable":false`) {
		t.Errorf("navigating to an unsafe port: %s %s", e2e.Text(res), e2e.ErrorMeta(res))
	}
	if res := call(stdio, "browser_navigate", map[string]any{"url": ps.URL + "/trace_login.html"}); res.IsError {
		t.Fatal(e2e.Text(res))
	}
	var own struct{ SnapshotID string }
	e2e.Structured(t, call(stdio, "browser_snapshot", map[string]any{}), &own)
	if res := call(stdio, "browser_click_ref", map[string]any{"snapshotId": "latest", "ref": "e999"}); !strings.Contains(e2e.Text(res), own.SnapshotID) {
		t.Errorf("the stdio agent's latest: %s, want %s", e2e.Text(res), own.SnapshotID)
	}
}

// watchLine is one line of watch's output, parsed.
var watchLine = regexp.MustCompile(`(?m)^(?:\x1b\[[0-9;]*m)?\d\d:\d\d:\d\d\.\d{3} (start|end)\s+#(\d+) (\S+)(.*?)(?:\x1b\[0m)?\r?$`)

// An HTTP agent types a password five ways (type_ref, fill_form, execute_batch,
// run_code, browser_type) beside plain text, is held in the queue by the person, runs
// a command that exits 2, fails a call and takes a screenshot, while `watch` runs in
// a terminal and the session is traced: watch and the trace show the same numbered
// calls, refs with their names, the queued time, the exit status, the error with its
// hint and correlation id, the plain text and never a password; neither does the
// host's log. The report, rendered in Chromium, shows the agent's screenshot at full
// size, the error card, and an errors-only view.
func TestWatchAndTraceTellOneStoryWithoutSecrets(t *testing.T) {
	t.Parallel()
	testenv.Require(t, "chromium", "node", "bwrap")
	h := e2e.New(t)
	ps := newPageServer(t)
	state := t.TempDir()
	h.SetEnv("XDG_STATE_HOME", state)
	// A host whose browsers are headless Chromium: the report is checked in one.
	h.MustRun("--headless", "get-screen-size")
	web := httpAgent(t, h, "agent-key-2")
	var bs struct{ BrowserSessionID string }
	e2e.Structured(t, e2e.Call(t, web, "create_browser_session", nil), &bs)
	b := bs.BrowserSessionID
	call := func(name string, args map[string]any) *mcp.CallToolResult {
		t.Helper()
		args["browserSessionId"] = b
		return e2e.Call(t, web, name, args)
	}
	m := newTmux(t, h, 250, 50)
	watchOut := m.run("watch", "--session", b, "watch")
	m.waitScreen("watch", regexp.MustCompile(`watching session`))
	h.MustRun("--session", b, "trace", "start", "--screenshots")

	canaries := []string{"PW-CANARY-typeref-91", "PW-CANARY-form-92", "PW-CANARY-batch-93", "PW-CANARY-code-94", "PW-CANARY-type-95"}
	const plain = "alice-plain-text"
	must := func(name string, args map[string]any) *mcp.CallToolResult {
		t.Helper()
		res := call(name, args)
		if res.IsError {
			t.Fatalf("%s: %s", name, e2e.Text(res))
		}
		return res
	}
	must("browser_navigate", map[string]any{"url": ps.URL + "/trace_login.html"})
	snap := e2e.Text(must("browser_snapshot", map[string]any{}))
	refOf := func(role, name string) string {
		re := regexp.MustCompile(regexp.QuoteMeta(role) + ` "` + regexp.QuoteMeta(name) + `"[^\n]*\[ref=(e\d+)\]`)
		mm := re.FindStringSubmatch(snap)
		if mm == nil {
			t.Fatalf("no %s %q in the snapshot:\n%s", role, name, snap)
		}
		return mm[1]
	}
	user, pw, goRef := refOf("textbox", "user"), refOf("textbox", "password"), refOf("button", "Sign in")
	must("browser_type_ref", map[string]any{"snapshotId": "latest", "ref": user, "text": plain})
	must("browser_type_ref", map[string]any{"snapshotId": "latest", "ref": pw, "text": canaries[0]})
	must("browser_fill_form", map[string]any{"fields": []any{map[string]any{"target": pw, "value": canaries[1]}}})
	must("browser_execute_batch", map[string]any{"actions": []any{
		map[string]any{"action": "type_ref", "params": map[string]any{"ref": pw, "text": canaries[2]}},
		map[string]any{"action": "click_ref", "params": map[string]any{"ref": goRef}},
	}})
	must("browser_run_code", map[string]any{"code": "await page.fill('#pw', '" + canaries[3] + "'); return 1"})
	must("browser_type", map[string]any{"selector": "#pw", "text": canaries[4]})
	// The person holds the session for 3 s; the agent's click, made once watch shows the
	// hold running (a fixed pause lost the race to a CLI that took longer to start on a
	// loaded machine), waits behind it.
	hold := exec.Command(h.Bin, "--session", b, "wait-milliseconds", "--ms", "3000")
	hold.Env = h.Env
	if err := hold.Start(); err != nil {
		t.Fatal(err)
	}
	m.waitScreen("watch", regexp.MustCompile(`start #\d+ wait_milliseconds`))
	must("browser_click_ref", map[string]any{"snapshotId": "latest", "ref": goRef})
	hold.Wait()
	shell := e2e.Call(t, web, "execute_shell_command", map[string]any{"sessionId": b, "command": "ls /no-such-dir-w365"})
	bad := call("browser_click_ref", map[string]any{"snapshotId": "latest", "ref": "e999"})
	if !bad.IsError {
		t.Fatal("clicking e999 worked")
	}
	must("browser_screenshot", map[string]any{})

	stop := exec.Command(h.Bin, "--session", b, "trace", "stop")
	stop.Env = h.Env
	var so, se bytes.Buffer
	stop.Stdout, stop.Stderr = &so, &se
	if err := stop.Run(); err != nil {
		t.Fatalf("trace stop: %v %s", err, se.String())
	}
	file := strings.TrimSpace(so.String())
	if !strings.Contains(se.String(), "13 calls, 1 errors") {
		t.Errorf("trace stop said %q, want the counts of calls and errors", se.String())
	}
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	watch := waitFile(t, watchOut, regexp.MustCompile(`end\s+#\d+ browser_screenshot`))
	t.Logf("watch printed:\n%s", watch)

	type rec struct {
		ID            int
		Tool          string
		QueuedMs      int64
		Args          map[string]any
		Refs          map[string]string
		ExitCode      *int
		Image         string
		CorrelationID string
		Error         *struct{ Code, Message, Hint string }
	}
	var recs []rec
	sc := bufio.NewScanner(bytes.NewReader(raw))
	sc.Buffer(nil, 1<<20)
	for n := 0; sc.Scan(); n++ {
		if n > 0 {
			var r rec
			json.Unmarshal(sc.Bytes(), &r)
			recs = append(recs, r)
		}
	}
	ends := map[int]string{}
	starts := map[int]string{}
	for _, mm := range watchLine.FindAllStringSubmatch(watch, -1) {
		var id int
		fmt.Sscan(mm[2], &id)
		if mm[1] == "end" {
			ends[id] = mm[3] + mm[4]
		} else {
			starts[id] = mm[3] + mm[4]
		}
	}
	if len(recs) != 13 {
		t.Fatalf("%d records:\n%s", len(recs), raw)
	}
	for _, r := range recs {
		if r.ID == 0 || !strings.HasPrefix(ends[r.ID], r.Tool+" ") || !strings.HasPrefix(starts[r.ID], r.Tool) {
			t.Errorf("trace record #%d %s; watch shows start %q end %q", r.ID, r.Tool, starts[r.ID], ends[r.ID])
		}
	}
	byTool := func(name string, nth int) rec {
		for _, r := range recs {
			if r.Tool == name {
				if nth == 0 {
					return r
				}
				nth--
			}
		}
		t.Fatalf("no %s record", name)
		return rec{}
	}
	// Refs with role and name, in both.
	typed := byTool("browser_type_ref", 0)
	if typed.Refs[user] != `textbox "user"` || !strings.Contains(starts[typed.ID], "ref="+user+` textbox "user"`) {
		t.Errorf("ref names: trace %v, watch %q", typed.Refs, starts[typed.ID])
	}
	// Plain text shown in both, as the same thing.
	if typed.Args["text"] != plain || !strings.Contains(ends[typed.ID], "text="+plain) {
		t.Errorf("plain text: trace %v, watch end %q", typed.Args, ends[typed.ID])
	}
	// Queued time apart from run time, in both.
	click := byTool("browser_click_ref", 0)
	if click.QueuedMs < 700 || !strings.Contains(ends[click.ID], "queued ") {
		t.Errorf("queued: trace %d ms, watch %q", click.QueuedMs, ends[click.ID])
	}
	// The exit status of a command that failed.
	sh := byTool("execute_shell_command", 0)
	if shell.IsError || sh.ExitCode == nil || *sh.ExitCode != 2 || !strings.Contains(ends[sh.ID], " exit 2") {
		t.Errorf("exit status: trace %v, watch %q (%s)", sh.ExitCode, ends[sh.ID], e2e.Text(shell))
	}
	// The error with its hint and correlation id.
	fail := byTool("browser_click_ref", 1)
	if fail.Error == nil || fail.Error.Hint == "" || fail.CorrelationID == "" ||
		!strings.Contains(ends[fail.ID], "(hint: "+fail.Error.Hint+")") || !strings.Contains(ends[fail.ID], "[cid "+fail.CorrelationID+"]") {
		t.Errorf("error: trace %+v cid %q, watch %q", fail.Error, fail.CorrelationID, ends[fail.ID])
	}
	if !strings.Contains(watch, "\x1b[31m") {
		t.Error("watch on a terminal printed no error in red")
	}
	// The agent's own screenshot is kept.
	if shot := byTool("browser_screenshot", 0); shot.Image == "" {
		t.Error("the agent's screenshot is not in the trace")
	}
	// No password anywhere: trace, watch, the host's log.
	hostLog, err := os.ReadFile(filepath.Join(h.RuntimeDir, "host.log"))
	if err != nil || !bytes.Contains(hostLog, []byte("w365 host started")) {
		t.Errorf("no host.log to look in: %v", err)
	}
	for _, c := range canaries {
		for what, text := range map[string]string{"trace": string(raw), "watch": watch, "host.log": string(hostLog)} {
			if strings.Contains(text, c) {
				t.Errorf("%s holds the password %s", what, c)
			}
		}
	}

	report := filepath.Join(t.TempDir(), "report.html")
	showCmd := exec.Command(h.Bin, "--session", b, "trace", "show", "-o", report)
	showCmd.Env = h.Env
	if out, err := showCmd.CombinedOutput(); err != nil || strings.TrimSpace(string(out)) != report {
		t.Fatalf("trace show (the latest): %v %s", err, out)
	}
	html, _ := os.ReadFile(report)
	for _, c := range canaries {
		if bytes.Contains(html, []byte(c)) {
			t.Errorf("the report holds the password %s", c)
		}
	}
	// Headless Chromium (a session's browser, driven by another agent): the agent's screenshot
	// opens at full size, the error card has its hint and correlation id, and #errors
	// shows the failed call alone.
	srv := httptest.NewServer(http.FileServer(http.Dir(filepath.Dir(report))))
	defer srv.Close()
	viewer := h.MCP()
	eval := func(expr string, v any) {
		t.Helper()
		res := e2e.Call(t, viewer, "browser_eval_js", map[string]any{"expression": expr})
		if res.IsError {
			t.Fatalf("eval %s: %s", expr, e2e.Text(res))
		}
		var out struct{ Value string }
		e2e.Structured(t, res, &out)
		if err := json.Unmarshal([]byte(out.Value), v); err != nil {
			t.Fatalf("eval %s: %q: %v", expr, out.Value, err)
		}
	}
	e2e.Must(t, viewer, "browser_navigate", map[string]any{"url": srv.URL + "/" + filepath.Base(report)})
	var ua string
	eval(`JSON.stringify(navigator.userAgent)`, &ua)
	if !strings.Contains(ua, "Headless") {
		t.Errorf("the report is not in headless Chromium: %s", ua)
	}
	e2e.Must(t, viewer, "browser_click", map[string]any{"selector": `img.thumb[alt^="returned by"]`})
	var full struct {
		Shown          bool
		Natural, Width float64
		Hint, Cid      string
	}
	eval(`(() => { const i = document.querySelector('#full img'); return {shown: !document.getElementById('full').hidden, natural: i.naturalWidth, width: i.getBoundingClientRect().width,
		hint: document.querySelector('.call.err .hint').textContent, cid: document.querySelector('.call.err .cid').textContent}; })()`, &full)
	if !full.Shown || full.Natural <= 240 || full.Width != full.Natural {
		t.Errorf("the screenshot shown %v at %v px of %v", full.Shown, full.Width, full.Natural)
	}
	if !strings.Contains(full.Hint, fail.Error.Hint) || !strings.Contains(full.Cid, fail.CorrelationID) {
		t.Errorf("error card: hint %q, cid %q", full.Hint, full.Cid)
	}
	e2e.Must(t, viewer, "browser_navigate", map[string]any{"url": srv.URL + "/" + filepath.Base(report) + "#errors"})
	var visible []string
	eval(`[...document.querySelectorAll('.call')].filter(c => c.offsetParent !== null).map(c => c.querySelector('.n').textContent)`, &visible)
	if len(visible) != 1 || visible[0] != fmt.Sprintf("#%d", fail.ID) {
		t.Errorf("errors only shows %v, want #%d", visible, fail.ID)
	}
}

// On an 80x24 terminal, session list, doctor and host status fit: no line wraps.
func TestSessionListDoctorAndHostStatusFitEightyColumns(t *testing.T) {
	t.Parallel()
	h := e2e.New(t)
	h.MustRun("session", "start", "a-rather-long-session-name-1")
	m := newTmux(t, h, 80, 24)
	for _, c := range [][]string{{"session", "list"}, {"doctor"}, {"host", "status"}} {
		name := c[0]
		m.run(name, c...)
		deadline := time.Now().Add(60 * time.Second)
		for {
			if _, ok := m.dead(name); ok {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%v never ended", c)
			}
			time.Sleep(100 * time.Millisecond)
		}
		screen := m.screen(name)
		for _, l := range strings.Split(screen, "\n") {
			if n := len([]rune(l)); n > 80 {
				t.Errorf("w365 %s: a line of %d columns wraps:\n%s", strings.Join(c, " "), n, l)
			}
		}
		if want := map[string]string{"session": "a-rather-long", "doctor": "CHECK", "host": "policy:"}[name]; !strings.Contains(screen, want) {
			t.Errorf("w365 %s printed no %q:\n%s", strings.Join(c, " "), want, screen)
		}
	}
}

// The live view's URL is in the text of session details and in session list; its page names the session,
// shows the time of the last frame from the host, and has the script that says when
// the stream was lost.
func TestLiveViewPageNamesTheSessionAndItsLastFrame(t *testing.T) {
	t.Parallel()
	h := e2e.New(t)
	h.MustRun("get-screen-size")
	url, _ := serveHTTP(t, h, nil)
	agent := connectHTTP(t, url, "", "", nil)
	id, live := startSession(t, agent)
	details := h.MustRun("--session", id, "session", "details", id)
	if !strings.Contains(details, "live view: "+live) {
		t.Errorf("session details:\n%s\nwant the live view %s", details, live)
	}
	if list := h.MustRun("session", "list"); !strings.Contains(list, live) {
		t.Errorf("session list:\n%s\nwant the live view %s", list, live)
	}
	get := func(u string) string {
		t.Helper()
		resp, err := http.Get(u)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var b bytes.Buffer
		b.ReadFrom(resp.Body)
		if resp.StatusCode != 200 {
			t.Fatalf("GET %s: %d %s", u, resp.StatusCode, b.String())
		}
		return b.String()
	}
	page := get(live)
	if !strings.Contains(page, `<b id="session">`+id+`</b>`) || !strings.Contains(page, "view.js?token=") {
		t.Errorf("live page:\n%s", page)
	}
	base, q, _ := strings.Cut(live, "?")
	if js := get(base + "view.js?" + q); !strings.Contains(js, "lost the stream at") {
		t.Errorf("view.js:\n%s", js)
	}
	var st struct {
		Session   string
		LastFrame *time.Time
	}
	json.Unmarshal([]byte(get(base+"status?"+q)), &st)
	if st.Session != id || st.LastFrame != nil {
		t.Errorf("status before any frame: %+v", st)
	}
	// One frame of the stream, then the status has its time.
	resp, err := http.Get(base + "stream?" + q)
	if err != nil {
		t.Fatal(err)
	}
	rd := bufio.NewReader(resp.Body)
	for {
		l, err := rd.ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasPrefix(l, "Content-Length:") {
			break
		}
	}
	resp.Body.Close()
	// The host records the frame once it is flushed, which the first bytes of it can beat
	// to the viewer: the status has its time soon after, not at once.
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		json.Unmarshal([]byte(get(base+"status?"+q)), &st)
		if st.LastFrame != nil || time.Now().After(deadline) {
			break
		}
	}
	if st.LastFrame == nil || time.Since(*st.LastFrame) > time.Minute {
		t.Errorf("status after a frame: %+v", st)
	}
}
