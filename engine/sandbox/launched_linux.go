//go:build linux

package sandbox

import (
	"os/exec"
	"path/filepath"
	"time"

	"golang.org/x/sys/unix"

	"github.com/w365/w365/engine/safefs"
)

// What a confined application of the session (Confine) is shown of the workspaces, and
// the git guard that runs over them after it (docs/security.md#launched-applications).

// launchedKillWait bounds how long the session's end waits for an application it killed
// before it cleans the repositories the application was shown.
const launchedKillWait = 5 * time.Second

// showWorkDirs shows the workspace directories dirs and the files files read-write at
// their places as a shell call's cwd is shown: bound from what a lookup following no
// symbolic link finds (bindChecked), so that a directory a session swaps for a link shows
// nothing outside; the credential files inside hidden, every .git read-only as a whole.
// A directory with a symbolic link on its path when it is looked at here is not shown (a
// swap after that makes the start fail), nor one where programs are looked up or load code from (holdsPrograms),
// nor a file in one. It returns the directories shown and, for each, its git entries.
func (r *Runner) showWorkDirs(m *mounts, dirs, files []string) (shown []*safefs.Dir, gits [][]string, err error) {
	fail := func(err error) ([]*safefs.Dir, [][]string, error) {
		closeDirs(shown)
		return nil, nil, err
	}
	if len(dirs) > 0 {
		if err := r.guardIdle(); err != nil {
			return nil, nil, err
		}
	}
	home := homeOf(r.session)
	for _, d := range dirs {
		if !dirExists(d) || r.isPrivate(d) || holdsPrograms(d, home) != "" || !noLinks(d) {
			continue
		}
		root, err := m.bindDir(d)
		if err != nil {
			return fail(err)
		}
		shown = append(shown, root)
		if err := m.hideSecretsBelow(root); err != nil {
			return fail(err)
		}
		g := gitDirs(root)
		if err := m.bindGitDirs(g); err != nil {
			return fail(err)
		}
		gits = append(gits, g)
	}
	for _, f := range files {
		if fileExists(f) && programsLoadFrom(filepath.Dir(f), home) == "" && noLinks(f) {
			if err := m.bindChecked(f, false, true); err != nil {
				return fail(err)
			}
		}
	}
	return shown, gits, nil
}

// closeDirs closes the handles ds.
func closeDirs(ds []*safefs.Dir) {
	for _, d := range ds {
		d.Close()
	}
}

// noLinks says whether path p has no symbolic link on it now.
func noLinks(p string) bool {
	f, err := openChecked(p)
	if err != nil {
		return false
	}
	f.Close()
	return true
}

// guardLaunched is what Confine returns for the caller to call right after cmd started
// (or failed to): it runs release (startHelper's), closes m's handles (the staging
// directory is for Confine's done to remove, once the caller has reaped cmd), and, once
// the application exits or the session ends (which kills it, waiting launchedKillWait at
// most), renames away what git would run that it wrote in the directories shown
// (cleanNewRepos, with gits the read-only entries of before and since its start). The
// session's end waits for that cleanup gitGuardWait at most (guardAfter).
func (r *Runner) guardLaunched(cmd *exec.Cmd, m *mounts, shown []*safefs.Dir, gits [][]string, release func()) func() {
	since := time.Now()
	return func() {
		release()
		m.closeFiles()
		if cmd.Process == nil || len(shown) == 0 {
			closeDirs(shown)
			return
		}
		// Before the caller reaps cmd, so the pid is still the application's.
		pidfd, pidErr := unix.PidfdOpen(cmd.Process.Pid, 0)
		ctx, done := r.track(r.stop)
		go func() {
			defer done()
			if pidErr == nil {
				defer unix.Close(pidfd)
				exited := make(chan struct{})
				go func() {
					pfd := []unix.PollFd{{Fd: int32(pidfd), Events: unix.POLLIN}}
					for {
						if _, err := unix.Poll(pfd, -1); err != unix.EINTR {
							break
						}
					}
					close(exited)
				}()
				select {
				case <-exited:
				case <-ctx.Done():
					unix.PidfdSendSignal(pidfd, unix.SIGKILL, nil, 0)
					select {
					case <-exited:
					case <-time.After(launchedKillWait):
					}
				}
			}
			r.guardAfter(func() []string {
				defer closeDirs(shown)
				var renamed []string
				for i, d := range shown {
					renamed = append(renamed, cleanNewRepos(d, gits[i], since)...)
				}
				// No call's result waits for these: the next one names them.
				r.addLate(renamed)
				return nil
			})
		}()
	}
}
