//go:build windows

package win32

import (
	"context"
	"strings"
	"sync"
	"time"
	"unicode/utf16"
	"unsafe"

	"golang.org/x/sys/windows"

	"github.com/w365/w365/engine/desktop"
	"github.com/w365/w365/engine/internal/winapi"
	"github.com/w365/w365/engine/policy"
	"github.com/w365/w365/engine/werr"
)

// mouseEvent and keyEvent are one SendInput event each; a KEYBDINPUT takes the place of
// INPUT's MOUSEINPUT, the largest member of its union.
func mouseEvent(flags, data uint32) winapi.INPUT {
	return winapi.INPUT{Type: winapi.INPUT_MOUSE, Mouse: winapi.MOUSEINPUT{Flags: flags, MouseData: data}}
}

func keyEvent(vk, scan uint16, flags uint32) winapi.INPUT {
	in := winapi.INPUT{Type: winapi.INPUT_KEYBOARD}
	*(*winapi.KEYBDINPUT)(unsafe.Pointer(&in.Mouse)) = winapi.KEYBDINPUT{Vk: vk, Scan: scan, Flags: flags}
	return in
}

// send hands events to SendInput, which inserts them all or none.
func send(evs ...winapi.INPUT) error {
	if len(evs) == 0 {
		return nil
	}
	n, _, e := winapi.ProcSendInput.Call(uintptr(len(evs)), uintptr(unsafe.Pointer(&evs[0])), unsafe.Sizeof(evs[0]))
	if int(n) != len(evs) {
		return werr.New(werr.Unavailable, "SendInput inserted %d of %d events: %v", n, len(evs), e).
			WithHint("input to a window of higher integrity (an elevated program) is blocked by Windows")
	}
	return nil
}

// buttons are the down and up flags and the mouseData of each desktop.Button*.
var buttons = map[string][3]uint32{
	desktop.ButtonLeft:     {winapi.MOUSEEVENTF_LEFTDOWN, winapi.MOUSEEVENTF_LEFTUP, 0},
	desktop.ButtonRight:    {winapi.MOUSEEVENTF_RIGHTDOWN, winapi.MOUSEEVENTF_RIGHTUP, 0},
	desktop.ButtonMiddle:   {winapi.MOUSEEVENTF_MIDDLEDOWN, winapi.MOUSEEVENTF_MIDDLEUP, 0},
	desktop.ButtonBackward: {winapi.MOUSEEVENTF_XDOWN, winapi.MOUSEEVENTF_XUP, winapi.XBUTTON1},
	desktop.ButtonForward:  {winapi.MOUSEEVENTF_XDOWN, winapi.MOUSEEVENTF_XUP, winapi.XBUTTON2},
}

// Input sends mouse and keyboard events with SendInput; one operation at a time.
type Input struct {
	mu    sync.Mutex
	pol   *policy.Policy
	guard desktop.Guard
}

// state is the virtual screen's size and the cursor relative to its top-left corner.
func (in *Input) state() (w, h, cx, cy int, err error) {
	_, _, w, h, err = virtualScreen()
	if err != nil {
		return
	}
	cx, cy, err = in.CursorPosition()
	return
}

func (in *Input) begin(ctx context.Context) (w, h, cx, cy int, err error) {
	if err = werr.Done(ctx, "input"); err != nil {
		return
	}
	return in.state()
}

func setCursor(x, y int) error {
	ox, oy, _, _, err := virtualScreen()
	if err != nil {
		return err
	}
	if ok, _, e := winapi.ProcSetCursorPos.Call(uintptr(x+ox), uintptr(y+oy)); ok == 0 {
		return werr.New(werr.Unavailable, "SetCursorPos(%d,%d) failed: %v", x, y, e)
	}
	return nil
}

