//go:build linux

package sandbox

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/w365/w365/engine/child"
	"github.com/w365/w365/engine/safefs"
	"github.com/w365/w365/engine/werr"
)

// The re-executed helper: Go's SysProcAttr cannot set rlimits, so the sandbox starts this
// very executable with helperEnv set to the number of the file descriptor its configuration
// arrives on (after the program's own, which it passes on). Its init (below, in every binary and test binary that
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
	CgroupProcs []string `json:"cgroupProcs,omitempty"`
	Limits      []rlimit `json:"limits"`
	Argv        []string `json:"argv"`
	Env         []string `json:"env"`
	// Drop, for a host running as root: the helper (in a mount namespace of its own)
	// mounts Stage (when set), then becomes SandboxUID before it execs bwrap. A root
	// host's confined application has Stage without Drop (Confine).
	Drop  bool        `json:"drop,omitempty"`
	Stage string      `json:"stage,omitempty"`
	Binds []stageBind `json:"binds,omitempty"`
	// SharedNet: the run shares the host's network namespace, so the Landlock scope on
	// abstract sockets is required (confineSelf).
	SharedNet bool `json:"sharedNet,omitempty"`
	// Enter, in a virtual session: the helper runs Argv with nsenter into the session's
	// namespaces (enterSpec.command).
	Enter *enterSpec `json:"enter,omitempty"`
}

// stageBind is a host path the unprivileged bwrap could not reach (it lies under a 0700
// HOME) or must see as its own (the writable cwd, Idmap): the helper, still root, mounts
// it at Dst under the staging tmpfs, and bwrap binds it from there. It mounts Src looked
// up following no symbolic link, and only when that is the file of handle FD, which the
// host opened so when it checked the path (openChecked) and passed on: never a path a link
// redirects, nor another directory renamed into its place, so that a session that swaps a
// component after the host looked shows nobody a file the link leads to (one in a
// directory only root may enter) and its git guard walks what the program was shown.
type stageBind struct {
	Src   string `json:"src"`
	Dst   string `json:"dst"`
	Dir   bool   `json:"dir"`
	Idmap bool   `json:"idmap,omitempty"`
	FD    int    `json:"fd,omitempty"`
}

// SandboxUID is the user sandboxed programs run as when the host runs as root: nobody,
// so that root's 0600 files (/etc/shadow, /root) stay closed. Their writable cwd is an
// idmapped mount on which root's files appear as nobody's, and what they create is root's
// on disk.
const SandboxUID = 65534

// usernsHoldEnv starts this executable as a placeholder process in a user namespace
// whose mapping (0 -> SandboxUID) describes the idmapped mount; it exits at EOF on stdin.
const usernsHoldEnv = "W365_USERNS_HOLD"

func init() {
	if os.Getenv(usernsHoldEnv) == "1" {
		io.Copy(io.Discard, os.Stdin)
		os.Exit(0)
	}
	// "CONFIG" or "CONFIG,EXEC": EXEC is a pipe the helper keeps open until it execs.
	cfgFD, execFD, _ := strings.Cut(os.Getenv(helperEnv), ",")
	fd, err := strconv.Atoi(cfgFD)
	if err != nil || fd < 3 {
		return
	}
	if n, err := strconv.Atoi(execFD); err == nil && n > 2 {
		unix.CloseOnExec(n)
	}
	helperMain(fd)
}

// stage mounts c.Binds under c.Stage (in the helper's own mount namespace).
func stage(c *helperConfig) error {
	if err := unix.Mount("tmpfs", c.Stage, "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, "mode=0755"); err != nil {
		return fmt.Errorf("staging tmpfs: %w", err)
	}
	var userns *os.File
	for _, b := range c.Binds {
		if b.Dir {
			if err := os.Mkdir(b.Dst, 0o755); err != nil {
				return err
			}
		} else if err := os.WriteFile(b.Dst, nil, 0o644); err != nil {
			return err
		}
		// The host's handle is of its own mount namespace, which no mount here may take
		// from: the helper looks Src up again, following no symbolic link, and mounts it
		// only when that is the very file the host's handle holds.
		f, err := openChecked(b.Src)
		if err != nil {
			return err
		}
		defer f.Close()
		if b.FD > 0 {
			unix.CloseOnExec(b.FD) // bwrap and the sandbox never get it: its .. leads outside
			if !sameFile(b.FD, int(f.Fd())) {
				return fmt.Errorf("%s changed since it was checked", b.Src)
			}
		}
		src := "/proc/self/fd/" + strconv.Itoa(int(f.Fd()))
		if !b.Idmap {
			if err := unix.Mount(src, b.Dst, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
				return fmt.Errorf("bind %s: %w", b.Src, err)
			}
			continue
		}
		if userns == nil {
			f, stop, err := idmapUserns()
			if err != nil {
				return err
			}
			defer stop()
			userns = f
		}
		// What an idmapped mount shows, root's files become the sandbox user's: its source
		// is the checked handle too.
		fd, err := unix.OpenTree(unix.AT_FDCWD, src, unix.OPEN_TREE_CLONE|unix.OPEN_TREE_CLOEXEC)
		if err != nil {
			return fmt.Errorf("open_tree %s: %w", b.Src, err)
		}
		attr := &unix.MountAttr{Attr_set: unix.MOUNT_ATTR_IDMAP, Userns_fd: uint64(userns.Fd())}
		if err := unix.MountSetattr(fd, "", unix.AT_EMPTY_PATH, attr); err != nil {
			unix.Close(fd)
			return fmt.Errorf("idmapped mount of %s (its file system may not support idmapped mounts): %w", b.Src, err)
		}
		err = unix.MoveMount(fd, "", unix.AT_FDCWD, b.Dst, unix.MOVE_MOUNT_F_EMPTY_PATH)
		unix.Close(fd)
		if err != nil {
			return fmt.Errorf("move_mount %s: %w", b.Src, err)
		}
	}
	return nil
}

