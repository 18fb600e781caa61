//go:build !windows

package safefs_test

import (
	"errors"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/w365/w365/engine/safefs"
)

// A FIFO is never opened (opening one for reading blocks until a writer comes), and
// neither is a device.
func TestAFIFOOrADeviceIsNeverOpened(t *testing.T) {
	root, _ := tree(t)
	must(t, syscall.Mkfifo(filepath.Join(root, "a", "config"), 0o644))
	d := open(t, root)
	done := make(chan error, 1)
	go func() { _, err := d.ReadFile("a/config", 100); done <- err }()
	if err := <-done; !errors.Is(err, safefs.ErrNotRegular) {
		t.Errorf("ReadFile(FIFO) = %v, want ErrNotRegular", err)
	}
	if k, err := d.Kind("a"); err != nil || k != safefs.Directory {
		t.Errorf("Kind(a) = %v, %v", k, err)
	}
	sub, err := d.OpenDir("a")
	must(t, err)
	defer sub.Close()
	if k, _ := sub.Kind("config"); k != safefs.Other {
		t.Errorf("Kind(FIFO) = %v, want Other", k)
	}
	if err := sub.WriteFile("config", []byte("x"), 0o644, true); !errors.Is(err, safefs.ErrNotRegular) {
		t.Errorf("overwrite of a FIFO = %v, want ErrNotRegular", err)
	}
	if err := sub.Link("config", "config2"); !errors.Is(err, safefs.ErrNotRegular) {
		t.Errorf("Link(FIFO) = %v, want ErrNotRegular", err)
	}
	dev := open(t, "/dev")
	if _, err := dev.OpenFile("null"); !errors.Is(err, safefs.ErrNotRegular) {
		t.Errorf("OpenFile(/dev/null) = %v, want ErrNotRegular", err)
	}
	if _, err := d.OpenFile("a"); !errors.Is(err, safefs.ErrNotRegular) {
		t.Errorf("OpenFile(a directory) = %v, want ErrNotRegular", err)
	}
}
