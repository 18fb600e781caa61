//go:build windows

package win32

import (
	"context"
	"runtime"
	"sync"
	"time"
	"unicode/utf8"
	"unsafe"

	"github.com/w365/w365/engine/desktop"
	"github.com/w365/w365/engine/werr"
	"golang.org/x/sys/windows"
)

var (
	kernel32 = windows.NewLazySystemDLL("kernel32.dll")

	procOpenClipboard              = user32.NewProc("OpenClipboard")
	procCloseClipboard             = user32.NewProc("CloseClipboard")
	procEmptyClipboard             = user32.NewProc("EmptyClipboard")
	procGetClipboardData           = user32.NewProc("GetClipboardData")
	procSetClipboardData           = user32.NewProc("SetClipboardData")
	procIsClipboardFormatAvailable = user32.NewProc("IsClipboardFormatAvailable")
	procCreateWindowExW            = user32.NewProc("CreateWindowExW")
	procDestroyWindow              = user32.NewProc("DestroyWindow")
	procGlobalAlloc                = kernel32.NewProc("GlobalAlloc")
	procGlobalFree                 = kernel32.NewProc("GlobalFree")
	procGlobalLock                 = kernel32.NewProc("GlobalLock")
	procGlobalUnlock               = kernel32.NewProc("GlobalUnlock")
)

const (
	cfUnicodeText = 13
	cfDIB         = 8
	gmemMoveable  = 0x0002
	hwndMessage   = ^uintptr(2) // HWND_MESSAGE, (HWND)-3
)

// Clipboard reads and writes the Windows clipboard through a message-only window that
// it owns for its lifetime, on one OS thread (a window belongs to the thread that made
// it): what it writes stays on the clipboard after the caller has gone.
type Clipboard struct {
	ops   chan func(hwnd uintptr)
	done  chan struct{}
	close sync.Once
}

func openClipboard() (*Clipboard, error) {
	c := &Clipboard{ops: make(chan func(uintptr)), done: make(chan struct{})}
	ready := make(chan error)
	go func() {
		runtime.LockOSThread()
		hwnd, _, e := procCreateWindowExW.Call(0, uintptr(unsafe.Pointer(utf16z("STATIC"))), uintptr(unsafe.Pointer(utf16z("w365 clipboard"))),
			0, 0, 0, 0, 0, hwndMessage, 0, 0, 0)
		if hwnd == 0 {
			ready <- werr.New(werr.Unavailable, "cannot create the clipboard's message window: %v", e)
			return
		}
		ready <- nil
		defer procDestroyWindow.Call(hwnd)
		for {
			select {
			case op := <-c.ops:
				op(hwnd)
			case <-c.done:
				return
			}
		}
	}()
	if err := <-ready; err != nil {
		return nil, err
	}
	return c, nil
}

// do runs f with the clipboard open on the owner thread. Another program may hold the
// clipboard for a moment: opening is retried for a second.
func (c *Clipboard) do(ctx context.Context, f func(hwnd uintptr) error) error {
	errc := make(chan error, 1)
	op := func(hwnd uintptr) {
		deadline := time.Now().Add(time.Second)
		for {
			if ok, _, _ := procOpenClipboard.Call(hwnd); ok != 0 {
				break
			}
			if time.Now().After(deadline) {
				errc <- werr.New(werr.Unavailable, "the clipboard is held open by another program")
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
		defer procCloseClipboard.Call()
		errc <- f(hwnd)
	}
	select {
	case c.ops <- op:
	case <-c.done:
		return werr.New(werr.Unavailable, "the clipboard is closed")
	case <-ctx.Done():
		return ctx.Err()
	}
	return <-errc
}

// Read returns the clipboard's text. Images (CF_DIB) are not read yet: such a
// clipboard is UNSUPPORTED rather than reported empty.
func (c *Clipboard) Read(ctx context.Context) (desktop.ClipboardContent, error) {
	var out desktop.ClipboardContent
	err := c.do(ctx, func(uintptr) error {
		if ok, _, _ := procIsClipboardFormatAvailable.Call(cfUnicodeText); ok == 0 {
			if ok, _, _ := procIsClipboardFormatAvailable.Call(cfDIB); ok != 0 {
				return werr.New(werr.Unsupported, "the clipboard holds an image; reading images (CF_DIB) is not implemented on Windows yet")
			}
			out = desktop.ClipboardContent{Format: "empty"}
			return nil
		}
		h, _, e := procGetClipboardData.Call(cfUnicodeText)
		if h == 0 {
			return werr.New(werr.Unavailable, "GetClipboardData(CF_UNICODETEXT) failed: %v", e)
		}
		p, _, _ := procGlobalLock.Call(h)
		if p == 0 {
			return werr.New(werr.Unavailable, "cannot lock the clipboard's text")
		}
		defer procGlobalUnlock.Call(h)
		text := windows.UTF16PtrToString((*uint16)(globalPtr(p)))
		out = desktop.ClipboardContent{Format: "text", Text: text, MIMEType: "text/plain;charset=utf-8"}
		return nil
	})
	return out, err
}

// Write replaces the clipboard with text as CF_UNICODETEXT.
func (c *Clipboard) Write(ctx context.Context, text string) (int, error) {
	u, err := windows.UTF16FromString(text)
	if err != nil {
		return 0, werr.Invalid("text contains a NUL character, which the clipboard cannot hold")
	}
	err = c.do(ctx, func(uintptr) error {
		if ok, _, e := procEmptyClipboard.Call(); ok == 0 {
			return werr.New(werr.Unavailable, "EmptyClipboard failed: %v", e)
		}
		size := uintptr(len(u)) * 2
		h, _, e := procGlobalAlloc.Call(gmemMoveable, size)
		if h == 0 {
			return werr.New(werr.Unavailable, "GlobalAlloc(%d) failed: %v", size, e)
		}
		p, _, _ := procGlobalLock.Call(h)
		if p == 0 {
			procGlobalFree.Call(h)
			return werr.New(werr.Unavailable, "cannot lock the clipboard's memory")
		}
		copy(unsafe.Slice((*uint16)(globalPtr(p)), len(u)), u)
		procGlobalUnlock.Call(h)
		if r, _, e := procSetClipboardData.Call(cfUnicodeText, h); r == 0 {
			procGlobalFree.Call(h) // still ours: the clipboard did not take it
			return werr.New(werr.Unavailable, "SetClipboardData failed: %v", e)
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	return utf8.RuneCountInString(text), nil
}

// Close ends the owner thread and destroys its window.
func (c *Clipboard) Close() error {
	c.close.Do(func() { close(c.done) })
	return nil
}

// globalPtr is the address GlobalLock returned: memory of the global heap, locked
// until GlobalUnlock, which Go's collector neither moves nor frees.
func globalPtr(p uintptr) unsafe.Pointer { return *(*unsafe.Pointer)(unsafe.Pointer(&p)) }
