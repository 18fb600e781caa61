package snapshot

import (
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/w365/w365/engine/browser"
	"github.com/w365/w365/engine/werr"
)

// maxUploadBytes bounds one file set on a file input.
const maxUploadBytes = 256 << 20

// maxStagedBytes bounds what one browser's staging directory holds. The copies stay until
// the browser closes (a page reads a file it was given when it sends it), in the host's
// runtime directory, often a file system in memory (/run/user/UID): a set that would take
// the directory past this, or past half of the space it and its file system's free space
// make together, is refused, so that sets repeated in a loop fill neither.
const maxStagedBytes = 512 << 20

// stagingRoom is how many bytes a new set may add to stage.
func stagingRoom(stage string) int64 {
	var used int64
	filepath.WalkDir(stage, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if fi, err := d.Info(); err == nil {
				used += fi.Size()
			}
		}
		return nil
	})
	room := maxStagedBytes - used
	if free, ok := freeBytes(stage); ok {
		room = min(room, (used+free)/2-used)
	}
	return max(room, 0)
}

// uploadRoot is a directory files may be uploaded from, as written and resolved.
type uploadRoot struct {
	written, real string
	owned         bool // the session's own: opened as written, following no link (browser.OpenRoot)
}

// resolveRoots are the directories files may be uploaded from (Browser.UploadRoots), as
// written and resolved (the session's own, owned, as written); those of the person that do
// not exist are left out.
func resolveRoots(roots []string, owned func(string) bool) []uploadRoot {
	var out []uploadRoot
	for _, r := range roots {
		if owned(r) {
			out = append(out, uploadRoot{filepath.Clean(r), filepath.Clean(r), true})
		} else if rr, err := filepath.EvalSymlinks(r); err == nil {
			out = append(out, uploadRoot{filepath.Clean(r), rr, false})
		}
	}
	return out
}

// StageFiles copies each path into a new directory under stage (the browser's UploadDir)
// and returns the copies, which are what the page gets (by the same base names). Each path
// must be absolute and lie under one of roots (Browser.UploadRoots; a root itself may be a
// symbolic link: it is the person's) with no hidden (dot) element below it, and is opened
// beneath that root with no symbolic link followed on any component and only if it is a
// regular file (safefs), never inside the protected directories (the host's
// private directory, the browser profile: resolved already). So the browser never opens a
// path a session could swap between the check and the upload. Anything else is
// BLOCKED_BY_POLICY (or NOT_FOUND, INVALID_ARGUMENT).
func StageFiles(paths []string, stage string, uploadRoots []string, owned func(string) bool, protected ...string) ([]string, error) {
	if len(paths) == 0 {
		return nil, werr.Invalid("filePaths must name at least one file")
	}
	roots := resolveRoots(uploadRoots, owned)
	room := stagingRoom(stage)
	dir, err := os.MkdirTemp(stage, "set-")
	if err != nil {
		return nil, werr.Wrap(err, werr.Internal, "cannot stage the files")
	}
	out := make([]string, 0, len(paths))
	for i, p := range paths {
		staged, err := stageFile(p, roots, protected, filepath.Join(dir, strconv.Itoa(i)), &room)
		if err != nil {
			os.RemoveAll(dir)
			return nil, err
		}
		out = append(out, staged)
	}
	return out, nil
}

// stageFile copies p into directory into (made here), taking its size from *room.
func stageFile(p string, roots []uploadRoot, protected []string, into string, room *int64) (string, error) {
	if p == "" {
		return "", werr.Invalid("empty file path")
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", werr.Invalid("bad path %q", p)
	}
	abs = filepath.Clean(abs)
	root, rel, owned := "", "", false
	for _, r := range roots {
		for _, form := range []string{r.written, r.real} {
			if x, ok := browser.Within(abs, form); ok && root == "" {
				root, rel, owned = r.real, x, r.owned
			}
		}
	}
	if root == "" {
		return "", werr.New(werr.BlockedByPolicy, "%s is outside Documents, Downloads, Desktop and the session's temporary directory", p).
			WithHint("copy the file into Documents, Downloads, Desktop or the session's temporary directory (its /tmp) first")
	}
	if browser.HasDotPart(rel) {
		return "", werr.New(werr.BlockedByPolicy, "%s: hidden files and directories are not uploaded", p)
	}
	if inside(filepath.Join(root, rel), protected) || inside(abs, protected) {
		return "", werr.New(werr.BlockedByPolicy, "%s is inside the host's private directory", p)
	}
	d, err := browser.OpenRoot(root, owned)
	if err != nil {
		return "", err
	}
	defer d.Close()
	src, err := d.OpenFile(rel)
	if err != nil {
		return "", err
	}
	defer src.Close()
	if err := os.Mkdir(into, 0o700); err != nil {
		return "", werr.Wrap(err, werr.Internal, "cannot stage %s", p)
	}
	dst := filepath.Join(into, filepath.Base(rel))
	f, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return "", werr.Wrap(err, werr.Internal, "cannot stage %s", p)
	}
	limit := min(maxUploadBytes, *room)
	n, err := io.Copy(f, io.LimitReader(src, limit+1))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	switch {
	case err != nil:
		return "", werr.Wrap(err, werr.Internal, "cannot stage %s", p)
	case n > maxUploadBytes:
		return "", werr.Invalid("%s is larger than %d MiB", p, maxUploadBytes>>20)
	case n > limit:
		return "", werr.New(werr.ResourceExhausted, "%s does not fit: the files already set on this browser's inputs take what the host stages for it (%d MiB at most, half the free space at most)", p, maxStagedBytes>>20).
			WithHint("close the browser session (close_browser_session or mcp_W365ComputerUse_EndSession) to free the copies, or set smaller files")
	}
	*room -= n
	return dst, nil
}

func inside(p string, roots []string) bool {
	for _, r := range roots {
		if rel, err := filepath.Rel(r, p); err == nil && rel != "." && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel) {
			return true
		}
	}
	return false
}
