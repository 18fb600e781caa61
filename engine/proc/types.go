// Package proc lists, kills and launches processes: list_processes, kill_process and
// launch_application. A process incarnation is named by its PID plus its start time, so that
// a recycled PID is never signalled: on Linux in clock ticks since boot (/proc/PID/stat field
// 22), on Windows its creation time (GetProcessTimes) in microseconds since the Unix epoch.
package proc

import (
	"os/exec"
	"sort"
	"sync"
	"time"
)

// How long Kill waits for the process to end after asking it to (SIGTERM, WM_CLOSE) and
// after killing it (SIGKILL, TerminateProcess).
var (
	TermWait = 3 * time.Second
	KillWait = 2 * time.Second
)

// Group is the set of processes a session started with launch_application: their root
// processes, each the leader of its own process group. The process tools use Roots to
// tell the session's processes (the roots and their descendants) from the machine's;
// Close ends them when the session ends.
type Group struct {
	mu    sync.Mutex
	roots []Root
}

// Root is one started process: its pid and start time (as StartTime reports it).
type Root struct {
	PID        int    `json:"pid"`
	StartTicks uint64 `json:"startTicks"`
}

func (g *Group) add(pid int) {
	st, _ := StartTime(pid)
	g.mu.Lock()
	g.roots = append(g.roots, Root{PID: pid, StartTicks: st})
	g.mu.Unlock()
}

// Roots are the processes started so far (some may have exited).
func (g *Group) Roots() []Root {
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([]Root(nil), g.roots...)
}

// Process is one entry of list_processes.
type Process struct {
	PID         int    `json:"pid"`
	Name        string `json:"name"`
	MemoryBytes uint64 `json:"memoryBytes"` // resident set size
	WindowTitle string `json:"windowTitle,omitempty"`
	// StartTimeTicks is the start time (clock ticks since boot on Linux, microseconds since
	// the Unix epoch on Windows); pass it to Kill.
	StartTimeTicks uint64 `json:"startTimeTicks"`
}

// KillResult is what kill_process reports.
type KillResult struct {
	PID  int    `json:"pid"`
	Name string `json:"name"`
	// Signal is what was sent: "SIGTERM" (graceful) or "SIGKILL" (force) on Linux,
	// "WM_CLOSE" (graceful, to the process's windows) or "TerminateProcess" (force) on Windows.
	Signal string `json:"signal"`
	// Exited says whether the process had ended when Kill returned.
	Exited bool `json:"exited"`
}

// BuiltinProtectedNames are process names that are always protected, whatever the policy
// says: init systems, display servers, message buses and the accessibility bus (the
// system-critical processes of docs/security.md).
var BuiltinProtectedNames = []string{
	"init", "systemd", "Xorg", "Xvfb", "Xwayland", "dbus-daemon", "dbus-broker",
	"at-spi-bus-launcher", "at-spi2-registryd",
}

// Protection decides which processes close_window and kill_process refuse to touch.
type Protection struct {
	// PIDs are protected by number: the session's display server, window manager and
	// D-Bus (display.Desktop.PIDs), and the host with its parents (HostPIDs).
	PIDs []int
	// Names are protected by process name (policy.ProtectedProcesses), in addition to
	// BuiltinProtectedNames. Compared case-insensitively with the kernel's name and the
	// full name.
	Names []string
}

// Scope is the set of processes list_processes and kill_process act on: by default a session's
// own (the processes running in the current session), the whole machine only when the
// policy says so (processScope "machine").
type Scope struct {
	// All puts every process in scope.
	All bool
	// Roots are the session's own processes (its desktop's display server, bus and window
	// manager, the programs it launched); they and all their descendants are in scope.
	Roots []int
	// Display is the person's own X display: a program started with DISPLAY set to it (an
	// app of the person's desktop) is in scope. Empty means none (a virtual desktop's
	// programs are known by Roots only: anyone may set a DISPLAY). A w365 executable (a
	// host) and what it started are never in scope through Display or ancestry.
	Display string
}

// ranked orders processes as list_processes returns them, those that own a window first,
// then by resident memory, largest first, and keeps the first maxCount.
func ranked(out []Process, maxCount int) []Process {
	sort.SliceStable(out, func(i, j int) bool {
		wi, wj := out[i].WindowTitle != "", out[j].WindowTitle != ""
		if wi != wj {
			return wi
		}
		if out[i].MemoryBytes != out[j].MemoryBytes {
			return out[i].MemoryBytes > out[j].MemoryBytes
		}
		return out[i].PID < out[j].PID
	})
	return out[:min(len(out), maxCount)]
}

// LaunchOptions are what Launch needs besides the program.
type LaunchOptions struct {
	// Env is the session's desktop environment (DISPLAY, the session bus...); it is
	// filtered by the same allowlist as this process's environment (LaunchEnv).
	Env []string
	// Apps are the programs the policy adds (policy LaunchApplications: absolute paths).
	Apps []string
	// AnyArguments passes arguments as they are given (policy launchArguments "any")
	// instead of only files and URLs.
	AnyArguments bool
	// Roots are where file arguments may lie (the workspace roots, Documents, Downloads,
	// Desktop); Private are directories nothing is taken from (the host's own).
	Roots, Private []string
	// Dirs are the allowed directories (policy LaunchDirs) and Allow the shells,
	// interpreters and wrappers that may be started anyway (policy LaunchPrograms), by
	// base name: Windows only, where no desktop entries tell applications apart.
	Dirs, Allow []string
	// NoNetwork: the application runs without a network (a confined session whose policy
	// gives its programs none), so a URL argument is refused, not opened onto an error page.
	NoNetwork bool
	// Group, when set, receives the started process: it belongs to the session.
	Group *Group
	// Confine, when set, rewrites the command to run inside the session's confinement
	// (sandbox.Runner.Confine); release runs right after the start, done once the
	// program is gone.
	Confine func(*exec.Cmd) (release, done func(), err error)
	// Exit, when set, receives the application's exit status once it and, unconfined, what
	// it left below its reaper are gone (128+n for signal n; confined, its confinement's
	// status, which is the application's); it must be buffered.
	Exit chan<- int
}
