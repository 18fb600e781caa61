package safefs_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/w365/w365/engine/safefs"
	"github.com/w365/w365/engine/werr"
)

// tree makes root/a/b/file.txt, and outside/secret beside root.
func tree(t *testing.T) (root, outside string) {
	base := t.TempDir()
	root, outside = filepath.Join(base, "root"), filepath.Join(base, "outside")
	for _, d := range []string{filepath.Join(root, "a", "b"), outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	must(t, os.WriteFile(filepath.Join(root, "a", "b", "file.txt"), []byte("inside"), 0o644))
	must(t, os.WriteFile(filepath.Join(outside, "secret"), []byte("canary"), 0o644))
	return root, outside
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func open(t *testing.T, root string) *safefs.Dir {
	d, err := safefs.Open(root)
	must(t, err)
	t.Cleanup(func() { d.Close() })
	return d
}

func TestAFileBeneathTheDirectoryIsRead(t *testing.T) {
	root, _ := tree(t)
	b, err := open(t, root).ReadFile("a/b/file.txt", 100)
	if err != nil || string(b) != "inside" {
		t.Fatalf("read %q, %v", b, err)
	}
}

// A symbolic link on any component, to a place inside or outside, absolute or relative,
// is refused for every operation, and the file behind it is never touched.
func TestASymbolicLinkOnAnyComponentIsNeverFollowed(t *testing.T) {
	for _, c := range []struct{ name, link, target, open string }{
		{"the first directory, absolute target outside", "a", "OUTSIDE", "a/secret"},
		{"the middle directory, relative target outside", "a/b", "../../outside", "a/b/secret"},
		{"the last element, absolute target outside", "a/b/file.txt", "OUTSIDE/secret", "a/b/file.txt"},
		{"the last element, relative target inside", "a/b/file.txt", "../../in/real.txt", "a/b/file.txt"},
		{"a directory, target inside", "a/b", "../in", "a/b/real.txt"},
	} {
		t.Run(c.name, func(t *testing.T) {
			root, outside := tree(t)
			must(t, os.MkdirAll(filepath.Join(root, "in"), 0o755))
			must(t, os.WriteFile(filepath.Join(root, "in", "real.txt"), []byte("real"), 0o644))
			target := c.target
			if rest, ok := cutPrefix(target, "OUTSIDE"); ok {
				target = outside + rest
			}
			must(t, os.RemoveAll(filepath.Join(root, c.link)))
			must(t, os.Symlink(target, filepath.Join(root, c.link)))
			d := open(t, root)
			if _, err := d.ReadFile(c.open, 100); !errors.Is(err, safefs.ErrUnsafe) || werr.CodeOf(err) != werr.BlockedByPolicy {
				t.Errorf("ReadFile(%s) = %v, want a BLOCKED_BY_POLICY refusal", c.open, err)
			}
			parent, name := filepath.Split(c.open)
			if sub, err := d.OpenDir(filepath.Clean(parent)); err == nil {
				defer sub.Close()
				if err := sub.WriteFile(name, []byte("written"), 0o644, true); err == nil {
					if k, _ := sub.Kind(name); k != safefs.Regular {
						t.Errorf("overwrite of %s made a %v", c.open, k)
					}
				}
			} else if !errors.Is(err, safefs.ErrUnsafe) {
				t.Errorf("OpenDir(%s) = %v, want a refusal", parent, err)
			}
			if b, _ := os.ReadFile(filepath.Join(outside, "secret")); string(b) != "canary" {
				t.Errorf("the file outside was changed: %q", b)
			}
			if b, _ := os.ReadFile(filepath.Join(root, "in", "real.txt")); string(b) != "real" {
				t.Errorf("the link's target inside was changed: %q", b)
			}
		})
	}
}

func cutPrefix(s, p string) (string, bool) {
	if len(s) >= len(p) && s[:len(p)] == p {
		return s[len(p):], true
	}
	return s, false
}

func TestNamesLeadingOutsideAreRefused(t *testing.T) {
	root, outside := tree(t)
	d := open(t, root)
	for _, rel := range []string{"../outside/secret", "a/../../outside/secret", outside + "/secret", "a/b/../../../outside/secret"} {
		if _, err := d.ReadFile(rel, 100); !errors.Is(err, safefs.ErrUnsafe) {
			t.Errorf("ReadFile(%q) = %v, want a refusal", rel, err)
		}
		if _, err := d.OpenDir(filepath.Dir(rel)); err == nil && filepath.Dir(rel) != "." {
			t.Errorf("OpenDir(%q) opened", filepath.Dir(rel))
		}
	}
	for _, name := range []string{"..", ".", "a/b", "", "x\x00y"} {
		if _, err := d.Create(name, 0o644); !errors.Is(err, safefs.ErrUnsafe) {
			t.Errorf("Create(%q) = %v, want a refusal", name, err)
		}
		if err := d.Rename("a", name); !errors.Is(err, safefs.ErrUnsafe) {
			t.Errorf("Rename(a, %q) = %v, want a refusal", name, err)
		}
	}
}

func TestWriteFileNeverReplacesWithoutOverwrite(t *testing.T) {
	root, outside := tree(t)
	d := open(t, root)
	must(t, os.Symlink(filepath.Join(outside, "secret"), filepath.Join(root, "link.pdf")))
	if err := d.WriteFile("link.pdf", []byte("x"), 0o644, false); !errors.Is(err, fs.ErrExist) {
		t.Errorf("exclusive write over a symbolic link = %v, want exists", err)
	}
	must(t, d.WriteFile("new.pdf", []byte("one"), 0o644, false))
	if err := d.WriteFile("new.pdf", []byte("two"), 0o644, false); !errors.Is(err, fs.ErrExist) {
		t.Errorf("exclusive write over a file = %v", err)
	}
	must(t, d.WriteFile("new.pdf", []byte("two"), 0o644, true))
	must(t, d.WriteFile("link.pdf", []byte("replaced"), 0o644, true))
	if b, _ := os.ReadFile(filepath.Join(outside, "secret")); string(b) != "canary" {
		t.Errorf("overwrite followed the link: the file outside holds %q", b)
	}
	if b, _ := os.ReadFile(filepath.Join(root, "new.pdf")); string(b) != "two" {
		t.Errorf("new.pdf holds %q", b)
	}
	if err := d.WriteFile("a", []byte("x"), 0o644, true); werr.CodeOf(err) != werr.InvalidArgument {
		t.Errorf("overwrite of a directory = %v", err)
	}
	ents, err := d.ReadDir()
	must(t, err)
	for _, e := range ents {
		if len(e.Name()) > 6 && e.Name()[:6] == ".w365-" {
			t.Errorf("a temporary file is left: %s", e.Name())
		}
	}
}

// A directory handle keeps naming the directory it opened: a swap of that directory for
// a symbolic link afterwards changes nothing about where a write goes.
func TestAHandleSurvivesASwapOfItsDirectory(t *testing.T) {
	root, outside := tree(t)
	d := open(t, root)
	sub, err := d.OpenDir("a/b")
	must(t, err)
	defer sub.Close()
	must(t, os.Rename(filepath.Join(root, "a", "b"), filepath.Join(root, "a", "moved")))
	must(t, os.Symlink(outside, filepath.Join(root, "a", "b")))
	must(t, sub.WriteFile("out.pdf", []byte("pdf"), 0o644, false))
	if _, err := os.Lstat(filepath.Join(outside, "out.pdf")); err == nil {
		t.Fatal("the write followed the swapped-in link")
	}
	if b, _ := os.ReadFile(filepath.Join(root, "a", "moved", "out.pdf")); string(b) != "pdf" {
		t.Errorf("the file is not in the directory the handle opened: %q", b)
	}
}

func TestRenameAndLinkActOnTheEntryItself(t *testing.T) {
	root, outside := tree(t)
	must(t, os.Symlink(outside, filepath.Join(root, "hooks")))
	d := open(t, root)
	must(t, d.Rename("hooks", "hooks.w365-untrusted"))
	if k, _ := d.Kind("hooks.w365-untrusted"); k != safefs.Symlink {
		t.Errorf("the renamed entry is %v, want the link itself", k)
	}
	if _, err := os.Stat(filepath.Join(outside, "secret")); err != nil {
		t.Errorf("the link's target changed: %v", err)
	}
	if err := d.Link("hooks.w365-untrusted", "x"); !errors.Is(err, safefs.ErrUnsafe) {
		t.Errorf("Link of a symbolic link = %v, want a refusal", err)
	}
	must(t, d.Remove("hooks.w365-untrusted"))
	if _, err := os.Stat(filepath.Join(outside, "secret")); err != nil {
		t.Errorf("removing the link removed its target: %v", err)
	}
}

// A name longer than the system takes (browser_pdf_save's filePath of 1 MB) is the caller's
// error, not the host's, for every operation that takes one.
func TestANameTooLongIsAnInvalidArgument(t *testing.T) {
	root, _ := tree(t)
	d := open(t, root)
	for _, name := range []string{strings.Repeat("A", 256), strings.Repeat("A", 1<<20), strings.Repeat("é", 128)} {
		_, kindErr := d.Kind(name)
		_, readErr := d.ReadFile(name, 100)
		writeErr := d.WriteFile(name, []byte("x"), 0o644, false)
		for op, err := range map[string]error{"Kind": kindErr, "ReadFile": readErr, "WriteFile": writeErr} {
			if werr.CodeOf(err) != werr.InvalidArgument {
				t.Errorf("%s of %.20q: %v, want INVALID_ARGUMENT", op, name, err)
			}
		}
	}
}
