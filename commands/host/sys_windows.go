//go:build windows

package host

import (
	"os"
	"path/filepath"
	"syscall"

	"golang.org/x/sys/windows"
)

// defaultRuntimeDir is under the user's local application data, which only the user
// (and administrators) may open.
func defaultRuntimeDir() string {
	if d, err := os.UserCacheDir(); err == nil {
		return filepath.Join(d, "w365")
	}
	return filepath.Join(os.TempDir(), "w365")
}

// private trusts the directory's ACL: a directory under the user's profile inherits
// one that admits only the user, SYSTEM and administrators.
func private(st os.FileInfo) bool { return st.Mode()&os.ModeSymlink == 0 }

// lockFile takes an exclusive lock on f, waiting for it; unlock releases it.
func lockFile(f *os.File) (unlock func(), err error) {
	h := windows.Handle(f.Fd())
	var ol windows.Overlapped
	if err := windows.LockFileEx(h, windows.LOCKFILE_EXCLUSIVE_LOCK, 0, 1, 0, &ol); err != nil {
		return nil, err
	}
	return func() { windows.UnlockFileEx(h, 0, 1, 0, &ol) }, nil
}

// detached starts the background host without a console and outside the caller's
// process group, so that closing the terminal or Ctrl+C there does not end it.
func detached() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{
		CreationFlags: windows.CREATE_NEW_PROCESS_GROUP | windows.DETACHED_PROCESS,
		HideWindow:    true,
	}
}

func alive(pid int) bool {
	h, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION, false, uint32(pid))
	if err != nil {
		return false
	}
	defer windows.CloseHandle(h)
	var code uint32
	return windows.GetExitCodeProcess(h, &code) == nil && code == 259 // STILL_ACTIVE
}

func kill(pid int) {
	h, err := windows.OpenProcess(windows.PROCESS_TERMINATE, false, uint32(pid))
	if err != nil {
		return
	}
	defer windows.CloseHandle(h)
	windows.TerminateProcess(h, 1)
}
