//go:build linux

package sandbox

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/landlock-lsm/go-landlock/landlock"
	"golang.org/x/sys/unix"

	"github.com/w365/w365/engine/child"
	"github.com/w365/w365/engine/hostconn"
	"github.com/w365/w365/engine/tmpdir"
	"github.com/w365/w365/engine/werr"
)

// What every confined process gets besides its namespaces (docs/security.md, "Confinement"):
// no_new_privs, a seccomp filter that refuses set-id bits (internal/setid), one that closes
// the ways around it (compatibility ABIs, io_uring: abi_linux.go), and a Landlock domain
// scoped so that it reaches no abstract unix socket and signals no process outside it.

// confineSelf puts the calling process (the helper, about to exec bwrap) under
// no_new_privs, the set-id filter and the scoped Landlock domain; every process it starts
// inherits them. needScope: the run shares the host's network namespace, where only the
// Landlock scope keeps the host's abstract sockets (the person's X server
// @/tmp/.X11-unix/X0, D-Bus) out of reach; without it the run is refused.
func confineSelf(needScope bool) error {
	if err := loadSetidFilter(); err != nil {
		return fmt.Errorf("seccomp filter: %w", err)
	}
	if err := loadProgram(aroundProgram()); err != nil {
		return fmt.Errorf("seccomp filter: %w", err)
	}
	cfg := landlock.V6.BestEffort()
	if needScope {
		cfg = landlock.V6
	}
	if err := cfg.RestrictScoped(); err != nil {
		return fmt.Errorf("%s: %w", landlockCause(), err)
	}
	return nil
}

// landlockABI is the Landlock ABI version of the running kernel (0: none).
func landlockABI() int {
	v, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, 0, 0, unix.LANDLOCK_CREATE_RULESET_VERSION)
	if errno != 0 {
		return 0
	}
	return int(v)
}

// landlockCause says why the Landlock scope is missing.
func landlockCause() string {
	abi := landlockABI()
	if abi == 0 {
		return "Landlock is not enabled in this kernel (it needs CONFIG_SECURITY_LANDLOCK and lsm=...,landlock); a session sharing the host network needs its abstract-socket scope (Linux 6.12+)"
	}
	return fmt.Sprintf("this kernel has Landlock ABI %d; the abstract-socket scope a session sharing the host network needs is ABI 6 (Linux 6.12+)", abi)
}

// stagingDir makes the directory the root host's helper mounts its staging tmpfs on. The
// sandbox's user (SandboxUID) must be able to walk to it, so it is made in the first of
// TMPDIR, /tmp, /var/tmp and /dev/shm whose every component others may search; a TMPDIR of
// mode 0700 is passed over, not an error.
func stagingDir() (*tmpdir.Dir, error) {
	var tried []string
	for _, base := range tmpdir.Bases() {
		if why := searchable(base); why != "" {
			tried = append(tried, why)
			continue
		}
		d, err := tmpdir.Make(base, tmpdir.Stage)
		if err != nil {
			tried = append(tried, fmt.Sprintf("%s: %v", base, err))
			continue
		}
		if err := os.Chmod(d.Path, 0o755); err != nil {
			d.Remove()
			return nil, werr.Wrap(err, werr.Internal, "cannot make the sandbox staging directory searchable")
		}
		return d, nil
	}
	return nil, werr.New(werr.Unavailable, "cannot confine: no directory for the sandbox's staging mounts that user %d may enter (%s)",
		SandboxUID, strings.Join(tried, "; ")).WithRetryable(false).WithDetail("rule", "sandbox-unavailable").
		WithHint("make /tmp mode 1777 (or point TMPDIR at a directory every user may enter)")
}

// searchable says why user SandboxUID cannot walk to dir ("" when it can).
func searchable(dir string) string {
	dir = filepath.Clean(dir)
	for p := dir; ; p = filepath.Dir(p) {
		st, err := os.Stat(p)
		if err != nil {
			return fmt.Sprintf("%s: %v", p, err)
		}
		if !st.IsDir() {
			return p + " is not a directory"
		}
		sys, _ := st.Sys().(*syscall.Stat_t)
		if st.Mode().Perm()&0o001 == 0 && (sys == nil || sys.Uid != SandboxUID) {
			return fmt.Sprintf("%s is mode %04o (others may not enter it)", p, st.Mode().Perm())
		}
		if p == "/" {
			return ""
		}
	}
}

