package sandbox

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/w365/w365/engine/policy"
)

// TestExpandGlobs: wildcards expand inside the working directory as bash would, never
// through a symlink that leaves it, and a match cannot become an option.
func TestExpandGlobs(t *testing.T) {
	dir := t.TempDir()
	outside := t.TempDir()
	for _, f := range []string{"a.py", "b.py", ".hidden.py", "-rf", "src/x.py", "src/y.txt", "src/deep/z.py"} {
		p := filepath.Join(dir, f)
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, nil, 0o644)
	}
	os.WriteFile(filepath.Join(outside, "secret.py"), nil, 0o644)
	os.Symlink(outside, filepath.Join(dir, "link"))
	p := policy.Default()
	for cmd, want := range map[string][]string{
		"ls *.py":          {"ls", "a.py", "b.py"},
		"ls .*.py":         {"ls", ".hidden.py"},
		"ls src/*":         {"ls", "src/deep", "src/x.py", "src/y.txt"},
		"ls */*.py":        {"ls", "src/x.py"},
		"ls src/*/":        {"ls", "src/deep/"},
		"ls link/*":        {"ls", "link/*"},
		"ls *.none":        {"ls", "*.none"},
		"ls '*'.py":        {"ls", "*.py"},
		`ls \*.py`:         {"ls", "*.py"},
		"ls -l [ab].py":    {"ls", "-l", "a.py", "b.py"},
		"ls ?.py src/?.py": {"ls", "a.py", "b.py", "src/x.py"},
		"rm -r -*":         {"rm", "-r", "./-rf"},
	} {
		words, err := linuxDialect.check(p, cmd, nil, []string{"HOME=/home/u"})
		if err != nil {
			t.Errorf("%q refused: %v", cmd, err)
			continue
		}
		argv, _, err := expandGlobs(words, dir)
		if err != nil {
			t.Errorf("%q: %v", cmd, err)
			continue
		}
		if !reflect.DeepEqual(argv, want) {
			t.Errorf("%q = %q, want %q", cmd, argv, want)
		}
	}
	// rm * with a file named -rf: the match is ./-rf, and rm's rules run on the result.
	words, _ := linuxDialect.check(p, "rm *", nil, nil)
	argv, expanded, err := expandGlobs(words, dir)
	if err != nil || !expanded || strings.Contains(strings.Join(argv, " "), " -rf") {
		t.Errorf("rm * = %q, %v", argv, err)
	}
}

// TestCwdRules: besides the scratch directory, cwd lies in a workspace root and outside
// HOME's dot-directories, .git, launch and private directories.
func TestCwdRules(t *testing.T) {
	home := t.TempDir()
	for _, d := range []string{"project/.git/hooks", "project/src", ".ssh", ".config/autostart", "bin", "private/sessions"} {
		os.MkdirAll(filepath.Join(home, d), 0o755)
	}
	p := policy.Default()
	p.LaunchDirs = append(p.LaunchDirs, filepath.Join(home, "bin"))
	r := NewRunner(p, []string{"HOME=" + home}, filepath.Join(home, "private"))
	defer r.Close()
	for cwd, ok := range map[string]bool{
		"~/project":                        true,
		filepath.Join(home, "project/src"): true,
		"":                                 true,
		"sub-of-scratch":                   false, // missing: NOT_FOUND
		"~":                                false,
		home:                               false,
		"~/.ssh":                           false,
		"~/.config/autostart":              false,
		"~/project/.git":                   false,
		"~/project/.git/hooks":             false,
		"~/bin":                            false,
		"~/private":                        false,
		"~/private/sessions":               false,
		os.TempDir():                       false,
		"/etc":                             false,
		"/":                                false,
	} {
		_, err := r.resolveCwd(cwd)
		if (err == nil) != ok {
			t.Errorf("cwd %q: %v, want accepted %v", cwd, err, ok)
		}
	}
	// A workspace root elsewhere than HOME.
	other := t.TempDir()
	p2 := policy.Default()
	p2.WorkspaceRoots = []string{other}
	r2 := NewRunner(p2, []string{"HOME=" + home})
	defer r2.Close()
	if _, err := r2.resolveCwd(other); err != nil {
		t.Errorf("workspace root %s: %v", other, err)
	}
	if _, err := r2.resolveCwd(filepath.Join(home, "project")); err == nil {
		t.Errorf("a project outside the workspace roots was accepted")
	}
}
