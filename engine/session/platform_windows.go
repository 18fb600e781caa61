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

func existingDesktop(string) (desktop.Desktop, error) { return win32.Desktop{}, nil }

func virtualDesktop(context.Context, desktop.Options) (desktop.Desktop, error) {
	return nil, werr.New(werr.Unsupported, "virtual desktops (Xvfb on Linux) are not implemented on Windows: only the default session, on the user's own desktop, runs").
		WithHint("use the default session (no --session, no --virtual)")
}
