// Package displaytest starts a real virtual desktop for a test and stops it afterwards.
// Under CI=true a missing Xvfb fails the test instead of skipping it.
package displaytest

import (
	"context"
	"io"
	"log"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/jezek/xgb"

	"github.com/w365/w365/engine/display"
)

// The X library logs every connection made without an Xauthority file (the virtual
// desktop needs none) and every closed connection; errors reach the tests as values.
func init() { xgb.Logger = log.New(io.Discard, "", 0) }

// Missing stops a test that lacks a component: under CI=true it fails (CI installs
// everything the tests need), elsewhere it skips. Every test gate goes through here.
func Missing(t testing.TB, what string) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatalf("%s is required (CI=true)", what)
	}
	t.Skipf("%s not available", what)
}

// Require stops the test through Missing when a program it needs is not installed.
func Require(t testing.TB, programs ...string) {
	t.Helper()
	for _, p := range programs {
		if _, err := exec.LookPath(p); err != nil {
			Missing(t, p)
		}
	}
}

// Start returns a fresh virtual desktop (1920x1080, openbox, session D-Bus) stopped at cleanup.
func Start(t testing.TB) *display.Desktop {
	t.Helper()
	Require(t, "Xvfb", "openbox", "dbus-daemon")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	d, err := display.StartVirtual(ctx, display.DefaultOptions())
	if err != nil {
		t.Fatalf("start virtual desktop: %v", err)
	}
	t.Cleanup(d.Stop)
	return d
}
