// Package safefs is how the host touches a path that a session can write: every name is
// opened relative to a directory handle it checked, no symbolic link is followed on any
// component, nothing leads outside that directory, and no FIFO, socket or device is ever
// opened (so the host can never block on what a sandbox left). docs/security.md, "The host
// never follows what a session wrote".
//
// On Linux this is openat2(2) with RESOLVE_BENEATH|RESOLVE_NO_SYMLINKS|RESOLVE_NO_MAGICLINKS,
// and a file is first opened O_PATH and checked with fstat before it is opened for reading.
// Elsewhere it is os.Root with every component checked by Lstat first: the same answers,
// but a writer racing the check can still win there (platforms.md).
package safefs

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/w365/w365/engine/werr"
)

var (
	// ErrUnsafe is the cause of a refusal of a symbolic link on some component, an
	// absolute name or one leading outside the directory (..).
	ErrUnsafe = errors.New("a symbolic link, or a path leading outside its directory")
	// ErrNotRegular is the cause of a refusal to open what is not a regular file (a FIFO,
	// socket, device or directory).
	ErrNotRegular = errors.New("not a regular file")
)

// Kind is what a name is, without following it.
type Kind int

// The kinds Dir.Kind reports.
const (
	Missing Kind = iota
	Regular
	Directory
	Symlink
	Other // a FIFO, socket or device
)

// Dir is an open directory: every name given to its methods is relative to it.
type Dir struct {
	path string
	h    handle
}

// Path is the directory's name as it was opened (for messages: the directory itself may
// have been renamed since).
func (d *Dir) Path() string { return d.path }

// Close releases the handle.
func (d *Dir) Close() error { return d.h.close() }

// Open opens the directory path itself, following symbolic links: path is a root the
// caller trusts (the person's Documents, the session's output directory), and only what
// lies beneath it is untrusted.
func Open(path string) (*Dir, error) {
	h, err := openRoot(path)
	if err != nil {
		return nil, fail(err, path)
	}
	return &Dir{path: path, h: h}, nil
}

// OpenNoLinks opens the directory path (absolute) following no symbolic link on any of its
// components: a root a session may have swapped for a link since it was checked (a working
// directory) gives an error, never another directory. Elsewhere than Linux it is Open.
func OpenNoLinks(path string) (*Dir, error) {
	h, err := openRootNoLinks(path)
	if err != nil {
		return nil, fail(err, path)
	}
	return &Dir{path: path, h: h}, nil
}

// OpenDir opens the directory rel beneath d.
func (d *Dir) OpenDir(rel string) (*Dir, error) {
	if rel == "." || rel == "" {
		return d.dup()
	}
	if err := checkRel(rel); err != nil {
		return nil, fail(err, d.join(rel))
	}
	h, err := d.h.openDir(filepath.Clean(rel))
	if err != nil {
		return nil, fail(err, d.join(rel))
	}
	return &Dir{path: d.join(rel), h: h}, nil
}

func (d *Dir) dup() (*Dir, error) {
	h, err := d.h.openDir(".")
	if err != nil {
		return nil, fail(err, d.path)
	}
	return &Dir{path: d.path, h: h}, nil
}

// OpenFile opens the regular file rel beneath d for reading.
func (d *Dir) OpenFile(rel string) (*os.File, error) {
	if err := checkRel(rel); err != nil {
		return nil, fail(err, d.join(rel))
	}
	f, err := d.h.openRegular(filepath.Clean(rel))
	if err != nil {
		return nil, fail(err, d.join(rel))
	}
	return f, nil
}

// ReadFile reads the regular file rel beneath d, at most max bytes (more is an error).
func (d *Dir) ReadFile(rel string, max int64) ([]byte, error) {
	f, err := d.OpenFile(rel)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, werr.Wrap(err, werr.Internal, "cannot read %s", d.join(rel))
	}
	if int64(len(b)) > max {
		return nil, werr.Invalid("%s is larger than %d bytes", d.join(rel), max)
	}
	return b, nil
}

// Create creates the file name (one element) in d, exclusively: it fails with an error
// that errors.Is fs.ErrExist when anything, a symbolic link included, has that name.
func (d *Dir) Create(name string, perm fs.FileMode) (*os.File, error) {
	if err := checkName(name); err != nil {
		return nil, fail(err, d.join(name))
	}
	f, err := d.h.create(name, perm)
	if err != nil {
		return nil, fail(err, d.join(name))
	}
	return f, nil
}

// Kind says what name (one element) in d is, without following it.
func (d *Dir) Kind(name string) (Kind, error) {
	if err := checkName(name); err != nil {
		return Missing, fail(err, d.join(name))
	}
	k, err := d.h.kind(name)
	if err != nil {
		return Missing, fail(err, d.join(name))
	}
	return k, nil
}

// Rename renames the entry old of d to new in d (each one element); whatever old is (a
// symbolic link too) is renamed itself, and a symbolic link at new is replaced, not followed.
func (d *Dir) Rename(old, new string) error {
	if err := checkName(old); err != nil {
		return fail(err, d.join(old))
	}
	if err := checkName(new); err != nil {
		return fail(err, d.join(new))
	}
	return fail(d.h.rename(old, new), d.join(new))
}