// unconfinable is the refusal to start what (and what that means) because this machine
// cannot confine it, why being Problem's answer: nothing runs unconfined in its place.
func unconfinable(what, why string) error {
	return werr.New(werr.Unavailable, "cannot confine %s: %s", what, why).
		WithRetryable(false).WithDetail("rule", "sandbox-unavailable").WithHint("w365 doctor shows what the confinement needs")
}

// Problem says why this machine cannot confine a sandboxed program ("" when it can): what
// `w365 doctor` shows, and what a refused run names. bwrap is the program, allowNetwork
// whether runs share the host's network.
func Problem(bwrap string, allowNetwork bool) string {
	if bwrap == "" {
		return "bubblewrap is not installed (apt-get install bubblewrap)"
	}
	if utilLinux("nsenter") == "" || utilLinux("unshare") == "" {
		return "util-linux's nsenter and unshare are not installed (apt-get install util-linux): a virtual session's programs enter its namespaces with them"
	}
	if b, err := os.ReadFile("/proc/sys/kernel/unprivileged_userns_clone"); err == nil && strings.TrimSpace(string(b)) == "0" {
		return "unprivileged user namespaces are off (sysctl kernel.unprivileged_userns_clone=0; set it to 1)"
	}
	if b, err := os.ReadFile("/proc/sys/user/max_user_namespaces"); err == nil && strings.TrimSpace(string(b)) == "0" {
		return "user namespaces are off (sysctl user.max_user_namespaces=0)"
	}
	if b, err := os.ReadFile("/proc/sys/kernel/apparmor_restrict_unprivileged_userns"); err == nil && strings.TrimSpace(string(b)) == "1" {
		return "AppArmor restricts unprivileged user namespaces (sysctl kernel.apparmor_restrict_unprivileged_userns=1): give bwrap an AppArmor profile that allows userns, or set it to 0"
	}
	if os.Geteuid() == 0 {
		d, err := stagingDir()
		if err != nil {
			return werr.As(err).Message
		}
		d.Remove()
	}
	if allowNetwork && landlockABI() < 6 {
		return landlockCause()
	}
	if !seccompSupported() {
		return "seccomp filters are not available in this kernel (CONFIG_SECCOMP_FILTER)"
	}
	if nativeArch == 0 {
		return "the confinement's seccomp filters know no ABI for the architecture " + runtime.GOARCH
	}
	return ""
}

// xdgBaseDirs are the XDG base directories a confined program is given, below its home.
var xdgBaseDirs = map[string]string{"XDG_CONFIG_HOME": ".config", "XDG_DATA_HOME": ".local/share",
	"XDG_CACHE_HOME": ".cache", "XDG_STATE_HOME": ".local/state"}

