//go:build linux

package e2e_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

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
	// Without a writable cgroup (a host that is not root, here), each program is limited
	// by its task count (RLIMIT_NPROC) only, and its memory not at all.
	cgroup := !strings.Contains(d.Confinement, "limits: none together:")
	if !strings.Contains(d.Confinement, "limits: pids.max=") && !strings.Contains(d.Confinement, "(RLIMIT_NPROC)") {
		t.Errorf("the session's details name no process limit: %q", d.Confinement)
	}
	t.Logf("session details: confinement %s", d.Confinement)
	launch := func(mode string) {
		h.MustRun("--session", "lim1", "launch-application", "--path", "/usr/bin/python3", "--args=-c", "--args="+limitsApp,
			"--args="+mode, "--args="+strconv.Itoa(forkCap), "--args="+strconv.Itoa(memCap), "--args=w365-limits-", "--args="+stamp)
	}
	tmp := func(name string) string {
		m, _ := filepath.Glob(filepath.Join(home, ".local", "state", "w365", "sessions", "lim1-*", "tmp"))
		if len(m) == 0 {
			t.Fatal("the session has no state directory")
		}
		return filepath.Join(m[0], name)
	}
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
