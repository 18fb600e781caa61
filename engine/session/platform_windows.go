//go:build windows

package session

import (
	"context"

	"github.com/w365/w365/engine/desktop"
	"github.com/w365/w365/engine/desktop/win32"
	"github.com/w365/w365/engine/werr"
)

// Unsupported is nil: this build runs desktops (the user's own; see virtualDesktop).
func Unsupported() error { return nil }

// ownDesktopAlways: the default session is the interactive desktop whatever DISPLAY
// says (nothing on Windows; wine's X server under wine).
const ownDesktopAlways = true

// UserDisplay is none: Windows has one desktop per login session, which DISPLAY does
// not name (under wine it names wine's X server).
func UserDisplay() string { return "" }

// sameDisplay: the one desktop's name is all there is to compare.
func sameDisplay(a, b string) bool { return a == b }

func existingDesktop(string) (desktop.Desktop, error) { return win32.Desktop{}, nil }

func virtualDesktop(context.Context, desktop.Options) (desktop.Desktop, error) {
	return nil, VirtualUnsupported()
}

// VirtualUnsupported says that this build starts no virtual desktop.
func VirtualUnsupported() error {
	return werr.New(werr.Unsupported, "virtual desktops (Xvfb on Linux) are not implemented on Windows: only the default session, on the user's own desktop, runs").
		WithHint("use the default session (no --session, no --virtual)")
}
