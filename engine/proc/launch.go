//go:build linux || windows

package proc

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/w365/w365/engine/werr"
)

// expandHome turns "~" and "~/x" (or "~\\x") into the home directory.
func expandHome(p string) string {
	if p != "~" && !strings.HasPrefix(p, "~/") && !strings.HasPrefix(p, "~"+string(filepath.Separator)) {
		return p
	}
	home, err := os.UserHomeDir()
	if err != nil || home == "" {
		return p
	}
	return filepath.Join(home, strings.TrimPrefix(p, "~"))
}

// within says whether path lies strictly inside dir (both cleaned, absolute), or is dir
// itself when dir names a file (a single allowed program). Names compare as the file system
// does (sameName).
func within(path, dir string, dirIsFile bool) bool {
	if dirIsFile {
		return sameName(path, dir)
	}
	dir = strings.TrimSuffix(dir, string(filepath.Separator))
	if len(path) <= len(dir)+1 || path[len(dir)] != filepath.Separator {
		return false
	}
	return sameName(path[:len(dir)], dir)
}

// Resolve checks that path names a regular executable file inside one of dirs once every
// symbolic link is resolved, and returns the resolved path. An entry of dirs that is a file
// allows that one program. "~" is expanded in path and in dirs; dirs that do not exist are
// ignored. Errors: INVALID_ARGUMENT (empty, relative, not a
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
		return "", werr.Invalid("path must be absolute, got %q", path).WithHint("give the full path, e.g. " + examplePath)
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
		fi, err := os.Stat(rd)
		if err != nil {
			continue
		}
		if within(resolved, rd, !fi.IsDir()) {
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
	if err := executable(resolved, path, fi); err != nil {
		return "", err
	}
	return resolved, nil
}

// Launch starts the application path names (application, per platform: on Linux a
// desktop entry's, on Windows an allowed directory's) with the arguments it allows,
// passed as they are (no shell), detached from the caller's terminal:
// stdin/stdout/stderr on the null device, working directory the home directory, the
// environment built by LaunchEnv, and it dies with the host or with its Group (child.Start:
// its own process group and a parent-death signal on Linux, under a reaper that ends
// whatever it started when it is not confined (reaper_linux.go); its own job object on
// Windows). It returns the application's pid and the resolved program.
func Launch(ctx context.Context, path string, args []string, o LaunchOptions) (int, string, error) {
	resolved, argv, err := application(path, args, o)
	if err != nil {
		return 0, "", err
	}
	if err := ctx.Err(); err != nil {
		return 0, "", werr.Wrap(err, werr.Cancelled, "cancelled")
	}
	c := &exec.Cmd{
		Path: resolved,
		Args: append([]string{resolved}, argv...),
		Env:  LaunchEnv(os.Environ(), o.Env),
	}
	if home, err := os.UserHomeDir(); err == nil {
		if fi, err := os.Stat(home); err == nil && fi.IsDir() {
			c.Dir = home
		}
	}
	release, done := func() {}, func() {}
	if o.Confine != nil {
		if release, done, err = o.Confine(c); err != nil {
			return 0, resolved, err
		}
	}
	pid, root, err := startApp(c, o.Confine == nil)
	release()
	if err != nil {
		done()
		return 0, resolved, werr.Wrap(err, werr.Internal, "cannot start %q", path)
	}
	if o.Group != nil {
		o.Group.add(root)
	}
	go func() { // reap
		c.Wait()
		done()
		if o.Exit != nil {
			o.Exit <- c.ProcessState.ExitCode()
		}
	}()
	return pid, resolved, nil
}

// LaunchEnv is base overridden by over (later entries win), keeping only the allowlisted
// variables.
func LaunchEnv(base, over []string) []string {
	var out []string
	for _, kv := range mergeEnv(base, over) {
		k, _, _ := strings.Cut(kv, "=")
		ok := launchEnvNames[envKey(k)]
		for _, p := range launchEnvPrefixes {
			ok = ok || strings.HasPrefix(envKey(k), p)
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
		k = envKey(k)
		if i, ok := idx[k]; ok {
			out[i] = kv
			continue
		}
		idx[k] = len(out)
		out = append(out, kv)
	}
	return out
}
