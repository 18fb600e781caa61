//go:build linux

package browser

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/w365/w365/engine/sandbox"
	"github.com/w365/w365/engine/werr"
)

// The sizes of the sidecar's file systems in memory: Playwright keeps its artifacts in /tmp.
const (
	sidecarTmpBytes = 256 << 20
	sidecarShmBytes = 64 << 20
)

// sandboxedNode is the command that runs the sidecar under bubblewrap: every
// namespace unshared (no network but its own loopback, its own pids), no capability
// and no user namespace of its own making (on a root host bubblewrap otherwise left
// it root with every capability in a namespace that owns its mounts: it remounted /usr
// read-write), the system's /usr read-only, no /etc, no home, no runtime directory:
// only the sidecar, its node_modules (read-only), a /tmp in memory (sidecarTmpBytes, not a
// directory of the host's, where it wrote 1.5 GiB) and the proxy socket.
// It starts through the sandbox's helper (sandbox.ConfineTool: no set-id bits, its
// tasks and memory held); release runs right after the start, done once it is reaped.
func sandboxedNode(modules, script, sock string) (cmd *exec.Cmd, release, done func(), err error) {
	bwrap, err := exec.LookPath("bwrap")
	if err != nil {
		return nil, nil, nil, werr.New(werr.Unsupported, "browser_run_code runs its code under bubblewrap, which is not installed").
			WithHint("install bubblewrap (apt-get install bubblewrap)").WithRetryable(false)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		return nil, nil, nil, werr.New(werr.Unsupported, "browser_run_code needs Node.js").WithHint("install Node.js 20 or later").WithRetryable(false)
	}
	if node, err = filepath.EvalSymlinks(node); err != nil {
		return nil, nil, nil, werr.Wrap(err, werr.Unsupported, "cannot resolve node")
	}
	args := []string{"--unshare-all", "--unshare-user", "--disable-userns", "--cap-drop", "ALL", "--die-with-parent", "--new-session", "--clearenv",
		"--ro-bind", "/usr", "/usr"}
	for _, d := range []string{"/bin", "/lib", "/lib32", "/lib64", "/libx32", "/sbin"} {
		if t, err := os.Readlink(d); err == nil {
			args = append(args, "--symlink", t, d)
		} else if fi, err := os.Stat(d); err == nil && fi.IsDir() {
			args = append(args, "--ro-bind", d, d)
		}
	}
	if !strings.HasPrefix(node, "/usr/") {
		// A node outside /usr (/opt/node, ~/.nvm/...): its own installation only.
		prefix := filepath.Dir(filepath.Dir(node))
		args = append(args, "--ro-bind", prefix, prefix)
	}
	const home = "/opt/w365-runcode"
	args = append(args,
		"--proc", "/proc",
		// Files in memory count in no limit of a process: each file system it may write is
		// sized, and /dev itself is read-only (it had half the host's memory).
		"--dev", "/dev", "--perms", "1777", "--size", strconv.Itoa(sidecarShmBytes), "--tmpfs", "/dev/shm", "--remount-ro", "/dev",
		"--size", strconv.Itoa(sidecarTmpBytes), "--tmpfs", "/tmp",
		"--ro-bind", filepath.Join(modules, "node_modules"), home+"/node_modules",
		"--ro-bind", script, home+"/sidecar.js",
		"--bind", sock, "/run/w365/cdp.sock",
		"--chdir", "/tmp",
		"--setenv", "HOME", "/tmp", "--setenv", "PATH", "/usr/bin:/bin", "--setenv", "TMPDIR", "/tmp",
		"--setenv", "W365_CDP_SOCKET", "/run/w365/cdp.sock", "--setenv", "NODE_ENV", "production",
		"--", node, "--max-old-space-size=512", home+"/sidecar.js")
	cmd = exec.Command(bwrap, args...)
	cmd.Env = []string{}
	if release, done, err = sandbox.ConfineTool(cmd, 3); err != nil {
		return nil, nil, nil, werr.Wrap(err, werr.Unavailable, "cannot confine the run_code sidecar: %v", err)
	}
	return cmd, release, done, nil
}
