//go:build linux

package sandbox

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"

	"github.com/w365/w365/engine/child"
	"github.com/w365/w365/engine/werr"
)

// The re-executed helper: Go's SysProcAttr cannot set rlimits, so the sandbox starts this
// very executable with helperEnv set. Its init (below, in every binary and test binary that
// links this package) joins the run's pids cgroup, applies the rlimits and execs bwrap (or,
// in the explicit unsandboxed mode, the program). The configuration arrives on fd 3.
const helperEnv = "W365_SANDBOX_HELPER"

// helperExit is the helper's exit status when it could not set up the run; its stderr
// then starts with helperPrefix.
const (
	helperExit   = 125
	helperPrefix = "w365-sandbox-helper: "
)

type rlimit struct {
	Resource int    `json:"r"`
	Name     string `json:"n"`
	Value    uint64 `json:"v"`
}

type helperConfig struct {
	CgroupProcs string   `json:"cgroupProcs,omitempty"`
	Limits      []rlimit `json:"limits"`
	Argv        []string `json:"argv"`
	Env         []string `json:"env"`
}

func init() {
	if os.Getenv(helperEnv) != "1" {
		return
	}
	helperMain()
}

func helperFail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, helperPrefix+format+"\n", args...)
	os.Exit(helperExit)
}

func helperMain() {
	f := os.NewFile(3, "w365-sandbox-config")
	if f == nil {
		helperFail("no configuration")
	}
	data, err := io.ReadAll(f)
	f.Close()
	if err != nil {
		helperFail("reading configuration: %v", err)
	}
	var c helperConfig
	if err := json.Unmarshal(data, &c); err != nil || len(c.Argv) == 0 {
		helperFail("bad configuration")
	}
	if c.CgroupProcs != "" {
		if err := os.WriteFile(c.CgroupProcs, []byte(strconv.Itoa(os.Getpid())), 0); err != nil {
			helperFail("joining the pids cgroup: %v", err)
		}
	}
	// Everything execve needs is allocated before the limits: once RLIMIT_AS is below the
	// Go runtime's reservations, any new heap span would be fatal. From here on only raw
	// system calls run.
	path, err := syscall.BytePtrFromString(c.Argv[0])
	if err != nil {
		helperFail("bad program path")
	}
	argv, err := syscall.SlicePtrFromStrings(c.Argv)
	if err != nil {
		helperFail("bad argv")
	}
	envv, err := syscall.SlicePtrFromStrings(c.Env)
	if err != nil {
		helperFail("bad environment")
	}
	lims := make([]syscall.Rlimit, len(c.Limits))
	for i, l := range c.Limits {
		lims[i] = syscall.Rlimit{Cur: l.Value, Max: l.Value}
	}
	for i, l := range c.Limits {
		if _, _, errno := syscall.RawSyscall6(syscall.SYS_PRLIMIT64, 0, uintptr(l.Resource),
			uintptr(unsafe.Pointer(&lims[i])), 0, 0, 0); errno != 0 {
			helperFail("setrlimit %s: %v", l.Name, errno)
		}
	}
	_, _, errno := syscall.RawSyscall(syscall.SYS_EXECVE, uintptr(unsafe.Pointer(path)),
		uintptr(unsafe.Pointer(&argv[0])), uintptr(unsafe.Pointer(&envv[0])))
	helperFail("exec %s: %v", c.Argv[0], errno)
}

// ---- bubblewrap ----

var bwrapCandidates = []string{"/usr/bin/bwrap", "/usr/local/bin/bwrap", "/bin/bwrap"}

func (r *Runner) bwrap() string {
	if r.noBwrap {
		return ""
	}
	if r.bwrapBin != "" {
		return r.bwrapBin
	}
	for _, c := range bwrapCandidates {
		if st, err := os.Stat(c); err == nil && st.Mode().IsRegular() {
			return c
		}
	}
	return ""
}

// secretPaths are hidden inside the sandbox (relative to HOME): credentials that a
// read-only view of the file system would otherwise expose.
var secretPaths = []string{".ssh", ".gnupg", ".aws", ".azure", ".kube", ".docker", ".netrc", ".git-credentials",
	".npmrc", ".pypirc", ".cargo/credentials", ".cargo/credentials.toml", ".config/gcloud", ".config/gh",
	".local/share/keyrings", ".password-store"}

