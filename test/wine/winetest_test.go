//go:build linux

package wine

import (
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
		Step{"Conformance", testConformance},
		Step{"Notepad", testNotepad},
	)
}

// testConformance runs the desktop contract's suite (engine/desktop/desktoptest) against
// the win32 backend in a Windows test binary, with notepad as its test window: what
// every backend must do is checked there, and this file keeps what is Windows' own.
// Wine 8 has no UI Automation client (uia_test.go), so accessibility must be UNSUPPORTED.
func testConformance(t *testing.T, x *Wine) {
	args := []string{"-test.run", "^TestConformance$", "-conformance"}
	if x.Wine8() {
		args = append(args, "-unsupported=accessibility")
	}
	r := x.GoTest("./engine/desktop/win32", args...)
	t.Log(strings.TrimSpace(r.Stdout))
	if r.Code != 0 || !strings.Contains(r.Stdout, "--- PASS: TestConformance") ||
		strings.Contains(r.Stdout, "--- FAIL") || strings.Contains(r.Stdout, "--- SKIP") {
		t.Fatalf("the conformance suite under wine: exit %d\n%s\n%s", r.Code, r.Stdout, r.Stderr)
	}
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

// testNotepad drives wine's notepad through the CLI and the host: list_windows names its
// process, type_text arrives (read back with ctrl+a, ctrl+c and clipboard_read), and
// close_window of an unsaved notepad reports the "save changes?" that keeps it open.
// Listing, activating, resizing and closing a window as such is the conformance suite's.
func testNotepad(t *testing.T, x *Wine) {
	x.Start("notepad")
	w := waitWindow(t, x, "Notepad")
	if w.ProcessName != "notepad.exe" || w.PID == 0 || w.Handle == 0 {
		t.Fatalf("notepad's window is %+v, want processName notepad.exe with a pid and a handle", w)
	}
	x.MustRun("activate-window", "Notepad")

	// KEYEVENTF_UNICODE: text outside any keyboard layout arrives as typed.
	const text = "Grüße 東京 w365"
	x.MustRun("click", strconv.Itoa(w.X+w.Width/2), strconv.Itoa(w.Y+w.Height/2))
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
