//go:build linux

package e2e_test

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io/fs"
	"net"
	"net/http"
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

// The confinement tests (docs/security.md#confinement) look at a virtual session from
// inside, through its shell and Python, and from outside, at what it left on the host.

// personDesktop starts what a person's own desktop offers a local program: an X server
// (socket file and abstract socket) and a D-Bus session bus on a path and an abstract
// address. It returns the display number, the bus socket path and the abstract name.
func personDesktop(t *testing.T) (display int, busPath, busAbstract string) {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	x := exec.Command("Xvfb", "-displayfd", "3", "-nolisten", "tcp")
	x.ExtraFiles = []*os.File{w}
	if err := x.Start(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	t.Cleanup(func() { x.Process.Kill(); x.Wait() })
	// Xvfb writes the number, then a newline: it dies when that write fails.
	line, _ := bufio.NewReader(r).ReadString('\n')
	t.Cleanup(func() { r.Close() })
	display, err = strconv.Atoi(strings.TrimSpace(line))
	if err != nil {
		t.Fatalf("Xvfb wrote no display number: %q", line)
	}
	dir := t.TempDir()
	busPath = filepath.Join(dir, "bus")
	// A name of its own: tests of this process start persons' desktops at the same time.
	busAbstract = fmt.Sprintf("w365-person-bus-%d-%d", os.Getpid(), time.Now().UnixNano())
	conf := filepath.Join(dir, "bus.conf")
	os.WriteFile(conf, []byte(`<busconfig><type>session</type><listen>unix:path=`+busPath+`</listen>
<listen>unix:abstract=`+busAbstract+`</listen><auth>EXTERNAL</auth>
<policy context="default"><allow send_destination="*"/><allow own="*"/></policy></busconfig>`), 0o644)
	d := exec.Command("dbus-daemon", "--config-file="+conf, "--nofork", "--nosyslog")
	if err := d.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Process.Kill(); d.Wait() })
	for range 100 {
		if c, err := net.Dial("unix", "@"+busAbstract); err == nil {
			c.Close()
			break
		}
		exec.Command("sleep", "0.05").Run()
	}
	for _, a := range []string{fmt.Sprintf("/tmp/.X11-unix/X%d", display), "@" + busAbstract, busPath} {
		c, err := net.Dial("unix", a)
		if err != nil {
			t.Fatalf("the person's desktop does not answer on %s: %v", a, err)
		}
		c.Close()
	}
	return display, busPath, busAbstract
}

// probe is what a Python call inside the session reports about where it runs.
type probe struct {
	UID      int      `json:"uid"`
	UIDMap   string   `json:"uidMap"`
	Home     string   `json:"home"`
	HomeLs   []string `json:"homeLs"`
	TmpLs    []string `json:"tmpLs"`
	RunUser  []string `json:"runUser"`
	Reach    []string `json:"reach"` // the host sockets it reached
	Procs    int      `json:"procs"`
	SeesHost bool     `json:"seesHost"`
	Kill     string   `json:"kill"`
	Canaries []string `json:"canaries"`
	Setid    []string `json:"setid"` // the set-id attempts that succeeded
}

const probeCode = `
import json, os, socket, sys
host_pid, display, bus_path, bus_abs, fake_home, work = json.loads(open('ARGS').read())
out = {'uid': os.getuid(), 'uidMap': open('/proc/self/uid_map').read().strip(), 'home': os.environ['HOME'],
       'homeLs': sorted(os.listdir(os.path.expanduser('~'))), 'tmpLs': sorted(os.listdir('/tmp')),
       'runUser': sorted(os.listdir('/run/user')) if os.path.isdir('/run/user') else [], 'reach': []}
def reach(name, addr):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        s.connect(addr); out['reach'].append(name)
    except OSError:
        pass
    finally:
        s.close()
reach('x-path', '/tmp/.X11-unix/X' + display)
reach('x-abstract', '\0/tmp/.X11-unix/X' + display)
reach('bus-path', bus_path)
reach('bus-abstract', '\0' + bus_abs)
for p in ('/run/docker.sock', '/var/run/docker.sock', '/run/dbus/system_bus_socket'):
    reach(p, p)
pids = [d for d in os.listdir('/proc') if d.isdigit()]
out['procs'] = len(pids)
out['seesHost'] = host_pid in pids
try:
    os.kill(int(host_pid), 0); out['kill'] = 'delivered'
except OSError as e:
    out['kill'] = type(e).__name__
out['canaries'] = []
for f in ('notes.txt', '.ssh/id_ed25519', '.bash_history'):
    try:
        out['canaries'].append(open(os.path.join(fake_home, f)).read())
    except OSError:
        pass
def chmod_i386(p):
    # chmod(p, 04755) through the i386 ABI (int 0x80), whose call numbers a filter for
    # the native ones does not see: code and path in memory below 4 GiB (MAP_32BIT).
    import ctypes
    libc = ctypes.CDLL(None)
    libc.mmap.restype = ctypes.c_void_p
    libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
    m = libc.mmap(None, 4096, 7, 0x62, -1, 0)
    if m is None or m >= 1 << 32:
        raise OSError('no memory below 4 GiB')
    path = p.encode() + b'\0'
    ctypes.memmove(m + 2048, path, len(path))
    code = b'\xb8\x0f\0\0\0\xbb' + (m + 2048).to_bytes(4, 'little') + b'\xb9' + (0o4755).to_bytes(4, 'little') + b'\xcd\x80\xc3'
    ctypes.memmove(m, code, len(code))
    if ctypes.CFUNCTYPE(ctypes.c_int)(m)() != 0:
        raise OSError('refused')
def open_io_uring(p):
    # openat(p.new, O_CREAT, 04755) as an io_uring operation, which no seccomp filter sees.
    import ctypes, mmap, struct
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    params = ctypes.create_string_buffer(120)
    fd = libc.syscall(425, 1, params)
    if fd < 0:
        raise OSError(ctypes.get_errno(), 'io_uring_setup')
    entries, cq_entries = struct.unpack_from('2I', params.raw, 0)
    sq, cq = struct.unpack_from('8IQ', params.raw, 40), struct.unpack_from('8IQ', params.raw, 80)
    rw = mmap.PROT_READ | mmap.PROT_WRITE
    ring = mmap.mmap(fd, max(sq[6] + entries * 4, cq[5] + cq_entries * 16), mmap.MAP_SHARED, rw, offset=0)
    sqes = mmap.mmap(fd, entries * 64, mmap.MAP_SHARED, rw, offset=0x10000000)
    path = ctypes.create_string_buffer((p + '.new').encode())
    sqe = struct.pack('<BBHiQQIIQ', 18, 0, 0, -100, 0, ctypes.addressof(path), 0o4755, os.O_CREAT | os.O_WRONLY, 1)
    sqes[0:len(sqe)] = sqe
    struct.pack_into('I', ring, sq[6], 0)
    struct.pack_into('I', ring, sq[1], struct.unpack_from('I', ring, sq[1])[0] + 1)
    if libc.syscall(426, fd, 1, 1, 1, None, 0) < 0:
        raise OSError(ctypes.get_errno(), 'io_uring_enter')
    res = struct.unpack_from('<Qi', ring, cq[5] + (struct.unpack_from('I', ring, cq[0])[0] & cq[2]) * 16)[1]
    if res < 0:
        raise OSError(-res, 'io_uring openat')
    os.close(res)
out['setid'] = []
attempts = [('io_uring', open_io_uring), ('chmod', lambda p: os.chmod(p, 0o4755)), ('chmod-g', lambda p: os.chmod(p, 0o2755)),
            ('open', lambda p: os.close(os.open(p + '.new', os.O_CREAT | os.O_WRONLY, 0o4755)))]
if os.uname().machine == 'x86_64':
    attempts.append(('chmod-i386', chmod_i386))
for name, f in attempts:
    p = os.path.join(work, 'setid-' + name)
    open(p, 'w').write('#!/bin/sh\n')
    try:
        f(p); out['setid'].append(name)
    except OSError:
        pass
print(json.dumps(out))
`

