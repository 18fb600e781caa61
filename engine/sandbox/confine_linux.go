//go:build linux

package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	seccomp "github.com/elastic/go-seccomp-bpf"
	"github.com/landlock-lsm/go-landlock/landlock"
	"golang.org/x/sys/unix"

	"github.com/w365/w365/engine/werr"
)

// What every confined process gets besides its namespaces (docs/security.md, "Confinement"):
// no_new_privs, a seccomp filter that refuses set-id bits, and a Landlock domain scoped so
// that it reaches no abstract unix socket and signals no process outside it.

// setidBits are the mode bits no confined process may set on a file: on a root host its
// writable directories are idmapped, so a set-uid file it made would be root's outside.
const setidBits = unix.S_ISUID | unix.S_ISGID

// setidFilter is the seccomp filter: every system call that sets a mode (chmod family,
// open and mknod with a creation mode) fails with EPERM when the mode carries a set-id bit;
// openat2, whose mode lies in a structure a filter cannot read, fails with ENOSYS so that
// the C library falls back to openat.
func setidFilter() seccomp.Filter {
	mode := func(name string, arg uint32) seccomp.NameWithConditions {
		return seccomp.NameWithConditions{Name: name, Conditions: seccomp.ArgumentConditions{
			{Argument: arg, Operation: seccomp.BitsSet, Value: setidBits}}}
	}
	return seccomp.Filter{
		NoNewPrivs: true,
		Policy: seccomp.Policy{
			DefaultAction: seccomp.ActionAllow,
			Syscalls: []seccomp.SyscallGroup{
				{Action: seccomp.ActionErrno | seccomp.Action(unix.EPERM), NamesWithCondtions: []seccomp.NameWithConditions{
					mode("chmod", 1), mode("fchmod", 1), mode("fchmodat", 2), mode("fchmodat2", 2),
					mode("open", 2), mode("openat", 3), mode("creat", 1), mode("mknod", 1), mode("mknodat", 2),
				}},
				{Action: seccomp.ActionErrno | seccomp.Action(unix.ENOSYS), Names: []string{"openat2"}},
			},
		},
	}
}

// confineSelf puts the calling process (the helper, about to exec bwrap) under
// no_new_privs, the set-id filter and the scoped Landlock domain; every process it starts
// inherits them. needScope: the run shares the host's network namespace, where only the
// Landlock scope keeps the host's abstract sockets (the person's X server
// @/tmp/.X11-unix/X0, D-Bus) out of reach; without it the run is refused.
func confineSelf(needScope bool) error {
	if err := seccomp.LoadFilter(setidFilter()); err != nil {
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
func stagingDir() (string, error) {
	var tried []string
	for _, base := range []string{os.TempDir(), "/tmp", "/var/tmp", "/dev/shm"} {
		if why := searchable(base); why != "" {
			tried = append(tried, why)
			continue
		}
		d, err := os.MkdirTemp(base, "w365-stage-")
		if err != nil {
			tried = append(tried, fmt.Sprintf("%s: %v", base, err))
			continue
		}
		if err := os.Chmod(d, 0o755); err != nil {
			os.Remove(d)
			return "", werr.Wrap(err, werr.Internal, "cannot make the sandbox staging directory searchable")
		}
		return d, nil
	}
	return "", werr.New(werr.Unavailable, "cannot confine: no directory for the sandbox's staging mounts that user %d may enter (%s)",
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

// Problem says why this machine cannot confine a sandboxed program ("" when it can): what
// `w365 doctor` shows, and what a refused run names. bwrap is the program, allowNetwork
// whether runs share the host's network.
func Problem(bwrap string, allowNetwork bool) string {
	if bwrap == "" {
		return "bubblewrap is not installed (apt-get install bubblewrap)"
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
		os.Remove(d)
	}
	if allowNetwork && landlockABI() < 6 {
		return landlockCause()
	}
	if !seccomp.Supported() {
		return "seccomp filters are not available in this kernel (CONFIG_SECCOMP_FILTER)"
	}
	return ""
}
