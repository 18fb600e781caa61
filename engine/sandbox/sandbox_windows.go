package sandbox

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/windows"

	"github.com/w365/w365/engine/child"
	"github.com/w365/w365/engine/internal/winapi"
	"github.com/w365/w365/engine/werr"
)

// MaxJobProcesses is the job object's active-process limit on Windows: processes (not
// threads, which Windows does not count) of one call alive at once.
const MaxJobProcesses = 64

// Isolation and Confinement say how the sandbox confines a program, in the tools'
// summaries and help.
const (
	Isolation   = "job-object limits"
	Confinement = "It runs in a job object (memory, process, CPU and UI\nlimits; what it leaves running is ended) with a restricted token; the files and the network\nare the user's."
)

// init runs a built-in when this executable was started as one (builtinArgv0).
func init() {
	if len(os.Args) < 2 || os.Args[0] != builtinArgv0 {
		return
	}
	code, ok := RunBuiltin(os.Args[1], os.Args[2:], os.Stdout, os.Stderr)
	if !ok {
		fmt.Fprintf(os.Stderr, "%s is not a w365 built-in\n", os.Args[1])
		code = 1
	}
	os.Exit(code)
}

// sandboxEnv is the environment sandboxed programs get: an allowlist of the session's.
func sandboxEnv(env []string) []string { return WindowsEnv(env) }

// homeOf is the user's profile directory.
func homeOf(env []string) string {
	for _, k := range []string{"USERPROFILE", "HOME"} {
		if h := lookupVar(env, k); isWindowsAbs(h) {
			return h
		}
	}
	h, _ := os.UserHomeDir()
	return h
}

// lookPath finds NAME.exe or NAME.com (or NAME as given with one of those extensions) on
// the sandbox PATH, absolute entries only. Batch files (.cmd, .bat) are never run: Windows
// starts them through cmd.exe, whose parser would read the arguments.
func (r *Runner) lookPath(name string) (string, error) {
	names := []string{name + ".exe", name + ".com"}
	if ext := strings.ToLower(filepath.Ext(name)); ext == ".exe" || ext == ".com" {
		names = []string{name}
	}
	for _, dir := range filepath.SplitList(lookupVar(r.env, "PATH")) {
		if !isWindowsAbs(dir) {
			continue
		}
		for _, n := range names {
			p := filepath.Join(dir, n)
			if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() && !storeAlias(p) {
				return p, nil
			}
		}
	}
	return "", exec.ErrNotFound
}

