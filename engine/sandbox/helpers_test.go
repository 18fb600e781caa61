//go:build linux

package sandbox

import (
	"testing"

	"github.com/w365/w365/engine/werr"
	"github.com/w365/w365/test/testenv"
)

// requireSandbox needs bwrap and a writable cgroup with pids and memory limits (root on a
// cgroup v1/v2 host).
func requireSandbox(t *testing.T) {
	t.Helper()
	testenv.Require(t, "bwrap", "python3")
	if !runCgroupAvailable() {
		testenv.Missing(t, "a writable cgroup with the pids and memory controllers")
	}
}

func runCgroupAvailable() bool {
	cg := newRunCgroup(limitsSpec{pids: 10, memBytes: 64 << 20, cpus: 1})
	if cg == nil {
		return false
	}
	defer cg.destroy()
	return cg.has("pids") && cg.has("memory")
}

func codeOf(err error) werr.Code { return werr.CodeOf(err) }
