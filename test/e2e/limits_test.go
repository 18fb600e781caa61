//go:build linux

package e2e_test

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/w365/w365/engine/policy"
	"github.com/w365/w365/engine/sandbox"
	"github.com/w365/w365/test/testenv"
)

// limitsApp is what the compromised application of TestConfineSessionLimits runs: its
// arguments are the mode, the most processes to fork, the most MiB to hold, then the
// token's two words. "fork" forks (children that wait) until a fork fails or the most are
// made, writes "N ERRNO" to /tmp/forked, waits for /tmp/go-on and kills its children;
// "detach-fork" does that from a grandchild that left the session (setsid, double fork);
// "detach-mem" has such a grandchild allocate and touch memory 64 MiB at a time, writing
// how many MiB it holds to /tmp/held ("done" once it holds the most). In the detached
// modes the launched process itself waits for /tmp/go-on: its exit would end the PID
// namespace of its confinement, and the grandchild with it.
const limitsApp = `import os, signal, sys, time
mode, FORK_CAP, MEM_CAP = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
def wait_go_on():
    end = time.time() + 90
    while not os.path.exists('/tmp/go-on') and time.time() < end:
        time.sleep(0.1)
if mode.startswith('detach'):
    if os.fork():
        wait_go_on()
        os._exit(0)
    os.setsid()
    if os.fork():
        os._exit(0)
if mode.endswith('fork'):
    kids, err = [], None
    try:
        while len(kids) < FORK_CAP:
            pid = os.fork()
            if pid == 0:
                time.sleep(120)
                os._exit(0)
            kids.append(pid)
    except OSError as e:
        err = e.errno
    open('/tmp/forked.part', 'w').write('%d %s' % (len(kids), err))
    os.rename('/tmp/forked.part', '/tmp/forked')
    wait_go_on()
    for k in kids:
        os.kill(k, signal.SIGKILL)
    for k in kids:
        os.waitpid(k, 0)
else:
    held = []
    while len(held) * 64 < MEM_CAP:
        held.append(b'\x01' * (64 << 20))
        open('/tmp/held', 'w').write(str(len(held) * 64))
    open('/tmp/held', 'w').write('done')
`