// optionsByFile is bubblewrap command line argv with its options (the words up to its first
// "--": every command line the host builds has one, and no option value of its is "--")
// read from a file (--args): bubblewrap's PID 1 in the sandbox keeps its command line, which
// every program there reads (/proc/1/cmdline), and its options name the host's paths (the
// staging directory, the session's state directory, the browser's profile). The file is a
// memfd the helper leaves open across exec; bubblewrap closes it once read.
func optionsByFile(argv []string) ([]string, error) {
	end := slices.Index(argv, "--")
	if end < 1 {
		return argv, nil
	}
	fd, err := unix.MemfdCreate("bwrap-options", 0)
	if err != nil {
		return nil, err
	}
	var b []byte
	for _, a := range argv[1:end] {
		b = append(append(b, a...), 0)
	}
	for len(b) > 0 {
		n, err := unix.Write(fd, b)
		if err != nil {
			return nil, err
		}
		b = b[n:]
	}
	if _, err := unix.Seek(fd, 0, io.SeekStart); err != nil {
		return nil, err
	}
	return slices.Concat(argv[:1], []string{"--args", strconv.Itoa(fd)}, argv[end:]), nil
}

// sameFile says whether descriptors a and b hold one file (device and inode).
func sameFile(a, b int) bool {
	var sa, sb unix.Stat_t
	return unix.Fstat(a, &sa) == nil && unix.Fstat(b, &sb) == nil && sa.Dev == sb.Dev && sa.Ino == sb.Ino
}

// idmapUserns starts the placeholder process and opens its user namespace.
func idmapUserns() (*os.File, func(), error) {
	self, err := child.Self()
	if err != nil {
		return nil, nil, err
	}
	cmd := &exec.Cmd{Path: self, Args: []string{"w365"}}
	cmd.Env = []string{usernsHoldEnv + "=1"}
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, nil, err
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Cloneflags: syscall.CLONE_NEWUSER,
		UidMappings: []syscall.SysProcIDMap{{ContainerID: 0, HostID: SandboxUID, Size: 1}},
		GidMappings: []syscall.SysProcIDMap{{ContainerID: 0, HostID: SandboxUID, Size: 1}}}
	if err := cmd.Start(); err != nil {
		return nil, nil, fmt.Errorf("user namespace for the idmapped mount: %w", err)
	}
	stop := func() { in.Close(); cmd.Process.Kill(); cmd.Wait() }
	f, err := os.Open(fmt.Sprintf("/proc/%d/ns/user", cmd.Process.Pid))
	if err != nil {
		stop()
		return nil, nil, err
	}
	return f, func() { f.Close(); stop() }, nil
}

func helperFail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, helperPrefix+format+"\n", args...)
	os.Exit(helperExit)
}

