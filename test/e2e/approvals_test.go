//go:build linux

package e2e_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/w365/w365/test/e2e"
	"github.com/w365/w365/test/testenv"
)

// Approvals (docs/security.md#approvals): a call a rule names waits for a person's
// yes, asked of the client by form elicitation or of a person at the REPL or watch.

// approvalPolicy makes the harness's hosts ask approval for move_mouse ("mouse") and
// type_text ("typing"), with more keys when given.
func approvalPolicy(t *testing.T, h *e2e.Harness, more string) {
	t.Helper()
	pol := filepath.Join(t.TempDir(), "policy.json")
	body := `{"approvals": [{"name": "mouse", "tools": ["move_mouse"]}, {"name": "typing", "tools": ["type_text"]}]` + more + `}`
	if err := os.WriteFile(pol, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	h.SetEnv("W365_POLICY", pol)
}

// pane is a tmux pane running a w365 command, as a person's terminal.
type pane struct {
	t    *testing.T
	sock string
}

func startPane(t *testing.T, h *e2e.Harness, args ...string) *pane {
	t.Helper()
	testenv.Require(t, "tmux")
	p := &pane{t: t, sock: fmt.Sprintf("w365-e2e-%d-%d", os.Getpid(), time.Now().UnixNano())}
	cmd := exec.Command("tmux", append([]string{"-L", p.sock, "-f", "/dev/null", "new-session", "-d", "-x", "200", "-y", "50", h.Bin}, args...)...)
	env := []string{"TERM=xterm-256color"}
	for _, kv := range h.Env {
		if !strings.HasPrefix(kv, "TMUX") && !strings.HasPrefix(kv, "TERM=") {
			env = append(env, kv)
		}
	}
	cmd.Env = env
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("tmux: %v\n%s", err, out)
	}
	t.Cleanup(func() { exec.Command("tmux", "-L", p.sock, "kill-server").Run() })
	return p
}

func (p *pane) screen() string {
	out, _ := exec.Command("tmux", "-L", p.sock, "capture-pane", "-p", "-J").Output()
	return string(out)
}

// wait waits for the screen to match re and returns the first submatch (or the match).
func (p *pane) wait(re string) string {
	p.t.Helper()
	rx := regexp.MustCompile(re)
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if m := rx.FindStringSubmatch(p.screen()); m != nil {
			return m[len(m)-1]
		}
		time.Sleep(100 * time.Millisecond)
	}
	p.t.Fatalf("the terminal never showed %q:\n%s", re, p.screen())
	return ""
}

func (p *pane) keys(keys ...string) {
	p.t.Helper()
	if out, err := exec.Command("tmux", append([]string{"-L", p.sock, "send-keys"}, keys...)...).CombinedOutput(); err != nil {
		p.t.Fatalf("tmux send-keys: %v\n%s", err, out)
	}
}

// background runs the CLI while the test answers; the result arrives on the channel.
func background(h *e2e.Harness, args ...string) <-chan e2e.Result {
	c := make(chan e2e.Result, 1)
	go func() { c <- h.Run(args...) }()
	return c
}

func result(t *testing.T, c <-chan e2e.Result) e2e.Result {
	t.Helper()
	select {
	case r := <-c:
		return r
	case <-time.After(60 * time.Second):
		t.Fatal("the call never ended")
	}
	return e2e.Result{}
}

func cursor(t *testing.T, h *e2e.Harness) string {
	t.Helper()
	return strings.TrimSpace(h.MustRun("get-cursor-position"))
}

