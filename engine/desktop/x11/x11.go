//go:build linux

// Package x11 is the Linux backend of desktop.Desktop: an X display (the user's, or a
// virtual one started by the display package) whose capabilities are the packages below
// this one: xconn (every X connection), input (XTEST), screen (MIT-SHM), window (EWMH),
// clipboard (selections) and atspi (the accessibility tree over AT-SPI2).
package x11

import (
	"context"
	"time"

	"github.com/w365/w365/engine/desktop"
	"github.com/w365/w365/engine/desktop/x11/atspi"
	"github.com/w365/w365/engine/desktop/x11/clipboard"
	"github.com/w365/w365/engine/desktop/x11/display"
	"github.com/w365/w365/engine/desktop/x11/input"
	"github.com/w365/w365/engine/desktop/x11/screen"
	"github.com/w365/w365/engine/desktop/x11/window"
	"github.com/w365/w365/engine/desktop/x11/xconn"
	"github.com/w365/w365/engine/policy"
)

// The wrapped types must keep the interfaces' method sets; a drift fails the build here
// rather than in a caller.
var (
	_ desktop.Desktop       = xdesktop{}
	_ desktop.Input         = (*input.Controller)(nil)
	_ desktop.Screen        = (*screen.Screen)(nil)
	_ desktop.Windows       = windows{}
	_ desktop.Clipboard     = (*clipboard.Clipboard)(nil)
	_ desktop.Accessibility = (*atspi.Tree)(nil)
)

// xdesktop is one X display.
type xdesktop struct{ d *display.Desktop }

// Existing is the X display called name that somebody else runs (the user's DISPLAY);
// Stop leaves it running.
func Existing(name string) desktop.Desktop { return xdesktop{display.Existing(name)} }

// StartVirtual starts Xvfb, a session D-Bus and the window manager, and returns once
// the window manager takes windows.
func StartVirtual(ctx context.Context, o desktop.Options) (desktop.Desktop, error) {
	d, err := display.StartVirtual(ctx, o)
	if err != nil {
		return nil, err
	}
	// openbox announces itself before it manages windows and can lose one mapped in
	// that gap: wait until it really takes windows. A failed connection is not an error
	// here: the first capability opened reports it.
	if wm, err := window.Open(d.Name); err == nil {
		err = wm.WaitReady(ctx, 10*time.Second)
		wm.Disconnect()
		if err != nil {
			d.Stop()
			return nil, err
		}
	}
	return xdesktop{d}, nil
}

// SameDisplay says whether two X display names name one display (xconn.SameDisplay).
var SameDisplay = xconn.SameDisplay

func (x xdesktop) Name() string                   { return x.d.Name }
func (x xdesktop) Virtual() bool                  { return x.d.Virtual }
func (x xdesktop) Environ(base []string) []string { return x.d.Environ(base) }
func (x xdesktop) Getenv(key string) string       { return x.d.Getenv(key) }
func (x xdesktop) PIDs() []int                    { return x.d.PIDs() }
func (x xdesktop) Stop()                          { x.d.Stop() }
func (x xdesktop) Err() error                     { return x.d.Err() }

// The Open methods return a nil interface on failure, never one holding a nil pointer.

func (x xdesktop) OpenInput(p *policy.Policy) (desktop.Input, error) {
	c, err := input.New(x.d.Name, p)
	if err != nil {
		return nil, err
	}
	return c, nil
}

func (x xdesktop) OpenScreen() (desktop.Screen, error) {
	s, err := screen.Open(x.d.Name)
	if err != nil {
		return nil, err
	}
	return s, nil
}

func (x xdesktop) OpenWindows() (desktop.Windows, error) {
	m, err := window.Open(x.d.Name)
	if err != nil {
		return nil, err
	}
	return windows{m}, nil
}

func (x xdesktop) OpenClipboard() (desktop.Clipboard, error) {
	c, err := clipboard.Open(x.d.Name)
	if err != nil {
		return nil, err
	}
	return c, nil
}

func (x xdesktop) OpenAccessibility(ctx context.Context) (desktop.Accessibility, error) {
	t, err := atspi.Open(ctx, x.d.Getenv("DBUS_SESSION_BUS_ADDRESS"), x.d.Name)
	if err != nil {
		return nil, err
	}
	return t, nil
}

// windows renames two methods of window.Manager, whose Close closes a window and whose
// Disconnect ends the connection.
type windows struct{ *window.Manager }

func (w windows) CloseWindow(ctx context.Context, title string, protected func(pid int) bool) (desktop.CloseResult, error) {
	return w.Manager.Close(ctx, title, protected)
}

func (w windows) Close() error {
	w.Disconnect()
	return nil
}
