package sandbox

import (
	"context"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/w365/w365/engine/policy"
	"github.com/w365/w365/engine/tmpdir"
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
	// MemoryLimitHit is true when the call's memory limit (all its processes together)
	// made the kernel kill one of them.
	MemoryLimitHit bool `json:"memoryLimitHit,omitempty"`
	// Quarantined lists what the run left in a git repository it created in the working
	// directory that git would run later (hooks, program-running configuration): each was
	// renamed to NAME.w365-untrusted. It also names what the guard renamed after an earlier
	// call had returned (its walk went on past gitGuardWait) or a launched application exited.
	Quarantined []string `json:"quarantined,omitempty"`
	// Limits names each protection that was in force for this run, e.g. "bwrap",
	// "net:none", "pidns", "rlimit:as=536870912", "pids.max=512".
	Limits []string `json:"limits,omitempty"`
}

// Limits applied by layer 2 besides the policy's PythonMemoryBytes.
const (
	// ShellAddressSpaceBytes is the per-process address-space limit of shell commands
	// (RLIMIT_AS). It is larger than their memory limit because JIT runtimes (node, npm)
	// reserve gigabytes of address space they never touch; the memory that counts is
	// limited for the whole call by the run's cgroup (policy ShellMemoryBytes).
	ShellAddressSpaceBytes = 4 << 30
	// MaxProcesses is pids.max of the run's cgroup: processes and threads together.
	MaxProcesses = 512
	// MaxFileBytes is RLIMIT_FSIZE, the largest file a sandboxed program may write.
	MaxFileBytes = 1 << 30
	// MaxOpenFiles is RLIMIT_NOFILE.
	MaxOpenFiles = 4096
)

// ConfineOptions describe a long-lived program of the session for Confine.
type ConfineOptions struct {
	// ShareNet keeps the host's network (the browser's default); without it the program
	// has a network namespace of its own with nothing in it.
	ShareNet bool
	// Binds are host paths shown read-write at the same place (a browser profile).
	Binds []string
	// WorkDirs are workspace directories shown read-write at the same place as a shell
	// call's cwd is: credential files inside them hidden, every .git read-only as a whole.
	WorkDirs []string
	// Files are files of the workspaces shown read-write at the same place, bound as
	// WorkDirs are (with no symbolic link followed).
	Files []string
	// SessionPIDs runs the program in its virtual session's PID namespace itself, not in
	// one of its own below it: what it starts and leaves running (nedit-nc starts NEdit's
	// server and exits) lives on until the session ends, as the desktop's programs do.
	// Outside a virtual session it has a PID namespace of its own all the same.
	SessionPIDs bool
}

// Runner runs commands and Python code of one session. It is safe for concurrent use.
type Runner struct {
	pol     *policy.Policy
	private []string // the host's own directories: never cwd, hidden inside the sandbox
	session []string // the session environment, for %VAR% detection and HOME
	env     []string // the scrubbed environment programs run with
	mu      sync.Mutex
	workDir string
	work    *tmpdir.Dir // the scratch directory the Runner made (none with a session's)
	home    string      // the session's HOME and /tmp (SetSessionDirs); "" outside a session
	tmp     string
	started atomic.Int64 // processes started, for tests
	// closed, stop and runs: Close ends the calls running (track) and waits for them.
	closed   bool
	stop     context.Context
	stopAll  context.CancelFunc
	runs     sync.WaitGroup
	limits   sessionLimits // the cgroup of the programs Confine starts
	guarding atomic.Int32  // git guard walks that outlived their call (guardAfter)
	lateMu   sync.Mutex
	late     []string // what walks renamed that no call's result named yet (addLate)
	noBwrap  bool     // tests: behave as if bubblewrap were missing
	bwrapBin string
}