// At `w365 watch` on a terminal: "a" approves, "s" approves the rule for the rest of the
// session, "d" denies; the agent's sandboxed shell cannot answer its own approval.
func TestApprovalAtWatch(t *testing.T) {
	t.Parallel()
	h := e2e.New(t)
	// The agent's Python runs a copy of w365 from a workspace of its own, with the
	// address space a Go program reserves.
	work := t.TempDir()
	approvalPolicy(t, h, fmt.Sprintf(`, "workspaceRoots": [%q], "pythonMemoryBytes": 68719476736`, work))
	h.MustRun("move-mouse", "--help") // no call: help never asks
	cursor(t, h)                      // starts the host and the default session
	w := startPane(t, h, "watch")
	w.wait("watching session default")

	call := background(h, "move-mouse", "300", "200")
	id := w.wait(`approval #(\d+) move_mouse x=300 y=200 waits for a yes \(rule "mouse"; asks person`)
	w.keys("a", "Enter")
	if r := result(t, call); r.Code != 0 {
		t.Fatalf("approved move-mouse: exit %d %s", r.Code, r.Stderr)
	}
	w.wait(`approved #` + id + ` move_mouse \(rule "mouse"\) by watch \(local\)`)
	if c := cursor(t, h); c != "300 200" {
		t.Fatalf("cursor at %s after the approved move", c)
	}

	// The agent's shell in its own virtual session tries to approve a waiting call with
	// the w365 binary and the host's runtime directory: neither the socket nor the
	// directory is there inside the sandbox.
	h.MustRun("session", "start", "agent")
	bin := filepath.Join(work, "w365")
	data, err := os.ReadFile(h.Bin)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(bin, data, 0o755)
	call = background(h, "move-mouse", "310", "210")
	id = w.wait(`approval #(\d+) move_mouse x=310 y=210 waits`)
	code := fmt.Sprintf(`import subprocess
r = subprocess.run([%q, "approve", %q], env={"W365_RUNTIME_DIR": %q, "HOME": "/tmp"}, capture_output=True, text=True)
print(r.returncode, r.stderr.strip())`, bin, id, h.RuntimeDir)
	res := h.Run("--session", "agent", "--json", "execute-python-code", "--cwd", work, "--code", code)
	var py struct{ Stdout, Stderr string }
	if err := json.Unmarshal([]byte(res.Stdout), &py); err != nil || res.Code != 0 {
		t.Fatalf("python in the agent's session: exit %d %v %s %s", res.Code, err, res.Stdout, res.Stderr)
	}
	t.Logf("w365 approve inside the sandbox: %s", py.Stdout)
	if strings.HasPrefix(py.Stdout, "0 ") || !strings.Contains(py.Stdout, "UNAVAILABLE") {
		t.Fatalf("w365 approve inside the sandbox: %q (stderr %q), want a failure to reach the host", py.Stdout, py.Stderr)
	}
	select {
	case r := <-call:
		t.Fatalf("the waiting call ended after the sandbox's approve: %+v", r)
	case <-time.After(300 * time.Millisecond):
	}
	w.keys("d", "Enter")
	r := result(t, call)
	if r.Code != 4 || !strings.Contains(r.Stderr, "BLOCKED_BY_POLICY") || !strings.Contains(r.Stderr, "denied by watch (local)") || !strings.Contains(r.Stderr, `rule "mouse"`) {
		t.Fatalf("denied move-mouse: exit %d %s", r.Code, r.Stderr)
	}
	if c := cursor(t, h); c != "300 200" {
		t.Fatalf("cursor at %s after the denied move", c)
	}

	// Approved for the session: the next call of the rule asks nobody.
	call = background(h, "move-mouse", "320", "220")
	id = w.wait(`approval #(\d+) move_mouse x=320 y=220 waits`)
	w.keys("s", "Enter")
	if r := result(t, call); r.Code != 0 {
		t.Fatalf("move-mouse approved for the session: exit %d %s", r.Code, r.Stderr)
	}
	w.wait(`approved for the session #` + id + ` `)
	h.MustRun("move-mouse", "330", "230")
	if c := cursor(t, h); c != "330 230" {
		t.Fatalf("cursor at %s after the move approved for the session", c)
	}
	if regexp.MustCompile(`approval #\d+ move_mouse x=330`).MatchString(w.screen()) {
		t.Fatalf("the rule approved for the session asked again:\n%s", w.screen())
	}
}

