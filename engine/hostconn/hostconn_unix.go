//go:build unix

package hostconn

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"time"
)

// DefaultDir is where the host's socket, lock and log live when W365_RUNTIME_DIR names no
// directory: $XDG_RUNTIME_DIR/w365. MCP clients start servers with little
// more than HOME, PATH and USER (no XDG_RUNTIME_DIR), so without it the login's runtime
// directory, /run/user/UID, is used when it exists and is this user's private one: an
// agent's serve --mcp then finds the host the user's terminal started. Elsewhere (no
// login session, as for root in a container) it is a private directory under /tmp.
func DefaultDir() string {
	if x := os.Getenv("XDG_RUNTIME_DIR"); x != "" {
		return filepath.Join(x, "w365")
	}
	uid := strconv.Itoa(os.Getuid())
	if st, err := os.Lstat(filepath.Join(runUserDir, uid)); err == nil && st.IsDir() && Private(st) {
		return filepath.Join(runUserDir, uid, "w365")
	}
	return filepath.Join(os.TempDir(), "w365-"+uid)
}

// runUserDir holds the per-login runtime directories (systemd-logind, elogind).
const runUserDir = "/run/user"

// Private says the directory belongs to this user and nobody else may enter it.
func Private(st os.FileInfo) bool {
	sys, ok := st.Sys().(*syscall.Stat_t)
	return ok && int(sys.Uid) == os.Getuid() && st.Mode().Perm()&0o077 == 0
}

// PrivacyNote says what makes the runtime directory private: its mode.
func PrivacyNote(st os.FileInfo) string {
	return fmt.Sprintf("mode %04o, private", st.Mode().Perm())
}

// Lock takes an exclusive lock on f, waiting for it; unlock releases it.
func Lock(f *os.File) (unlock func(), err error) {
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		return nil, err
	}
	return func() { syscall.Flock(int(f.Fd()), syscall.LOCK_UN) }, nil
}

// Detached is how the background host is started: in a session of its own, so that it
// outlives the terminal of the command that started it.
func Detached() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setsid: true} }

// Alive says process pid still runs.
func Alive(pid int) bool { return syscall.Kill(pid, 0) == nil }

// Kill ends process pid at once (a host that did not stop when asked).
func Kill(pid int) { syscall.Kill(pid, syscall.SIGKILL) }

// Listen binds the host's AF_UNIX socket at path, readable by this user only, and
// returns the endpoint name the host reports. A stale socket file is replaced.
func Listen(path string) (net.Listener, string, error) {
	os.Remove(path)
	ln, err := net.Listen("unix", path)
	if err != nil {
		return nil, "", err
	}
	os.Chmod(path, 0o600)
	return ln, "unix:" + path, nil
}

// Dial connects to the host socket at path.
func Dial(ctx context.Context, path string, timeout time.Duration) (net.Conn, error) {
	d := net.Dialer{Timeout: timeout}
	return d.DialContext(ctx, "unix", path)
}
