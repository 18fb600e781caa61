//go:build linux

package e2e_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/w365/w365/test/e2e"
	"github.com/w365/w365/test/testenv"
)

// The git guard's walk after a call read at most 2^20 entries of the working directory and
// then stopped, cleaning nothing it had not reached: a call that made more (1,150 directories
// of 1,000 links) left a repository it made beside them, one level further down, whose
// core.fsmonitor the person's next git status there ran. Judged by effect: the person's git
// runs nothing the call wrote.
func TestBoundaryGitGuardReadsEveryEntryACallMade(t *testing.T) {
	// Not parallel (docs/development.md#tests): it makes 1,150,000 links on the disk.
	testenv.Require(t, "git", "bwrap")
	h, home, work := floodSetup(t)
	marker := filepath.Join(home, "PWNED-flood")
	cs := h.MCP()
	start := time.Now()
	// Hard links, 60,000 to a file (ext4 holds 65,000): 15 times as fast to make as files.
	// They take 37 s on a quiet machine and more than twice that beside make test, so two
	// calls make them, the second with the repository: its guard walks them all.
	flood := func(from, to int, plant string) {
		t.Helper()
		out, ok := pyOver(t, cs, `import os
`+plant+`
for d in range(`+strconv.Itoa(from)+`, `+strconv.Itoa(to)+`):
    os.mkdir('f%04d' % d)
    for i in range(1000):
        os.link('src/%d' % ((d * 1000 + i) // 60000), 'f%04d/%d' % (d, i))
print('made')`, work)
		if !ok || !strings.Contains(out.Stdout, "made") {
			t.Fatalf("the hostile call: %+v", out)
		}
	}
	flood(0, 575, `os.mkdir('src')
for s in range(20):
    open('src/%d' % s, 'w').close()`)
	flood(575, 1150, `os.makedirs('z/.git/objects')
os.makedirs('z/.git/refs')
open('z/.git/HEAD', 'w').write('ref: refs/heads/main\n')
open('z/.git/config', 'w').write('[core]\n\trepositoryformatversion = 0\n\tfsmonitor = touch `+marker+`; false\n')`)
	t.Logf("1,150,000 links made and the calls' guards done in %s", time.Since(start))
	got, err := personsGit(t, home)(filepath.Join(work, "z"), "status")
	t.Logf("git status: %v %s", err, got)
	if _, err := os.Stat(marker); err == nil {
		t.Errorf("the person's git status ran the command of a repository the call made past its 2^20th entry")
	}
}

// floodSetup is a harness with a fake HOME holding the directory "flood" a test fills,
// removed at its end.
func floodSetup(t *testing.T) (h *e2e.Harness, home, work string) {
	h = e2e.New(t)
	home = h.FakeHome()
	work = filepath.Join(home, "flood")
	if err := os.Mkdir(work, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(work) })
	return h, home, work
}