// A compromised application of a virtual session (python3, added by the policy) forks
// past the session's process limit, directly and from a grandchild that left the session
// (setsid, double fork), and allocates past its memory limit from such a grandchild: the
// forks fail at the limit (EAGAIN) while the host and the session still answer, and the
// allocation is killed. The binary before ran launched applications in no cgroup of
// w365's: 1,500 forks succeeded and 5 GiB were held. Where no cgroup is writable (as
// uid 1000 here: TestConfineOnANonRootHost) the forks still stop at the limit
// (RLIMIT_NPROC); the memory is not limited there.
func TestConfineSessionLimits(t *testing.T) {
	// Not parallel (docs/development.md#tests): it forks to the session's task limit and holds GiBs.
	testenv.Require(t, "bwrap", "python3")
	forkCap, memCap := 1500, sandbox.SessionMemoryBytes>>20+1024
	h, home, stamp, _ := compromisedApplication(t, "w365-limits-")
	// What the application and all it forks hold in their command lines: its two words.
	running := "w365-limits-\x00" + stamp
	killWith(t, running)
	h.MustRun("session", "start", "lim1")
	var d struct {
		Confinement string
		HostPID     int
	}
	h.JSON(&d, "session", "details", "lim1")
	// Without a writable cgroup (a host that is not root, here), the session's programs are
	// limited by their task count (RLIMIT_NPROC) only, and an application's memory not at all.
	cgroup := !strings.Contains(d.Confinement, "limits: none together:")
	if !strings.Contains(d.Confinement, "limits: pids.max=") && !strings.Contains(d.Confinement, "(RLIMIT_NPROC)") {
		t.Errorf("the session's details name no process limit: %q", d.Confinement)
	}
	t.Logf("session details: confinement %s", d.Confinement)
	launch := func(mode string) {
		h.MustRun("--session", "lim1", "launch-application", "--path", "/usr/bin/python3", "--args=-c", "--args="+limitsApp,
			"--args="+mode, "--args="+strconv.Itoa(forkCap), "--args="+strconv.Itoa(memCap), "--args=w365-limits-", "--args="+stamp)
	}
	tmp := func(name string) string { return filepath.Join(sessionDir(t, home, "lim1"), "tmp", name) }
	goOn := func() {
		if err := os.WriteFile(tmp("go-on"), nil, 0o644); err != nil {
			t.Fatal(err)
		}
		gone(t, running)
		os.Remove(tmp("go-on"))
	}
	for _, mode := range []string{"fork", "detach-fork"} {
		launch(mode)
		b := sessionFile(home, "lim1", "tmp/forked")
		if b == nil {
			t.Fatalf("%s: the application never said how many processes it forked", mode)
		}
		os.Remove(tmp("forked"))
		n, errno, _ := strings.Cut(string(b), " ")
		if forked, _ := strconv.Atoi(n); forked >= sandbox.SessionMaxProcesses || errno != "11" {
			t.Errorf("%s: the application forked %s processes (fork's errno %s), past the session's limit of %d tasks",
				mode, n, errno, sandbox.SessionMaxProcesses)
		}
		t.Logf("%s: forked %s, then errno %s", mode, n, errno)
		// At the limit, the host and the session still answer.
		h.MustRun("--session", "lim1", "list-windows")
		h.MustRun("--session", "lim1", "screenshot", "-o", filepath.Join(t.TempDir(), "s.png"))
		goOn()
	}
	if !cgroup {
		h.MustRun("session", "end", "lim1")
		return
	}
	launch("detach-mem")
	// The allocation ends when it is done or killed: what it holds stops changing.
	var held []byte
	for last, still, tries := "", 0, 0; still < 20; tries++ {
		if tries == 480 {
			t.Fatalf("the detached application held %q MiB after 2 minutes", held)
		}
		time.Sleep(250 * time.Millisecond)
		held, _ = os.ReadFile(tmp("held"))
		if string(held) == "done" {
			break
		}
		if string(held) == last && last != "" {
			still++
		} else {
			still, last = 0, string(held)
		}
	}
	if mb, err := strconv.Atoi(string(held)); err != nil || mb > int(sandbox.SessionMemoryBytes>>20) {
		t.Errorf("the detached application held %s MiB, past the session's limit of %d MiB", held, sandbox.SessionMemoryBytes>>20)
	}
	t.Logf("detach-mem: held %s MiB when it stopped", held)
	goOn()
	h.MustRun("--session", "lim1", "list-windows")
	h.MustRun("session", "end", "lim1")
	// The session's cgroup is gone with it (the host ran no other program in a cgroup).
	for _, glob := range []string{"/sys/fs/cgroup/*/w365/run-%d-*", "/sys/fs/cgroup/w365/run-%d-*"} {
		if m, _ := filepath.Glob(fmt.Sprintf(glob, d.HostPID)); len(m) > 0 {
			t.Errorf("the session's cgroup is left after its end: %v", m)
		}
	}
}

// gone waits (up to 60 s) until no process's command line holds token.
func gone(t *testing.T, token string) {
	t.Helper()
	for range 240 {
		if len(processesWith(token)) == 0 {
			return
		}
		time.Sleep(250 * time.Millisecond)
	}
	t.Fatalf("the application's processes still run a minute later: %v", processesWith(token))
}

