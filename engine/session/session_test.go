//go:build linux

package session

import (
	"context"
	"errors"
	"os"
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

// blocker is a session resource whose Close waits for release (the fault: a browser slow to
// exit at its session's end); entered closes when Close starts.
type blocker struct{ entered, release chan struct{} }

func (b blocker) Close() error {
	close(b.entered)
	<-b.release
	return nil
}

// Close waits for the end of a session already under way (its agent disconnected just
// before the host stopped): before, it returned with the session's desktop still running and
// its state directory not swept, and the host exited so.
func TestCloseWaitsForAnEndUnderWay(t *testing.T) {
	testenv.Require(t, "Xvfb", "openbox", "dbus-daemon")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	o := desktop.Options{Width: 800, Height: 600, Depth: 24, WindowManager: "openbox"}
	m := NewManager(policy.Default(), Options{Screen: o, StateRoot: t.TempDir()})
	s, err := m.Start(ctx, StartOptions{Owner: "agent"})
	if err != nil {
		t.Fatal(err)
	}
	b := blocker{make(chan struct{}), make(chan struct{})}
	if _, err := Use(s, "slow", func(*Session) (blocker, error) { return b, nil }); err != nil {
		t.Fatal(err)
	}
	pids, state := s.Desktop.PIDs(), s.StateDir()
	go m.EndOwnedBy("agent", func() {})
	<-b.entered
	// The end under way finishes a moment after Close starts; Close returns after it.
	go func() {
		time.Sleep(300 * time.Millisecond)
		close(b.release)
	}()
	m.Close()
	for _, pid := range pids {
		if !errors.Is(syscall.Kill(pid, 0), syscall.ESRCH) {
			t.Errorf("desktop process %d outlived Close", pid)
		}
	}
	if _, err := os.Stat(state); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the state directory %s is still there after Close (%v)", state, err)
	}
}
