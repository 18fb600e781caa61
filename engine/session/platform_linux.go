//go:build linux

package session

import (
	"context"
	"os"

	"github.com/w365/w365/engine/desktop"
	"github.com/w365/w365/engine/desktop/x11"
)

// Each platform file defines UserDisplay, sameDisplay, existingDesktop (the user's own
// display), virtualDesktop and Unsupported, so that session.go names no platform.

// Unsupported is nil: this build runs desktops.
func Unsupported() error { return nil }

// VirtualUnsupported is nil: this build starts virtual desktops (Xvfb).
func VirtualUnsupported() error { return nil }

// ownDesktopAlways is false: the default session is the user's display only when DISPLAY names one.
const ownDesktopAlways = false

// UserDisplay is the X display named by DISPLAY.
func UserDisplay() string { return os.Getenv("DISPLAY") }

// sameDisplay compares X display names.
func sameDisplay(a, b string) bool { return x11.SameDisplay(a, b) }

func existingDesktop(name string) (desktop.Desktop, error) { return x11.Existing(name), nil }

func virtualDesktop(ctx context.Context, o desktop.Options) (desktop.Desktop, error) {
	return x11.StartVirtual(ctx, o)
}
