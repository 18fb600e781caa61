//go:build linux

package e2e_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/w365/w365/test/e2e"
	"github.com/w365/w365/test/testenv"
)

// The desktop's own programs (its session bus, its window manager) run in a confinement
// without a PID namespace of their own, since clients' PIDs must be the host's. What they
// start is neither the session's launched application nor its shell: a program a session
// had them start would run around the launch allowlist, the shell's policy and approvals,
// see the host's processes and outlive the session. These tests ask both to start a
// marked program and look for it on the host, during the session and after its end.

// processesWith are the host's processes whose command line holds token.
func processesWith(token string) []int {
	var out []int
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline")); err == nil && bytes.Contains(b, []byte(token)) {
			out = append(out, pid)
		}
	}
	return out
}

// noProcessWith fails t when a process marked token runs.
func noProcessWith(t *testing.T, token, when string) {
	t.Helper()
	for _, pid := range processesWith(token) {
		b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		t.Errorf("%s, a program the session had the desktop start runs on the host: pid %d %q", when, pid, bytes.ReplaceAll(b, []byte{0}, []byte{' '}))
	}
}

// killWith kills, when t ends, every process marked token.
func killWith(t *testing.T, token string) {
	t.Cleanup(func() {
		for _, pid := range processesWith(token) {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	})
}

// A compromised application of the session (python3, added by the policy) puts a service
// file where the session bus looks for transient services (its XDG_RUNTIME_DIR, the
// desktop's private directory) and into a directory it adds to the bus's configuration,
// has the bus reload it and asks it to start the service, a program that leaves its
// process group and waits. The binary before started it below the bus, and it ran on after
// the session ended, reparented to the host's init.
func TestConfineSessionBusActivatesNothingTheSessionWrote(t *testing.T) {
	testenv.Require(t, "bwrap", "dbus-daemon", "dbus-send", "python3")
	h := e2e.New(t)
	h.FakeHome()
	pol := filepath.Join(t.TempDir(), "policy.json")
	os.WriteFile(pol, []byte(`{"launchApplications": ["/usr/bin/python3"], "launchArguments": "any"}`), 0o644)
	h.SetEnv("W365_POLICY", pol)
	// The application is given the token in two words, so that only what it starts holds it.
	stamp := strconv.FormatInt(time.Now().UnixNano(), 10)
	token := "w365-bus-escape-" + stamp
	killWith(t, token)
	code := `import glob, os, subprocess, sys
rd = os.path.dirname(os.environ['XAUTHORITY'])
svc = '[D-BUS Service]\nName=org.w365test.Escape\nExec=/usr/bin/python3 -c "import os,time\\nif os.fork(): os._exit(0)\\nos.setsid()\\nif os.fork(): os._exit(0)\\ntime.sleep(120)" ' + sys.argv[1] + sys.argv[2] + '\n'
for d in (rd + '/dbus-1/services', rd + '/planted'):
    try:
        os.makedirs(d, exist_ok=True)
        open(d + '/org.w365test.Escape.service', 'w').write(svc)
    except OSError:
        pass
for c in glob.glob(rd + '/*.conf') + glob.glob(rd + '/*/*.conf'):
    try:
        s = open(c).read().replace('</busconfig>', '<servicedir>' + rd + '/planted</servicedir></busconfig>')
        open(c, 'w').write(s)
    except OSError:
        pass
bus = ['dbus-send', '--session', '--print-reply', '--reply-timeout=5000', '--dest=org.freedesktop.DBus', '/org/freedesktop/DBus']
subprocess.run(bus + ['org.freedesktop.DBus.ReloadConfig'], timeout=10)
subprocess.run(bus + ['org.freedesktop.DBus.StartServiceByName', 'string:org.w365test.Escape', 'uint32:0'], timeout=10)
open(rd + '/asked', 'w').close()
`
	h.MustRun("session", "start", "bus1")
	h.MustRun("--session", "bus1", "launch-application", "--path", "/usr/bin/python3", "--args=-c", "--args="+code, "--args=w365-bus-escape-", "--args="+stamp)
	var dir string
	for range 60 {
		if m, _ := filepath.Glob("/tmp/w365-xauth-*/asked"); len(m) > 0 {
			dir = m[0]
			break
		}
		time.Sleep(250 * time.Millisecond)
	}
	if dir == "" {
		t.Fatal("the application never finished asking the bus")
	}
	time.Sleep(time.Second)
	noProcessWith(t, token, "during the session")
	h.MustRun("session", "end", "bus1")
	time.Sleep(time.Second)
	noProcessWith(t, token, "after the session ended")
}

// A right click on the desktop opens the window manager's menu; Openbox's stock one starts
// a terminal emulator, whose shell a session types into. The binary before opened uxterm
// there, and the program typed into it ran on after the session ended.
func TestConfineWindowManagerStartsNothing(t *testing.T) {
	testenv.Require(t, "bwrap", "openbox")
	h := e2e.New(t)
	h.FakeHome()
	token := fmt.Sprintf("w365-wm-escape-%d", time.Now().UnixNano())
	killWith(t, token)
	h.MustRun("session", "start", "wm1")
	h.MustRun("--session", "wm1", "click", "--x", "300", "--y", "300", "--button", "Right")
	time.Sleep(500 * time.Millisecond)
	h.MustRun("--session", "wm1", "click", "--x", "330", "--y", "309") // the menu's first entry
	time.Sleep(2 * time.Second)
	h.MustRun("--session", "wm1", "type-text", "--text", "setsid sh -c 'sleep 120; : "+token+"' &")
	h.MustRun("--session", "wm1", "press-keys", "Return")
	time.Sleep(time.Second)
	noProcessWith(t, token, "during the session")
	h.MustRun("session", "end", "wm1")
	time.Sleep(time.Second)
	noProcessWith(t, token, "after the session ended")
}
