//go:build windows

// Package win32 is the Windows implementation of desktop.Desktop: the interactive
// desktop of the user's session, driven through user32 and gdi32 (SendInput, DXGI
// desktop duplication with GDI BitBlt as fallback, EnumWindows, the clipboard) and UI
// Automation (uia.go). It calls Win32 through golang.org/x/sys/windows and
// engine/internal/winapi rather than robotgo: robotgo needs cgo (the Windows build is
// pure Go, cross-compiled from Linux), and its Click knows no side buttons.
package win32

import (
	"context"
	"os"
	"runtime"
	"unsafe"

	"github.com/w365/w365/engine/desktop"
	"github.com/w365/w365/engine/internal/winapi"
	"github.com/w365/w365/engine/policy"
	"github.com/w365/w365/engine/werr"
	"golang.org/x/sys/windows"
)

// DesktopName is the Windows name of the interactive desktop.
const DesktopName = `WinSta0\Default`

var _ desktop.Desktop = Desktop{}

// Desktop is the interactive desktop of the user's session. Windows has no virtual
// desktops of the kind Xvfb gives: Stop is a no-op.
type Desktop struct{}

func (Desktop) Name() string                   { return DesktopName }
func (Desktop) Virtual() bool                  { return false }
func (Desktop) Environ(base []string) []string { return base }
func (Desktop) Getenv(key string) string       { return os.Getenv(key) }
func (Desktop) PIDs() []int                    { return nil }
func (Desktop) Stop()                          {}
func (Desktop) Err() error                     { return nil }

func (Desktop) OpenInput(p *policy.Policy) (desktop.Input, error) {
	if p == nil {
		p = policy.Default()
	}
	return &Input{pol: p, guard: desktop.NewGuard(p)}, nil
}
func (Desktop) OpenScreen() (desktop.Screen, error)   { return newScreen(), nil }
func (Desktop) OpenWindows() (desktop.Windows, error) { return windowsAPI{}, nil }
func (Desktop) OpenClipboard() (desktop.Clipboard, error) {
	c, err := openClipboard()
	if err != nil {
		return nil, err
	}
	return c, nil
}

// OpenAccessibility starts a UI Automation client (uia.go).
func (Desktop) OpenAccessibility(ctx context.Context) (desktop.Accessibility, error) {
	u, err := OpenUIA(ctx)
	if err != nil {
		return nil, err
	}
	return u, nil
}

// virtualScreen is the rectangle of all monitors: its origin (negative when a monitor
// lies left of or above the primary one) and size.
func virtualScreen() (x, y, w, h int, err error) {
	x = metric(winapi.SM_XVIRTUALSCREEN)
	y = metric(winapi.SM_YVIRTUALSCREEN)
	w = metric(winapi.SM_CXVIRTUALSCREEN)
	h = metric(winapi.SM_CYVIRTUALSCREEN)
	if w <= 0 || h <= 0 {
		return 0, 0, 0, 0, werr.New(werr.Unavailable, "GetSystemMetrics reports no virtual screen (%dx%d)", w, h)
	}
	return x, y, w, h, nil
}

func metric(i int) int {
	r, _, _ := winapi.ProcGetSystemMetrics.Call(uintptr(i))
	return int(int32(r))
}

// lockThread pins the caller to its OS thread for calls whose state is per thread
// (the clipboard's owner window, GDI device contexts); unlock undoes it.
func lockThread() (unlock func()) {
	runtime.LockOSThread()
	return runtime.UnlockOSThread
}

// sysPtr is an address Windows gave: memory of the global heap locked by GlobalLock,
// a mapped texture. Go's collector neither moves nor frees such memory, so the
// conversion is sound (and written so for go vet).
func sysPtr(p uintptr) unsafe.Pointer { return *(*unsafe.Pointer)(unsafe.Pointer(&p)) }

// utf16z is s as a NUL-terminated UTF-16 pointer (s must hold no NUL).
func utf16z(s string) *uint16 {
	p, _ := windows.UTF16PtrFromString(s)
	return p
}