func TestConfineSessionFromInside(t *testing.T) {
	t.Parallel()
	testenv.Require(t, "bwrap", "python3", "git")
	display, busPath, busAbs := personDesktop(t)
	h := e2e.New(t)
	home := h.FakeHome()
	work := filepath.Join(home, "work")
	if err := os.MkdirAll(work, 0o755); err != nil {
		t.Fatal(err)
	}
	git := func(args ...string) string {
		c := exec.Command("git", append([]string{"-C", work, "-c", "user.name=p", "-c", "user.email=p@x"}, args...)...)
		c.Env = append(os.Environ(), "HOME="+home)
		out, err := c.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	git("init", "-q")
	os.WriteFile(filepath.Join(work, "a.txt"), []byte("one\n"), 0o644)
	git("add", "a.txt")
	git("commit", "-qm", "first")
	// The network shared with the host is the harder case: only Landlock keeps the
	// abstract sockets out of reach there.
	pol := filepath.Join(t.TempDir(), "policy.json")
	os.WriteFile(pol, []byte(`{"allowNetwork": true}`), 0o644)
	h.SetEnv("W365_POLICY", pol)
	h.MustRun("session", "start", "c1")
	args, _ := json.Marshal([]string{strconv.Itoa(h.HostPID()), strconv.Itoa(display), busPath, busAbs, home, work})
	os.WriteFile(filepath.Join(work, "ARGS"), args, 0o644)
	res := h.Run("--session", "c1", "execute-python-code", "--cwd", work, "--code", probeCode, "--json")
	var out struct{ Stdout, Stderr string }
	if err := json.Unmarshal([]byte(res.Stdout), &out); err != nil || res.Code != 0 {
		t.Fatalf("python in the session: %v %s %s", err, res.Stdout, res.Stderr)
	}
	var p probe
	if err := json.Unmarshal([]byte(out.Stdout), &p); err != nil {
		t.Fatalf("probe output %q (stderr %q): %v", out.Stdout, out.Stderr, err)
	}
	if os.Geteuid() == 0 && p.UID != 65534 {
		t.Errorf("on a root host the session runs as uid %d, want nobody (65534)", p.UID)
	}
	if p.UIDMap == "0 0 4294967295" {
		t.Errorf("the session runs in the host's user namespace (uid_map %q)", p.UIDMap)
	}
	if !strings.HasPrefix(p.Home, filepath.Join(home, ".local/state/w365/sessions")+"/c1-") {
		t.Errorf("HOME inside is %s, want the session's state directory", p.Home)
	}
	for _, f := range p.HomeLs {
		if f == "notes.txt" || f == ".ssh" || f == "work" {
			t.Errorf("~ inside shows the person's %s: %v", f, p.HomeLs)
		}
	}
	if len(p.RunUser) != 0 {
		t.Errorf("/run/user inside shows %v", p.RunUser)
	}
	if len(p.Reach) != 0 {
		t.Errorf("the session reached host sockets: %v", p.Reach)
	}
	if p.SeesHost || p.Procs > 10 {
		t.Errorf("the session sees the host's processes (host visible %v, %d processes)", p.SeesHost, p.Procs)
	}
	if p.Kill == "delivered" {
		t.Error("the session could signal the host")
	}
	if len(p.Canaries) != 0 {
		t.Errorf("the session read the person's files: %v", p.Canaries)
	}
	if len(p.Setid) != 0 {
		t.Errorf("set-id bits could be set inside: %v", p.Setid)
	}
	// From outside: nothing the session wrote carries a set-id bit, its files are the
	// person's, and the person's git works on after the agent's calls.
	state := filepath.Dir(p.Home)
	for _, root := range []string{work, state} {
		filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			if st, err := os.Lstat(path); err == nil && st.Mode()&(fs.ModeSetuid|fs.ModeSetgid) != 0 {
				t.Errorf("%s carries a set-id bit: %v", path, st.Mode())
			}
			return nil
		})
	}
	edit := `open('a.txt', 'a').write('two\n'); open('b.txt', 'w').write('new\n')
try:
    open('.git/config', 'a').write('[core]\n\thooksPath = /tmp\n'); print('GIT-WRITABLE')
except OSError:
    pass`
	res = h.Run("--session", "c1", "execute-python-code", "--cwd", work, "--code", edit, "--json")
	if res.Code != 0 || strings.Contains(res.Stdout, "GIT-WRITABLE") {
		t.Errorf("editing in the workspace: %s %s", res.Stdout, res.Stderr)
	}
	for _, f := range []string{"a.txt", "b.txt"} {
		st, err := os.Stat(filepath.Join(work, f))
		if err != nil {
			t.Fatalf("%s after the session's edit: %v", f, err)
		}
		if uid := st.Sys().(*syscall.Stat_t).Uid; int(uid) != os.Getuid() {
			t.Errorf("%s is owned by uid %d, not the person (%d)", f, uid, os.Getuid())
		}
	}
	if b, _ := os.ReadFile(filepath.Join(work, "a.txt")); string(b) != "one\ntwo\n" {
		t.Errorf("a.txt after the edit: %q", b)
	}
	git("add", "a.txt", "b.txt")
	git("commit", "-qm", "second")
	if log := git("log", "--oneline"); strings.Count(log, "\n") != 2 {
		t.Errorf("git log after the person's commit: %q", log)
	}
}

// A session's files have one home: a PDF saved by name lands in its Downloads, the end
// names it as kept, and the rest of the state directory is gone. The browser browses a
// loopback site from inside the confinement.
func TestConfineBrowserAndKeptFiles(t *testing.T) {
	t.Parallel()
	testenv.Require(t, "bwrap", "chromium")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "<title>loopback-site</title><p>confined page</p>")
	})}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	h := e2e.New(t)
	home := h.FakeHome()
	h.MustRun("session", "start", "b1")
	nav := h.Run("--session", "b1", "browser", "navigate", "http://"+ln.Addr().String()+"/")
	if nav.Code != 0 || !strings.Contains(nav.Stdout, "loopback-site") {
		t.Fatalf("navigate to a loopback site: %s %s", nav.Stdout, nav.Stderr)
	}
	// The browser is not in the host's mount or user namespace.
	hostNS := nsOf(t, h.HostPID())
	browsers := 0
	for _, pid := range descendants(h.HostPID()) {
		exe, _ := os.Readlink(fmt.Sprintf("/proc/%d/exe", pid))
		if !strings.Contains(exe, "chrom") {
			continue
		}
		browsers++
		if ns := nsOf(t, pid); ns == hostNS {
			t.Errorf("browser process %d (%s) shares the host's namespaces %s", pid, exe, ns)
		}
	}
	if browsers == 0 {
		t.Fatal("no browser process under the host")
	}
	h.MustRun("--session", "b1", "browser", "pdf-save", "page.pdf")
	var end struct {
		Kept []string `json:"kept"`
	}
	h.JSON(&end, "session", "end", "b1")
	if len(end.Kept) != 1 || filepath.Base(end.Kept[0]) != "page.pdf" || !strings.Contains(end.Kept[0], "/home/Downloads/") {
		t.Fatalf("the end kept %v, want the saved page.pdf in the session's Downloads", end.Kept)
	}
	if _, err := os.Stat(end.Kept[0]); err != nil {
		t.Errorf("the kept file is gone: %v", err)
	}
	state := filepath.Dir(filepath.Dir(filepath.Dir(end.Kept[0])))
	var left []string
	filepath.WalkDir(state, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			left = append(left, p)
		}
		return nil
	})
	if len(left) != 1 {
		t.Errorf("the ended session's state directory holds more than what it saved: %v", left)
	}
	if !strings.HasPrefix(state, filepath.Join(home, ".local/state/w365/sessions")) {
		t.Errorf("state directory %s is not in the documented place", state)
	}
}

