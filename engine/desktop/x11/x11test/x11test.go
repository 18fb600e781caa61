//go:build linux

// Package x11test is the X11 backend's test harness: a real virtual desktop (Xvfb, openbox,
// a session D-Bus) per test, stopped at cleanup, and the GTK probe application that logs
// every input event it receives (probe.go).
package x11test

import (
	"context"
	"testing"
	"time"

	"github.com/w365/w365/engine/desktop"
	"github.com/w365/w365/engine/desktop/x11/display"
	"github.com/w365/w365/test/testenv"
)

// Start returns a fresh virtual desktop (1920x1080, openbox, session D-Bus) stopped at cleanup.
func Start(t testing.TB) *display.Desktop {
	t.Helper()
	testenv.Require(t, "Xvfb", "openbox", "dbus-daemon")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	d, err := display.StartVirtual(ctx, desktop.DefaultOptions())
	if err != nil {
		t.Fatalf("start virtual desktop: %v", err)
	}
	t.Cleanup(d.Stop)
	return d
}
