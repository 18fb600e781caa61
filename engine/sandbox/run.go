package sandbox

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	"github.com/w365/w365/engine/policy"
	"github.com/w365/w365/engine/werr"
)

// Result is the outcome of one execute_shell_command or execute_python_code call.
type Result struct {
	Stdout   string `json:"stdout"`
	Stderr   string `json:"stderr"`
	ExitCode int    `json:"exitCode"`
	Success  bool   `json:"success"`
	TimedOut bool   `json:"timedOut"`
	// ResourceLimitsApplied is true only when every layer-2 protection was in force: the
	// bubblewrap sandbox (namespaces, read-only root, no capabilities), the rlimits and a
	// process-count limit. Limits lists what was actually applied.
	ResourceLimitsApplied bool `json:"resourceLimitsApplied"`
	StdoutTruncated       bool `json:"stdoutTruncated"`
	StderrTruncated       bool `json:"stderrTruncated"`
	// Limits names each protection that was in force for this run, e.g. "bwrap",
	// "net:none", "pidns", "rlimit:as=536870912", "pids.max=512".
	Limits []string `json:"limits,omitempty"`
}

// Limits applied by layer 2 besides the policy's PythonMemoryBytes.
const (
	// ShellMemoryBytes is the address-space limit of shell commands. It is larger than
	// Python's because JIT runtimes (node, npm) reserve gigabytes of address space.
	ShellMemoryBytes = 4 << 30
	// MaxProcesses is pids.max of the run's cgroup: processes and threads together.
	MaxProcesses = 512
	// MaxFileBytes is RLIMIT_FSIZE, the largest file a sandboxed program may write.
	MaxFileBytes = 1 << 30
	// MaxOpenFiles is RLIMIT_NOFILE.
	MaxOpenFiles = 4096
)

// Runner runs commands and Python code of one session. It is safe for concurrent use.
type Runner struct {
	pol      *policy.Policy
	session  []string // the session environment, for %VAR% detection and HOME
	env      []string // the scrubbed environment programs run with
	mu       sync.Mutex
	workDir  string
	started  atomic.Int64 // processes started, for tests
	noBwrap  bool         // tests: behave as if bubblewrap were missing
	bwrapBin string
}

// NewRunner returns a Runner for policy p (nil: policy.Default()) whose programs get
// env (the session's desktop environment; nil: this process's) minus the scrubbed
// variables, see ScrubEnv.
func NewRunner(p *policy.Policy, env []string) *Runner {
	if p == nil {
		p = policy.Default()
	}
	if env == nil {
		env = os.Environ()
	}
	return &Runner{pol: p, session: append([]string(nil), env...), env: ScrubEnv(env)}
}

// lookPath finds a program on the scrubbed PATH; the result is absolute.
func (r *Runner) lookPath(name string) (string, error) {
	for _, dir := range filepath.SplitList(lookupVar(r.env, "PATH")) {
		if dir == "" || !filepath.IsAbs(dir) {
			continue // relative PATH entries would resolve against cwd: never
		}
		p := filepath.Join(dir, name)
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", exec.ErrNotFound
}

// WorkDir returns the session's scratch directory, the default cwd: a private directory
// (mode 0700) under the system temp directory, created on first use and kept for the
// Runner's life so that files written by one call are there for the next. Close removes it.
func (r *Runner) WorkDir() (string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.workDir != "" {
		if _, err := os.Stat(r.workDir); err == nil {
			return r.workDir, nil
		}
	}
	d, err := os.MkdirTemp("", "w365-work-")
	if err != nil {
		return "", werr.Wrap(err, werr.Internal, "cannot create the scratch directory")
	}
	if d, err = filepath.EvalSymlinks(d); err != nil {
		return "", werr.Wrap(err, werr.Internal, "cannot resolve the scratch directory")
	}
	r.workDir = d
	return d, nil
}

// Close removes the scratch directory.
func (r *Runner) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.workDir == "" {
		return nil
	}
	err := os.RemoveAll(r.workDir)
	r.workDir = ""
	return err
}

