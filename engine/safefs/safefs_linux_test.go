package safefs_test

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/w365/w365/engine/safefs"
)

// OpenNoLinks refuses a root with a symbolic link on any component (Open follows it), and
// File names the directory the handle opened, wherever it has been renamed to.
func TestOpenNoLinksRefusesALinkOnTheRootsPath(t *testing.T) {
	root, outside := tree(t)
	link := filepath.Join(root, "link")
	must(t, os.Symlink(outside, link))
	if d, err := safefs.OpenNoLinks(filepath.Join(link, ".")); err == nil {
		d.Close()
		t.Fatal("a root reached through a link was opened")
	}
	if d, err := safefs.OpenNoLinks(filepath.Join(link)); err == nil {
		d.Close()
		t.Fatal("a root that is a link was opened")
	}
	d, err := safefs.OpenNoLinks(filepath.Join(root, "a"))
	must(t, err)
	defer d.Close()
	must(t, os.Rename(filepath.Join(root, "a"), filepath.Join(root, "moved")))
	f, err := d.File()
	must(t, err)
	defer f.Close()
	must(t, os.WriteFile(filepath.Join(root, "moved", "x"), nil, 0o644))
	if _, err := os.Stat(filepath.Join("/proc/self/fd", strconv.Itoa(int(f.Fd())), "x")); err != nil {
		t.Errorf("File does not name the directory opened: %v", err)
	}
}
