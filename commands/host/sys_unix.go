//go:build unix

package host

import (
	"os"
	"path/filepath"
	"strconv"
	"syscall"
)

func defaultRuntimeDir() string {
	if x := os.Getenv("XDG_RUNTIME_DIR"); x != "" {
		return filepath.Join(x, "w365")
	}
	return filepath.Join(os.TempDir(), "w365-"+strconv.Itoa(os.Getuid()))
}

// private says the directory belongs to this user and nobody else may enter it.
func private(st os.FileInfo) bool {
	sys, ok := st.Sys().(*syscall.Stat_t)
	return ok && int(sys.Uid) == os.Getuid() && st.Mode().Perm()&0o077 == 0
}

// lockFile takes an exclusive lock on f, waiting for it; unlock releases it.
func lockFile(f *os.File) (unlock func(), err error) {
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		return nil, err
	}
	return func() { syscall.Flock(int(f.Fd()), syscall.LOCK_UN) }, nil
}

// detached starts the background host in a session of its own, so that it outlives
// the terminal of the command that started it.
func detached() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setsid: true} }

func alive(pid int) bool { return syscall.Kill(pid, 0) == nil }

func kill(pid int) { syscall.Kill(pid, syscall.SIGKILL) }
