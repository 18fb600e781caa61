//go:build linux

package e2e_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/w365/w365/test/e2e"
	"github.com/w365/w365/test/testenv"
)

// A password the agent typed is in no record when a later call reads it back from the
// page: browser_evaluate returning the field's value (its summary), or comparing it with
// the password written into its function (its arguments). The trace and host.log hold
// neither; what the calls return to the agent is theirs (script in the page reads what
// the page reads).
func TestTraceKeepsNoPasswordAPageCallReadsBack(t *testing.T) {
	t.Parallel()
	testenv.Require(t, "chromium")
	h := e2e.New(t)
	ps := newPageServer(t)
	cs := agentOnItsSession(t, h)
	file := strings.Fields(h.MustRun("--session", "default-agent", "trace", "start"))
	const password = "PW-CANARY-readback-96"
	for _, c := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"browser_navigate", map[string]any{"url": ps.URL + "/trace_login.html"}, ""},
		{"browser_type", map[string]any{"selector": "#pw", "text": password}, ""},
		{"browser_evaluate", map[string]any{"function": "() => document.querySelector('#pw').value"}, password},
		{"browser_evaluate", map[string]any{"function": "() => document.querySelector('#pw').value === '" + password + "'"}, "true"},
	} {
		res := e2e.Call(t, cs, c.tool, c.args)
		if res.IsError || !strings.Contains(e2e.Text(res), c.want) {
			t.Fatalf("%s: %s (want %q)", c.tool, e2e.Text(res), c.want)
		}
	}
	h.MustRun("--session", "default-agent", "trace", "stop")
	raw, err := os.ReadFile(file[len(file)-1])
	if err != nil {
		t.Fatal(err)
	}
	hostLog, _ := os.ReadFile(filepath.Join(h.RuntimeDir, "host.log"))
	if bytes.Contains(raw, []byte(password)) || bytes.Contains(hostLog, []byte(password)) {
		t.Errorf("the password is in a record:\n%s", raw)
	}
	// The function that compares is shown by its length, as all code is.
	if n := bytes.Count(raw, []byte("‹21 characters›")); n != 2 {
		t.Errorf("the trace shows the password by its length %d times, want 2 (typed, returned):\n%s", n, raw)
	}
}

// A cookie's value (a session id the page's script may read: not HttpOnly) is in no record
// when a call reads it back: browser_eval_js of document.cookie, browser_evaluate taking
// the value out of it. The trace and host.log hold neither; what the calls return to the
// agent is theirs (script in the page reads what the page reads). The binary before wrote
// both summaries into the trace in clear.
func TestTraceKeepsNoCookieValueAPageCallReadsBack(t *testing.T) {
	t.Parallel()
	testenv.Require(t, "chromium")
	h := e2e.New(t)
	const value = "SID-CANARY-cookie-4711"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.SetCookie(w, &http.Cookie{Name: "sid", Value: value, Path: "/"})
		http.SetCookie(w, &http.Cookie{Name: "lang", Value: "en", Path: "/"})
		io.WriteString(w, "<title>signed in</title><p>welcome back</p>")
	}))
	t.Cleanup(srv.Close)
	cs := agentOnItsSession(t, h)
	file := strings.Fields(h.MustRun("--session", "default-agent", "trace", "start"))
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"browser_navigate", map[string]any{"url": srv.URL + "/"}},
		{"browser_eval_js", map[string]any{"expression": "document.cookie"}},
		{"browser_evaluate", map[string]any{"function": "() => document.cookie.split('; ').find(c => c.startsWith('sid=')).slice(4)"}},
	} {
		res := e2e.Call(t, cs, c.tool, c.args)
		if res.IsError || c.tool != "browser_navigate" && !strings.Contains(e2e.Text(res), value) {
			t.Fatalf("%s: %s (want the cookie's value returned)", c.tool, e2e.Text(res))
		}
	}
	h.MustRun("--session", "default-agent", "trace", "stop")
	raw, err := os.ReadFile(file[len(file)-1])
	if err != nil {
		t.Fatal(err)
	}
	hostLog, _ := os.ReadFile(filepath.Join(h.RuntimeDir, "host.log"))
	if bytes.Contains(raw, []byte(value)) || bytes.Contains(hostLog, []byte(value)) {
		t.Errorf("the cookie's value is in a record:\n%s", raw)
	}
	if !bytes.Contains(raw, []byte("‹22 characters›")) {
		t.Errorf("the trace does not show the cookie's value by its length:\n%s", raw)
	}
}