// The session's browser keeps Chromium's own sandbox, on a root host too (no --no-sandbox,
// no "unsupported command-line flag" bar): its renderers run in user and PID namespaces of
// their own below the confinement's, under a seccomp filter of Chromium's on top of the
// confinement's; and the page's accessibility tree still reaches the host. Its processes
// are not root on a root host (nobody: a file only root may read stays closed to a page).
func TestConfineBrowserKeepsItsSandbox(t *testing.T) {
	t.Parallel()
	testenv.Require(t, "bwrap", "chromium")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "<title>sandboxed-site</title><p>a paragraph the tree names</p>")
	})}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	h := e2e.New(t)
	h.FakeHome()
	h.MustRun("session", "start", "s1")
	if nav := h.Run("--session", "s1", "browser", "navigate", "http://"+ln.Addr().String()+"/"); nav.Code != 0 {
		t.Fatalf("navigate to a loopback site: %s %s", nav.Stdout, nav.Stderr)
	}
	var found string
	for range 50 { // the tree follows the page a moment later
		r := h.Run("--session", "s1", "find-ui-element", "--text", "a paragraph the tree names")
		if r.Code == 0 && strings.Contains(r.Stdout, "a paragraph the tree names") {
			found = r.Stdout
			break
		}
		exec.Command("sleep", "0.2").Run()
	}
	if found == "" {
		t.Fatal("the page's paragraph never showed in the confined browser's accessibility tree")
	}
	if r := h.Run("--session", "s1", "find-ui-element", "--text", "unsupported command-line flag"); strings.Contains(r.Stdout, "unsupported") {
		t.Errorf("the browser shows the unsupported-flag bar: %s", r.Stdout)
	}
	field := func(pid int, name string) string {
		b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
		for _, l := range strings.Split(string(b), "\n") {
			if v, ok := strings.CutPrefix(l, name+":"); ok {
				return strings.TrimSpace(v)
			}
		}
		return ""
	}
	ns := func(pid int, n string) string { l, _ := os.Readlink(fmt.Sprintf("/proc/%d/ns/%s", pid, n)); return l }
	var main, renderers []int
	for _, pid := range descendants(h.HostPID()) {
		exe, _ := os.Readlink(fmt.Sprintf("/proc/%d/exe", pid))
		if !strings.Contains(exe, "chrom") || strings.Contains(exe, "crashpad") {
			continue
		}
		b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		// Chromium's children rewrite their command line into one string of words.
		argv := strings.FieldsFunc(string(b), func(r rune) bool { return r == 0 || r == ' ' })
		if slices.Contains(argv, "--no-sandbox") {
			t.Errorf("browser process %d runs with --no-sandbox: %v", pid, argv)
		}
		switch {
		case slices.Contains(argv, "--type=renderer"):
			renderers = append(renderers, pid)
		case !slices.ContainsFunc(argv, func(a string) bool { return strings.HasPrefix(a, "--type=") }):
			main = append(main, pid)
		}
	}
	if len(main) != 1 || len(renderers) == 0 {
		t.Fatalf("want one browser process and its renderers under the host, got %v and %v", main, renderers)
	}
	for _, pid := range append(renderers, main...) {
		if uid := strings.Fields(field(pid, "Uid")); len(uid) != 4 || slices.ContainsFunc(uid, func(u string) bool { return u != strconv.Itoa(confinedUID()) }) {
			t.Errorf("browser process %d runs as uids %v outside, want %d", pid, uid, confinedUID())
		}
	}
	for _, r := range renderers {
		if field(r, "Seccomp") != "2" || field(r, "NoNewPrivs") != "1" {
			t.Errorf("renderer %d: Seccomp %q NoNewPrivs %q, want a filter and no_new_privs", r, field(r, "Seccomp"), field(r, "NoNewPrivs"))
		}
		if a, b := field(r, "Seccomp_filters"), field(main[0], "Seccomp_filters"); a <= b {
			t.Errorf("renderer %d has %s seccomp filters, the browser %s: Chromium's own is missing", r, a, b)
		}
		for _, n := range []string{"user", "pid"} {
			if ns(r, n) == ns(main[0], n) || ns(r, n) == "" {
				t.Errorf("renderer %d shares the browser's %s namespace %s: Chromium's sandbox is off", r, n, ns(r, n))
			}
		}
	}
}

// A GTK application launched in a virtual session runs in its confinement and is driven.
func TestConfineLaunchedApplication(t *testing.T) {
	t.Parallel()
	testenv.Require(t, "bwrap", "zenity")
	h := e2e.New(t)
	h.FakeHome()
	// zenity has no desktop entry: the policy adds it (launchApplications).
	pol := filepath.Join(t.TempDir(), "policy.json")
	os.WriteFile(pol, []byte(`{"launchApplications": ["/usr/bin/zenity"], "launchArguments": "any"}`), 0o644)
	h.SetEnv("W365_POLICY", pol)
	h.MustRun("session", "start", "g1")
	var l struct {
		PID int `json:"pid"`
	}
	h.JSON(&l, "--session", "g1", "launch-application", "--path", "/usr/bin/zenity", "--args=--info", "--args=--text=confined-app")
	var found string
	for range 40 {
		r := h.Run("--session", "g1", "find-ui-element", "--text", "OK")
		if r.Code == 0 && strings.Contains(r.Stdout, "Button") {
			found = r.Stdout
			break
		}
		exec.Command("sleep", "0.25").Run()
	}
	if found == "" {
		t.Fatal("the confined GTK application's OK button never showed in its accessibility tree")
	}
	// The pid is the confinement's outer process (bwrap); the application runs below it.
	apps := 0
	for _, pid := range append(descendants(l.PID), l.PID) {
		if exe, _ := os.Readlink(fmt.Sprintf("/proc/%d/exe", pid)); strings.HasSuffix(exe, "/zenity") {
			apps++
			if ns := nsOf(t, pid); ns == nsOf(t, h.HostPID()) {
				t.Errorf("the launched application shares the host's namespaces %s", ns)
			}
		}
	}
	if apps == 0 {
		t.Fatalf("no zenity process at or below pid %d", l.PID)
	}
	var ok struct {
		Matches []struct {
			CenterX, CenterY int
		} `json:"matches"`
	}
	h.JSON(&ok, "--session", "g1", "find-ui-element", "--text", "OK")
	if len(ok.Matches) == 0 {
		t.Fatal("find-ui-element --json found no OK button")
	}
	h.MustRun("--session", "g1", "click", "--x", strconv.Itoa(ok.Matches[0].CenterX), "--y", strconv.Itoa(ok.Matches[0].CenterY))
	for range 40 {
		if !strings.Contains(h.MustRun("--session", "g1", "list-windows"), "zenity") {
			return
		}
		exec.Command("sleep", "0.25").Run()
	}
	t.Error("clicking OK did not close the confined application's window")
}

