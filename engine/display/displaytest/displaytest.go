// Package displaytest starts a real virtual desktop for a test and stops it afterwards.
// Under CI=true a missing Xvfb fails the test instead of skipping it.
package displaytest

import (
	"context"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/w365/w365/engine/display"
)

// Require fails (in CI) or skips (elsewhere) when a program the test needs is missing.
func Require(t testing.TB, programs ...string) {
	t.Helper()
	for _, p := range programs {
		if _, err := exec.LookPath(p); err != nil {
			if os.Getenv("CI") == "true" {
				t.Fatalf("%s is required (CI=true): %v", p, err)
			}
			t.Skipf("%s not installed", p)
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
