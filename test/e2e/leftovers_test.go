//go:build linux

package e2e_test

import (
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/w365/w365/test/e2e"
)

// A host killed with a virtual session running leaves its temporary directories behind (the
// desktop's private directory with its X socket and buses, the sandbox's staging
// directories); the next host to start on the machine removes them, and leaves alone those
// of a host that still runs.
func TestHostRemovesTheDirectoriesOfADeadHost(t *testing.T) {
	tmp, err := os.MkdirTemp("", "w365-tmpdir-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(tmp) })
	os.Chmod(tmp, 0o755) // the root host's staging directories must be reachable for nobody
	leftovers := func() []string {
		var out []string
		for _, k := range []string{"w365-xauth-*", "w365-stage-*", "w365-work-*", "w365-py-*", "w365-new-*"} {
			m, _ := filepath.Glob(filepath.Join(tmp, k))
			out = append(out, m...)
		}
		slices.Sort(out)
		return out
	}

	dead := e2e.New(t)
	dead.SetEnv("TMPDIR", tmp)
	dead.MustRun("session", "start", "k1")
	left := leftovers()
	if len(left) == 0 {
		t.Fatalf("a running virtual session has no directory in TMPDIR %s", tmp)
	}
	pid := dead.HostPID()
	syscall.Kill(pid, syscall.SIGKILL)
	for syscall.Kill(pid, 0) == nil {
		time.Sleep(20 * time.Millisecond)
	}

	// Another host (its own runtime directory, the same TMPDIR) with a session of its own.
	live := e2e.New(t)
	live.SetEnv("TMPDIR", tmp)
	live.MustRun("session", "start", "k2")
	for _, p := range left {
		if _, err := os.Lstat(p); err == nil {
			t.Errorf("%s of the killed host is still there after another host started", p)
		}
	}
	kept := leftovers()
	if len(kept) == 0 {
		t.Fatal("the running host's session has no directory in TMPDIR")
	}

	// A third host starting now removes nothing of the running one's: its session still works.
	third := e2e.New(t)
	third.SetEnv("TMPDIR", tmp)
	third.MustRun("session", "list")
	if now := leftovers(); !slices.Equal(now, kept) {
		t.Errorf("a host's start changed the directories of a running host: %v, then %v", kept, now)
	}
	live.MustRun("--session", "k2", "get-screen-size")
}
