//go:build linux

package e2e_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"

	"github.com/w365/w365/test/e2e"
)

// TestProcessToolsKeepOutAnotherHostByItsFile: another w365 host on the person's display
// is neither listed nor killable (docs/security.md#processes). The process tools told a
// host by the path its /proc/PID/exe reads: a host started from a hard link to this one's
// file (named otherwise), and, once the file was replaced (an upgrade in place, after
// which the CLI starts its host again from the new file), one started from the old file
// at this one's path (a release named w365-linux-amd64: the kernel reads the path
// "... (deleted)") and one from an old file named w365, were all listed and killed by the
// person's default session. Judged by effect: all of them still run.
func TestProcessToolsKeepOutAnotherHostByItsFile(t *testing.T) {
	t.Parallel()
	h := personHarness(t)
	dir := t.TempDir()
	bin, err := os.ReadFile(h.Bin)
	if err != nil {
		t.Fatal(err)
	}
	install := func(name string) string {
		p := filepath.Join(dir, name)
		os.Remove(p) // replaced, as an upgrade does: a new file at the path
		if err := os.WriteFile(p, bin, 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	h.Bin = install("w365-linux-amd64")
	display := h.Display()
	host := func(bin string) *e2e.Harness {
		o := e2e.New(t)
		o.Bin = bin
		o.FakeHome()
		o.SetEnv("DISPLAY", display)
		o.MustRun("get-screen-size")
		return o
	}
	outside := func(o *e2e.Harness) {
		t.Helper()
		var list struct {
			Processes []listedProcess `json:"processes"`
		}
		h.JSON(&list, "list-processes", "--max-count", "10000")
		pid := o.HostPID()
		if _, ok := listed(list.Processes, pid); ok {
			t.Errorf("another host (%d, started from %s) is listed", pid, o.Bin)
		}
		r := h.Run("kill-process", "--pid", strconv.Itoa(pid), "--start-time", fmt.Sprint(startTime(t, pid)), "--force")
		if r.Code == 0 {
			t.Errorf("another host (%d, started from %s) was killed: %s", pid, o.Bin, r.Stdout)
		}
		if syscall.Kill(pid, 0) != nil {
			t.Errorf("another host (%d) is gone", pid)
		}
	}
	link := filepath.Join(dir, "agent-tools")
	if err := os.Link(h.Bin, link); err != nil {
		t.Fatal(err)
	}
	outside(host(link))
	same, named := host(h.Bin), host(install("w365"))
	install("w365-linux-amd64")
	install("w365")
	outside(same)
	outside(named)
}
