package snapshot

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/w365/w365/engine/browser"
	"github.com/w365/w365/engine/werr"
)

// UploadRoots are the directories files may be uploaded from: the user's
// Documents, Downloads and Desktop (browser.UserDirs) and the temporary
// directory, each with symlinks resolved.
func UploadRoots() []string {
	var roots []string
	for _, d := range browser.UserDirs() {
		roots = append(roots, d)
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
// checks that it is an existing regular file inside one of UploadRoots and
// inside none of the protected directories (the host's private directory, the
// browser profile: resolved already); anything else is BLOCKED_BY_POLICY.
func AllowedFiles(paths []string, protected ...string) ([]string, error) {
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
		if inside(filepath.Clean(abs), protected) {
			return nil, werr.New(werr.BlockedByPolicy, "%s is inside the host's private directory", p)
		}
		real, err := filepath.EvalSymlinks(abs)
		if err != nil {
			if !inside(filepath.Clean(abs), roots) {
				return nil, werr.New(werr.BlockedByPolicy, "%s is outside the Documents, Downloads, Desktop and temporary directories", p)
			}
			return nil, werr.New(werr.NotFound, "no such file: %s", p)
		}
		if inside(real, protected) {
			return nil, werr.New(werr.BlockedByPolicy, "%s is inside the host's private directory", p)
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