// The clipboard's text is in no record, by its length only: what an agent puts there to
// paste (a password) and what it reads back (on the person's display, what they copied).
func TestTraceKeepsNoClipboardText(t *testing.T) {
	t.Parallel()
	h := e2e.New(t)
	cs := agentOnItsSession(t, h)
	file := strings.Fields(h.MustRun("--session", "default-agent", "trace", "start"))
	const secret = "CLIP-CANARY-password-97"
	e2e.Must(t, cs, "clipboard_write", map[string]any{"text": secret})
	if res := e2e.Call(t, cs, "clipboard_read", nil); !strings.Contains(e2e.Text(res), secret) {
		t.Fatalf("clipboard_read: %s", e2e.Text(res))
	}
	h.MustRun("--session", "default-agent", "trace", "stop")
	raw, err := os.ReadFile(file[len(file)-1])
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(raw, []byte(secret)) || bytes.Count(raw, []byte("‹23 characters›")) != 2 {
		t.Errorf("the trace, want the clipboard's text twice by its length:\n%s", raw)
	}
}

// A call that names another principal's session fails NOT_FOUND and is in no record of
// that session: an HTTP agent naming the person's traced session "victim" put its calls
// (its arguments, its principal) in the person's trace and watch.
func TestTraceShowsNoCallOfAnotherPrincipal(t *testing.T) {
	t.Parallel()
	h := e2e.New(t)
	h.MustRun("session", "start", "victim")
	file := strings.Fields(h.MustRun("--session", "victim", "trace", "start"))
	url, _ := serveHTTP(t, h, []string{"W365_API_KEY=key-a"})
	agent := connectHTTP(t, url, "Authorization", "Bearer key-a", nil)
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"move_mouse", map[string]any{"sessionId": "victim", "x": 10, "y": 10}},
		{"get_screen_size", map[string]any{"sessionId": "victim"}},
	} {
		if res := e2e.Call(t, agent, c.tool, c.args); !res.IsError {
			t.Fatalf("%s in another principal's session: %s", c.tool, e2e.Text(res))
		}
	}
	h.MustRun("--session", "victim", "get-cursor-position")
	h.MustRun("--session", "victim", "trace", "stop")
	raw, err := os.ReadFile(file[len(file)-1])
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(raw, []byte(`"key:env"`)) || !bytes.Contains(raw, []byte("get_cursor_position")) {
		t.Errorf("the person's trace, want their call and none of the agent's:\n%s", raw)
	}
}