// At the REPL (a TUI in tmux): "approve" answers the oldest waiting approval, "deny ID" a named one.
func TestApprovalAtREPL(t *testing.T) {
	t.Parallel()
	h := e2e.New(t)
	approvalPolicy(t, h, "")
	cursor(t, h)
	r := startPane(t, h, "repl")
	r.wait(`w365>`)
	r.wait(`display `) // the shell is connected and follows the session

	call := background(h, "move-mouse", "400", "300")
	r.wait(`approval #(\d+) move_mouse x=400 y=300 waits for a yes \(rule "mouse"; asks person`)
	r.keys("approve", "Enter")
	if res := result(t, call); res.Code != 0 {
		t.Fatalf("approved move-mouse: exit %d %s", res.Code, res.Stderr)
	}
	r.wait(`approved #\d+ move_mouse \(rule "mouse"\) by repl \(local\)`)
	if c := cursor(t, h); c != "400 300" {
		t.Fatalf("cursor at %s after the approved move", c)
	}

	call = background(h, "move-mouse", "410", "310")
	id := r.wait(`approval #(\d+) move_mouse x=410 y=310 waits`)
	// A watcher that attaches now is shown the approval that waits.
	wctx, stop := context.WithTimeout(context.Background(), 30*time.Second)
	late := exec.CommandContext(wctx, h.Bin, "watch", "--json")
	late.Env = h.Env
	out, _ := late.StdoutPipe()
	if err := late.Start(); err != nil {
		t.Fatal(err)
	}
	var ev struct {
		Phase    string
		Tool     string
		Approval struct{ ID, Rule, Decision string }
	}
	line, _ := bufio.NewReader(out).ReadBytes('\n')
	stop()
	late.Wait()
	if json.Unmarshal(line, &ev) != nil || ev.Phase != "approval" || ev.Approval.ID != id || ev.Approval.Decision != "asked" || ev.Approval.Rule != "mouse" {
		t.Fatalf("a late watcher's first event: %s", line)
	}
	r.keys("deny "+id, "Enter")
	res := result(t, call)
	if res.Code != 4 || !strings.Contains(res.Stderr, "denied by repl (local)") {
		t.Fatalf("denied move-mouse: exit %d %s", res.Code, res.Stderr)
	}
	if c := cursor(t, h); c != "400 300" {
		t.Fatalf("cursor at %s after the denied move", c)
	}

	// The person's own line that waits is answered from the same shell.
	r.keys("move-mouse 420 320", "Enter")
	r.wait(`approval #\d+ move_mouse x=420 y=320 waits`)
	r.wait(`running move-mouse 420 320 .*waiting for approval`) // the status line
	r.keys("approve", "Enter")
	r.wait(`approved #\d+ move_mouse \(rule "mouse"\) by repl`)
	deadline := time.Now().Add(10 * time.Second)
	for cursor(t, h) != "420 320" && time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
	}
	if c := cursor(t, h); c != "420 320" {
		t.Fatalf("cursor at %s after the REPL's own approved move", c)
	}
}

