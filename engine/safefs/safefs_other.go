//go:build !linux

package safefs

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// handle is an os.Root. os.Root keeps every name beneath it but follows symbolic links
// that stay inside, so each component is checked with Lstat first; a writer racing that
// check can still swap a component for a link that stays inside the root (never one that
// leaves it).
type handle struct{ r *os.Root }

func openRoot(path string) (handle, error) {
	r, err := os.OpenRoot(path)
	return handle{r}, err
}

// openRootNoLinks is openRoot: the working directories it opens were checked by path.
func openRootNoLinks(path string) (handle, error) { return openRoot(path) }

func (h handle) close() error { return h.r.Close() }

// noLinks refuses rel when any of its components is a symbolic link (or a reparse point).
func (h handle) noLinks(rel string) error {
	parts := strings.FieldsFunc(rel, func(r rune) bool { return r == '/' || r == filepath.Separator })
	for i := range parts {
		fi, err := h.r.Lstat(filepath.Join(parts[:i+1]...))
		if err != nil {
			return err
		}
		if fi.Mode()&(fs.ModeSymlink|fs.ModeIrregular) != 0 {
			return ErrUnsafe
		}
	}
	return nil
}

func (h handle) openDir(rel string) (handle, error) {
	if rel != "." {
		if err := h.noLinks(rel); err != nil {
			return handle{}, err
		}
	}
	r, err := h.r.OpenRoot(rel)
	return handle{r}, err
}

func (h handle) openRegular(rel string) (*os.File, error) {
	if err := h.noLinks(rel); err != nil {
		return nil, err
	}
	fi, err := h.r.Lstat(rel)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, ErrNotRegular
	}
	return h.r.Open(rel)
}

func (h handle) create(name string, perm fs.FileMode) (*os.File, error) {
	return h.r.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
}

func (h handle) kind(name string) (Kind, error) {
	fi, err := h.r.Lstat(name)
	if err != nil {
		if os.IsNotExist(err) {
			return Missing, nil
		}
		return Missing, err
	}
	switch m := fi.Mode(); {
	case m&(fs.ModeSymlink|fs.ModeIrregular) != 0:
		return Symlink, nil
	case m.IsRegular():
		return Regular, nil
	case m.IsDir():
		return Directory, nil
	}
	return Other, nil
}

func (h handle) rename(old, new string) error { return h.r.Rename(old, new) }

func (h handle) link(old, new string) error { return h.r.Link(old, new) }

func (h handle) remove(name string) error { return h.r.Remove(name) }

func (h handle) readDir() ([]fs.DirEntry, error) {
	f, err := h.r.Open(".")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return f.ReadDir(-1)
}
