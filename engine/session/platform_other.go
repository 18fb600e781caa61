//go:build !linux && !windows

package session

import (
	"context"
	"os"

	"github.com/w365/w365/engine/desktop"
	"github.com/w365/w365/engine/werr"
)

// ownDesktopAlways is false: see platform_linux.go.
const ownDesktopAlways = false

// UserDisplay is DISPLAY, as on Linux: this build runs no desktop to compare it with.
func UserDisplay() string { return os.Getenv("DISPLAY") }

// sameDisplay: there is no display syntax to know without a backend.
func sameDisplay(a, b string) bool { return a == b }

func existingDesktop(string) (desktop.Desktop, error) { return nil, noDesktop() }

func virtualDesktop(context.Context, desktop.Options) (desktop.Desktop, error) {
	return nil, noDesktop()
}

// Unsupported says why this build cannot run desktops.
func Unsupported() error { return noDesktop() }

// VirtualUnsupported: no desktop at all, virtual or not.
func VirtualUnsupported() error { return noDesktop() }

// noDesktop is a fresh error each time because callers may add hints to a *werr.Error.
func noDesktop() error {
	return werr.New(werr.Unsupported, "desktops are implemented for Linux/X11 and Windows only")
}
