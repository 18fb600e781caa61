//go:build windows

package win32

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"image/png"
	"runtime"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
	"unsafe"

	"github.com/w365/w365/engine/desktop"
	"github.com/w365/w365/engine/internal/winapi"
	"github.com/w365/w365/engine/werr"
	"golang.org/x/sys/windows"
)

// Clipboard reads and writes the Windows clipboard through a message-only window that
// it owns for its lifetime, on one OS thread (a window belongs to the thread that made
// it): what it writes stays on the clipboard after the caller has gone. The thread
// pumps the window's messages: a program that empties the clipboard sends its owner
// WM_DESTROYCLIPBOARD and waits for the answer with the clipboard open (wine's for 5 s).
type Clipboard struct {
	hwnd uintptr
	mu   sync.Mutex              // one operation at a time
	ops  chan func(hwnd uintptr) // the operation wmRun wakes the thread for
	done chan struct{}           // closed when the thread has ended
	quit sync.Once
}

// Messages to the clipboard's own window.
const (
	wmRun  = winapi.WM_APP // run the queued operation
	wmQuit = wmRun + 1
)

func openClipboard() (*Clipboard, error) {
	c := &Clipboard{ops: make(chan func(uintptr), 1), done: make(chan struct{})}
	ready := make(chan error)
	go func() {
		runtime.LockOSThread() // for good: the thread ends with the goroutine
		defer close(c.done)
		hwnd, _, e := winapi.ProcCreateWindowExW.Call(0, uintptr(unsafe.Pointer(utf16z("STATIC"))), uintptr(unsafe.Pointer(utf16z("w365 clipboard"))),
			0, 0, 0, 0, 0, winapi.HWND_MESSAGE, 0, 0, 0)
		if hwnd == 0 {
			ready <- werr.New(werr.Unavailable, "cannot create the clipboard's message window: %v", e)
			return
		}
		c.hwnd = hwnd
		ready <- nil
		defer winapi.ProcDestroyWindow.Call(hwnd)
		var m winapi.MSG
		for {
			// GetMessage also answers messages sent to the window (WM_DESTROYCLIPBOARD).
			if r, _, _ := winapi.ProcGetMessageW.Call(uintptr(unsafe.Pointer(&m)), 0, 0, 0); int32(r) <= 0 {
				return
			}
			switch {
			case m.Hwnd == hwnd && m.Message == wmRun:
				select {
				case op := <-c.ops:
					op(hwnd)
				default:
				}
			case m.Hwnd == hwnd && m.Message == wmQuit:
				return
			default:
				winapi.ProcDispatchMessageW.Call(uintptr(unsafe.Pointer(&m)))
			}
		}
	}()
	if err := <-ready; err != nil {
		return nil, err
	}
	return c, nil
}

// clipboardWait is how long do retries OpenClipboard while another program holds
// the clipboard open (a clipboard manager, or an application in the middle of a copy).
const clipboardWait = time.Second

