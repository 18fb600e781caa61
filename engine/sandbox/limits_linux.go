//go:build linux

package sandbox

import (
	"fmt"
	"strings"
	"sync"
)

// What a virtual session's long-lived programs may use together (docs/security.md#confinement):
// every program Confine starts (the applications launch_application starts, the browser)
// joins one cgroup of the session before it execs bubblewrap, so all it forks, detached
// or not, stays in it. Measured for a session with Chromium on a heavy page and two GTK
// applications (docs/security.md#confinement has the figures), with headroom.
const (
	// SessionMaxProcesses is pids.max of the session's cgroup: processes and threads together.
	SessionMaxProcesses = 1024
	// SessionMemoryBytes is memory.max of the session's cgroup: resident memory (swap
	// none) of all its programs together.
	SessionMemoryBytes = 4 << 30
)

// sessionLimits is the cgroup of a Runner's confined programs, made at the first Confine
// and removed by Close (end), which kills what is left in it first.
type sessionLimits struct {
	once sync.Once
	cg   *runCgroup // nil when no cgroup is writable
}

// cgroup is the session's cgroup (nil when none could be made, or after end).
func (l *sessionLimits) cgroup() *runCgroup {
	l.once.Do(func() { l.cg = newRunCgroup(limitsSpec{pids: SessionMaxProcesses, memBytes: SessionMemoryBytes}) })
	return l.cg
}

// end kills every process of the session's cgroup and removes it; no cgroup is made after.
func (l *sessionLimits) end() {
	l.once.Do(func() {})
	if l.cg != nil {
		l.cg.destroy()
	}
}

// nprocFallback is what limits the processes of a confined program of the session where
// its cgroup has no pids controller: RLIMIT_NPROC of SessionMaxProcesses. The kernel counts
// a user's tasks per user namespace, first in the task's own, and bubblewrap gives each
// program one of its own: so it counts the program's tasks, whatever its user runs elsewhere.
func (l *sessionLimits) nprocFallback() []rlimit {
	if l.cgroup().has("pids") {
		return nil
	}
	return []rlimit{{6 /* RLIMIT_NPROC */, "nproc", SessionMaxProcesses}}
}

// LimitsNote says what limits the session's confined programs (its applications and
// browser) together: what `session details` shows.
func (r *Runner) LimitsNote() string {
	cg := r.limits.cgroup()
	if !cg.has("pids") || !cg.has("memory") {
		return fmt.Sprintf("none together: %s; each application and the browser may run %d tasks (RLIMIT_NPROC), and have no memory limit",
			noCgroup, SessionMaxProcesses)
	}
	return strings.Join(cg.applied, ", ") + " for its applications and browser together"
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
		return false, noCgroup + ": a shell or Python call is limited per process only (rlimits), a virtual session's applications and browser each by its task count only (RLIMIT_NPROC); sessions still start"
	}
	return true, fmt.Sprintf("a cgroup per shell or Python call (pids.max=%d, its memory) and per virtual session for its applications and browser (pids.max=%d, memory.max=%d)",
		MaxProcesses, SessionMaxProcesses, int64(SessionMemoryBytes))
}
