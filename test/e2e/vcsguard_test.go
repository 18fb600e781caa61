//go:build linux

package e2e_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/w365/w365/test/e2e"
	"github.com/w365/w365/test/testenv"
)

// Mercurial reads a repository's .hg/hgrc, and runs its hooks, when the person runs hg
// there, as git does its .git/config: a repository is one whatever tool it belongs to.
// A call made a repository with a pre-status hook, and wrote one into a repository the
// person had made; before, the person's next hg status in each ran the hook. A later call
// renamed a directory the first had prepared to .hg (its hgrc keeps its change time), and
// linked another as .hg. darcs the same: a posthook in _darcs/prefs/defaults ran at the
// person's darcs log. Judged by effect: no marker after the person's hg status and darcs
// log, and the person's own repositories' files are as the person left them.
func TestGuardKeepsNoHookOfAnotherVersionControlACallWrote(t *testing.T) {
	t.Parallel()
	testenv.Require(t, "hg", "darcs", "bwrap", "python3")
	h := e2e.New(t)
	home := h.FakeHome()
	work := filepath.Join(home, "work")
	if err := os.Mkdir(work, 0o755); err != nil {
		t.Fatal(err)
	}
	run := func(dir, prog string, args ...string) (string, error) {
		ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
		defer cancel()
		c := exec.CommandContext(ctx, prog, args...)
		c.Dir = dir
		c.Env = []string{"HOME=" + home, "PATH=" + os.Getenv("PATH"), "HGUSER=p", "HGRCPATH=" + filepath.Join(home, ".hgrc")}
		out, err := c.CombinedOutput()
		return string(out), err
	}
	if out, err := run(work, "hg", "init", "mine"); err != nil {
		t.Fatalf("the person's hg init: %v %s", err, out)
	}
	if out, err := run(work, "darcs", "init", "--repodir", "dmine"); err != nil {
		t.Fatalf("the person's darcs init: %v %s", err, out)
	}
	dmine := filepath.Join(work, "dmine", "_darcs", "prefs", "defaults")
	dmineWas := []byte("ALL summary\n")
	if err := os.WriteFile(dmine, dmineWas, 0o644); err != nil {
		t.Fatal(err)
	}
	mine := filepath.Join(work, "mine", ".hg", "hgrc")
	if err := os.WriteFile(mine, []byte("[ui]\nusername = p\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	markNew, markMine, markLater := filepath.Join(home, "PWNED-hg-new"), filepath.Join(home, "PWNED-hg-mine"), filepath.Join(home, "PWNED-hg-later")
	darcsMark := filepath.Join(home, "PWNED-darcs")
	posthook := `ALL posthook touch ` + darcsMark + `\nALL run-posthook\n`
	cs := h.MCP()
	out, ok := pyOver(t, cs, `import os, subprocess
os.makedirs('made/.hg/store')
open('made/.hg/requires', 'w').write('dotencode\nfncache\nrevlogv1\nstore\n')
open('made/.hg/hgrc', 'w').write('[hooks]\npre-status = touch `+markNew+`\n')
try:
    open('mine/.hg/hgrc', 'a').write('[hooks]\npre-status = touch `+markMine+`\n')
    print('wrote mine')
except OSError as e:
    print('mine refused', e.errno)
try:
    open('dmine/_darcs/prefs/defaults', 'a').write('`+posthook+`')
    print('wrote dmine')
except OSError as e:
    print('dmine refused', e.errno)
for p in ('dmade', 'dprep'):
    subprocess.run(['darcs', 'init', '--repodir', p], check=True)
    open(p + '/_darcs/prefs/defaults', 'a').write('`+posthook+`')
os.rename('dprep/_darcs', 'dprep/stash')
for p in ('prep', 'prep2'):
    os.makedirs(p + '/store')
    open(p + '/requires', 'w').write('dotencode\nfncache\nrevlogv1\nstore\n')
    open(p + '/hgrc', 'w').write('[hooks]\npre-status = touch `+markLater+`\n')
print('planted')`, work)
	if !ok || !strings.Contains(out.Stdout, "planted") {
		t.Fatalf("the planting call: %+v", out)
	}
	t.Logf("the call: %s", out.Stdout)
	time.Sleep(2 * time.Second) // past the guard's slack: the prepared files are older than the next call
	out, ok = pyOver(t, cs, `import os
os.makedirs('moved')
os.rename('prep', 'moved/.hg')
os.makedirs('linked')
os.symlink('../prep2', 'linked/.hg')
os.makedirs('dmoved')
os.rename('dprep/stash', 'dmoved/_darcs')
print('moved')`, work)
	if !ok || !strings.Contains(out.Stdout, "moved") {
		t.Fatalf("the moving call: %+v", out)
	}
	for _, dir := range []string{"made", "mine", "moved", "linked"} {
		st, err := run(filepath.Join(work, dir), "hg", "status")
		t.Logf("the person's hg status in %s: %v %s", dir, err, st)
	}
	for _, dir := range []string{"dmade", "dmine", "dmoved"} {
		st, err := run(filepath.Join(work, dir), "darcs", "log")
		t.Logf("the person's darcs log in %s: %v %s", dir, err, st)
	}
	if b, err := os.ReadFile(dmine); err != nil || string(b) != string(dmineWas) {
		t.Errorf("the person's own darcs defaults are now %q (%v)", b, err)
	}
	for _, m := range []string{markNew, markMine, markLater, darcsMark} {
		if _, err := os.Lstat(m); err == nil {
			t.Errorf("the person's hg status or darcs log ran a hook the call wrote: %s exists", m)
		}
	}
	if b, err := os.ReadFile(mine); err != nil || string(b) != "[ui]\nusername = p\n" {
		t.Errorf("the person's own hgrc is now %q (%v)", b, err)
	}
}