// Confine rewrites cmd, not yet started, to run inside the session's confinement (as
// the host's user, on a root host SandboxUID with its writable directories idmapped;
// docs/security.md#confinement): the same view of the file system as its shell and Python
// calls (view: the read-only system, the session's HOME and /tmp, nothing else of any home
// nor the host's runtime directory), its own user, mount, PID, IPC and UTS namespaces, no
// capabilities, no_new_privs, the set-id filter and the Landlock scope (no abstract socket
// and no signal outside), plus the desktop's own X socket, X authority and session bus
// socket named by cmd.Env, and o.Binds; in the session's cgroup. cmd's ExtraFiles keep
// their numbers. When the machine cannot confine, it says why and cmd is left alone:
// nothing runs unconfined in its place. Call release right after cmd started (or failed
// to): it returns once the confinement has replaced the helper. Call done once the program
// is gone (or never started): it removes the staging directory, kept while the program runs.
func (r *Runner) Confine(cmd *exec.Cmd, o ConfineOptions) (release, done func(), err error) {
	bw := r.bwrap()
	if why := Problem(bw, o.ShareNet); why != "" {
		return nil, nil, unconfinable(filepath.Base(cmd.Path)+", so it is not started", why)
	}
	// On a root host neither root on the host (a root-only file stays closed) nor inside
	// (Chromium keeps its own sandbox only then): the helper becomes SandboxUID, and what
	// the program writes is idmapped to root's on disk, as a shell call's.
	m, done, err := programMounts(cmd, bw)
	if err != nil {
		return nil, nil, err
	}
	env := cmd.Env
	priv, privSrc := desktopDir(env), ""
	ns := namespacesOf(priv)
	a := []string{bw, "--new-session", "--die-with-parent", "--unshare-all"}
	if o.SessionPIDs && ns != nil {
		// Its PID namespace would end with it, and the kernel end all it left running.
		a = sessionPIDArgs(bw)
	}
	if o.ShareNet {
		a = append(a, "--share-net")
	}
	r.view(m, ProgramTmpBytes)
	// The desktop's private directory (its X authority, X socket and buses) is shown whole
	// and read-only: a program connects to the sockets in it (a socket takes connections on
	// a read-only mount) but cannot replace one with its own for the programs started after
	// it, rewrite the X authority or the buses' configuration, nor plant anything there.
	// What lies in it is bound from that mount by bubblewrap, as the program's user.
	if priv != "" {
		privSrc = m.source(canonical(priv), true, true)
		m.add("--ro-bind", privSrc, priv)
	}
	inPriv := func(p string) (string, bool) {
		if rel, err := filepath.Rel(priv, p); priv != "" && err == nil && filepath.IsLocal(rel) {
			return filepath.Join(privSrc, rel), true
		}
		return "", false
	}
	if sock, inner, ok := innerDisplay(env); ok {
		// The display's socket is the host's link into the private directory.
		target, err := os.Readlink(sock)
		if err == nil && !filepath.IsAbs(target) {
			target = filepath.Join(filepath.Dir(sock), target)
		}
		src, ok := inPriv(target)
		if !ok {
			src = sock // bubblewrap reaches it as the program's user, or fails
		}
		m.add("--bind", src, "/tmp/.X11-unix/X"+strconv.Itoa(inner))
		env = setVar(env, "DISPLAY", ":"+strconv.Itoa(inner))
	}
	for _, p := range busSockets(env) {
		if _, ok := inPriv(p); !ok && fileExists(p) {
			m.add("--bind", p, p)
		}
	}
	for _, p := range o.Binds {
		if fileExists(p) {
			m.add("--bind", m.source(p, dirExists(p), true), p)
		}
	}
	shown, gits, err := r.showWorkDirs(m, o.WorkDirs, o.Files)
	if err != nil {
		m.closeFiles()
		done()
		return nil, nil, err
	}
	dir := r.home
	if dir == "" {
		dir = "/"
	}
	m.add("--chdir", dir, "--cap-drop", "ALL")
	a = append(append(a, m.args...), "--", cmd.Path)
	if r.home != "" {
		env = setVar(setVar(env, "HOME", r.home), "TMPDIR", "/tmp")
		// The base directories too, where the XDG specification puts them by default: a
		// program that does not find one in its environment takes its password entry's
		// home, which for SandboxUID is /nonexistent (libqalculate kept no settings), and
		// the host's own (XDG_ passes) name the person's directories, masked here.
		for k, rel := range xdgBaseDirs {
			env = setVar(env, k, filepath.Join(r.home, rel))
		}
	}
	// No runtime directory: the host's lies below the masked /run/user, where atk-bridge
	// would put the program's own accessibility server out of the host's reach; without
	// one it puts it in HOME/.cache, which the host's walk reaches (docs/accessibility.md#speed).
	env = slices.DeleteFunc(slices.Clone(env), func(kv string) bool { return strings.HasPrefix(kv, "XDG_RUNTIME_DIR=") })
	cmd.ExtraFiles = append(cmd.ExtraFiles, m.files...)
	// The applications' cgroup below the session's, which the helper joins before it execs:
	// all the program forks stays inside (limits_linux.go); without one, a process count.
	cg := r.limits.cgroup(ns)
	release, err = startHelper(cmd, withNamespaces(ns, helperConfig{Argv: append(a, cmd.Args[1:]...), Env: env,
		SharedNet: o.ShareNet, Drop: m.drop, Stage: m.stage, Binds: m.binds, CgroupProcs: cg.procsFiles(),
		Limits: sessionFallback(cg, false)}))
	if err != nil {
		m.closeFiles()
		closeDirs(shown)
		done()
		return nil, nil, err
	}
	return r.guardLaunched(cmd, m, shown, gits, release), done, nil
}