func helperMain(fd int) {
	f := os.NewFile(uintptr(fd), "w365-sandbox-config")
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
	for _, procs := range c.CgroupProcs {
		if err := os.WriteFile(procs, []byte(strconv.Itoa(os.Getpid())), 0); err != nil {
			helperFail("joining the run's cgroup: %v", err)
		}
	}
	if filepath.Base(c.Argv[0]) == "bwrap" {
		argv, err := optionsByFile(c.Argv)
		if err != nil {
			helperFail("passing bubblewrap its options: %v", err)
		}
		c.Argv = argv
	}
	if c.Enter != nil {
		pre, err := c.Enter.command()
		if err != nil {
			helperFail("%v", err)
		}
		c.Argv = append(pre, c.Argv...)
	}
	if c.Stage != "" {
		if err := stage(&c); err != nil {
			helperFail("%v", err)
		}
	}
	if c.Drop {
		if err := syscall.Setgroups(nil); err != nil {
			helperFail("setgroups: %v", err)
		}
		if err := syscall.Setgid(SandboxUID); err != nil {
			helperFail("setgid: %v", err)
		}
		if err := syscall.Setuid(SandboxUID); err != nil {
			helperFail("setuid: %v", err)
		}
	}
	if err := confineSelf(c.SharedNet); err != nil {
		helperFail("cannot confine: %v", err)
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
	return Bwrap()
}

// bwrapFDs caches bwrapBindsFDs by program.
var bwrapFDs sync.Map

// bwrapBindsFDs says whether bubblewrap program bw takes --bind-fd (its --help names it).
func bwrapBindsFDs(bw string) bool {
	if v, ok := bwrapFDs.Load(bw); ok {
		return v.(bool)
	}
	out, _ := exec.Command(bw, "--help").CombinedOutput()
	has := bytes.Contains(out, []byte("--bind-fd"))
	bwrapFDs.Store(bw, has)
	return has
}

// Bwrap is the bubblewrap program of the system ("" when there is none).
func Bwrap() string {
	for _, c := range bwrapCandidates {
		if st, err := os.Stat(c); err == nil && st.Mode().IsRegular() {
			return c
		}
	}
	return ""
}

// secretPaths are hidden inside the sandbox even when a granted read path
// (policy SandboxReadPaths) or the working directory holds them (relative to that path),
// and so is every secretName.
var secretPaths = []string{".ssh", ".gnupg", ".aws", ".azure", ".kube", ".docker", ".netrc", ".git-credentials",
	".npmrc", ".pypirc", ".cargo/credentials", ".cargo/credentials.toml", ".config/gcloud", ".config/gh",
	".local/share/keyrings", ".password-store", ".pgpass", ".my.cnf", ".vault-token", ".s3cfg", ".boto",
	".config/git/credentials", ".config/hub", ".config/rclone", ".config/containers/auth.json",
	".terraform.d/credentials.tfrc.json", ".gem/credentials", ".m2/settings.xml", ".m2/settings-security.xml",
	".gradle/gradle.properties", ".huggingface/token", ".cache/huggingface/token", ".composer/auth.json"}

// secretName says whether a file of this name holds secrets wherever it lies: a dotenv
// file, .env or .env.NAME (.env.local, .env.production), but not the
// templates projects commit beside them (.env.example, .env.sample, .env.template,
// .env.dist), which tools read to learn the names.
func secretName(name string) bool {
	if name == ".env" {
		return true
	}
	rest, ok := strings.CutPrefix(name, ".env.")
	return ok && rest != "" && !slices.Contains([]string{"example", "sample", "template", "dist"}, rest)
}

// maskedTrees are replaced by empty directories inside the sandbox (besides HOME, /tmp
// and the private directories): every user's home, root's, and the host sockets.
var maskedTrees = []string{"/home", "/root", "/run/user", "/run/dbus", "/run/docker", "/run/containerd", "/var/run/docker"}

// mounts builds bwrap's view of the file system. With drop set (a root host), host paths
// bwrap could not reach as SandboxUID are staged by the helper, see stageBind.
type mounts struct {
	args []string
	drop bool
	// bindFD: bwrap binds open handles (--bind-fd, bubblewrap 0.10 or a backport of it).
	bindFD bool
	stage  string
	binds  []stageBind
	// guardGit: the cwd's repositories were protected (gitDirs, as found before the run,
	// at gitSince), and what the run writes in any other is cleaned after it (cleanNewRepos).
	guardGit bool
	gitDirs  []string
	gitSince time.Time
	// cwd is the working directory the run is shown (bindDir), for the git guard.
	cwd *safefs.Dir
	// files are the checked handles bound by bindChecked, the helper's fds fd and on.
	files []*os.File
	fd    int
}

// checkedFD is a call's helper's number of the first checked handle (3 is its configuration).
const checkedFD = 4

// openChecked opens path (absolute) as a handle (O_PATH) with no symbolic link on any
// component: the directory or file a check saw, since a component swapped for a link
// after the check makes it fail.
func openChecked(path string) (*os.File, error) {
	for {
		fd, err := unix.Openat2(unix.AT_FDCWD, path, &unix.OpenHow{Flags: unix.O_PATH | unix.O_CLOEXEC,
			Resolve: unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS})
		if err == unix.EINTR || err == unix.EAGAIN {
			continue
		}
		if err != nil {
			return nil, block("cwd-changed", "call again; nothing ran", "%s changed since it was checked (a symbolic link on its path): %v", path, err)
		}
		return os.NewFile(uintptr(fd), path), nil
	}
}

// bindChecked shows host path p (absolute, with no symbolic link on it when it was
// checked) at the same place inside the sandbox, writable (and, when the helper drops to
// SandboxUID, idmapped) when rw, never what a path looked up again would give: bwrap binds
// a handle opened with no symbolic link followed (--bind-fd, which closes it), or on a
// root host the helper stages what such a handle names (stageBind.FD). So a directory a session
// swaps for a link after the check makes the run fail, and shows it nothing else. A
// bubblewrap without --bind-fd binds the path (the handle would stay open in the sandbox,
// and its .. leads outside): there the swap stays possible.
func (m *mounts) bindChecked(p string, dir, rw bool) error {
	f, err := openChecked(p)
	if err != nil {
		return err
	}
	m.bindHandle(f, p, dir, rw)
	return nil
}

// bindDir is bindChecked of directory p, opened following no symbolic link as a safefs
// root too: the git guard walks that root, the very directory the program was shown.
func (m *mounts) bindDir(p string) (*safefs.Dir, error) {
	d, err := safefs.OpenNoLinks(p)
	if err != nil {
		return nil, block("cwd-changed", "call again; nothing ran", "%s changed since it was checked (a symbolic link on its path): %v", p, err)
	}
	f, err := d.File()
	if err != nil {
		d.Close()
		return nil, err
	}
	m.bindHandle(f, p, true, true)
	return d, nil
}

// bindHandle is bindChecked of handle f (m keeps it until the start, see closeFiles).
func (m *mounts) bindHandle(f *os.File, p string, dir, rw bool) {
	flag := "--ro-bind"
	if rw {
		flag = "--bind"
	}
	switch {
	case m.stage != "":
		m.add(flag, m.staged(f, p, dir, rw && m.drop), p)
	case !m.bindFD:
		f.Close()
		m.add(flag, p, p)
	default:
		m.add(flag+"-fd", strconv.Itoa(m.fd+len(m.files)), p)
		m.files = append(m.files, f)
	}
}

// bindGitDirs shows the git entries gs (gitDirs) read-only, each as a whole: nothing in a
// repository is the sandbox's to change.
func (m *mounts) bindGitDirs(gs []string) error {
	for _, g := range gs {
		st, err := os.Lstat(g)
		if err != nil {
			return err
		}
		if err := m.bindChecked(g, st.IsDir(), false); err != nil {
			return err
		}
	}
	return nil
}

// closeFiles closes the checked handles (the helper has its copies once started).
func (m *mounts) closeFiles() {
	for _, f := range m.files {
		f.Close()
	}
	m.files = nil
}

// source is the path bwrap binds host path p from: on a root host what the helper stages
// of a handle opened now following no symbolic link (or, when none opens, of p looked up
// so by the helper, which then fails the start).
func (m *mounts) source(p string, dir, idmap bool) string {
	if !m.drop {
		return p
	}
	f, _ := openChecked(p)
	return m.staged(f, p, dir, idmap)
}

// staged adds a stageBind of handle f (nil: p looked up by the helper) to m, which keeps
// f until the start, and returns where the helper mounts it.
func (m *mounts) staged(f *os.File, p string, dir, idmap bool) string {
	b := stageBind{Src: p, Dst: filepath.Join(m.stage, strconv.Itoa(len(m.binds))), Dir: dir, Idmap: idmap}
	if f != nil {
		b.FD = m.fd + len(m.files)
		m.files = append(m.files, f)
	}
	m.binds = append(m.binds, b)
	return b.Dst
}

func (m *mounts) add(a ...string) { m.args = append(m.args, a...) }

// The file systems bubblewrap makes (tmpfs) keep their files in memory, which no limit of a
// process counts (RLIMIT_AS counts its mappings), only a cgroup's; so each has a size
// (docs/security.md#files-in-memory). A write past it fails with ENOSPC.

// tmpfs adds an empty, writable file system of size bytes at dest.
func (m *mounts) tmpfs(dest string, size int64) {
	m.add("--size", strconv.FormatInt(size, 10), "--tmpfs", dest)
}

// mask adds an empty directory at dest in place of what is there: a tmpfs of MaskBytes,
// room for the mount points bubblewrap makes for what is bound below it, and nothing more.
func (m *mounts) mask(dest string) { m.tmpfs(dest, MaskBytes) }

// dev adds a fresh /dev: bubblewrap's device nodes and a /dev/shm of shm bytes that anyone
// may write (POSIX shared memory and semaphores), in a /dev made read-only, where nothing
// else may be written.
func (m *mounts) dev(shm int64) {
	m.add("--dev", "/dev", "--perms", "1777")
	m.tmpfs("/dev/shm", shm)
	m.add("--remount-ro", "/dev")
}

// roBind shows host path p read-only at the same place, hiding the secrets inside it:
// bound from a handle opened following no symbolic link (bindHandle), or not at all.
func (m *mounts) roBind(p string) {
	f, err := openChecked(p)
	if err != nil {
		return
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return
	}
	m.bindHandle(f, p, st.IsDir(), false)
	if st.IsDir() {
		m.hideSecrets(p)
	}
}

// hideSecrets covers the credential files and directories under dir.
func (m *mounts) hideSecrets(dir string) {
	ents, _ := os.ReadDir(dir)
	names := map[string]bool{}
	for _, e := range ents {
		names[e.Name()] = true
	}
	m.hideSecretsIn(dir, names)
}

// hideSecretsBelow covers the credential files and directories (secretPaths) of root and
// of every directory beneath it, at any depth: ~/work/app/.npmrc is as secret when the
// working directory is ~/work, and a session may move a directory deeper for its next
// call. It walks through handles following no symbolic link, and not into a .git or what
// it hides; more than gitCleanMaxEntries entries refuse the run.
func (m *mounts) hideSecretsBelow(root *safefs.Dir) error {
	complete := walkBelow(root, gitCleanMaxEntries, time.Now().Add(gitGuardWait), func(rel string, _ *safefs.Dir, ents []fs.DirEntry) (subs []string) {
		names := map[string]bool{}
		for _, e := range ents {
			names[e.Name()] = true
		}
		hidden := m.hideSecretsIn(filepath.Join(root.Path(), rel), names)
		for _, e := range ents {
			if e.IsDir() && e.Name() != ".git" && !hidden[e.Name()] {
				subs = append(subs, e.Name())
			}
		}
		return subs
	})
	if !complete {
		return block("cwd-too-large", "use a smaller working directory", "%s holds more than %d entries to look for credentials in, or takes longer than %s to look through", root.Path(), gitCleanMaxEntries, gitGuardWait)
	}
	return nil
}

// hideSecretsIn covers the secretPaths under dir whose first name is in names (the
// entries of dir) and the entries named as secrets (secretName), and returns the first
// names of those it covered.
func (m *mounts) hideSecretsIn(dir string, names map[string]bool) map[string]bool {
	hidden := map[string]bool{}
	var secrets []string
	for _, s := range secretPaths {
		if first, _, _ := strings.Cut(s, "/"); names[first] {
			secrets = append(secrets, s)
		}
	}
	for n := range names {
		if secretName(n) {
			secrets = append(secrets, n)
		}
	}
	for _, s := range secrets {
		p := filepath.Join(dir, s)
		st, err := os.Lstat(p)
		switch {
		case err != nil || st.Mode()&os.ModeSymlink != 0:
		case st.IsDir() && secretName(s):
			// A directory named .env is a Python virtual environment, not a dotenv file.
		case st.IsDir():
			m.mask(p)
			hidden[s] = true
		default:
			m.add("--ro-bind", "/dev/null", p)
		}
	}
	return hidden
}

// bwrapArgs is the bwrap command line of job j: the file system view (read-only root;
// HOME, every home, /tmp and the private directories replaced by empty ones; the granted
// read paths; the cwd writable with every .git in it read-only), namespaces and
// limits. The names of what was applied come back for Result.Limits.
func (r *Runner) bwrapArgs(bw string, j job, m *mounts) ([]string, []string, error) {
	a := []string{bw, "--new-session", "--die-with-parent", "--unshare-all"}
	limits := []string{"bwrap", "pidns", "ro-root", "caps:none", "home:masked", "no-new-privs", "seccomp:no-setid", "landlock:scoped"}
	if r.pol.AllowNetwork {
		a = append(a, "--share-net")
		limits = append(limits, "net:host")
	} else {
		limits = append(limits, "net:none")
	}
	if m.drop {
		limits = append(limits, fmt.Sprintf("uid:%d", SandboxUID))
	} else if !m.bindFD {
		limits = append(limits, "cwd:bound-by-path") // bindChecked: a bubblewrap without --bind-fd
	}
	r.view(m, j.memBytes/2)
	// The cwd and its repositories are bound from handles opened with no symbolic link on
	// their paths, so that a directory a session swaps for a link after resolveCwd checked
	// it gives the run nothing else.
	cwd, err := m.bindDir(j.dir)
	if err != nil {
		return nil, nil, err
	}
	m.cwd = cwd
	if err := m.hideSecretsBelow(cwd); err != nil {
		return nil, nil, err
	}
	if wd, err := r.WorkDir(); err != nil || !within(j.dir, wd) {
		// The scratch directory is w365's own (0700, removed with the session): git runs
		// there only inside the sandbox, so its repositories stay configurable.
		m.gitSince = time.Now()
		m.gitDirs = gitDirs(cwd)
		m.guardGit = true
		if err := m.bindGitDirs(m.gitDirs); err != nil {
			return nil, nil, err
		}
	}
	m.add("--chdir", j.dir, "--cap-drop", "ALL")
	a = append(a, m.args...)
	argv := append([]string(nil), j.argv...)
	if j.codeFile != "" {
		a = append(a, "--ro-bind", m.source(j.codeFile, false, false), codeInSandbox)
		argv[len(argv)-1] = codeInSandbox
	}
	a = append(a, "--", j.path)
	return append(a, argv[1:]...), limits, nil
}

// view adds the file system every confined program of the session sees: the read-only
// system, fresh /dev (with a /dev/shm of ram bytes) and /proc, the session's /tmp and HOME
// (or empty ones outside a session, /tmp of ram bytes), every home, the host's sockets and
// private directories masked, and the policy's read paths. It returns the person's HOME.
func (r *Runner) view(m *mounts, ram int64) string {
	m.add("--ro-bind", "/", "/")
	m.dev(ram)
	m.add("--proc", "/proc")
	if r.tmp != "" {
		m.add("--bind", m.source(r.tmp, true, true), "/tmp")
	} else {
		m.tmpfs("/tmp", ram)
	}
	home := homeOf(r.session)
	masked := append([]string(nil), maskedTrees...)
	if home != "" && filepath.IsAbs(home) && home != "/" {
		masked = append(masked, home)
	}
	masked = append(masked, r.private...)
	for _, d := range masked {
		if r.tmp != "" && within(d, "/tmp") {
			continue // the session's /tmp shows none of the host's
		}
		if dirExists(d) {
			m.mask(d)
		}
	}
	if r.home != "" {
		// The session's own HOME, at its host path (docs/sessions.md#files), and its /tmp
		// there too: a path the host names (a download, an upload) is valid inside.
		m.add("--bind", m.source(r.home, true, true), r.home)
		m.add("--bind", m.source(r.tmp, true, true), r.tmp)
	}
	for _, s := range []string{"/run/docker.sock", "/var/run/docker.sock"} {
		if fileExists(s) {
			m.add("--ro-bind", "/dev/null", s)
		}
	}
	seen := map[string]bool{}
	for _, g := range r.pol.SandboxReadPaths {
		// ~ is the session HOME and the account's home directory: toolchains belong to
		// the account even when HOME points elsewhere.
		for _, h := range []string{home, accountHome()} {
			p := expandTilde(g, h)
			if !filepath.IsAbs(p) || seen[p] {
				continue
			}
			seen[p] = true
			if real, err := filepath.EvalSymlinks(p); err == nil && real == p && !r.isPrivate(real) {
				m.roBind(p)
			}
		}
	}
	return home
}

// accountHome is the home directory of this process's account (from the user
// database, not $HOME), or "".
func accountHome() string {
	if u, err := user.Current(); err == nil {
		return u.HomeDir
	}
	return ""
}

func dirExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}

