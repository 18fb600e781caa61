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

// floodCall is a Python call that plants a repository whose core.fsmonitor writes marker
// (zz/z), then for 40 s makes chains of directories 1,900 deep, each a one-letter name (the
// walk opens each directory by its path from the working directory, under PATH_MAX), and
// prints how many directories and how long it took.
func floodCall(marker string) string {
	return `import os, time
os.makedirs('zz/z/.git/objects')
os.makedirs('zz/z/.git/refs')
open('zz/z/.git/HEAD', 'w').write('ref: refs/heads/main\n')
open('zz/z/.git/config', 'w').write('[core]\n\trepositoryformatversion = 0\n\tfsmonitor = touch ` + marker + `; false\n')
base = os.getcwd()
t = time.time()
n = 0
c = 0
while time.time() - t < 40:
    os.chdir(base)
    os.mkdir('c%d' % c)
    os.chdir('c%d' % c)
    c += 1
    for i in range(1900):
        os.mkdir('a')
        os.chdir('a')
        n += 1
print('made', n, time.time() - t)`
}

// The git guard's walk after a call had no time bound: it reads every entry of the working
// directory, and a call that made directories for 40 s kept the call waiting for the walk
// for minutes, and the session's end with it. Judged by effect: the call ends within 20 s of
// its program, the next call is answered at once, and the walk still goes on to its end, so
// the person's git status in the repository the call planted runs nothing of it.
func TestGitGuardWalkIsBoundedInTime(t *testing.T) {
	// Not parallel (docs/development.md#tests): it makes directories for 40 s, a call's limit.
	testenv.Require(t, "git", "bwrap", "python3")
	h := e2e.New(t)
	home := h.FakeHome()
	work := filepath.Join(home, "flood")
	if err := os.Mkdir(work, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(work) })
	marker := filepath.Join(home, "PWNED-slow-walk")
	cs := h.MCP()
	start := time.Now()
	out, ok := pyOver(t, cs, floodCall(marker), work)
	took := time.Since(start)
	f := strings.Fields(out.Stdout)
	if !ok || len(f) != 3 || f[0] != "made" {
		t.Fatalf("the flooding call: %+v", out)
	}
	ran, _ := strconv.ParseFloat(f[2], 64)
	t.Logf("the call made %s directories in %.1f s and ended after %s", f[1], ran, took)
	if over := took - time.Duration(ran*float64(time.Second)); over > 20*time.Second {
		t.Errorf("the call ended %s after its program had", over)
	}
	start = time.Now()
	res := e2e.Call(t, cs, "execute_python_code", map[string]any{"code": "print('next')", "cwd": work})
	t.Logf("the next call, after %s: %s", time.Since(start), e2e.Text(res))
	if time.Since(start) > 30*time.Second {
		t.Errorf("the next call was answered after %s", time.Since(start))
	}
	// The walk goes on: the repository it reaches last is cleaned, however long it takes.
	deadline := time.Now().Add(10 * time.Minute)
	for {
		if _, err := os.Lstat(filepath.Join(work, "zz/z/.git/config")); err != nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the walk did not reach the planted repository in 10 minutes")
		}
		time.Sleep(2 * time.Second)
	}
	got, err := personsGit(t, home)(filepath.Join(work, "zz", "z"), "status")
	t.Logf("git status: %v %s", err, got)
	if _, err := os.Stat(marker); err == nil {
		t.Errorf("the person's git status ran the command of the repository the call planted")
	}
}
