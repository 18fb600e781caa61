//go:build linux

// Package e2e drives the built w365 binary for end-to-end tests: a private
// host per test (own runtime directory, embedded virtual desktop), CLI runs, an
// MCP client of `w365 serve --mcp`, and the GTK probe app on the session's display.
package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/w365/w365/test/testenv"
)

var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
)

// Binary returns the w365 binary under test: $W365_TEST_BIN, or one built once per test process.
func Binary(t testing.TB) string {
	t.Helper()
	buildOnce.Do(func() {
		if p := os.Getenv("W365_TEST_BIN"); p != "" {
			binPath, buildErr = filepath.Abs(p)
			return
		}
		dir, err := os.MkdirTemp("", "w365-bin-")
		if err != nil {
			buildErr = err
			return
		}
		binPath = filepath.Join(dir, "w365")
		cmd := exec.Command("go", "build", "-o", binPath, "./cmd/w365")
		cmd.Dir = testenv.Root()
		if out, err := cmd.CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binPath
}

// Harness is one private w365 host world.
type Harness struct {
	T          testing.TB
	Bin        string
	RuntimeDir string
	Env        []string
	// ServeStderr, when set, is where the next serve --mcp's stderr goes (default the test's).
	ServeStderr io.Writer
}

// New makes a harness whose hosts use a fresh runtime directory and an embedded virtual desktop.
// Cleanup stops any host it started.
func New(t testing.TB) *Harness {
	t.Helper()
	testenv.Require(t, "Xvfb", "openbox", "dbus-daemon")
	dir, err := os.MkdirTemp("", "w365-rt-")
	if err != nil {
		t.Fatal(err)
	}
	os.Chmod(dir, 0o700)
	h := &Harness{T: t, Bin: Binary(t), RuntimeDir: dir}
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if k == "DISPLAY" || k == "W365_RUNTIME_DIR" || k == "W365_SESSION" {
			continue
		}
		h.Env = append(h.Env, kv)
	}
	// The sessions' state (their HOME, traces, what they keep) goes to a directory of the
	// harness's, not the tester's ~/.local/state (FakeHome puts it in the fake HOME).
	state, err := os.MkdirTemp("", "w365-state-")
	if err != nil {
		t.Fatal(err)
	}
	h.Env = append(h.Env, "W365_RUNTIME_DIR="+dir, "XDG_STATE_HOME="+state)
	t.Cleanup(func() {
		h.StopHost()
		os.RemoveAll(dir)
		os.RemoveAll(state)
	})
	return h
}

// Canary is the secret FakeHome plants; it must never show up in a result.
const Canary = "W365-CANARY-7f3a9c"

// FakeHome gives the harness's hosts and CLI runs a HOME of their own, made before a host
// starts, holding canary secrets and the places an attacker would write to run code later:
// .ssh/authorized_keys, .ssh/id_ed25519, .bash_history, .claude/credentials.json,
// .config/autostart/, .local/share/flatpak/exports/bin/, notes.txt, and project/ (a git
// repository with .git/hooks and .git/config). Every file holds Canary. It returns HOME.
func (h *Harness) FakeHome() string {
	h.T.Helper()
	home, err := os.MkdirTemp("", "w365-home-")
	if err != nil {
		h.T.Fatal(err)
	}
	h.T.Cleanup(func() { os.RemoveAll(home) })
	for _, d := range []string{".ssh", ".claude", ".config/autostart", ".local/share/flatpak/exports/bin", "project/.git/hooks"} {
		if err := os.MkdirAll(filepath.Join(home, d), 0o700); err != nil {
			h.T.Fatal(err)
		}
	}
	for _, f := range []string{".ssh/authorized_keys", ".ssh/id_ed25519", ".bash_history", ".claude/credentials.json",
		"notes.txt", "project/.git/config", "project/README"} {
		if err := os.WriteFile(filepath.Join(home, f), []byte(Canary+"\n"), 0o600); err != nil {
			h.T.Fatal(err)
		}
	}
	h.SetEnv("HOME", home)
	h.SetEnv("XDG_STATE_HOME", filepath.Join(home, ".local", "state"))
	return home
}

// SetEnv sets a variable for the harness's hosts and CLI runs (before a host starts).
func (h *Harness) SetEnv(key, value string) {
	env := h.Env[:0]
	for _, kv := range h.Env {
		if k, _, _ := strings.Cut(kv, "="); k != key {
			env = append(env, kv)
		}
	}
	h.Env = append(env, key+"="+value)
}

// Result is one CLI run.
type Result struct {
	Stdout, Stderr string
	Code           int
}

// Run runs the CLI with args and returns its output and exit status.
func (h *Harness) Run(args ...string) Result {
	h.T.Helper()
	return h.RunIn("", args...)
}

// RunIn runs the CLI in dir.
func (h *Harness) RunIn(dir string, args ...string) Result {
	h.T.Helper()
	return h.RunInput(dir, nil, args...)
}

// RunInput runs the CLI in dir with stdin reading from in (nil: /dev/null).
func (h *Harness) RunInput(dir string, in io.Reader, args ...string) Result {
	h.T.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, h.Bin, args...)
	cmd.Env = h.Env
	cmd.Dir = dir
	cmd.Stdin = in
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := h.exitCode(args, err)
	return Result{out.String(), errb.String(), code}
}

