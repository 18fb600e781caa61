//go:build linux

package sandbox

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
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

// TestAllCgroupsTogetherHoldAShareOfTheHostsMemory checks that the cgroup every session's
// and call's cgroup lies in holds them to three quarters of the host's memory together
// (allMemoryBytes): sessions of 4 GiB each, several per client, would otherwise outgrow it.
func TestAllCgroupsTogetherHoldAShareOfTheHostsMemory(t *testing.T) {
	requireSandbox(t)
	cg := newRunCgroup(limitsSpec{pids: 10, memBytes: 64 << 20})
	defer cg.destroy()
	want := strconv.FormatInt(allMemoryBytes(), 10)
	seen := 0
	for _, d := range cg.dirs {
		for _, file := range []string{"memory.max", "memory.limit_in_bytes"} {
			b, err := os.ReadFile(filepath.Join(filepath.Dir(d), file))
			if err != nil {
				continue
			}
			seen++
			if got := strings.TrimSpace(string(b)); got != want {
				t.Errorf("%s of %s is %s, want %s (three quarters of the host's memory)", file, filepath.Dir(d), got, want)
			}
		}
	}
	if seen == 0 {
		t.Fatalf("no memory limit file beside the cgroups %v", cg.dirs)
	}
}

// TestAllCgroupsTogetherHoldHalfTheHostsProcessIDs checks that the cgroup every session's
// and call's cgroup lies in holds their tasks together to half the host's process ids
// (allProcesses): one agent's sessions may hold 13,800 tasks, a few agents every id.
func TestAllCgroupsTogetherHoldHalfTheHostsProcessIDs(t *testing.T) {
	requireSandbox(t)
	cg := newRunCgroup(limitsSpec{pids: 10, memBytes: 64 << 20})
	defer cg.destroy()
	want := strconv.Itoa(allProcesses())
	if want == "0" {
		t.Fatal("the kernel says nothing of its process ids")
	}
	seen := 0
	for _, d := range cg.dirs {
		b, err := os.ReadFile(filepath.Join(filepath.Dir(d), "pids.max"))
		if err != nil {
			continue
		}
		seen++
		if got := strings.TrimSpace(string(b)); got != want {
			t.Errorf("pids.max of %s is %s, want %s (half the host's process ids)", filepath.Dir(d), got, want)
		}
	}
	if seen == 0 {
		t.Fatalf("no pids.max beside the cgroups %v", cg.dirs)
	}
}
