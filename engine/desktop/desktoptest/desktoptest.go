// Package desktoptest is the conformance suite of package desktop, in the spirit of
// testing/fstest: Run checks that a desktop.Desktop keeps the contract its interfaces
// document, through those interfaces only, and judges every call by effects the same
// interfaces observe (the cursor a refused click left where it was, the window List
// shows where Resize put it, the text a second clipboard reads). Every backend runs it:
// x11 on Xvfb in its own tests, win32 under wine (test/wine).
//
// The suite acts on the desktop it is given: it moves the cursor, clicks, scrolls and
// presses keys there, and replaces the clipboard. Run it on a desktop made for the test.
package desktoptest

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/w365/w365/engine/desktop"
	"github.com/w365/w365/engine/werr"
)

// Capability names one Open method of desktop.Desktop.
type Capability string

// The capabilities, by the Open method that gives them.
const (
	Input         Capability = "input"
	Screen        Capability = "screen"
	Windows       Capability = "windows"
	Clipboard     Capability = "clipboard"
	Accessibility Capability = "accessibility"
)

// Opener opens a test window on the desktop under test and returns its title and the
// process id that Windows.List reports for it (0 when the platform cannot tell). The
// title must be unique on the desktop, and the window must close at a close request
// without asking anything. The window may still be on its way to the screen when
// Opener returns: the suite waits for List to show it. Opener ends what it started at
// t's cleanup.
type Opener func(t *testing.T) (title string, pid int)

// An Option configures Run.
type Option func(*config)

type config struct {
	window      Opener
	unsupported map[Capability]bool
}

// WithWindow gives the suite a test window, for the checks that need one: List,
// Activate, Resize and CloseWindow acting on a real window, and Capture showing it.
// Without it those checks are left out, and the suite logs so.
func WithWindow(open Opener) Option { return func(c *config) { c.window = open } }

// Unsupported says which capabilities the desktop lacks: the suite checks that their
// Open method fails with UNSUPPORTED (as package desktop demands of a missing
// capability) instead of checking what they do.
func Unsupported(caps ...Capability) Option {
	return func(c *config) {
		for _, k := range caps {
			c.unsupported[k] = true
		}
	}
}

// Timeout bounds one Run: the waits for a window to appear or go, and every call.
var Timeout = 3 * time.Minute

// Run checks d against the contract of package desktop, one subtest a capability, in
// an order that leaves the desktop as it found it: Input and Clipboard before the test
// window opens (typing and pasting reach whatever has the focus), the window last.
func Run(t *testing.T, d desktop.Desktop, opts ...Option) {
	c := config{unsupported: map[Capability]bool{}}
	for _, o := range opts {
		o(&c)
	}
	ctx, cancel := context.WithTimeout(context.Background(), Timeout)
	defer cancel()
	t.Run("Desktop", func(t *testing.T) { testDesktop(t, d) })
	t.Run("Screen", func(t *testing.T) {
		if s := open(t, c, Screen, d.OpenScreen); s != nil {
			testScreen(ctx, t, s)
		}
	})
	t.Run("Input", func(t *testing.T) {
		if c.unsupported[Input] {
			open(t, c, Input, func() (desktop.Input, error) { return d.OpenInput(nil) })
			return
		}
		testInput(ctx, t, d)
	})
	t.Run("Clipboard", func(t *testing.T) {
		if cl := open(t, c, Clipboard, d.OpenClipboard); cl != nil {
			testClipboard(ctx, t, d, cl)
		}
	})
	t.Run("Accessibility", func(t *testing.T) {
		if a := open(t, c, Accessibility, func() (desktop.Accessibility, error) { return d.OpenAccessibility(ctx) }); a != nil {
			testAccessibility(ctx, t, a)
		}
	})
	t.Run("Windows", func(t *testing.T) {
		if w := open(t, c, Windows, d.OpenWindows); w != nil {
			testWindows(ctx, t, d, c, w)
		}
	})
	if err := d.Err(); err != nil {
		t.Errorf("Err() after the suite = %v, want nil", err)
	}
}

