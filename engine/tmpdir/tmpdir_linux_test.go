package tmpdir

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// Sweep removes exactly the directories of a kind that nobody holds: not a held one, not
// another name nor an older w365's, not a symbolic link of a kind's name nor what it points to.
func TestSweepRemovesOnlyWhatNobodyHolds(t *testing.T) {
	base, outside := t.TempDir(), t.TempDir()
	held, err := Make(base, Desktop)
	if err != nil {
		t.Fatal(err)
	}
	defer held.Remove()
	if !strings.HasPrefix(filepath.Base(held.Path), string(Desktop)) {
		t.Fatalf("made %s, want a name beginning %s", held.Path, Desktop)
	}
	released, err := Make(base, Stage)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(released.Path, "socket"), nil, 0o600)
	released.Release()
	unheld := filepath.Join(base, string(fresh)+"1") // a maker died before holding it
	other := filepath.Join(base, "w365-sessions")
	for _, d := range []string{unheld, other, filepath.Join(outside, "keep")} {
		os.MkdirAll(d, 0o700)
	}
	older := filepath.Join(base, string(Python)+"123456789") // an older w365's, maybe in use
	os.Mkdir(older, 0o700)
	link := filepath.Join(base, string(Work)+"00112233445566ff")
	os.Symlink(outside, link)

	gone := Sweep(base, base) // a base named twice is swept once
	slices.Sort(gone)
	want := []string{released.Path, unheld}
	slices.Sort(want)
	if !slices.Equal(gone, want) {
		t.Errorf("Sweep removed %v, want %v", gone, want)
	}
	for _, p := range []string{held.Path, other, older, link, filepath.Join(outside, "keep")} {
		if _, err := os.Lstat(p); err != nil {
			t.Errorf("%s: %v after Sweep", p, err)
		}
	}
	if err := held.Remove(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(held.Path); !os.IsNotExist(err) {
		t.Errorf("%s after Remove: %v", held.Path, err)
	}
}