// Move puts the cursor at (x, y). As on X11, a move to a safe target is allowed while
// the cursor sits in a corner: it is the way out of the fail-safe.
func (in *Input) Move(ctx context.Context, x, y int) error {
	in.mu.Lock()
	defer in.mu.Unlock()
	w, h, _, _, err := in.begin(ctx)
	if err != nil {
		return err
	}
	if err := in.guard.CheckTarget("move_mouse", x, y, w, h); err != nil {
		return err
	}
	return setCursor(x, y)
}

// CursorPosition is the cursor in screen pixels from the virtual screen's top-left corner.
func (in *Input) CursorPosition() (x, y int, err error) {
	var p struct{ X, Y int32 }
	if ok, _, e := winapi.ProcGetCursorPos.Call(uintptr(unsafe.Pointer(&p))); ok == 0 {
		return 0, 0, werr.New(werr.Unavailable, "GetCursorPos failed: %v", e)
	}
	ox, oy, _, _, err := virtualScreen()
	return int(p.X) - ox, int(p.Y) - oy, err
}

// guardedAt checks the cursor and the target of op and moves the cursor there.
func (in *Input) guardedAt(ctx context.Context, op string, x, y *int) error {
	w, h, cx, cy, err := in.begin(ctx)
	if err != nil {
		return err
	}
	if err := in.guard.CheckCursor(op, cx, cy, w, h); err != nil {
		return err
	}
	tx, ty := cx, cy
	if x != nil {
		tx, ty = *x, *y
	}
	if err := in.guard.CheckTarget(op, tx, ty, w, h); err != nil {
		return err
	}
	if tx != cx || ty != cy {
		return setCursor(tx, ty)
	}
	return nil
}