// Nobody to ask refuses at once with APPROVAL_REQUIRED and the call has no effect; a
// person who does not answer in time gets the call refused with TIMEOUT; the trace
// (and its report) records each decision with its rule.
func TestApprovalNobodyTimeoutAndTrace(t *testing.T) {
	t.Parallel()
	h := e2e.New(t)
	approvalPolicy(t, h, `, "approvalTimeoutSeconds": 2`)
	before := cursor(t, h)
	h.MustRun("trace", "start")

	start := time.Now()
	r := h.Run("move-mouse", "500", "400")
	if r.Code != 4 || !strings.Contains(r.Stderr, "APPROVAL_REQUIRED") || !strings.Contains(r.Stderr, `rule "mouse"`) {
		t.Fatalf("move-mouse with nobody to ask: exit %d %s", r.Code, r.Stderr)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Fatalf("refusing with nobody to ask took %s", d)
	}
	if c := cursor(t, h); c != before {
		t.Fatalf("cursor moved to %s (from %s) although the call was refused", c, before)
	}
	// What is typed stays out of the approval's records, as out of every record.
	const secret = "hunter2-W365-typed"
	if r := h.Run("type-text", secret); r.Code != 4 || !strings.Contains(r.Stderr, `rule "typing"`) {
		t.Fatalf("type-text with nobody to ask: exit %d %s", r.Code, r.Stderr)
	}

	w := startPane(t, h, "watch")
	w.wait("watching session default")
	start = time.Now()
	r = h.Run("move-mouse", "510", "410")
	if r.Code != 5 || !strings.Contains(r.Stderr, "TIMEOUT") || !strings.Contains(r.Stderr, `nobody approved`) || !strings.Contains(r.Stderr, `rule "mouse"`) {
		t.Fatalf("move-mouse nobody answers: exit %d %s", r.Code, r.Stderr)
	}
	if d := time.Since(start); d < 2*time.Second || d > 15*time.Second {
		t.Fatalf("the unanswered approval waited %s, want its 2 s", d)
	}
	w.wait(`approval timed out #\d+ move_mouse \(rule "mouse"\)`)
	if c := cursor(t, h); c != before {
		t.Fatalf("cursor moved to %s after a timed-out approval", c)
	}
	call := background(h, "move-mouse", "520", "420")
	w.wait(`approval #\d+ move_mouse x=520 y=420 waits`)
	w.keys("a", "Enter")
	if r := result(t, call); r.Code != 0 {
		t.Fatalf("approved: exit %d %s", r.Code, r.Stderr)
	}

	file := strings.TrimSpace(h.MustRun("trace", "stop"))
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var decisions []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if strings.Contains(sc.Text(), secret) {
			t.Errorf("the trace holds the typed text: %s", sc.Text())
		}
		var rec struct {
			Tool     string
			Approval *struct{ Rule, Decision, By, ByPrincipal string }
		}
		json.Unmarshal(sc.Bytes(), &rec)
		if rec.Approval != nil {
			if rec.Tool+"/"+rec.Approval.Rule != "move_mouse/mouse" && rec.Tool+"/"+rec.Approval.Rule != "type_text/typing" {
				t.Errorf("trace approval record %s", sc.Text())
			}
			decisions = append(decisions, rec.Approval.Rule+":"+rec.Approval.Decision+"/"+rec.Approval.By)
		}
	}
	want := "mouse:nobodyToAsk/ typing:nobodyToAsk/ mouse:asked/ mouse:timedOut/ mouse:asked/ mouse:approved/watch"
	if got := strings.Join(decisions, " "); got != want {
		t.Fatalf("trace decisions %q, want %q", got, want)
	}
	html := filepath.Join(t.TempDir(), "report.html")
	h.MustRun("trace", "show", file, "-o", html)
	page, _ := os.ReadFile(html)
	for _, s := range []string{"approval refused, nobody to ask", "approval timed out", "approved", "rule <b>mouse</b>", "by watch (local)"} {
		if !strings.Contains(string(page), s) {
			t.Errorf("the trace report lacks %q", s)
		}
	}
}

