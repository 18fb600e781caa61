//go:build linux

package e2e_test

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/w365/w365/test/e2e"
)

// Each MCP client's `serve --mcp` relays to a background host, the one the first of them
// started (docs/sessions.md, "The host"): when the first client leaves, by a
// SIGTERM to its server (as Claude Desktop and VS Code end theirs) or by closing its
// stdin, only its own connection and session end, and the second client's next calls run on
// its same session. The first serve --mcp used to be the host itself, and its exit cut every
// other client off.
func TestMCPClientsOutliveTheFirst(t *testing.T) {
	t.Parallel()
	for _, leave := range []string{"sigterm", "stdin"} {
		t.Run(leave, func(t *testing.T) {
			h := personHarness(t)
			first, firstCmd := h.MCPServer(nil, "")
			e2e.Must(t, first, "get_screen_size", nil)
			second := h.MCP()
			shell := func(command string) string {
				t.Helper()
				var out execOut
				e2e.Structured(t, e2e.Call(t, second, "execute_shell_command", map[string]any{"command": command}), &out)
				if !out.Success {
					t.Fatalf("%s: %+v", command, out)
				}
				return out.Stdout
			}
			e2e.Must(t, second, "get_screen_size", nil)
			shell("mkdir made-before")
			e2e.Must(t, second, "move_mouse", map[string]any{"x": 345, "y": 456})
			mine := onlySession(t, second)

			switch leave {
			case "sigterm":
				firstCmd.Process.Signal(syscall.SIGTERM)
				waitExited(t, firstCmd.Process.Pid)
			case "stdin":
				first.Close()
			}

			if out := shell("ls"); !strings.Contains(out, "made-before") {
				t.Errorf("the second client's workspace holds %q after the first left, want made-before", out)
			}
			var cur struct{ CursorX, CursorY int }
			e2e.Structured(t, e2e.Call(t, second, "get_cursor_position", nil), &cur)
			if cur.CursorX != 345 || cur.CursorY != 456 {
				t.Errorf("the second client's cursor is at %+v after the first left, want 345 456", cur)
			}
			if again := onlySession(t, second); again.SessionID != mine.SessionID {
				t.Errorf("the second client is on %s after the first left, was on %s", again.SessionID, mine.SessionID)
			}
			// The first client's session ended with its connection; the host runs on.
			var ids string
			for deadline := time.Now().Add(15 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
				if ids = h.MustRun("--jq", "[.sessions[].sessionId] | join(\" \")", "session", "list"); ids == mine.SessionID+"\n" {
					break
				}
			}
			if ids != mine.SessionID+"\n" {
				t.Errorf("after the first client left the host runs %q, want only %s", ids, mine.SessionID)
			}
			if pid := h.HostPID(); pid == 0 || pid == firstCmd.Process.Pid || syscall.Kill(pid, 0) != nil {
				t.Errorf("host pid %d (the first client's server was %d)", pid, firstCmd.Process.Pid)
			}
		})
	}
}

// A serve --mcp that asks for other host-wide settings than the running host has does not
// join it, and says so: an agent never gains --agent-acts-as-you it did not ask for, nor
// loses one it asked for, nor are its calls recorded elsewhere than its --trace says. It
// serves its client in its own process instead (as with another --policy), so calls run.
func TestServeJoinsOnlyAHostWithItsSettings(t *testing.T) {
	t.Parallel()
	h := personHarness(t)
	actsAsYou := h.MCP("--agent-acts-as-you")
	e2e.Must(t, actsAsYou, "get_screen_size", nil)
	host := h.HostPID()
	if host == 0 {
		t.Fatal("serve --mcp started no background host")
	}
	if s := onlySession(t, actsAsYou); s.SessionID != "default" || s.HostPID != host {
		t.Fatalf("the --agent-acts-as-you agent is on %+v, want default of the background host %d", s, host)
	}
	for _, c := range []struct {
		args    []string
		differ  string
		session string
	}{
		{nil, "agent acts as you", "default-agent"},
		{[]string{"--agent-acts-as-you", "--trace", t.TempDir()}, "--trace", "default"},
	} {
		// A file, which the server writes itself: what it logged before it answered is there.
		stderr, err := os.CreateTemp(t.TempDir(), "stderr")
		if err != nil {
			t.Fatal(err)
		}
		h.ServeStderr = stderr
		other := h.MCP(c.args...)
		h.ServeStderr = nil
		e2e.Must(t, other, "get_screen_size", nil)
		if s := onlySession(t, other); s.SessionID != c.session || s.HostPID == host {
			t.Errorf("serve --mcp %v: the agent is on %+v, want %s of a host other than %d", c.args, s, c.session, host)
		}
		if log, _ := os.ReadFile(stderr.Name()); !strings.Contains(string(log), "the running w365 host has other settings") || !strings.Contains(string(log), c.differ) {
			t.Errorf("serve --mcp %v said:\n%s", c.args, log)
		}
	}
}

