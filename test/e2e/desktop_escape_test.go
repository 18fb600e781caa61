//go:build linux

package e2e_test

import (
	"bytes"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
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

// sessionFile waits (up to 20 s) for what a program of session wrote at rel below the
// session's state directory (tmp/NAME is its /tmp) and returns it; nil when nothing came.
func sessionFile(home, session, rel string) []byte {
	for range 80 {
		if m, _ := filepath.Glob(filepath.Join(home, ".local", "state", "w365", "sessions", session+"-*", rel)); len(m) > 0 {
			if b, _ := os.ReadFile(m[0]); len(b) > 0 {
				return b
			}
		}
		time.Sleep(250 * time.Millisecond)
	}
	return nil
}

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

// nothingRunsNorOutlives fails t when a process marked token runs a second after the
// attack, or a second after session ended.
func nothingRunsNorOutlives(t *testing.T, h *e2e.Harness, session, token string) {
	t.Helper()
	time.Sleep(time.Second)
	noProcessWith(t, token, "during the session")
	h.MustRun("session", "end", session)
	time.Sleep(time.Second)
	noProcessWith(t, token, "after the session ended")
}

// killWith kills, when t ends, every process marked token.
func killWith(t *testing.T, token string) {
	t.Cleanup(func() {
		for _, pid := range processesWith(token) {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	})
}

// compromisedApplication is a harness on a fake HOME whose policy adds python3 to the
// applications, with any arguments (an application doing what a compromised one would),
// and the token of what it will start: prefix+stamp. The application is given the token in
// two words, prefix and stamp, so that only what it starts holds it; every process holding
// it is killed when t ends.
func compromisedApplication(t *testing.T, prefix string) (h *e2e.Harness, home, stamp, token string) {
	h = e2e.New(t)
	home = h.FakeHome()
	launchAnyWith(t, h, "/usr/bin/python3")
	stamp = strconv.FormatInt(time.Now().UnixNano(), 10)
	token = prefix + stamp
	killWith(t, token)
	return h, home, stamp, token
}

// A compromised application of the session (python3, added by the policy) puts a service
// file where the session bus looks for transient services (its XDG_RUNTIME_DIR, the
// desktop's private directory) and into a directory it adds to the bus's configuration,
// has the bus reload it and asks it to start the service, a program that leaves its
// process group and waits. The binary before started it below the bus, and it ran on after
// the session ended, reparented to the host's init.
func TestConfineSessionBusActivatesNothingTheSessionWrote(t *testing.T) {
	t.Parallel()
	testenv.Require(t, "bwrap", "dbus-daemon", "dbus-send", "python3")
	h, home, stamp, token := compromisedApplication(t, "w365-bus-escape-")
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
open('/tmp/asked', 'w').write('yes')
`
	h.MustRun("session", "start", "bus1")
	h.MustRun("--session", "bus1", "launch-application", "--path", "/usr/bin/python3", "--args=-c", "--args="+code, "--args=w365-bus-escape-", "--args="+stamp)
	if sessionFile(home, "bus1", "tmp/asked") == nil {
		t.Fatal("the application never finished asking the bus")
	}
	nothingRunsNorOutlives(t, h, "bus1", token)
}

// A compromised application of the session (python3, added by the policy) asks the session
// bus to start one of the system's session services, HexChat (org.hexchat.service), and once
// the agent has clicked its network list away, has HexChat run a command (its D-Bus
// interface's Command, HexChat's /exec): a program that leaves its process group and waits.
// The binary before activated every service of /usr/share/dbus-1/services below the bus, in
// the desktop's confinement (the host's PID namespace, where every host process's command
// line is readable), and the program ran on after the session ended, reparented to the
// host's init.
func TestConfineSessionBusStartsNoServiceASessionAsksFor(t *testing.T) {
	t.Parallel()
	testenv.Require(t, "bwrap", "dbus-daemon", "python3", "hexchat")
	if _, err := os.Stat("/usr/share/dbus-1/services/org.hexchat.service.service"); err != nil {
		t.Fatalf("the system has no HexChat session service to ask for: %v", err)
	}
	h, home, stamp, token := compromisedApplication(t, "w365-activate-")
	code := `import dbus, sys
bus = dbus.SessionBus()
try:
    bus.start_service_by_name('org.hexchat.service')
except dbus.DBusException as e:
    open('/tmp/asked', 'w').write('refused: %s' % e)
    sys.exit()
r = bus.get_object('org.hexchat.service', '/org/hexchat/Remote')
p = bus.get_object('org.hexchat.service', r.Connect('x', 'x', 'x', '1', dbus_interface='org.hexchat.connection'))
p.Command("exec setsid -f sh -c 'sleep 120; : " + sys.argv[1] + sys.argv[2] + "'", dbus_interface='org.hexchat.plugin')
open('/tmp/asked', 'w').write('commanded')
`
	h.MustRun("session", "start", "act1")
	h.MustRun("--session", "act1", "launch-application", "--path", "/usr/bin/python3", "--args=-c", "--args="+code, "--args=w365-activate-", "--args="+stamp)
	// HexChat takes its bus name once its network list is gone: the agent clicks Connect.
	var asked []byte
	for range 120 {
		var ws struct {
			Windows []struct {
				Title  string
				Client struct{ X, Y, Width, Height int }
			}
		}
		h.JSON(&ws, "--session", "act1", "list-windows")
		for _, w := range ws.Windows {
			if strings.HasPrefix(w.Title, "Network List") {
				c := w.Client
				h.MustRun("--session", "act1", "click", "--x", strconv.Itoa(c.X+c.Width-54), "--y", strconv.Itoa(c.Y+c.Height-29))
			}
		}
		if m, _ := filepath.Glob(filepath.Join(home, ".local", "state", "w365", "sessions", "act1-*", "tmp", "asked")); len(m) > 0 {
			if asked, _ = os.ReadFile(m[0]); len(asked) > 0 {
				break
			}
		}
		time.Sleep(250 * time.Millisecond)
	}
	if asked == nil {
		t.Fatal("the application never finished asking the bus")
	}
	t.Logf("the application: %s", asked)
	nothingRunsNorOutlives(t, h, "act1", token)
}

// A right click on the desktop opens the window manager's menu; Openbox's stock one starts
// a terminal emulator, whose shell a session types into. The binary before opened uxterm
// there, and the program typed into it ran on after the session ended.
func TestConfineWindowManagerStartsNothing(t *testing.T) {
	t.Parallel()
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
	nothingRunsNorOutlives(t, h, "wm1", token)
}

// A file input in a cross-site frame (a frame of its own target, whose file chooser the host
// did not intercept then; it does now, and the system's stays off besides) opened the
// system's file chooser in the browser's confinement, where a session picks any file the
// browser may read: its profile's Cookies (every cookie value, HttpOnly included, under
// Chromium's fixed key when there is no keyring). The page here hands the frame's file to its
// parent. The binary before opened the chooser, and the page read the SQLite header of the
// profile's Cookies file.
func TestBrowserOffersNoSystemFileChooser(t *testing.T) {
	t.Parallel()
	testenv.Require(t, "chromium")
	h := e2e.New(t)
	h.FakeHome()
	mux := http.NewServeMux()
	mux.HandleFunc("/outer", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `<html><body><h2>outer</h2><iframe src="http://localhost:%s/inner" width="600" height="200"></iframe>
<script>window.__got = ''; onmessage = e => { window.__got = e.data }</script></body></html>`, r.URL.Query().Get("port"))
	})
	mux.HandleFunc("/inner", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<html><body><input type="file" id="f" onchange="this.files[0].slice(0, 16).text().then(s => parent.postMessage(s, '*'))"></body></html>`)
	})
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: mux}
	go srv.Serve(l)
	t.Cleanup(func() { srv.Close() })
	port := strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
	h.MustRun("session", "start", "fc1")
	s := func(args ...string) e2e.Result { return h.Run(append([]string{"--session", "fc1"}, args...)...) }
	if r := s("browser", "navigate", "http://127.0.0.1:"+port+"/outer?port="+port); r.Code != 0 {
		t.Fatalf("navigate: %+v", r)
	}
	var x, y string
	for range 40 {
		if r := s("--jq", `.matches[0] | "\(.centerX) \(.centerY)"`, "find-ui-element", "--text", "Choose File"); r.Code == 0 {
			if f := strings.Fields(r.Stdout); len(f) == 2 {
				x, y = f[0], f[1]
				break
			}
		}
		time.Sleep(250 * time.Millisecond)
	}
	if x == "" {
		t.Fatal("the frame's file input never showed in the accessibility tree")
	}
	chooser := func() bool {
		for range 12 {
			if strings.Contains(s("list-windows").Stdout, "Open File") {
				return true
			}
			time.Sleep(250 * time.Millisecond)
		}
		return false
	}
	// The browser's own Open File (Ctrl+O), which no page interception reaches, stays shut too.
	s("click", "--x", x, "--y", y)
	if !chooser() {
		s("press-keys", "ctrl", "o")
	}
	if chooser() {
		t.Error("the system's file chooser opened")
		var runtime string
		for _, kv := range h.Env {
			if v, ok := strings.CutPrefix(kv, "W365_RUNTIME_DIR="); ok {
				runtime = v
			}
		}
		cookies, _ := filepath.Glob(filepath.Join(runtime, "browser-*", "Default", "Cookies"))
		if len(cookies) == 0 {
			t.Fatalf("no profile Cookies file under %s", runtime)
		}
		s("press-keys", "ctrl", "l")
		s("type-text", "--text", cookies[0])
		for range 3 { // its Open button, at the dialog's bottom right: the completion's popup, then the file
			time.Sleep(700 * time.Millisecond)
			for _, line := range strings.Split(s("list-windows").Stdout, "\n") {
				if f := strings.Split(line, "\t"); len(f) > 7 && f[0] == "Open File" {
					x0, _ := strconv.Atoi(f[4])
					y0, _ := strconv.Atoi(f[5])
					w, _ := strconv.Atoi(f[6])
					h, _ := strconv.Atoi(f[7])
					s("click", "--x", strconv.Itoa(x0+w-51), "--y", strconv.Itoa(y0+h-29))
				}
			}
		}
	}
	for range 8 {
		if r := s("browser", "eval-js", "--expression", "window.__got"); strings.Contains(r.Stdout, "SQLite") {
			t.Fatalf("the page read the browser profile's Cookies file: %q", r.Stdout)
		}
		time.Sleep(250 * time.Millisecond)
	}
}

