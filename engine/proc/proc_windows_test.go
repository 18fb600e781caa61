package proc

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/windows"

	"github.com/w365/w365/engine/werr"
)

// These run on Windows, and on Linux under wine (test/wine's TestWineProcesses builds this
// package's test binary and runs it in its prefix).

// TestMain doubles as a windowless child: W365_PROC_TEST_SLEEP=1 makes the test binary
// sleep until it is killed.
func TestMain(m *testing.M) {
	if os.Getenv("W365_PROC_TEST_SLEEP") == "1" {
		time.Sleep(10 * time.Minute)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func startSleeper(t *testing.T) *exec.Cmd {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	c := exec.Command(self)
	c.Env = append(os.Environ(), "W365_PROC_TEST_SLEEP=1")
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { c.Wait(); close(done) }()
	t.Cleanup(func() { c.Process.Kill(); <-done })
	return c
}

func TestStartTimeAndList(t *testing.T) {
	c := startSleeper(t)
	st, err := StartTime(c.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	if age := time.Since(time.UnixMicro(int64(st))); age < 0 || age > 5*time.Minute {
		t.Fatalf("start time %d is %v ago", st, age)
	}
	self, _ := StartTime(os.Getpid())
	if self == 0 || self > st {
		t.Fatalf("this process started at %d, its child at %d", self, st)
	}
	ps, err := List(context.Background(), 10000, map[int]string{c.Process.Pid: "a title"}, Scope{Roots: []int{c.Process.Pid}})
	if err != nil {
		t.Fatal(err)
	}
	if len(ps) != 1 || ps[0].PID != c.Process.Pid || ps[0].StartTimeTicks != st || ps[0].WindowTitle != "a title" ||
		!strings.EqualFold(ps[0].Name, filepath.Base(os.Args[0])) || ps[0].MemoryBytes == 0 {
		t.Fatalf("List of the child's scope = %+v, want the child (pid %d, start %d) alone", ps, c.Process.Pid, st)
	}
}

// TestScope: the session scope holds the other processes of this Windows session (wine's
// explorer.exe, or the user's shell), never this executable (the host's, here the test
// binary's) unless it is a root, and nothing of the session without a display.
func TestScope(t *testing.T) {
	c := startSleeper(t)
	session := Scope{Display: `WinSta0\Default`}
	if session.Contains(os.Getpid()) || session.Contains(c.Process.Pid) {
		t.Fatal("this executable is in the session scope")
	}
	if !(Scope{Display: session.Display, Roots: []int{c.Process.Pid}}).Contains(c.Process.Pid) {
		t.Fatal("a root running this executable is not in scope")
	}
	ents, err := snapshot()
	if err != nil {
		t.Fatal(err)
	}
	var mine uint32
	if err := windows.ProcessIdToSessionId(uint32(os.Getpid()), &mine); err != nil {
		t.Fatal(err)
	}
	self, _ := os.Executable()
	others := 0
	for _, e := range ents {
		if e.pid == os.Getpid() || e.pid == c.Process.Pid || !inSession(e.pid, mine) || isW365(e.pid, e.name, self) {
			continue
		}
		if _, err := StartTime(e.pid); err != nil {
			continue
		}
		others++
		if !session.Contains(e.pid) || (Scope{}).Contains(e.pid) {
			t.Errorf("%s (pid %d) of this session: in the session scope %v, in an empty scope %v", e.name, e.pid,
				session.Contains(e.pid), (Scope{}).Contains(e.pid))
		}
	}
	if others == 0 {
		t.Fatal("no other process of this Windows session to check the scope with")
	}
}

func TestKillStaleGracefulForce(t *testing.T) {
	c := startSleeper(t)
	pid := c.Process.Pid
	st, err := StartTime(pid)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Kill(context.Background(), pid, st+1, true, nil); werr.CodeOf(err) != werr.StaleProcess {
		t.Fatalf("Kill with a wrong start time = %v, want STALE_PROCESS", err)
	}
	if _, err := Kill(context.Background(), pid, st, true, func(int, string) bool { return true }); werr.CodeOf(err) != werr.ProtectedProcess {
		t.Fatalf("Kill of a protected process = %v, want PROTECTED_PROCESS", err)
	}
	if _, err := Kill(context.Background(), pid, st, false, nil); werr.CodeOf(err) != werr.Unsupported {
		t.Fatalf("graceful Kill of a windowless process = %v, want UNSUPPORTED", err)
	}
	if again, err := StartTime(pid); err != nil || again != st {
		t.Fatalf("the child is gone after refused kills: %d, %v", again, err)
	}
	res, err := Kill(context.Background(), pid, st, true, nil)
	if err != nil || !res.Exited || res.Signal != "TerminateProcess" || !strings.EqualFold(res.Name, filepath.Base(os.Args[0])) {
		t.Fatalf("Kill force = %+v, %v", res, err)
	}
	if _, err := Kill(context.Background(), 0, 0, true, nil); werr.CodeOf(err) != werr.InvalidArgument {
		t.Fatalf("Kill of pid 0 = %v", err)
	}
}

func TestHostPIDs(t *testing.T) {
	pids := HostPIDs()
	if len(pids) == 0 || pids[0] != os.Getpid() {
		t.Fatalf("HostPIDs = %v", pids)
	}
	if _, err := StartTime(os.Getppid()); err == nil && !slices.Contains(pids, os.Getppid()) {
		t.Fatalf("HostPIDs = %v lacks the parent %d", pids, os.Getppid())
	}
}

func TestResolveWindows(t *testing.T) {
	// Not t.TempDir: under wine 8 its removal fails ("Invalid function" deleting the .exe
	// files), which would fail the test for wine's sake. The files are a few bytes in TEMP.
	tmp, err := os.MkdirTemp("", "resolve")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(tmp) })
	apps := filepath.Join(tmp, "Apps")
	for _, f := range []string{"app.exe", "run.bat", "tool.cmd", "single.exe", "neighbour.exe"} {
		dir := apps
		if f == "single.exe" || f == "neighbour.exe" {
			dir = filepath.Join(tmp, "Other")
		}
		os.MkdirAll(dir, 0o755)
		if err := os.WriteFile(filepath.Join(dir, f), []byte("MZ"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// Directories compare without regard to case, and a file entry allows that program only.
	dirs := []string{strings.ToUpper(apps), filepath.Join(tmp, "Other", "single.exe")}
	for path, code := range map[string]werr.Code{
		filepath.ToSlash(filepath.Join(apps, "app.exe")):    "",
		filepath.Join(apps, "APP.EXE"):                      "",
		filepath.Join(tmp, "Other", "single.exe"):           "",
		filepath.Join(tmp, "Other", "neighbour.exe"):        werr.BlockedByPolicy,
		filepath.Join(apps, "run.bat"):                      werr.InvalidArgument,
		filepath.Join(apps, "tool.cmd"):                     werr.InvalidArgument,
		filepath.Join(apps, "..", "Other", "neighbour.exe"): werr.BlockedByPolicy,
		`Apps\app.exe`:                     werr.InvalidArgument,
		`\Apps\app.exe`:                    werr.InvalidArgument,
		filepath.Join(apps, "missing.exe"): werr.NotFound,
	} {
		_, err := Resolve(path, dirs)
		if werr.CodeOf(err) != code && !(code == "" && err == nil) {
			t.Errorf("Resolve(%q) = %v, want %q", path, err, code)
		}
	}
}

func TestLaunchEnvWindows(t *testing.T) {
	env := LaunchEnv([]string{`Path=C:\Windows`, "SystemRoot=C:\\Windows", "OPENAI_API_KEY=x", "W365_TOKEN=y", "temp=C:\\T"},
		[]string{`PATH=C:\Tools`})
	want := []string{`PATH=C:\Tools`, `SystemRoot=C:\Windows`, `temp=C:\T`}
	if !slices.Equal(env, want) {
		t.Fatalf("LaunchEnv = %q, want %q (one PATH whatever its case, no secrets)", env, want)
	}
}

// TestLaunchRefusesInterpreters: shells, interpreters, wrappers and terminals with a
// command are refused, whatever name they are given.
func TestLaunchRefusesInterpreters(t *testing.T) {
	for _, c := range []struct {
		resolved, path string
		args           []string
		refused        bool
	}{
		{"C:/Windows/System32/cmd.exe", "C:/Windows/System32/CMD.EXE", []string{"/c", "calc"}, true},
		{"C:/Program Files/PowerShell/7/pwsh.exe", "C:/Program Files/PowerShell/7/pwsh.exe", nil, true},
		{"C:/Windows/System32/WindowsPowerShell/v1.0/powershell.exe", "C:/Windows/System32/WindowsPowerShell/v1.0/powershell.exe", nil, true},
		{"C:/Windows/System32/wscript.exe", "C:/Windows/System32/WScript.exe", []string{"x.vbs"}, true},
		{"C:/Windows/System32/rundll32.exe", "C:/Windows/System32/rundll32.exe", []string{"x.dll,Run"}, true},
		{"C:/Windows/System32/mshta.exe", "C:/Windows/System32/mshta.exe", nil, true},
		{"C:/Program Files/Python311/python.exe", "C:/Program Files/Python311/python.exe", nil, true},
		{"C:/Program Files/Python311/pythonw.exe", "C:/Program Files/Python311/pythonw.exe", nil, true},
		{"C:/Program Files/Git/bin/bash.exe", "C:/Program Files/Git/bin/bash.exe", nil, true},
		{"C:/Windows/explorer.exe", "C:/Windows/explorer.exe", []string{"C:/x/evil.exe"}, true},
		{"C:/Program Files/WindowsApps/wt.exe", "C:/Program Files/WindowsApps/wt.exe", []string{"cmd"}, true},
		{"C:/Program Files/WindowsApps/wt.exe", "C:/Program Files/WindowsApps/wt.exe", nil, false},
		{"C:/Program Files/Google/Chrome/chrome.exe", "C:/Program Files/Google/Chrome/chrome.exe", []string{"--renderer-cmd-prefix=cmd /c calc"}, true},
		{"C:/Program Files/Mozilla Firefox/firefox.exe", "C:/Program Files/Mozilla Firefox/firefox.exe", []string{"https://example.com"}, false},
		{"C:/Windows/System32/notepad.exe", "C:/Windows/System32/notepad.exe", []string{"C:/notes.txt"}, false},
	} {
		err := Refused(c.resolved, c.path, c.args, nil)
		if (err != nil) != c.refused || (err != nil && werr.CodeOf(err) != werr.BlockedByPolicy) {
			t.Errorf("Refused(%s as %s %v) = %v, want refused %v", c.resolved, c.path, c.args, err, c.refused)
		}
	}
	if err := Refused("C:/Program Files/Python311/python3.11.exe", "C:/Program Files/Python311/python3.11.exe", nil, []string{"python3.11.exe"}); err != nil {
		t.Errorf("allowed by the policy: %v", err)
	}
}