func fileExists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

// ---- the run's cgroup ----

var runSeq atomic.Int64

// limitsSpec is what one run's cgroup enforces, for all its processes together.
type limitsSpec struct {
	pids     int   // tasks, threads included
	memBytes int64 // resident memory (swap included where the kernel counts it)
	cpus     int   // CPU cores' worth of time per period (cpu quota); 0: no limit
}

// runCgroup is one run's cgroup: one directory per controller under cgroup v1, one
// directory under cgroup v2.
type runCgroup struct {
	dirs    []string
	applied []string // "pids.max=512", "memory.max=...", "cpu.max=1"
}

const cpuPeriodUs = 100000

// newRunCgroup creates the run's cgroup with the limits of s, under the cgroup v1
// hierarchies (pids, memory, cpu) or cgroup v2, whichever this process may write. A
// controller it cannot write is left out (applied says what holds); nil when none is.
func newRunCgroup(s limitsSpec) *runCgroup {
	name := fmt.Sprintf("run-%d-%d", os.Getpid(), runSeq.Add(1))
	cg := &runCgroup{}
	if fileExists("/sys/fs/cgroup/pids/cgroup.procs") || fileExists("/sys/fs/cgroup/memory/cgroup.procs") {
		v1 := []struct {
			ctrl   string
			files  [][2]string
			report string
		}{
			{"pids", [][2]string{{"pids.max", strconv.Itoa(s.pids)}}, fmt.Sprintf("pids.max=%d", s.pids)},
			{"memory", [][2]string{{"memory.limit_in_bytes", strconv.FormatInt(s.memBytes, 10)},
				{"memory.memsw.limit_in_bytes?", strconv.FormatInt(s.memBytes, 10)}}, fmt.Sprintf("memory.max=%d", s.memBytes)},
			{"cpu", [][2]string{{"cpu.cfs_period_us", strconv.Itoa(cpuPeriodUs)}, {"cpu.cfs_quota_us", strconv.Itoa(s.cpus * cpuPeriodUs)}},
				fmt.Sprintf("cpu.max=%d", s.cpus)},
		}
		for _, c := range v1 {
			if c.ctrl == "cpu" && s.cpus == 0 {
				continue
			}
			if d := makeCgroup(filepath.Join("/sys/fs/cgroup", c.ctrl, "w365"), name, c.files); d != "" {
				cg.dirs = append(cg.dirs, d)
				cg.applied = append(cg.applied, c.report)
			}
		}
	} else if b, err := os.ReadFile("/sys/fs/cgroup/cgroup.controllers"); err == nil {
		// One controller per write: a write naming one the kernel refuses fails whole.
		parent := "/sys/fs/cgroup/w365"
		_ = os.Mkdir(parent, 0o755)
		for _, ctrl := range []string{"+pids", "+memory", "+cpu"} {
			_ = os.WriteFile("/sys/fs/cgroup/cgroup.subtree_control", []byte(ctrl), 0)
			_ = os.WriteFile(filepath.Join(parent, "cgroup.subtree_control"), []byte(ctrl), 0)
		}
		var files [][2]string
		ctrls := string(b)
		if strings.Contains(ctrls, "pids") {
			files = append(files, [2]string{"pids.max?", strconv.Itoa(s.pids)})
		}
		if strings.Contains(ctrls, "memory") {
			files = append(files, [2]string{"memory.max?", strconv.FormatInt(s.memBytes, 10)}, [2]string{"memory.swap.max?", "0"})
		}
		if strings.Contains(ctrls, "cpu") && s.cpus > 0 {
			files = append(files, [2]string{"cpu.max?", fmt.Sprintf("%d %d", s.cpus*cpuPeriodUs, cpuPeriodUs)})
		}
		if d := makeCgroup(parent, name, files); d != "" {
			cg.dirs = []string{d}
			for _, f := range []struct{ file, report string }{
				{"pids.max", fmt.Sprintf("pids.max=%d", s.pids)},
				{"memory.max", fmt.Sprintf("memory.max=%d", s.memBytes)},
				{"cpu.max", fmt.Sprintf("cpu.max=%d", s.cpus)},
			} {
				if v, err := os.ReadFile(filepath.Join(d, f.file)); err == nil && !strings.HasPrefix(string(v), "max") {
					cg.applied = append(cg.applied, f.report)
				}
			}
		}
	}
	if len(cg.dirs) == 0 {
		return nil
	}
	return cg
}