// An application launched in a session finds its settings directories in the session's home
// even where it looks them up as libqalculate does (qalculate-gtk): XDG_CONFIG_HOME, else the
// home its user's password entry gives, which for nobody, the user a root host's confined
// programs run as, is /nonexistent. qalculate-gtk launched so said "Couldn't write preferences
// to /nonexistent/.config/qalculate/qalculate-gtk.cfg" when it quit, and kept nothing.
func TestConfineLaunchedApplicationsSettingsLieInTheSessionsHome(t *testing.T) {
	t.Parallel()
	testenv.Require(t, "bwrap", "python3")
	h := e2e.New(t)
	home := h.FakeHome()
	pol := filepath.Join(t.TempDir(), "policy.json")
	os.WriteFile(pol, []byte(`{"launchApplications": ["/usr/bin/python3"], "launchArguments": "any"}`), 0o644)
	h.SetEnv("W365_POLICY", pol)
	h.MustRun("session", "start", "x1")
	const code = `import os, pwd
for var, rel in (("XDG_CONFIG_HOME", ".config"), ("XDG_DATA_HOME", ".local/share"), ("XDG_CACHE_HOME", ".cache"), ("XDG_STATE_HOME", ".local/state")):
    d = os.path.join(os.environ.get(var) or os.path.join(pwd.getpwuid(os.getuid()).pw_dir, rel), "probe-app")
    os.makedirs(d, exist_ok=True)
    open(os.path.join(d, "settings"), "w").write(var)
`
	h.MustRun("--session", "x1", "launch-application", "--path", "/usr/bin/python3", "--args=-c", "--args="+code)
	sessions, _ := filepath.Glob(filepath.Join(home, ".local/state/w365/sessions/x1-*/home"))
	if len(sessions) != 1 {
		t.Fatalf("the session's home: %v", sessions)
	}
	for _, rel := range []string{".config", ".local/share", ".cache", ".local/state"} {
		f := filepath.Join(sessions[0], rel, "probe-app", "settings")
		var err error
		for range 40 {
			if _, err = os.Stat(f); err == nil {
				break
			}
			exec.Command("sleep", "0.25").Run()
		}
		if err != nil {
			t.Errorf("the launched application kept no settings in the session's home: %v", err)
		}
	}
}

// confinedUID is the host user a session's confined programs run as: nobody on a root
// host, else the host's own user (docs/security.md#confinement).
func confinedUID() int {
	if os.Geteuid() == 0 {
		return 65534
	}
	return os.Geteuid()
}

