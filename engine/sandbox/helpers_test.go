//go:build linux

package sandbox

import (
	"os"
	"os/exec"
	"testing"

	"github.com/w365/w365/engine/werr"
)

// requireTools skips when a component is missing, except under CI=true where a missing
// component fails the test.
func requireTools(t *testing.T, names ...string) {
	t.Helper()
	for _, n := range names {
		if _, err := exec.LookPath(n); err != nil {
			if os.Getenv("CI") == "true" {
				t.Fatalf("%s is required (CI=true): %v", n, err)
			}
			t.Skipf("%s not installed", n)
		}
	}
}

// requireSandbox needs bwrap and a pids cgroup (root on a cgroup v1/v2 host).
func requireSandbox(t *testing.T) {
	t.Helper()
	requireTools(t, "bwrap", "python3")
	if cg := newPidsCgroup(10); cg == nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("a writable pids cgroup is required (CI=true)")
		}
		t.Skip("no writable pids cgroup")
	} else {
		cg.destroy()
	}
}

func codeOf(err error) werr.Code { return werr.CodeOf(err) }
