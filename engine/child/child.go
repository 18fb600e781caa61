// Package child starts the helper processes w365 owns (the virtual desktop's servers,
// the browser, the sandbox helper) so that they die with the host, and kills them with
// everything they started.
package child

import (
	"errors"
	"os/exec"
)

// Start starts cmd in a group of its own that ends with the host:
//   - Linux: its own process group, and the kernel sends it SIGKILL when the host dies;
//   - Windows: its own job object, which the system kills when the host's handle to it
//     closes (the host died) and when the child itself exits; if the job cannot be set
//     up, the child runs anyway, outside any job, and Start says so on stderr;
//   - other Unix systems: its own process group only; they have no parent-death
//     signal, so a child outlives a host that crashed.
//
// Start sets cmd.SysProcAttr fields of its own and keeps the others.
func Start(cmd *exec.Cmd) error { return start(cmd) }

// Self is the path that starts this very executable again (the sandbox helper, the
// confinement, the reaper, the background host): on Linux /proc/self/exe, which the kernel
// resolves, in the new process before it runs anything, to the file this process was
// started from even when another has been put at its path since (one put there after the
// host started ran as the sandbox helper, unconfined; docs/security.md#confinement);
// elsewhere os.Executable's path (Windows lets a running program be renamed and another
// put in its place: there the rule of places that no session may write in is all).
func Self() (string, error) { return selfPath() }

// CloseInheritedOnExec marks every descriptor above stderr that this process holds
// close-on-exec, so that no program it starts gets one it was not handed (an exec.Cmd's
// ExtraFiles): a descriptor the host's starter leaked (a shell's, an MCP client's pipe or
// socket) reached every sandboxed program of its sessions (docs/security.md#confinement).
// The CLI's root command calls it before any command runs.
func CloseInheritedOnExec() { closeInheritedOnExec() }

// KillGroup kills a child started by Start and every process in its group (its job on
// Windows) that is still there, including what the child started and left behind.
func KillGroup(cmd *exec.Cmd) error {
	if cmd.Process == nil {
		return errors.New("child: KillGroup of a command that was not started")
	}
	return killGroup(cmd)
}