// An agent's session over MCP is traced from the CLI: every call with its duration,
// the password by its length only, thumbnails after the calls that changed something, and
// `trace show` renders an HTML report with them that Chromium displays.
func TestTraceRecordsAnAgentsCallsAndShowsThemAsHTML(t *testing.T) {
	t.Parallel()
	testenv.Require(t, "chromium")
	h := e2e.New(t)
	ps := newPageServer(t)
	state := t.TempDir()
	h.Env = append(h.Env, "XDG_STATE_HOME="+state)
	cs := agentOnItsSession(t, h)
	out := h.MustRun("--session", "default-agent", "trace", "start", "--screenshots")
	if !strings.Contains(out, filepath.Join(state, "w365", "sessions", "default-agent")) {
		t.Fatalf("trace start: %q (not in the session's output directory)", out)
	}
	const password = "hunter2-Sekret"
	calls := []struct {
		tool string
		args map[string]any
	}{
		{"browser_navigate", map[string]any{"url": ps.URL + "/trace_login.html"}},
		{"browser_click", map[string]any{"selector": "#user"}},
		{"browser_type", map[string]any{"selector": "#user", "text": "alice"}},
		{"browser_type", map[string]any{"selector": "#pw", "text": password}},
		{"browser_click", map[string]any{"selector": "#go"}},
		{"browser_screenshot", nil},
	}
	for _, c := range calls {
		e2e.Must(t, cs, c.tool, c.args)
	}
	file := strings.TrimSpace(h.MustRun("--session", "default-agent", "trace", "stop"))
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(raw, []byte(password)) {
		t.Errorf("the password is in the trace:\n%s", raw)
	}
	type rec struct {
		Tool, Frontend, Principal, Screenshot string
		DurationMs                            int64
		Args                                  map[string]any
		ReadOnly                              bool
		Time                                  time.Time
	}
	var recs []rec
	sc := bufio.NewScanner(bytes.NewReader(raw))
	sc.Buffer(nil, 1<<20)
	for n := 0; sc.Scan(); n++ {
		if n == 0 {
			continue // the header
		}
		var r rec
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("line %d: %v", n+1, err)
		}
		recs = append(recs, r)
	}
	if len(recs) != len(calls) {
		t.Fatalf("%d records for %d calls:\n%s", len(recs), len(calls), raw)
	}
	var total int64
	for i, r := range recs {
		if r.Tool != calls[i].tool || r.Frontend != "e2e" || r.Principal != "agent" || r.Time.IsZero() {
			t.Errorf("record %d: %+v, want %s from the e2e client", i, r, calls[i].tool)
		}
		total += r.DurationMs
		if !r.ReadOnly && r.Screenshot == "" {
			t.Errorf("record %d (%s) changed the page but has no screenshot", i, r.Tool)
		}
		if r.ReadOnly && r.Screenshot != "" {
			t.Errorf("record %d (%s) changed nothing but has a screenshot", i, r.Tool)
		}
	}
	if recs[0].DurationMs <= 0 || total <= 0 {
		t.Errorf("durations not recorded: navigate %d ms, total %d ms", recs[0].DurationMs, total)
	}
	if recs[2].Args["text"] != "alice" {
		t.Errorf("text typed into a plain field: %v (only password fields are redacted)", recs[2].Args)
	}
	if recs[3].Args["text"] != "‹14 characters›" || recs[3].Args["selector"] != "#pw" {
		t.Errorf("password field typing recorded as %v", recs[3].Args)
	}

	report := filepath.Join(t.TempDir(), "report.html")
	if out := strings.TrimSpace(h.MustRun("trace", "show", file, "-o", report)); out != report {
		t.Errorf("trace show printed %q", out)
	}
	html, _ := os.ReadFile(report)
	// Five screens after the calls that changed something, and the screenshot the agent took.
	if n := bytes.Count(html, []byte(`<img class="thumb"`)); n != 6 {
		t.Errorf("report has %d thumbnails, want 6", n)
	}
	if bytes.Contains(html, []byte(password)) || bytes.Contains(html, []byte("src=\"http")) || bytes.Contains(html, []byte("src=\"file")) {
		t.Error("the report leaks the password or is not self-contained")
	}
	// Move the trace's files away: the report must not need them.
	os.RemoveAll(filepath.Dir(file))

	// Chromium renders the report; the thumbnails show the page's magenta banner.
	shot := filepath.Join(t.TempDir(), "report.png")
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, chromiumPath(t), "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
		"--user-data-dir="+t.TempDir(), "--window-size=1000,1400", "--screenshot="+shot, "file://"+report)
	cmd.Env = h.Env
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("chromium --screenshot: %v\n%s", err, out)
	}
	img := testenv.PNG(t, shot)
	magenta := 0
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			if r>>8 > 200 && g>>8 < 60 && bl>>8 > 120 && bl>>8 < 220 {
				magenta++
			}
		}
	}
	t.Logf("the rendered report shows %d magenta pixels", magenta)
	// Five 240-pixel-wide thumbnails, each with a banner band; the report itself has no magenta.
	if magenta < 5*240*20 {
		t.Errorf("the rendered report shows %d magenta pixels: thumbnails missing", magenta)
	}
}

var chromiumOnce = sync.OnceValue(func() string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
})

func chromiumPath(t *testing.T) string {
	p := chromiumOnce()
	if p == "" {
		testenv.Missing(t, "chromium")
	}
	return p
}

