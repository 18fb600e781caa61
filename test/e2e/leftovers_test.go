//go:build linux

package e2e_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/w365/w365/test/e2e"
)

// A host killed with a virtual session running leaves its temporary directories behind (the
// desktop's private directory with its X socket and buses, the sandbox's staging
// directories) and its sessions' state directories whole; the next host to start on the
// machine removes the former and sweeps the latter as the sessions' end would have (their
// saved files stay), and leaves alone those of a host that still runs.
func TestHostRemovesTheDirectoriesOfADeadHost(t *testing.T) {
	t.Parallel()
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

	// The hosts share the sessions' state root too: a session's state directory that its
	// host left is swept as its end would have, its saved files kept.
	state := t.TempDir()
	stateOf := func(id string) string {
		m, _ := filepath.Glob(filepath.Join(state, "w365", "sessions", id+"-*"))
		if len(m) != 1 {
			t.Fatalf("session %s has state directories %v", id, m)
		}
		return m[0]
	}
	dead := e2e.New(t)
	dead.SetEnv("TMPDIR", tmp)
	dead.SetEnv("XDG_STATE_HOME", state)
	dead.MustRun("session", "start", "k1")
	left := leftovers()
	if len(left) == 0 {
		t.Fatalf("a running virtual session has no directory in TMPDIR %s", tmp)
	}
	k1 := stateOf("k1")
	for _, f := range []string{"home/Downloads/saved.txt", "home/notes.txt", "tmp/scratch"} {
		if err := os.WriteFile(filepath.Join(k1, f), []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	pid := dead.HostPID()
	syscall.Kill(pid, syscall.SIGKILL)
	for syscall.Kill(pid, 0) == nil {
		time.Sleep(20 * time.Millisecond)
	}

	// Another host (its own runtime directory, the same TMPDIR) with a session of its own.
	live := e2e.New(t)
	live.SetEnv("TMPDIR", tmp)
	live.SetEnv("XDG_STATE_HOME", state)
	live.MustRun("session", "start", "k2")
	var rest []string
	filepath.WalkDir(k1, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rest = append(rest, strings.TrimPrefix(p, k1+"/"))
		}
		return nil
	})
	if !slices.Equal(rest, []string{"home/Downloads/saved.txt"}) {
		t.Errorf("the killed host's session state holds %v after another host started, want its saved file only", rest)
	}
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
	third.SetEnv("XDG_STATE_HOME", state)
	third.MustRun("session", "list")
	if now := leftovers(); !slices.Equal(now, kept) {
		t.Errorf("a host's start changed the directories of a running host: %v, then %v", kept, now)
	}
	if _, err := os.Stat(filepath.Join(stateOf("k2"), "home", "Documents")); err != nil {
		t.Errorf("a host's start swept the state of a running host's session: %v", err)
	}
	live.MustRun("--session", "k2", "get-screen-size")
}