// has reports whether the limit named prefix ("pids", "memory", "cpu") is in force.
func (c *runCgroup) has(prefix string) bool {
	if c == nil {
		return false
	}
	for _, a := range c.applied {
		if strings.HasPrefix(a, prefix) {
			return true
		}
	}
	return false
}

var reapOnce sync.Map // parent -> *sync.Once

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
		(&runCgroup{dirs: []string{filepath.Join(parent, e.Name())}}).destroy()
	}
}

// capAll sets the limits of parent, the cgroup all of w365's lie in: its memory to
// allMemoryBytes (memory.max under cgroup v2, memory.limit_in_bytes in cgroup v1's memory
// hierarchy, whose limits hold for what lies below: use_hierarchy, on by default) and its
// tasks to allProcesses (pids.max). Each controller's parent has only its own files.
func capAll(parent string) {
	limits := map[string]int64{"pids.max": int64(allProcesses())}
	for _, file := range []string{"memory.max", "memory.limit_in_bytes"} {
		limits[file] = allMemoryBytes()
	}
	for file, limit := range limits {
		if f := filepath.Join(parent, file); limit > 0 && fileExists(f) {
			_ = os.WriteFile(f, []byte(strconv.FormatInt(limit, 10)), 0)
		}
	}
}

// makeCgroup creates parent/name and writes files into it (a name ending in ? may be
// missing or refuse the value); "" when the directory or a required file fails.
func makeCgroup(parent, name string, files [][2]string) string {
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return ""
	}
	once, _ := reapOnce.LoadOrStore(parent, &sync.Once{})
	once.(*sync.Once).Do(func() {
		reapStale(parent)
		capAll(parent)
	})
	dir := filepath.Join(parent, name)
	if err := os.Mkdir(dir, 0o755); err != nil {
		return ""
	}
	for _, f := range files {
		file, optional := strings.CutSuffix(f[0], "?")
		if err := os.WriteFile(filepath.Join(dir, file), []byte(f[1]), 0); err != nil && !optional {
			_ = os.Remove(dir)
			return ""
		}
	}
	return dir
}