// While an MCP client makes three calls, `w365 watch` prints a start and an end line
// for each, in order.
func TestWatchPrintsAnotherClientsCallsLive(t *testing.T) {
	t.Parallel()
	h := e2e.New(t)
	cs := agentOnItsSession(t, h)
	cmd := exec.Command(h.Bin, "--session", "default-agent", "watch")
	cmd.Env = h.Env
	stdout, _ := cmd.StdoutPipe()
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	ready, err := bufio.NewReader(stderr).ReadString('\n')
	if err != nil || !strings.Contains(ready, "watching session default-agent") {
		t.Fatalf("watch did not start: %q %v", ready, err)
	}
	lines := make(chan string, 16)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	tools := []string{"get_screen_size", "move_mouse", "get_cursor_position"}
	args := []map[string]any{nil, {"x": 50, "y": 60}, nil}
	for i, tl := range tools {
		e2e.Must(t, cs, tl, args[i])
	}
	var got []string
	deadline := time.After(30 * time.Second)
	for len(got) < 2*len(tools) {
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatalf("watch ended; printed:\n%s", strings.Join(got, "\n"))
			}
			got = append(got, l)
		case <-deadline:
			t.Fatalf("watch printed only:\n%s", strings.Join(got, "\n"))
		}
	}
	for i, tl := range tools {
		start, end := strings.Fields(got[2*i]), strings.Fields(got[2*i+1])
		if len(start) < 4 || start[1] != "start" || start[3] != tl || !strings.HasSuffix(got[2*i], "(e2e, agent)") {
			t.Errorf("line %d %q: want the start of %s by the e2e client", 2*i, got[2*i], tl)
		}
		if len(end) < 6 || end[1] != "end" || end[3] != tl || end[2] != start[2] || !strings.HasSuffix(end[4], "ms") || !strings.HasPrefix(end[5], "ok") {
			t.Errorf("line %d %q: want the end of %s", 2*i+1, got[2*i+1], tl)
		}
	}
	if !strings.Contains(got[2], "x=50 y=60") {
		t.Errorf("arguments missing from %q", got[2])
	}
}

// serve --trace DIR traces every session of that host from its first call.
func TestServeTraceRecordsEverySession(t *testing.T) {
	t.Parallel()
	h := e2e.New(t)
	dir := t.TempDir()
	cs := h.MCP("--trace", dir)
	e2e.Must(t, cs, "move_mouse", map[string]any{"x": 20, "y": 30})
	e2e.Must(t, cs, "get_cursor_position", map[string]any{"sessionId": "default"})
	files, _ := filepath.Glob(filepath.Join(dir, "trace-default-*.jsonl"))
	if len(files) != 1 {
		t.Fatalf("trace files in %s: %v", dir, files)
	}
	raw, _ := os.ReadFile(files[0])
	lines := strings.Split(strings.TrimSpace(string(raw)), "\n")
	if len(lines) != 3 || !strings.Contains(lines[1], `"tool":"move_mouse"`) || !strings.Contains(lines[2], `"tool":"get_cursor_position"`) {
		t.Errorf("trace:\n%s", raw)
	}
}

// trace show inlines only the regular files next to the trace: a trace in a directory a
// session writes (trace start --dir in a workspace) may name a symbolic link to the
// person's key or a FIFO as its image; the report holds neither and the command ends.
func TestTraceReportInlinesNoLinkNorFIFO(t *testing.T) {
	t.Parallel()
	h := e2e.New(t)
	home := h.FakeHome()
	dir := t.TempDir()
	key := filepath.Join(home, ".ssh", "id_ed25519")
	os.Symlink(key, filepath.Join(dir, "key.png"))
	syscall.Mkfifo(filepath.Join(dir, "fifo.png"), 0o600)
	os.WriteFile(filepath.Join(dir, "ok.png"), []byte("PNGDATA"), 0o600)
	trace := filepath.Join(dir, "trace-default-1.jsonl")
	os.WriteFile(trace, []byte(`{"w365trace":1,"session":"default","started":"2026-01-01T00:00:00Z"}
{"id":1,"time":"2026-01-01T00:00:01Z","session":"default","tool":"take_screenshot","image":"key.png","screenshot":"ok.png"}
{"id":2,"time":"2026-01-01T00:00:02Z","session":"default","tool":"take_screenshot","image":"fifo.png"}
`), 0o600)
	out := filepath.Join(t.TempDir(), "report.html")
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, h.Bin, "trace", "show", trace, "-o", out)
	cmd.Env = h.Env
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("trace show: %v %s (blocked: %v)", err, b, ctx.Err() != nil)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), base64.StdEncoding.EncodeToString([]byte(e2e.Canary+"\n"))) {
		t.Error("the report inlines the person's key through a link next to the trace")
	}
	if !strings.Contains(string(b), base64.StdEncoding.EncodeToString([]byte("PNGDATA"))) {
		t.Error("the report lost the image that is a regular file")
	}
}

// agentOnItsSession connects an agent (an MCP client over stdio) and has it make its first
// call, which starts its own session, default-agent; the person's CLI reaches that session
// by its id (docs/sessions.md).
func agentOnItsSession(t testing.TB, h *e2e.Harness) *mcp.ClientSession {
	t.Helper()
	cs := h.MCP()
	e2e.Must(t, cs, "get_screen_size", nil)
	return cs
}
