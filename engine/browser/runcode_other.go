//go:build !linux

package browser

import (
	"os/exec"

	"github.com/w365/w365/engine/werr"
)

// sandboxedNode: the run_code sandbox is bubblewrap, which only Linux has.
func sandboxedNode(modules, script, sock string) (cmd *exec.Cmd, release, done func(), err error) {
	return nil, nil, nil, werr.New(werr.Unsupported, "browser_run_code is available on Linux only (its sandbox is bubblewrap)").WithRetryable(false)
}