// NewRunner returns a Runner for policy p (nil: policy.Default()) whose programs get
// env (the session's desktop environment; nil: this process's) minus the scrubbed
// variables, see ScrubEnv. private are the host's own directories (its runtime
// directory with the socket, session and browser-profile directories): never accepted
// as cwd nor as a parent of it, and empty inside the sandbox.
func NewRunner(p *policy.Policy, env []string, private ...string) *Runner {
	if p == nil {
		p = policy.Default()
	}
	if env == nil {
		env = os.Environ()
	}
	r := &Runner{pol: p, session: append([]string(nil), env...), env: sandboxEnv(env)}
	r.stop, r.stopAll = context.WithCancel(context.Background())
	if rt := lookupVar(env, "XDG_RUNTIME_DIR"); rt != "" {
		private = append(private, rt)
	}
	for _, d := range private {
		if !filepath.IsAbs(d) {
			continue
		}
		d = resolved(d)
		r.private = append(r.private, filepath.Clean(d))
	}
	return r
}

// isPrivate reports whether dir is one of the host's private directories, inside one,
// or a parent of one.
func (r *Runner) isPrivate(dir string) bool {
	for _, p := range r.private {
		if within(dir, p) || within(p, dir) {
			return true
		}
	}
	return false
}

// programDirs are the directories programs are looked up in: each of the host's PATH
// (absolute, symbolic links resolved), and ~/bin, which the usual shell start-up files put
// on the person's PATH once it exists. A program a session wrote there would run outside
// the sandbox: the host looks up on PATH what it runs itself (tesseract, node, npm, Xvfb,
// chromium), and the person's shell and editor what they run. And the directory of the
// host's own executable, which it runs again by its path (the sandbox helper, as root on a
// root host, before it confines; the background host) as the person's MCP client does:
// unpacked in ~/tools, it was replaced by a Python call and the host's next call ran the
// replacement. HOME and the directories holding it are left out there: no session writes
// in them, and all of HOME would be refused. And the directory each symbolic link in one of
// these leads to: a program on PATH is often a link to where it was unpacked
// (~/bin/tesseract to ~/tess/tesseract), and a Python call replaced what the link led to,
// which the host's next OCR ran; HOME and the directories holding it left out again.
// home, here as in installation and loadDirs, has its symbolic links resolved (programsIn).
func programDirs(home string) []string {
	dirs := filepath.SplitList(os.Getenv("PATH"))
	if home != "" {
		dirs = append(dirs, filepath.Join(home, "bin"))
	}
	if d := exeDir(); d != "" && (home == "" || !within(home, d)) {
		dirs = append(dirs, d)
	}
	var out, links []string
	for _, p := range dirs {
		if !filepath.IsAbs(p) {
			continue // a relative entry names no place: exec.LookPath refuses what it finds there
		}
		p = filepath.Clean(p)
		p = resolved(p)
		if !slices.Contains(out, p) {
			out = append(out, p)
			links = append(links, linkedDirs(p)...)
		}
	}
	for _, l := range links {
		if !slices.Contains(out, l) && (home == "" || !within(home, l)) {
			out = append(out, l)
		}
	}
	return out
}

// exeDir is the directory of the host's own executable, or "" (read once: the path it was
// started from does not change; a sync.Once, not sync.OnceValue, which allocates as every
// one-shot command starts).
func exeDir() string {
	ownDir.once.Do(func() {
		if exe, err := os.Executable(); err == nil {
			ownDir.dir = filepath.Dir(exe)
		}
	})
	return ownDir.dir
}

var ownDir struct {
	once sync.Once
	dir  string
}

// linked caches linkedDirs by directory, while its modification time stays (reading every
// link of /usr/bin took 150 ms).
var linked struct {
	sync.Mutex
	m map[string]linkedEntry
}

type linkedEntry struct {
	mtime time.Time
	dirs  []string
}