// xClientApp begins the Python of a compromised X client of a session: it speaks the X
// protocol on the session's display itself (X authority from XAUTHORITY), with s its
// connection, setup the server's answer (setup[0] is 1 when it took the client), recv(n) n
// bytes of it, pad(b) b padded to 4 bytes, root and depth the screen's root window and
// depth, base the first resource ID the client may name.
const xClientApp = `import os, socket, struct, sys, time
auth, i, cookie = open(os.environ['XAUTHORITY'], 'rb').read(), 0, b''
while i < len(auth) and not cookie:
    fields, i = [], i + 2
    for _ in range(4):
        n = struct.unpack('>H', auth[i:i + 2])[0]
        fields.append(auth[i + 2:i + 2 + n])
        i += 2 + n
    if fields[2] == b'MIT-MAGIC-COOKIE-1':
        cookie = fields[3]
name = b'MIT-MAGIC-COOKIE-1'
s = socket.socket(socket.AF_UNIX)
s.connect('/tmp/.X11-unix/X' + os.environ['DISPLAY'].lstrip(':').split('.')[0])
pad = lambda b: b + b'\0' * (-len(b) % 4)
s.sendall(struct.pack('<BxHHHHxx', 0x6c, 11, 0, len(name), len(cookie)) + pad(name) + pad(cookie))
def recv(n):
    b = b''
    while len(b) < n:
        c = s.recv(n - len(b))
        if not c:
            raise EOFError
        b += c
    return b
head = recv(8)
setup = head + recv(struct.unpack('<H', head[6:8])[0] * 4)
base, root, depth = 0, 0, 0
if setup[0] == 1:
    base, vlen, formats = struct.unpack('<I', setup[12:16])[0], struct.unpack('<H', setup[24:26])[0], setup[29]
    scr = 40 + vlen + (-vlen % 4) + 8 * formats
    root, depth = struct.unpack('<I', setup[scr:scr + 4])[0], setup[scr + 38]
`

// pixmapsApp is what the X client of TestConfineSessionLimitsHoldTheXServer runs: it
// speaks the X protocol on the session's display itself (X authority from XAUTHORITY) and
// has the X server create and fill 8192x8192 pixmaps of the root's depth (256 MiB each,
// 32 bits a pixel) until the server refuses one (an X error), goes away, or holds the most
// MiB (its first argument), writing "MIB WHY" to /tmp/pixmaps; then it waits for
// /tmp/go-on, keeping its pixmaps (the server frees them when it disconnects).
const pixmapsApp = xClientApp + `CAP = int(sys.argv[1])
def say(s):
    open('/tmp/pixmaps.part', 'w').write(s)
    os.rename('/tmp/pixmaps.part', '/tmp/pixmaps')
if setup[0] != 1:
    say('0 refused')
    sys.exit()
gc, W, held, why = base, 8192, 0, 'cap'
s.sendall(struct.pack('<BBHIIII', 55, 0, 5, gc, root, 4, 0xffffff))
while held < CAP:
    pm = base + 1 + held // 256
    s.sendall(struct.pack('<BBHIIHH', 53, depth, 4, pm, root, W, W) + struct.pack('<BBHIIhhHH', 70, 0, 5, pm, gc, 0, 0, W, W) +
              struct.pack('<BBH', 43, 0, 1))
    err = None
    try:
        while True:
            r = recv(32)
            if r[0] == 1:
                recv(struct.unpack('<I', r[4:8])[0] * 4)
                break
            if r[0] == 0 and err is None:
                err = r[1]
    except (EOFError, OSError):
        why = 'gone'
        break
    if err is not None:
        why = 'error %d' % err
        break
    held += 256
    say('%d on' % held)
say('%d %s' % (held, why))
end = time.time() + 90
while not os.path.exists('/tmp/go-on') and time.time() < end:
    time.sleep(0.1)
`