func (r *Runner) bwrapArgs(bw string, j job) ([]string, []string) {
	a := []string{bw, "--new-session", "--die-with-parent", "--unshare-all"}
	limits := []string{"bwrap", "pidns", "ro-root", "caps:none"}
	if r.pol.AllowNetwork {
		a = append(a, "--share-net")
		limits = append(limits, "net:host")
	} else {
		limits = append(limits, "net:none")
	}
	a = append(a, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp")
	// Host sockets: the session bus, the runtime directory (the w365 host socket), docker.
	if rt := lookupVar(r.session, "XDG_RUNTIME_DIR"); rt != "" && filepath.IsAbs(rt) && dirExists(rt) {
		a = append(a, "--tmpfs", rt)
	}
	for _, d := range []string{"/run/user", "/run/dbus", "/run/docker", "/run/containerd"} {
		if dirExists(d) {
			a = append(a, "--tmpfs", d)
		}
	}
	for _, s := range []string{"/run/docker.sock", "/var/run/docker.sock"} {
		if fileExists(s) {
			a = append(a, "--ro-bind", "/dev/null", s)
		}
	}
	if home := homeOf(r.session); home != "" && filepath.IsAbs(home) && home != "/" {
		for _, s := range secretPaths {
			p := filepath.Join(home, s)
			st, err := os.Lstat(p)
			switch {
			case err != nil || st.Mode()&os.ModeSymlink != 0:
			case st.IsDir():
				a = append(a, "--tmpfs", p)
			default:
				a = append(a, "--ro-bind", "/dev/null", p)
			}
		}
	}
	a = append(a, "--bind", j.dir, j.dir, "--chdir", j.dir, "--cap-drop", "ALL")
	argv := append([]string(nil), j.argv...)
	if j.codeFile != "" {
		a = append(a, "--ro-bind", j.codeFile, codeInSandbox)
		argv[len(argv)-1] = codeInSandbox
	}
	a = append(a, "--", j.path)
	return append(a, argv[1:]...), limits
}

func dirExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}

func fileExists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

// ---- pids cgroup ----

var runSeq atomic.Int64

// pidsCgroup is one run's process-count cgroup.
type pidsCgroup struct{ dir string }

// newPidsCgroup creates a cgroup limited to max tasks, under the cgroup v1 pids hierarchy
// or the cgroup v2 unified hierarchy, whichever this process may write. It returns nil
// when neither is available (not root, no delegation).
func newPidsCgroup(max int) *pidsCgroup {
	name := fmt.Sprintf("run-%d-%d", os.Getpid(), runSeq.Add(1))
	if dirExists("/sys/fs/cgroup/pids") && fileExists("/sys/fs/cgroup/pids/cgroup.procs") {
		if cg := makeCgroup("/sys/fs/cgroup/pids/w365", name, max); cg != nil {
			return cg
		}
	}
	if b, err := os.ReadFile("/sys/fs/cgroup/cgroup.controllers"); err == nil && strings.Contains(string(b), "pids") {
		_ = os.WriteFile("/sys/fs/cgroup/cgroup.subtree_control", []byte("+pids"), 0)
		parent := "/sys/fs/cgroup/w365"
		_ = os.Mkdir(parent, 0o755)
		_ = os.WriteFile(filepath.Join(parent, "cgroup.subtree_control"), []byte("+pids"), 0)
		if cg := makeCgroup(parent, name, max); cg != nil {
			return cg
		}
	}
	return nil
}

var reapOnce sync.Once

// reapStale removes the run cgroups a crashed w365 process left behind (run-PID-N whose
// PID is gone), killing what is still inside them.
func reapStale(parent string) {
	ents, err := os.ReadDir(parent)
	if err != nil {
		return
	}
	for _, e := range ents {
		var pid, n int
		if !e.IsDir() || !strings.HasPrefix(e.Name(), "run-") {
			continue
		}
		if _, err := fmt.Sscanf(e.Name(), "run-%d-%d", &pid, &n); err != nil || pid == os.Getpid() {
			continue
		}
		if err := syscall.Kill(pid, 0); err == nil || errors.Is(err, syscall.EPERM) {
			continue // its owner is alive
		}
		(&pidsCgroup{dir: filepath.Join(parent, e.Name())}).destroy()
	}
}

