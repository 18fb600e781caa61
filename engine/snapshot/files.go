package snapshot

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"

	"github.com/w365/w365/engine/werr"
)

// UploadRoots are the directories files may be uploaded from: the user's
// Documents, Downloads and Desktop (XDG user dirs, else $HOME/Documents ...)
// and the temporary directory, each with symlinks resolved.
func UploadRoots() []string {
	home, _ := os.UserHomeDir()
	dirs := map[string]string{"DOCUMENTS": "Documents", "DOWNLOAD": "Downloads", "DESKTOP": "Desktop"}
	found := map[string]string{}
	cfg := os.Getenv("XDG_CONFIG_HOME")
	if cfg == "" && home != "" {
		cfg = filepath.Join(home, ".config")
	}
	if f, err := os.Open(filepath.Join(cfg, "user-dirs.dirs")); err == nil {
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			line := strings.TrimSpace(sc.Text())
			k, v, ok := strings.Cut(line, "=")
			if !ok || !strings.HasPrefix(k, "XDG_") || !strings.HasSuffix(k, "_DIR") {
				continue
			}
			name := strings.TrimSuffix(strings.TrimPrefix(k, "XDG_"), "_DIR")
			if _, want := dirs[name]; !want {
				continue
			}
			v = strings.Trim(v, `"`)
			v = strings.ReplaceAll(v, "$HOME", home)
			if filepath.IsAbs(v) && filepath.Clean(v) != filepath.Clean(home) {
				found[name] = v
			}
		}
		f.Close()
	}
	var roots []string
	for k, d := range dirs {
		p := found[k]
		if p == "" {
			if home == "" {
				continue
			}
			p = filepath.Join(home, d)
		}
		roots = append(roots, p)
	}
	roots = append(roots, os.TempDir())
	out := roots[:0]
	for _, r := range roots {
		if rr, err := filepath.EvalSymlinks(r); err == nil {
			out = append(out, rr)
		}
	}
	return out
}

// AllowedFiles resolves each path (absolute, symlinks and .. resolved) and
// checks that it is an existing regular file inside one of UploadRoots;
// anything else is BLOCKED_BY_POLICY.
func AllowedFiles(paths []string) ([]string, error) {
	if len(paths) == 0 {
		return nil, werr.Invalid("filePaths must name at least one file")
	}
	roots := UploadRoots()
	out := make([]string, 0, len(paths))
	for _, p := range paths {
		if p == "" {
			return nil, werr.Invalid("empty file path")
		}
		abs, err := filepath.Abs(p)
		if err != nil {
			return nil, werr.Invalid("bad path %q", p)
		}
		real, err := filepath.EvalSymlinks(abs)
		if err != nil {
			if !inside(filepath.Clean(abs), roots) {
				return nil, werr.New(werr.BlockedByPolicy, "%s is outside the Documents, Downloads, Desktop and temporary directories", p)
			}
			return nil, werr.New(werr.NotFound, "no such file: %s", p)
		}
		if !inside(real, roots) {
			return nil, werr.New(werr.BlockedByPolicy, "%s (%s) is outside the Documents, Downloads, Desktop and temporary directories", p, real).
				WithHint("copy the file into Documents, Downloads, Desktop or the temporary directory first")
		}
		st, err := os.Stat(real)
		if err != nil || !st.Mode().IsRegular() {
			return nil, werr.Invalid("%s is not a regular file", p)
		}
		out = append(out, real)
	}
	return out, nil
}

func inside(p string, roots []string) bool {
	for _, r := range roots {
		if rel, err := filepath.Rel(r, p); err == nil && rel != "." && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel) {
			return true
		}
	}
	return false
}