// A file only root may read, in a directory a confined application is shown read-only,
// stays closed to the application on a root host, as to the shell (it runs as nobody);
// what it writes in a workspace root, new files and edits, is still the person's; a link
// it leaves in the desktop's private directory shows the file to none of the next. The
// staging directory of a program's mounts lasts as long as the program: the application's
// goes when it exits, the browser's and the desktop's when the session ends.
func TestConfineApplicationCannotReadRootOnlyFiles(t *testing.T) {
	t.Parallel()
	testenv.Require(t, "bwrap", "python3", "chromium")
	if os.Geteuid() != 0 {
		testenv.Missing(t, "a root host (the case is a root host's)")
	}
	canary, err := os.CreateTemp("/etc", "w365-canary-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Remove(canary.Name()) })
	canary.WriteString("root-only-canary")
	canary.Chmod(0o600)
	canary.Close()
	h := e2e.New(t)
	home := h.FakeHome()
	tmp, err := os.MkdirTemp("", "w365-tmpdir-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(tmp) })
	os.Chmod(tmp, 0o755)
	h.SetEnv("TMPDIR", tmp)
	stages := func() int { m, _ := filepath.Glob(filepath.Join(tmp, "w365-stage-*")); return len(m) }
	settles := func(want int) bool {
		for range 40 {
			if stages() == want {
				return true
			}
			exec.Command("sleep", "0.25").Run()
		}
		return false
	}
	ws := filepath.Join(home, "work")
	if err := os.MkdirAll(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(ws, "notes.txt"), []byte("one\n"), 0o644)
	pol := filepath.Join(t.TempDir(), "policy.json")
	b, _ := json.Marshal(map[string]any{"launchApplications": []string{"/usr/bin/python3"}, "launchArguments": "any", "workspaceRoots": []string{ws}})
	os.WriteFile(pol, b, 0o644)
	h.SetEnv("W365_POLICY", pol)
	h.MustRun("session", "start", "r1")
	desktop := stages()
	// The application opens the file as a file dialog would, edits a workspace file and
	// writes its findings next to it. The first one then tries to turn the desktop's sockets
	// it is shown (in the private directory) into links to the file, for the host's staging
	// to follow for the next one: the directory is read-only to it, and the next one opens
	// the file at its X socket's and session bus's paths, if at all, as itself, nobody.
	code := `import json, os, sys, traceback
canary, ws, step = sys.argv[1:4]
# A failure is the result, with its traceback.
sys.excepthook = lambda *a: open(os.path.join(ws, 'result-' + step + '.json'), 'w').write(json.dumps({'tb': ''.join(traceback.format_exception(*a))}))
bus = os.environ['DBUS_SESSION_BUS_ADDRESS'].split('path=')[1].split(',')[0]
x = '/tmp/.X11-unix/X' + os.environ['DISPLAY'].lstrip(':').split('.')[0]
out = {'uid': os.getuid()}
for name, p in (('canary', canary), ('bus', bus), ('x', x)):
    try:
        out[name] = open(p).read()
    except OSError as e:
        out[name] = type(e).__name__
if step == '1':
    with open(os.path.join(ws, 'notes.txt'), 'a') as f:
        f.write('two\n')
    out['linked'] = []
    for d, _, files in os.walk(os.path.dirname(os.environ['XAUTHORITY'])):
        for f in files:
            p = os.path.join(d, f)
            try:
                if not os.path.islink(p) and not os.path.isfile(p):
                    os.rename(p, p + '.moved')
                    os.symlink(canary, p)
                    out['linked'].append(p)
            except OSError:
                pass  # a socket that is a mount point here stays
else:
    for d, _, files in os.walk(os.path.dirname(os.environ['XAUTHORITY'])):
        for f in files:
            p = os.path.join(d, f)
            if f.endswith('.moved'):
                os.replace(p, p[:-len('.moved')])
json.dump(out, open(os.path.join(ws, 'result.tmp'), 'w'))
os.rename(os.path.join(ws, 'result.tmp'), os.path.join(ws, 'result-' + step + '.json'))
`
	launch := func(step string) map[string]any {
		h.MustRun("--session", "r1", "launch-application", "--path", "/usr/bin/python3", "--args=-c", "--args="+code,
			"--args="+canary.Name(), "--args="+ws, "--args="+step)
		var res map[string]any
		for range 80 {
			if b, err := os.ReadFile(filepath.Join(ws, "result-"+step+".json")); err == nil && json.Unmarshal(b, &res) == nil {
				return res
			}
			exec.Command("sleep", "0.25").Run()
		}
		t.Fatalf("the launched application (step %s) wrote no result", step)
		return nil
	}
	for _, step := range []string{"1", "2"} {
		res := launch(step)
		for _, k := range []string{"canary", "bus", "x"} {
			if res[k] == "root-only-canary" {
				t.Errorf("the launched application (step %s, uid %v inside) read the root-only %s at its %s path", step, res["uid"], canary.Name(), k)
			}
		}
		if res["canary"] != "PermissionError" {
			t.Errorf("the launched application (step %s) opening %s: %v, want PermissionError", step, canary.Name(), res)
		}
		// The desktop's directory is read-only to the application: it turns nothing there
		// into a link (TestConfineDesktopDirectoryIsReadOnlyToApplications).
		if linked, _ := res["linked"].([]any); len(linked) > 0 {
			t.Errorf("the first application turned %v of the desktop's directory into links", linked)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "notes.txt")); string(b) != "one\ntwo\n" {
		t.Errorf("the workspace file the application edited holds %q", b)
	}
	for _, f := range []string{"notes.txt", "result-1.json"} {
		st, err := os.Stat(filepath.Join(ws, f))
		if err != nil {
			t.Fatal(err)
		}
		if uid := st.Sys().(*syscall.Stat_t).Uid; uid != 0 {
			t.Errorf("%s is owned by uid %d after the application wrote it, not the person (0)", f, uid)
		}
	}
	if !settles(desktop) {
		t.Errorf("%d staging directories in %s after the application exited, want the desktop's %d", stages(), tmp, desktop)
	}
	h.MustRun("--session", "r1", "browser", "navigate", "about:blank")
	if n := stages(); n != desktop+1 {
		t.Errorf("%d staging directories while the browser runs, want %d", n, desktop+1)
	}
	h.MustRun("session", "end", "r1")
	if !settles(0) {
		t.Errorf("%d staging directories in %s after the session ended", stages(), tmp)
	}
}

// With TMPDIR private to root (mode 0700), the root host's sandbox still runs: its staging
// directory is made where the sandbox's user may enter.
func TestConfinePrivateTMPDIR(t *testing.T) {
	t.Parallel()
	testenv.Require(t, "bwrap", "python3")
	h := e2e.New(t)
	tmp := t.TempDir()
	os.Chmod(tmp, 0o700)
	h.SetEnv("TMPDIR", tmp)
	r := h.Run("--virtual", "execute-python-code", "--code", "print('ran')")
	if r.Code != 0 || !strings.Contains(r.Stdout, "ran") {
		t.Fatalf("python with TMPDIR 0700: %s %s", r.Stdout, r.Stderr)
	}
}

// nsOf names a process's user and mount namespaces.
func nsOf(t *testing.T, pid int) string {
	t.Helper()
	var out []string
	for _, n := range []string{"user", "mnt", "pid"} {
		l, err := os.Readlink(fmt.Sprintf("/proc/%d/ns/%s", pid, n))
		if err != nil {
			t.Fatalf("namespaces of %d: %v", pid, err)
		}
		out = append(out, l)
	}
	return strings.Join(out, " ")
}

// descendants lists the processes below pid.
func descendants(pid int) []int {
	parent := map[int]int{}
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		s := string(b)
		f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		if len(f) > 1 {
			parent[p], _ = strconv.Atoi(f[1])
		}
	}
	var out []int
	for p := range parent {
		for q := parent[p]; q > 1; q = parent[q] {
			if q == pid {
				out = append(out, p)
				break
			}
		}
	}
	return out
}

// An agent over MCP that names no session gets a confined virtual session of its own, not
// the person's display; the person attaches to it by id; the policy's agentActsAsYou
// gives the agent the person's display instead.
func TestConfineAgentGetsIsolatedDesktop(t *testing.T) {
	t.Parallel()
	testenv.Require(t, "Xvfb")
	display, _, _ := personDesktop(t)
	for _, actsAsYou := range []bool{false, true} {
		h := e2e.New(t)
		h.FakeHome()
		h.SetEnv("DISPLAY", ":"+strconv.Itoa(display))
		if actsAsYou {
			pol := filepath.Join(t.TempDir(), "policy.json")
			os.WriteFile(pol, []byte(`{"agentActsAsYou": true}`), 0o644)
			h.SetEnv("W365_POLICY", pol)
		}
		cs := h.MCP()
		e2e.Must(t, cs, "get_screen_size", nil)
		s := onlySession(t, cs)
		switch {
		case !actsAsYou && (s.SessionID != "default-agent" || !s.Virtual || s.Display == ":"+strconv.Itoa(display) || s.Confinement != "confined"):
			t.Errorf("the agent landed on %+v, want its own confined virtual session", s)
		case actsAsYou && (s.SessionID != "default" || s.Virtual || s.Confinement != "the agent acts as you"):
			t.Errorf("with agentActsAsYou the agent landed on %+v, want the person's display", s)
		}
		if !actsAsYou {
			// A second terminal attaches to the agent's session by id.
			if out := h.MustRun("--session", "default-agent", "get-screen-size"); !strings.Contains(out, "x") {
				t.Errorf("attaching to the agent's session: %q", out)
			}
		}
		cs.Close()
		h.StopHost()
	}
}

type listedSession struct {
	SessionID   string `json:"sessionId"`
	Display     string `json:"display"`
	Virtual     bool   `json:"virtual"`
	Confinement string `json:"confinement"`
	HostPID     int    `json:"hostPid"`
}

// onlySession is the one session cs lists, failing the test when it lists another number.
func onlySession(t *testing.T, cs *mcp.ClientSession) listedSession {
	t.Helper()
	var list struct {
		Sessions []listedSession `json:"sessions"`
	}
	e2e.Structured(t, e2e.Call(t, cs, "list_sessions", nil), &list)
	if len(list.Sessions) != 1 {
		t.Fatalf("the agent lists %+v, want its one session", list.Sessions)
	}
	return list.Sessions[0]
}

// personHarness is a harness with a fake HOME whose DISPLAY is a person's desktop of its
// own (personDesktop).
func personHarness(t *testing.T) *e2e.Harness {
	testenv.Require(t, "Xvfb")
	display, _, _ := personDesktop(t)
	h := e2e.New(t)
	h.FakeHome()
	h.SetEnv("DISPLAY", ":"+strconv.Itoa(display))
	return h
}

// An agent over stdio that names no session is confined to a virtual session of its own
// (docs/security.md#confinement); naming the person's session by its id must not hand it
// the person's desktop either (before agents were principals of their own, 5248d4c, it
// listed it with its live view's token, read it and ended it). The person has launched galculator on their own display
// through the CLI and serves HTTP (so sessions have live views). The agent asks for the
// session list, the details and the end of "default", and opens any live view of it it was
// given in its own browser (which shares the host's network). Judged by effect: the
// person's galculator still runs, and the agent's browser never showed the person's
// desktop.
func TestAgentReachesNothingOfThePersonsDesktop(t *testing.T) {
	t.Parallel()
	testenv.Require(t, "chromium", "galculator")
	h := personHarness(t)
	var launched struct {
		PID int `json:"pid"`
	}
	h.JSON(&launched, "launch-application", "galculator")
	calc := launched.PID
	if calc == 0 {
		t.Fatal("the person's galculator did not start")
	}
	t.Cleanup(func() { syscall.Kill(calc, syscall.SIGKILL) })
	serveHTTP(t, h, []string{"W365_API_KEY=person-key"})

	cs := h.MCP()
	var list struct {
		Sessions []struct {
			SessionID   string `json:"sessionId"`
			LiveViewURL string `json:"liveViewUrl"`
		} `json:"sessions"`
	}
	e2e.Structured(t, e2e.Call(t, cs, "list_sessions", nil), &list)
	var urls []string
	for _, s := range list.Sessions {
		if s.SessionID == "default" {
			t.Errorf("the agent lists the person's session: %+v", s)
		}
		if strings.Contains(s.LiveViewURL, "/live/default/") {
			urls = append(urls, s.LiveViewURL)
		}
	}
	var details struct {
		Display     string `json:"display"`
		LiveViewURL string `json:"liveViewUrl"`
	}
	if res := e2e.Call(t, cs, "mcp_W365ComputerUse_GetSessionDetails", map[string]any{"sessionId": "default"}); !res.IsError {
		e2e.Structured(t, res, &details)
		if details.Display == envOf(h.Env, "DISPLAY") {
			t.Errorf("the agent got the details of the person's session: %+v", details)
		}
		if strings.Contains(details.LiveViewURL, "/live/default/") {
			urls = append(urls, details.LiveViewURL)
		}
	}
	for _, u := range urls {
		var title struct {
			Title string `json:"title"`
		}
		_ = e2e.Call(t, cs, "browser_navigate", map[string]any{"url": u}) // may be refused: the title judges
		e2e.Structured(t, e2e.Call(t, cs, "browser_get_title", nil), &title)
		if strings.Contains(title.Title, "live: default") {
			t.Errorf("the agent's browser shows the person's desktop live (%s)", u)
		}
	}
	// The attacks may be refused; their effect on the person's galculator judges them.
	_ = e2e.Call(t, cs, "mcp_W365ComputerUse_EndSession", map[string]any{"sessionId": "default"})
	_ = e2e.Call(t, cs, "close_browser_session", map[string]any{"browserSessionId": "default"})
	time.Sleep(time.Second)
	if syscall.Kill(calc, 0) != nil {
		t.Error("the agent ended the person's session: their galculator is gone")
	}
	if _, err := os.Stat("/proc/" + strconv.Itoa(calc)); err != nil {
		t.Error("the person's galculator is gone")
	}
}

// envOf is the value of key in env ("" when unset).
func envOf(env []string, key string) string {
	for _, kv := range env {
		if k, v, ok := strings.Cut(kv, "="); ok && k == key {
			return v
		}
	}
	return ""
}

// Two agents connected at once each get a session of their own, whatever _meta their client
// sends (w365/full is the CLI's ask for whole results, not a way onto the person's display):
// neither lists nor reaches the other's nor the person's, the person reaches both, and an
// agent's sessions end when it disconnects.
func TestConfineAgentsAreApart(t *testing.T) {
	t.Parallel()
	h := personHarness(t)
	h.MustRun("session", "start", "mine") // a background host, and a session of the person's
	first, second := h.MCP(), h.MCP()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	for _, cs := range []*mcp.ClientSession{first, second} {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "get_screen_size", Meta: mcp.Meta{"w365/full": true}})
		if err != nil || res.IsError {
			t.Fatalf("get_screen_size: %v %s", err, e2e.Text(res))
		}
	}
	a, b := onlySession(t, first), onlySession(t, second)
	if a.SessionID != "default-agent" || b.SessionID != "default-agent-2" || !a.Virtual || !b.Virtual || a.Display == b.Display {
		t.Fatalf("two agents landed on %+v and %+v, want default-agent and default-agent-2 on displays of their own", a, b)
	}
	for _, id := range []string{"default-agent", "mine"} {
		res := e2e.Call(t, second, "get_screen_size", map[string]any{"sessionId": id})
		if !res.IsError || !strings.Contains(e2e.Text(res), "NOT_FOUND") {
			t.Errorf("the second agent naming %s: %s, want NOT_FOUND", id, e2e.Text(res))
		}
	}
	if out := h.MustRun("--session", "default-agent-2", "get-screen-size"); !strings.Contains(out, "x") {
		t.Errorf("the person attaching to the second agent's session: %q", out)
	}
	second.Close()
	var ids string
	for deadline := time.Now().Add(15 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if ids = h.MustRun("--jq", "[.sessions[].sessionId] | sort | join(\" \")", "session", "list"); ids == "default-agent mine\n" {
			break
		}
	}
	if ids != "default-agent mine\n" {
		t.Errorf("after the second agent disconnected the host runs %q, want default-agent and mine", ids)
	}
	// The next agent takes the free name, on a desktop of its own.
	third := h.MCP()
	e2e.Must(t, third, "get_screen_size", nil)
	if c := onlySession(t, third); c.SessionID != "default-agent-2" {
		t.Errorf("a third agent landed on %+v, want a new default-agent-2", c)
	}
}

