//go:build linux

// Package wine runs the Windows build of w365 under wine on a private Xvfb, for
// tests of the Windows backend on a Linux machine: it builds w365.exe, makes a fresh
// WINEPREFIX with the ProcessPrng shim Go's runtime needs on wine 8 (which lacks it), and
// runs w365.exe and Windows programs (notepad) there.
package wine

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/w365/w365/test/testenv"
)

// Debian's wine64 package puts the 64-bit loader and server here (not on PATH).
const (
	wineBin       = "/usr/lib/wine/wine64"
	wineserverBin = "/usr/lib/wine/wineserver"
	mingwGCC      = "x86_64-w64-mingw32-gcc"
)

// Wine is one private wine prefix on one private Xvfb screen.
type Wine struct {
	T testing.TB
	// Exe is the w365.exe under test (a Linux path; wine maps / to Z:).
	Exe string
	// Prefix is the WINEPREFIX.
	Prefix string
	// Display is the Xvfb display, Width x Height its screen.
	Display       string
	Width, Height int
	env           []string
	dir           string // the working directory of what runs under wine
	bootLog       string
}

// Require fails under CI=true and skips otherwise when wine or mingw is missing.
func Require(t testing.TB) {
	t.Helper()
	var missing []string
	for _, p := range []string{wineBin, wineserverBin} {
		if _, err := os.Stat(p); err != nil {
			missing = append(missing, p+" (apt-get install -y wine64)")
		}
	}
	if _, err := exec.LookPath(mingwGCC); err != nil {
		missing = append(missing, mingwGCC+" (apt-get install -y gcc-mingw-w64-x86-64-win32)")
	}
	if _, err := exec.LookPath("Xvfb"); err != nil {
		missing = append(missing, "Xvfb (apt-get install -y xvfb)")
	}
	if len(missing) == 0 {
		return
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("the wine tests need %s", strings.Join(missing, ", "))
	}
	t.Skipf("wine tests skipped: missing %s (CI=true makes this a failure)", strings.Join(missing, ", "))
}

// New builds w365.exe, starts an Xvfb screen of w x h and makes a prefix; everything
// ends with the test.
func New(t testing.TB, w, h int) *Wine {
	t.Helper()
	Require(t)
	dir := t.TempDir()
	x := &Wine{T: t, Exe: filepath.Join(dir, "w365.exe"), Prefix: filepath.Join(dir, "prefix"), Width: w, Height: h, dir: dir}
	goBuild(t, x.Exe, "./cmd/w365")
	home := filepath.Join(dir, "home")
	os.MkdirAll(home, 0o700)
	// An environment from an allowlist: nothing of the caller's reaches wine but PATH. A UTF-8
	// locale, or wine reads non-ASCII arguments in the wrong code page.
	x.env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "LANG=C.UTF-8",
		"WINEPREFIX=" + x.Prefix, "WINEDEBUG=fixme-all,err+all", "WINEDLLOVERRIDES=mscoree,mshtml="}
	x.Display = startXvfb(t, w, h)
	x.env = append(x.env, "DISPLAY="+x.Display)
	t.Cleanup(func() {
		// Ends this prefix's wineserver and every wine process of the prefix (ours only).
		x.command(context.Background(), wineserverBin, "-k").Run()
	})
	x.boot()
	if got, ok := x.screenOK(); !ok {
		t.Fatalf("wine's screen is %q, not the Xvfb screen %dx%d; wineboot said:\n%s", got, w, h, x.bootLog)
	}
	return x
}

// Step is one subtest of a Test function whose steps share one prefix and screen.
type Step struct {
	Name string
	F    func(*testing.T, *Wine)
}

// RunSteps runs steps in order as subtests of t, each with x.T its own, and prints the
// host's log after a step that failed.
func (x *Wine) RunSteps(t *testing.T, steps ...Step) {
	for _, s := range steps {
		if !t.Run(s.Name, func(st *testing.T) {
			x.T = st
			defer func() { x.T = t }()
			s.F(st, x)
		}) {
			t.Logf("host log:\n%s", x.HostLog())
		}
	}
}