// linkedDirs are the directories the symbolic links in dir lead to, other than dir.
func linkedDirs(dir string) []string {
	fi, err := os.Stat(dir)
	if err != nil {
		return nil
	}
	linked.Lock()
	e, ok := linked.m[dir]
	linked.Unlock()
	if ok && e.mtime.Equal(fi.ModTime()) {
		return e.dirs
	}
	ents, _ := os.ReadDir(dir)
	var out []string
	for _, e := range ents {
		if e.Type()&fs.ModeSymlink == 0 {
			continue
		}
		if t, err := filepath.EvalSymlinks(filepath.Join(dir, e.Name())); err == nil {
			if d := filepath.Dir(t); d != dir && !slices.Contains(out, d) {
				out = append(out, d)
			}
		}
	}
	linked.Lock()
	if linked.m == nil {
		linked.m = map[string]linkedEntry{}
	}
	linked.m[dir] = linkedEntry{fi.ModTime(), out}
	linked.Unlock()
	return out
}

// holdsPrograms says, as programsLoadFrom does, where programs are looked up or load code
// from in dir or in what dir holds (a directory of programDirs or loadDirs inside dir), or "".
func holdsPrograms(dir, home string) string {
	return programsIn(dir, home, true)
}

// ProgramsLoadFrom says, in words that name the directory and why, that programs of the
// host's environment (its HOME) are looked up or load code from dir (programDirs with their
// installation, loadDirs), or "": a file the host writes there for a session
// (browser_pdf_save) could be run or loaded outside it later.
func ProgramsLoadFrom(dir string) string {
	home, _ := os.UserHomeDir()
	return programsLoadFrom(dir, home)
}

// programsLoadFrom is ProgramsLoadFrom with HOME given.
func programsLoadFrom(dir, home string) string {
	return programsIn(dir, home, false)
}

// programsIn is programsLoadFrom, or holdsPrograms where holding.
func programsIn(dir, home string, holding bool) string {
	if home != "" {
		home = resolved(home)
	}
	for _, p := range programDirs(home) {
		if within(dir, installation(p, home)) || holding && within(p, dir) {
			return lookedUp(p)
		}
	}
	for _, l := range loadDirs(home) {
		if within(dir, l.dir) || holding && within(l.dir, dir) {
			return loadedFrom(l)
		}
	}
	return ""
}

func lookedUp(p string) string { return "programs are looked up in " + p + " (PATH, or w365's own)" }

func loadedFrom(l loadDir) string { return "programs load code from " + l.dir + " (" + l.name + ")" }

// loadPathVars are the variables of the person's environment (the host's) that name where
// programs load code from besides PATH, each read as its kind says, and the places of HOME
// programs load from when no variable says (docs/security.md, the working directory): with
// PYTHONPATH naming a folder of a workspace root, a Python call there wrote a
// sitecustomize.py that the person's next python3 ran, outside the sandbox; one in
// ~/node_modules wrote a module the person's node required from ~/project.
var loadPathVars = []struct {
	name string // the variable; none for a place of HOME looked in from every folder of HOME
	kind loadKind
	home string // the place of HOME programs load from when the variable is unset, if any
}{
	{"PYTHONPATH", dirList, ""}, {"PYTHONUSERBASE", dirList, ""}, {"PERL5LIB", dirList, ""}, {"PERLLIB", dirList, ""},
	{"NODE_PATH", dirList, ""}, {"LD_LIBRARY_PATH", dirList, ""}, {"LD_PRELOAD", fileList, ""}, {"GOPATH", goPath, "go"},
	{"GOMODCACHE", dirList, ""}, {"R_LIBS", dirList, ""}, {"R_LIBS_USER", dirList, "R"}, {"RUBYLIB", dirList, ""},
	{"GEM_HOME", dirList, ""}, {"GEM_PATH", dirList, ""}, {"CLASSPATH", classPath, ""},
	{"LUA_PATH", luaTemplates, ""}, {"LUA_CPATH", luaTemplates, ""}, {"LUA_PATH_5_4", luaTemplates, ""}, {"LUA_CPATH_5_4", luaTemplates, ""},
	// No variable: node looks in ~/node_modules for a module it finds nowhere nearer, from
	// every folder of HOME. R's default user library is ~/R/PLATFORM-library/VERSION.
	{"", dirList, "node_modules"},
}

type loadKind int