func (r *Runner) timeout(ms int) (int, error) {
	switch {
	case ms < 0:
		return 0, werr.Invalid("timeoutMs must not be negative (got %d)", ms)
	case ms == 0:
		return r.pol.ExecTimeoutDefaultMs, nil
	case ms > r.pol.ExecTimeoutMaxMs:
		return 0, werr.Invalid("timeoutMs %d is above the maximum of %d", ms, r.pol.ExecTimeoutMaxMs).
			WithHint("split the work into shorter steps, or start a background process from execute_python_code and poll it")
	}
	return ms, nil
}

var windowsPath = regexp.MustCompile(`^[A-Za-z]:([/\\]|$)`)

// resolveCwd turns the cwd parameter into an existing directory, symlinks resolved.
func (r *Runner) resolveCwd(cwd string) (string, error) {
	if cwd == "" {
		return r.WorkDir()
	}
	if windowsPath.MatchString(cwd) {
		return "", werr.Invalid("cwd %q is a Windows path; this machine runs Linux", cwd).
			WithHint("give an absolute path such as %s, or omit cwd for the session scratch directory", homeOf(r.session))
	}
	if !utf8.ValidString(cwd) || strings.ContainsRune(cwd, 0) {
		return "", werr.Invalid("cwd is not a valid path")
	}
	home := homeOf(r.session)
	if cwd == "~" || strings.HasPrefix(cwd, "~/") {
		cwd = home + cwd[1:]
	}
	if !filepath.IsAbs(cwd) {
		wd, err := r.WorkDir()
		if err != nil {
			return "", err
		}
		cwd = filepath.Join(wd, cwd)
	}
	real, err := filepath.EvalSymlinks(filepath.Clean(cwd))
	if err != nil {
		return "", werr.New(werr.NotFound, "cwd %s does not exist", cwd).WithHint("create it first (mkdir) or omit cwd")
	}
	st, err := os.Stat(real)
	if err != nil || !st.IsDir() {
		return "", werr.Invalid("cwd %s is not a directory", cwd)
	}
	if why := forbiddenCwd(real, home); why != "" {
		return "", block("cwd-forbidden", "use a project directory (for example "+filepath.Join(home, "project")+") or omit cwd for the session scratch directory",
			"cwd %s cannot be used: %s", real, why)
	}
	return real, nil
}

// forbiddenCwd says why a directory may not become the sandbox's writable directory: the
// sandbox makes cwd writable, and these would let sandboxed code plant files that run
// outside the sandbox later (shell start-up files) or reach host sockets.
func forbiddenCwd(dir, home string) string {
	if dir == "/" {
		return "the root directory would become writable"
	}
	if home != "" {
		if rh, err := filepath.EvalSymlinks(home); err == nil {
			home = rh
		}
		if dir == home || strings.HasPrefix(home, dir+"/") {
			return "the home directory (and its parents) hold start-up files that run outside the sandbox"
		}
	}
	tmp := os.TempDir()
	if rt, err := filepath.EvalSymlinks(tmp); err == nil {
		tmp = rt
	}
	if dir == tmp || dir == "/tmp" || dir == "/var/tmp" || strings.HasPrefix(tmp, dir+"/") {
		return "the shared temporary directory holds other programs' sockets (X11, D-Bus)"
	}
	for _, p := range []string{"/proc", "/sys", "/dev", "/run", "/var/run", "/tmp/.X11-unix", "/tmp/.ICE-unix", "/etc", "/boot", "/usr", "/bin", "/sbin", "/lib", "/lib64"} {
		if dir == p || strings.HasPrefix(dir, p+"/") {
			return "system directories are not writable from the sandbox"
		}
	}
	return ""
}

func homeOf(env []string) string {
	if h := lookupVar(env, "HOME"); h != "" {
		return h
	}
	h, _ := os.UserHomeDir()
	return h
}

