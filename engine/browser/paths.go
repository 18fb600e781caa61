package browser

import (
	"bufio"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/w365/w365/engine/safefs"
	"github.com/w365/w365/engine/sandbox"
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

// HasDotPart says whether a relative path has an element starting with a dot.
func HasDotPart(rel string) bool {
	for _, e := range strings.Split(rel, string(filepath.Separator)) {
		if strings.HasPrefix(e, ".") {
			return true
		}
	}
	return false
}

// misread says whether r has no place in a name the host gives a file for a session: a
// control character (C0, DEL, C1), a format character (a bidirectional override, a
// zero-width character), a line or paragraph separator, or a byte that is not UTF-8. Each
// makes a listing show another name than the file has, or split it over lines
// (docs/security.md, "Names of the files the host writes").
func misread(r rune) bool {
	return r == utf8.RuneError || unicode.In(r, unicode.Cc, unicode.Cf, unicode.Zl, unicode.Zp)
}

// checkName refuses a name (one element of a path) that holds a character misread refuses,
// or begins or ends with white space.
func checkName(name string) error {
	for _, r := range name {
		if misread(r) {
			return werr.Invalid("%q holds %U, which file listings show otherwise or not at all", name, r).
				WithHint("use printable characters only")
		}
	}
	if strings.TrimSpace(name) != name {
		return werr.Invalid("%q begins or ends with white space", name)
	}
	return nil
}

// fixName is name with every character misread refuses replaced by "_" and white space
// at either end removed: checkName's rule for a name the page chose (a download's).
func fixName(name string) string {
	return strings.Map(func(r rune) rune {
		if misread(r) {
			return '_'
		}
		return r
	}, strings.TrimSpace(name))
}

// OutputRoots are where the browser may write files for the user: the session's
// output directory, and the user's Downloads and Documents it may use (Options.UserDirs).
func (b *Browser) OutputRoots() []string {
	u := b.opts.UserDirs
	return realDirs(b.opts.DownloadDir, u["DOWNLOAD"], u["DOCUMENTS"], b.opts.HomeDir, b.opts.TmpDir)
}

// UploadRoots are where files set on a file input may come from: the person's Documents,
// Downloads and Desktop it may use (Options.UserDirs), and the session's own (its HOME's)
// and its temporary directory (its /tmp), as written. Never the host's temporary
// directory: it holds other programs' files (a Kerberos ticket cache) and every virtual
// desktop's X cookie.
func (b *Browser) UploadRoots() []string {
	u := b.opts.UserDirs
	roots := []string{u["DOCUMENTS"], u["DOWNLOAD"], u["DESKTOP"], b.opts.DownloadDir, b.opts.TmpDir}
	if b.opts.HomeDir != "" {
		roots = append(roots, filepath.Join(b.opts.HomeDir, "Documents"), filepath.Join(b.opts.HomeDir, "Desktop"))
	}
	return slices.DeleteFunc(roots, func(r string) bool { return r == "" })
}

// SessionOwned says whether root lies in the session's HOME or /tmp, which the session's
// programs write: one of them may have swapped the directory itself for a symbolic link
// to anywhere (OpenRoot).
func (b *Browser) SessionOwned(root string) bool {
	for _, d := range []string{b.opts.HomeDir, b.opts.TmpDir} {
		if _, in := Within(filepath.Clean(root), d); d != "" && in {
			return true
		}
	}
	return false
}

// OpenRoot opens root, a directory files are written to or read from for the user: one the
// session owns (SessionOwned) as written, following no symbolic link on any component of
// it; the person's as it is, a link the person made included. A session's program that
// replaced its ~/Downloads by a link to the person's ~/.ssh had browser_pdf_save write
// there and browser_file_upload read from there (docs/security.md, "The host never
// follows what a session wrote").
func OpenRoot(root string, owned bool) (*safefs.Dir, error) {
	if owned {
		return safefs.OpenNoLinks(root)
	}
	return safefs.Open(root)
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

// output is where a file the browser writes for the user goes: the directory it goes in,
// opened before anything is produced and kept open until the file is written in it
// (Dir.WriteFile: exclusively, or with overwrite by a rename in that directory), and the
// file's name there.
type output struct {
	dir  *safefs.Dir
	name string
	path string // the file's absolute path, for results
}

// openOutput resolves where a file the browser writes for the user goes: a relative path
// (or ~/...) against the output directory (or home), lying under one of OutputRoots as it
// is written (a root itself may be a symbolic link: it is the person's), with no element
// below the root starting with a dot or being a symbolic link, never inside a Protected
// directory, and never an existing file unless overwrite is set (never a symbolic link).
// The directory is opened here, once: swapping it or any parent for a link later changes
// nothing about where the file goes (safefs).
func (b *Browser) openOutput(path string, overwrite bool) (*output, error) {
	if strings.TrimSpace(path) == "" {
		return nil, werr.Invalid("filePath must not be empty")
	}
	path = filepath.FromSlash(b.sessionPath(path))
	if rest, ok := strings.CutPrefix(path, "~"+string(filepath.Separator)); ok {
		h, err := os.UserHomeDir()
		if err != nil {
			return nil, werr.Invalid("no home directory for %s", path)
		}
		path = filepath.Join(h, rest)
	} else if !filepath.IsAbs(path) {
		path = filepath.Join(b.opts.DownloadDir, path)
	}
	abs := filepath.Clean(path)
	u := b.opts.UserDirs
	var roots []string
	root, rel := "", ""
	for _, w := range []string{b.opts.DownloadDir, u["DOWNLOAD"], u["DOCUMENTS"], b.opts.HomeDir, b.opts.TmpDir} {
		if w == "" {
			continue
		}
		real, err := filepath.EvalSymlinks(w)
		if b.SessionOwned(w) {
			real, err = filepath.Clean(w), nil
		}
		if err != nil {
			continue
		}
		roots = append(roots, real)
		for _, form := range []string{filepath.Clean(w), real} {
			if r, in := Within(abs, form); in && root == "" {
				root, rel = real, r
			}
		}
	}
	if root == "" {
		return nil, werr.New(werr.BlockedByPolicy, "files may only be saved in the session's output directory, HOME or /tmp, Downloads or Documents").
			WithDetail("roots", roots).WithHint("give a file name (it goes to the output directory) or a path under one of the roots")
	}
	for _, e := range strings.Split(rel, string(filepath.Separator)) {
		if err := checkName(e); err != nil {
			return nil, err
		}
	}
	if HasDotPart(rel) {
		return nil, werr.New(werr.BlockedByPolicy, "%s: hidden files and directories are not written", abs).WithDetail("roots", roots)
	}
	real := filepath.Join(root, rel)
	for _, p := range b.Protected() {
		if _, in := Within(real, p); in || real == p {
			return nil, werr.New(werr.BlockedByPolicy, "%s is inside the host's private directory", abs).WithDetail("roots", roots)
		}
	}
	if why := sandbox.ProgramsLoadFrom(filepath.Dir(real)); why != "" {
		return nil, werr.New(werr.BlockedByPolicy, "%s: %s, and a file there could run outside the session", abs, why).
			WithDetail("roots", roots)
	}
	rd, err := OpenRoot(root, b.SessionOwned(root))
	if err != nil {
		return nil, err
	}
	defer rd.Close()
	dir, err := rd.OpenDir(filepath.Dir(rel))
	if err != nil {
		if werr.CodeOf(err) == werr.NotFound {
			return nil, werr.New(werr.NotFound, "the directory of %s does not exist", abs)
		}
		return nil, err
	}
	o := &output{dir: dir, name: filepath.Base(rel), path: real}
	k, err := dir.Kind(o.name)
	if err == nil {
		switch {
		case k == safefs.Symlink:
			err = werr.New(werr.BlockedByPolicy, "%s is a symbolic link", abs)
		case k == safefs.Directory:
			err = werr.Invalid("%s is a directory", abs)
		case k == safefs.Other:
			err = werr.Invalid("%s is not a regular file", abs)
		case k == safefs.Regular && !overwrite:
			err = werr.Invalid("%s exists", abs).WithHint("choose another name, or set overwrite")
		}
	}
	if err != nil {
		dir.Close()
		return nil, err
	}
	return o, nil
}