// An application of the session takes org.a11y.Bus over on the session bus (any client may
// replace its owner) and answers the host's GetAddress with a nonce-tcp address, whose
// "nonce file" the host reads and sends to the address: a file only the host's user may
// read (root's, on a root host), sent to a listener of the session's choosing. The binary
// before dialled it: the listener got the file.
func TestAccessibilityBusAddressIsTheSessionsOwnSocket(t *testing.T) {
	t.Parallel()
	testenv.Require(t, "bwrap", "dbus-daemon", "python3")
	h := e2e.New(t)
	home := h.FakeHome()
	secret := filepath.Join(t.TempDir(), "secret")
	if err := os.WriteFile(secret, []byte(e2e.Canary+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	got := make(chan string, 8)
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			c.SetDeadline(time.Now().Add(2 * time.Second))
			b := make([]byte, 4096)
			n, _ := c.Read(b)
			c.Close() // the host then gives up on this "bus"
			got <- string(b[:n])
		}
	}()
	addr := fmt.Sprintf("nonce-tcp:host=127.0.0.1,port=%d,noncefile=%s", l.Addr().(*net.TCPAddr).Port, secret)
	takeA11yBus(t, h, home, "a11y1", addr)
	h.Run("--session", "a11y1", "get-accessibility-tree")
	time.Sleep(time.Second)
	for {
		select {
		case s := <-got:
			if strings.Contains(s, e2e.Canary) {
				t.Fatalf("the host read a file of its own and sent it where the session said: %q", s)
			}
		default:
			return
		}
	}
}