func (in *Input) Click(ctx context.Context, x, y *int, button string, count int) (desktop.Handled, error) {
	name, err := desktop.ParseButton(button, true)
	if err != nil {
		return desktop.Handled{}, err
	}
	if count, err = desktop.ClickCount(count, x, y); err != nil {
		return desktop.Handled{}, err
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	if err := in.guardedAt(ctx, "click", x, y); err != nil {
		return desktop.Handled{}, err
	}
	b := buttons[name]
	var evs []winapi.INPUT
	for range count {
		evs = append(evs, mouseEvent(b[0], b[2]), mouseEvent(b[1], b[2]))
	}
	// The window is read before the click, which may close it. Whether the application has
	// handled the click is not told here: a message sent to its thread to find out is
	// answered before the input queued ahead of it.
	h := desktop.Handled{Window: landedIn()}
	return h, send(evs...)
}

// maxLandedTitle caps the title a click's result names, in characters: the application
// chose it, and it goes into every click's text.
const maxLandedTitle = 80

// landedIn is the title of the top-level window under the cursor (where guardedAt put it),
// "" when none or it has none.
func landedIn() string {
	var p struct{ X, Y int32 }
	if ok, _, _ := winapi.ProcGetCursorPos.Call(uintptr(unsafe.Pointer(&p))); ok == 0 {
		return ""
	}
	// WindowFromPoint takes a POINT by value: two 32-bit fields in one 64-bit argument.
	w, _, _ := winapi.ProcWindowFromPoint.Call(uintptr(uint32(p.X)) | uintptr(uint32(p.Y))<<32)
	if w == 0 {
		return ""
	}
	const gaRoot = 2
	root, _, _ := winapi.ProcGetAncestor.Call(w, gaRoot)
	if root == 0 {
		return ""
	}
	t := []rune(title(windows.HWND(root)))
	if len(t) > maxLandedTitle {
		return string(t[:maxLandedTitle]) + "…"
	}
	return string(t)
}

// Drag presses button at the start, moves in steps and releases at the end; the
// button is released whatever happens. Every pixel of the path is checked first.
func (in *Input) Drag(ctx context.Context, sx, sy, ex, ey int, button string) (err error) {
	name, err := desktop.ParseButton(button, false)
	if err != nil {
		return err
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	w, h, cx, cy, err := in.begin(ctx)
	if err != nil {
		return err
	}
	if err := in.guard.CheckCursor("drag_mouse", cx, cy, w, h); err != nil {
		return err
	}
	n := max(abs(ex-sx), abs(ey-sy), 1)
	for i := 0; i <= n; i++ {
		px, py := sx+(ex-sx)*i/n, sy+(ey-sy)*i/n
		if err := in.guard.CheckTarget("drag_mouse", px, py, w, h); err != nil {
			return err
		}
	}
	if err := setCursor(sx, sy); err != nil {
		return err
	}
	b := buttons[name]
	if err := send(mouseEvent(b[0], b[2])); err != nil {
		return err
	}
	defer func() {
		if e := send(mouseEvent(b[1], b[2])); err == nil {
			err = e
		}
	}()
	steps := min(max(n/10, 5), 60)
	for i := 1; i <= steps; i++ {
		if err := werr.Done(ctx, "input"); err != nil {
			return err
		}
		if err := setCursor(sx+(ex-sx)*i/steps, sy+(ey-sy)*i/steps); err != nil {
			return err
		}
		time.Sleep(2 * time.Millisecond)
	}
	return nil
}

func abs(v int) int { return max(v, -v) }

func sign(v int) int { return min(1, max(-1, v)) }

// Scroll turns the wheel at (x, y): dy notches down (negative: up), dx right (negative:
// left), WHEEL_DELTA (120) per notch, clamped to the policy's notch limit.
func (in *Input) Scroll(ctx context.Context, x, y, dx, dy int) (desktop.ScrollResult, error) {
	lim := in.pol.ScrollNotchesMax
	r := desktop.ScrollResult{AppliedDX: max(-lim, min(lim, dx)), AppliedDY: max(-lim, min(lim, dy))}
	r.Clamped = r.AppliedDX != dx || r.AppliedDY != dy
	in.mu.Lock()
	defer in.mu.Unlock()
	if err := in.guardedAt(ctx, "scroll", &x, &y); err != nil {
		return r, err
	}
	// One event a notch, as a wheel sends them: some programs scroll one step a message
	// whatever its delta. A positive wheel delta rotates away from the user: up.
	var evs []winapi.INPUT
	for range abs(r.AppliedDY) {
		evs = append(evs, mouseEvent(winapi.MOUSEEVENTF_WHEEL, uint32(int32(-sign(r.AppliedDY)*winapi.WHEEL_DELTA))))
	}
	for range abs(r.AppliedDX) {
		evs = append(evs, mouseEvent(winapi.MOUSEEVENTF_HWHEEL, uint32(int32(sign(r.AppliedDX)*winapi.WHEEL_DELTA))))
	}
	return r, send(evs...)
}

// TypeText types text as KEYEVENTF_UNICODE events (one UTF-16 unit each, surrogate
// pairs as two), which arrive as the characters themselves whatever the keyboard
// layout; "\n" is Enter and "\t" is Tab, sent as keys.
func (in *Input) TypeText(ctx context.Context, text string) error {
	var evs []winapi.INPUT
	for i, r := range text {
		switch {
		case r == '\n':
			evs = append(evs, pressVK(vkReturn), releaseVK(vkReturn))
		case r == '\t':
			evs = append(evs, pressVK(vkTab), releaseVK(vkTab))
		case r == '\r':
		case r < 0x20 || (r >= 0x7f && r < 0xa0):
			return werr.Invalid("text contains the control character U+%04X at position %d, which cannot be typed", r, i).
				WithHint("use press_keys for special keys")
		default:
			for _, u := range utf16.Encode([]rune{r}) {
				evs = append(evs, keyEvent(0, u, winapi.KEYEVENTF_UNICODE), keyEvent(0, u, winapi.KEYEVENTF_UNICODE|winapi.KEYEVENTF_KEYUP))
			}
		}
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	if err := werr.Done(ctx, "input"); err != nil {
		return err
	}
	// In chunks, so that a cancelled call stops soon and the target's queue keeps up.
	for len(evs) > 0 {
		n := min(len(evs), 64)
		if err := send(evs[:n]...); err != nil {
			return err
		}
		evs = evs[n:]
		if err := werr.Done(ctx, "input"); err != nil {
			return err
		}
		time.Sleep(5 * time.Millisecond)
	}
	return nil
}

// PressKeys presses keys together in order and releases them in reverse order.
func (in *Input) PressKeys(ctx context.Context, keys []string) error {
	if len(keys) == 0 {
		return werr.Invalid("keys must name at least one key")
	}
	var down, up []winapi.INPUT
	for _, k := range keys {
		vk, shift, err := lookupKey(k)
		if err != nil {
			return err
		}
		if shift {
			down = append(down, pressVK(vkShift))
			up = append([]winapi.INPUT{releaseVK(vkShift)}, up...)
		}
		down = append(down, pressVK(vk))
		up = append([]winapi.INPUT{releaseVK(vk)}, up...)
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	if err := werr.Done(ctx, "input"); err != nil {
		return err
	}
	return send(append(down, up...)...)
}

// TypePaste puts text on clip, sends Ctrl+V and puts the previous text back once the
// target has had time to read it.
func (in *Input) TypePaste(ctx context.Context, text string, clip desktop.TextClipboard) error {
	old, had, err := clip.Read()
	if err != nil {
		return err
	}
	if err := clip.Write(text); err != nil {
		return err
	}
	err = in.PressKeys(ctx, []string{"ctrl", "v"})
	time.Sleep(300 * time.Millisecond)
	if had {
		if e := clip.Write(old); err == nil {
			err = e
		}
	}
	return err
}

func (in *Input) Close() error { return nil }

// pressVK and releaseVK press and release a virtual key, with its scan code so that programs
// reading scan codes (games, remote desktops) see the key too.
func pressVK(vk uint16) winapi.INPUT { return keyEvent(vk, scanOf(vk), extendedFlag(vk)) }
func releaseVK(vk uint16) winapi.INPUT {
	return keyEvent(vk, scanOf(vk), extendedFlag(vk)|winapi.KEYEVENTF_KEYUP)
}

func scanOf(vk uint16) uint16 {
	r, _, _ := winapi.ProcMapVirtualKeyW.Call(uintptr(vk), 0) // MAPVK_VK_TO_VSC
	return uint16(r)
}

// extendedFlag marks the keys of the extended set (arrows, navigation block, right
// modifiers), whose scan codes are prefixed with E0.
func extendedFlag(vk uint16) uint32 {
	switch vk {
	case vkLeft, vkUp, vkRight, vkDown, vkPrior, vkNext, vkEnd, vkHome, vkInsert, vkDelete,
		vkRControl, vkRMenu, vkLWin, vkRWin, vkApps, vkDivide, vkNumLock, vkSnapshot:
		return winapi.KEYEVENTF_EXTENDEDKEY
	}
	return 0
}

// lookupKey resolves a key name to a virtual key, and whether it needs Shift (for
// characters such as "?"); an unknown name is INVALID_ARGUMENT with the nearest names.
func lookupKey(name string) (vk uint16, shift bool, err error) {
	n := strings.ToLower(strings.TrimSpace(name))
	if n == "" && name != "" {
		n = "space"
	}
	if v, ok := keyNames[n]; ok {
		return v, false, nil
	}
	if r := []rune(n); len(r) == 1 {
		res, _, _ := winapi.ProcVkKeyScanW.Call(uintptr(r[0]))
		if int16(res) != -1 {
			return uint16(res & 0xff), res&0x100 != 0, nil
		}
	}
	return 0, false, werr.Invalid("unknown key name %q", name).WithHint("key names are like ctrl, shift, alt, meta, enter, escape, tab, f5, pageup, arrowleft, a, 1, comma")
}
