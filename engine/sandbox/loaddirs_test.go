package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/w365/w365/engine/policy"
)

// TestLoadDirs: each variable of loadPathVars is read as its kind says; relative entries,
// HOME and what holds it name nothing.
func TestLoadDirs(t *testing.T) {
	home := t.TempDir()
	h := func(p string) string { return filepath.Join(home, p) }
	for k, v := range map[string]string{
		"PYTHONPATH":      h("py") + "::.:relative",
		"PYTHONUSERBASE":  h("pyuser"),
		"NODE_PATH":       h("node"),
		"LD_LIBRARY_PATH": h("lib") + ":" + home,
		"LD_PRELOAD":      h("pre/hook.so") + " " + h("pre2/x.so") + ":libc.so.6",
		"GOPATH":          h("gp"),
		"CLASSPATH":       h("classes") + ":" + h("jars/a.jar") + ":" + h("all/*"),
		"LUA_PATH":        h("lua/?.lua") + ";" + h("lua2/?/init.lua") + ";;",
		"LUA_CPATH":       h("luac/lib?.so"),
	} {
		t.Setenv(k, v)
	}
	for _, k := range []string{"PERL5LIB", "PERLLIB", "GOMODCACHE", "R_LIBS", "R_LIBS_USER", "RUBYLIB", "GEM_HOME", "GEM_PATH", "LUA_PATH_5_4", "LUA_CPATH_5_4"} {
		t.Setenv(k, "")
	}
	var got []string
	for _, l := range loadDirs(home) {
		got = append(got, l.name+"="+l.dir)
	}
	want := []string{"PYTHONPATH=" + h("py"), "PYTHONUSERBASE=" + h("pyuser"), "NODE_PATH=" + h("node"), "LD_LIBRARY_PATH=" + h("lib"),
		"LD_PRELOAD=" + h("pre"), "LD_PRELOAD=" + h("pre2"), "GOPATH=" + h("gp/pkg/mod"), "GOPATH=" + h("gp/bin"),
		"R_LIBS_USER=" + h("R"), "CLASSPATH=" + h("classes"), "CLASSPATH=" + h("jars"), "CLASSPATH=" + h("all"),
		"LUA_PATH=" + h("lua"), "LUA_PATH=" + h("lua2"), "LUA_CPATH=" + h("luac"), "~/node_modules, looked in from every folder of HOME=" + h("node_modules")}
	if !slices.Equal(got, want) {
		t.Errorf("loadDirs:\n got %q\nwant %q", got, want)
	}
	// GOPATH unset is ~/go.
	t.Setenv("GOPATH", "")
	if ds := loadDirs(home); !slices.Contains(ds, loadDir{"GOPATH", h("go/pkg/mod")}) {
		t.Errorf("with GOPATH unset, ~/go/pkg/mod is not among %v", ds)
	}
	// As a working directory: a folder a variable names, one inside it, and one holding it
	// are refused; one beside them is not.
	for _, d := range []string{"py/pkg", "node", "work/project"} {
		os.MkdirAll(h(d), 0o755)
	}
	r := NewRunner(policy.Default(), []string{"HOME=" + home})
	defer r.Close()
	t.Setenv("HOME", home)
	for cwd, ok := range map[string]bool{"~/py": false, "~/py/pkg": false, "~/node": false, "~/work/project": true} {
		if _, err := r.resolveCwd(cwd); (err == nil) != ok {
			t.Errorf("cwd %s: %v, want accepted %v", cwd, err, ok)
		}
	}
	t.Setenv("NODE_PATH", h("work/project/node_modules"))
	if _, err := r.resolveCwd("~/work"); err == nil {
		t.Error("a folder holding a NODE_PATH directory was accepted")
	}
}

// BenchmarkCwdProgramRule is the cost of the rule per call (holdsPrograms) with this
// process's environment and a few load-path variables set.
func BenchmarkCwdProgramRule(b *testing.B) {
	home := b.TempDir()
	os.MkdirAll(filepath.Join(home, "project"), 0o755)
	b.Setenv("PYTHONPATH", filepath.Join(home, "py"))
	b.Setenv("NODE_PATH", "/usr/lib/node_modules")
	b.Setenv("LD_LIBRARY_PATH", "/usr/local/lib:"+filepath.Join(home, "lib"))
	dir := filepath.Join(home, "project")
	for b.Loop() {
		holdsPrograms(dir, home)
	}
}