// exitCode is a finished run's exit status; a run that could not start fails the test.
func (h *Harness) exitCode(args []string, err error) int {
	h.T.Helper()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	} else if err != nil {
		h.T.Fatalf("run %v: %v", args, err)
	}
	return 0
}

// RunTerminal runs the CLI with stdin and stdout on a pseudo-terminal (as a person at
// a terminal runs it) and returns what the terminal showed, with \r\n made \n.
func (h *Harness) RunTerminal(args ...string) Result {
	h.T.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, h.Bin, args...)
	cmd.Env = h.Env
	var errb bytes.Buffer
	cmd.Stderr = &errb
	tty, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 50, Cols: 200})
	if err != nil {
		h.T.Fatalf("pty: %v", err)
	}
	defer tty.Close()
	var out bytes.Buffer
	done := make(chan struct{})
	go func() { io.Copy(&out, tty); close(done) }() // ends with EIO when the child exits
	err = cmd.Wait()
	<-done
	code := h.exitCode(args, err)
	return Result{strings.ReplaceAll(out.String(), "\r\n", "\n"), errb.String(), code}
}

// MustRun runs the CLI and fails the test unless it exits 0.
func (h *Harness) MustRun(args ...string) string {
	h.T.Helper()
	r := h.Run(args...)
	if r.Code != 0 {
		h.T.Fatalf("w365 %s: exit %d\nstdout: %s\nstderr: %s", strings.Join(args, " "), r.Code, r.Stdout, r.Stderr)
	}
	return r.Stdout
}

// JSON runs the CLI with --json and decodes its output into v.
func (h *Harness) JSON(v any, args ...string) {
	h.T.Helper()
	out := h.MustRun(append([]string{"--json"}, args...)...)
	if err := json.Unmarshal([]byte(out), v); err != nil {
		h.T.Fatalf("w365 %v: output is not JSON: %v\n%s", args, err, out)
	}
}

// SessionInfo is one row of `w365 session list --json`.
type SessionInfo struct {
	SessionID string            `json:"sessionId"`
	Display   string            `json:"display"`
	HostPID   int               `json:"hostPid"`
	Env       map[string]string `json:"env"`
	// LiveViewURL is the session's live view, token included, while the host serves HTTP.
	LiveViewURL string `json:"liveViewUrl"`
}

// Sessions lists the host's sessions.
func (h *Harness) Sessions() []SessionInfo {
	h.T.Helper()
	var out struct {
		Sessions []SessionInfo `json:"sessions"`
	}
	h.JSON(&out, "session", "list")
	return out.Sessions
}

// Session is the listed session whose id starts with name (a zero SessionInfo when none
// does).
func (h *Harness) Session(name string) SessionInfo {
	h.T.Helper()
	for _, s := range h.Sessions() {
		if strings.HasPrefix(s.SessionID, name) {
			return s
		}
	}
	return SessionInfo{}
}

// Display starts the default session if needed and returns its X display.
func (h *Harness) Display() string {
	h.T.Helper()
	h.MustRun("get-screen-size")
	for _, s := range h.Sessions() {
		if s.SessionID == "default" {
			return s.Display
		}
	}
	h.T.Fatal("no default session")
	return ""
}

// XEnv starts the default session if needed and returns what an X client needs to reach its
// desktop: DISPLAY and XAUTHORITY (a virtual desktop admits only holders of its cookie).
func (h *Harness) XEnv() []string {
	h.T.Helper()
	h.MustRun("get-screen-size")
	return h.XEnvOf("default")
}

