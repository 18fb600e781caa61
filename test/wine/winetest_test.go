//go:build linux

package wine

import (
	"image/png"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

const screenW, screenH = 1152, 864

// TestWine runs its subtests in order on one prefix and one screen (wineboot takes
// 10-20 s); each leaves the desktop as it found it.
func TestWine(t *testing.T) {
	x := New(t, screenW, screenH)
	t.Logf("display %s", x.Display)
	x.RunSteps(t,
		Step{"HostOverNamedPipe", testHostOverNamedPipe},
		Step{"CursorRoundTrip", testCursorRoundTrip},
		Step{"Notepad", testNotepad},
	)
}

// testHostOverNamedPipe: a one-shot CLI call starts a background host, which listens on
// a named pipe (AF_UNIX fails under wine 8), and a second call reuses that host.
func testHostOverNamedPipe(t *testing.T, x *Wine) {
	var size struct{ Width, Height int }
	x.JSON(&size, "get-screen-size")
	if size.Width != screenW || size.Height != screenH {
		t.Fatalf("get_screen_size = %dx%d, want the Xvfb screen %dx%d", size.Width, size.Height, screenW, screenH)
	}
	var st1, st2 hostStatus
	x.JSON(&st1, "host", "status")
	x.JSON(&size, "get-screen-size")
	x.JSON(&st2, "host", "status")
	if st1.PID == 0 || st1.PID != st2.PID {
		t.Fatalf("the second call did not reuse the host: pid %d, then %d", st1.PID, st2.PID)
	}
	if len(st1.Endpoints) != 1 || !strings.HasPrefix(st1.Endpoints[0], `pipe:\\.\pipe\w365-S-`) {
		t.Fatalf("host endpoints = %q, want one named pipe named after the user's SID", st1.Endpoints)
	}
}

type hostStatus struct {
	PID       int      `json:"pid"`
	Endpoints []string `json:"endpoints"`
}

// testCursorRoundTrip: move_mouse then get_cursor_position (SetCursorPos/GetCursorPos),
// and the corner fail-safe refuses a corner target.
func testCursorRoundTrip(t *testing.T, x *Wine) {
	for _, p := range [][2]int{{300, 200}, {777, 555}} {
		x.MustRun("move-mouse", strconv.Itoa(p[0]), strconv.Itoa(p[1]))
		var c struct{ CursorX, CursorY int }
		x.JSON(&c, "get-cursor-position")
		if c.CursorX != p[0] || c.CursorY != p[1] {
			t.Fatalf("after move_mouse %v the cursor is at (%d,%d)", p, c.CursorX, c.CursorY)
		}
	}
	r := x.Run("move-mouse", "0", "0")
	if r.Code == 0 || !strings.Contains(r.Stderr, "FAILSAFE") {
		t.Fatalf("move_mouse 0 0 was not refused by the fail-safe: exit %d, %s", r.Code, r.Stderr)
	}
}

// testNotepad drives wine's notepad: list_windows finds it by title, take_screenshot
// shows it, type_text arrives (read back with ctrl+a, ctrl+c and clipboard_read),
// activate_window and resize_window act on it, close_window closes it.
func testNotepad(t *testing.T, x *Wine) {
	x.Start("notepad")
	w := waitWindow(t, x, "Notepad")
	if w.ProcessName != "notepad.exe" || w.PID == 0 || w.Handle == 0 {
		t.Fatalf("notepad's window is %+v, want processName notepad.exe with a pid and a handle", w)
	}

	var act struct{ Window window }
	x.JSON(&act, "activate-window", "Notepad")
	if act.Window.Handle != w.Handle {
		t.Fatalf("activate_window Notepad activated %+v, not %+v", act.Window, w)
	}

	var rs struct{ Window window }
	x.JSON(&rs, "resize-window", "--title", "Notepad", "--action", "Resize", "--x", "100", "--y", "80", "--width", "640", "--height", "480")
	got := waitWindow(t, x, "Notepad")
	if got.X != 100 || got.Y != 80 || got.Width != 640 || got.Height != 480 {
		t.Fatalf("after resize_window to 100,80 640x480 notepad is at %d,%d %dx%d", got.X, got.Y, got.Width, got.Height)
	}

	// The screenshot is of the whole screen, and notepad's white edit area is in it where
	// list_windows says the window is (the Xvfb root around it is black).
	var shot struct {
		Path          string
		Width, Height int
		MimeType      string
	}
	x.JSON(&shot, "take-screenshot")
	f, err := os.Open(filepath.Join(x.dir, filepath.Base(shot.Path)))
	if err != nil {
		t.Fatalf("take_screenshot wrote %q: %v", shot.Path, err)
	}
	img, err := png.Decode(f)
	f.Close()
	if err != nil {
		t.Fatalf("take_screenshot's file is no PNG: %v", err)
	}
	if b := img.Bounds(); b.Dx() != screenW || b.Dy() != screenH || shot.Width != screenW || shot.MimeType != "image/png" {
		t.Fatalf("screenshot %v (%dx%d, %s), want the %dx%d screen as PNG", b, shot.Width, shot.Height, shot.MimeType, screenW, screenH)
	}
	if r, g, b, _ := img.At(got.X+got.Width/2, got.Y+got.Height/2).RGBA(); r>>8 < 0xf0 || g>>8 < 0xf0 || b>>8 < 0xf0 {
		t.Fatalf("the centre of notepad's window is %02x%02x%02x in the screenshot, want its white edit area", r>>8, g>>8, b>>8)
	}
	if r, g, b, _ := img.At(screenW-20, screenH-20).RGBA(); r|g|b != 0 {
		t.Fatalf("the screen outside notepad is %02x%02x%02x, want the black Xvfb root", r>>8, g>>8, b>>8)
	}

	// KEYEVENTF_UNICODE: text outside any keyboard layout arrives as typed.
	const text = "Grüße 東京 w365"
	x.MustRun("click", strconv.Itoa(got.X+got.Width/2), strconv.Itoa(got.Y+got.Height/2))
	x.MustRun("type-text", text)
	x.MustRun("press-keys", "ctrl", "a")
	x.MustRun("press-keys", "ctrl", "c")
	var clip struct{ Format, Text string }
	x.JSON(&clip, "clipboard-read")
	if clip.Format != "text" || clip.Text != text {
		t.Fatalf("clipboard after ctrl+a, ctrl+c = %+v, want the typed %q", clip, text)
	}

	// Notepad holds unsaved text, so WM_CLOSE makes it ask "save changes?" and stay:
	// close_window says closed=false. Answering No (its mnemonic N) closes it.
	var cl struct {
		MatchedTitle, ProcessName string
		Closed                    bool
	}
	x.JSON(&cl, "close-window", w.Title)
	if cl.MatchedTitle != w.Title || cl.ProcessName != "notepad.exe" || cl.Closed {
		t.Fatalf("close_window %q on an unsaved notepad = %+v, want it matched and not closed", w.Title, cl)
	}
	x.MustRun("press-keys", "n")
	waitGone(t, x, w.Handle)
}

type window struct {
	Title, ProcessName  string
	Handle              uint32
	PID                 int
	X, Y, Width, Height int
}

// waitGone polls list_windows until the window handle is gone.
func waitGone(t *testing.T, x *Wine, handle uint32) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		var ws struct{ Windows []window }
		x.JSON(&ws, "list-windows")
		found := false
		for _, w := range ws.Windows {
			found = found || w.Handle == handle
		}
		if !found {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("window %d still listed 30s after close_window and No: %+v", handle, ws.Windows)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// waitWindow polls list_windows until a window whose title contains part shows up.
func waitWindow(t *testing.T, x *Wine, part string) window {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		var ws struct{ Windows []window }
		x.JSON(&ws, "list-windows")
		for _, w := range ws.Windows {
			if strings.Contains(w.Title, part) {
				return w
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no window titled like %q within 60s; list_windows: %+v", part, ws.Windows)
		}
		time.Sleep(200 * time.Millisecond)
	}
}
