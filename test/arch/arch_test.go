package arch_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/build/constraint"
	"go/parser"
	"go/token"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/w365/w365/test/testenv"
)

// The rules of the layout (the design's Layout and its dependency rules):
//
//   - dependencies go one way: cmd -> repl -> commands/cli -> commands/host -> commands ->
//     commands/tool -> engine, each layer importing only those after it; cmd/ holds main
//     alone, so it imports nothing but the front-ends;
//   - platform differences stay inside engine packages: nothing under commands/ has a file
//     for one OS (by its name or a build constraint) or reads runtime.GOOS;
//   - engine/desktop is the contract every backend shares, with no OS code; no backend
//     imports another; the Windows and macOS builds link no X11 or D-Bus library;
//   - every top-level package under engine/ is named for what it does, not for a platform.

const module = "github.com/w365/w365"

// goosList are the operating systems the layout is checked for.
var goosList = []string{"linux", "windows", "darwin"}

// pkg is what go list says of one package for one GOOS.
type pkg struct {
	ImportPath string
	Imports    []string // direct, of the non-test files
	Deps       []string // transitive
	DepOnly    bool
}

var (
	graphsOnce sync.Once
	graphs     map[string]map[string]*pkg
	graphsErr  error
)

// graph is every package of the module, and every package they depend on, as the build
// for goos sees them: one go list per GOOS, run in parallel once for all the tests.
func graph(t *testing.T, goos string) map[string]*pkg {
	t.Helper()
	testenv.Require(t, "go")
	graphsOnce.Do(func() {
		graphs = map[string]map[string]*pkg{}
		var mu sync.Mutex
		var wg sync.WaitGroup
		var errs []error
		for _, goos := range goosList {
			wg.Go(func() {
				g, err := goList(goos)
				mu.Lock()
				defer mu.Unlock()
				graphs[goos] = g
				if err != nil {
					errs = append(errs, err)
				}
			})
		}
		wg.Wait()
		graphsErr = errors.Join(errs...)
	})
	if graphsErr != nil {
		t.Fatal(graphsErr)
	}
	return graphs[goos]
}

func goList(goos string) (map[string]*pkg, error) {
	cmd := exec.Command("go", "list", "-e", "-deps", "-json=ImportPath,Imports,Deps,DepOnly", "./...")
	cmd.Dir = testenv.Root()
	cmd.Env = append(os.Environ(), "GOOS="+goos, "GOARCH=amd64", "CGO_ENABLED=0")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("GOOS=%s go list: %v\n%s", goos, err, stderr.Bytes())
	}
	g := map[string]*pkg{}
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p pkg
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			return nil, fmt.Errorf("GOOS=%s go list: %v", goos, err)
		}
		g[p.ImportPath] = &p
	}
	if g[module+"/cmd/w365"] == nil {
		return nil, fmt.Errorf("GOOS=%s go list lists no %s/cmd/w365", goos, module)
	}
	return g, nil
}

// rel is a module package's path inside the module ("engine/session"), or "" for a
// package of another module or the standard library.
func rel(path string) string {
	if path == module {
		return "."
	}
	r, ok := strings.CutPrefix(path, module+"/")
	if !ok {
		return ""
	}
	return r
}

// under says path is dir or a package below it.
func under(path, dir string) bool { return path == dir || strings.HasPrefix(path, dir+"/") }

// modulePkgs are the module's own packages of a graph, sorted.
func modulePkgs(g map[string]*pkg) []*pkg {
	var out []*pkg
	for _, p := range g {
		if rel(p.ImportPath) != "" && !p.DepOnly {
			out = append(out, p)
		}
	}
	slices.SortFunc(out, func(a, b *pkg) int { return strings.Compare(a.ImportPath, b.ImportPath) })
	return out
}

// TestWindowsAndMacBuildsLinkNoX11OrDBus: the X11 protocol (xgb) and D-Bus (godbus, for
// AT-SPI) are the Linux backend's, and only the Linux build of w365 may link them.
func TestWindowsAndMacBuildsLinkNoX11OrDBus(t *testing.T) {
	for _, goos := range []string{"windows", "darwin"} {
		w365 := graph(t, goos)[module+"/cmd/w365"]
		for _, d := range w365.Deps {
			if under(d, "github.com/jezek/xgb") || under(d, "github.com/godbus/dbus") || under(d, "github.com/godbus/dbus/v5") {
				t.Errorf("GOOS=%s: cmd/w365 links %s", goos, d)
			}
		}
	}
}