// Link makes new a hard link to the regular file old, both in d (one element each);
// anything but a regular file at old is refused, and an existing new is an error that
// errors.Is fs.ErrExist.
func (d *Dir) Link(old, new string) error {
	if k, err := d.Kind(old); err != nil {
		return err
	} else if k != Regular {
		return fail(kindErr(k), d.join(old))
	}
	if err := checkName(new); err != nil {
		return fail(err, d.join(new))
	}
	return fail(d.h.link(old, new), d.join(new))
}

// Remove removes the entry name of d (a file, a symbolic link itself, or an empty directory).
func (d *Dir) Remove(name string) error {
	if err := checkName(name); err != nil {
		return fail(err, d.join(name))
	}
	return fail(d.h.remove(name), d.join(name))
}

// ReadDir lists d's entries; their types are those of the entries themselves (a symbolic
// link is a symbolic link).
func (d *Dir) ReadDir() ([]fs.DirEntry, error) {
	ents, err := d.h.readDir()
	if err != nil {
		return nil, fail(err, d.path)
	}
	return ents, nil
}

// WriteFile writes data as the regular file name (one element) in d, as WriteFrom does.
func (d *Dir) WriteFile(name string, data []byte, perm fs.FileMode, overwrite bool) error {
	return d.WriteFrom(name, perm, overwrite, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// WriteFrom makes the regular file name (one element) in d with what fill writes. Without
// overwrite the file is created exclusively; with it, fill writes to a new temporary file in
// d that then replaces name (a symbolic link there is replaced, never followed; a directory,
// FIFO, socket or device there is an error). When fill fails, what it wrote is removed and
// its error returned as it is.
func (d *Dir) WriteFrom(name string, perm fs.FileMode, overwrite bool, fill func(io.Writer) error) error {
	if !overwrite {
		f, err := d.Create(name, perm)
		if err != nil {
			return err
		}
		return d.finish(f, name, fill, name)
	}
	switch k, err := d.Kind(name); {
	case err != nil:
		return err
	case k == Directory:
		return werr.Invalid("%s is a directory", d.join(name))
	case k == Other:
		return fail(ErrNotRegular, d.join(name))
	}
	var tmp string
	var f *os.File
	for i := 0; ; i++ {
		tmp = ".w365-" + randomName() + ".tmp"
		var err error
		if f, err = d.Create(tmp, perm); err == nil {
			break
		} else if !errors.Is(err, fs.ErrExist) || i == 10 {
			return err
		}
	}
	if err := d.finish(f, tmp, fill, name); err != nil {
		return err
	}
	if err := d.Rename(tmp, name); err != nil {
		d.h.remove(tmp)
		return err
	}
	return nil
}

// finish has fill write f (created as name in d) and closes it; on failure name is removed.
func (d *Dir) finish(f *os.File, name string, fill func(io.Writer) error, target string) error {
	err := fill(f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		d.h.remove(name)
		var we *werr.Error
		if errors.As(err, &we) {
			return err
		}
		return werr.Wrap(err, werr.Internal, "cannot write %s", d.join(target))
	}
	return nil
}

func (d *Dir) join(rel string) string { return filepath.Join(d.path, rel) }

// checkRel accepts a relative name of one or more elements, none of them "..".
func checkRel(rel string) error {
	if rel == "" || filepath.IsAbs(rel) || filepath.VolumeName(rel) != "" || strings.ContainsRune(rel, 0) {
		return ErrUnsafe
	}
	for _, e := range strings.FieldsFunc(rel, func(r rune) bool { return r == '/' || r == filepath.Separator }) {
		if e == ".." {
			return ErrUnsafe
		}
	}
	return nil
}

// checkName accepts one element: not empty, ".", ".." nor holding a separator.
func checkName(name string) error {
	if name == "" || name == "." || name == ".." || strings.ContainsAny(name, `/`+string(filepath.Separator)+"\x00") {
		return ErrUnsafe
	}
	return nil
}

func kindErr(k Kind) error {
	switch k {
	case Missing:
		return fs.ErrNotExist
	case Symlink:
		return ErrUnsafe
	}
	return ErrNotRegular
}

// fail turns a system error into a werr error that keeps it as the cause (errors.Is
// fs.ErrExist, fs.ErrNotExist, ErrUnsafe, ErrNotRegular hold).
func fail(err error, path string) error {
	if err == nil {
		return nil
	}
	var we *werr.Error
	switch {
	case errors.As(err, &we):
		return err
	case errors.Is(err, ErrUnsafe):
		return werr.Wrap(err, werr.BlockedByPolicy, "%s: a symbolic link, or outside its directory: not followed", path)
	case errors.Is(err, ErrNotRegular):
		return werr.Wrap(err, werr.InvalidArgument, "%s is not a regular file", path)
	case errors.Is(err, fs.ErrNotExist):
		return werr.Wrap(err, werr.NotFound, "%s does not exist", path)
	case errors.Is(err, fs.ErrExist):
		return werr.Wrap(err, werr.InvalidArgument, "%s exists", path)
	case errors.Is(err, syscall.ENAMETOOLONG):
		return werr.Wrap(err, werr.InvalidArgument, "%s: the name is too long", path)
	}
	return werr.Wrap(err, werr.Internal, "%s: %v", path, err)
}

func randomName() string {
	b := make([]byte, 8)
	rand.Read(b)
	return hex.EncodeToString(b)
}
