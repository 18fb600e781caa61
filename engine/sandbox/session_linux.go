//go:build linux

package sandbox

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/sys/unix"

	"github.com/w365/w365/engine/werr"
)

// Namespaces are the user, PID and IPC namespaces of one virtual session
// (docs/security.md#one-set-per-session). A holder process of their own keeps them: pid 1
// of the session's PID namespace is its bubblewrap. Every program of the session (the
// desktop's own, its applications and browser, its shell and Python calls) enters them
// (nsenter, run by the sandbox helper after it confined itself) before bubblewrap makes the
// program's own namespaces below them, so the session's processes see, signal and trace
// nothing outside them; and when the holder ends, the kernel ends every process in them,
// whatever started it (a service the session bus activated included). They own the
// session's cgroup too (newSessionCgroup), which every such program that runs on joins.
type Namespaces struct {
	dir    string     // the desktop's private directory it is registered under
	cg     *runCgroup // the session's (nil when no cgroup is writable)
	inDesk *runCgroup // below cg: the desktop's programs and the holder
	hold   *exec.Cmd
	stdin  io.WriteCloser
	done   chan struct{}
	pid    int    // host PID of the holder's pid 1
	pidIno uint64 // inode of the session's PID namespace

	mu      sync.Mutex
	known   map[int]int // session PID -> host PID, checked again on each use
	scanned time.Time   // when known was last filled from /proc
}

// sessions are the running Namespaces by the canonical path of their desktop's private directory.
var sessions sync.Map

// utilLinux is where util-linux's program name is ("" when it is not installed).
func utilLinux(name string) string {
	for _, d := range []string{"/usr/bin", "/bin", "/usr/sbin"} {
		p := filepath.Join(d, name)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0 {
			return p
		}
	}
	return ""
}

// StartNamespaces starts the namespaces of the virtual session whose desktop's private
// directory is dir, and registers them there: every program confined with that directory
// in its environment (the X authority's directory) or as its desktop directory enters them.
func StartNamespaces(dir string) (*Namespaces, error) {
	bw := Bwrap()
	if why := Problem(bw, false); why != "" {
		return nil, unconfinable("the session, so its desktop is not started", why)
	}
	cat, err := exec.LookPath("cat")
	if err != nil {
		return nil, werr.Wrap(err, werr.Unavailable, "cannot start the session's namespaces")
	}
	infoR, infoW, err := os.Pipe()
	if err != nil {
		return nil, werr.Wrap(err, werr.Internal, "cannot create pipe")
	}
	defer infoR.Close()
	// The holder runs cat on a pipe the host keeps: it ends when the host closes the pipe
	// or dies. It is shown the read-only system only and has no network.
	cmd := exec.Command(cat)
	cmd.ExtraFiles = []*os.File{infoW}
	in, err := cmd.StdinPipe()
	if err != nil {
		infoW.Close()
		return nil, werr.Wrap(err, werr.Internal, "cannot create pipe")
	}
	// The session's cgroup, made before anything of the session runs; the holder is in
	// the desktop's below it.
	cg := newSessionCgroup()
	inDesk := cg.child("desktop")
	// The host's user (on a root host SandboxUID) is root in the session's user namespace:
	// what enters it keeps the capabilities there across exec (enterSpec.command).
	a := []string{bw, "--new-session", "--die-with-parent", "--unshare-user", "--uid", "0", "--gid", "0", "--unshare-pid", "--unshare-ipc", "--unshare-uts",
		"--unshare-net", "--unshare-cgroup-try", "--info-fd", "3", "--ro-bind", "/", "/", "--proc", "/proc",
		"--size", strconv.Itoa(MaskBytes), "--tmpfs", "/tmp", "--chdir", "/", "--cap-drop", "ALL", "--", cat}
	release, err := startHelper(cmd, helperConfig{Argv: a, Env: []string{"PATH=/usr/bin:/bin"}, Drop: os.Geteuid() == 0,
		CgroupProcs: inDesk.procsFiles()})
	if err != nil {
		infoW.Close()
		in.Close()
		cg.destroy()
		return nil, err
	}
	err = cmd.Start()
	release()
	infoW.Close()
	if err != nil {
		in.Close()
		cg.destroy()
		return nil, werr.Wrap(err, werr.Unavailable, "cannot start the session's namespaces")
	}
	n := &Namespaces{dir: canonical(dir), cg: cg, inDesk: inDesk, hold: cmd, stdin: in, done: make(chan struct{}), known: map[int]int{}}
	go func() { cmd.Wait(); close(n.done) }()
	fail := func(format string, args ...any) (*Namespaces, error) {
		n.Close()
		return nil, werr.New(werr.Unavailable, "cannot start the session's namespaces: "+format, args...).
			WithRetryable(false).WithDetail("rule", "sandbox-unavailable")
	}
	deadline := time.Now().Add(10 * time.Second)
	infoR.SetReadDeadline(deadline)
	var info struct {
		ChildPID int `json:"child-pid"`
	}
	if err := json.NewDecoder(infoR).Decode(&info); err != nil || info.ChildPID <= 0 {
		return fail("bubblewrap did not say its child (%v)", err)
	}
	n.pid = info.ChildPID
	// bubblewrap says its child's PID before the child has mapped the user namespace (an
	// unprivileged bubblewrap maps it from the child, once told to go on): a program that
	// joined it before then would be nobody there and lose its capabilities at exec.
	for _, m := range []string{"uid_map", "gid_map"} {
		for {
			if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/%s", n.pid, m)); err == nil && len(b) > 0 {
				break
			}
			select {
			case <-n.done:
				return fail("bubblewrap ended before it mapped the user namespace")
			case <-time.After(time.Millisecond):
			}
			if time.Now().After(deadline) {
				return fail("bubblewrap did not map the user namespace within 10s")
			}
		}
	}
	var st unix.Stat_t
	if err := unix.Stat(fmt.Sprintf("/proc/%d/ns/pid", n.pid), &st); err != nil {
		return fail("%v", err)
	}
	n.pidIno = st.Ino
	if _, loaded := sessions.LoadOrStore(n.dir, n); loaded {
		return fail("%s already has namespaces", dir)
	}
	return n, nil
}

