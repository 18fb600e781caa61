// Package tmpdir makes the host's temporary directories (a desktop's private directory,
// staging and scratch directories, the browser's output directory) so that a host that dies
// without cleaning up, killed or crashed, does not leave them behind for good: the host holds
// a lock on each directory for as long as it uses it, and the next host to start (Sweep)
// removes every directory of those names, of its own user, that no living process holds
// (on Linux; elsewhere only the host that made a directory removes it).
package tmpdir

import "os"

// Bases are the directories Make is given: the system's temporary directory, and where
// the sandbox stages its mounts when others may not enter that one (docs/security.md).
func Bases() []string { return []string{os.TempDir(), "/tmp", "/var/tmp", "/dev/shm"} }

// Dir is a temporary directory this process made and holds.
type Dir struct {
	// Path is the directory's path.
	Path string
	lock *os.File
}

// Kind is what a directory is for: the beginning of its name.
type Kind string

// The kinds of directory, each swept (Sweep).
const (
	// Desktop is a virtual desktop's private directory (X authority, X socket, buses).
	Desktop Kind = "w365-xauth-"
	// Stage is where the sandbox helper of a root host stages its mounts.
	Stage Kind = "w365-stage-"
	// Work is a sandbox Runner's scratch directory without a session.
	Work Kind = "w365-work-"
	// Python holds the code of one Python call.
	Python Kind = "w365-py-"
	// OCR holds the tiles of one analyze_screen call.
	OCR Kind = "w365-ocr-"
)

// fresh is the name of a directory Make has made but not yet held and named.
const fresh Kind = "w365-new-"

var kinds = []Kind{Desktop, Stage, Work, Python, OCR, fresh}

// Make creates a new directory of kind k in base (the system's temporary directory when
// ""), mode 0700, and holds it until Remove or Release. The directory is held before it
// has its name: Sweep never sees one of a kind that its maker does not hold yet.
func Make(base string, k Kind) (*Dir, error) {
	var err error
	for range 3 {
		var d Dir
		if d.Path, d.lock, err = makeHeld(base, k); err == nil {
			return &d, nil
		}
	}
	return nil, err
}

// Release lets the directory go without removing it: once this process is gone too, the
// next Sweep may remove it.
func (d *Dir) Release() {
	if d != nil && d.lock != nil {
		d.lock.Close()
		d.lock = nil
	}
}

// Remove removes the directory and what it holds (following no symbolic link), then
// releases it.
func (d *Dir) Remove() error {
	if d == nil {
		return nil
	}
	err := os.RemoveAll(d.Path)
	d.Release()
	return err
}
