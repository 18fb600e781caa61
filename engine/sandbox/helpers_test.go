//go:build linux

package sandbox

import (
	"testing"

	"github.com/w365/w365/engine/display/displaytest"
	"github.com/w365/w365/engine/werr"
)

// requireSandbox needs bwrap and a pids cgroup (root on a cgroup v1/v2 host).
func requireSandbox(t *testing.T) {
	t.Helper()
	displaytest.Require(t, "bwrap", "python3")
	if cg := newPidsCgroup(10); cg == nil {
		displaytest.Missing(t, "a writable pids cgroup")
	} else {
		cg.destroy()
	}
}

func codeOf(err error) werr.Code { return werr.CodeOf(err) }
