package session

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
)

// A session's files have one home, its state directory (docs/sessions.md#files):
// STATEROOT/ID-NNNN/home is the HOME of everything the session runs (downloads in
// home/Downloads, saved PDFs and screenshots under it), STATEROOT/ID-NNNN/tmp its /tmp and
// scratch directory. When the session ends, the files in the saved directories of home
// are kept and named in the end's result; everything else is removed.

// savedDirs are the directories of a session's HOME whose files outlive it.
var savedDirs = []string{"Downloads", "Documents", "Desktop", "Pictures"}

// DefaultStateRoot is where session state directories are made when Options.StateRoot is
// empty: $XDG_STATE_HOME/w365/sessions (~/.local/state/w365/sessions), else the temporary
// directory's w365-sessions.
func DefaultStateRoot() string {
	if d := os.Getenv("XDG_STATE_HOME"); filepath.IsAbs(d) {
		return filepath.Join(d, "w365", "sessions")
	}
	if h, err := os.UserHomeDir(); err == nil {
		return filepath.Join(h, ".local", "state", "w365", "sessions")
	}
	return filepath.Join(os.TempDir(), "w365-sessions")
}

// makeState creates a fresh state directory for session id under root (mode 0700).
func makeState(root, id string) (string, error) {
	if root == "" {
		root = DefaultStateRoot()
	}
	if err := os.MkdirAll(root, 0o700); err != nil {
		return "", err
	}
	dir, err := os.MkdirTemp(root, id+"-")
	if err != nil {
		return "", err
	}
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	for _, d := range append([]string{"tmp", "home"}, savedDirs...) {
		p := filepath.Join(dir, "home", d)
		if d == "tmp" || d == "home" {
			p = filepath.Join(dir, d)
		}
		if err := os.MkdirAll(p, 0o700); err != nil {
			os.RemoveAll(dir)
			return "", err
		}
	}
	return dir, nil
}

// StateDir is the session's state directory.
func (s *Session) StateDir() string { return s.state }

// HomeDir is the HOME of the session's programs (the reference's %USERPROFILE%).
func (s *Session) HomeDir() string { return filepath.Join(s.state, "home") }

// TmpDir is the session's /tmp and scratch directory (the reference's %TEMP%).
func (s *Session) TmpDir() string { return filepath.Join(s.state, "tmp") }

// DownloadDir is where the session's browser saves downloads.
func (s *Session) DownloadDir() string { return filepath.Join(s.HomeDir(), "Downloads") }

// Kept lists the files the ended session left in its saved directories (absolute paths);
// nil while it runs.
func (s *Session) Kept() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.kept)
}

// sweepState removes everything of state directory dir but the regular files in the
// saved directories of its home (which it returns, sorted), and dir itself when nothing is
// left. Nothing of the session runs any more; the walk follows no symlink.
func sweepState(dir string) []string {
	if dir == "" {
		return nil
	}
	home := filepath.Join(dir, "home")
	var kept []string
	for _, d := range savedDirs {
		root := filepath.Join(home, d)
		if st, err := os.Lstat(root); err != nil || !st.IsDir() {
			continue
		}
		filepath.WalkDir(root, func(p string, e fs.DirEntry, err error) error {
			switch {
			case err != nil:
				return nil
			case e.Type().IsRegular():
				kept = append(kept, p)
			case !e.IsDir():
				os.Remove(p) // symlinks, sockets, FIFOs: not the agent's files
			}
			return nil
		})
	}
	ents, _ := os.ReadDir(home)
	for _, e := range ents {
		if !slices.Contains(savedDirs, e.Name()) || !e.IsDir() {
			os.RemoveAll(filepath.Join(home, e.Name()))
		}
	}
	os.RemoveAll(filepath.Join(dir, "tmp"))
	for _, d := range savedDirs {
		removeEmptyDirs(filepath.Join(home, d))
	}
	os.Remove(home)
	os.Remove(dir)
	sort.Strings(kept)
	return kept
}

// removeEmptyDirs removes dir and the directories below it that hold no file.
func removeEmptyDirs(dir string) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range ents {
		if e.IsDir() {
			removeEmptyDirs(filepath.Join(dir, e.Name()))
		}
	}
	os.Remove(dir) // fails while something is left
}
