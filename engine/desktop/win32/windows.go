//go:build windows

package win32

import (
	"context"
	"strings"
	"syscall"
	"time"
	"unsafe"

	"github.com/w365/w365/engine/desktop"
	"github.com/w365/w365/engine/internal/winapi"
	"github.com/w365/w365/engine/proc"
	"github.com/w365/w365/engine/werr"
	"golang.org/x/sys/windows"
)

const (
	closeWait     = 2 * time.Second
	activateWait  = 2 * time.Second
	pollInterval  = 20 * time.Millisecond
	maxTitleUnits = 1 << 12
)

// windowsAPI finds top-level windows with EnumWindows and changes them with the
// ordinary user32 calls. Handles fit in 32 bits (Windows keeps HWNDs 32-bit so that
// 32- and 64-bit programs share them).
type windowsAPI struct{}

func (windowsAPI) Close() error { return nil }

// List is every visible, titled, unowned top-level window that is not a tool window,
// top-most first (EnumWindows' Z order).
func (windowsAPI) List(ctx context.Context) ([]desktop.Window, error) {
	if err := werr.Done(ctx, "list"); err != nil {
		return nil, err
	}
	var hwnds []windows.HWND
	cb := syscall.NewCallback(func(h windows.HWND, _ uintptr) uintptr {
		hwnds = append(hwnds, h)
		return 1
	})
	if err := windows.EnumWindows(cb, nil); err != nil {
		return nil, werr.Wrap(err, werr.Unavailable, "EnumWindows failed")
	}
	names := map[uint32]string{}
	var out []desktop.Window
	for _, h := range hwnds {
		if !windows.IsWindowVisible(h) {
			continue
		}
		if owner, _, _ := winapi.ProcGetWindow.Call(uintptr(h), winapi.GW_OWNER); owner != 0 {
			continue
		}
		if ex, _, _ := winapi.ProcGetWindowLongW.Call(uintptr(h), uintptr(winapi.GWL_EXSTYLE&0xffffffff)); ex&winapi.WS_EX_TOOLWINDOW != 0 {
			continue
		}
		w := describe(h, names)
		if w.Title != "" {
			out = append(out, w)
		}
	}
	return out, nil
}

// describe reads a window's title, frame and process; names caches process names.
func describe(h windows.HWND, names map[uint32]string) desktop.Window {
	w := desktop.Window{Title: title(h), Handle: uint32(h)}
	var pid uint32
	windows.GetWindowThreadProcessId(h, &pid)
	w.PID = int(pid)
	if n, ok := names[pid]; ok {
		w.ProcessName = n
	} else {
		w.ProcessName = processName(pid)
		names[pid] = w.ProcessName
	}
	var r struct{ L, T, R, B int32 }
	if ok, _, _ := winapi.ProcGetWindowRect.Call(uintptr(h), uintptr(unsafe.Pointer(&r))); ok != 0 {
		ox, oy, _, _, _ := virtualScreen()
		w.X, w.Y, w.Width, w.Height = int(r.L)-ox, int(r.T)-oy, int(r.R-r.L), int(r.B-r.T)
	}
	var c struct{ L, T, R, B int32 }
	pt := struct{ X, Y int32 }{}
	if ok, _, _ := winapi.ProcGetClientRect.Call(uintptr(h), uintptr(unsafe.Pointer(&c))); ok != 0 {
		if ok, _, _ := winapi.ProcClientToScreen.Call(uintptr(h), uintptr(unsafe.Pointer(&pt))); ok != 0 {
			ox, oy, _, _, _ := virtualScreen()
			w.Client = desktop.Rect{X: int(pt.X) - ox, Y: int(pt.Y) - oy, Width: int(c.R - c.L), Height: int(c.B - c.T)}
		}
	}
	return w
}

func title(h windows.HWND) string {
	n, _, _ := winapi.ProcGetWindowTextLengthW.Call(uintptr(h))
	if n == 0 {
		return ""
	}
	buf := make([]uint16, min(int(n)+1, maxTitleUnits))
	winapi.ProcGetWindowTextW.Call(uintptr(h), uintptr(unsafe.Pointer(&buf[0])), uintptr(len(buf)))
	return windows.UTF16ToString(buf)
}

// processName is the executable's file name ("notepad.exe"), or "" when the process
// cannot be opened (another user's, or protected).
func processName(pid uint32) string {
	n, _ := proc.ImageName(int(pid))
	return n
}

// find is the window pick chooses for title (desktop.BestTitle, or desktop.CloseTarget for
// close_window), the X11 backend's rule.
func (a windowsAPI) find(ctx context.Context, title string, pick func([]desktop.Window, string) (desktop.Window, error)) (desktop.Window, error) {
	if strings.TrimSpace(title) == "" {
		return desktop.Window{}, werr.Invalid("title must not be empty")
	}
	ws, err := a.List(ctx)
	if err != nil {
		return desktop.Window{}, err
	}
	return pick(ws, title)
}