// An MCP client that declares form elicitation is asked: approve runs the call,
// decline refuses it (BLOCKED_BY_POLICY, denied by the client); the form names the tool,
// the rule and the arguments, secrets redacted.
func TestApprovalAskedOfClient(t *testing.T) {
	t.Parallel()
	h := e2e.New(t)
	approvalPolicy(t, h, "")
	answers := make(chan *mcp.ElicitResult, 4)
	asked := make(chan *mcp.ElicitParams, 4)
	progress := make(chan string, 16)
	cs := h.MCPVersion(&mcp.ClientOptions{
		ElicitationHandler: func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			asked <- req.Params
			return <-answers, nil
		},
		ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
			select {
			case progress <- r.Params.Message:
			default:
			}
		},
	}, "2025-11-25", "--agent-acts-as-you")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	pos := func() string {
		var p struct{ CursorX, CursorY int }
		e2e.Structured(t, e2e.Call(t, cs, "get_cursor_position", nil), &p)
		return fmt.Sprintf("%d %d", p.CursorX, p.CursorY)
	}
	before := pos()

	// The first answer comes after the progress said why the call waits.
	type done struct {
		res *mcp.CallToolResult
		err error
	}
	first := make(chan done, 1)
	go func() {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "move_mouse", Arguments: map[string]any{"x": 210, "y": 220},
			Meta: mcp.Meta{"progressToken": "approval-1"}})
		first <- done{res, err}
	}()
	p := <-asked
	for waiting := false; !waiting; {
		select {
		case msg := <-progress:
			waiting = strings.Contains(msg, "move_mouse: waiting for approval: mouse")
		case <-time.After(30 * time.Second):
			t.Fatal("no progress said the call waits for approval")
		}
	}
	answers <- &mcp.ElicitResult{Action: "accept", Content: map[string]any{"decision": "approve"}}
	if d := <-first; d.err != nil || d.res.IsError {
		t.Fatalf("approved move_mouse: %v %s", d.err, e2e.Text(d.res))
	}
	if p.Mode != "form" || !strings.Contains(p.Message, "move_mouse") || !strings.Contains(p.Message, `rule "mouse"`) || !strings.Contains(p.Message, "x=210") {
		t.Fatalf("the form: %+v", p)
	}
	if got := pos(); got != "210 220" {
		t.Fatalf("cursor at %s after the approved move", got)
	}

	answers <- &mcp.ElicitResult{Action: "decline"}
	res := e2e.Call(t, cs, "move_mouse", map[string]any{"x": 230, "y": 240})
	<-asked
	if e2e.ErrorCode(res) != "BLOCKED_BY_POLICY" || !strings.Contains(e2e.Text(res), "denied by client") {
		t.Fatalf("declined move_mouse: %s", e2e.Text(res))
	}
	answers <- &mcp.ElicitResult{Action: "accept", Content: map[string]any{"decision": "deny"}}
	res = e2e.Call(t, cs, "move_mouse", map[string]any{"x": 250, "y": 260})
	<-asked
	if e2e.ErrorCode(res) != "BLOCKED_BY_POLICY" {
		t.Fatalf("denied move_mouse: %s", e2e.Text(res))
	}
	if got := pos(); got != "210 220" {
		t.Fatalf("cursor at %s after the denied moves (was %s)", got, before)
	}

	// A client without elicitation and nobody at the REPL or watch: refused at once.
	plain := h.MCP("--agent-acts-as-you")
	res = e2e.Call(t, plain, "move_mouse", map[string]any{"x": 270, "y": 280})
	if e2e.ErrorCode(res) != "APPROVAL_REQUIRED" {
		t.Fatalf("move_mouse with nobody to ask: %s", e2e.Text(res))
	}
}

// The TypeScript SDK clients (1.x, and 2.x in the 2025 era, which has server requests)
// answer the form: testdata/mcpclients/approvals.mjs.
func TestApprovalAskedOfTSClients(t *testing.T) {
	t.Parallel()
	dir := mcpClients(t)
	node := filepath.Join(dir, "node_modules", ".bin", "node")
	for _, sdk := range []string{"v1", "v2"} {
		t.Run(sdk, func(t *testing.T) {
			h := e2e.New(t)
			approvalPolicy(t, h, "")
			serverEnv := map[string]string{}
			for _, kv := range h.Env {
				k, v, _ := strings.Cut(kv, "=")
				serverEnv[k] = v
			}
			b, _ := json.Marshal(serverEnv)
			runScript(t, node, filepath.Join(dir, "approvals.mjs"), []string{sdk}, append(h.Env, "W365_BIN="+h.Bin, "W365_SERVER_ENV="+string(b)))
		})
	}
}

