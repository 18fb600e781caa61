// Package display owns an X desktop for a session: either the user's own display, or an
// embedded virtual desktop (Xvfb + a window manager + a session D-Bus with the
// accessibility bus) that it starts and stops. The desktop is X11 and exists on Linux
// only; Options, shared with every platform's desktop, is available everywhere.
package display

import "github.com/w365/w365/engine/desktop"

// Options is the neutral desktop.Options, so that a session's screen settings need
// not know which platform starts the desktop.
type Options = desktop.Options

// DefaultOptions is desktop.DefaultOptions.
func DefaultOptions() Options { return desktop.DefaultOptions() }