const (
	dirList      loadKind = iota // directories, PATH's separator between them
	fileList                     // files (LD_PRELOAD: spaces or colons between them): their directories
	goPath                       // GOPATH's directories: their pkg/mod and bin
	classPath                    // directories, and .jar or .zip files or dir/* (their directories)
	luaTemplates                 // templates such as /x/?.lua with ; between them: their directory parts
)

// loadDir is one directory a variable of loadPathVars names.
type loadDir struct{ name, dir string }

// loadDirs are the absolute directories loadPathVars name (symbolic links resolved), other
// than HOME and those holding it: no session writes there, and all of HOME would be refused.
// A relative entry (PYTHONPATH's empty one, ".") names wherever the person runs a program,
// which no rule of a place can cover.
func loadDirs(home string) []loadDir {
	var out []loadDir
	for _, v := range loadPathVars {
		name, val := v.name, ""
		if name == "" {
			name = "~/" + v.home + ", looked in from every folder of HOME"
		} else {
			val = os.Getenv(name)
		}
		if val == "" && v.home != "" && home != "" {
			val = filepath.Join(home, v.home)
		}
		var dirs []string
		switch v.kind {
		case dirList:
			dirs = filepath.SplitList(val)
		case fileList:
			for _, f := range strings.FieldsFunc(val, func(r rune) bool { return r == ' ' || r == ':' }) {
				dirs = append(dirs, filepath.Dir(f))
			}
		case goPath:
			for _, g := range filepath.SplitList(val) {
				dirs = append(dirs, filepath.Join(g, "pkg", "mod"), filepath.Join(g, "bin"))
			}
		case classPath:
			for _, c := range filepath.SplitList(val) {
				if e := strings.ToLower(filepath.Ext(c)); e == ".jar" || e == ".zip" || filepath.Base(c) == "*" {
					c = filepath.Dir(c)
				}
				dirs = append(dirs, c)
			}
		case luaTemplates:
			for _, t := range strings.Split(val, ";") {
				if i := strings.IndexByte(t, '?'); i >= 0 {
					t = t[:i] + "x"
				}
				dirs = append(dirs, filepath.Dir(t))
			}
		}
		for _, d := range dirs {
			if !filepath.IsAbs(d) {
				continue
			}
			d = resolved(filepath.Clean(d))
			if (home == "" || !within(home, d)) && !slices.Contains(out, loadDir{name, d}) {
				out = append(out, loadDir{name, d})
			}
		}
	}
	return out
}

// installation is the directory a program directory p belongs to, whose every file its
// programs may load (~/conda for ~/conda/bin: ~/conda/lib/python3.11/site-packages, whose
// .pth files the person's python3 runs; ~/go for ~/go/bin: the module sources in
// ~/go/pkg/mod that the person's go build compiles): p's parent, or p itself where the
// parent is HOME or holds it (~/bin), where p lies in a dot-directory of HOME (~/.local/bin:
// no session writes there, and ~/.local/state holds the sessions' own directories), and for
// the directory of w365's own executable, which loads nothing beside it (unpacked in
// /tmp/x, all of /tmp would be refused).
func installation(p, home string) string {
	parent := filepath.Dir(p)
	if parent == p {
		return p
	}
	if home != "" {
		if within(home, parent) {
			return p
		}
		if rel, ok := strings.CutPrefix(p, home+string(filepath.Separator)); ok && strings.HasPrefix(rel, ".") {
			return p
		}
	}
	if exeDir() == p {
		return p
	}
	return parent
}

// resolved is p with the symbolic links of its longest existing leading part resolved: a
// directory a rule names may not exist yet, and be made later below a linked one (PATH's
// ~/apps/bin with ~/apps a link to ~/tools: a call in ~/tools made bin/tesseract, and the
// host's next OCR ran it).
func resolved(p string) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	if parent := filepath.Dir(p); parent != p {
		return filepath.Join(resolved(parent), filepath.Base(p))
	}
	return p
}

// within reports whether path is dir or lies inside it (both clean and absolute). On
// Windows paths are compared case-insensitively, as the file system does.
func within(path, dir string) bool {
	if runtime.GOOS == "windows" {
		path, dir = strings.ToLower(path), strings.ToLower(dir)
	}
	sep := string(filepath.Separator)
	return path == dir || dir == "/" || strings.HasPrefix(path, strings.TrimSuffix(dir, sep)+sep)
}

