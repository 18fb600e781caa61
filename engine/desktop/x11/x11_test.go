//go:build linux

package x11_test

import (
	"context"
	"errors"
	"io"
	"os/exec"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/w365/w365/engine/desktop"
	"github.com/w365/w365/engine/desktop/desktoptest"
	"github.com/w365/w365/engine/desktop/x11"
	"github.com/w365/w365/engine/desktop/x11/x11test"
	"github.com/w365/w365/engine/policy"
	"github.com/w365/w365/test/testenv"
)

// TestVirtualDesktopThroughTheInterface drives every capability of a virtual desktop
// only through package desktop's interfaces, as the session and the tools do.
func TestVirtualDesktopThroughTheInterface(t *testing.T) {
	testenv.Require(t, "Xvfb", "openbox", "dbus-daemon", "xmessage")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	// Not the default size, so that the screen size proves the options arrived.
	o := desktop.Options{Width: 1280, Height: 720, Depth: 24, WindowManager: "openbox"}
	d, err := x11.StartVirtual(ctx, o)
	if err != nil {
		t.Fatalf("StartVirtual: %v", err)
	}
	t.Cleanup(d.Stop)
	if !d.Virtual() || d.Name() == "" || d.Getenv("DISPLAY") != d.Name() {
		t.Fatalf("Virtual()=%v Name()=%q DISPLAY=%q", d.Virtual(), d.Name(), d.Getenv("DISPLAY"))
	}
	if env := d.Environ([]string{"DISPLAY=:99", "HOME=/x"}); !slices.Contains(env, "DISPLAY="+d.Name()) ||
		slices.Contains(env, "DISPLAY=:99") || !slices.Contains(env, "HOME=/x") {
		t.Fatalf("Environ does not replace DISPLAY with %s and keep the rest: %v", d.Name(), env)
	}

	scr, err := d.OpenScreen()
	if err != nil {
		t.Fatalf("OpenScreen: %v", err)
	}
	opened := []io.Closer{scr}
	if w, h, err := scr.Size(); err != nil || w != o.Width || h != o.Height {
		t.Fatalf("Size() = %d, %d, %v; want %dx%d", w, h, err, o.Width, o.Height)
	}

	in, err := d.OpenInput(policy.Default())
	if err != nil {
		t.Fatalf("OpenInput: %v", err)
	}
	opened = append(opened, in)
	if err := in.Move(ctx, 321, 234); err != nil {
		t.Fatalf("Move: %v", err)
	}
	if x, y, err := in.CursorPosition(); err != nil || x != 321 || y != 234 {
		t.Fatalf("CursorPosition() = %d, %d, %v; want 321, 234", x, y, err)
	}

	clip, err := d.OpenClipboard()
	if err != nil {
		t.Fatalf("OpenClipboard: %v", err)
	}
	opened = append(opened, clip)
	const text = "über x11 ✓"
	if n, err := clip.Write(ctx, text); err != nil || n != 10 {
		t.Fatalf("Write = %d, %v; want 10 code points", n, err)
	}
	if c, err := clip.Read(ctx); err != nil || c.Format != "text" || c.Text != text {
		t.Fatalf("Read = %+v, %v; want text %q", c, err, text)
	}

	msg := exec.Command("xmessage", "-title", "w365-x11-test", "hello")
	msg.Env = d.Environ(nil)
	if err := msg.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { msg.Process.Kill(); msg.Wait() })
	wins, err := d.OpenWindows()
	if err != nil {
		t.Fatalf("OpenWindows: %v", err)
	}
	opened = append(opened, wins)
	for {
		ws, err := wins.List(ctx)
		if err != nil {
			t.Fatalf("List: %v", err)
		}
		if slices.ContainsFunc(ws, func(w desktop.Window) bool { return w.Title == "w365-x11-test" }) {
			break
		}
		select {
		case <-ctx.Done():
			t.Fatal("the xmessage window never appeared in List")
		case <-time.After(50 * time.Millisecond):
		}
	}

	acc, err := d.OpenAccessibility(ctx)
	if err != nil {
		t.Fatalf("OpenAccessibility: %v", err)
	}
	opened = append(opened, acc)
	for _, c := range opened {
		if err := c.Close(); err != nil {
			t.Errorf("%T.Close: %v", c, err)
		}
	}

	pids := d.PIDs()
	if len(pids) != 6 {
		t.Fatalf("want Xvfb, dbus-daemon and openbox, each after its bubblewrap, got pids %v", pids)
	}
	// The user's display wrapped by Existing is never stopped by w365.
	ex := x11.Existing(d.Name())
	ex.Stop()
	if ex.Virtual() || len(ex.PIDs()) != 0 || !alive(pids[1]) {
		t.Fatalf("Existing: Virtual()=%v PIDs()=%v, Xvfb alive after its Stop: %v", ex.Virtual(), ex.PIDs(), alive(pids[1]))
	}
	d.Stop()
	for _, pid := range pids {
		if alive(pid) {
			t.Errorf("process %d outlived Stop", pid)
		}
	}
}

// TestConformance runs the desktop contract's suite against a virtual X11 desktop, with a
// GTK window (testdata/apps/win_app.py) as the test window.
func TestConformance(t *testing.T) {
	testenv.Require(t, "Xvfb", "openbox", "dbus-daemon", x11test.Python)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	d, err := x11.StartVirtual(ctx, desktop.DefaultOptions())
	if err != nil {
		t.Fatalf("StartVirtual: %v", err)
	}
	t.Cleanup(d.Stop)
	desktoptest.Run(t, d, desktoptest.WithWindow(func(t *testing.T) (string, int) {
		const title = "w365 conformance window"
		c := exec.Command(x11test.Python, filepath.Join(testenv.Root(), "testdata", "apps", "win_app.py"),
			"--title", title, "--width", "300", "--height", "200")
		c.Env = d.Environ(nil)
		stdin, err := c.StdinPipe() // the app quits when its stdin ends
		if err != nil {
			t.Fatal(err)
		}
		if err := c.Start(); err != nil {
			t.Fatalf("start %s: %v", c.Args[1], err)
		}
		t.Cleanup(func() { stdin.Close(); c.Process.Kill(); c.Wait() })
		return title, c.Process.Pid
	}))
}

// alive says whether pid exists; Stop reaps what it ends, so an ended one does not.
func alive(pid int) bool { return !errors.Is(syscall.Kill(pid, 0), syscall.ESRCH) }

// TestSameDisplay: a default screen number makes no other display; another screen or
// another display number does.
func TestSameDisplay(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want bool
	}{
		{":1", ":1", true}, {":1", ":1.0", true}, {":1.0", ":1", true},
		{":1", ":1.1", false}, {":1", ":10", false}, {":4242", ":7", false},
	} {
		if got := x11.SameDisplay(c.a, c.b); got != c.want {
			t.Errorf("SameDisplay(%q, %q) = %v, want %v", c.a, c.b, got, c.want)
		}
	}
}