// What a tool of the host's that runs code of the agent's in a bubblewrap sandbox of its own
// (browser_run_code's Node sidecar) may use, for all its processes together: a shell call's
// tasks, and memory enough for Node and Playwright (V8's heap is held to 512 MiB apart).
const (
	// ToolMemoryBytes is memory.max of its cgroup; where none is writable, RLIMIT_DATA
	// (its writable private mappings: Node's heap and buffers), not RLIMIT_AS: Node
	// reserves gigabytes of address space it never uses (WebAssembly's guard regions),
	// and under 4 GiB of RLIMIT_AS the sidecar died on its first call.
	ToolMemoryBytes = 1 << 30
)

// sessionPIDArgs starts bubblewrap bw's command line for a program that runs in the PID
// namespace it is started in (a virtual session's), with every other namespace its own.
func sessionPIDArgs(bw string) []string {
	return []string{bw, "--new-session", "--die-with-parent", "--unshare-user", "--unshare-ipc", "--unshare-uts", "--unshare-net", "--unshare-cgroup-try"}
}

// ConfineTool rewrites cmd, a bubblewrap command line not yet started that ends in "--" and
// the program's n words and shows the program nothing of the host's but what it names, to
// start through the helper with what every confined program gets besides its namespaces
// (no_new_privs, the seccomp filters: no set-id bits on anything it writes; the Landlock
// scope), under MaxProcesses tasks (RLIMIT_NPROC inside its user namespace, as a shell
// call's) and in a cgroup of its own holding its tasks and memory (ToolMemoryBytes), or
// RLIMIT_DATA where no cgroup is writable (docs/security.md#the-browser). done, once cmd has
// been reaped, kills what is left in the cgroup and removes it.
func ConfineTool(cmd *exec.Cmd, n int) (release, done func(), err error) {
	argv, err := nprocInside(append([]string{cmd.Path}, cmd.Args[1:]...), n)
	if err != nil {
		return nil, nil, err
	}
	cg := newRunCgroup(limitsSpec{pids: MaxProcesses, memBytes: ToolMemoryBytes})
	var limits []rlimit
	if !cg.has("memory") {
		limits = append(limits, rlimit{syscall.RLIMIT_DATA, "data", ToolMemoryBytes})
	}
	release, err = startHelper(cmd, helperConfig{Argv: argv, Env: cmd.Env, CgroupProcs: cg.procsFiles(), Limits: limits})
	if err != nil {
		cg.destroy()
		return nil, nil, err
	}
	return release, cg.destroy, nil
}

// programMounts starts the file system view of a long-lived confined program that cmd
// starts with bubblewrap bw: its checked handles (bindChecked) numbered after cmd's own
// ExtraFiles; on a root host with its staging directory, which done removes once the
// program is gone (not before: docs/security.md#confinement).
func programMounts(cmd *exec.Cmd, bw string) (m *mounts, done func(), err error) {
	m = &mounts{drop: os.Geteuid() == 0, bindFD: bwrapBindsFDs(bw), fd: 3 + len(cmd.ExtraFiles)}
	if !m.drop {
		return m, func() {}, nil
	}
	stage, err := stagingDir()
	if err != nil {
		return nil, nil, err
	}
	m.stage = stage.Path
	return m, func() { stage.Remove() }, nil
}