// Version is what wine --version says ("wine-8.0 (Debian 8.0~repack-4)").
func (x *Wine) Version() string {
	x.T.Helper()
	out, err := exec.Command(wineBin, "--version").Output()
	if err != nil {
		x.T.Fatalf("%s --version: %v", wineBin, err)
	}
	return strings.TrimSpace(string(out))
}

// Wine8 says whether this is wine 8, which lacks a UI Automation client (uia_test.go).
func (x *Wine) Wine8() bool { return strings.HasPrefix(x.Version(), "wine-8.") }

// boot makes the prefix and installs the shim.
func (x *Wine) boot() {
	out, code, err := x.run(wineBin, "wineboot", "-i")
	if err != nil || code != 0 {
		x.T.Fatalf("wineboot -i: exit %d, %v\n%s", code, err, out)
	}
	x.bootLog = out[0] + out[1]
	x.installShim()
}

// screenOK asks w365.exe (starting its host) whether wine's desktop is the Xvfb screen.
func (x *Wine) screenOK() (string, bool) {
	out, code, err := x.run(wineBin, x.Exe, "get-screen-size")
	got := strings.TrimSpace(out[0])
	return got + " " + strings.TrimSpace(out[1]), err == nil && code == 0 && got == fmt.Sprintf("%dx%d", x.Width, x.Height)
}

// installShim builds testdata/prng.c into bcryptprimitives.dll in the prefix's
// system32: wine 8 lacks ProcessPrng, which Go's Windows runtime calls at start.
func (x *Wine) installShim() {
	x.BuildC("prng.c", filepath.Join(x.Prefix, "drive_c", "windows", "system32", "bcryptprimitives.dll"), "-shared", "-ladvapi32")
}

// BuildC builds testdata/src with mingw into out (a Linux path), with extra gcc flags.
func (x *Wine) BuildC(src, out string, flags ...string) {
	x.T.Helper()
	_, self, _, _ := runtime.Caller(0)
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		x.T.Fatal(err)
	}
	args := append([]string{"-O2", "-o", out, filepath.Join(filepath.Dir(self), "testdata", src)}, flags...)
	if out, err := exec.Command(mingwGCC, args...).CombinedOutput(); err != nil {
		x.T.Fatalf("building testdata/%s: %v\n%s", src, err, out)
	}
}

// Reg runs wine's reg.exe with args (add, delete, query ...) and fails the test when
// it fails.
func (x *Wine) Reg(args ...string) {
	x.T.Helper()
	out, code, err := x.run(wineBin, append([]string{"reg"}, args...)...)
	if err != nil || code != 0 {
		x.T.Fatalf("wine reg %s: exit %d, %v\n%s%s", strings.Join(args, " "), code, err, out[0], out[1])
	}
}

// CDrive is the Linux path of the prefix's C: drive.
func (x *Wine) CDrive() string { return filepath.Join(x.Prefix, "drive_c") }

