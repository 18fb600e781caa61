//go:build linux

package proc

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/w365/w365/engine/child"
	"github.com/w365/w365/engine/werr"
)

// expandHome turns "~" and "~/x" into the home directory.
func expandHome(p string) string {
	if p != "~" && !strings.HasPrefix(p, "~/") {
		return p
	}
	home, err := os.UserHomeDir()
	if err != nil || home == "" {
		return p
	}
	return filepath.Join(home, strings.TrimPrefix(p, "~"))
}

// within says whether path lies strictly inside dir (both cleaned, absolute).
func within(path, dir string) bool {
	if dir == "/" {
		return path != "/"
	}
	return strings.HasPrefix(path, dir+string(filepath.Separator))
}

// Resolve checks that path names a regular executable file inside one of dirs once every
// symbolic link is resolved, and returns the resolved path. "~" is expanded in path and in
// dirs; dirs that do not exist are ignored. Errors: INVALID_ARGUMENT (empty, relative, not a
// regular executable file), NOT_FOUND (no such file), BLOCKED_BY_POLICY (outside dirs).
func Resolve(path string, dirs []string) (string, error) {
	p := strings.TrimSpace(path)
	if p == "" {
		return "", werr.Invalid("path must not be empty")
	}
	if strings.ContainsRune(p, 0) {
		return "", werr.Invalid("path contains a NUL byte")
	}
	p = expandHome(p)
	if !filepath.IsAbs(p) {
		return "", werr.Invalid("path must be absolute, got %q", path).WithHint("give the full path, e.g. /usr/bin/xterm")
	}
	resolved, err := filepath.EvalSymlinks(filepath.Clean(p))
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return "", werr.New(werr.NotFound, "no such file %q", path)
		}
		return "", werr.Wrap(err, werr.InvalidArgument, "cannot resolve %q", path)
	}
	var allowed []string
	inside := false
	for _, d := range dirs {
		d = expandHome(strings.TrimSpace(d))
		if !filepath.IsAbs(d) {
			continue
		}
		allowed = append(allowed, d)
		rd, err := filepath.EvalSymlinks(filepath.Clean(d))
		if err != nil {
			continue
		}
		if within(resolved, rd) {
			inside = true
			break
		}
	}
	if !inside {
		return "", werr.New(werr.BlockedByPolicy, "%q is not inside an allowed directory (it resolves to %q)", path, resolved).
			WithDetail("allowedDirs", allowed).
			WithHint("only programs in the allowed directories can be launched; use execute_shell_command for others")
	}
	fi, err := os.Stat(resolved)
	if err != nil {
		return "", werr.Wrap(err, werr.NotFound, "cannot stat %q", path)
	}
	if !fi.Mode().IsRegular() {
		return "", werr.Invalid("%q is not a regular file", path)
	}
	if fi.Mode().Perm()&0o111 == 0 || unix.Access(resolved, unix.X_OK) != nil {
		return "", werr.Invalid("%q is not executable", path)
	}
	return resolved, nil
}

// LaunchOptions are what Launch needs besides the program.
type LaunchOptions struct {
	// Env is the session's desktop environment (DISPLAY, the session bus...); it is
	// filtered by the same allowlist as this process's environment (LaunchEnv).
	Env []string
	// Dirs are the allowed directories (policy LaunchDirs).
	Dirs []string
	// Allow names shells, interpreters and wrappers that may be started anyway (policy
	// LaunchPrograms), by base name.
	Allow []string
	// Group, when set, receives the started process: it belongs to the session.
	Group *Group
}

// Launch starts the executable at path (checked by Resolve against o.Dirs and by
// Refused) with args, passed as they are (no shell), detached from the caller's terminal:
// its own process group, stdin/stdout/stderr on /dev/null, working directory $HOME, the
// environment built by LaunchEnv, and it dies with the host (parent-death signal) or
// with its Group. The program is the resolved file; argv[0] is path as given. It
// returns the pid and the resolved path.
func Launch(ctx context.Context, path string, args []string, o LaunchOptions) (int, string, error) {
	resolved, err := Resolve(path, o.Dirs)
	if err != nil {
		return 0, "", err
	}
	if err := Refused(resolved, path, args, o.Allow); err != nil {
		return 0, resolved, err
	}
	if err := ctx.Err(); err != nil {
		return 0, "", werr.Wrap(err, werr.Cancelled, "cancelled")
	}
	c := &exec.Cmd{
		Path: resolved,
		Args: append([]string{expandHome(strings.TrimSpace(path))}, args...),
		Env:  LaunchEnv(os.Environ(), o.Env),
	}
	if home, err := os.UserHomeDir(); err == nil {
		if fi, err := os.Stat(home); err == nil && fi.IsDir() {
			c.Dir = home
		}
	}
	if err := child.Start(c); err != nil {
		return 0, resolved, werr.Wrap(err, werr.Internal, "cannot start %q", path)
	}
	pid := c.Process.Pid
	if o.Group != nil {
		o.Group.add(pid)
	}
	go c.Wait() // reap
	return pid, resolved, nil
}

// launchEnvNames and launchEnvPrefixes are the environment a launched application gets:
// what a desktop program needs to find its display, bus, locale, home and accessibility,
// and nothing else (no API keys, no W365_*, no LD_*).
var launchEnvNames = map[string]bool{
	"DISPLAY": true, "WAYLAND_DISPLAY": true, "XAUTHORITY": true, "DBUS_SESSION_BUS_ADDRESS": true,
	"AT_SPI_BUS_ADDRESS": true, "HOME": true, "USER": true, "LOGNAME": true, "SHELL": true, "PATH": true,
	"LANG": true, "LANGUAGE": true, "TZ": true, "TERM": true, "GTK_MODULES": true, "NO_AT_BRIDGE": true,
	"ACCESSIBILITY_ENABLED": true, "QT_LINUX_ACCESSIBILITY_ALWAYS_ON": true, "QT_ACCESSIBILITY": true,
	"GTK_IM_MODULE": true, "QT_IM_MODULE": true, "XMODIFIERS": true, "DESKTOP_SESSION": true,
}
var launchEnvPrefixes = []string{"LC_", "XDG_"}

// LaunchEnv is base overridden by over (later entries win), keeping only the allowlisted
// variables.
func LaunchEnv(base, over []string) []string {
	var out []string
	for _, kv := range mergeEnv(base, over) {
		k, _, _ := strings.Cut(kv, "=")
		ok := launchEnvNames[k]
		for _, p := range launchEnvPrefixes {
			ok = ok || strings.HasPrefix(k, p)
		}
		if ok {
			out = append(out, kv)
		}
	}
	return out
}

// mergeEnv returns base with the variables of over replacing those of the same name.
func mergeEnv(base, over []string) []string {
	idx := map[string]int{}
	var out []string
	for _, kv := range append(append([]string{}, base...), over...) {
		k, _, _ := strings.Cut(kv, "=")
		if i, ok := idx[k]; ok {
			out[i] = kv
			continue
		}
		idx[k] = len(out)
		out = append(out, kv)
	}
	return out
}