// Close ends the session's namespaces: the holder, and with it every process still in them;
// then it removes the session's cgroup, killing what is left in it. Call it once the
// desktop's programs have stopped, in their order.
func (n *Namespaces) Close() {
	sessions.CompareAndDelete(n.dir, n)
	n.stdin.Close()
	select {
	case <-n.done:
	case <-time.After(2 * time.Second):
		n.hold.Process.Kill()
		<-n.done
	}
	n.cg.destroy()
}

// cgroup is the session's cgroup (nil when no cgroup is writable, or n is nil).
func (n *Namespaces) cgroup() *runCgroup {
	if n == nil {
		return nil
	}
	return n.cg
}

// desktopCgroup is the cgroup of the desktop's programs, below the session's (nil when none).
func (n *Namespaces) desktopCgroup() *runCgroup {
	if n == nil {
		return nil
	}
	return n.inDesk
}

// namespacesOf is the running session whose desktop's private directory is dir (nil when none).
func namespacesOf(dir string) *Namespaces {
	if dir == "" {
		return nil
	}
	if v, ok := sessions.Load(canonical(dir)); ok {
		return v.(*Namespaces)
	}
	return nil
}

// EnterCommand is the command that runs a program in n's PID and IPC namespaces, as a
// child of it that dies with it, with no other confinement (for a test's programs on the
// session's desktop). Root enters them from its own user namespace, where its credentials
// (which GDBus sends with SCM_CREDENTIALS) are valid; another user needs the session's to
// have the capability.
func (n *Namespaces) EnterCommand() []string {
	a := []string{utilLinux("nsenter"), "--target", strconv.Itoa(n.pid), "--pid", "--ipc"}
	if os.Geteuid() != 0 {
		a = append(a, "--user", "--preserve-credentials")
	}
	return append(a, "--", utilLinux("setpriv"), "--pdeathsig", "KILL", "--")
}

// withNamespaces is the helper's configuration c run in n (c itself when n is nil).
func withNamespaces(n *Namespaces, c helperConfig) helperConfig {
	if n == nil {
		return c
	}
	c.Enter = &enterSpec{Nsenter: utilLinux("nsenter"), Unshare: utilLinux("unshare"), PID: n.pid, PIDNS: n.pidIno}
	// The program runs as the helper's user in its own user namespace, as outside a session
	// (bubblewrap would otherwise map the session's root to root).
	id := strconv.Itoa(os.Getuid())
	if c.Drop {
		id = strconv.Itoa(SandboxUID)
	}
	c.Argv = append([]string{c.Argv[0], "--uid", id, "--gid", id}, c.Argv[1:]...)
	return c
}

