//go:build !linux && !windows

package sandbox

import (
	"context"
	"os/exec"

	"github.com/w365/w365/engine/werr"
)

// run is not available off Linux yet: the OS sandbox is bubblewrap, which is Linux-only.
func (r *Runner) run(ctx context.Context, j job) (*Result, error) {
	return nil, werr.New(werr.Unsupported, "sandboxed execution is implemented on Linux only").WithRetryable(false)
}

// Problem says why this machine cannot confine a sandboxed program: the sandbox is Linux's.
func Problem(string, bool) string { return "sandboxed execution is implemented on Linux only" }

// Confine is the Linux confinement of a session's long-lived programs; elsewhere there is none.
func (r *Runner) Confine(cmd *exec.Cmd, _ ConfineOptions) (release, done func(), err error) {
	return nil, nil, werr.New(werr.Unsupported, "confining %s is implemented on Linux only", cmd.Path).WithRetryable(false)
}

// sessionLimits is Linux's cgroup of a session's confined programs; elsewhere there is none.
type sessionLimits struct{}

func (sessionLimits) end() {}

// LimitsNote says what limits a virtual session's programs together: on Linux its cgroup.
func (r *Runner) LimitsNote() string { return "" }

// CgroupsCheck says whether cgroups limit sessions and calls: they are Linux's.
func CgroupsCheck() (ok bool, detail string) { return false, "cgroups are Linux's" }
