//go:build !linux && !windows

package sandbox

import (
	"context"

	"github.com/w365/w365/engine/werr"
)

// run is not available off Linux yet: the OS sandbox is bubblewrap, which is Linux-only.
func (r *Runner) run(ctx context.Context, j job) (*Result, error) {
	return nil, werr.New(werr.Unsupported, "sandboxed execution is implemented on Linux only").WithRetryable(false)
}

// Problem says why this machine cannot confine a sandboxed program: the sandbox is Linux's.
func Problem(string, bool) string { return "sandboxed execution is implemented on Linux only" }