// On the person's own display a launched application runs as the person, unconfined, yet
// what it starts ends with the session, or with the host, however it detached: a new
// session (setsid) and a double fork that orphaned it from the application, which exited
// at once.
func TestLaunchedOnYourDisplayEndsWithTheSession(t *testing.T) {
	t.Parallel()
	h := personHarness(t)
	launchAnyWith(t, h, "/usr/bin/python3")
	token := fmt.Sprintf("w365-detached-%d", time.Now().UnixNano())
	code := "import os, sys, time\nif os.fork(): sys.exit()\nos.setsid()\nif os.fork(): os._exit(0)\ntime.sleep(120)\n"
	h.MustRun("launch-application", "/usr/bin/python3", "--args=-c", "--args="+code, "--args="+token)
	detached := func() []int {
		var pids []int
		ents, _ := os.ReadDir("/proc")
		for _, e := range ents {
			exe, _ := os.Readlink("/proc/" + e.Name() + "/exe")
			if b, err := os.ReadFile("/proc/" + e.Name() + "/cmdline"); err == nil && strings.Contains(string(b), token) && strings.Contains(filepath.Base(exe), "python") {
				pid, _ := strconv.Atoi(e.Name())
				pids = append(pids, pid)
			}
		}
		return pids
	}
	waitFor := func(what string, ok func([]int) bool) {
		var pids []int
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
			if pids = detached(); ok(pids) {
				return
			}
		}
		t.Fatalf("%s: processes %v", what, pids)
	}
	waitFor("the detached process never ran", func(p []int) bool { return len(p) == 1 })
	h.MustRun("session", "end", "default")
	waitFor("the detached process outlived its session", func(p []int) bool { return len(p) == 0 })
	// The same when the host is killed.
	h.MustRun("launch-application", "/usr/bin/python3", "--args=-c", "--args="+code, "--args="+token)
	waitFor("the detached process never ran", func(p []int) bool { return len(p) == 1 })
	syscall.Kill(h.HostPID(), syscall.SIGKILL)
	waitFor("the detached process outlived its host", func(p []int) bool { return len(p) == 0 })
}

// The reference's save locations name the session's HOME and /tmp.
func TestConfineReferenceSaveLocations(t *testing.T) {
	t.Parallel()
	testenv.Require(t, "chromium")
	h := e2e.New(t)
	home := h.FakeHome()
	h.MustRun("session", "start", "p1")
	h.MustRun("--session", "p1", "browser", "navigate", "about:blank")
	state := filepath.Join(home, ".local/state/w365/sessions") + "/p1-"
	for path, want := range map[string]string{
		`%USERPROFILE%\Documents\a.pdf`: "/home/Documents/a.pdf",
		`%TEMP%\b.pdf`:                  "/tmp/b.pdf",
	} {
		var out struct {
			Path string `json:"path"`
		}
		h.JSON(&out, "--session", "p1", "browser", "pdf-save", path)
		if !strings.HasPrefix(out.Path, state) || !strings.HasSuffix(out.Path, want) {
			t.Errorf("%s saved to %s, want the session's %s", path, out.Path, want)
		}
		if b, err := os.ReadFile(out.Path); err != nil || !strings.HasPrefix(string(b), "%PDF") {
			t.Errorf("%s: %v", out.Path, err)
		}
	}
}

