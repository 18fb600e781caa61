package session

import (
	"os"
	"path/filepath"
	"slices"
	"sort"

	"github.com/w365/w365/engine/safefs"
	"github.com/w365/w365/engine/tmpdir"
)

// A session's files have one home, its state directory (docs/sessions.md#files):
// STATEROOT/ID-NNNN/home is the HOME of everything the session runs (downloads in
// home/Downloads, saved PDFs and screenshots under it), STATEROOT/ID-NNNN/tmp its /tmp and
// scratch directory. When the session ends, the files in the saved directories of home
// are kept and named in the end's result; everything else is removed.

// savedDirs are the directories of a session's HOME whose files outlive it.
var savedDirs = []string{"Downloads", "Documents", "Desktop", "Pictures"}

// savedDepth is how many levels of directories below a saved directory the end looks
// through: the files deeper are neither kept nor named, and stay where they are, as the
// directories holding them. Each level holds a handle and its path while the walk is below
// it: a chain of 20,000 directories in Downloads had the host allocate 1.3 GiB and take
// 8 s to end the session (its paths grow with the depth, so their sum with its square).
const savedDepth = 16

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

// stateMark is the file in a state directory that marks it as this version's: held by its
// host while the session runs (tmpdir.Hold), and removed when the session ends. A marked
// directory that nobody holds is a session's whose host died (SweepStates).
const stateMark = ".w365-session"

// makeState creates a fresh state directory for session id under root (mode 0700) and
// holds it for as long as the session runs.
func makeState(root, id string) (string, *tmpdir.Dir, error) {
	if root == "" {
		root = DefaultStateRoot()
	}
	if err := os.MkdirAll(root, 0o700); err != nil {
		return "", nil, err
	}
	var dir string
	var held *tmpdir.Dir
	var err error
	for range 3 {
		if dir, err = os.MkdirTemp(root, id+"-"); err != nil {
			return "", nil, err
		}
		// A sweep that took the new directory first (empty, it is removed) leaves it unheld.
		if held, err = tmpdir.Hold(dir); err == nil {
			break
		}
	}
	if err != nil {
		return "", nil, err
	}
	fail := func(err error) (string, *tmpdir.Dir, error) {
		held.Remove()
		return "", nil, err
	}
	if err := os.WriteFile(filepath.Join(dir, stateMark), nil, 0o600); err != nil {
		return fail(err)
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
			return fail(err)
		}
	}
	return dir, held, nil
}

// SweepStates ends, under root (DefaultStateRoot when ""), the state directories of
// sessions whose host died: each marked one that no process holds is swept as the end of
// its session would have (sweepState: its saved files stay). It returns them.
func SweepStates(root string) []string {
	if root == "" {
		root = DefaultStateRoot()
	}
	var swept []string
	tmpdir.SweepDirs(root, func(p string) bool {
		fi, err := os.Lstat(filepath.Join(p, stateMark))
		return err == nil && fi.Mode().IsRegular()
	}, func(p string) {
		sweepState(p)
		swept = append(swept, p)
	})
	return swept
}

// StateDir is the session's state directory.
func (s *Session) StateDir() string { return s.state }

// HomeDir is the HOME of the session's programs (the reference's %USERPROFILE%).
func (s *Session) HomeDir() string { return filepath.Join(s.state, "home") }

// TmpDir is the session's /tmp and scratch directory (the reference's %TEMP%).
func (s *Session) TmpDir() string { return filepath.Join(s.state, "tmp") }

// DownloadDir is where the session's browser saves downloads.
func (s *Session) DownloadDir() string { return filepath.Join(s.HomeDir(), "Downloads") }

// Kept lists the files the ended session left in its saved directories (absolute paths),
// or past maxKeptNames files the saved directories holding them; nil while it runs.
func (s *Session) Kept() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.kept)
}

// maxKeptNames is how many kept files an end names one by one. Past it, the end names
// each saved directory that holds kept files instead, its path ending in a separator: an
// agent that saved 100,000 files is not sent 100,000 paths.
const maxKeptNames = 100

// sweepState removes everything of state directory dir but the regular files in the
// saved directories of its home (which it returns, sorted, or their directories past
// maxKeptNames), and dir itself when nothing is left. The session's programs may still run (a call outlives an end that does not wait
// for it) and swap any directory of home for a symbolic link meanwhile, so every name
// below home is looked up beneath an open directory with no symbolic link followed
// (safefs), and whole trees go by os.RemoveAll, which follows none either: nothing outside
// dir is listed, kept or removed.
func sweepState(dir string) []string {
	if dir == "" {
		return nil
	}
	var kept, keptDirs []string
	if home, err := safefs.Open(filepath.Join(dir, "home")); err == nil {
		for _, d := range savedDirs {
			if sd, err := home.OpenDir(d); err == nil {
				if files := keepFiles(sd, 0); len(files) > 0 {
					kept = append(kept, files...)
					keptDirs = append(keptDirs, sd.Path()+string(filepath.Separator))
				}
				sd.Close()
			}
		}
		ents, _ := home.ReadDir()
		for _, e := range ents {
			if !slices.Contains(savedDirs, e.Name()) || !e.IsDir() {
				os.RemoveAll(filepath.Join(home.Path(), e.Name()))
			}
		}
		for _, d := range savedDirs {
			removeEmptyDirs(home, d, 0)
		}
		home.Close()
	}
	os.RemoveAll(filepath.Join(dir, "tmp"))
	os.Remove(filepath.Join(dir, "home"))
	os.Remove(filepath.Join(dir, stateMark))
	os.Remove(dir)
	if len(kept) > maxKeptNames {
		return keptDirs
	}
	sort.Strings(kept)
	return kept
}

// keepFiles returns the regular files under d, to savedDepth levels (d is at depth), and
// removes what is neither a regular file nor a directory (symbolic links, sockets, FIFOs:
// not the agent's files).
func keepFiles(d *safefs.Dir, depth int) []string {
	ents, err := d.ReadDir()
	if err != nil {
		return nil
	}
	var kept []string
	for _, e := range ents {
		switch {
		case e.Type().IsRegular():
			kept = append(kept, filepath.Join(d.Path(), e.Name()))
		case e.IsDir():
			if depth >= savedDepth {
				continue
			}
			if sub, err := d.OpenDir(e.Name()); err == nil {
				kept = append(kept, keepFiles(sub, depth+1)...)
				sub.Close()
			}
		default:
			d.Remove(e.Name())
		}
	}
	return kept
}

// removeEmptyDirs removes the directory name of d (at depth below a saved directory's
// parent) and the directories below it that hold no file, to savedDepth levels.
func removeEmptyDirs(d *safefs.Dir, name string, depth int) {
	sub, err := d.OpenDir(name)
	if err != nil {
		return
	}
	if ents, err := sub.ReadDir(); err == nil && depth < savedDepth {
		for _, e := range ents {
			if e.IsDir() {
				removeEmptyDirs(sub, e.Name(), depth+1)
			}
		}
	}
	sub.Close()
	d.Remove(name) // fails while something is left
}
