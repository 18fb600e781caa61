package browser

import (
	"bufio"
	"errors"
	"os"
	"path/filepath"
	"strings"

	"github.com/w365/w365/engine/werr"
)

// UserDirs are the user's Documents, Downloads and Desktop directories (XDG user
// dirs, else $HOME/Documents ...), by XDG name (DOCUMENTS, DOWNLOAD, DESKTOP), as
// written (symlinks not resolved). A user-dirs.dirs entry that names HOME itself is
// ignored.
func UserDirs() map[string]string {
	home, _ := os.UserHomeDir()
	defaults := map[string]string{"DOCUMENTS": "Documents", "DOWNLOAD": "Downloads", "DESKTOP": "Desktop"}
	out := map[string]string{}
	cfg := os.Getenv("XDG_CONFIG_HOME")
	if cfg == "" && home != "" {
		cfg = filepath.Join(home, ".config")
	}
	if f, err := os.Open(filepath.Join(cfg, "user-dirs.dirs")); err == nil {
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			k, v, ok := strings.Cut(strings.TrimSpace(sc.Text()), "=")
			if !ok || !strings.HasPrefix(k, "XDG_") || !strings.HasSuffix(k, "_DIR") {
				continue
			}
			name := strings.TrimSuffix(strings.TrimPrefix(k, "XDG_"), "_DIR")
			if _, want := defaults[name]; !want {
				continue
			}
			v = strings.ReplaceAll(strings.Trim(v, `"`), "$HOME", home)
			if filepath.IsAbs(v) && filepath.Clean(v) != filepath.Clean(home) {
				out[name] = v
			}
		}
		f.Close()
	}
	for k, d := range defaults {
		if out[k] == "" && home != "" {
			out[k] = filepath.Join(home, d)
		}
	}
	return out
}

// realDirs resolves each directory's symlinks, dropping those that do not exist.
func realDirs(dirs ...string) []string {
	var out []string
	for _, d := range dirs {
		if d == "" {
			continue
		}
		if r, err := filepath.EvalSymlinks(d); err == nil {
			out = append(out, r)
		}
	}
	return out
}

// Within says whether p lies strictly inside dir (both resolved), and the
// relative path when it does.
func Within(p, dir string) (string, bool) {
	rel, err := filepath.Rel(dir, p)
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return "", false
	}
	return rel, true
}

// hasDotPart says whether a relative path has an element starting with a dot.
func hasDotPart(rel string) bool {
	for _, e := range strings.Split(rel, string(filepath.Separator)) {
		if strings.HasPrefix(e, ".") {
			return true
		}
	}
	return false
}

// OutputRoots are where the browser may write files for the user: the session's
// output directory, and the user's Downloads and Documents.
func (b *Browser) OutputRoots() []string {
	u := UserDirs()
	return realDirs(b.opts.DownloadDir, u["DOWNLOAD"], u["DOCUMENTS"], b.opts.HomeDir, b.opts.TmpDir)
}

// sessionPath maps the reference's save locations to the session's directories:
// %USERPROFILE%\x is HomeDir/x, %TEMP%\x and %TMP%\x are TmpDir/x (either slash).
func (b *Browser) sessionPath(path string) string {
	for _, v := range []struct{ name, dir string }{{"%USERPROFILE%", b.opts.HomeDir}, {"%TEMP%", b.opts.TmpDir}, {"%TMP%", b.opts.TmpDir}} {
		if len(path) >= len(v.name) && strings.EqualFold(path[:len(v.name)], v.name) && v.dir != "" {
			rest := strings.TrimLeft(strings.ReplaceAll(path[len(v.name):], `\`, "/"), "/")
			return filepath.Join(v.dir, filepath.FromSlash(rest))
		}
	}
	return path
}

// Protected are the directories no file of a tool may come from or go to: the
// host's private directory (Options.StateDir) and the browser profile.
func (b *Browser) Protected() []string {
	return realDirs(b.opts.StateDir, b.opts.ProfileDir)
}

// outputPath resolves where a file the browser writes for the user goes: a
// relative path (or ~/...) against the output directory (or home), symlinks of
// the directory resolved, inside OutputRoots, with no element starting with a
// dot, never inside a Protected directory, and never an existing file unless
// overwrite is set (never through a symbolic link).
func (b *Browser) outputPath(path string, overwrite bool) (string, error) {
	if strings.TrimSpace(path) == "" {
		return "", werr.Invalid("filePath must not be empty")
	}
	path = filepath.FromSlash(b.sessionPath(path))
	if rest, ok := strings.CutPrefix(path, "~"+string(filepath.Separator)); ok {
		h, err := os.UserHomeDir()
		if err != nil {
			return "", werr.Invalid("no home directory for %s", path)
		}
		path = filepath.Join(h, rest)
	} else if !filepath.IsAbs(path) {
		path = filepath.Join(b.opts.DownloadDir, path)
	}
	abs := filepath.Clean(path)
	dir, err := filepath.EvalSymlinks(filepath.Dir(abs))
	if err != nil {
		return "", werr.New(werr.NotFound, "the directory of %s does not exist", abs)
	}
	real := filepath.Join(dir, filepath.Base(abs))
	roots := b.OutputRoots()
	for _, p := range b.Protected() {
		if _, in := Within(real, p); in {
			return "", werr.New(werr.BlockedByPolicy, "%s is inside the host's private directory", abs).WithDetail("roots", roots)
		}
	}
	ok := false
	for _, r := range roots {
		if rel, in := Within(real, r); in {
			if hasDotPart(rel) {
				return "", werr.New(werr.BlockedByPolicy, "%s: hidden files and directories are not written", abs).WithDetail("roots", roots)
			}
			ok = true
			break
		}
	}
	if !ok {
		return "", werr.New(werr.BlockedByPolicy, "files may only be saved in the session's output directory, Downloads or Documents").
			WithDetail("roots", roots).WithHint("give a file name (it goes to the output directory) or a path under one of the roots")
	}
	if fi, err := os.Lstat(real); err == nil {
		switch {
		case fi.Mode()&os.ModeSymlink != 0:
			return "", werr.New(werr.BlockedByPolicy, "%s is a symbolic link", abs)
		case fi.IsDir():
			return "", werr.Invalid("%s is a directory", abs)
		case !overwrite:
			return "", werr.Invalid("%s exists", abs).WithHint("choose another name, or set overwrite")
		}
	}
	return real, nil
}

// writeOutput writes data to a path outputPath accepted: a new file is created
// exclusively (nothing can be slipped in between the check and the write); an
// overwrite replaces the file by a rename.
func writeOutput(real string, data []byte, overwrite bool) error {
	if !overwrite {
		f, err := os.OpenFile(real, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644) // O_EXCL never follows a symlink
		if err != nil {
			if errors.Is(err, os.ErrExist) {
				return werr.Invalid("%s exists", real)
			}
			return werr.Wrap(err, werr.Internal, "cannot write %s", real)
		}
		_, err = f.Write(data)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			os.Remove(real)
			return werr.Wrap(err, werr.Internal, "cannot write %s", real)
		}
		return nil
	}
	tmp, err := os.CreateTemp(filepath.Dir(real), ".w365-*.tmp")
	if err != nil {
		return werr.Wrap(err, werr.Internal, "cannot write %s", real)
	}
	_, err = tmp.Write(data)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), real)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return werr.Wrap(err, werr.Internal, "cannot write %s", real)
	}
	return nil
}