// inSession is c run in the namespaces of the runner's session, when it is a virtual
// session's.
func (r *Runner) inSession(c helperConfig) helperConfig {
	return withNamespaces(namespacesOf(desktopDir(r.session)), c)
}

// enterSpec names the holder whose namespaces a helper enters: its PID, and the inode of
// the session's PID namespace, which the helper checks, so that a PID the holder no longer
// has (its session ended) is entered by nobody.
type enterSpec struct {
	Nsenter string `json:"nsenter"`
	Unshare string `json:"unshare"`
	PID     int    `json:"pid"`
	PIDNS   uint64 `json:"pidns"`
}

// command opens the holder's namespaces and gives the command that enters them, to run
// before bubblewrap: nsenter (the user namespace first, which gives the capability to join
// the others; its credentials kept, which are root's there), then unshare, which gives
// bubblewrap a mount namespace of its own with a /proc of the session's PID namespace
// (bubblewrap 0.8 reads its child's namespaces at /proc/PID, the PID as its own namespace
// numbers it). The helper opens them before it confines itself: once in its own Landlock
// domain it may not open another domain's namespaces. The descriptors stay open across
// exec, for nsenter; a program that inherits them cannot enter them (it has no capability
// in the session's user namespace, only in its own below it).
func (e *enterSpec) command() ([]string, error) {
	var fds [3]int
	for i, ns := range []string{"user", "pid", "ipc"} {
		fd, err := unix.Open(fmt.Sprintf("/proc/%d/ns/%s", e.PID, ns), unix.O_RDONLY, 0)
		if err != nil {
			return nil, fmt.Errorf("the session's namespaces are gone (the session ended): %w", err)
		}
		fds[i] = fd
	}
	var st unix.Stat_t
	if err := unix.Fstat(fds[1], &st); err != nil || st.Ino != e.PIDNS {
		return nil, fmt.Errorf("the session's namespaces are gone (the session ended)")
	}
	return []string{e.Nsenter, fmt.Sprintf("--user=/proc/self/fd/%d", fds[0]), fmt.Sprintf("--pid=/proc/self/fd/%d", fds[1]),
		fmt.Sprintf("--ipc=/proc/self/fd/%d", fds[2]), "--preserve-credentials", "--", e.Unshare, "--mount-proc", "--"}, nil
}

// HostPID is the host's PID of the process the session's programs call p (as the X server
// and the buses, which run in the session's PID namespace, record a client), 0 when no
// process of the session has it. A PID not known yet has every process of the host looked
// at once, at most every 100 ms.
func (n *Namespaces) HostPID(p int) int {
	if p <= 0 {
		return 0
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if h, ok := n.known[p]; ok && n.sessionPID(h) == p {
		return h
	}
	if time.Since(n.scanned) < 100*time.Millisecond {
		return 0
	}
	n.scanned = time.Now()
	clear(n.known)
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return 0
	}
	for _, e := range ents {
		if h, err := strconv.Atoi(e.Name()); err == nil {
			if q := n.sessionPID(h); q > 0 {
				n.known[q] = h
			}
		}
	}
	return n.known[p]
}

// sessionPID is the PID host process h has in the session's PID namespace (0 when it is
// not the session's): the second of its NSpid, when the namespace at that level is the session's.
func (n *Namespaces) sessionPID(h int) int {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", h))
	if err != nil {
		return 0
	}
	var ids []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := bytes.CutPrefix(sc.Bytes(), []byte("NSpid:")); ok {
			ids = strings.Fields(string(rest))
			break
		}
	}
	f.Close()
	if len(ids) < 2 {
		return 0
	}
	p, err := strconv.Atoi(ids[1])
	if err != nil {
		return 0
	}
	// Its own PID namespace, then its parents up to the one below the host's.
	fd, err := unix.Open(fmt.Sprintf("/proc/%d/ns/pid", h), unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return 0
	}
	for i := 0; i < len(ids)-2; i++ {
		parent, err := unix.IoctlRetInt(fd, unix.NS_GET_PARENT)
		unix.Close(fd)
		if err != nil {
			return 0
		}
		fd = parent
	}
	var st unix.Stat_t
	err = unix.Fstat(fd, &st)
	unix.Close(fd)
	if err != nil || st.Ino != n.pidIno {
		return 0
	}
	return p
}