// A virtual desktop's own programs run confined as well (docs/security.md#confinement):
// seen from outside, the X server, the window manager and the session bus are not root on
// a root host (nobody) and the person elsewhere, each under no_new_privs and the seccomp
// filters, in user, mount, network and UTS namespaces that are not the host's; only the X
// server keeps the host's IPC namespace (MIT-SHM), and all the host's PID namespace. Nothing
// listens on the display's abstract address in the host's network namespace, so a client
// there reaches the X server only by its socket file. What the session bus activates (the
// accessibility bus's launcher, bus and registry; reparented, not the host's descendants)
// is in the bus's confinement.
func TestConfineDesktopPrograms(t *testing.T) {
	t.Parallel()
	h := e2e.New(t)
	h.MustRun("session", "start", "d1")
	display := h.Session("d1").Display
	if display == "" {
		t.Fatalf("no display for session d1 in %+v", h.Sessions())
	}
	host := h.HostPID()
	want := os.Getuid()
	if want == 0 {
		want = 65534
	}
	ns := func(pid int, n string) string {
		l, _ := os.Readlink(fmt.Sprintf("/proc/%d/ns/%s", pid, n))
		return l
	}
	found := map[string]bool{}
	busMnt, sessionPID := "", ""
	for _, pid := range descendants(host) {
		exe, _ := os.Readlink(fmt.Sprintf("/proc/%d/exe", pid))
		name := filepath.Base(exe)
		if name != "Xvfb" && name != "openbox" && name != "dbus-daemon" {
			continue
		}
		found[name] = true
		if name == "dbus-daemon" {
			busMnt = ns(pid, "mnt")
		}
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
		if err != nil {
			t.Fatal(err)
		}
		status := map[string]string{}
		for _, l := range strings.Split(string(b), "\n") {
			if k, v, ok := strings.Cut(l, ":"); ok {
				status[k] = strings.TrimSpace(v)
			}
		}
		if uid := strings.Fields(status["Uid"]); len(uid) != 4 || slices.ContainsFunc(uid, func(u string) bool { return u != strconv.Itoa(want) }) {
			t.Errorf("%s (pid %d) runs as uids %v, want %d", name, pid, uid, want)
		}
		if status["NoNewPrivs"] != "1" || status["Seccomp"] != "2" || status["CapEff"] != "0000000000000000" {
			t.Errorf("%s (pid %d): NoNewPrivs %s, Seccomp %s, CapEff %s", name, pid, status["NoNewPrivs"], status["Seccomp"], status["CapEff"])
		}
		for _, n := range []string{"user", "mnt", "net", "uts", "ipc", "pid"} {
			if ns(pid, n) == ns(host, n) {
				t.Errorf("%s (pid %d): %s namespace shared with the host", name, pid, n)
			}
		}
		// One PID namespace for the session's programs: the X server's and the buses'
		// record of a client's PID is a PID in it (docs/security.md#one-set-per-session).
		if sessionPID == "" {
			sessionPID = ns(pid, "pid")
		} else if ns(pid, "pid") != sessionPID {
			t.Errorf("%s (pid %d) is in PID namespace %s, another desktop program in %s", name, pid, ns(pid, "pid"), sessionPID)
		}
	}
	if len(found) != 3 {
		t.Fatalf("found %v among the host's descendants, want Xvfb, openbox and dbus-daemon", found)
	}
	// The accessibility bus started with the desktop (startAccessibility).
	activated := map[string]bool{}
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || ns(pid, "mnt") != busMnt {
			continue
		}
		exe, _ := os.Readlink(fmt.Sprintf("/proc/%d/exe", pid))
		activated[filepath.Base(exe)] = true
		var st syscall.Stat_t
		if err := syscall.Stat(fmt.Sprintf("/proc/%d", pid), &st); err != nil || int(st.Uid) != want {
			t.Errorf("%s (pid %d) in the session bus's confinement runs as uid %d, want %d", exe, pid, st.Uid, want)
		}
	}
	if !activated["at-spi-bus-launcher"] || !activated["at-spi2-registryd"] {
		t.Errorf("the accessibility bus is not in the session bus's confinement: %v", activated)
	}
	fd, err := syscall.Socket(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Close(fd)
	abstract := "@/tmp/.X11-unix/X" + strings.TrimPrefix(display, ":")
	if err := syscall.Connect(fd, &syscall.SockaddrUnix{Name: abstract}); err != syscall.ECONNREFUSED {
		t.Errorf("connect to %s in the host's network namespace: %v, want ECONNREFUSED", abstract, err)
	}
	var size struct{ Width, Height int }
	h.JSON(&size, "--session", "d1", "get-screen-size", "--json")
	if size.Width != 1920 {
		t.Errorf("screen size through the confined X server: %+v", size)
	}
}

// TestConfineCommandLinesShowNoHostPath: bubblewrap's options name the host's paths (the
// staging directory, the session's state directory, the desktop's private directory), and
// its PID 1 in a sandbox keeps its command line, which every program there reads. They reach
// it through a file (--args): a Python call reads every /proc/*/cmdline of its sandbox, and
// the session's desktop programs' bubblewraps (in the PID namespace a launched application
// shares) show none either. Before, /proc/1/cmdline listed every bind with its host path.
func TestConfineCommandLinesShowNoHostPath(t *testing.T) {
	t.Parallel()
	testenv.Require(t, "bwrap", "python3")
	h := e2e.New(t)
	h.MustRun("session", "start", "p1")
	state := ""
	for _, kv := range h.Env {
		if v, ok := strings.CutPrefix(kv, "XDG_STATE_HOME="); ok {
			state = v
		}
	}
	leaks := func(where, cmdline string) {
		for _, w := range []string{"--bind", "--ro-bind", "--tmpfs", "w365-stage", h.RuntimeDir, state} {
			if w != "" && strings.Contains(cmdline, w) {
				t.Errorf("%s: command line %q shows %q", where, cmdline, w)
				return
			}
		}
	}
	const code = `import json, os
out = {}
for p in os.listdir("/proc"):
    if p.isdigit():
        try: out[p] = open("/proc/%s/cmdline" % p, "rb").read().replace(b"\0", b" ").decode(errors="replace")
        except OSError: pass
print(json.dumps(out))`
	for _, session := range []string{"p1", "default"} {
		var res struct{ Stdout, Stderr string }
		h.JSON(&res, "--session", session, "execute-python-code", "--code", code, "--json")
		var cmdlines map[string]string
		if err := json.Unmarshal([]byte(res.Stdout), &cmdlines); err != nil || cmdlines["1"] == "" {
			t.Fatalf("session %s: %v: %q %q", session, err, res.Stdout, res.Stderr)
		}
		for pid, c := range cmdlines {
			leaks(fmt.Sprintf("session %s, pid %s inside", session, pid), c)
		}
	}
	n := 0
	for _, pid := range descendants(h.HostPID()) {
		if exe, _ := os.Readlink(fmt.Sprintf("/proc/%d/exe", pid)); filepath.Base(exe) != "bwrap" {
			continue
		}
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		if err != nil {
			continue
		}
		n++
		leaks(fmt.Sprintf("bubblewrap pid %d", pid), strings.ReplaceAll(string(b), "\x00", " "))
	}
	if n == 0 {
		t.Fatal("no bubblewrap among the host's descendants")
	}
}

