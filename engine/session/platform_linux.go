//go:build linux

package session

import (
	"context"

	"github.com/w365/w365/engine/desktop"
	"github.com/w365/w365/engine/desktop/x11"
)

// Each platform file defines existingDesktop (the user's own display),
// virtualDesktop and Unsupported, so that session.go names no platform.

// Unsupported is nil: this build runs desktops.
func Unsupported() error { return nil }

// ownDesktopAlways is false: the default session is the user's display only when DISPLAY names one.
const ownDesktopAlways = false

func existingDesktop(name string) (desktop.Desktop, error) { return x11.Existing(name), nil }

func virtualDesktop(ctx context.Context, o desktop.Options) (desktop.Desktop, error) {
	return x11.StartVirtual(ctx, o)
}