func makeCgroup(parent, name string, max int) *pidsCgroup {
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return nil
	}
	reapOnce.Do(func() { reapStale(parent) })
	dir := filepath.Join(parent, name)
	if err := os.Mkdir(dir, 0o755); err != nil {
		return nil
	}
	if err := os.WriteFile(filepath.Join(dir, "pids.max"), []byte(strconv.Itoa(max)), 0); err != nil {
		_ = os.Remove(dir)
		return nil
	}
	return &pidsCgroup{dir: dir}
}

func (c *pidsCgroup) procs() []int {
	b, err := os.ReadFile(filepath.Join(c.dir, "cgroup.procs"))
	if err != nil {
		return nil
	}
	var out []int
	for _, f := range strings.Fields(string(b)) {
		if n, err := strconv.Atoi(f); err == nil && n > 0 {
			out = append(out, n)
		}
	}
	return out
}

// killAll kills every process in the cgroup until it is empty (or 3 s pass), then removes it.
func (c *pidsCgroup) destroy() {
	_ = os.WriteFile(filepath.Join(c.dir, "cgroup.kill"), []byte("1"), 0) // v2 only
	deadline := time.Now().Add(3 * time.Second)
	for time.Now().Before(deadline) {
		ps := c.procs()
		if len(ps) == 0 {
			break
		}
		for _, p := range ps {
			_ = syscall.Kill(p, syscall.SIGKILL)
		}
		time.Sleep(10 * time.Millisecond)
	}
	for time.Now().Before(deadline) {
		if err := os.Remove(c.dir); err == nil || errors.Is(err, os.ErrNotExist) {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// ---- running ----

func (r *Runner) run(ctx context.Context, j job) (*Result, error) {
	bw := r.bwrap()
	if bw == "" && !r.pol.AllowUnsandboxed {
		return nil, werr.New(werr.Unavailable, "the OS sandbox (bubblewrap) is not installed, so nothing is run").
			WithRetryable(false).WithDetail("rule", "sandbox-unavailable").
			WithHint("install bubblewrap (apt-get install bubblewrap), or set allowUnsandboxed in the policy to accept the weaker rlimit-only mode")
	}
	self, err := os.Executable()
	if err != nil {
		return nil, werr.Wrap(err, werr.Internal, "cannot find the w365 executable to start the sandbox helper")
	}

	var limits []string
	var argv []string
	if bw != "" {
		argv, limits = r.bwrapArgs(bw, j)
	} else {
		argv = append([]string{j.path}, j.argv[1:]...)
		limits = []string{"unsandboxed"}
	}
	cpu := uint64(j.timeoutMs/1000 + 2)
	rl := []rlimit{
		{syscall.RLIMIT_AS, "as", uint64(j.memBytes)},
		{syscall.RLIMIT_CPU, "cpu", cpu},
		{syscall.RLIMIT_FSIZE, "fsize", MaxFileBytes},
		{syscall.RLIMIT_NOFILE, "nofile", MaxOpenFiles},
		{syscall.RLIMIT_CORE, "core", 0},
	}
	cg := newPidsCgroup(MaxProcesses)
	if cg != nil {
		defer cg.destroy()
		limits = append(limits, fmt.Sprintf("pids.max=%d", MaxProcesses))
	} else if os.Geteuid() != 0 {
		// RLIMIT_NPROC counts every process of the real user: leave room for the ones that
		// already exist. Root is exempt from it, so then there is no process limit.
		n := uint64(countUserProcs(os.Getuid()) + MaxProcesses)
		rl = append(rl, rlimit{6 /* RLIMIT_NPROC */, "nproc", n})
		limits = append(limits, fmt.Sprintf("rlimit:nproc=%d", n))
	}
	for _, l := range rl {
		limits = append(limits, fmt.Sprintf("rlimit:%s=%d", l.Name, l.Value))
	}
	cfg := helperConfig{Limits: rl, Argv: argv, Env: r.env}
	if cg != nil {
		cfg.CgroupProcs = filepath.Join(cg.dir, "cgroup.procs")
	}
	cfgData, err := json.Marshal(cfg)
	if err != nil {
		return nil, werr.Wrap(err, werr.Internal, "cannot encode the sandbox configuration")
	}

	limit := r.pol.OutputBytesPerStream
	stdout := &capBuffer{limit: limit}
	stderr := &capBuffer{limit: limit}
	outR, outW, err := os.Pipe()
	if err != nil {
		return nil, werr.Wrap(err, werr.Internal, "cannot create pipes")
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		outR.Close()
		outW.Close()
		return nil, werr.Wrap(err, werr.Internal, "cannot create pipes")
	}
	cfgR, cfgW, err := os.Pipe()
	if err != nil {
		outR.Close()
		outW.Close()
		errR.Close()
		errW.Close()
		return nil, werr.Wrap(err, werr.Internal, "cannot create pipes")
	}

	cmd := &exec.Cmd{
		Path:       self,
		Args:       []string{"w365-sandbox"},
		Env:        []string{helperEnv + "=1"},
		Dir:        j.dir,
		Stdout:     outW,
		Stderr:     errW,
		ExtraFiles: []*os.File{cfgR},
	}
	r.started.Add(1)
	startErr := child.Start(cmd)
	outW.Close()
	errW.Close()
	cfgR.Close()
	if startErr != nil {
		outR.Close()
		errR.Close()
		cfgW.Close()
		return nil, werr.Wrap(startErr, werr.Internal, "cannot start the sandbox helper")
	}
	go func() {
		_, _ = cfgW.Write(cfgData)
		cfgW.Close()
	}()
	var drain sync.WaitGroup
	drain.Add(2)
	go func() { defer drain.Done(); _, _ = io.Copy(stdout, outR) }()
	go func() { defer drain.Done(); _, _ = io.Copy(stderr, errR) }()

	waitErr := make(chan error, 1)
	go func() { waitErr <- cmd.Wait() }()
	timer := time.NewTimer(time.Duration(j.timeoutMs) * time.Millisecond)
	defer timer.Stop()
	timedOut, cancelled := false, false
	kill := func() {
		_ = child.KillGroup(cmd)
		if cg != nil {
			for _, p := range cg.procs() {
				_ = syscall.Kill(p, syscall.SIGKILL)
			}
		}
	}
	var werrRes error
	select {
	case werrRes = <-waitErr:
	case <-timer.C:
		timedOut = true
		kill()
		werrRes = <-waitErr
	case <-ctx.Done():
		cancelled = true
		kill()
		werrRes = <-waitErr
	}
	// The program is gone. Anything it left behind (in the unsandboxed mode, children
	// that called setsid) dies with the cgroup; in bwrap the PID namespace is already gone.
	if cg != nil {
		for _, p := range cg.procs() {
			_ = syscall.Kill(p, syscall.SIGKILL)
		}
	}
	_ = child.KillGroup(cmd)
	drained := make(chan struct{})
	go func() { drain.Wait(); close(drained) }()
	select {
	case <-drained:
	case <-time.After(3 * time.Second):
		outR.Close()
		errR.Close()
		<-drained
	}
	outR.Close()
	errR.Close()

	res := &Result{TimedOut: timedOut, Limits: limits}
	res.Stdout, res.StdoutTruncated = stdout.result()
	res.Stderr, res.StderrTruncated = stderr.result()
	res.ExitCode = exitCode(cmd.ProcessState, werrRes)
	if res.ExitCode == helperExit && strings.HasPrefix(res.Stderr, helperPrefix) {
		return nil, werr.New(werr.Internal, "the sandbox could not be set up: %s", strings.TrimSpace(strings.TrimPrefix(res.Stderr, helperPrefix)))
	}
	if bw != "" && res.ExitCode == 1 && strings.HasPrefix(res.Stderr, "bwrap: ") {
		return nil, werr.New(werr.Unavailable, "the OS sandbox failed to start: %s", strings.TrimSpace(res.Stderr)).
			WithHint("bubblewrap needs user or mount namespaces; check that they are enabled")
	}
	res.Success = res.ExitCode == 0 && !timedOut
	res.ResourceLimitsApplied = bw != "" && cg != nil
	if cancelled {
		return res, werr.New(werr.Cancelled, "the call was cancelled; the program was stopped")
	}
	return res, nil
}

// exitCode maps a process state to a shell-style exit code (128+signal when killed).
func exitCode(ps *os.ProcessState, err error) int {
	if ps == nil {
		if err != nil {
			return -1
		}
		return 0
	}
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok {
		switch {
		case ws.Exited():
			return ws.ExitStatus()
		case ws.Signaled():
			return 128 + int(ws.Signal())
		}
	}
	return ps.ExitCode()
}

func countUserProcs(uid int) int {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return 0
	}
	n := 0
	for _, e := range ents {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		if info, err := os.Stat(filepath.Join("/proc", e.Name())); err == nil {
			if st, ok := info.Sys().(*syscall.Stat_t); ok && int(st.Uid) == uid {
				n++
			}
		}
	}
	return n
}