// TestConfineSandboxGetsNoDescriptorTheHostInherited: the CLI that starts the host was
// handed a descriptor it does not know (a pipe at 23, as a shell, a terminal multiplexer or
// an MCP client may leak one), and a Python call of the host's session writes into every
// pipe and socket it holds. Before, the descriptor went on to the host and from it, through
// bubblewrap, into every sandbox: the call wrote into the starter's pipe. Every w365 process
// marks what it inherited close-on-exec first.
func TestConfineSandboxGetsNoDescriptorTheHostInherited(t *testing.T) {
	t.Parallel()
	testenv.Require(t, "bwrap", "python3")
	h := e2e.New(t)
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	const code = `import os
for f in os.listdir("/proc/self/fd"):
    try:
        if os.readlink("/proc/self/fd/" + f).startswith(("pipe:", "socket:")) and int(f) > 2:
            os.write(int(f), b"ESCAPED " + f.encode() + b"\n")
    except OSError:
        pass
print("done")`
	cmd := exec.Command(h.Bin, "execute-python-code", "--code", code)
	cmd.Env = h.Env
	cmd.ExtraFiles = append(make([]*os.File, 20), w)
	out, err := cmd.CombinedOutput()
	w.Close()
	if err != nil || !strings.Contains(string(out), "done") {
		t.Fatalf("python: %v %s", err, out)
	}
	// The host still holds its copy; what the call wrote is in the pipe already.
	r.SetReadDeadline(time.Now().Add(2 * time.Second))
	b := make([]byte, 256)
	if n, _ := r.Read(b); n > 0 {
		t.Fatalf("a sandboxed call wrote into a descriptor the host's starter held: %q", b[:n])
	}
}

// nonRootTests are the confinement tests TestConfineOnANonRootHost runs as another user, and
// those of serve --mcp starting its background host (docs/sessions.md, "The host").
var nonRootTests = []string{"TestSessionEndWalksNoDeepChain", "TestSessionsOwnRootSwappedForALinkLeadsNowhere", "TestConfineSessionFromInside", "TestConfineDesktopPrograms", "TestConfineLaunchedApplication", "TestConfineBrowserKeepsItsSandbox",
	"TestConfineLaunchedApplicationWritesTheFileItIsGiven", "TestBoundaryGitRunsNothingALaunchedApplicationWrote", "TestGuardKeepsNoHookOfAnotherVersionControlACallWrote",
	"TestConfineSessionBusActivatesNothingTheSessionWrote", "TestConfineSessionBusStartsNoServiceASessionAsksFor", "TestConfineSessionEndsWhatItsBusStarted", "TestConfineSessionLimits", "TestConfineSessionLimitsHoldTheXServer",
	"TestConfineDesktopDirectoryIsReadOnlyToApplications", "TestConfineWindowManagerStartsNothing", "TestBoundaryDotenvAndToolCredentialsAreHidden",
	"TestBrowserOffersNoSystemFileChooser", "TestAccessibilityBusAddressIsTheSessionsOwnSocket",
	"TestAccessibilityBusThatNeverAnswersHoldsNoCall", "TestBoundarySessionPlantsNoProgramOnPATH", "TestBrowserStartsNoApplicationForAURL",
	"TestMCPClientsOutliveTheFirst", "TestServeJoinsOnlyAHostWithItsSettings", "TestConfineCallForksInABusySession", "TestConfineFilesInMemoryAreBounded",
	"TestBoundaryVirtualSessionReachesNoPersonsFolderOutsideTheWorkspace", "TestBrowserRunCodeIsConfined",
	"TestBoundaryGitGuardReadsEveryEntryACallMade", "TestBrowserMessagesTheHostReadsAreBounded", "TestBrowserConsoleKeepsNoLongURL", "TestBrowserRunCodeClientThatDoesNotReadIsDropped",
	"TestAgentsAreApartOnAHeadlessHost", "TestConfineCommandLinesShowNoHostPath", "TestXtHostileResourceDatabaseIsBounded",
	"TestBoundaryLaunchRefusalTellsNothingOutsideTheRoots", "TestBoundaryCwdRefusalTellsNothingOutside",
	"TestConfineSandboxGetsNoDescriptorTheHostInherited", "TestBrowserRunCodeProxyConnectionsAreBounded",
	"TestClipboardRequestsTheHostAnswersAreBounded", "TestTraceShowOfAFIFOASessionPutInPlaceEnds", "TestGitGuardKeepsNoWorkTreeOutsideTheWorkspace",
	"TestBoundarySessionPlantsNothingAProgramOnPATHLoads", "TestBoundarySessionReplacesNoProgramOfTheHost",
	"TestBoundarySessionReplacesNoProgramALinkOnPATHLeadsTo", "TestBoundarySessionPlantsNoProgramInAPATHDirectoryYetToBe", "TestBoundarySessionReachesNoSnapApplicationsHome", "TestBrowserPDFSaveReplacesNoProgram",
	"TestBoundarySessionPlantsNothingALoadPathLoads", "TestHostRunsItselfAgainFromWhatItStartedFrom",
	"TestBoundarySessionPlantsNothingNodeFindsFromHome"}

// The confinement holds on a host that is not root too: on a root machine this test runs the
// confinement tests again, from a copy of this test binary, as uid 1000 with a HOME of its
// own (as another user, it runs them as that user). Each must pass there, not skip.
func TestConfineOnANonRootHost(t *testing.T) {
	t.Parallel()
	testenv.Require(t, "bwrap")
	dir, err := os.MkdirTemp("", "w365-nonroot-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	home := filepath.Join(dir, "home")
	copyExe := func(src, name string) string {
		b, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		dst := filepath.Join(dir, name)
		if err := os.WriteFile(dst, b, 0o755); err != nil {
			t.Fatal(err)
		}
		return dst
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// As many at a time as here (-parallel): the tests that may run beside others do.
	cmd := exec.Command(copyExe(self, "e2e.test"), "-test.count=1", "-test.v", "-test.timeout=20m",
		"-test.parallel="+flag.Lookup("test.parallel").Value.String(), "-test.run", "^("+strings.Join(nonRootTests, "|")+")$")
	cmd.Env = []string{"CI=true", "PATH=" + os.Getenv("PATH"), "HOME=" + home, "TMPDIR=/tmp", "LANG=C.UTF-8",
		"W365_TEST_BIN=" + copyExe(e2e.Binary(t), "w365")}
	if err := os.Mkdir(home, 0o700); err != nil {
		t.Fatal(err)
	}
	// browser_run_code's playwright-core, installed in this user's cache (the other user
	// has no network to fetch it with), or where W365_RUNCODE_DIR names it.
	runcode := os.Getenv("W365_RUNCODE_DIR")
	if cache, err := os.UserCacheDir(); runcode == "" && err == nil {
		if m, _ := filepath.Glob(filepath.Join(cache, "w365", "runcode-*", "node_modules", "playwright-core")); len(m) > 0 {
			runcode = filepath.Dir(filepath.Dir(m[0]))
		}
	}
	if runcode != "" {
		for _, c := range [][]string{{"cp", "-a", runcode, filepath.Join(dir, "runcode")}, {"chmod", "-R", "a+rX", filepath.Join(dir, "runcode")}} {
			if out, err := exec.Command(c[0], c[1:]...).CombinedOutput(); err != nil {
				t.Fatalf("%s: %v %s", c, err, out)
			}
		}
		cmd.Env = append(cmd.Env, "W365_RUNCODE_DIR="+filepath.Join(dir, "runcode"))
	}
	uid := os.Geteuid()
	if uid == 0 {
		uid = 1000
		if err := os.Chmod(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Chown(home, uid, uid); err != nil {
			t.Fatal(err)
		}
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(uid), Groups: []uint32{}}}
	}
	// Its own directory: the checkout may lie where the other user may not enter (a clone
	// in a private temporary directory, as CI makes), and these tests read nothing of it.
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	for _, name := range nonRootTests {
		if !strings.Contains(string(out), "--- PASS: "+name+" ") {
			t.Errorf("%s did not pass as uid %d", name, uid)
		}
	}
	if err != nil || t.Failed() {
		tail := string(out)
		if len(tail) > 8000 {
			tail = tail[len(tail)-8000:]
		}
		t.Fatalf("the confinement tests as another user: %v\n%s", err, tail)
	}
}