// XEnvOf is XEnv of the running session id (an agent's default-agent).
func (h *Harness) XEnvOf(id string) []string {
	h.T.Helper()
	for _, s := range h.Sessions() {
		if s.SessionID == id {
			return []string{"DISPLAY=" + s.Display, "XAUTHORITY=" + s.Env["XAUTHORITY"]}
		}
	}
	h.T.Fatalf("no session %s", id)
	return nil
}

// SessionEnv starts the default session if needed and returns the environment of a
// program on its desktop (display, session bus, accessibility switches).
func (h *Harness) SessionEnv() []string {
	h.T.Helper()
	h.MustRun("get-screen-size")
	return h.SessionEnvOf("default")
}

// SessionEnvOf is SessionEnv of the running session id (an agent's default-agent).
func (h *Harness) SessionEnvOf(id string) []string {
	h.T.Helper()
	for _, s := range h.Sessions() {
		if s.SessionID == id {
			env := []string{"GTK_MODULES=gail:atk-bridge", "NO_AT_BRIDGE=0", "ACCESSIBILITY_ENABLED=1"}
			for k, v := range s.Env {
				env = append(env, k+"="+v)
			}
			return env
		}
	}
	h.T.Fatalf("no session %s", id)
	return nil
}

// HostPID is the running host's pid (from its pid file), or 0.
func (h *Harness) HostPID() int {
	b, err := os.ReadFile(filepath.Join(h.RuntimeDir, "host.pid"))
	if err != nil {
		return 0
	}
	var pid int
	fmt.Sscan(string(b), &pid)
	return pid
}

// StopHost ends the harness's host, if one runs, and waits for it to exit.
func (h *Harness) StopHost() {
	if pid := h.HostPID(); pid > 0 && syscall.Kill(pid, syscall.SIGTERM) == nil {
		waitExit(pid, 10*time.Second)
	}
}

func waitExit(pid int, d time.Duration) {
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		if syscall.Kill(pid, 0) != nil {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	syscall.Kill(pid, syscall.SIGKILL)
}

// MCP connects an MCP client to `w365 serve --mcp` with extra serve flags.
func (h *Harness) MCP(serveArgs ...string) *mcp.ClientSession {
	h.T.Helper()
	return h.MCPWith(nil, serveArgs...)
}

// MCPWith is MCP with client options (handlers of notifications).
func (h *Harness) MCPWith(opts *mcp.ClientOptions, serveArgs ...string) *mcp.ClientSession {
	h.T.Helper()
	return h.MCPVersion(opts, "", serveArgs...)
}

// MCPVersion is MCPWith asking for a protocol version ("" for the SDK's newest): the
// eras before 2026-07-28 let the server ask the client (elicitation).
func (h *Harness) MCPVersion(opts *mcp.ClientOptions, version string, serveArgs ...string) *mcp.ClientSession {
	h.T.Helper()
	cs, _ := h.MCPServer(opts, version, serveArgs...)
	return cs
}

// MCPServer is MCPVersion that also returns the client's `w365 serve --mcp` process (a
// relay to the background host it found or started: docs/sessions.md, "The host").
func (h *Harness) MCPServer(opts *mcp.ClientOptions, version string, serveArgs ...string) (*mcp.ClientSession, *exec.Cmd) {
	h.T.Helper()
	cmd := exec.Command(h.Bin, append([]string{"serve", "--mcp"}, serveArgs...)...)
	cmd.Env = h.Env
	cmd.Stderr = os.Stderr
	if h.ServeStderr != nil {
		cmd.Stderr = h.ServeStderr
	}
	c := mcp.NewClient(&mcp.Implementation{Name: "e2e", Version: "1"}, opts)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cs, err := c.Connect(ctx, &mcp.CommandTransport{Command: cmd}, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		h.T.Fatalf("connect to serve --mcp: %v", err)
	}
	h.T.Cleanup(func() { cs.Close() })
	return cs, cmd
}

// Call calls a tool and fails the test on a transport error (not on a tool error).
func Call(t testing.TB, cs *mcp.ClientSession, name string, args map[string]any) *mcp.CallToolResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("call %s: %v", name, err)
	}
	return res
}