// TestBinaryLinksNoManPageGenerator: every package the binary links initialises at every
// one-shot call, and the man-page generator (cobra/doc, md2man, blackfriday, yaml) took
// about a tenth of `w365 --version`; docs/man writes the pages instead.
func TestBinaryLinksNoManPageGenerator(t *testing.T) {
	for _, d := range graph(t, "linux")[module+"/cmd/w365"].Deps {
		if under(d, "github.com/spf13/cobra/doc") || under(d, "github.com/cpuguy83/go-md2man") || under(d, "github.com/russross/blackfriday") {
			t.Errorf("cmd/w365 links %s", d)
		}
	}
}

// TestBinaryLinksNoSeccompAssembler: go-seccomp-bpf's syscall tables took 0.21 ms of every
// one-shot call's initialisation; the Linux amd64 build loads the set-id program generated
// from it (engine/sandbox/zseccomp_linux_amd64.go) instead.
func TestBinaryLinksNoSeccompAssembler(t *testing.T) {
	for _, d := range graph(t, "linux")[module+"/cmd/w365"].Deps {
		if under(d, "github.com/elastic/go-seccomp-bpf") {
			t.Errorf("cmd/w365 links %s", d)
		}
	}
}

// TestLinuxBinaryLinksNoGopsutilCPU: gopsutil's cpu package (linked also by its process
// package) reads /proc/stat twice when it initialises, at every one-shot call; on Linux
// engine/sysinfo and engine/proc read /proc themselves.
func TestLinuxBinaryLinksNoGopsutilCPU(t *testing.T) {
	for _, d := range graph(t, "linux")[module+"/cmd/w365"].Deps {
		if under(d, "github.com/shirou/gopsutil/v4/cpu") || under(d, "github.com/shirou/gopsutil/v4/process") {
			t.Errorf("cmd/w365 links %s", d)
		}
	}
}

// backends are the desktop backends: none may import another.
var backends = []string{"engine/desktop/x11", "engine/desktop/win32"}

// TestNoBackendImportsAnother: nothing below one desktop backend depends on another
// backend's packages, on any GOOS.
func TestNoBackendImportsAnother(t *testing.T) {
	for _, goos := range goosList {
		for _, p := range modulePkgs(graph(t, goos)) {
			for _, own := range backends {
				if !under(rel(p.ImportPath), own) {
					continue
				}
				for _, d := range p.Deps {
					for _, other := range backends {
						if other != own && under(rel(d), other) {
							t.Errorf("GOOS=%s: %s (backend %s) depends on %s (backend %s)", goos, rel(p.ImportPath), own, rel(d), other)
						}
					}
				}
			}
		}
	}
}

// osSpecific are packages whose use is platform code: the system call packages and the
// libraries of one platform's desktop or IPC.
var osSpecific = []string{"syscall", "golang.org/x/sys/unix", "golang.org/x/sys/windows",
	"github.com/jezek/xgb", "github.com/godbus/dbus", "github.com/go-ole/go-ole", "github.com/Microsoft/go-winio"}

// TestDesktopContractIsPortable: engine/desktop, the contract and what every backend
// shares, depends on no backend (nothing below engine/desktop) and on no OS-specific
// library, and imports no system call package itself (the standard library's own use of
// syscall, through os, is not its code); its files are for every OS.
func TestDesktopContractIsPortable(t *testing.T) {
	for _, goos := range goosList {
		p := graph(t, goos)[module+"/engine/desktop"]
		if p == nil {
			t.Fatalf("GOOS=%s: no engine/desktop", goos)
		}
		for _, d := range p.Deps {
			if r := rel(d); r != "" && r != "engine/desktop" && under(r, "engine/desktop") {
				t.Errorf("GOOS=%s: engine/desktop depends on %s, below it", goos, r)
			}
			if d != "syscall" && slices.ContainsFunc(osSpecific, func(o string) bool { return under(d, o) }) {
				t.Errorf("GOOS=%s: engine/desktop depends on %s", goos, d)
			}
		}
		for _, i := range p.Imports {
			if slices.ContainsFunc(osSpecific, func(o string) bool { return under(i, o) }) {
				t.Errorf("GOOS=%s: engine/desktop imports %s", goos, i)
			}
		}
	}
	checkPortableFiles(t, filepath.Join(testenv.Root(), "engine", "desktop"), false)
}

