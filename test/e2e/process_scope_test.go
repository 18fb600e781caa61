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
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/w365/w365/test/e2e"
	"github.com/w365/w365/test/testenv"
)

type listedProcess struct {
	PID            int
	Name           string
	StartTimeTicks uint64
	WindowTitle    string
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
	t.Parallel()
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
	r := e2e.Call(t, cs, "kill_process", map[string]any{"pid": app.PID, "startTime": app.StartTimeTicks + 1})
	if code := e2e.ErrorCode(r); code != "STALE_PROCESS" {
		t.Errorf("kill_process with a wrong start time: code %q (%s), want STALE_PROCESS", code, e2e.Text(r))
	}
	var killed struct{ Exited bool }
	e2e.Structured(t, e2e.Call(t, cs, "kill_process", map[string]any{"pid": app.PID, "startTime": app.StartTimeTicks}), &killed)
	if !killed.Exited {
		t.Errorf("the launched app did not exit: %+v", killed)
	}
}

// processScope "machine" widens the tools to every process; an unknown scope is refused at start.
func TestProcessScopeMachineIsThePolicysChoice(t *testing.T) {
	t.Parallel()
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
	e2e.Must(t, cs, "kill_process", map[string]any{"pid": sleep.Process.Pid, "startTime": startTime(t, sleep.Process.Pid), "force": true})
	if err := sleep.Wait(); err == nil {
		t.Error("the sleep survived kill_process")
	}
}

// The session's browser runs confined, in its own PID namespace, started as bubblewrap: its
// window's process is still known as the session's (list_processes lists it), and
// focus_browser finds it by its URL, never taking another Chromium launched in the session
// (whose process is as much pid 2 of its own namespace) for it.
func TestConfinedBrowserIsTheSessionsAndToldFromAnotherChromium(t *testing.T) {
	t.Parallel()
	testenv.Require(t, "chromium", "bwrap")
	h := e2e.New(t)
	pol := filepath.Join(t.TempDir(), "policy.json")
	os.WriteFile(pol, []byte(`{"launchArguments": "any"}`), 0o644)
	h.SetEnv("W365_POLICY", pol)
	ps := newPageServer(t)
	cs := agentOnItsSession(t, h)
	h.MustRun("--session", "default-agent", "browser", "navigate", ps.URL+"/form.html")
	// Chromium refuses to start as root without --no-sandbox; the confinement is its sandbox.
	var launched struct{ PID int }
	e2e.Structured(t, e2e.Call(t, cs, "launch_application", map[string]any{"path": "chromium", "args": []string{"--no-sandbox", ps.URL + "/second.html"}}), &launched)

	type win struct {
		Handle      uint32
		PID         int
		ProcessName string
		Title       string
	}
	var driven win
	deadline := time.Now().Add(60 * time.Second)
	for {
		var wl struct{ Windows []win }
		e2e.Structured(t, e2e.Call(t, cs, "list_windows", nil), &wl)
		var chromiums []win
		for _, w := range wl.Windows {
			if w.ProcessName == "chromium" {
				chromiums = append(chromiums, w)
			}
		}
		// Windows are listed top-most first: the launched one must be above the driven one,
		// or focus_browser would reach the driven one first whatever it made of the other.
		if len(chromiums) == 2 && strings.HasPrefix(chromiums[1].Title, "Form") {
			driven = chromiums[1]
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no launched Chromium above the driven one: %+v", wl.Windows)
		}
		time.Sleep(500 * time.Millisecond)
	}
	if ns := nsPIDs(t, driven.PID); len(ns) < 2 {
		t.Fatalf("the driven browser (%d) is not confined in a PID namespace of its own: NSpid %v", driven.PID, ns)
	}
	// Its window names it (the X server's PID of it in the session's PID namespace, mapped
	// to the host's), so list_processes gives its title.
	if p, ok := listed(listProcesses(t, cs), driven.PID); !ok {
		t.Errorf("the session's confined browser (%d) is not listed", driven.PID)
	} else if !strings.HasPrefix(p.WindowTitle, "Form") {
		t.Errorf("the session's confined browser (%d) is listed with the window title %q", driven.PID, p.WindowTitle)
	}
	var got struct{ Window win }
	e2e.Structured(t, e2e.Call(t, cs, "focus_browser", map[string]any{"pattern": "/form.html"}), &got)
	if got.Window.Handle != driven.Handle {
		t.Fatalf("focus_browser /form.html found %+v, want the driven browser's %+v", got.Window, driven)
	}
}

// nsPIDs is pid's NSpid line: its PID in each PID namespace it is in, the host's first.
func nsPIDs(t *testing.T, pid int) []string {
	t.Helper()
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "NSpid:"); ok {
			return strings.Fields(v)
		}
	}
	return nil
}

// The session bus runs below a bubblewrap process of its own (display.busCommand), in the
// session's namespaces; it is still one of the desktop's own processes, listed and never
// killed by kill_process.
func TestDesktopSessionBusIsProtected(t *testing.T) {
	t.Parallel()
	testenv.Require(t, "bwrap", "dbus-daemon")
	h := e2e.New(t)
	cs := h.MCP()
	ps := listProcesses(t, cs)
	parent := func(pid int) int {
		b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		f := strings.Fields(string(b)[strings.LastIndexByte(string(b), ')')+1:])
		n, _ := strconv.Atoi(f[1])
		return n
	}
	bus := 0
	for _, p := range ps {
		if p.Name != "dbus-daemon" {
			continue
		}
		if exe, _ := os.Readlink("/proc/" + strconv.Itoa(parent(p.PID)) + "/exe"); strings.HasSuffix(exe, "/bwrap") && parent(parent(parent(p.PID))) == h.HostPID() {
			bus = p.PID
		}
	}
	if bus == 0 {
		t.Fatalf("the desktop's session bus (dbus-daemon below bwrap below the host's nsenter) is not listed: %v", ps)
	}
	res := e2e.Call(t, cs, "kill_process", map[string]any{"pid": bus, "startTime": startTime(t, bus), "force": true})
	if code := e2e.ErrorCode(res); code != "PROTECTED_PROCESS" {
		t.Errorf("kill_process of the session bus %d: code %q (%s), want PROTECTED_PROCESS", bus, code, e2e.Text(res))
	}
	if syscall.Kill(bus, 0) != nil {
		t.Fatal("the session bus was killed")
	}
}
