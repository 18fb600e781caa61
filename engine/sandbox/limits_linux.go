//go:build linux

package sandbox

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
)

// What a virtual session's programs may use together (docs/security.md#confinement): every
// program of the session that runs on after it starts (the desktop's own: the X server, the
// window manager, the buses and what they start; the applications launch_application starts;
// the browser) joins the session's cgroup before it execs bubblewrap, so all it forks,
// detached or not, stays in it. Measured for a session with Chromium on a heavy page and two
// GTK applications (docs/security.md#confinement has the figures), with headroom.
const (
	// SessionMaxProcesses is pids.max of the session's cgroup: processes and threads together.
	SessionMaxProcesses = 1024
	// SessionMemoryBytes is memory.max of the session's cgroup: resident memory (swap
	// none) of all its programs together.
	SessionMemoryBytes = 4 << 30
)

// allMemoryBytes is the memory limit of the cgroup every cgroup of w365 lies in (w365 under
// the cgroup root): all sessions and calls of every w365 on the host together, three quarters
// of the host's memory. A session may hold SessionMemoryBytes and each client may start
// several, so that without it a few sessions could take the memory of the person's own
// programs (docs/security.md#confinement).
func allMemoryBytes() int64 {
	var si syscall.Sysinfo_t
	if err := syscall.Sysinfo(&si); err != nil {
		return 0
	}
	return int64(si.Totalram) * int64(si.Unit) / 4 * 3 &^ (1<<20 - 1) // whole MiB, as the kernel keeps whole pages
}

// allProcesses is the task limit (pids.max) of the cgroup every cgroup of w365 lies in: half
// the host's process ids (kernel.pid_max, or threads-max when lower), so that all sessions and
// calls of every w365 together, each within its own pids.max, leave the person's own programs
// the other half: one agent's nine sessions and their calls may hold 13,800 tasks, and a few
// agents the 32,768 process ids of a default kernel, after which nothing on the host forks.
// 0 when the kernel does not say.
func allProcesses() int {
	n := 0
	for _, f := range []string{"/proc/sys/kernel/pid_max", "/proc/sys/kernel/threads-max"} {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		if v, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && v > 0 && (n == 0 || v < n) {
			n = v
		}
	}
	return n / 2
}

// The sizes of the file systems in memory (tmpfs) that bubblewrap makes for a confined
// program (mounts.tmpfs): their files count in no process's limit, so on a host with no
// writable cgroup nothing else would keep a program from filling the host's memory with
// them. A shell or Python call's /dev/shm (and its /tmp outside a session) holds half its
// memory limit.
const (
	// MaskBytes is an empty directory shown in place of a hidden one (a home, the host's
	// runtime directories, a secret directory).
	MaskBytes = 1 << 20
	// ProgramTmpBytes is /dev/shm of an application, the browser or one of the desktop's
	// programs, and /tmp (its HOME) of a desktop program. Chromium keeps its shared memory
	// in memory files of no file system (memfd): it wrote nothing into /dev/shm with four
	// real news pages open (docs/security.md#files-in-memory).
	ProgramTmpBytes = 512 << 20
)

// newSessionCgroup makes the cgroup of one virtual session, which its Namespaces own: made
// with them and removed when they close, after the desktop stopped. Its programs lie in
// cgroups below it that have no limits of their own (the session's count what they hold):
// the desktop's, with the namespaces' holder, and the applications' (sessionLimits). nil
// when no cgroup is writable.
func newSessionCgroup() *runCgroup {
	return newRunCgroup(limitsSpec{pids: SessionMaxProcesses, memBytes: SessionMemoryBytes})
}

// sessionLimits is the cgroup of a Runner's confined programs (its session's applications
// and browser), below the session's, made at the first Confine and removed by Close (end),
// which kills what is left in it first: before the desktop stops.
type sessionLimits struct {
	once sync.Once
	cg   *runCgroup // nil when no cgroup is writable, or the runner's session has no namespaces
}

// cgroup is the applications' cgroup below the session's (nil when there is none, or after end).
func (l *sessionLimits) cgroup(session *Namespaces) *runCgroup {
	l.once.Do(func() { l.cg = session.cgroup().child(fmt.Sprintf("apps-%d", runSeq.Add(1))) })
	return l.cg
}

// end kills every process of the applications' cgroup and removes it; none is made after.
func (l *sessionLimits) end() {
	l.once.Do(func() {})
	if l.cg != nil {
		l.cg.destroy()
	}
}

// sessionFallback is what limits one program of a session where the cgroup it joins (cg,
// below the session's) has no pids controller: RLIMIT_NPROC of SessionMaxProcesses. The
// kernel counts a user's tasks per user namespace, in the task's own against its limit and
// in each one above against the limit the namespace below was made with: bubblewrap gives
// each program a user namespace of its own, made with that limit by the session's root in
// the session's namespace, so the count held to it there is that of every program of the
// session together, whatever its user runs elsewhere. The desktop's programs (desktop) also
// get RLIMIT_AS of SessionMemoryBytes where cg has no memory controller: the X server holds
// what its clients ask it to (pixmaps), and it and the buses reserve little address space
// (an application, Chromium above all, reserves gigabytes, so it gets none).
func sessionFallback(cg *runCgroup, desktop bool) []rlimit {
	var rl []rlimit
	if !cg.has("pids") {
		rl = append(rl, rlimit{6 /* RLIMIT_NPROC */, "nproc", SessionMaxProcesses})
	}
	if desktop && !cg.has("memory") {
		rl = append(rl, rlimit{syscall.RLIMIT_AS, "as", SessionMemoryBytes})
	}
	return rl
}

// LimitsNote says what limits the session's programs together: what `session details` shows.
func (r *Runner) LimitsNote() string {
	cg := namespacesOf(desktopDir(r.session)).cgroup()
	if !cg.has("pids") || !cg.has("memory") {
		return fmt.Sprintf("none together: %s; its programs together may run %d tasks (RLIMIT_NPROC), each of its desktop's programs (X server, window manager, buses) may map %d bytes (RLIMIT_AS), its applications and browser have no memory limit",
			noCgroup, SessionMaxProcesses, int64(SessionMemoryBytes))
	}
	return strings.Join(cg.applied, ", ") + " for the whole session: its desktop's programs (X server, window manager, buses), applications and browser together"
}

// noCgroup is why a program runs in no cgroup of w365's.
const noCgroup = "no writable cgroup with the pids and memory controllers (w365 runs as neither root nor in a delegated cgroup v2 subtree)"

// CgroupsCheck says whether this process can make the cgroups that limit shell and Python
// calls and virtual sessions (making one and removing it): what `w365 doctor` shows.
func CgroupsCheck() (ok bool, detail string) {
	cg := newRunCgroup(limitsSpec{pids: MaxProcesses, memBytes: 64 << 20, cpus: 1})
	if cg != nil {
		defer cg.destroy()
	}
	if !cg.has("pids") || !cg.has("memory") {
		return false, noCgroup + ": a shell or Python call is limited per process only (rlimits), a virtual session's programs by their task count together (RLIMIT_NPROC) and its desktop's each by its address space (RLIMIT_AS); sessions still start"
	}
	return true, fmt.Sprintf("a cgroup per shell or Python call (pids.max=%d, its memory), per virtual session (pids.max=%d, memory.max=%d) and for all of them (memory.max=%d, pids.max=%d: 3/4 of the host's memory, 1/2 of its process ids)",
		MaxProcesses, SessionMaxProcesses, int64(SessionMemoryBytes), allMemoryBytes(), allProcesses())
}