// layers are the one-way dependency order, highest first: a package may import packages of
// its own layer and of the layers after it. cmd is a layer apart (see cmdImports); test/ is
// the test tree, outside the order.
var layers = []string{"cmd", "repl", "commands/cli", "commands/host", "commands", "commands/tool", "engine"}

// layer is where a module package sits in layers (the longest layer path it is under;
// -1 outside them): a higher rank may import a lower one.
func layer(r string) (rank int, name string) {
	rank, name = -1, r
	for i, l := range layers {
		if under(r, l) && (rank < 0 || len(l) > len(name)) {
			rank, name = len(layers)-1-i, l
		}
	}
	return rank, name
}

// cmdImports are the only module packages cmd/ (main alone) imports: the front-ends.
var cmdImports = []string{"commands/cli", "commands/host", "repl"}

// TestDependenciesGoOneWay: the layers, for every GOOS: engine imports nothing
// of commands/, repl/ or cmd/; commands/tool nothing of commands/ but itself; the tool
// definitions neither the host nor a front-end (a handler never sees the host); the host
// no front-end; the CLI not the REPL; cmd only the front-ends.
func TestDependenciesGoOneWay(t *testing.T) {
	for _, goos := range goosList {
		for _, p := range modulePkgs(graph(t, goos)) {
			from := rel(p.ImportPath)
			rank, name := layer(from)
			if rank < 0 {
				continue
			}
			for _, i := range p.Imports {
				to := rel(i)
				if to == "" {
					continue
				}
				if name == "cmd" {
					if !slices.ContainsFunc(cmdImports, func(f string) bool { return under(to, f) }) {
						t.Errorf("GOOS=%s: %s imports %s: cmd/ imports only %v", goos, from, to, cmdImports)
					}
					continue
				}
				toRank, toName := layer(to)
				if toRank < 0 {
					continue // the test tree (gates and harnesses)
				}
				if toRank > rank {
					t.Errorf("GOOS=%s: %s (layer %s) imports %s (layer %s), against the one way: %s", goos, from, name, to, toName, strings.Join(layers, " -> "))
				}
			}
		}
	}
}

// TestCommandsKnowNoPlatform: every Go file under commands/, tests included, is for every
// OS: none is named for one (_linux.go, _windows_test.go, _unix.go, _other.go ...), none
// has a build constraint naming one, and none reads runtime.GOOS.
func TestCommandsKnowNoPlatform(t *testing.T) {
	checkPortableFiles(t, filepath.Join(testenv.Root(), "commands"), true)
}

// osWords are what a file name or build tag names an OS by: GOOS values, unix, and the
// catch-alls of per-OS file sets.
var osWords = []string{"aix", "android", "darwin", "dragonfly", "freebsd", "hurd", "illumos", "ios", "js",
	"linux", "nacl", "netbsd", "openbsd", "plan9", "solaris", "wasip1", "windows", "zos",
	"unix", "posix", "other", "otherunix", "nonlinux", "nonwindows"}

var archWords = []string{"386", "amd64", "arm", "arm64", "loong64", "mips", "mipsle", "mips64", "mips64le",
	"ppc64", "ppc64le", "riscv64", "s390x", "wasm"}

// osSuffix is the OS a Go file's name is suffixed with ("" for none): name_OS.go,
// name_OS_ARCH.go, and the same before _test.go.
func osSuffix(name string) string {
	parts := strings.Split(strings.TrimSuffix(strings.TrimSuffix(name, ".go"), "_test"), "_")
	if len(parts) < 2 {
		return ""
	}
	last := parts[len(parts)-1]
	if slices.Contains(archWords, last) && len(parts) >= 3 {
		last = parts[len(parts)-2]
	}
	if slices.Contains(osWords, last) {
		return last
	}
	return ""
}