// expandTilde turns "~" and "~/x" into home.
func expandTilde(p, home string) string {
	if home != "" && (p == "~" || strings.HasPrefix(p, "~/")) {
		return filepath.Join(home, p[1:])
	}
	return p
}

// SetSessionDirs makes home the HOME and tmp the /tmp of every program the Runner starts
// (the session's state directory, docs/sessions.md#files); tmp is then the scratch
// directory too, and Close leaves both to the session. Call it before the first run.
func (r *Runner) SetSessionDirs(home, tmp string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, d := range []*string{&home, &tmp} {
		*d = resolved(*d)
	}
	r.home, r.tmp, r.workDir = home, tmp, tmp
	if home != "" {
		r.env = setVar(r.env, "HOME", home)
	}
}

// wordEnv is the environment a command's words are read in: ~ is the session's HOME.
func (r *Runner) wordEnv() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.home == "" {
		return r.session
	}
	return setVar(r.session, "HOME", r.home)
}

// runEnv is the environment of one run.
func (r *Runner) runEnv() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.env
}

// setVar returns env with name set to value.
func setVar(env []string, name, value string) []string {
	out := make([]string, 0, len(env)+1)
	for _, kv := range env {
		if !strings.HasPrefix(kv, name+"=") {
			out = append(out, kv)
		}
	}
	return append(out, name+"="+value)
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
	r.work.Release()
	d, err := tmpdir.Make("", tmpdir.Work)
	if err != nil {
		return "", werr.Wrap(err, werr.Internal, "cannot create the scratch directory")
	}
	p, err := filepath.EvalSymlinks(d.Path)
	if err != nil {
		d.Remove()
		return "", werr.Wrap(err, werr.Internal, "cannot resolve the scratch directory")
	}
	r.work, r.workDir = d, p
	return p, nil
}

// track makes ctx end when the Runner closes, and Close wait for the call to end: a call
// never outlives its session (its end closes the Runner). After Close, ctx is ended already.
func (r *Runner) track(ctx context.Context) (context.Context, func()) {
	ctx, cancel := context.WithCancel(ctx)
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		cancel()
		return ctx, func() {}
	}
	r.runs.Add(1)
	stop := context.AfterFunc(r.stop, cancel)
	return ctx, func() { stop(); cancel(); r.runs.Done() }
}