// Over streamable HTTP (a 2025-era session) the client is asked too; "approve for this
// session" asks no more for that rule.
func TestApprovalAskedOfClientOverHTTP(t *testing.T) {
	t.Parallel()
	h := e2e.New(t)
	approvalPolicy(t, h, "")
	url, _ := serveHTTP(t, h, nil)
	forms := make(chan *mcp.ElicitParams, 4)
	c := mcp.NewClient(&mcp.Implementation{Name: "http-approvals", Version: "1"}, &mcp.ClientOptions{
		ElicitationHandler: func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			forms <- req.Params
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"decision": "approve-session"}}, nil
		}})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url + "/"}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	for _, x := range []int{150, 160} {
		e2e.Must(t, cs, "move_mouse", map[string]any{"x": x, "y": 170})
	}
	var p struct{ CursorX, CursorY int }
	e2e.Structured(t, e2e.Call(t, cs, "get_cursor_position", nil), &p)
	if n := len(forms); n != 1 || !strings.Contains((<-forms).Message, "x=150") || p.CursorX != 160 || p.CursorY != 170 {
		t.Fatalf("%d forms (want 1, for x=150), cursor at %d,%d (want 160,170)", n, p.CursorX, p.CursorY)
	}
}

// A rule on a tool holds for that tool inside browser_execute_batch too: a batch's
// navigate step is a browser_navigate, its eval_js step a browser_eval_js. With nobody
// to ask, a batch that carries either is refused and the page is never fetched.
func TestApprovalHoldsForTheActionsOfABatch(t *testing.T) {
	t.Parallel()
	testenv.Require(t, "chromium")
	h := e2e.New(t)
	var mu sync.Mutex
	hits := map[string]int{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		hits[r.URL.Path]++
		mu.Unlock()
		io.WriteString(w, "<title>t</title>page")
	}))
	t.Cleanup(srv.Close)
	pol := filepath.Join(t.TempDir(), "policy.json")
	os.WriteFile(pol, []byte(`{"approvals": [
  {"name": "banking", "tools": ["browser_navigate"], "arguments": [{"name": "url", "glob": "*bank*"}]},
  {"name": "page code", "tools": ["browser_eval_js"]}]}`), 0o600)
	h.SetEnv("W365_POLICY", pol)
	cs := h.MCP()
	e2e.Must(t, cs, "browser_navigate", map[string]any{"url": srv.URL + "/ok"})
	if code := e2e.ErrorCode(e2e.Call(t, cs, "browser_navigate", map[string]any{"url": srv.URL + "/bank"})); code != "APPROVAL_REQUIRED" {
		t.Fatalf("browser_navigate to the bank: %s", code)
	}
	for _, actions := range [][]any{
		{map[string]any{"action": "navigate", "params": map[string]any{"url": srv.URL + "/bank"}}},
		{map[string]any{"action": "snapshot"}, map[string]any{"action": " Navigate ", "params": map[string]any{"url": srv.URL + "/bank"}}},
		{map[string]any{"action": "eval_js", "params": map[string]any{"expression": "fetch('/evaljs')"}}},
	} {
		res := e2e.Call(t, cs, "browser_execute_batch", map[string]any{"actions": actions})
		if code := e2e.ErrorCode(res); code != "APPROVAL_REQUIRED" {
			t.Errorf("batch %v: %s %s", actions, code, e2e.Text(res))
		}
	}
	time.Sleep(500 * time.Millisecond) // a fetch the page started would have arrived
	mu.Lock()
	defer mu.Unlock()
	if hits["/bank"] != 0 || hits["/evaljs"] != 0 || hits["/ok"] != 1 {
		t.Errorf("the server saw %v: a batch ran what its rule holds back", hits)
	}
}
