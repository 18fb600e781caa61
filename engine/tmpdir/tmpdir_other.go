//go:build !linux

package tmpdir

import "os"

// makeHeld makes a directory of kind k in base, held by nobody.
func makeHeld(base string, k Kind) (string, *os.File, error) {
	p, err := os.MkdirTemp(base, string(k))
	return p, nil, err
}

// Sweep removes nothing on this platform, and makeHeld holds nothing: elsewhere than on
// Linux a host's temporary directories are removed only by that host (docs/platforms.md).
func Sweep(...string) []string { return nil }

// Hold holds nothing on this platform (see Sweep).
func Hold(path string) (*Dir, error) { return &Dir{Path: path}, nil }

// SweepDirs sweeps nothing on this platform (see Sweep).
func SweepDirs(string, func(string) bool, func(string)) {}