// startHelper turns cmd into the sandbox helper that sets c up and execs c.Argv (bubblewrap).
// cmd's ExtraFiles keep their numbers. Call the returned function right after cmd started
// (or failed to): it returns once the confinement has replaced the helper.
func startHelper(cmd *exec.Cmd, c helperConfig) (func(), error) {
	self, err := child.Self()
	if err != nil {
		return nil, werr.Wrap(err, werr.Internal, "cannot find the w365 executable to start the confinement")
	}
	data, err := json.Marshal(c)
	if err != nil {
		return nil, werr.Wrap(err, werr.Internal, "cannot encode the confinement")
	}
	cfgR, cfgW, err := os.Pipe()
	if err != nil {
		return nil, werr.Wrap(err, werr.Internal, "cannot create pipes")
	}
	// A configuration is a few kilobytes: it fits the pipe, so it is written before the start.
	_, err = cfgW.Write(data)
	cfgW.Close()
	if err != nil {
		cfgR.Close()
		return nil, werr.Wrap(err, werr.Internal, "cannot pass the confinement's configuration")
	}
	execR, execW, err := os.Pipe()
	if err != nil {
		cfgR.Close()
		return nil, werr.Wrap(err, werr.Internal, "cannot create pipes")
	}
	cmd.ExtraFiles = append(cmd.ExtraFiles, cfgR, execW)
	cmd.Path, cmd.Args = self, []string{"w365-confined"}
	cmd.Env = []string{fmt.Sprintf("%s=%d,%d", helperEnv, 1+len(cmd.ExtraFiles), 2+len(cmd.ExtraFiles))}
	if c.Stage != "" {
		// The helper stages mounts in a mount namespace of its own (Go makes / private in it).
		if cmd.SysProcAttr == nil {
			cmd.SysProcAttr = &syscall.SysProcAttr{}
		}
		cmd.SysProcAttr.Unshareflags |= syscall.CLONE_NEWNS
	}
	// The helper marks execW close-on-exec: EOF on execR says it has exec'd bwrap (or died),
	// so that the started process is the confinement, not the helper, when the caller goes on.
	return func() {
		cfgR.Close()
		execW.Close()
		execR.SetReadDeadline(time.Now().Add(10 * time.Second))
		io.Copy(io.Discard, execR)
		execR.Close()
	}, nil
}

// DesktopOptions says what a program of a virtual desktop is shown besides the read-only system.
type DesktopOptions struct {
	// Dir is the desktop's private directory (X authority, X socket, buses), read-write at
	// its own path.
	Dir string
	// Binds show paths inside Dir at other places too: {path in Dir, place}.
	Binds [][2]string
	// BlockFD, when not 0, is a descriptor of cmd (3 + its index in ExtraFiles): the
	// confinement is set up at once, and the program starts once something can be read
	// from it (bubblewrap's --block-fd).
	BlockFD int
}

// ConfineDesktop rewrites cmd, not yet started, to run as a program of a virtual desktop
// (the X server, the window manager, the session bus and what it activates;
// docs/security.md#confinement): user, mount, UTS, IPC and network namespaces of its own,
// the session's PID namespace itself when o.Dir has the session's namespaces (the X server
// and the buses record a client's PID there, so they must see every program of the
// session: docs/security.md#one-set-per-session), no capabilities, no_new_privs, the seccomp
// filters and the Landlock scope; the system read-only, a /tmp of its own, every home,
// the host's runtime directory and sockets masked, o.Dir read-write; in the session's
// cgroup (its limits, for all the session's programs together). On a root host it runs
// as SandboxUID, o.Dir idmapped so that what it writes there is root's. The returned done
// removes the staging directory; call it once the program is gone.
func ConfineDesktop(cmd *exec.Cmd, o DesktopOptions) (release, done func(), err error) {
	bw := Bwrap()
	if why := Problem(bw, false); why != "" {
		return nil, nil, unconfinable(filepath.Base(cmd.Path)+", so the desktop is not started", why)
	}
	m, done, err := programMounts(cmd, bw)
	if err != nil {
		return nil, nil, err
	}
	a := sessionPIDArgs(bw)
	if o.BlockFD > 0 {
		a = append(a, "--block-fd", strconv.Itoa(o.BlockFD))
	}
	m.add("--ro-bind", "/", "/")
	m.dev(ProgramTmpBytes)
	m.add("--proc", "/proc")
	m.tmpfs("/tmp", ProgramTmpBytes)
	// Besides every home: the person's, the host's runtime directory (W365_RUNTIME_DIR, else
	// hostconn's default place) and TMPDIR, where other desktops keep their private directories.
	private := []string{accountHome(), os.Getenv("HOME"), os.Getenv("XDG_RUNTIME_DIR"), os.Getenv("W365_RUNTIME_DIR"), hostconn.DefaultDir(), os.TempDir()}
	for _, d := range append(append([]string(nil), maskedTrees...), private...) {
		if filepath.IsAbs(d) && d != "/" && !within(d, "/tmp") && dirExists(d) {
			m.mask(d)
		}
	}
	for _, s := range []string{"/run/docker.sock", "/var/run/docker.sock"} {
		if fileExists(s) {
			m.add("--ro-bind", "/dev/null", s)
		}
	}
	dir := m.source(canonical(o.Dir), true, true)
	m.add("--bind", dir, o.Dir)
	for _, b := range o.Binds {
		rel, err := filepath.Rel(o.Dir, b[0])
		if err != nil || !filepath.IsLocal(rel) {
			done()
			return nil, nil, werr.New(werr.Internal, "%s is not inside the desktop's directory %s", b[0], o.Dir)
		}
		m.add("--bind", filepath.Join(dir, rel), b[1])
	}
	m.add("--chdir", "/tmp", "--cap-drop", "ALL")
	a = append(append(a, m.args...), "--", cmd.Path)
	env := setVar(setVar(cmd.Env, "HOME", "/tmp"), "TMPDIR", "/tmp")
	// The handles the helper checks what it stages against (stageBind), numbered after cmd's own.
	cmd.ExtraFiles = append(cmd.ExtraFiles, m.files...)
	// The desktop's cgroup below the session's, which the helper joins before it execs, so
	// that what the program holds and forks (the X server's pixmaps, what the bus starts)
	// counts in the session's limits (limits_linux.go); without one, rlimits.
	ns := namespacesOf(o.Dir)
	cg := ns.desktopCgroup()
	started, err := startHelper(cmd, withNamespaces(ns, helperConfig{Argv: append(a, cmd.Args[1:]...), Env: env,
		Drop: m.drop, Stage: m.stage, Binds: m.binds, CgroupProcs: cg.procsFiles(), Limits: sessionFallback(cg, true)}))
	if err != nil {
		m.closeFiles()
		done()
		return nil, nil, err
	}
	return func() { started(); m.closeFiles() }, done, nil
}