// Activate restores the window when minimized and makes it the foreground window.
// Windows lets only the foreground process move the foreground elsewhere: attaching
// to the foreground thread's input for the call is the usual way around that lock.
func (a windowsAPI) Activate(ctx context.Context, title string) (desktop.Window, error) {
	w, err := a.find(ctx, title, desktop.BestTitle)
	if err != nil {
		return w, err
	}
	h := windows.HWND(w.Handle)
	if iconic, _, _ := winapi.ProcIsIconic.Call(uintptr(h)); iconic != 0 {
		winapi.ProcShowWindow.Call(uintptr(h), winapi.SW_RESTORE)
	}
	defer lockThread()()
	fg := windows.GetForegroundWindow()
	self, _, _ := winapi.ProcGetCurrentThreadId.Call()
	var pid uint32
	other, _ := windows.GetWindowThreadProcessId(fg, &pid)
	if fg != 0 && uintptr(other) != self {
		winapi.ProcAttachThreadInput.Call(self, uintptr(other), 1)
		defer winapi.ProcAttachThreadInput.Call(self, uintptr(other), 0)
	}
	winapi.ProcAllowSetForegroundWindow.Call(winapi.ASFW_ANY)
	winapi.ProcBringWindowToTop.Call(uintptr(h))
	winapi.ProcSetForegroundWindow.Call(uintptr(h))
	if !waitFor(ctx, activateWait, func() bool { return windows.GetForegroundWindow() == h }) {
		return w, werr.New(werr.Unavailable, "window %q did not become the foreground window", w.Title).
			WithHint("Windows refuses to change the foreground while another program holds the foreground lock; click the window once, or call again")
	}
	return describe(h, map[uint32]string{}), nil
}

// CloseWindow posts WM_CLOSE, as the window's close button does, and reports whether
// the window went away: one that asks to save changes stays open.
func (a windowsAPI) CloseWindow(ctx context.Context, title string, protected func(pid int) bool) (desktop.CloseResult, error) {
	w, err := a.find(ctx, title, desktop.CloseTarget)
	if err != nil {
		return desktop.CloseResult{}, err
	}
	if protected != nil && protected(w.PID) {
		return desktop.CloseResult{MatchedTitle: w.Title, ProcessName: w.ProcessName},
			werr.New(werr.ProtectedProcess, "window %q belongs to protected process %s (pid %d)", w.Title, w.ProcessName, w.PID).
				WithDetail("pid", w.PID)
	}
	h := windows.HWND(w.Handle)
	if ok, _, e := winapi.ProcPostMessageW.Call(uintptr(h), winapi.WM_CLOSE, 0, 0); ok == 0 {
		return desktop.CloseResult{}, werr.New(werr.Unavailable, "PostMessage(WM_CLOSE) to %q failed: %v", w.Title, e)
	}
	closed := waitFor(ctx, closeWait, func() bool { return !windows.IsWindow(h) })
	return desktop.CloseResult{MatchedTitle: w.Title, ProcessName: w.ProcessName, Closed: closed}, nil
}

// Resize moves, sizes, maximizes, minimizes or restores the window best matching title.
func (a windowsAPI) Resize(ctx context.Context, title, action string, x, y, w, h *int) (desktop.Window, error) {
	act, err := desktop.ResizeAction(action, x, y, w, h)
	if err != nil {
		return desktop.Window{}, err
	}
	win, err := a.find(ctx, title, desktop.BestTitle)
	if err != nil {
		return win, err
	}
	hw := uintptr(win.Handle)
	switch act {
	case desktop.ActionMaximize:
		winapi.ProcShowWindow.Call(hw, winapi.SW_MAXIMIZE)
	case desktop.ActionMinimize:
		winapi.ProcShowWindow.Call(hw, winapi.SW_MINIMIZE)
	case desktop.ActionRestore:
		winapi.ProcShowWindow.Call(hw, winapi.SW_RESTORE)
	case desktop.ActionMove:
		err = setPos(hw, *x, *y, 0, 0, winapi.SWP_NOSIZE)
	case desktop.ActionResize:
		if x != nil {
			err = setPos(hw, *x, *y, *w, *h, 0)
		} else {
			err = setPos(hw, 0, 0, *w, *h, winapi.SWP_NOMOVE)
		}
	}
	if err != nil {
		return win, err
	}
	return describe(windows.HWND(win.Handle), map[uint32]string{}), nil
}

func setPos(hw uintptr, x, y, w, h int, flags uintptr) error {
	ox, oy, _, _, err := virtualScreen()
	if err != nil {
		return err
	}
	if ok, _, e := winapi.ProcSetWindowPos.Call(hw, 0, uintptr(x+ox), uintptr(y+oy), uintptr(w), uintptr(h), flags|winapi.SWP_NOZORDER|winapi.SWP_NOACTIVATE); ok == 0 {
		return werr.New(werr.Unavailable, "SetWindowPos failed: %v", e)
	}
	return nil
}

// FindBrowser is not available yet: the browser (Edge, then Chrome) is not wired on Windows.
func (windowsAPI) FindBrowser(context.Context, string, func(uint32) string) (desktop.Window, error) {
	return desktop.Window{}, werr.New(werr.Unsupported, "%s", "finding browser windows on Windows is not implemented yet")
}

func waitFor(ctx context.Context, d time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) || ctx.Err() != nil {
			return false
		}
		time.Sleep(pollInterval)
	}
	return true
}
