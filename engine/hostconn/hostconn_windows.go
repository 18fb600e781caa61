//go:build windows

package hostconn

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/Microsoft/go-winio"
	"golang.org/x/sys/windows"

	"github.com/w365/w365/engine/werr"
)

// DefaultDir (see hostconn_unix.go) is under the user's local application data, which only the user
// (and administrators) may open.
func DefaultDir() string {
	if d, err := os.UserCacheDir(); err == nil {
		return filepath.Join(d, "w365")
	}
	return filepath.Join(os.TempDir(), "w365")
}

// Private trusts the directory's ACL: a directory under the user's profile inherits
// one that admits only the user, SYSTEM and administrators.
func Private(st os.FileInfo) bool { return st.Mode()&os.ModeSymlink == 0 }

// PrivacyNote says what makes the runtime directory private: its ACL, inherited from the
// user's profile; the mode bits say nothing on Windows.
func PrivacyNote(os.FileInfo) string { return "under the user's profile: its ACL admits the user" }

// Lock takes an exclusive lock on f, waiting for it; unlock releases it.
func Lock(f *os.File) (unlock func(), err error) {
	h := windows.Handle(f.Fd())
	var ol windows.Overlapped
	if err := windows.LockFileEx(h, windows.LOCKFILE_EXCLUSIVE_LOCK, 0, 1, 0, &ol); err != nil {
		return nil, err
	}
	return func() { windows.UnlockFileEx(h, 0, 1, 0, &ol) }, nil
}

// Detached is how the background host is started: without a console and outside the caller's
// process group, so that closing the terminal or Ctrl+C there does not end it.
func Detached() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{
		CreationFlags: windows.CREATE_NEW_PROCESS_GROUP | windows.DETACHED_PROCESS,
		HideWindow:    true,
	}
}

// Alive says process pid still runs.
func Alive(pid int) bool {
	h, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION, false, uint32(pid))
	if err != nil {
		return false
	}
	defer windows.CloseHandle(h)
	var code uint32
	return windows.GetExitCodeProcess(h, &code) == nil && code == 259 // STILL_ACTIVE
}

// Kill ends process pid at once (a host that did not stop when asked).
func Kill(pid int) {
	h, err := windows.OpenProcess(windows.PROCESS_TERMINATE, false, uint32(pid))
	if err != nil {
		return
	}
	defer windows.CloseHandle(h)
	windows.TerminateProcess(h, 1)
}

// The host listens on a named pipe, not on AF_UNIX: wine 8 refuses AF_UNIX sockets
// (WSAEAFNOSUPPORT, 10047), and a pipe's ACL is the native way to admit one user. The
// socket path (in the private runtime directory) only names the pipe: its name holds the
// user's SID, so users never collide, and a hash of the path, so that hosts with separate
// W365_RUNTIME_DIRs never meet.
func pipeName(path string) (string, error) {
	sid, err := userSID()
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256([]byte(strings.ToLower(filepath.Clean(path))))
	return `\\.\pipe\w365-` + sid + "-" + hex.EncodeToString(sum[:8]), nil
}

// userSID is the SID of the user this process runs as, in its string form.
func userSID() (string, error) {
	u, err := windows.GetCurrentProcessToken().GetTokenUser()
	if err != nil {
		return "", err
	}
	return u.User.Sid.String(), nil
}

// Listen creates the host's pipe with an ACL that grants this user alone (a
// protected DACL: nothing inherited, no Everyone, no administrators). go-winio creates
// the first instance with FILE_FLAG_FIRST_PIPE_INSTANCE, so a pipe of that name that
// somebody else created first makes this fail instead of sharing it.
func Listen(path string) (net.Listener, string, error) {
	name, err := pipeName(path)
	if err != nil {
		return nil, "", err
	}
	sid, err := userSID()
	if err != nil {
		return nil, "", err
	}
	ln, err := winio.ListenPipe(name, &winio.PipeConfig{SecurityDescriptor: "D:P(A;;GA;;;" + sid + ")"})
	if err != nil {
		return nil, "", err
	}
	return ln, "pipe:" + name, nil
}

// Dial connects to the host's pipe for path and checks that the process serving
// it runs as this user (serverCheck): the pipe's DACL keeps other users from
// connecting to our host, and this keeps us from talking to a pipe of that name that
// another user's process created first.
func Dial(ctx context.Context, path string, timeout time.Duration) (net.Conn, error) {
	name, err := pipeName(path)
	if err != nil {
		return nil, err
	}
	sid, err := userSID()
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	c, err := winio.DialPipeContext(ctx, name)
	if err != nil {
		return nil, err
	}
	if err := serverCheck(c, name, sid); err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

// serverCheck asks which process serves the pipe (GetNamedPipeServerProcessId) and
// refuses the connection unless that process's token user is want. Its errors wrap
// ErrServerRefused, which dialers treat as final.
func serverCheck(c net.Conn, name, want string) error {
	f, ok := c.(interface{ Fd() uintptr })
	if !ok {
		return werr.New(werr.Internal, "the pipe connection %T has no handle", c)
	}
	var pid uint32
	if err := windows.GetNamedPipeServerProcessId(windows.Handle(f.Fd()), &pid); err != nil {
		return werr.Wrap(fmt.Errorf("%w: %w", ErrServerRefused, err), werr.Unavailable, "cannot tell which process serves the host pipe %s: %v", name, err).WithRetryable(false)
	}
	got, err := processSID(pid)
	if err != nil {
		return werr.Wrap(fmt.Errorf("%w: %w", ErrServerRefused, err), werr.Unavailable, "cannot read the user of process %d, which serves the host pipe %s: %v", pid, name, err).
			WithDetail("serverPid", pid).WithRetryable(false)
	}
	if got != want {
		return werr.Wrap(ErrServerRefused, werr.Unavailable, "the host pipe %s is served by process %d of another user (%s); refusing it", name, pid, got).
			WithDetail("serverPid", pid).WithDetail("serverSid", got).
			WithHint("another user's program holds this pipe name: end it, or set W365_RUNTIME_DIR to use another pipe").WithRetryable(false)
	}
	return nil
}

// processSID is the SID of the user whose token process pid runs with.
func processSID(pid uint32) (string, error) {
	h, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION, false, pid)
	if err != nil {
		return "", err
	}
	defer windows.CloseHandle(h)
	var tok windows.Token
	if err := windows.OpenProcessToken(h, windows.TOKEN_QUERY, &tok); err != nil {
		return "", err
	}
	defer tok.Close()
	u, err := tok.GetTokenUser()
	if err != nil {
		return "", err
	}
	return u.User.Sid.String(), nil
}