// procsFiles are the cgroup.procs files the helper joins (none for no cgroup).
func (c *runCgroup) procsFiles() []string {
	if c == nil {
		return nil
	}
	var out []string
	for _, d := range c.dirs {
		out = append(out, filepath.Join(d, "cgroup.procs"))
	}
	return out
}

func (c *runCgroup) procs() []int {
	var out []int
	for _, d := range c.dirs {
		b, err := os.ReadFile(filepath.Join(d, "cgroup.procs"))
		if err != nil {
			continue
		}
		for _, f := range strings.Fields(string(b)) {
			if n, err := strconv.Atoi(f); err == nil && n > 0 && !slices.Contains(out, n) {
				out = append(out, n)
			}
		}
	}
	return out
}

// killAll sends SIGKILL to every process in the cgroup.
func (c *runCgroup) killAll() {
	for _, p := range c.procs() {
		_ = syscall.Kill(p, syscall.SIGKILL)
	}
}

// oomKilled reports whether the memory limit killed a process of the run.
func (c *runCgroup) oomKilled() bool {
	for _, d := range c.dirs {
		// "oom_kill N": memory.oom_control (v1), memory.events (v2).
		for _, file := range []string{"memory.oom_control", "memory.events"} {
			b, err := os.ReadFile(filepath.Join(d, file))
			if err != nil {
				continue
			}
			for _, l := range strings.Split(string(b), "\n") {
				if f := strings.Fields(l); len(f) == 2 && f[0] == "oom_kill" && f[1] != "0" {
					return true
				}
			}
		}
	}
	return false
}

