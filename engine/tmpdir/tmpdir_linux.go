//go:build linux

package tmpdir

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"
)

// hold takes the lock of directory p: an exclusive flock on the directory itself, which
// the kernel drops when this process ends, however it ends.
func hold(p string) (*os.File, error) {
	fd, err := unix.Open(p, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: p, Err: err}
	}
	if err := unix.Flock(fd, unix.LOCK_EX|unix.LOCK_NB); err != nil {
		unix.Close(fd)
		return nil, &os.PathError{Op: "flock", Path: p, Err: err}
	}
	return os.NewFile(uintptr(fd), p), nil
}

// makeHeld makes a directory of kind k in base: made under a fresh name, held, then
// renamed (a rename keeps the lock, which is the directory's).
func makeHeld(base string, k Kind) (string, *os.File, error) {
	tmp, err := os.MkdirTemp(base, string(fresh))
	if err != nil {
		return "", nil, err
	}
	f, err := hold(tmp)
	if err != nil {
		return "", nil, err // a Sweep took it: it was not held yet
	}
	for {
		var b [8]byte
		rand.Read(b[:])
		p := filepath.Join(filepath.Dir(tmp), string(k)+hex.EncodeToString(b[:]))
		err := unix.Renameat2(unix.AT_FDCWD, tmp, unix.AT_FDCWD, p, unix.RENAME_NOREPLACE)
		if err == unix.EINVAL || err == unix.ENOSYS {
			err = os.Rename(tmp, p) // no RENAME_NOREPLACE here; 64 random bits make a clash unlikely
		}
		switch {
		case err == nil:
			return p, f, nil
		case errors.Is(err, unix.EEXIST):
			continue
		default:
			f.Close()
			os.Remove(tmp)
			return "", nil, &os.LinkError{Op: "rename", Old: tmp, New: p, Err: err}
		}
	}
}

// Sweep removes, in each of bases, the directories of every Kind that belong to this
// process's user and that no process holds: what hosts that died left behind. It returns
// the paths it removed. Nothing is followed: a symbolic link of such a name is left alone,
// and the directories go by os.RemoveAll, which follows no link inside.
func Sweep(bases ...string) []string {
	var removed []string
	seen := map[string]bool{}
	for _, base := range bases {
		if base == "" || seen[filepath.Clean(base)] {
			continue
		}
		seen[filepath.Clean(base)] = true
		SweepDirs(base, func(p string) bool { return ofAKind(filepath.Base(p)) }, func(p string) {
			if os.RemoveAll(p) == nil {
				removed = append(removed, p)
			}
		})
	}
	return removed
}

// Hold holds the directory at path, which its caller made, as Make holds its own, until
// Remove or Release: SweepDirs passes it by while this process lives.
func Hold(path string) (*Dir, error) {
	f, err := hold(path)
	if err != nil {
		return nil, err
	}
	return &Dir{Path: path, lock: f}, nil
}

// SweepDirs calls clean, holding it, on every directory in base that belongs to this
// process's user, that accept takes, and that no process holds. A symbolic link is never
// taken for a directory.
func SweepDirs(base string, accept func(path string) bool, clean func(path string)) {
	ents, err := os.ReadDir(base)
	if err != nil {
		return
	}
	for _, e := range ents {
		p := filepath.Join(base, e.Name())
		var st unix.Stat_t
		if !e.IsDir() || unix.Lstat(p, &st) != nil || int(st.Uid) != os.Geteuid() || !accept(p) {
			continue
		}
		f, err := hold(p)
		if err != nil {
			continue // held: its host lives
		}
		clean(p)
		f.Close()
	}
}

// ofAKind says whether name is one Make gives. A directory of a kind's name that an older
// w365 made (decimal digits, held by nobody while in use) is left alone: its host may run.
func ofAKind(name string) bool {
	for _, k := range kinds {
		if rest, ok := strings.CutPrefix(name, string(k)); ok {
			if k == fresh {
				return true
			}
			_, err := hex.DecodeString(rest)
			return len(rest) == 16 && err == nil && strings.ToLower(rest) == rest
		}
	}
	return false
}
