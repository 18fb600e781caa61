//go:build !windows

package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/w365/w365/engine/werr"
)

// sandboxEnv is the environment sandboxed programs get: the session's, scrubbed.
func sandboxEnv(env []string) []string { return ScrubEnv(env) }

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

// program returns the absolute path of an allowed program and the argv words it is
// started with (argv[0] is its name).
func (r *Runner) program(name string) (string, []string, error) {
	path, err := r.lookPath(name)
	if err != nil {
		return "", nil, werr.New(werr.NotFound, "%s is allowed but not installed on this machine", name).
			WithDetail("rule", "program-not-installed").WithHint("check with where/which, or use execute_python_code")
	}
	return path, []string{name}, nil
}

// python returns the Python interpreter and the argv words it is started with.
func (r *Runner) python() (string, []string, error) {
	for _, name := range []string{"python3", "python"} {
		if py, err := r.lookPath(name); err == nil {
			return py, []string{"python3"}, nil
		}
	}
	return "", nil, werr.New(werr.Unavailable, "no Python interpreter (python3 or python) is installed").
		WithDetail("rule", "python-not-installed").WithRetryable(false)
}

// systemCwd says why a directory may never become the sandbox's writable directory: the
// sandbox makes cwd writable, and these would let sandboxed code plant files that run
// outside the sandbox later (shell start-up files) or reach host sockets.
func systemCwd(dir, home string, _ []string) string {
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

// Isolation and Confinement say how the sandbox confines a program, in the tools'
// summaries and help.
const (
	Isolation   = "no network"
	Confinement = "It runs in a bubblewrap sandbox: read-only system, writable\ncwd and private /tmp, no network, its own PID namespace, resource limits."
)