// do runs f with the clipboard open on the owner thread. Another program may hold the
// clipboard for a moment: opening is retried for clipboardWait, then the call fails
// with a retryable UNAVAILABLE that names the program holding it.
func (c *Clipboard) do(ctx context.Context, f func(hwnd uintptr) error) error {
	errc := make(chan error, 1)
	op := func(hwnd uintptr) {
		deadline := time.Now().Add(clipboardWait)
		for {
			if ok, _, _ := winapi.ProcOpenClipboard.Call(hwnd); ok != 0 {
				break
			}
			if ctx.Err() != nil {
				errc <- werr.Done(ctx, "waiting for the clipboard another program holds open")
				return
			}
			if time.Now().After(deadline) {
				errc <- heldError()
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
		defer winapi.ProcCloseClipboard.Call()
		errc <- f(hwnd)
	}
	if err := werr.Done(ctx, "clipboard"); err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	select {
	case <-c.done:
		return werr.New(werr.Unavailable, "the clipboard is closed")
	default:
	}
	select {
	case c.ops <- op:
	default: // an earlier operation that timed out is still waiting for its turn
		return werr.New(werr.Timeout, "the clipboard is still busy with an earlier call").WithRetryable(true)
	}
	if ok, _, e := winapi.ProcPostMessageW.Call(c.hwnd, wmRun, 0, 0); ok == 0 {
		<-c.ops
		return werr.New(werr.Unavailable, "cannot reach the clipboard's window: %v", e)
	}
	t := time.NewTimer(clipboardWait + answerWait)
	defer t.Stop()
	select {
	case err := <-errc:
		return err
	case <-c.done:
		return werr.New(werr.Unavailable, "the clipboard is closed")
	case <-ctx.Done():
		return werr.Done(ctx, "clipboard")
	case <-t.C:
		// GetClipboardData of data its owner renders on demand waits for the owner's
		// answer to WM_RENDERFORMAT, without a bound: the operation finishes on its own.
		return werr.New(werr.Timeout, "the clipboard did not answer within %s; the program that owns it (%s) may be hung",
			clipboardWait+answerWait, windowProcess(winapi.ProcGetClipboardOwner)).WithRetryable(true)
	}
}

// answerWait bounds an operation once the clipboard is open.
const answerWait = 10 * time.Second

// windowProcess names the process of the window get returns ("explorer.exe (pid 76)").
func windowProcess(get *windows.LazyProc) string {
	h, _, _ := get.Call()
	if h == 0 {
		return "unknown"
	}
	var pid uint32
	windows.GetWindowThreadProcessId(windows.HWND(h), &pid)
	if n := processName(pid); n != "" {
		return fmt.Sprintf("%s (pid %d)", n, pid)
	}
	return fmt.Sprintf("process %d", pid)
}

// heldError says which program holds the clipboard open (GetOpenClipboardWindow), when
// Windows tells.
func heldError() error {
	holder := "another program"
	if n := windowProcess(winapi.ProcGetOpenClipboardWindow); n != "unknown" {
		holder = n
	}
	return werr.New(werr.Unavailable, "the clipboard is held open by %s", holder).
		WithRetryable(true).WithHint("try again once that program has finished with the clipboard")
}

// Read returns the clipboard's text (CF_UNICODETEXT, which Windows also makes from
// CF_TEXT), else its image as PNG, as the X11 clipboard does: the registered "PNG"
// format as it is, else CF_DIBV5 or CF_DIB converted. An empty clipboard is format
// "empty"; one holding neither text nor an image is UNSUPPORTED with the formats it has.
func (c *Clipboard) Read(ctx context.Context) (desktop.ClipboardContent, error) {
	var out desktop.ClipboardContent
	err := c.do(ctx, func(uintptr) error {
		if available(winapi.CF_UNICODETEXT) {
			b, err := clipboardBytes(winapi.CF_UNICODETEXT)
			if err != nil {
				return err
			}
			out = desktop.ClipboardContent{Format: "text", Text: utf16Text(b), MIMEType: "text/plain;charset=utf-8"}
			return nil
		}
		png, err := clipboardImage()
		if err != nil || png != nil {
			out = desktop.ClipboardContent{Format: "image", ImageBase64: base64.StdEncoding.EncodeToString(png), MIMEType: "image/png"}
			return err
		}
		if n, _, _ := winapi.ProcCountClipboardFormats.Call(); n == 0 {
			out = desktop.ClipboardContent{Format: "empty"}
			return nil
		}
		formats := clipboardFormats()
		return werr.New(werr.Unsupported, "the clipboard holds no text or image, only %s", strings.Join(formats, ", ")).WithDetail("formats", formats)
	})
	if err != nil {
		return desktop.ClipboardContent{}, err
	}
	return out, nil
}

// clipboardImage is the clipboard's image as PNG, nil when it holds none.
func clipboardImage() ([]byte, error) {
	if f := pngFormat(); f != 0 && available(f) {
		b, err := clipboardBytes(f)
		if err != nil {
			return nil, err
		}
		if p, ok := trimPNG(b); ok {
			return p, nil
		}
		// Not a well-formed PNG stream: a DIB of the same image may still be there.
	}
	for _, f := range []uintptr{winapi.CF_DIBV5, winapi.CF_DIB} {
		if !available(f) {
			continue
		}
		b, err := clipboardBytes(f)
		if err != nil {
			return nil, err
		}
		img, err := decodeDIB(b)
		if err != nil {
			return nil, werr.Wrap(err, werr.Unsupported, "cannot read the clipboard's %s image", formatName(f))
		}
		var buf bytes.Buffer
		if err := png.Encode(&buf, img); err != nil {
			return nil, werr.Wrap(err, werr.Internal, "cannot encode the clipboard image")
		}
		return buf.Bytes(), nil
	}
	return nil, nil
}

func available(format uintptr) bool {
	ok, _, _ := winapi.ProcIsClipboardFormatAvailable.Call(format)
	return ok != 0
}

// maxClipboardBytes bounds one format's data, as on X11.
const maxClipboardBytes = 256 << 20

// clipboardBytes copies one format's data (an HGLOBAL) out of the open clipboard.
func clipboardBytes(format uintptr) ([]byte, error) {
	h, _, e := winapi.ProcGetClipboardData.Call(format)
	if h == 0 {
		return nil, werr.New(werr.Unavailable, "GetClipboardData(%s) failed: %v", formatName(format), e)
	}
	n, _, _ := winapi.ProcGlobalSize.Call(h)
	if n > maxClipboardBytes {
		return nil, werr.New(werr.ResourceExhausted, "the clipboard's %s data exceeds 256 MB", formatName(format))
	}
	p, _, _ := winapi.ProcGlobalLock.Call(h)
	if p == 0 {
		return nil, werr.New(werr.Unavailable, "cannot lock the clipboard's %s data", formatName(format))
	}
	defer winapi.ProcGlobalUnlock.Call(h)
	return bytes.Clone(unsafe.Slice((*byte)(sysPtr(p)), n)), nil
}

// utf16Text decodes CF_UNICODETEXT up to its NUL (the allocation may be larger).
func utf16Text(b []byte) string {
	u := make([]uint16, len(b)/2)
	for i := range u {
		u[i] = uint16(b[2*i]) | uint16(b[2*i+1])<<8
	}
	return windows.UTF16ToString(u)
}

// pngFormat is the registered clipboard format "PNG" (browsers, Office and wine's X11
// bridge use it), 0 if it cannot be registered.
func pngFormat() uintptr {
	f, _, _ := winapi.ProcRegisterClipboardFormatW.Call(uintptr(unsafe.Pointer(utf16z("PNG"))))
	return f
}

// Standard clipboard format names, for messages and UNSUPPORTED details.
var standardFormats = map[uintptr]string{
	1: "CF_TEXT", 2: "CF_BITMAP", 3: "CF_METAFILEPICT", 4: "CF_SYLK", 5: "CF_DIF", 6: "CF_TIFF",
	7: "CF_OEMTEXT", winapi.CF_DIB: "CF_DIB", 9: "CF_PALETTE", 10: "CF_PENDATA", 11: "CF_RIFF", 12: "CF_WAVE",
	winapi.CF_UNICODETEXT: "CF_UNICODETEXT", 14: "CF_ENHMETAFILE", 15: "CF_HDROP", 16: "CF_LOCALE", winapi.CF_DIBV5: "CF_DIBV5",
}

func formatName(f uintptr) string {
	if n, ok := standardFormats[f]; ok {
		return n
	}
	var buf [256]uint16
	if n, _, _ := winapi.ProcGetClipboardFormatNameW.Call(f, uintptr(unsafe.Pointer(&buf[0])), uintptr(len(buf))); n > 0 {
		return windows.UTF16ToString(buf[:n])
	}
	return fmt.Sprintf("format %d", f)
}

// clipboardFormats names the formats on the open clipboard.
func clipboardFormats() []string {
	var names []string
	for f := uintptr(0); ; {
		f, _, _ = winapi.ProcEnumClipboardFormats.Call(f)
		if f == 0 || len(names) == 64 {
			return names
		}
		names = append(names, formatName(f))
	}
}

// Write replaces the clipboard with text as CF_UNICODETEXT.
func (c *Clipboard) Write(ctx context.Context, text string) (int, error) {
	if !utf8.ValidString(text) { // else UTF16FromString would put U+FFFD there
		return 0, werr.Invalid("text is not valid UTF-8")
	}
	u, err := windows.UTF16FromString(text)
	if err != nil {
		return 0, werr.Invalid("text contains a NUL character, which the clipboard cannot hold")
	}
	err = c.do(ctx, func(uintptr) error {
		if ok, _, e := winapi.ProcEmptyClipboard.Call(); ok == 0 {
			return werr.New(werr.Unavailable, "EmptyClipboard failed: %v", e)
		}
		size := uintptr(len(u)) * 2
		h, _, e := winapi.ProcGlobalAlloc.Call(winapi.GMEM_MOVEABLE, size)
		if h == 0 {
			return werr.New(werr.Unavailable, "GlobalAlloc(%d) failed: %v", size, e)
		}
		p, _, _ := winapi.ProcGlobalLock.Call(h)
		if p == 0 {
			winapi.ProcGlobalFree.Call(h)
			return werr.New(werr.Unavailable, "cannot lock the clipboard's memory")
		}
		copy(unsafe.Slice((*uint16)(sysPtr(p)), len(u)), u)
		winapi.ProcGlobalUnlock.Call(h)
		if r, _, e := winapi.ProcSetClipboardData.Call(winapi.CF_UNICODETEXT, h); r == 0 {
			winapi.ProcGlobalFree.Call(h) // still ours: the clipboard did not take it
			return werr.New(werr.Unavailable, "SetClipboardData failed: %v", e)
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	return utf8.RuneCountInString(text), nil
}

// Close ends the owner thread, which destroys its window.
func (c *Clipboard) Close() error {
	c.quit.Do(func() {
		if ok, _, _ := winapi.ProcPostMessageW.Call(c.hwnd, wmQuit, 0, 0); ok != 0 {
			<-c.done
		}
	})
	return nil
}
