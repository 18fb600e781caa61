//go:build linux

package wine

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

const procScreenW, procScreenH = 1024, 768

// TestWineProcesses runs the process and system tools of w365.exe on one prefix, in order:
// get_system_info, list_processes with start times, kill_process guarded by them (a wrong
// start time, a protected process, WM_CLOSE, TerminateProcess), and launch_application with
// its refusals.
func TestWineProcesses(t *testing.T) {
	x := New(t, procScreenW, procScreenH)
	x.RunSteps(t,
		Step{"UnitTests", testProcUnitTests},
		Step{"SystemInfo", testSystemInfo},
		Step{"ListAndKill", testListAndKill},
		Step{"Protected", testProtected},
		Step{"Launch", testLaunch},
		Step{"LaunchRefused", testLaunchRefused},
		Step{"LaunchEnvironmentAndWindowless", testLaunchEnvironment},
		Step{"LaunchedEndWithTheHost", testLaunchedEndWithHost},
	)
}

// testProcUnitTests runs engine/proc's Windows tests (proc_windows_test.go: start times,
// the scope, kills through one handle, Resolve, the environment allowlist) in the prefix.
func testProcUnitTests(t *testing.T, x *Wine) {
	r := x.GoTest("./engine/proc")
	t.Logf("engine/proc tests under wine (exit %d):\n%s%s", r.Code, r.Stdout, r.Stderr)
	if r.Code != 0 || !strings.Contains(r.Stdout, "--- PASS: TestKillStaleGracefulForce") || !strings.Contains(r.Stdout, "\nPASS") {
		t.Fatalf("engine/proc's tests failed under wine (exit %d)", r.Code)
	}
}