// innerDisplay maps the desktop's display (DISPLAY=:N, socket /tmp/.X11-unix/XN) to the
// display number a confined program uses for it: one whose abstract socket no X server on
// the host listens on. X clients try the abstract socket @/tmp/.X11-unix/XN first and give
// up when Landlock refuses it (as it refuses every abstract socket outside the domain);
// for a number nobody listens on, the connect fails with ECONNREFUSED and they fall back
// to the socket file, which the confinement binds to the desktop's. Cookies name no
// display number (family Wild), so the X authority holds for the new one.
func innerDisplay(env []string) (sock string, inner int, ok bool) {
	d := lookupVar(env, "DISPLAY")
	n, _, _ := strings.Cut(strings.TrimPrefix(d, ":"), ".")
	if !strings.HasPrefix(d, ":") || n == "" {
		return "", 0, false
	}
	sock = "/tmp/.X11-unix/X" + n
	if !fileExists(sock) {
		return "", 0, false
	}
	abstract, _ := os.ReadFile("/proc/net/unix")
	for inner = innerDisplayBase; ; inner++ {
		if !strings.Contains(string(abstract), "@/tmp/.X11-unix/X"+strconv.Itoa(inner)+"\n") {
			return sock, inner, true
		}
	}
}

// innerDisplayBase is where innerDisplay looks for a display number nobody uses; X
// servers that pick their own (-displayfd) take the lowest free ones.
const innerDisplayBase = 40000

// DesktopConfDir is the directory of a desktop's private directory that holds its own
// programs' configuration (the buses', the window manager's): read-only to the session's
// confined programs, which could otherwise rewrite it and have a bus or the window manager
// reload it.
const DesktopConfDir = "conf"

// desktopDir is the desktop's private directory that env names: the directory of its X
// authority file, where a virtual desktop's X socket and buses live too ("" when none).
func desktopDir(env []string) string {
	if x := lookupVar(env, "XAUTHORITY"); filepath.IsAbs(x) && dirExists(filepath.Dir(x)) {
		return filepath.Dir(x)
	}
	return ""
}

// canonical is host path p with its symbolic links resolved (p when it cannot be): for a
// directory of the host's own, whose parents no session may write.
func canonical(p string) string {
	if real, err := filepath.EvalSymlinks(p); err == nil {
		return real
	}
	return p
}

// busSockets are the session bus sockets env names (unix:path=...).
func busSockets(env []string) []string {
	var out []string
	for _, part := range strings.Split(lookupVar(env, "DBUS_SESSION_BUS_ADDRESS"), ";") {
		for _, kv := range strings.Split(strings.TrimPrefix(part, "unix:"), ",") {
			if p, ok := strings.CutPrefix(kv, "path="); ok && filepath.IsAbs(p) {
				out = append(out, p)
			}
		}
	}
	return out
}
