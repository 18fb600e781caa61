package displaytest

import (
	"context"
	"io"
	"log"
	"testing"
	"time"

	"github.com/jezek/xgb"

	"github.com/w365/w365/engine/desktop"
	"github.com/w365/w365/engine/display"
)

// The X library logs every connection made without an Xauthority file (the virtual
// desktop needs none) and every closed connection; errors reach the tests as values.
func init() { xgb.Logger = log.New(io.Discard, "", 0) }

// Start returns a fresh virtual desktop (1920x1080, openbox, session D-Bus) stopped at cleanup.
func Start(t testing.TB) *display.Desktop {
	t.Helper()
	Require(t, "Xvfb", "openbox", "dbus-daemon")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	d, err := display.StartVirtual(ctx, desktop.DefaultOptions())
	if err != nil {
		t.Fatalf("start virtual desktop: %v", err)
	}
	t.Cleanup(d.Stop)
	return d
}
