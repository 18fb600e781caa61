package safefs

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"strconv"
	"time"

	"golang.org/x/sys/unix"
)

// handle is a directory's file descriptor.
type handle struct{ f *os.File }

// resolve is how every name beneath a handle is looked up: beneath it, and no symbolic
// link (nor /proc magic link) on any component.
const resolve = unix.RESOLVE_BENEATH | unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS

func openRoot(path string) (handle, error) {
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return handle{}, sysErr(err)
	}
	return handle{os.NewFile(uintptr(fd), path)}, nil
}

func openRootNoLinks(path string) (handle, error) {
	for {
		fd, err := unix.Openat2(unix.AT_FDCWD, path, &unix.OpenHow{Flags: unix.O_RDONLY | unix.O_DIRECTORY | unix.O_CLOEXEC,
			Resolve: unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS})
		if err == unix.EINTR || err == unix.EAGAIN {
			continue
		}
		if err != nil {
			return handle{}, sysErr(err)
		}
		return handle{os.NewFile(uintptr(fd), path)}, nil
	}
}

// File is a new handle (O_PATH) of the directory d itself, whatever its name is now: bind
// it, never a path looked up again.
func (d *Dir) File() (*os.File, error) {
	fd, err := unix.Openat(d.h.fd(), ".", unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, fail(sysErr(err), d.path)
	}
	return os.NewFile(uintptr(fd), d.path), nil
}

func (h handle) fd() int { return int(h.f.Fd()) }

func (h handle) close() error { return h.f.Close() }

func (h handle) openat2(rel string, flags uint64, mode uint64) (int, error) {
	for {
		// No O_NOFOLLOW: with it a trailing link is opened itself (O_PATH) or gives ENOTDIR;
		// without it RESOLVE_NO_SYMLINKS refuses a trailing link like any other (ELOOP).
		fd, err := unix.Openat2(h.fd(), rel, &unix.OpenHow{Flags: flags | unix.O_CLOEXEC, Mode: mode, Resolve: resolve})
		if err == unix.EINTR || err == unix.EAGAIN { // EAGAIN: a rename raced the lookup
			continue
		}
		return fd, sysErr(err)
	}
}

func (h handle) openDir(rel string) (handle, error) {
	fd, err := h.openat2(rel, unix.O_RDONLY|unix.O_DIRECTORY, 0)
	if err != nil {
		return handle{}, err
	}
	return handle{os.NewFile(uintptr(fd), rel)}, nil
}

// openRegular looks rel up as an O_PATH descriptor, which opens nothing (a FIFO does not
// block, a device sees no open), checks that it is a regular file, and only then opens
// that very inode for reading through its /proc/self/fd entry.
func (h handle) openRegular(rel string) (*os.File, error) {
	pfd, err := h.openat2(rel, unix.O_PATH, 0)
	if err != nil {
		return nil, err
	}
	defer unix.Close(pfd)
	var st unix.Stat_t
	if err := unix.Fstat(pfd, &st); err != nil {
		return nil, sysErr(err)
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG {
		return nil, ErrNotRegular
	}
	fd, err := unix.Open("/proc/self/fd/"+strconv.Itoa(pfd), unix.O_RDONLY|unix.O_CLOEXEC|unix.O_NONBLOCK, 0)
	if err != nil {
		return nil, sysErr(err)
	}
	return os.NewFile(uintptr(fd), rel), nil
}

func (h handle) create(name string, perm fs.FileMode) (*os.File, error) {
	fd, err := h.openat2(name, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL, uint64(perm.Perm()))
	if err != nil {
		return nil, err
	}
	return os.NewFile(uintptr(fd), name), nil
}

func (h handle) kind(name string) (Kind, error) {
	var st unix.Stat_t
	if err := unix.Fstatat(h.fd(), name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		if err == unix.ENOENT {
			return Missing, nil
		}
		return Missing, sysErr(err)
	}
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFREG:
		return Regular, nil
	case unix.S_IFDIR:
		return Directory, nil
	case unix.S_IFLNK:
		return Symlink, nil
	}
	return Other, nil
}

func (h handle) rename(old, new string) error {
	return sysErr(unix.Renameat(h.fd(), old, h.fd(), new))
}

// link makes a hard link without AT_SYMLINK_FOLLOW: a symbolic link would be linked
// itself, never its target (Link checks for a regular file first anyway).
func (h handle) link(old, new string) error {
	return sysErr(unix.Linkat(h.fd(), old, h.fd(), new, 0))
}

func (h handle) remove(name string) error {
	err := unix.Unlinkat(h.fd(), name, 0)
	if err == unix.EISDIR || err == unix.EPERM {
		err = unix.Unlinkat(h.fd(), name, unix.AT_REMOVEDIR)
	}
	return sysErr(err)
}

// EachEntry calls fn with the entries of d, at most n at a time, until none is left: a
// directory of a million names costs one batch's memory, not a million's. Entries renamed
// or made meanwhile may or may not be given.
func (d *Dir) EachEntry(n int, fn func([]fs.DirEntry)) error {
	h, err := d.h.openDir(".")
	if err != nil {
		return fail(err, d.path)
	}
	defer h.close()
	for {
		ents, err := h.f.ReadDir(n)
		if len(ents) > 0 {
			fn(ents)
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fail(err, d.path)
		}
	}
}

func (h handle) readDir() ([]fs.DirEntry, error) {
	d, err := h.openDir(".")
	if err != nil {
		return nil, err
	}
	defer d.close()
	return d.f.ReadDir(-1)
}

// sysErr names the refusals of openat2: ELOOP (a symbolic link), EXDEV (leads outside).
func sysErr(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, unix.ELOOP), errors.Is(err, unix.EXDEV):
		return errors.Join(ErrUnsafe, err)
	case errors.Is(err, unix.ENOTDIR): // a component is not a directory
		return errors.Join(fs.ErrNotExist, err)
	}
	return err
}

// Changed is the status-change time (ctime) of the entry name (one element) of d, not
// following it: when its content, metadata, links or name last changed. No program can
// set it, unlike the modification time. Linux only.
func (d *Dir) Changed(name string) (time.Time, error) {
	if err := checkName(name); err != nil {
		return time.Time{}, fail(err, d.join(name))
	}
	var st unix.Stat_t
	if err := unix.Fstatat(d.h.fd(), name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return time.Time{}, fail(sysErr(err), d.join(name))
	}
	return time.Unix(st.Ctim.Unix()), nil
}