// Must is Call for a call meant to succeed: it fails the test on a tool error too (a
// result with IsError, a browser_wait_for that timed out among them) and returns the result.
// Where an error is allowed (an attack the product may refuse, a retry), use Call and say so.
func Must(t testing.TB, cs *mcp.ClientSession, name string, args map[string]any) *mcp.CallToolResult {
	t.Helper()
	res := Call(t, cs, name, args)
	if res.IsError {
		t.Fatalf("%s %v: %s", name, args, Text(res))
	}
	return res
}

// ActivateShown calls activate_window with title until a window it names is there (a
// program just launched maps its window later), failing the test after 10 s.
func ActivateShown(t testing.TB, cs *mcp.ClientSession, title string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for ErrorCode(Call(t, cs, "activate_window", map[string]any{"title": title})) != "" {
		if time.Now().After(deadline) {
			t.Fatalf("no window titled %q within 10 s", title)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// Structured decodes a successful result's structured content into v.
func Structured(t testing.TB, res *mcp.CallToolResult, v any) {
	t.Helper()
	if res.IsError {
		t.Fatalf("tool error: %s", Text(res))
	}
	b, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("structured content %s: %v", b, err)
	}
}

// ErrorMeta is the JSON of an error result's full error (code, retryable, hint, details),
// which travels in _meta["w365/error"]; "" for a success.
func ErrorMeta(res *mcp.CallToolResult) string {
	if !res.IsError {
		return ""
	}
	b, _ := json.Marshal(res.Meta["w365/error"])
	return string(b)
}

// ErrorCode is the stable code of an error result ("" for success), read as a model
// reads it: the text's first line is `CODE: message`.
func ErrorCode(res *mcp.CallToolResult) string {
	if !res.IsError {
		return ""
	}
	code, _, _ := strings.Cut(Text(res), ":")
	return code
}

// Text joins a result's text content.
func Text(res *mcp.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// Event is one line the probe app printed.
type Event map[string]any

// Probe is a running GTK probe app (testdata/apps/probe.py).
type Probe struct {
	t      testing.TB
	cmd    *exec.Cmd
	events chan Event
	mu     sync.Mutex
	all    []Event
	Ready  Event
}

// StartProbe runs the probe with xenv (Harness.XEnv) and args, without the accessibility
// bridge, and waits for its "ready" event.
func StartProbe(t testing.TB, xenv []string, args ...string) *Probe {
	t.Helper()
	return StartProbeEnv(t, append(xenv, "NO_AT_BRIDGE=1"), args...)
}

// StartProbeEnv runs the probe with env added to the test's environment.
func StartProbeEnv(t testing.TB, env []string, args ...string) *Probe {
	t.Helper()
	testenv.Require(t, "/usr/bin/python3")
	cmd := exec.Command("/usr/bin/python3", append([]string{filepath.Join(testenv.Root(), "testdata", "apps", "probe.py")}, args...)...)
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &Probe{t: t, cmd: cmd, events: make(chan Event, 1024)}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	go func() {
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			var e Event
			if json.Unmarshal(sc.Bytes(), &e) == nil {
				p.mu.Lock()
				p.all = append(p.all, e)
				p.mu.Unlock()
				p.events <- e
			}
		}
		close(p.events)
	}()
	p.Ready = p.Wait("ready", nil, 20*time.Second)
	// Give the window manager a moment to finish mapping and focusing it.
	time.Sleep(200 * time.Millisecond)
	return p
}

// Wait returns the next event of kind name for which match (nil: any) holds.
func (p *Probe) Wait(name string, match func(Event) bool, d time.Duration) Event {
	p.t.Helper()
	timer := time.NewTimer(d)
	defer timer.Stop()
	for {
		select {
		case e, ok := <-p.events:
			if !ok {
				p.t.Fatalf("probe exited while waiting for %q", name)
			}
			if e["event"] == name && (match == nil || match(e)) {
				return e
			}
		case <-timer.C:
			p.t.Fatalf("probe: no %q event within %s; got %v", name, d, p.Events())
		}
	}
}

// Events returns every event so far.
func (p *Probe) Events() []Event {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]Event(nil), p.all...)
}

// Widget returns the centre of a named widget from the ready event.
func (p *Probe) Widget(name string) (x, y int) {
	w := p.Ready["widgets"].(map[string]any)[name].(map[string]any)
	return int(w["x"].(float64) + w["width"].(float64)/2), int(w["y"].(float64) + w["height"].(float64)/2)
}