// takeA11yBus starts, in a new session, an application (python3, added by the policy)
// that takes org.a11y.Bus over on the session bus and answers GetAddress with addr; it
// returns once the application holds the name.
func takeA11yBus(t *testing.T, h *e2e.Harness, home, session, addr string) {
	t.Helper()
	launchAnyWith(t, h, "/usr/bin/python3")
	code := `import os, sys
from gi.repository import Gio, GLib
xml = '<node><interface name="org.a11y.Bus"><method name="GetAddress"><arg type="s" direction="out"/></method></interface></node>'
conn = Gio.bus_get_sync(Gio.BusType.SESSION, None)
conn.register_object('/org/a11y/bus', Gio.DBusNodeInfo.new_for_xml(xml).interfaces[0],
    lambda c, s, p, i, m, a, inv: inv.return_value(GLib.Variant('(s)', (sys.argv[1].replace('DIR', os.path.dirname(os.environ['XAUTHORITY'])),))), None, None)
r = conn.call_sync('org.freedesktop.DBus', '/org/freedesktop/DBus', 'org.freedesktop.DBus', 'RequestName',
    GLib.Variant('(su)', ('org.a11y.Bus', 6)), None, 0, -1, None)
open(os.environ['HOME'] + '/Documents/owner', 'w').write(str(r.unpack()[0]))
GLib.MainLoop().run()
`
	h.MustRun("session", "start", session)
	if strings.Contains(addr, "DIR/silent") {
		// A socket that accepts and never answers, made by the test in the desktop's
		// directory: read-only to the session's programs, writable by the desktop's own.
		var priv string
		for _, s := range h.Sessions() {
			if strings.HasPrefix(s.SessionID, session) {
				priv = filepath.Dir(s.Env["XAUTHORITY"])
			}
		}
		l, err := net.Listen("unix", filepath.Join(priv, "silent"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { l.Close() })
	}
	h.Run("--session", session, "launch-application", "--path", "/usr/bin/python3", "--args=-c", "--args="+code, "--args="+addr)
	b := sessionFile(home, session, "home/Documents/owner")
	if b == nil {
		t.Fatal("the application never asked for org.a11y.Bus")
	}
	if string(b) != "1" {
		t.Logf("RequestName answered %q (1: the application owns org.a11y.Bus)", b)
	}
}

// The same application names a socket in the desktop's directory that accepts and never
// answers (one a program of the desktop itself could make there): the host's accessibility
// calls give up within their time instead of waiting for the handshake (a launch waited 10
// minutes before).
func TestAccessibilityBusThatNeverAnswersHoldsNoCall(t *testing.T) {
	t.Parallel()
	testenv.Require(t, "bwrap", "dbus-daemon", "python3")
	h := e2e.New(t)
	home := h.FakeHome()
	takeA11yBus(t, h, home, "a11y2", "unix:path=DIR/silent")
	start := time.Now()
	h.Run("--session", "a11y2", "get-accessibility-tree")
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("get-accessibility-tree took %s against a bus that never answers", d)
	}
}

