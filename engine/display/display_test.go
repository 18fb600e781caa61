//go:build linux

package display_test

import (
	"testing"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"

	"github.com/w365/w365/engine/display/displaytest"
)

func TestVirtualDesktopStartsWithScreenWMAndBus(t *testing.T) {
	d := displaytest.Start(t)
	conn, err := xgb.NewConnDisplay(d.Name)
	if err != nil {
		t.Fatalf("connect %s: %v", d.Name, err)
	}
	defer conn.Close()
	s := xproto.Setup(conn).DefaultScreen(conn)
	if s.WidthInPixels != 1920 || s.HeightInPixels != 1080 {
		t.Fatalf("screen is %dx%d, want 1920x1080", s.WidthInPixels, s.HeightInPixels)
	}
	if d.Getenv("DBUS_SESSION_BUS_ADDRESS") == "" {
		t.Fatalf("no session bus in env %v", d.Env)
	}
	if len(d.PIDs()) != 3 {
		t.Fatalf("want Xvfb, dbus and openbox, got pids %v", d.PIDs())
	}
}

func TestTwoDesktopsGetDistinctDisplays(t *testing.T) {
	a, b := displaytest.Start(t), displaytest.Start(t)
	if a.Name == b.Name {
		t.Fatalf("both desktops on %s", a.Name)
	}
}