// open opens capability k through f. For a capability the desktop lacks it checks the
// UNSUPPORTED refusal and returns nil; otherwise it fails the test unless f succeeds,
// and closes what it opened at cleanup (Close must succeed).
func open[T interface{ Close() error }](t *testing.T, c config, k Capability, f func() (T, error)) T {
	t.Helper()
	var zero T
	v, err := f()
	if c.unsupported[k] {
		if werr.CodeOf(err) != werr.Unsupported {
			t.Fatalf("opening %s, which the desktop lacks: %v; want an UNSUPPORTED error", k, err)
		}
		if any(v) != nil {
			t.Fatalf("opening %s failed with %v but returned %#v; want a nil interface", k, err, v)
		}
		t.Logf("%s: UNSUPPORTED, as declared: %v", k, err)
		return zero
	}
	if err != nil {
		t.Fatalf("opening %s: %v", k, err)
	}
	if any(v) == nil {
		t.Fatalf("opening %s returned no error and a nil interface", k)
	}
	t.Cleanup(func() {
		if err := v.Close(); err != nil {
			t.Errorf("closing %s: %v", k, err)
		}
	})
	return v
}

// testDesktop: the identity and environment of the desktop.
func testDesktop(t *testing.T, d desktop.Desktop) {
	if d.Name() == "" {
		t.Error("Name() is empty")
	}
	if err := d.Err(); err != nil {
		t.Errorf("Err() = %v on a working desktop, want nil", err)
	}
	pids := d.PIDs()
	for _, p := range pids {
		if p <= 0 {
			t.Errorf("PIDs() = %v holds %d, not a process id", pids, p)
		}
	}
	if len(slices.Compact(slices.Sorted(slices.Values(pids)))) != len(pids) {
		t.Errorf("PIDs() = %v lists a process twice", pids)
	}
	if d.Virtual() && len(pids) == 0 {
		t.Error("a virtual desktop lists no processes of its own (display server, window manager...)")
	}
	if !d.Virtual() && len(pids) != 0 {
		t.Errorf("a desktop w365 did not start lists processes of its own: %v", pids)
	}

	// Environ(nil) is what the desktop sets; Getenv reads it; Environ(base) keeps the
	// rest of base and overrides what the desktop sets.
	own := d.Environ(nil)
	set := map[string]string{}
	for _, kv := range own {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			t.Errorf("Environ(nil) holds %q, not NAME=value", kv)
			continue
		}
		if _, dup := set[k]; dup {
			t.Errorf("Environ(nil) sets %s twice: %v", k, own)
		}
		set[k] = v
		if got := d.Getenv(k); got != v {
			t.Errorf("Getenv(%q) = %q, but Environ(nil) sets %q", k, got, v)
		}
	}
	const absent = "W365_DESKTOPTEST_NEVER_SET"
	if got := d.Getenv(absent); got != "" {
		t.Errorf("Getenv(%q) = %q, want \"\"", absent, got)
	}
	base := []string{absent + "=kept", "W365_DESKTOPTEST_OTHER=also kept"}
	for k := range set {
		base = append(base, k+"=overridden by the desktop")
	}
	env := d.Environ(base)
	for _, kv := range base[:2] {
		if !slices.Contains(env, kv) {
			t.Errorf("Environ(base) drops %q: %v", kv, env)
		}
	}
	for k, v := range set {
		if !slices.Contains(env, k+"="+v) || slices.Contains(env, k+"=overridden by the desktop") {
			t.Errorf("Environ(base) does not replace base's %s with the desktop's %q: %v", k, v, env)
		}
	}
}

// clickErr is the error of a Click, for wantCode.
func clickErr(_ desktop.Handled, err error) error { return err }

// wantCode fails the test unless err carries code.
func wantCode(t *testing.T, err error, code werr.Code, what string) *werr.Error {
	t.Helper()
	if got := werr.CodeOf(err); got != code {
		t.Fatalf("%s: %v; want %s", what, err, code)
	}
	var e *werr.Error
	errors.As(err, &e)
	return e
}

// cancelled is a context that is already cancelled.
func cancelled() context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	return ctx
}