// Shell runs one command line (execute_shell_command). The command is checked (layer 1);
// a refusal is a BLOCKED_BY_POLICY error and nothing runs. An allowed command runs through
// the program's absolute path with the scrubbed environment inside the OS sandbox (layer 2).
// A non-zero exit is not an error: it is reported in the Result.
func (r *Runner) Shell(ctx context.Context, command, cwd string, timeoutMs int) (*Result, error) {
	ms, err := r.timeout(timeoutMs)
	if err != nil {
		return nil, err
	}
	argv, e := check(r.pol, command, r.lookPath, r.session)
	if e != nil {
		return nil, e
	}
	path, lerr := r.lookPath(argv[0])
	if lerr != nil {
		return nil, werr.New(werr.NotFound, "%s is allowed but not installed on this machine", argv[0]).
			WithDetail("rule", "program-not-installed").WithHint("check with where/which, or use execute_python_code")
	}
	dir, err := r.resolveCwd(cwd)
	if err != nil {
		return nil, err
	}
	return r.run(ctx, job{path: path, argv: argv, dir: dir, timeoutMs: ms, memBytes: ShellMemoryBytes})
}

// pythonBoot runs the code file named by argv[1] as __main__ with the cwd first on sys.path
// (as python -c does), so that tracebacks show the caller's lines.
const pythonBoot = `import sys
p = sys.argv[1]
sys.argv = ['-c']
with open(p, 'rb') as f:
    src = f.read()
g = {'__name__': '__main__', '__builtins__': __builtins__}
del sys, f
exec(compile(src, '<code>', 'exec'), g)
`

// codeInSandbox is where the Python code file appears inside the sandbox.
const codeInSandbox = "/tmp/.w365-code.py"

// Python runs Python source (execute_python_code) in the sandbox with the policy's memory
// limit (RLIMIT_AS). Code longer than the policy's PythonCodeChars is INVALID_ARGUMENT.
func (r *Runner) Python(ctx context.Context, code, cwd string, timeoutMs int) (*Result, error) {
	ms, err := r.timeout(timeoutMs)
	if err != nil {
		return nil, err
	}
	if n := utf8.RuneCountInString(code); n > r.pol.PythonCodeChars {
		return nil, werr.Invalid("code is %d characters; the limit is %d", n, r.pol.PythonCodeChars).
			WithHint("write the code in several files with smaller calls and import them")
	}
	py, lerr := r.lookPath("python3")
	if lerr != nil {
		if py, lerr = r.lookPath("python"); lerr != nil {
			return nil, werr.New(werr.Unavailable, "no Python interpreter (python3 or python) is installed").WithRetryable(false)
		}
	}
	dir, err := r.resolveCwd(cwd)
	if err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp("", "w365-py-")
	if err != nil {
		return nil, werr.Wrap(err, werr.Internal, "cannot stage the Python code")
	}
	defer os.RemoveAll(tmp)
	codeFile := filepath.Join(tmp, "code.py")
	if err := os.WriteFile(codeFile, []byte(code), 0o644); err != nil {
		return nil, werr.Wrap(err, werr.Internal, "cannot stage the Python code")
	}
	if err := os.Chmod(tmp, 0o755); err != nil {
		return nil, werr.Wrap(err, werr.Internal, "cannot stage the Python code")
	}
	return r.run(ctx, job{path: py, argv: []string{"python3", "-c", pythonBoot, codeFile}, dir: dir, timeoutMs: ms,
		memBytes: int64(r.pol.PythonMemoryBytes), codeFile: codeFile})
}

// job is one validated program run.
type job struct {
	path      string   // absolute program path
	argv      []string // argv[0] is the program name
	dir       string   // resolved cwd
	timeoutMs int
	memBytes  int64
	codeFile  string // host path of the Python code, bound read-only at codeInSandbox
}

// capBuffer keeps the first limit bytes written to it (plus up to 3 for a UTF-8 cut)
// and counts the rest, never blocking the writer.
type capBuffer struct {
	mu    sync.Mutex
	limit int
	buf   []byte
	total int64
}

func (c *capBuffer) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.total += int64(len(p))
	if room := c.limit + utf8.UTFMax - len(c.buf); room > 0 {
		c.buf = append(c.buf, p[:min(room, len(p))]...)
	}
	return len(p), nil
}

// result returns the text, at most limit bytes, cut on a UTF-8 boundary, invalid bytes
// replaced, and whether anything was cut.
func (c *capBuffer) result() (string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := strings.ToValidUTF8(string(c.buf), "\uFFFD")
	truncated := c.total > int64(c.limit)
	if len(s) > c.limit {
		cut := c.limit
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut]
		truncated = true
	}
	return s, truncated
}