// Close ends the calls running, waits for them, kills what is left of the programs
// Confine started, and removes the scratch directory.
func (r *Runner) Close() error {
	r.mu.Lock()
	r.closed = true
	r.mu.Unlock()
	r.stopAll()
	r.runs.Wait()
	r.limits.end()
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.work == nil {
		return nil
	}
	err := r.work.Remove()
	r.work, r.workDir = nil, ""
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

var windowsPath = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z]:([/\\]|$)`) })

// resolveCwd turns the cwd parameter into an existing directory, symlinks resolved.
func (r *Runner) resolveCwd(cwd string) (string, error) {
	if cwd == "" {
		return r.WorkDir()
	}
	if runtime.GOOS != "windows" && windowsPath().MatchString(cwd) {
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
	// What is refused is refused as the path was given, whether or not it exists, and the
	// refusal names what was given, never where it leads: the host resolves it, with links
	// of its own (/proc/self/cwd, the host's working directory; /proc/self/fd/N, a file it
	// holds open), and a session must not learn whether a file outside exists (a
	// dot-directory of HOME).
	cwd = filepath.Clean(cwd)
	real, err := filepath.EvalSymlinks(cwd)
	if err != nil {
		if why := r.cwdRefusal(cwd, home); why != "" {
			return "", r.blockCwd(cwd, why, home)
		}
		return "", werr.New(werr.NotFound, "cwd %s does not exist", cwd).WithHint("create it first (mkdir) or omit cwd")
	}
	if why := r.cwdRefusal(real, home); why != "" {
		return "", r.blockCwd(cwd, why, home)
	}
	st, err := os.Stat(real)
	if err != nil || !st.IsDir() {
		return "", werr.Invalid("cwd %s is not a directory", cwd)
	}
	return real, nil
}

// cwdRefusal says why directory dir may not be a call's working directory, or "".
func (r *Runner) cwdRefusal(dir, home string) string {
	if wd, err := r.WorkDir(); err == nil && within(dir, wd) {
		return "" // the session's scratch directory
	}
	if why := r.forbiddenCwd(dir, home); why != "" {
		return why
	}
	if r.isPrivate(dir) {
		return "it holds or lies inside the w365 host's own files (its socket, sessions or browser profiles)"
	}
	return ""
}

func (r *Runner) blockCwd(cwd, why, home string) error {
	return block("cwd-forbidden", "use a project directory under a workspace root ("+strings.Join(r.workspaceRoots(home), ", ")+"), for example "+
		filepath.Join(home, "project")+", or omit cwd for the session scratch directory", "cwd %s cannot be used: %s", cwd, why)
}

// workspaceRoots are the policy's WorkspaceRoots, ~ expanded and symlinks resolved.
func (r *Runner) workspaceRoots(home string) []string {
	var out []string
	for _, w := range r.pol.WorkspaceRoots {
		w = expandTilde(w, home)
		if !filepath.IsAbs(w) {
			continue
		}
		w = resolved(w)
		out = append(out, filepath.Clean(w))
	}
	return out
}

// forbiddenCwd says why a directory (not the scratch directory) may not become the
// sandbox's writable directory, or "". It must lie inside a workspace root, below HOME
// rather than HOME itself, outside every dot-directory of HOME, ~/snap and every .git, outside
// the launch directories, the directories programs are looked up in (holdsPrograms) and
// system directories: anything written there could run later outside the sandbox
// (start-up files, autostart entries, keys, hooks, programs).
func (r *Runner) forbiddenCwd(dir, home string) string {
	if why := systemCwd(dir, home, r.session); why != "" {
		return why
	}
	// Outside the roots the refusal says only that: the rules below name what lies at the
	// resolved path (a program directory, a launch directory), which a path such as
	// /proc/self/cwd would tell the agent about the host.
	if !slices.ContainsFunc(r.workspaceRoots(home), func(w string) bool { return within(dir, w) }) {
		return "it is outside the workspace roots of the policy"
	}
	if home != "" {
		home = resolved(home)
		if within(dir, home) && dir != home {
			for i, c := range strings.Split(dir[len(home)+1:], string(filepath.Separator)) {
				if strings.HasPrefix(c, ".") || i == 0 && policy.ProgramsOwn(c) {
					return "dot-directories of the home directory (and ~/snap, the homes of snap applications) hold configuration, keys and start-up files that run outside the sandbox"
				}
			}
		}
	}
	if slices.ContainsFunc(strings.Split(dir, string(filepath.Separator)), func(c string) bool { return strings.EqualFold(c, ".git") || vcsDir(strings.ToLower(c)) != nil }) {
		return "a repository's own directory (.git, .hg, _darcs) holds hooks and configuration that the person's version control runs outside the sandbox"
	}
	for _, l := range slices.Concat(r.pol.LaunchDirs, r.pol.LaunchApplications) {
		l = expandTilde(l, home)
		l = resolved(l)
		if filepath.IsAbs(l) && (within(dir, l) || within(l, dir)) {
			return "launch_application starts programs from " + l
		}
	}
	if why := holdsPrograms(dir, home); why != "" {
		return why + ": one written there, or what they load beside it, would run outside the sandbox"
	}
	return ""
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
	words, e := check(r.pol, command, r.lookPath, r.wordEnv())
	if e != nil {
		return nil, e
	}
	path, argv0, err := r.program(words[0].value)
	if err != nil {
		return nil, err
	}
	dir, err := r.resolveCwd(cwd)
	if err != nil {
		return nil, err
	}
	argv, expanded, e := expandGlobs(words, dir)
	if e != nil {
		return nil, e
	}
	if expanded {
		ws := make([]word, len(argv))
		for i, a := range argv {
			ws[i] = word{value: a}
		}
		if e := host().checkArgs(ws); e != nil {
			return nil, e
		}
	}
	argv = append(argv0, argv[1:]...)
	ctx, done := r.track(ctx)
	defer done()
	return r.run(ctx, job{path: path, argv: argv, dir: dir, timeoutMs: ms,
		memBytes: int64(r.pol.ShellMemoryBytes), addrBytes: ShellAddressSpaceBytes})
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
	py, argv0, err := r.python()
	if err != nil {
		return nil, err
	}
	dir, err := r.resolveCwd(cwd)
	if err != nil {
		return nil, err
	}
	stage, err := tmpdir.Make("", tmpdir.Python)
	if err != nil {
		return nil, werr.Wrap(err, werr.Internal, "cannot stage the Python code")
	}
	defer stage.Remove()
	tmp := stage.Path
	codeFile := filepath.Join(tmp, "code.py")
	if err := os.WriteFile(codeFile, []byte(code), 0o644); err != nil {
		return nil, werr.Wrap(err, werr.Internal, "cannot stage the Python code")
	}
	if err := os.Chmod(tmp, 0o755); err != nil {
		return nil, werr.Wrap(err, werr.Internal, "cannot stage the Python code")
	}
	ctx, done := r.track(ctx)
	defer done()
	return r.run(ctx, job{path: py, argv: append(argv0, "-c", pythonBoot, codeFile), dir: dir, timeoutMs: ms,
		memBytes: int64(r.pol.PythonMemoryBytes), addrBytes: int64(r.pol.PythonMemoryBytes), codeFile: codeFile})
}

// job is one validated program run.
type job struct {
	path      string   // absolute program path
	argv      []string // argv[0] is the program name
	dir       string   // resolved cwd
	timeoutMs int
	memBytes  int64  // memory of all the run's processes together (cgroup)
	addrBytes int64  // address space of each process (RLIMIT_AS)
	codeFile  string // host path of the Python code, bound read-only at codeInSandbox
}

// outputPipes makes the pipes a program's stdout and stderr go to.
func outputPipes() (outR, outW, errR, errW *os.File, err error) {
	if outR, outW, err = os.Pipe(); err != nil {
		return nil, nil, nil, nil, werr.Wrap(err, werr.Internal, "cannot create pipes")
	}
	if errR, errW, err = os.Pipe(); err != nil {
		outR.Close()
		outW.Close()
		return nil, nil, nil, nil, werr.Wrap(err, werr.Internal, "cannot create pipes")
	}
	return outR, outW, errR, errW, nil
}

// outputs copies a program's stdout and stderr pipes into buffers that keep the first
// limit bytes of each.
type outputs struct {
	stdout, stderr capBuffer
	outR, errR     *os.File
	drain          sync.WaitGroup
}

func readOutputs(outR, errR *os.File, limit int) *outputs {
	o := &outputs{stdout: capBuffer{limit: limit}, stderr: capBuffer{limit: limit}, outR: outR, errR: errR}
	o.drain.Add(2)
	go func() { defer o.drain.Done(); _, _ = io.Copy(&o.stdout, outR) }()
	go func() { defer o.drain.Done(); _, _ = io.Copy(&o.stderr, errR) }()
	return o
}

// finish waits, once the program and what it started are gone, for the copies to reach
// the pipes' end, closing the pipes under them after 3 s (a descendant that escaped may
// still hold them), and fills res's output fields.
func (o *outputs) finish(res *Result) {
	drained := make(chan struct{})
	go func() { o.drain.Wait(); close(drained) }()
	select {
	case <-drained:
	case <-time.After(3 * time.Second):
		o.outR.Close()
		o.errR.Close()
		<-drained
	}
	o.outR.Close()
	o.errR.Close()
	res.Stdout, res.StdoutTruncated = o.stdout.result()
	res.Stderr, res.StderrTruncated = o.stderr.result()
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