// child makes the cgroup name below c, with no limits of its own: c's count what it holds,
// as every controller counts a cgroup's children. nil when c is nil or it cannot be made.
func (c *runCgroup) child(name string) *runCgroup {
	if c == nil {
		return nil
	}
	ch := &runCgroup{applied: c.applied}
	for _, d := range c.dirs {
		dir := filepath.Join(d, name)
		if err := os.Mkdir(dir, 0o755); err != nil {
			ch.destroy()
			return nil
		}
		ch.dirs = append(ch.dirs, dir)
	}
	return ch
}

// destroy kills every process in the cgroup and the cgroups below it until they are empty
// (or 3 s pass for each), then removes them, those below first. A nil c is none.
func (c *runCgroup) destroy() {
	if c == nil {
		return
	}
	for _, d := range c.dirs {
		ents, _ := os.ReadDir(d)
		for _, e := range ents {
			if e.IsDir() {
				(&runCgroup{dirs: []string{filepath.Join(d, e.Name())}}).destroy()
			}
		}
	}
	for _, d := range c.dirs {
		_ = os.WriteFile(filepath.Join(d, "cgroup.kill"), []byte("1"), 0) // v2 only
	}
	deadline := time.Now().Add(3 * time.Second)
	for time.Now().Before(deadline) {
		if len(c.procs()) == 0 {
			break
		}
		c.killAll()
		time.Sleep(10 * time.Millisecond)
	}
	for _, d := range c.dirs {
		for time.Now().Before(deadline) {
			if err := os.Remove(d); err == nil || errors.Is(err, os.ErrNotExist) {
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
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
	self, err := child.Self()
	if err != nil {
		return nil, werr.Wrap(err, werr.Internal, "cannot find the w365 executable to start the sandbox helper")
	}

	var limits []string
	var argv []string
	m := &mounts{drop: bw != "" && os.Geteuid() == 0, bindFD: bw != "" && bwrapBindsFDs(bw), fd: checkedFD}
	if m.drop {
		stage, err := stagingDir()
		if err != nil {
			return nil, err
		}
		defer stage.Remove()
		m.stage = stage.Path
	}
	defer m.closeFiles()
	defer func() {
		if m.cwd != nil {
			m.cwd.Close()
		}
	}()
	if err := r.guardIdle(); err != nil {
		return nil, err
	}
	if bw != "" {
		if argv, limits, err = r.bwrapArgs(bw, j, m); err != nil {
			return nil, err
		}
	} else {
		argv = append([]string{j.path}, j.argv[1:]...)
		limits = []string{"unsandboxed"}
	}
	cpu := uint64(j.timeoutMs/1000 + 2)
	rl := []rlimit{
		{syscall.RLIMIT_AS, "as", uint64(j.addrBytes)},
		{syscall.RLIMIT_CPU, "cpu", cpu},
		{syscall.RLIMIT_FSIZE, "fsize", MaxFileBytes},
		{syscall.RLIMIT_NOFILE, "nofile", MaxOpenFiles},
		{syscall.RLIMIT_CORE, "core", 0},
	}
	cg := newRunCgroup(limitsSpec{pids: MaxProcesses, memBytes: j.memBytes, cpus: 1})
	if cg != nil {
		defer cg.destroy()
		limits = append(limits, cg.applied...)
	}
	switch {
	case cg.has("pids"):
	case bw != "":
		// Set inside the call's own user namespace, by prlimit as the program's first exec:
		// the kernel counts the tasks of a user there against the task's limit, and in each
		// namespace above against the limit the namespace below was made with. Set before
		// bubblewrap made it, the limit held the whole session's tasks (a browser's
		// threads) to it too, and every call of a busy session failed to fork.
		if argv, err = nprocInside(argv, len(j.argv)); err != nil {
			return nil, err
		}
		limits = append(limits, fmt.Sprintf("rlimit:nproc=%d", MaxProcesses))
	case os.Geteuid() != 0:
		// Unsandboxed, RLIMIT_NPROC counts every process of the real user: leave room for
		// the ones that already exist. Root is exempt from it, so then there is no process limit.
		n := uint64(countUserProcs(os.Getuid()) + MaxProcesses)
		rl = append(rl, rlimit{6 /* RLIMIT_NPROC */, "nproc", n})
		limits = append(limits, fmt.Sprintf("rlimit:nproc=%d", n))
	}
	for _, l := range rl {
		limits = append(limits, fmt.Sprintf("rlimit:%s=%d", l.Name, l.Value))
	}
	cfg := helperConfig{Limits: rl, Argv: argv, Env: r.runEnv(), Drop: m.drop, Stage: m.stage, Binds: m.binds,
		SharedNet: r.pol.AllowNetwork || bw == ""}
	if bw != "" {
		if cfg = r.inSession(cfg); cfg.Enter != nil {
			limits = append(limits, "session-ns")
		}
	}
	if cg != nil {
		cfg.CgroupProcs = cg.procsFiles()
	}
	cfgData, err := json.Marshal(cfg)
	if err != nil {
		return nil, werr.Wrap(err, werr.Internal, "cannot encode the sandbox configuration")
	}

	limit := r.pol.OutputBytesPerStream
	outR, outW, errR, errW, err := outputPipes()
	if err != nil {
		return nil, err
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
		Env:        []string{helperEnv + "=3"},
		Dir:        j.dir,
		Stdout:     outW,
		Stderr:     errW,
		ExtraFiles: append([]*os.File{cfgR}, m.files...),
	}
	if m.drop {
		// The helper stages mounts in a mount namespace of its own (Go makes / private in it).
		cmd.SysProcAttr = &syscall.SysProcAttr{Unshareflags: syscall.CLONE_NEWNS}
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
	out := readOutputs(outR, errR, limit)

	waitErr := make(chan error, 1)
	go func() { waitErr <- cmd.Wait() }()
	timer := time.NewTimer(time.Duration(j.timeoutMs) * time.Millisecond)
	defer timer.Stop()
	timedOut, cancelled := false, false
	kill := func() {
		_ = child.KillGroup(cmd)
		if cg != nil {
			cg.killAll()
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
		cg.killAll()
	}
	_ = child.KillGroup(cmd)

	res := &Result{TimedOut: timedOut, Limits: limits, Quarantined: r.takeLate()}
	if m.guardGit {
		cwd, gits, since := m.cwd, m.gitDirs, m.gitSince
		m.cwd = nil // the walk closes it, when it ends
		q, done := r.guardAfter(func() []string {
			defer cwd.Close()
			return cleanNewRepos(cwd, gits, since)
		})
		res.Quarantined = append(res.Quarantined, q...)
		if !done {
			res.Limits = append(res.Limits, "git-guard:continuing")
		}
	}
	out.finish(res)
	res.ExitCode = exitCode(cmd.ProcessState, werrRes)
	if res.ExitCode == helperExit && strings.HasPrefix(res.Stderr, helperPrefix) {
		return nil, werr.New(werr.Unavailable, "the sandbox could not be set up, so nothing ran: %s", strings.TrimSpace(strings.TrimPrefix(res.Stderr, helperPrefix))).
			WithRetryable(false).WithDetail("rule", "sandbox-unavailable")
	}
	if bw != "" && res.ExitCode == 1 && strings.HasPrefix(res.Stderr, "bwrap: execvp ") {
		return nil, werr.New(werr.NotFound, "%s is installed at %s, which the sandbox does not show", j.argv[0], j.path).
			WithDetail("rule", "program-hidden").
			WithHint("the sandbox hides HOME except the working directory and the policy's sandboxReadPaths: add the program's directory there, or install it system-wide")
	}
	if bw != "" && res.ExitCode == 1 && strings.HasPrefix(res.Stderr, "bwrap: ") {
		e := werr.New(werr.Unavailable, "cannot confine, so nothing ran: %s", strings.TrimSpace(res.Stderr)).
			WithRetryable(false).WithDetail("rule", "sandbox-unavailable")
		if why := Problem(bw, r.pol.AllowNetwork); why != "" {
			return nil, e.WithHint("the cause: %s (w365 doctor shows it)", why)
		}
		return nil, e.WithHint("w365 doctor checks what the confinement needs")
	}
	res.Success = res.ExitCode == 0 && !timedOut
	res.MemoryLimitHit = cg != nil && cg.oomKilled()
	if res.MemoryLimitHit {
		res.Success = false
	}
	res.ResourceLimitsApplied = bw != "" && cg.has("pids") && cg.has("memory")
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

// nprocInside makes argv, a bubblewrap command line ending in "--" and the program's n
// words, run the program under util-linux prlimit, which sets RLIMIT_NPROC to
// MaxProcesses (soft and hard) inside the sandbox.
func nprocInside(argv []string, n int) ([]string, error) {
	pl, err := exec.LookPath("prlimit")
	if err != nil {
		return nil, werr.Wrap(err, werr.Unavailable, "cannot limit the call's processes: prlimit (util-linux) is not installed")
	}
	i := len(argv) - n - 1
	if i < 0 || argv[i] != "--" {
		return nil, werr.New(werr.Internal, "no program in the sandbox's command line")
	}
	return slices.Concat(argv[:i+1], []string{pl, fmt.Sprintf("--nproc=%d", MaxProcesses), "--"}, argv[i+1:]), nil
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
