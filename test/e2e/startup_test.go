//go:build linux

package e2e_test

import (
	"os/exec"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/w365/w365/test/e2e"
)

// Every package's initialisation runs at every one-shot command, `w365 --version`
// included: our packages compute nothing there that a call may not use (the commands/host
// init compiled a regexp with a {0,63} repetition, about 900 allocations; commands/cli
// parsed the trace report's HTML template, 640; engine/sandbox and engine/session compiled
// regexps, 120, and engine/sandbox built its tables by name, 30 more; engine/browser its
// CDP method lists, 17; engine/desktop normalised every UIA role name, 50; engine/snapshot
// compiled the pattern of a ref, 34). What is left is
// the tool definitions themselves (commands) and tables of literals. Allocation counts,
// from GODEBUG=inittrace=1, are the same on every run. No package named in absent may
// initialise at all: go-seccomp-bpf's syscall tables took 0.21 ms of every start (the
// amd64 build loads a generated program, docs/architecture.md#one-shot-start).
func TestOneShotStartComputesLittleAtInit(t *testing.T) {
	t.Parallel()
	cmd := exec.Command(e2e.Binary(t), "--version")
	cmd.Env = []string{"GODEBUG=inittrace=1", "PATH=/usr/bin:/bin"}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("--version: %v\n%s", err, out)
	}
	budget := map[string]int{ // allocations at init
		"github.com/w365/w365/commands/host":   50,
		"github.com/w365/w365/commands/tool":   20,
		"github.com/w365/w365/commands/cli":    30,
		"github.com/w365/w365/commands":        850,
		"github.com/w365/w365/engine/sandbox":  50,
		"github.com/w365/w365/engine/session":  10,
		"github.com/w365/w365/engine/hostconn": 10,
		"github.com/w365/w365/repl":            20,
		"github.com/w365/w365/engine/desktop":  15,
		"github.com/w365/w365/engine/browser":  20,
		"github.com/w365/w365/engine/snapshot": 5,
	}
	absent := []string{"github.com/elastic/go-seccomp-bpf/arch"}
	seen := 0
	for _, l := range strings.Split(string(out), "\n") {
		// init PKG @T ms, C ms clock, B bytes, A allocs
		f := strings.Fields(l)
		if len(f) < 11 || f[0] != "init" {
			continue
		}
		if slices.Contains(absent, f[1]) && runtime.GOARCH == "amd64" {
			t.Errorf("%s initialises at every start: %s", f[1], l)
		}
		max, ok := budget[f[1]]
		if !ok {
			continue
		}
		seen++
		if allocs, _ := strconv.Atoi(f[9]); allocs > max {
			t.Errorf("%s allocates %d times at init, budget %d: %s", f[1], allocs, max, l)
		}
	}
	if seen != len(budget) {
		t.Errorf("inittrace named %d of %d packages:\n%s", seen, len(budget), out)
	}
}