// WinPath is the Windows path (C:\...) of a Linux path inside the prefix's C: drive.
func (x *Wine) WinPath(p string) string {
	rel, err := filepath.Rel(x.CDrive(), p)
	if err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
		x.T.Fatalf("%s is not on the prefix's C: drive", p)
	}
	return `C:\` + strings.ReplaceAll(rel, "/", `\`)
}

// LocalAppData is the Linux path of the wine user's %LOCALAPPDATA%.
func (x *Wine) LocalAppData() string {
	dirs, _ := filepath.Glob(filepath.Join(x.CDrive(), "users", "*", "AppData", "Local"))
	for _, d := range dirs {
		if !strings.Contains(d, string(filepath.Separator)+"Public"+string(filepath.Separator)) {
			return d
		}
	}
	x.T.Fatalf("no user AppData\\Local in %s", x.CDrive())
	return ""
}

// command runs a wine program with address-space randomisation off (setarch -R):
// Debian's wine64 comes without wine's preloader, which reserves the addresses wine
// needs before the system maps anything there, and without it a start fails now and
// then ("failed to map the shared user data", or a desktop process that never reaches
// the X server, leaving a 1024x768 screen of wine's null driver).
func (x *Wine) command(ctx context.Context, name string, args ...string) *exec.Cmd {
	c := exec.CommandContext(ctx, "setarch", append([]string{"x86_64", "-R", name}, args...)...)
	c.Env, c.Dir = x.env, x.dir
	return c
}

// Result is one finished w365.exe run.
type Result struct {
	Stdout, Stderr string
	Code           int
}

// Run runs w365.exe with args under wine and waits for it (two minutes at most).
func (x *Wine) Run(args ...string) Result {
	x.T.Helper()
	out, code, err := x.run(wineBin, append([]string{x.Exe}, args...)...)
	if err != nil {
		x.T.Fatalf("w365.exe %s: %v", strings.Join(args, " "), err)
	}
	return Result{Stdout: out[0], Stderr: out[1], Code: code}
}

// run runs a program of the prefix and returns its stdout and stderr. They go to files,
// not pipes: the wineserver and the background host a run starts inherit its descriptors
// and keep a pipe open long after the run has ended.
func (x *Wine) run(name string, args ...string) (out [2]string, code int, err error) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var files [2]*os.File
	for i := range files {
		if files[i], err = os.CreateTemp(x.dir, "out"); err != nil {
			return out, 0, err
		}
		defer os.Remove(files[i].Name())
		defer files[i].Close()
	}
	c := x.command(ctx, name, args...)
	c.Stdout, c.Stderr = files[0], files[1]
	err = c.Run()
	for i, f := range files {
		b, _ := os.ReadFile(f.Name())
		out[i] = string(b)
	}
	if ee, ok := err.(*exec.ExitError); ok {
		return out, ee.ExitCode(), nil
	}
	return out, 0, err
}

// MustRun is Run that fails the test on a non-zero exit, returning stdout.
func (x *Wine) MustRun(args ...string) string {
	x.T.Helper()
	r := x.Run(args...)
	if r.Code != 0 {
		x.T.Fatalf("w365.exe %s: exit %d\nstdout: %s\nstderr: %s\nhost log: %s", strings.Join(args, " "), r.Code, r.Stdout, r.Stderr, x.HostLog())
	}
	return r.Stdout
}

// JSON runs w365.exe args --json and decodes its result into v.
func (x *Wine) JSON(v any, args ...string) {
	x.T.Helper()
	out := x.MustRun(append(args, "--json")...)
	if err := json.Unmarshal([]byte(out), v); err != nil {
		x.T.Fatalf("w365.exe %s: %v in %q", strings.Join(args, " "), err, out)
	}
}

// Setenv adds kv ("NAME=value") to the environment of what runs under wine from now on;
// a host already running keeps its own (end it with "host stop").
func (x *Wine) Setenv(kv string) { x.env = append(x.env, kv) }

// HostLog is the background host's log in the prefix, for failure messages.
func (x *Wine) HostLog() string {
	logs, _ := filepath.Glob(filepath.Join(x.Prefix, "drive_c", "users", "*", "AppData", "Local", "w365", "host.log"))
	var b []byte
	for _, l := range logs {
		c, _ := os.ReadFile(l)
		b = append(b, c...)
	}
	return string(b)
}

// Start starts a Windows program of the prefix (notepad) in the background; it ends
// with the prefix.
func (x *Wine) Start(prog string, args ...string) {
	x.T.Helper()
	c := x.command(context.Background(), wineBin, append([]string{prog}, args...)...)
	if err := c.Start(); err != nil {
		x.T.Fatalf("wine %s: %v", prog, err)
	}
	go c.Wait()
}

// startXvfb starts a private Xvfb screen on a random display number from 400 on, away
// from the low numbers where other tests' X servers (-displayfd alone) come and go.
func startXvfb(t testing.TB, w, h int) string {
	for range 10 {
		n := 400 + rand.IntN(3000)
		if _, err := os.Stat(fmt.Sprintf("/tmp/.X%d-lock", n)); err == nil {
			continue
		}
		if d, ok := tryXvfb(t, n, w, h); ok {
			return d
		}
	}
	t.Fatal("no Xvfb display could be started in 10 attempts")
	return ""
}

func tryXvfb(t testing.TB, n, w, h int) (string, bool) {
	r, wr, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	c := exec.Command("Xvfb", fmt.Sprintf(":%d", n), "-displayfd", "3", "-screen", "0", fmt.Sprintf("%dx%dx24", w, h), "-nolisten", "tcp")
	c.ExtraFiles = []*os.File{wr}
	if err := c.Start(); err != nil {
		t.Fatalf("Xvfb: %v", err)
	}
	wr.Close()
	// Xvfb writes the number and the newline in two writes and dies ("Cannot write display
	// number to fd 3") if the pipe's reader is gone in between: read the whole line.
	got := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(r).ReadString('\n') // EOF at once when Xvfb exits (display in use)
		got <- strings.TrimSpace(line)
	}()
	select {
	case d := <-got:
		if d == strconv.Itoa(n) {
			t.Cleanup(func() { c.Process.Kill(); c.Wait() })
			return ":" + d, true
		}
	case <-time.After(30 * time.Second):
	}
	c.Process.Kill()
	c.Wait()
	return "", false
}

// GoTest builds the tests of the Go package pkg (relative to the module root) for Windows
// and runs them in the prefix with args ("-test.run", "X"), verbosely.
func (x *Wine) GoTest(pkg string, args ...string) Result {
	x.T.Helper()
	exe := filepath.Join(x.dir, strings.ReplaceAll(strings.Trim(pkg, "./"), "/", "_")+".test.exe")
	build := exec.Command("go", "test", "-c", "-o", exe, pkg)
	build.Dir = testenv.Root()
	build.Env = append(os.Environ(), "GOOS=windows", "GOARCH=amd64", "CGO_ENABLED=0")
	if b, err := build.CombinedOutput(); err != nil {
		x.T.Fatalf("GOOS=windows go test -c %s: %v\n%s", pkg, err, b)
	}
	out, code, err := x.run(wineBin, append([]string{exe, "-test.v", "-test.count=1"}, args...)...)
	if err != nil {
		x.T.Fatalf("%s under wine: %v", exe, err)
	}
	return Result{Stdout: out[0], Stderr: out[1], Code: code}
}

// goBuild builds the Go package pkg (relative to the module root) for windows/amd64 into out.
func goBuild(t testing.TB, out, pkg string) {
	t.Helper()
	build := exec.Command("go", "build", "-o", out, pkg)
	build.Dir = testenv.Root()
	build.Env = append(os.Environ(), "GOOS=windows", "GOARCH=amd64", "CGO_ENABLED=0")
	if b, err := build.CombinedOutput(); err != nil {
		t.Fatalf("GOOS=windows go build %s: %v\n%s", pkg, err, b)
	}
}

// BuildExe builds the Go program pkg (relative to the module root, e.g.
// "./test/wine/testdata/envdump") for Windows as winPath in the
// prefix (`C:\Program Files\Test\envdump.exe`).
func (x *Wine) BuildExe(pkg, winPath string) {
	x.T.Helper()
	out := x.HostPath(winPath)
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		x.T.Fatal(err)
	}
	goBuild(x.T, out, pkg)
}

// HostPath is the Linux path of a path on the prefix's C: drive (`C:\users\x` or
// "C:/users/x").
func (x *Wine) HostPath(winPath string) string {
	p := strings.ReplaceAll(winPath, `\`, "/")
	if len(p) < 3 || !strings.EqualFold(p[:3], "C:/") {
		x.T.Fatalf("%q is not a path on C:", winPath)
	}
	return filepath.Join(x.Prefix, "drive_c", filepath.FromSlash(p[3:]))
}