// checkPortableFiles fails for each Go file in dir (and below it, when recursive) that is
// named for an OS, has a build constraint naming one, or reads runtime.GOOS.
func checkPortableFiles(t *testing.T, dir string, recursive bool) {
	t.Helper()
	n := 0
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != dir && (!recursive || d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		n++
		r, _ := filepath.Rel(testenv.Root(), path)
		if s := osSuffix(d.Name()); s != "" {
			t.Errorf("%s is named for %s", r, s)
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path, nil, parser.ParseComments)
		if err != nil {
			return err
		}
		for _, why := range platformCode(f) {
			t.Errorf("%s: %s", r, why)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n == 0 {
		t.Fatalf("no Go files in %s", dir)
	}
}

// platformCode says where a parsed file is for one OS: a build constraint with an OS
// tag, or a read of runtime.GOOS (under whatever name runtime is imported).
func platformCode(f *ast.File) []string {
	var out []string
	for _, cg := range f.Comments {
		if cg.Pos() >= f.Package {
			break
		}
		for _, c := range cg.List {
			if !constraint.IsGoBuild(c.Text) && !constraint.IsPlusBuild(c.Text) {
				continue
			}
			x, err := constraint.Parse(c.Text)
			if err != nil {
				out = append(out, fmt.Sprintf("unparsable build constraint %q", c.Text))
				continue
			}
			x.Eval(func(tag string) bool {
				if slices.Contains(osWords, tag) {
					out = append(out, fmt.Sprintf("build constraint %q names %s", c.Text, tag))
				}
				return true
			})
		}
	}
	runtimeName := ""
	for _, imp := range f.Imports {
		if p, _ := strconv.Unquote(imp.Path.Value); p == "runtime" {
			runtimeName = "runtime"
			if imp.Name != nil {
				runtimeName = imp.Name.Name
			}
		}
	}
	if runtimeName == "" {
		return out
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.SelectorExpr:
			if id, ok := n.X.(*ast.Ident); ok && id.Name == runtimeName && n.Sel.Name == "GOOS" {
				out = append(out, "reads runtime.GOOS")
			}
		case *ast.Ident:
			if runtimeName == "." && n.Name == "GOOS" {
				out = append(out, "reads GOOS of a dot-imported runtime")
			}
		}
		return true
	})
	return out
}

// platformNames are names that say which platform a package is for.
var platformNames = append(slices.Clone(osWords), "x11", "xorg", "wayland", "win32", "win64", "winapi",
	"macos", "osx", "cocoa", "wine")

// TestEngineNamesArePortable: every top-level package under engine/ is named for its
// job; a platform's code lives in per-OS files inside it, or under engine/desktop as a
// backend.
func TestEngineNamesArePortable(t *testing.T) {
	ents, err := os.ReadDir(filepath.Join(testenv.Root(), "engine"))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range ents {
		if !e.IsDir() || strings.HasPrefix(e.Name(), ".") || e.Name() == "testdata" {
			continue
		}
		n++
		if slices.Contains(platformNames, strings.ToLower(e.Name())) {
			t.Errorf("engine/%s is named for a platform", e.Name())
		}
	}
	if n == 0 {
		t.Fatal("no packages under engine/")
	}
}

// dllLoaders are the functions that declare a Windows DLL to call into.
var dllLoaders = []string{"NewLazySystemDLL", "NewLazyDLL", "LoadDLL", "MustLoadDLL", "LoadLibrary", "LoadLibraryEx"}

// TestWindowsAPIHasOnePlace: the engine's Windows procs, their constants and the COM helper
// live in engine/internal/winapi, and no other package declares a DLL. The programs under a
// testdata directory are built on their own for the wine tests (they cannot import an
// engine-internal package) and are left out.
func TestWindowsAPIHasOnePlace(t *testing.T) {
	root := testenv.Root()
	winapi := filepath.Join(root, "engine", "internal", "winapi")
	found := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != root && (d.Name() == "testdata" || d.Name() == "node_modules" || strings.HasPrefix(d.Name(), ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if !ok || !slices.Contains(dllLoaders, sel.Sel.Name) {
				return true
			}
			if filepath.Dir(path) == winapi {
				found++
			} else {
				r, _ := filepath.Rel(root, path)
				t.Errorf("%s calls %s: declare Windows procs in engine/internal/winapi", r, sel.Sel.Name)
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if found == 0 {
		t.Fatal("engine/internal/winapi declares no DLL: the check looks in the wrong place")
	}
}
