//go:build linux

package e2e_test

import (
	"os"
	"os/exec"
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
	h, home, work := floodSetup(t)
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

// The end of a session names the files of its saved directories (Downloads, ...) and walked
// them to any depth, each level's handle and path held while it was below: a chain of 20,000
// directories a Python call made in Downloads had the host allocate 1.3 GiB to end the
// session, the sum of the paths growing with the square of the depth. Judged by effect:
// the host's resident peak while the session ends, and the file saved beside the chain is
// still kept.
func TestSessionEndWalksNoDeepChain(t *testing.T) {
	// Not parallel (docs/development.md#tests): it measures the host's memory.
	testenv.Require(t, "bwrap", "python3")
	h := e2e.New(t)
	home := h.FakeHome()
	// Go's RemoveAll holds a descriptor per level and stops at the test's limit; rm does not.
	t.Cleanup(func() { exec.Command("rm", "-rf", home).Run() })
	h.MustRun("session", "start", "deep")
	code := `import os
os.chdir(os.path.expanduser('~/Downloads'))
open('report.txt', 'w').write('saved')
for i in range(20000):
    os.mkdir('a')
    os.chdir('a')
print('made')`
	if out := h.MustRun("--session", "deep", "execute-python-code", "--timeout-ms", "60000", "--code", code); !strings.Contains(out, "made") {
		t.Fatalf("the call: %s", out)
	}
	grown := peakGrowth(t, h.HostPID())
	var end struct {
		Kept []string `json:"kept"`
	}
	h.JSON(&end, "session", "end", "deep")
	grew := grown()
	t.Logf("the host's resident peak grew by %d MiB while the session ended; kept %v", grew, end.Kept)
	if grew > 128 {
		t.Errorf("the host's resident peak grew by %d MiB while a session with 20,000 directories in a chain ended, past 128 MiB", grew)
	}
	if len(end.Kept) != 1 || filepath.Base(end.Kept[0]) != "report.txt" {
		t.Errorf("the end kept %v, want report.txt", end.Kept)
	}
}

// The session's own Downloads lies in its HOME, which its programs write: a Python call
// that replaced it by a symbolic link to a directory outside every root had
// browser_pdf_save write its PDF there (the root was resolved, then opened following the
// link, as the person's Documents may be). Judged by effect: nothing appears in the
// directory the link names, and the save is refused.
func TestSessionsOwnRootSwappedForALinkLeadsNowhere(t *testing.T) {
	t.Parallel()
	testenv.Require(t, "bwrap", "python3", "chromium")
	h := e2e.New(t)
	h.FakeHome()
	outside := t.TempDir()
	os.Chmod(outside, 0o777)
	h.MustRun("session", "start", "swap")
	code := `import os, shutil
d = os.path.expanduser('~/Downloads')
shutil.rmtree(d)
os.symlink('` + outside + `', d)
print('swapped')`
	if out := h.MustRun("--session", "swap", "execute-python-code", "--code", code); !strings.Contains(out, "swapped") {
		t.Fatalf("the call: %s", out)
	}
	h.MustRun("--session", "swap", "browser", "navigate", "data:text/html,<title>t</title><p>page")
	t.Logf("pdf-save: %+v", h.Run("--session", "swap", "browser", "pdf-save", "x.pdf"))
	if ents, _ := os.ReadDir(outside); len(ents) > 0 {
		t.Errorf("browser_pdf_save wrote %s in the directory outside every root the session's Downloads was swapped for", ents[0].Name())
	}
	h.Run("session", "end", "swap")
}