// The desktop's private directory holds the sockets every program of the session connects
// to and the X authority. A compromised application (python3, added by the policy) tries to
// put its own socket in place of the session bus's, for the applications started after it,
// to rewrite the X authority and to plant a file there: each fails, and the files are the
// desktop's as before, while the application still reaches the bus and the X server.
func TestConfineDesktopDirectoryIsReadOnlyToApplications(t *testing.T) {
	t.Parallel()
	testenv.Require(t, "bwrap", "dbus-daemon", "dbus-send", "python3")
	h := e2e.New(t)
	home := h.FakeHome()
	launchAnyWith(t, h, "/usr/bin/python3")
	code := `import os, socket, subprocess
rd = os.path.dirname(os.environ['XAUTHORITY'])
bus = os.environ['DBUS_SESSION_BUS_ADDRESS'].split('path=')[1].split(',')[0]
out = []
def attempt(name, f):
    try:
        f()
        out.append(name + ' done')
    except OSError as e:
        out.append(name + ' refused ' + str(e.errno))
def replace_bus():
    s = socket.socket(socket.AF_UNIX)
    s.bind(rd + '/fake-bus')
    os.rename(rd + '/fake-bus', bus)
attempt('replace-bus', replace_bus)
attempt('unlink-bus', lambda: os.unlink(bus))
attempt('rewrite-xauthority', lambda: open(os.environ['XAUTHORITY'], 'w').write('x'))
attempt('plant', lambda: open(rd + '/planted', 'w').write('x'))
r = subprocess.run(['dbus-send', '--session', '--print-reply', '--dest=org.freedesktop.DBus', '/org/freedesktop/DBus', 'org.freedesktop.DBus.GetId'], capture_output=True, timeout=10)
out.append('bus ' + ('answers' if r.returncode == 0 else 'silent'))
x = socket.socket(socket.AF_UNIX)
try:
    x.connect('/tmp/.X11-unix/X' + os.environ['DISPLAY'].lstrip(':').split('.')[0])
    out.append('x answers')
except OSError as e:
    out.append('x silent ' + str(e.errno))
open('/tmp/attempts', 'w').write('\n'.join(out) + '\n')
`
	h.MustRun("session", "start", "ro1")
	var priv string
	for _, s := range h.Sessions() {
		if s.SessionID == "ro1" {
			priv = filepath.Dir(s.Env["XAUTHORITY"])
		}
	}
	if priv == "" {
		t.Fatalf("no private directory for session ro1 in %+v", h.Sessions())
	}
	auth, _ := os.ReadFile(filepath.Join(priv, "Xauthority"))
	h.MustRun("--session", "ro1", "launch-application", "--path", "/usr/bin/python3", "--args=-c", "--args="+code)
	got := sessionFile(home, "ro1", "tmp/attempts")
	if got == nil {
		t.Fatal("the application never reported its attempts")
	}
	for _, want := range []string{"replace-bus refused", "unlink-bus refused", "rewrite-xauthority refused", "plant refused", "bus answers", "x answers"} {
		if !strings.Contains(string(got), want) {
			t.Errorf("the application reports:\n%s\nwant %q", got, want)
		}
	}
	if now, _ := os.ReadFile(filepath.Join(priv, "Xauthority")); !bytes.Equal(now, auth) {
		t.Error("the X authority changed")
	}
	if _, err := os.Lstat(filepath.Join(priv, "planted")); err == nil {
		t.Error("a file was planted in the desktop's private directory")
	}
	h.MustRun("--session", "ro1", "get-screen-size")
}