// The background host an MCP client's serve started gives way to a CLI of another version
// (a rebuilt binary) only once no agent is connected: replacing it would cut the agents off.
// The CLI says which host serves an agent instead; the agent's next call runs.
func TestHostServingAnAgentIsNotReplaced(t *testing.T) {
	t.Parallel()
	h := e2e.New(t)
	cs := h.MCP()
	e2e.Must(t, cs, "move_mouse", map[string]any{"x": 210, "y": 220})
	host := h.HostPID()
	other := otherVersion(t, h)
	cmd := exec.Command(other, "get-screen-size")
	cmd.Env = h.Env
	if out, err := cmd.CombinedOutput(); err == nil || !strings.Contains(string(out), "of another version (pid "+strconv.Itoa(host)+") is serving an agent") {
		t.Errorf("another version's CLI with an agent connected: %v %s", err, out)
	}
	var cur struct{ CursorX, CursorY int }
	e2e.Structured(t, e2e.Call(t, cs, "get_cursor_position", nil), &cur)
	if cur.CursorX != 210 || cur.CursorY != 220 || h.HostPID() != host {
		t.Errorf("the agent's cursor at %+v on host %d (was %d)", cur, h.HostPID(), host)
	}
	// Once the agent has left, the next call of the other version replaces the host.
	cs.Close()
	for deadline := time.Now().Add(15 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		cmd := exec.Command(other, "get-screen-size")
		cmd.Env = h.Env
		if cmd.Run() == nil {
			break
		}
	}
	if pid := h.HostPID(); pid == host || syscall.Kill(host, 0) == nil {
		t.Errorf("the host %d still runs after its agent left (pid file %d)", host, pid)
	}
}

// serve --mcp --http with no host running: the background host it starts serves both, the
// HTTP for as long as this serve runs, and it outlives the serve.
func TestServeMCPAndHTTPThroughTheBackgroundHost(t *testing.T) {
	t.Parallel()
	h := e2e.New(t)
	addr := freeAddr(t)
	stdio, serve := h.MCPServer(nil, "", "--http", addr)
	e2e.Must(t, stdio, "get_screen_size", nil)
	e2e.Must(t, connectHTTP(t, "http://"+addr, "", "", nil), "get_screen_size", nil)
	host := h.HostPID()
	if host == 0 || host == serve.Process.Pid {
		t.Fatalf("the host is pid %d, the serve %d", host, serve.Process.Pid)
	}
	stdio.Close()
	listening := true
	for deadline := time.Now().Add(15 * time.Second); listening && time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		c, err := net.Dial("tcp", addr)
		if listening = err == nil; listening {
			c.Close()
		}
	}
	if listening || syscall.Kill(host, 0) != nil {
		t.Errorf("after the serve ended: HTTP still served %v, host %d alive %v", listening, host, syscall.Kill(host, 0) == nil)
	}
}

// Where no background host can be started (here the runtime directory cannot be made),
// serve --mcp serves its client in its own process, as it did before there were relays, and
// says so.
func TestServeWithoutARuntimeDirectoryServesItself(t *testing.T) {
	t.Parallel()
	h := e2e.New(t)
	file := filepath.Join(t.TempDir(), "file")
	os.WriteFile(file, nil, 0o600)
	h.SetEnv("W365_RUNTIME_DIR", filepath.Join(file, "dir"))
	stderr, err := os.CreateTemp(t.TempDir(), "stderr")
	if err != nil {
		t.Fatal(err)
	}
	h.ServeStderr = stderr
	cs := h.MCP()
	var size struct{ Width, Height int }
	e2e.Structured(t, e2e.Call(t, cs, "get_screen_size", nil), &size)
	if log, _ := os.ReadFile(stderr.Name()); size.Width != 1920 || !strings.Contains(string(log), "cannot start a background w365 host; serving this client in this process") {
		t.Errorf("screen %+v; serve said:\n%s", size, log)
	}
}

// waitExited waits until process pid has exited (a zombie its parent has not reaped yet
// counts).
func waitExited(t *testing.T, pid int) {
	t.Helper()
	for deadline := time.Now().Add(15 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if i := strings.LastIndexByte(string(b), ')'); err != nil || i > 0 && strings.HasPrefix(string(b[i:]), ") Z") {
			return
		}
	}
	t.Fatalf("process %d did not exit", pid)
}
