//go:build linux

package e2e_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/w365/w365/test/e2e"
	"github.com/w365/w365/test/testenv"
)

type listedProcess struct {
	PID            int
	Name           string
	StartTimeTicks uint64
}

func listProcesses(t *testing.T, cs *mcp.ClientSession) []listedProcess {
	t.Helper()
	var out struct{ Processes []listedProcess }
	e2e.Structured(t, e2e.Call(t, cs, "list_processes", map[string]any{"maxCount": 10000}), &out)
	return out.Processes
}

func listed(ps []listedProcess, pid int) (listedProcess, bool) {
	i := slices.IndexFunc(ps, func(p listedProcess) bool { return p.PID == pid })
	if i < 0 {
		return listedProcess{}, false
	}
	return ps[i], true
}

// outsideSleep is a sleep started outside w365, with no display of any session.
func outsideSleep(t *testing.T) *exec.Cmd {
	t.Helper()
	c := exec.Command("sleep", "300")
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "DISPLAY=") {
			c.Env = append(c.Env, kv)
		}
	}
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Process.Kill(); c.Wait() })
	return c
}

func startTime(t *testing.T, pid int) uint64 {
	t.Helper()
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		t.Fatal(err)
	}
	f := strings.Fields(string(b)[strings.LastIndexByte(string(b), ')')+1:])
	n, err := strconv.ParseUint(f[19], 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// The process tools act on the session's processes: a program it launched is listed and
// killable; a sleep started outside w365 and another w365 host are neither.
func TestProcessToolsActOnTheSessionsProcesses(t *testing.T) {
	testenv.Require(t, "mousepad")
	h := e2e.New(t)
	h.FakeHome()
	cs := h.MCP()
	other := e2e.New(t)
	other.MustRun("get-screen-size")
	otherHost := other.HostPID()
	sleep := outsideSleep(t)

	// A GUI program launched in the session.
	var launched struct{ PID int }
	e2e.Structured(t, e2e.Call(t, cs, "launch_application", map[string]any{"path": "/usr/bin/mousepad"}), &launched)

	ps := listProcesses(t, cs)
	if _, ok := listed(ps, sleep.Process.Pid); ok {
		t.Error("a sleep started outside w365 is listed")
	}
	if _, ok := listed(ps, otherHost); ok {
		t.Error("another w365 host is listed")
	}
	for pid := range children(otherHost) {
		if _, ok := listed(ps, pid); ok {
			t.Errorf("a process of another host's desktop (%d) is listed", pid)
		}
	}
	app, ok := listed(ps, launched.PID)
	if !ok {
		t.Fatalf("the launched mousepad (%d) is not listed", launched.PID)
	}
	for _, pid := range []int{sleep.Process.Pid, otherHost} {
		res := e2e.Call(t, cs, "kill_process", map[string]any{"pid": pid, "startTime": startTime(t, pid), "force": true})
		if code := e2e.ErrorCode(res); code != "BLOCKED_BY_POLICY" {
			t.Errorf("kill_process %d: code %q (%s), want BLOCKED_BY_POLICY", pid, code, e2e.Text(res))
		}
	}
	if syscall.Kill(sleep.Process.Pid, 0) != nil || syscall.Kill(otherHost, 0) != nil {
		t.Fatal("a process outside the session was killed")
	}
	var killed struct{ Exited bool }
	e2e.Structured(t, e2e.Call(t, cs, "kill_process", map[string]any{"pid": app.PID, "startTime": app.StartTimeTicks}), &killed)
	if !killed.Exited {
		t.Errorf("the launched app did not exit: %+v", killed)
	}
}

// processScope "machine" widens the tools to every process; an unknown scope is refused at start.
func TestProcessScopeMachineIsThePolicysChoice(t *testing.T) {
	h := e2e.New(t)
	dir := t.TempDir()
	machine := filepath.Join(dir, "machine.json")
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(machine, []byte(`{"processScope": "machine"}`), 0o600)
	os.WriteFile(bad, []byte(`{"processScope": "everything"}`), 0o600)
	if r := h.Run("--policy", bad, "serve", "--mcp"); r.Code == 0 || !strings.Contains(r.Stderr, "processScope") {
		t.Errorf("an unknown processScope: exit %d, %s", r.Code, r.Stderr)
	}
	cs := h.MCP("--policy", machine)
	sleep := outsideSleep(t)
	if _, ok := listed(listProcesses(t, cs), sleep.Process.Pid); !ok {
		t.Fatal("with processScope machine, a sleep outside w365 is not listed")
	}
	e2e.Structured(t, e2e.Call(t, cs, "kill_process", map[string]any{"pid": sleep.Process.Pid, "startTime": startTime(t, sleep.Process.Pid), "force": true}), &struct{}{})
	if err := sleep.Wait(); err == nil {
		t.Error("the sleep survived kill_process")
	}
}
