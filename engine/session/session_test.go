//go:build linux

package session

import (
	"context"
	"errors"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/w365/w365/engine/desktop"
	"github.com/w365/w365/engine/policy"
	"github.com/w365/w365/test/testenv"
)

// TestVirtualSessionOwnsItsDesktop starts a session's virtual desktop through the
// platform's desktop.Desktop and checks that ending the session ends its resources
// and its desktop.
func TestVirtualSessionOwnsItsDesktop(t *testing.T) {
	testenv.Require(t, "Xvfb", "openbox", "dbus-daemon")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	o := desktop.Options{Width: 800, Height: 600, Depth: 24, WindowManager: "openbox"}
	m := NewManager(policy.Default(), Options{Screen: o})
	t.Cleanup(m.Close)
	s, err := m.Get(ctx, "v", true)
	if err != nil {
		t.Fatalf("Get: %v", err)
	}
	info := s.Info()
	if !info.Virtual || info.Display == "" || info.Env["DISPLAY"] != info.Display || info.Env["DBUS_SESSION_BUS_ADDRESS"] == "" {
		t.Fatalf("Info() = %+v", info)
	}
	pids := s.Desktop.PIDs()
	if len(pids) == 0 || !slices.Equal(m.PIDs()[1:], pids) {
		t.Fatalf("manager PIDs %v, desktop PIDs %v", m.PIDs(), pids)
	}
	scr, err := Use(s, "screen", func(s *Session) (desktop.Screen, error) { return s.Desktop.OpenScreen() })
	if err != nil {
		t.Fatalf("open screen: %v", err)
	}
	if w, h, err := scr.Size(); err != nil || w != o.Width || h != o.Height {
		t.Fatalf("Size() = %d, %d, %v; want %dx%d", w, h, err, o.Width, o.Height)
	}
	if err := m.End("v"); err != nil {
		t.Fatal(err)
	}
	if _, _, err := scr.Size(); err == nil {
		t.Error("the session's screen still answers after End")
	}
	for _, pid := range pids {
		if !errors.Is(syscall.Kill(pid, 0), syscall.ESRCH) {
			t.Errorf("desktop process %d outlived End", pid)
		}
	}
}
