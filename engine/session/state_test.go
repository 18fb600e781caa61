package session

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestEndNamesManyKeptFilesByDirectory: an end names the kept files one by one up to
// maxKeptNames, and past it the saved directories holding them, so that an agent that saved
// thousands of files is not sent thousands of paths; the files are kept either way and the
// rest of the state directory goes.
func TestEndNamesManyKeptFilesByDirectory(t *testing.T) {
	for _, c := range []struct {
		downloads int
		names     func(dir string) []string
	}{
		{3, func(dir string) []string {
			return []string{
				filepath.Join(dir, "home", "Documents", "note.txt"),
				filepath.Join(dir, "home", "Downloads", "f0"),
				filepath.Join(dir, "home", "Downloads", "f1"),
				filepath.Join(dir, "home", "Downloads", "f2"),
			}
		}},
		{maxKeptNames + 50, func(dir string) []string {
			return []string{
				filepath.Join(dir, "home", "Downloads") + string(filepath.Separator),
				filepath.Join(dir, "home", "Documents") + string(filepath.Separator),
			}
		}},
	} {
		dir := t.TempDir()
		write := func(rel string) {
			p := filepath.Join(dir, rel)
			if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte("x"), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		for i := range c.downloads {
			write(fmt.Sprintf("home/Downloads/f%d", i))
		}
		write("home/Documents/note.txt")
		write("home/.cache/scratch")
		write("tmp/work")
		got := sweepState(dir)
		want := c.names(dir)
		if !slices.Equal(got, want) {
			if len(got) > 6 {
				got = append(got[:6:6], fmt.Sprintf("... %d in all", len(got)))
			}
			t.Errorf("%d downloads: the end named %q, want %q", c.downloads, got, want)
		}
		if _, err := os.Stat(filepath.Join(dir, "home", "Downloads", fmt.Sprintf("f%d", c.downloads-1))); err != nil {
			t.Errorf("%d downloads: a saved file is gone: %v", c.downloads, err)
		}
		for _, gone := range []string{"home/.cache", "tmp"} {
			if _, err := os.Stat(filepath.Join(dir, gone)); !os.IsNotExist(err) {
				t.Errorf("%d downloads: %s is still there (%v)", c.downloads, gone, err)
			}
		}
	}
}