// testSystemInfo: get_system_info reads Windows (RtlGetVersion, the registry), memory
// (GlobalMemoryStatusEx), the system drive (GetDiskFreeSpaceEx), uptime (GetTickCount64)
// and the session's screen.
func testSystemInfo(t *testing.T, x *Wine) {
	var in struct {
		OS, OSName, OSVersion, Kernel, Arch, Hostname, CPUModel string
		CPUCores, CPULogicalCores                               int
		MemoryTotalBytes, MemoryFreeBytes                       uint64
		DiskFreeBytes, DiskTotalBytes                           uint64
		Disks                                                   []struct {
			Path                  string
			Contains              []string
			TotalBytes, FreeBytes uint64
		}
		DisplayWidth, DisplayHeight int
		UptimeSeconds               uint64
	}
	x.JSON(&in, "get-system-info")
	t.Logf("%+v", in)
	if in.OS != "windows" || !strings.Contains(in.OSName, "Windows") || !regexp.MustCompile(`^\d+\.\d+\.\d+`).MatchString(in.OSVersion) {
		t.Errorf("OS %q, name %q, version %q: want windows, a Windows product name and RtlGetVersion's a.b.c", in.OS, in.OSName, in.OSVersion)
	}
	if in.Arch == "" || in.Hostname == "" || in.Kernel == "" {
		t.Errorf("arch %q, hostname %q, kernel %q", in.Arch, in.Hostname, in.Kernel)
	}
	if in.CPUModel == "" || in.CPUCores < 1 || in.CPULogicalCores < in.CPUCores {
		t.Errorf("CPU %q, %d cores, %d logical", in.CPUModel, in.CPUCores, in.CPULogicalCores)
	}
	if in.MemoryTotalBytes < 1<<28 || in.MemoryFreeBytes == 0 || in.MemoryFreeBytes > in.MemoryTotalBytes {
		t.Errorf("memory: total %d, free %d", in.MemoryTotalBytes, in.MemoryFreeBytes)
	}
	// C: is the prefix's drive_c, on this machine's file system: Windows and Linux agree
	// on its size.
	if in.DiskTotalBytes == 0 || in.DiskFreeBytes == 0 || in.DiskFreeBytes > in.DiskTotalBytes {
		t.Errorf("disk: total %d, free %d", in.DiskTotalBytes, in.DiskFreeBytes)
	}
	if len(in.Disks) != 1 || in.Disks[0].Path != `C:\` || len(in.Disks[0].Contains) != 2 {
		t.Errorf("disks %+v: want one, C:\\, holding both C:\\ and the profile", in.Disks)
	}
	if in.DisplayWidth != procScreenW || in.DisplayHeight != procScreenH {
		t.Errorf("display %dx%d, want the Xvfb screen %dx%d", in.DisplayWidth, in.DisplayHeight, procScreenW, procScreenH)
	}
	if in.UptimeSeconds == 0 {
		t.Error("uptime 0")
	}
}

type process struct {
	PID            int
	Name           string
	MemoryBytes    uint64
	WindowTitle    string
	StartTimeTicks uint64
}

func listProcesses(t *testing.T, x *Wine) []process {
	t.Helper()
	var out struct{ Processes []process }
	x.JSON(&out, "list-processes")
	return out.Processes
}

// findProcess is pid in list_processes, or ok=false.
func findProcess(t *testing.T, x *Wine, pid int) (process, bool) {
	t.Helper()
	for _, p := range listProcesses(t, x) {
		if p.PID == pid {
			return p, true
		}
	}
	return process{}, false
}

type killResult struct {
	PID    int
	Name   string
	Signal string
	Exited bool
}

// kill runs kill-process and returns the result or, on failure, its exit status and stderr.
func kill(t *testing.T, x *Wine, pid int, start uint64, force bool) (killResult, Result) {
	t.Helper()
	args := []string{"kill-process", strconv.Itoa(pid), strconv.FormatUint(start, 10), "--json"}
	if force {
		args = append(args, "--force")
	}
	r := x.Run(args...)
	var k killResult
	if r.Code == 0 {
		if err := json.Unmarshal([]byte(r.Stdout), &k); err != nil {
			t.Fatalf("kill-process: %v in %q", err, r.Stdout)
		}
	}
	return k, r
}

// waitProcessGone polls list_processes until pid is gone.
func waitProcessGone(t *testing.T, x *Wine, pid int) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		if _, ok := findProcess(t, x, pid); !ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("process %d still listed 30s after kill_process", pid)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// testListAndKill: notepad is listed as notepad.exe with its window's title and a start
// time (GetProcessTimes); a wrong start time is refused with STALE_PROCESS and leaves it
// running; the right one closes it with WM_CLOSE (an untouched notepad asks nothing); a
// second notepad ends with force (TerminateProcess).
func testListAndKill(t *testing.T, x *Wine) {
	x.Start("notepad")
	w := waitWindow(t, x, "Notepad")
	t0 := time.Now()
	p, ok := findProcess(t, x, w.PID)
	t.Logf("one list-processes call under wine (CLI to host and back): %v", time.Since(t0))
	if !ok {
		t.Fatalf("notepad (pid %d) is not in list_processes: %+v", w.PID, listProcesses(t, x))
	}
	if p.Name != "notepad.exe" || p.StartTimeTicks == 0 || p.MemoryBytes == 0 || !strings.Contains(p.WindowTitle, "Notepad") {
		t.Fatalf("notepad listed as %+v, want notepad.exe with a start time, memory and its window title", p)
	}
	// Its start time is within the last minutes: microseconds since the Unix epoch.
	if age := time.Since(time.UnixMicro(int64(p.StartTimeTicks))); age < 0 || age > 10*time.Minute {
		t.Fatalf("notepad's start time %d is %v ago", p.StartTimeTicks, age)
	}

	if _, r := kill(t, x, p.PID, p.StartTimeTicks+1, true); r.Code == 0 || !strings.Contains(r.Stderr, "STALE_PROCESS") {
		t.Fatalf("kill_process with a wrong start time: exit %d, %s%s; want STALE_PROCESS", r.Code, r.Stdout, r.Stderr)
	}
	if again, ok := findProcess(t, x, p.PID); !ok || again.StartTimeTicks != p.StartTimeTicks {
		t.Fatalf("after the refused kill notepad is %+v (listed: %v), want it running with the same start time", again, ok)
	}

	k, r := kill(t, x, p.PID, p.StartTimeTicks, false)
	if r.Code != 0 || k.PID != p.PID || k.Name != "notepad.exe" || k.Signal != "WM_CLOSE" || !k.Exited {
		t.Fatalf("graceful kill_process of notepad = %+v (exit %d, %s), want WM_CLOSE and exited", k, r.Code, r.Stderr)
	}
	waitProcessGone(t, x, p.PID)

	// A process with unsaved text asks "save changes?" and stays: graceful reports
	// exited=false, force ends it.
	x.Start("notepad")
	w = waitWindow(t, x, "Notepad")
	x.MustRun("click", strconv.Itoa(w.X+w.Width/2), strconv.Itoa(w.Y+w.Height/2))
	x.MustRun("type-text", "unsaved")
	p, ok = findProcess(t, x, w.PID)
	if !ok {
		t.Fatalf("the second notepad (pid %d) is not listed", w.PID)
	}
	k, r = kill(t, x, p.PID, p.StartTimeTicks, false)
	if r.Code != 0 || k.Signal != "WM_CLOSE" || k.Exited {
		t.Fatalf("graceful kill_process of a notepad with unsaved text = %+v (exit %d, %s), want WM_CLOSE and not exited", k, r.Code, r.Stderr)
	}
	k, r = kill(t, x, p.PID, p.StartTimeTicks, true)
	if r.Code != 0 || k.Signal != "TerminateProcess" || !k.Exited {
		t.Fatalf("forced kill_process of notepad = %+v (exit %d, %s), want TerminateProcess and exited", k, r.Code, r.Stderr)
	}
	waitProcessGone(t, x, p.PID)
	// Killing it again sends nothing: the process has ended (wine, like Windows, keeps an
	// ended process's object while a handle to it is open, as Linux keeps a zombie), or its
	// pid is no longer there.
	if k, r := kill(t, x, p.PID, p.StartTimeTicks, true); r.Code == 0 && (!k.Exited || k.Signal != "") ||
		r.Code != 0 && !strings.Contains(r.Stderr, "NOT_FOUND") && !strings.Contains(r.Stderr, "BLOCKED_BY_POLICY") {
		t.Fatalf("kill_process of an ended process = %+v (exit %d, %s), want exited with nothing sent, or NOT_FOUND", k, r.Code, r.Stderr)
	}
}

// testProtected: wine's explorer.exe (its desktop process) and services.exe are listed and
// refused with PROTECTED_PROCESS, and keep running; so is the w365 host, which is not even
// listed.
func testProtected(t *testing.T, x *Wine) {
	ps := listProcesses(t, x)
	var host struct{ PID int }
	x.JSON(&host, "host", "status")
	for _, name := range []string{"explorer.exe", "services.exe"} {
		var p process
		for _, q := range ps {
			if q.Name == name {
				p = q
			}
		}
		if p.PID == 0 {
			t.Fatalf("wine's %s is not in list_processes: %+v", name, ps)
		}
		_, r := kill(t, x, p.PID, p.StartTimeTicks, true)
		if r.Code == 0 || !strings.Contains(r.Stderr, "PROTECTED_PROCESS") {
			t.Fatalf("kill_process of %s (pid %d): exit %d, %s%s; want PROTECTED_PROCESS", name, p.PID, r.Code, r.Stdout, r.Stderr)
		}
		if again, ok := findProcess(t, x, p.PID); !ok || again.StartTimeTicks != p.StartTimeTicks {
			t.Fatalf("%s is gone after the refused kill", name)
		}
	}
	for _, p := range ps {
		if p.PID == host.PID || strings.EqualFold(p.Name, "w365.exe") {
			t.Fatalf("the w365 host is in list_processes: %+v", p)
		}
	}
	if _, r := kill(t, x, host.PID, 1, true); r.Code == 0 || !strings.Contains(r.Stderr, "BLOCKED_BY_POLICY") {
		t.Fatalf("kill_process of the host (pid %d): exit %d, %s; want BLOCKED_BY_POLICY (not the session's)", host.PID, r.Code, r.Stderr)
	}
}

// testLaunch: launch_application starts notepad from System32 (an allowed program), its
// path written with forward slashes as tool arguments write Windows paths; its window and
// process appear with the pid it returned, and it belongs to the session (list_processes,
// kill_process).
func testLaunch(t *testing.T, x *Wine) {
	var out struct {
		Path string
		PID  int
	}
	x.JSON(&out, "launch-application", "C:/windows/system32/notepad.exe")
	if !strings.EqualFold(out.Path, `C:\windows\system32\notepad.exe`) || out.PID == 0 {
		t.Fatalf("launch_application notepad = %+v", out)
	}
	w := waitWindow(t, x, "Notepad")
	if w.PID != out.PID {
		t.Fatalf("notepad's window belongs to pid %d, launch_application said %d", w.PID, out.PID)
	}
	p, ok := findProcess(t, x, out.PID)
	if !ok || p.Name != "notepad.exe" {
		t.Fatalf("the launched notepad is not listed: %+v", p)
	}
	if k, r := kill(t, x, p.PID, p.StartTimeTicks, true); r.Code != 0 || !k.Exited {
		t.Fatalf("kill_process of the launched notepad = %+v (exit %d, %s)", k, r.Code, r.Stderr)
	}
	waitProcessGone(t, x, p.PID)
}

// testLaunchRefused: programs outside the allowed directories (cmd.exe in System32), shells
// and interpreters inside them (a cmd.exe, a pwsh.exe and a renamed msiexec.exe in Program
// Files), and scripts (.bat, which CreateProcess runs through cmd.exe) are refused, and
// nothing starts.
func testLaunchRefused(t *testing.T, x *Wine) {
	drive := filepath.Join(x.Prefix, "drive_c")
	sys32 := filepath.Join(drive, "windows", "system32")
	tools := filepath.Join(drive, "Program Files", "Tools")
	if err := os.MkdirAll(filepath.Join(drive, "Program Files", "PowerShell", "7"), 0o755); err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(tools, 0o755)
	cp := func(from, to string) {
		b, err := os.ReadFile(from)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(to, b, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	cp(filepath.Join(sys32, "cmd.exe"), filepath.Join(tools, "cmd.exe"))
	// Wine's msiexec.exe has a version resource (its cmd.exe has none): renamed, it is still
	// known by its OriginalFilename.
	cp(filepath.Join(sys32, "msiexec.exe"), filepath.Join(tools, "helper.exe"))
	cp(filepath.Join(sys32, "notepad.exe"), filepath.Join(drive, "Program Files", "PowerShell", "7", "pwsh.exe"))
	os.WriteFile(filepath.Join(tools, "run.bat"), []byte("@echo off\r\nnotepad\r\n"), 0o755)

	for _, c := range []struct {
		path, code, why string
	}{
		{"C:/windows/system32/cmd.exe", "BLOCKED_BY_POLICY", "not inside an allowed directory"},
		{"C:/windows/system32/WindowsPowerShell/v1.0/powershell.exe", "BLOCKED_BY_POLICY", "not inside an allowed directory"},
		{"C:/Program Files/Tools/cmd.exe", "BLOCKED_BY_POLICY", "cmd is a shell"},
		{"C:/Program Files/PowerShell/7/pwsh.exe", "BLOCKED_BY_POLICY", "pwsh runs code"},
		{"C:/Program Files/Tools/helper.exe", "BLOCKED_BY_POLICY", "msiexec runs code"},
		{"C:/Program Files/Tools/run.bat", "INVALID_ARGUMENT", "not a .exe program"},
		{"Program Files/Tools/x.exe", "INVALID_ARGUMENT", "must be absolute"},
	} {
		r := x.Run("launch-application", c.path)
		if r.Code == 0 {
			t.Errorf("launch_application %s started: %s", c.path, r.Stdout)
			continue
		}
		if !strings.Contains(r.Stderr, c.code) || !strings.Contains(r.Stderr, c.why) {
			t.Errorf("launch_application %s: %s; want %s (%s)", c.path, strings.TrimSpace(r.Stderr), c.code, c.why)
		}
	}
	for _, p := range listProcesses(t, x) {
		if n := strings.ToLower(p.Name); n == "cmd.exe" || n == "helper.exe" || n == "msiexec.exe" || n == "pwsh.exe" || n == "powershell.exe" {
			t.Errorf("%s runs after the refused launches: %+v", p.Name, p)
		}
	}
}

// testLaunchEnvironment: a program launched from Program Files gets its arguments as given
// (spaces, quotes and cmd.exe's metacharacters intact: no shell) and an environment from the
// allowlist: SystemRoot, PATH, TEMP, the profile, but not the secrets the host has (the
// same program started by wine directly shows the host's environment has them), nor any
// other variable but those wine itself adds to every process (WINE*). It has no window, so
// a graceful kill_process cannot ask it to end (UNSUPPORTED) and leaves it running; force
// ends it.
func testLaunchEnvironment(t *testing.T, x *Wine) {
	const exe = `C:\Program Files\W365 Test\envdump.exe`
	x.BuildExe("./test/wine/testdata/envdump", exe)
	x.MustRun("host", "stop")
	x.Setenv("W365_TEST_SECRET=canary")
	x.Setenv("OPENAI_API_KEY=canary")

	control := `C:\control.json`
	x.Start(exe, control)
	if env := envOf(readDump(t, x, control).Env); env["OPENAI_API_KEY"] != "canary" || env["W365_TEST_SECRET"] != "canary" {
		t.Fatalf("a program wine starts does not see the canaries, so the test proves nothing: %q", env)
	}

	const dump = `C:\envdump.json`
	args := []string{dump, `two words`, `a "quoted" arg`, `x&y|z^%PATH%`, `tail\\`, ``}
	var out struct {
		Path string
		PID  int
	}
	cli := []string{"launch-application", "C:/Program Files/W365 Test/envdump.exe"}
	for _, a := range args {
		cli = append(cli, "--args", a)
	}
	x.JSON(&out, cli...)
	got := readDump(t, x, dump)
	if strings.Join(got.Args, "\x00") != strings.Join(args, "\x00") {
		t.Errorf("the launched program got the arguments %q, want %q", got.Args, args)
	}
	env := envOf(got.Env)
	for _, k := range []string{"SYSTEMROOT", "PATH", "TEMP", "USERPROFILE", "LOCALAPPDATA"} {
		if env[k] == "" {
			t.Errorf("the launched program has no %s: %q", k, got.Env)
		}
	}
	allowed := map[string]bool{}
	for _, k := range strings.Fields(`SYSTEMROOT WINDIR SYSTEMDRIVE PATH PATHEXT TEMP TMP USERPROFILE USERNAME
		USERDOMAIN HOMEDRIVE HOMEPATH APPDATA LOCALAPPDATA PROGRAMDATA ALLUSERSPROFILE PUBLIC PROGRAMFILES
		PROGRAMFILES(X86) PROGRAMW6432 COMMONPROGRAMFILES COMMONPROGRAMFILES(X86) COMMONPROGRAMW6432
		COMPUTERNAME OS PROCESSOR_ARCHITECTURE PROCESSOR_IDENTIFIER PROCESSOR_LEVEL PROCESSOR_REVISION
		NUMBER_OF_PROCESSORS LOGONSERVER SESSIONNAME LANG`) {
		allowed[k] = true
	}
	for k := range env {
		if !allowed[k] && (!strings.HasPrefix(k, "WINE") || k == "WINEDEBUG" || k == "WINEPREFIX") {
			t.Errorf("the launched program got %s=%q, which is not on the allowlist", k, env[k])
		}
	}

	p, ok := findProcess(t, x, out.PID)
	if !ok || p.Name != "envdump.exe" {
		t.Fatalf("the launched envdump (pid %d) is not listed: %+v", out.PID, listProcesses(t, x))
	}
	if _, r := kill(t, x, p.PID, p.StartTimeTicks, false); r.Code == 0 || !strings.Contains(r.Stderr, "UNSUPPORTED") || !strings.Contains(r.Stderr, "no window") {
		t.Fatalf("graceful kill_process of a windowless program: exit %d, %s%s; want UNSUPPORTED (no window)", r.Code, r.Stdout, r.Stderr)
	}
	if _, ok := findProcess(t, x, p.PID); !ok {
		t.Fatal("the windowless program ended after a graceful kill_process that sent nothing")
	}
	if k, r := kill(t, x, p.PID, p.StartTimeTicks, true); r.Code != 0 || k.Signal != "TerminateProcess" || !k.Exited {
		t.Fatalf("forced kill_process of envdump = %+v (exit %d, %s)", k, r.Code, r.Stderr)
	}
}

// testLaunchedEndWithHost: what launch_application started belongs to the session and ends
// with it: "host stop" ends the sessions (Group.Close: WM_CLOSE, then TerminateProcess), and
// the host's end closes the job object each program runs in; the next host lists neither
// notepad nor the windowless envdump. (Which of the two ended them is not told apart here.)
func testLaunchedEndWithHost(t *testing.T, x *Wine) {
	var np, ed struct{ PID int }
	x.JSON(&np, "launch-application", "C:/windows/system32/notepad.exe")
	x.JSON(&ed, "launch-application", "C:/Program Files/W365 Test/envdump.exe", "--args", `C:\envdump2.json`)
	readDump(t, x, `C:\envdump2.json`)
	waitWindow(t, x, "Notepad")
	x.MustRun("host", "stop")
	deadline := time.Now().Add(30 * time.Second)
	for {
		var left []process
		for _, p := range listProcesses(t, x) { // a new host, in the machine's view of this Windows session
			if p.PID == np.PID && p.Name == "notepad.exe" || p.PID == ed.PID && p.Name == "envdump.exe" {
				left = append(left, p)
			}
		}
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("30s after host stop the launched programs still run: %+v", left)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

type dump struct{ Args, Env []string }

// readDump waits for envdump's file at winPath and decodes it.
func readDump(t *testing.T, x *Wine, winPath string) dump {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		b, err := os.ReadFile(x.HostPath(winPath))
		if err == nil {
			var d dump
			if err := json.Unmarshal(b, &d); err != nil {
				t.Fatalf("envdump wrote %q: %v", b, err)
			}
			return d
		}
		if time.Now().After(deadline) {
			t.Fatalf("envdump wrote no %s in 30s", winPath)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// envOf maps an environment's names, in upper case (Windows ignores their case), to values.
func envOf(kvs []string) map[string]string {
	env := map[string]string{}
	for _, kv := range kvs {
		k, v, _ := strings.Cut(kv, "=")
		env[strings.ToUpper(k)] = v
	}
	return env
}