// storeAlias reports the Microsoft Store's app-execution aliases (python.exe in
// %LOCALAPPDATA%\Microsoft\WindowsApps), which open the Store instead of running.
func storeAlias(p string) bool {
	return strings.Contains(strings.ToLower(p), `\microsoft\windowsapps\`)
}

// batchOnPath finds NAME.cmd or NAME.bat on the sandbox PATH.
func (r *Runner) batchOnPath(name string) string {
	for _, dir := range filepath.SplitList(lookupVar(r.env, "PATH")) {
		for _, ext := range []string{".cmd", ".bat"} {
			if p := filepath.Join(dir, name+ext); isWindowsAbs(dir) && fileExists(p) {
				return p
			}
		}
	}
	return ""
}

func fileExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular()
}

// program returns what runs an allowed program and the argv words it is started with:
// a cmd.exe built-in is w365.exe itself (builtins.go); npm, installed as npm.cmd, is
// node with npm's own entry point next to it, so that no batch file (and no cmd.exe)
// runs; anything else is NAME.exe or NAME.com on PATH.
func (r *Runner) program(name string) (string, []string, error) {
	if builtins()[name] != nil {
		self, err := os.Executable()
		if err != nil {
			return "", nil, werr.Wrap(err, werr.Internal, "cannot find w365.exe to run the built-in %s", name)
		}
		return self, []string{builtinArgv0, name}, nil
	}
	if path, err := r.lookPath(name); err == nil {
		return path, []string{name}, nil
	}
	if bat := r.batchOnPath(name); bat != "" {
		if name == "npm" {
			cli := filepath.Join(filepath.Dir(bat), "node_modules", "npm", "bin", "npm-cli.js")
			if node, err := r.lookPath("node"); err == nil && fileExists(cli) {
				return node, []string{"node", cli}, nil
			}
		}
		return "", nil, werr.New(werr.Unsupported, "%s is installed as the batch file %s, which Windows runs through cmd.exe", name, bat).
			WithDetail("rule", "program-batch-file").
			WithHint("cmd.exe would parse the arguments as a command line; run the program's own interpreter instead (node SCRIPT.js, python -m is refused: use execute_python_code)")
	}
	return "", nil, werr.New(werr.NotFound, "%s is allowed but not installed on this machine", name).
		WithDetail("rule", "program-not-installed").WithHint("check with where, or use execute_python_code")
}

// python finds the interpreter: python.exe or python3.exe on PATH (not the Store's
// aliases), then the usual install directories (%LOCALAPPDATA%\Programs\Python\Python3*,
// %ProgramFiles%\Python3*, C:\Python3*, newest first), then the py launcher (py -3).
func (r *Runner) python() (string, []string, error) {
	for _, n := range []string{"python", "python3"} {
		if p, err := r.lookPath(n); err == nil {
			return p, []string{"python"}, nil
		}
	}
	var globs []string
	if la := lookupVar(r.session, "LOCALAPPDATA"); isWindowsAbs(la) {
		globs = append(globs, filepath.Join(la, "Programs", "Python", "Python3*", "python.exe"))
	}
	for _, k := range []string{"ProgramFiles", "ProgramW6432", "SystemDrive"} {
		if d := lookupVar(r.session, k); d != "" {
			globs = append(globs, filepath.Join(d+`\`, "Python3*", "python.exe"))
		}
	}
	for _, g := range globs {
		m, _ := filepath.Glob(g)
		slices.SortFunc(m, func(a, b string) int { return pyVersion(b) - pyVersion(a) })
		if len(m) > 0 {
			return m[0], []string{"python"}, nil
		}
	}
	if py, err := r.lookPath("py"); err == nil {
		return py, []string{"py", "-3"}, nil
	}
	return "", nil, werr.New(werr.Unavailable, "no Python interpreter was found: not python.exe or python3.exe on PATH, not in %%LOCALAPPDATA%%\\Programs\\Python, %%ProgramFiles%%\\Python3* or C:\\Python3*, and no py launcher").
		WithDetail("rule", "python-not-installed").WithRetryable(false).
		WithHint("install Python from python.org (or winget install Python.Python.3.12) and call again")
}

// pyVersion is the minor version of a ...\Python3NN\python.exe path (Python312: 12).
func pyVersion(p string) int {
	d := strings.ToLower(filepath.Base(filepath.Dir(p)))
	n := 0
	for _, c := range strings.TrimPrefix(d, "python3") {
		if c < '0' || c > '9' {
			break
		}
		n = n*10 + int(c-'0')
	}
	return n
}

// systemCwd says why a directory may never become the sandbox's writable directory on
// Windows: a drive root, the profile and its parents, the profile's AppData (the Startup
// folder and every program's configuration run or load outside the sandbox later), the
// system and program directories, the shared temporary directory.
func systemCwd(dir, home string, env []string) string {
	if len(dir) <= 3 && isWindowsAbs(dir+`\`) {
		return "the root directory of a drive would become writable"
	}
	if home != "" {
		if rh, err := filepath.EvalSymlinks(home); err == nil {
			home = rh
		}
		if within(home, dir) {
			return "the profile directory (and its parents) hold start-up and configuration files that run outside the sandbox"
		}
		if within(dir, filepath.Join(home, "AppData")) {
			return "AppData holds the Startup folder and programs' configuration, which run outside the sandbox"
		}
	}
	tmp := os.TempDir()
	if rt, err := filepath.EvalSymlinks(tmp); err == nil {
		tmp = rt
	}
	if within(tmp, dir) {
		return "the shared temporary directory is used by every program of the user"
	}
	for _, k := range []string{"SystemRoot", "windir", "ProgramFiles", "ProgramFiles(x86)", "ProgramW6432", "ProgramData"} {
		d := lookupVar(env, k)
		if !isWindowsAbs(d) {
			continue
		}
		if rd, err := filepath.EvalSymlinks(d); err == nil {
			d = rd
		}
		if within(dir, d) {
			return "system and program directories are not writable from the sandbox"
		}
	}
	return ""
}

// restrictedToken is this process's token with every privilege removed but
// SeChangeNotifyPrivilege (DISABLE_MAX_PRIVILEGE) and the Administrators group made
// deny-only, so that a program started from an elevated host is no administrator.
func restrictedToken() (windows.Token, error) {
	var cur windows.Token
	if err := windows.OpenProcessToken(windows.CurrentProcess(),
		windows.TOKEN_DUPLICATE|windows.TOKEN_QUERY|windows.TOKEN_ASSIGN_PRIMARY|windows.TOKEN_ADJUST_DEFAULT, &cur); err != nil {
		return 0, fmt.Errorf("OpenProcessToken: %w", err)
	}
	defer cur.Close()
	admins, err := windows.CreateWellKnownSid(windows.WinBuiltinAdministratorsSid)
	if err != nil {
		return 0, fmt.Errorf("CreateWellKnownSid: %w", err)
	}
	deny := []windows.SIDAndAttributes{{Sid: admins}}
	var tok windows.Token
	r1, _, e := winapi.ProcCreateRestrictedToken.Call(uintptr(cur), winapi.DISABLE_MAX_PRIVILEGE,
		uintptr(len(deny)), uintptr(unsafe.Pointer(&deny[0])), 0, 0, 0, 0, uintptr(unsafe.Pointer(&tok)))
	if r1 == 0 {
		return 0, fmt.Errorf("CreateRestrictedToken: %w", e)
	}
	return tok, nil
}

// tokenPrivileges is how many privileges tok holds, -1 when it cannot be read.
func tokenPrivileges(tok windows.Token) int {
	var n uint32
	_ = windows.GetTokenInformation(tok, windows.TokenPrivileges, nil, 0, &n)
	if n == 0 {
		return -1
	}
	buf := make([]byte, n)
	if err := windows.GetTokenInformation(tok, windows.TokenPrivileges, &buf[0], n, &n); err != nil {
		return -1
	}
	return int((*windows.Tokenprivileges)(unsafe.Pointer(&buf[0])).PrivilegeCount)
}

type jobCompletionPort struct {
	key  uintptr
	port windows.Handle
}

// jobLimits is the extended limit information of a run: kill on close, memory per
// process and for the job, active processes, CPU time per process (the timeout plus 2 s,
// like RLIMIT_CPU on Linux; per process, so a parallel build is not killed for using two
// cores), no breakaway, and a crash ends the process instead of waiting on an error dialog.
func jobLimits(j job) (*windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION, []string) {
	info := &windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION{}
	b := &info.BasicLimitInformation
	b.LimitFlags = windows.JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE | windows.JOB_OBJECT_LIMIT_JOB_MEMORY |
		windows.JOB_OBJECT_LIMIT_PROCESS_MEMORY | windows.JOB_OBJECT_LIMIT_ACTIVE_PROCESS |
		windows.JOB_OBJECT_LIMIT_PROCESS_TIME | windows.JOB_OBJECT_LIMIT_DIE_ON_UNHANDLED_EXCEPTION
	b.ActiveProcessLimit = MaxJobProcesses
	cpu := time.Duration(j.timeoutMs)*time.Millisecond + 2*time.Second
	b.PerProcessUserTimeLimit = int64(cpu / 100) // 100 ns units
	info.JobMemoryLimit = uintptr(j.memBytes)
	info.ProcessMemoryLimit = uintptr(j.memBytes)
	return info, []string{"job-object", "job:kill-on-close", "job:breakaway=forbidden",
		fmt.Sprintf("job:memory=%d", j.memBytes), fmt.Sprintf("job:process-memory=%d", j.memBytes),
		fmt.Sprintf("job:active-processes=%d", MaxJobProcesses), fmt.Sprintf("job:process-cpu-time=%ds", int(cpu.Seconds()))}
}

// jobCPURate is JOBOBJECT_CPU_RATE_CONTROL_INFORMATION with a hard cap (CpuRate is in
// 1/100 % of all the machine's CPU cycles).
type jobCPURate struct {
	controlFlags uint32
	cpuRate      uint32
}

const (
	cpuRateControlEnable  = 0x1
	cpuRateControlHardCap = 0x4
)

// capCPU limits the job to one core's worth of CPU, as the cgroup does on Linux, so
// that a call's CPU time is at most its wall time. It reports whether the system took it.
func capCPU(jh windows.Handle) bool {
	n := runtime.NumCPU()
	rate := jobCPURate{controlFlags: cpuRateControlEnable | cpuRateControlHardCap, cpuRate: uint32(max(1, 10000/n))}
	_, err := windows.SetInformationJobObject(jh, windows.JobObjectCpuRateControlInformation,
		uintptr(unsafe.Pointer(&rate)), uint32(unsafe.Sizeof(rate)))
	return err == nil
}

// run runs the validated program in a job object (kill on close, memory, process, CPU
// time and rate, UI limits, no breakaway; created suspended, assigned, then resumed) with a
// restricted token, the allowlisted environment, TEMP and TMP in the session scratch
// directory and standard input from NUL. At the timeout (or when ctx ends) the job is
// terminated; when the program exits, what it left running is terminated with the job.
func (r *Runner) run(ctx context.Context, j job) (*Result, error) {
	tok, err := restrictedToken()
	if err != nil {
		return nil, werr.Wrap(err, werr.Internal, "cannot create the sandbox's restricted token")
	}
	defer tok.Close()
	scratch, err := r.WorkDir()
	if err != nil {
		return nil, err
	}
	info, limits := jobLimits(j)
	// Read the token back: a system that accepts DISABLE_MAX_PRIVILEGE without applying
	// it (wine 8) must not be reported as restricted.
	privs := tokenPrivileges(tok)
	restricted := privs >= 0 && privs <= 1
	if restricted {
		limits = append(limits, "token:restricted(disable-max-privilege,administrators=deny-only)")
	} else {
		limits = append(limits, fmt.Sprintf("token:unrestricted(%d privileges kept)", privs))
	}
	limits = append(limits, "env:allowlist")

	outR, outW, errR, errW, err := outputPipes()
	if err != nil {
		return nil, err
	}
	cmd := &exec.Cmd{
		Path:   j.path,
		Args:   j.argv,
		Env:    append(slices.Clone(r.env), "TEMP="+scratch, "TMP="+scratch),
		Dir:    j.dir,
		Stdout: outW,
		Stderr: errW,
		SysProcAttr: &syscall.SysProcAttr{
			Token:         syscall.Token(tok),
			HideWindow:    true,
			CreationFlags: windows.CREATE_NO_WINDOW | windows.CREATE_NEW_PROCESS_GROUP,
		},
	}
	port, err := windows.CreateIoCompletionPort(windows.InvalidHandle, 0, 0, 1)
	if err != nil {
		outR.Close()
		outW.Close()
		errR.Close()
		errW.Close()
		return nil, werr.Wrap(err, werr.Internal, "cannot create the job's completion port")
	}
	defer windows.CloseHandle(port)
	uiLimited, cpuCapped := false, false
	prepare := func(jh windows.Handle) error {
		cp := jobCompletionPort{key: uintptr(jh), port: port}
		if _, err := windows.SetInformationJobObject(jh, windows.JobObjectAssociateCompletionPortInformation,
			uintptr(unsafe.Pointer(&cp)), uint32(unsafe.Sizeof(cp))); err != nil {
			return fmt.Errorf("associating the completion port: %w", err)
		}
		ui := windows.JOBOBJECT_BASIC_UI_RESTRICTIONS{UIRestrictionsClass: windows.JOB_OBJECT_UILIMIT_DESKTOP |
			windows.JOB_OBJECT_UILIMIT_DISPLAYSETTINGS | windows.JOB_OBJECT_UILIMIT_EXITWINDOWS |
			windows.JOB_OBJECT_UILIMIT_GLOBALATOMS | windows.JOB_OBJECT_UILIMIT_HANDLES |
			windows.JOB_OBJECT_UILIMIT_READCLIPBOARD | windows.JOB_OBJECT_UILIMIT_SYSTEMPARAMETERS |
			windows.JOB_OBJECT_UILIMIT_WRITECLIPBOARD}
		_, err := windows.SetInformationJobObject(jh, windows.JobObjectBasicUIRestrictions,
			uintptr(unsafe.Pointer(&ui)), uint32(unsafe.Sizeof(ui)))
		uiLimited = err == nil
		cpuCapped = capCPU(jh)
		return nil
	}
	r.started.Add(1)
	jh, proc, startErr := child.StartInJob(cmd, info, prepare)
	outW.Close()
	errW.Close()
	if startErr != nil {
		outR.Close()
		errR.Close()
		var ee *exec.Error
		if errors.As(startErr, &ee) || errors.Is(startErr, os.ErrNotExist) {
			return nil, werr.Wrap(startErr, werr.NotFound, "cannot start %s", j.argv[0])
		}
		return nil, werr.Wrap(startErr, werr.Internal, "the sandbox could not be set up: %v", startErr)
	}
	defer windows.CloseHandle(jh) // kill on close: nothing of the run outlives it
	defer windows.CloseHandle(proc)
	if uiLimited {
		limits = append(limits, "job:ui-restricted")
	}
	if cpuCapped {
		limits = append(limits, "job:cpu-rate=1-core")
	}

	limit := r.pol.OutputBytesPerStream
	out := readOutputs(outR, errR, limit)

	waitErr := make(chan error, 1)
	go func() { waitErr <- cmd.Wait() }()
	timer := time.NewTimer(time.Duration(j.timeoutMs) * time.Millisecond)
	defer timer.Stop()
	timedOut, cancelled := false, false
	select {
	case <-waitErr:
	case <-timer.C:
		timedOut = true
		_ = windows.TerminateJobObject(jh, 1)
		<-waitErr
	case <-ctx.Done():
		cancelled = true
		_ = windows.TerminateJobObject(jh, 1)
		<-waitErr
	}
	// The program is gone; what it started is ended with the job, which also closes the
	// pipes they held.
	_ = windows.TerminateJobObject(jh, 1)

	res := &Result{TimedOut: timedOut, Limits: limits}
	out.finish(res)
	res.ExitCode = cmd.ProcessState.ExitCode()
	res.MemoryLimitHit = jobMemoryLimitHit(port)
	res.Success = res.ExitCode == 0 && !timedOut && !res.MemoryLimitHit
	res.ResourceLimitsApplied = restricted && jobHolds(jh, info.BasicLimitInformation.LimitFlags)
	if cancelled {
		return res, werr.New(werr.Cancelled, "the call was cancelled; the program was stopped")
	}
	return res, nil
}

// jobHolds reads the job's limits back and reports whether every flag that was set is
// in force (wine 8 answers this query with zeros: then it is false).
func jobHolds(jh windows.Handle, flags uint32) bool {
	var got windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION
	if err := windows.QueryInformationJobObject(jh, windows.JobObjectExtendedLimitInformation,
		uintptr(unsafe.Pointer(&got)), uint32(unsafe.Sizeof(got)), nil); err != nil {
		return false
	}
	return got.BasicLimitInformation.LimitFlags&flags == flags
}

// jobMemoryLimitHit drains the job's completion port and reports whether a process or
// the job reached its memory limit (the allocation that would pass it failed).
func jobMemoryLimitHit(port windows.Handle) bool {
	hit := false
	for {
		var msg uint32
		var key uintptr
		var ov *windows.Overlapped
		if err := windows.GetQueuedCompletionStatus(port, &msg, &key, &ov, 0); err != nil {
			return hit
		}
		if msg == winapi.JOB_OBJECT_MSG_PROCESS_MEMORY_LIMIT || msg == winapi.JOB_OBJECT_MSG_JOB_MEMORY_LIMIT {
			hit = true
		}
	}
}

// Confine is the Linux confinement of a session's long-lived programs; elsewhere there is none.
func (r *Runner) Confine(cmd *exec.Cmd, _ ConfineOptions) (release, done func(), err error) {
	return nil, nil, werr.New(werr.Unsupported, "confining %s is implemented on Linux only", cmd.Path).WithRetryable(false)
}

// sessionLimits is Linux's cgroup of a session's confined programs; elsewhere there is none.
type sessionLimits struct{}

func (sessionLimits) end() {}

// LimitsNote says what limits a virtual session's programs together: on Linux its cgroup.
func (r *Runner) LimitsNote() string { return "" }