// A host started from a desktop has XDG_RUNTIME_DIR (/run/user/UID), which the confinement
// masks: an application that kept the variable would make its runtime files, atk-bridge's
// accessibility server among them, in a directory of its own that the host cannot reach, and
// the walk would lose its peer connection. The application runs without one.
func TestConfineApplicationHasNoHostRuntimeDirectory(t *testing.T) {
	t.Parallel()
	testenv.Require(t, "bwrap", "python3")
	h := e2e.New(t)
	home := h.FakeHome()
	runtime := t.TempDir()
	h.SetEnv("XDG_RUNTIME_DIR", runtime)
	launchAnyWith(t, h, "/usr/bin/python3")
	h.MustRun("session", "start", "rt1")
	h.MustRun("--session", "rt1", "launch-application", "--path", "/usr/bin/python3", "--args=-c",
		"--args=import os; open('/tmp/runtime', 'w').write(os.environ.get('XDG_RUNTIME_DIR', 'unset'))")
	got := sessionFile(home, "rt1", "tmp/runtime")
	if got == nil {
		t.Fatal("the application never reported its runtime directory")
	}
	if string(got) != "unset" {
		t.Errorf("the application's XDG_RUNTIME_DIR is %q, want none", got)
	}
}

// The session bus starts the system's services when a program of the session asks
// (ca.desrt.dconf here: dconf-service, which any GTK application may activate). Such a
// service ends with the session because it runs in the session's PID namespace, not
// because it notices that its bus went away: the test stops it (SIGSTOP), so that it cannot
// exit by itself, and ends the session. The binary before started it in the host's PID
// namespace below the bus, and it was still there, reparented to the host's init, after
// the session ended.
func TestConfineSessionEndsWhatItsBusStarted(t *testing.T) {
	t.Parallel()
	testenv.Require(t, "bwrap", "dbus-send", "/usr/libexec/dconf-service")
	h := e2e.New(t)
	h.FakeHome()
	h.MustRun("session", "start", "act1")
	var id, bus, display string
	for _, s := range h.Sessions() {
		if strings.HasPrefix(s.SessionID, "act1") {
			id, bus, display = s.SessionID, s.Env["DBUS_SESSION_BUS_ADDRESS"], s.Display
		}
	}
	if bus == "" {
		t.Fatalf("no session bus for act1 in %+v", h.Sessions())
	}
	send := exec.Command("dbus-send", "--session", "--print-reply", "--reply-timeout=10000", "--dest=org.freedesktop.DBus",
		"/org/freedesktop/DBus", "org.freedesktop.DBus.StartServiceByName", "string:ca.desrt.dconf", "uint32:0")
	send.Env = []string{"DBUS_SESSION_BUS_ADDRESS=" + bus}
	if out, err := send.CombinedOutput(); err != nil {
		t.Fatalf("StartServiceByName(ca.desrt.dconf): %v\n%s", err, out)
	}
	nsOf := func(pid int) string { l, _ := os.Readlink(fmt.Sprintf("/proc/%d/ns/pid", pid)); return l }
	var xvfb, service int
	for _, pid := range descendants(h.HostPID()) {
		if exe, _ := os.Readlink(fmt.Sprintf("/proc/%d/exe", pid)); filepath.Base(exe) == "Xvfb" {
			if cmd, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid)); strings.Contains(string(cmd), display+"\x00") {
				xvfb = pid
			}
		}
	}
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if exe, _ := os.Readlink(fmt.Sprintf("/proc/%d/exe", pid)); exe == "/usr/libexec/dconf-service" && xvfb > 0 && nsOf(pid) == nsOf(xvfb) {
			service = pid
		}
	}
	if xvfb == 0 || service == 0 {
		t.Fatalf("session %s: X server pid %d, dconf-service in its PID namespace %d", id, xvfb, service)
	}
	if nsOf(service) == nsOf(os.Getpid()) {
		t.Errorf("dconf-service (pid %d) runs in the host's PID namespace", service)
	}
	t.Cleanup(func() { syscall.Kill(service, syscall.SIGKILL) })
	if err := syscall.Kill(service, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	h.MustRun("session", "end", id)
	for i := 0; ; i++ {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", service))
		if err != nil || !strings.Contains(string(b), "dconf-service") {
			break
		}
		if i == 50 {
			t.Fatalf("dconf-service (pid %d) outlived its session: %s", service, b)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