// An X client of a virtual session (python3, added by the policy) has the session's X
// server allocate pixmaps past the session's memory limit: the X server holds what its
// clients ask it to, so it is the session's memory too. It runs in the session's cgroup
// (below it, with the application), and the allocation stops within the session's limit:
// the kernel kills the X server there (the session then expires), or, where no cgroup is
// writable (as uid 1000 here: TestConfineOnANonRootHost), the X server refuses the pixmap
// (BadAlloc, its address space limited). The binary before ran the desktop's programs in
// no cgroup of w365's: the X server held 5 GiB for the session.
func TestConfineSessionLimitsHoldTheXServer(t *testing.T) {
	// Not parallel (docs/development.md#tests): its X server grows to the session's memory limit.
	testenv.Require(t, "bwrap", "python3", "Xvfb")
	budget := int(sandbox.SessionMemoryBytes >> 20)
	h, home, stamp, _ := compromisedApplication(t, "w365-pixmaps-")
	running := "w365-pixmaps-\x00" + stamp
	killWith(t, running)
	h.MustRun("session", "start", "pix1")
	var d struct{ Confinement string }
	h.JSON(&d, "session", "details", "pix1")
	cgroup := !strings.Contains(d.Confinement, "limits: none together:")
	t.Logf("session details: confinement %s", d.Confinement)
	xvfb := 0
	for _, pid := range descendants(h.HostPID()) {
		if exe, _ := os.Readlink(fmt.Sprintf("/proc/%d/exe", pid)); filepath.Base(exe) == "Xvfb" {
			xvfb = pid
		}
	}
	if xvfb == 0 {
		t.Fatal("the session's X server is not among the host's descendants")
	}
	xCgroup, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cgroup", xvfb))
	// The most anonymous memory the X server was seen to hold (what its clients had it
	// allocate, all charged to its cgroup; its resident peak also counts the shared
	// libraries it maps), read every 20 ms while it lived.
	peak, stop, stopped := 0, make(chan struct{}), make(chan struct{})
	go func() {
		defer close(stopped)
		for {
			b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", xvfb))
			for _, l := range strings.Split(string(b), "\n") {
				if v, ok := strings.CutPrefix(l, "RssAnon:"); ok {
					kb, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(v), " kB"))
					peak = max(peak, kb>>10)
				}
			}
			select {
			case <-stop:
				return
			case <-time.After(20 * time.Millisecond):
				if err != nil {
					return
				}
			}
		}
	}()
	h.MustRun("--session", "pix1", "launch-application", "--path", "/usr/bin/python3", "--args=-c", "--args="+pixmapsApp,
		"--args="+strconv.Itoa(budget+1024), "--args=w365-pixmaps-", "--args="+stamp)
	var said string
	for tries := 0; ; tries++ {
		if tries == 1200 {
			t.Fatalf("the X client said %q after 2 minutes", said)
		}
		b, _ := os.ReadFile(filepath.Join(sessionDir(t, home, "pix1"), "tmp", "pixmaps"))
		if said = string(b); said != "" && !strings.HasSuffix(said, " on") {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	close(stop)
	<-stopped
	t.Logf("the X client: %s MiB, the X server's most: %d MiB", said, peak)
	held, why, _ := strings.Cut(said, " ")
	if mb, _ := strconv.Atoi(held); mb > budget || why == "cap" {
		t.Errorf("the session's X server held %s MiB of pixmaps for an X client of the session (%s), past the session's limit of %d MiB", held, why, budget)
	}
	if peak > budget {
		t.Errorf("the session's X server held %d MiB for an X client of the session, past the session's limit of %d MiB", peak, budget)
	}
	app := processesWith(running)
	if cgroup {
		// The X server's and the application's cgroup are below one cgroup of the session.
		session := regexp.MustCompile(`/w365/run-\d+-\d+/`)
		appCgroup := []byte{}
		if len(app) > 0 {
			appCgroup, _ = os.ReadFile(fmt.Sprintf("/proc/%d/cgroup", app[0]))
		}
		if x, a := session.Find(xCgroup), session.Find(appCgroup); x == nil || string(x) != string(a) {
			t.Errorf("the X server is in cgroups %q, the X client in %q: not one cgroup of the session", xCgroup, appCgroup)
		}
	}
	if err := os.WriteFile(filepath.Join(sessionDir(t, home, "pix1"), "tmp", "go-on"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	h.Run("session", "end", "pix1")
	gone(t, running)
	for _, glob := range []string{"/sys/fs/cgroup/*/w365/run-%d-*", "/sys/fs/cgroup/w365/run-%d-*"} {
		if m, _ := filepath.Glob(fmt.Sprintf(glob, h.HostPID())); len(m) > 0 {
			t.Errorf("the session's cgroup is left after its end: %v", m)
		}
	}
}

// sessionDir is the state directory of session id under home.
func sessionDir(t *testing.T, home, id string) string {
	t.Helper()
	m, _ := filepath.Glob(filepath.Join(home, ".local", "state", "w365", "sessions", id+"-*"))
	if len(m) == 0 {
		t.Fatalf("session %s has no state directory", id)
	}
	return m[0]
}

// busyApp starts as many threads as its first argument says, each sleeping, writes
// /tmp/threads once they run and sleeps on: a busy application (a browser runs hundreds).
const busyApp = `import sys, threading, time
for _ in range(int(sys.argv[1])):
    threading.Thread(target=time.sleep, args=(300,), daemon=True).start()
open('/tmp/threads', 'w').write(sys.argv[1])
time.sleep(300)
`

// A shell or Python call of a session that runs many tasks (an application with 700
// threads) forks as any call does, and stops at its own process limit. Where no cgroup is
// writable (as uid 1000 here: TestConfineOnANonRootHost) the limit is RLIMIT_NPROC, which
// the kernel also holds every user namespace above the call's to, with the limit that
// namespace was made with: set before bubblewrap made the call's, it held the whole
// session's tasks to the call's limit, and the binary before failed every call of such a
// session ("nsenter: fork failed: Resource temporarily unavailable").
func TestConfineCallForksInABusySession(t *testing.T) {
	// Not parallel (docs/development.md#tests): it forks to the call's task limit beside 700 threads.
	testenv.Require(t, "bwrap", "python3")
	h, home, stamp, token := compromisedApplication(t, "w365-busy-")
	h.MustRun("session", "start", "busy1")
	h.MustRun("--session", "busy1", "launch-application", "--path", "/usr/bin/python3", "--args=-c", "--args="+busyApp,
		"--args=700", "--args="+token, "--args="+stamp)
	if sessionFile(home, "busy1", "tmp/threads") == nil {
		t.Fatal("the busy application never started its threads")
	}
	code := `import os, time
n = 0
try:
    while n < 2000:
        if os.fork() == 0:
            time.sleep(30)
            os._exit(0)
        n += 1
except OSError as e:
    print('forked', n, 'errno', e.errno)
`
	r := h.Run("--session", "busy1", "execute-python-code", "--code", code, "--timeout-ms", "60000")
	m := regexp.MustCompile(`forked (\d+) errno 11`).FindStringSubmatch(r.Stdout)
	if r.Code != 0 || m == nil {
		t.Fatalf("the call (exit %d) did not fork up to a limit: %s %s", r.Code, r.Stdout, r.Stderr)
	}
	if n, _ := strconv.Atoi(m[1]); n < sandbox.MaxProcesses/2 || n >= sandbox.MaxProcesses {
		t.Errorf("the call forked %d processes beside the session's 700 threads, want at least %d and fewer than its limit %d",
			n, sandbox.MaxProcesses/2, sandbox.MaxProcesses)
	}
	t.Logf("the call forked %s, then errno 11", m[1])
	h.MustRun("session", "end", "busy1")
}

// ramFill writes 16 MiB at a time into a new file under each directory it is given (its
// arguments name=dir=MiB) until a write fails or the directory holds its cap, and prints "name MiB errno" for
// each (errno 0: the cap was reached), then whether /dev takes a file.
const ramFill = `import errno, os, sys
out = []
for arg in [a for a in sys.argv[1:] if a.count('=') == 2]:
    name, d, cap = arg.split('=')
    held, err = 0, 0
    try:
        with open(os.path.join(d, 'w365-fill'), 'wb', buffering=0) as f:
            while held < int(cap) << 20:
                held += f.write(b'x' * (16 << 20))
    except OSError as e:
        err = e.errno
    try:
        os.unlink(os.path.join(d, 'w365-fill'))
    except OSError:
        pass
    out.append('%s %d %d' % (name, held >> 20, err))
try:
    open('/dev/w365-fill', 'w').close()
    out.append('dev writable')
except OSError as e:
    out.append('dev %d' % e.errno)
print('\n'.join(out))
if os.environ.get('W365_FILL_OUT'):
    open(os.environ['W365_FILL_OUT'], 'w').write('\n'.join(out))
`

// The file systems in memory that a confined program is given (/dev/shm, the empty
// directories over the homes and the host's runtime directories, /dev itself) hold no more
// than their sizes: their files count in no process's limit, so where no cgroup is writable
// (as uid 1000 here: TestConfineOnANonRootHost) the binary before let a Python call or an
// application fill the host's memory through them (half of it per tmpfs, each), and as root
// the call's cgroup killed the call instead of the write failing.
func TestConfineFilesInMemoryAreBounded(t *testing.T) {
	// Not parallel (docs/development.md#tests): it fills every file system in memory it is given.
	testenv.Require(t, "bwrap", "python3")
	h, home, stamp, token := compromisedApplication(t, "w365-ramfill-")
	h.MustRun("session", "start", "ram1")
	check := func(who, out string, shm int) {
		t.Helper()
		got := map[string][2]int{}
		for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
			var name string
			var mib, errno int
			if n, _ := fmt.Sscanf(line, "%s %d %d", &name, &mib, &errno); n == 3 {
				got[name] = [2]int{mib, errno}
			}
		}
		want := map[string]int{"shm": shm, "home": sandbox.MaskBytes >> 20, "runuser": sandbox.MaskBytes >> 20}
		for name, most := range want {
			g, ok := got[name]
			switch {
			case !ok:
				t.Errorf("%s: no figure for %s in %q", who, name, out)
			case g[1] != 28: // ENOSPC
				t.Errorf("%s: %s took %d MiB and ended with errno %d, want ENOSPC at its size (%d MiB)", who, name, g[0], g[1], most)
			case g[0] > most:
				t.Errorf("%s: %s held %d MiB, more than its %d MiB", who, name, g[0], most)
			}
		}
		if !strings.Contains(out, "dev 30") { // EROFS
			t.Errorf("%s: a file could be made in /dev: %q", who, out)
		}
	}
	args := func(shm int) []string {
		return []string{"shm=/dev/shm=" + strconv.Itoa(shm+64), "home=/home=64", "runuser=/run/user=64"}
	}
	callShm := policy.Default().PythonMemoryBytes / 2 >> 20
	code := ramFill
	argv := "import sys\nsys.argv = ['fill'"
	for _, a := range args(callShm) {
		argv += fmt.Sprintf(", %q", a)
	}
	r := h.Run("--session", "ram1", "execute-python-code", "--timeout-ms", "60000", "--code", argv+"]\n"+code)
	if r.Code != 0 {
		t.Fatalf("the call (exit %d): %s %s", r.Code, r.Stdout, r.Stderr)
	}
	check("a Python call", r.Stdout, callShm)

	appShm := int(sandbox.ProgramTmpBytes >> 20)
	launch := []string{"--session", "ram1", "launch-application", "--path", "/usr/bin/python3", "--args=-c",
		"--args=import os\nos.environ['W365_FILL_OUT'] = '/tmp/filled'\n" + code}
	for _, a := range args(appShm) {
		launch = append(launch, "--args="+a)
	}
	h.MustRun(append(launch, "--args="+token, "--args="+stamp)...)
	out := sessionFile(home, "ram1", "tmp/filled")
	if out == nil {
		t.Fatal("the application never wrote what it held")
	}
	check("an application", string(out), appShm)
	h.MustRun("session", "end", "ram1")
}
