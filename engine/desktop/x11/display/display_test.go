//go:build linux

package display_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"
	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"

	"github.com/w365/w365/engine/desktop"
	"github.com/w365/w365/engine/desktop/x11/display"
	"github.com/w365/w365/engine/desktop/x11/x11test"
	"github.com/w365/w365/engine/desktop/x11/xconn"
	"github.com/w365/w365/engine/werr"
	"github.com/w365/w365/test/testenv"
)

func TestVirtualDesktopStartsWithScreenWMAndBus(t *testing.T) {
	d := x11test.Start(t)
	conn, err := xconn.Connect(d.Name)
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
	pids := d.PIDs()
	want := []string{"nsenter", "Xvfb", "nsenter", "dbus-daemon", "nsenter", "openbox"}
	if len(pids) != len(want) {
		t.Fatalf("want %v, got pids %v", want, pids)
	}
	for i, want := range want {
		if exe, _ := os.Readlink(fmt.Sprintf("/proc/%d/exe", pids[i])); filepath.Base(exe) != want {
			t.Errorf("desktop process %d is %s, want %s", pids[i], exe, want)
		}
	}
	// The desktop's programs share the session's PID namespace, which is not the host's.
	self, _ := os.Readlink("/proc/self/ns/pid")
	session, _ := os.Readlink(fmt.Sprintf("/proc/%d/ns/pid", pids[1]))
	if session == "" || session == self {
		t.Errorf("the X server's PID namespace is %q, the host's %q", session, self)
	}
	for _, p := range []int{pids[3], pids[5]} {
		if ns, _ := os.Readlink(fmt.Sprintf("/proc/%d/ns/pid", p)); ns != session {
			t.Errorf("desktop process %d's PID namespace is %q, the X server's %q", p, ns, session)
		}
	}
	if err := d.Err(); err != nil {
		t.Fatalf("a running desktop reports %v", err)
	}
}

// Only holders of the desktop's cookie get in: a client without it is refused, one given the
// desktop's XAUTHORITY (as programs on the desktop are) is served.
func TestVirtualDesktopNeedsItsCookie(t *testing.T) {
	d := x11test.Start(t)
	t.Setenv("XAUTHORITY", "/nonexistent")
	if c, err := xgb.NewConnDisplay(d.Name); err == nil {
		c.Close()
		t.Fatal("a client without the cookie connected")
	}
	auth := d.Getenv("XAUTHORITY")
	st, err := os.Stat(auth)
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("Xauthority %s: %v %v", auth, st.Mode(), err)
	}
	t.Setenv("XAUTHORITY", auth)
	c, err := xgb.NewConnDisplay(d.Name)
	if err != nil {
		t.Fatalf("a client with the desktop's XAUTHORITY: %v", err)
	}
	c.Close()
	d.Stop()
	if _, err := os.Stat(auth); !os.IsNotExist(err) {
		t.Errorf("the Xauthority file outlived Stop: %v", err)
	}
}

// An X server that dies is reaped at once and reported by Err; another server that then takes
// the display number is never connected to.
func TestDeadXServerIsReapedAndItsDisplayNumberNotReused(t *testing.T) {
	d := x11test.Start(t)
	xvfb := d.PIDs()[1]
	syscall.Kill(xvfb, syscall.SIGKILL)
	deadline := time.Now().Add(time.Minute)
	for d.Err() == nil {
		if time.Now().After(deadline) {
			t.Fatal("Err stayed nil after the X server was killed")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if werr.CodeOf(d.Err()) != werr.SessionExpired || !strings.Contains(d.Err().Error(), "Xvfb") {
		t.Errorf("Err = %v", d.Err())
	}
	// Its confinement (bubblewrap, its parent) reaps it: Err may see it dead a moment
	// before, while it is a zombie (its pidfd is readable then), but it does not stay one.
	for i := 0; ; i++ {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", xvfb))
		if err != nil || !strings.Contains(string(b), ") Z ") {
			break
		}
		if i == 250 {
			t.Error("the dead X server is still a zombie 5 s after it died")
			break
		}
		time.Sleep(20 * time.Millisecond)
	}

	// A stranger takes the display number. Another test's X server (-displayfd takes the
	// lowest free number) may have taken it first: then that one is the stranger.
	stranger := exec.Command("Xvfb", d.Name, "-screen", "0", "640x480x24", "-nolisten", "tcp")
	if err := stranger.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { stranger.Wait(); close(exited) }()
	t.Cleanup(func() { stranger.Process.Kill(); <-exited })
	t.Setenv("XAUTHORITY", "/nonexistent")
	for i := 0; ; i++ {
		c, err := xgb.NewConnDisplay(d.Name)
		if err == nil {
			c.Close()
			break
		}
		select {
		case <-exited:
			if _, err := os.Stat(fmt.Sprintf("/tmp/.X%s-lock", strings.TrimPrefix(d.Name, ":"))); err != nil {
				t.Fatalf("the stranger X server exited and nothing holds %s: %v", d.Name, err)
			}
			t.Logf("another X server took %s first; it is the stranger", d.Name)
			i = 500
		default:
		}
		if i >= 500 {
			if stranger.ProcessState == nil {
				t.Fatalf("the stranger X server did not come up on %s: %v", d.Name, err)
			}
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if c, err := xconn.Connect(d.Name); err == nil {
		c.Close()
		t.Fatal("Connect reached the stranger's X server")
	}
}

func TestTwoDesktopsGetDistinctDisplays(t *testing.T) {
	a, b := x11test.Start(t), x11test.Start(t)
	if a.Name == b.Name {
		t.Fatalf("both desktops on %s", a.Name)
	}
}

// The window manager is as vital as the X server: its death breaks the desktop too.
func TestDeadWindowManagerBreaksTheDesktop(t *testing.T) {
	d := x11test.Start(t)
	wm := d.PIDs()[len(d.PIDs())-1]
	syscall.Kill(wm, syscall.SIGKILL)
	for i := 0; d.Err() == nil; i++ {
		if i > 3000 {
			t.Fatal("Err stayed nil after the window manager was killed")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if !strings.Contains(d.Err().Error(), "openbox") {
		t.Errorf("Err = %v", d.Err())
	}
}

// A confined client of a root host claims a uid its desktop's buses do not see; both buses
// admit it by ANONYMOUS (the accessibility bus through the configuration laid over
// at-spi-bus-launcher's), and their sockets lie in the desktop's private directory.
func TestDesktopBusesAdmitAnonymousClientsInTheirPrivateDirectory(t *testing.T) {
	d := x11test.Start(t)
	anon := dbus.WithAuth(dbus.AuthAnonymous())
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	addr := d.Getenv("DBUS_SESSION_BUS_ADDRESS")
	s, err := dbus.Connect(addr, anon, dbus.WithContext(ctx))
	if err != nil {
		t.Fatalf("an anonymous client is refused by the session bus %s: %v", addr, err)
	}
	defer s.Close()
	var a11y string
	if err := s.Object("org.a11y.Bus", "/org/a11y/bus").CallWithContext(ctx, "org.a11y.Bus.GetAddress", 0).Store(&a11y); err != nil {
		t.Fatalf("accessibility bus address: %v", err)
	}
	b, err := dbus.Connect(a11y, anon, dbus.WithContext(ctx))
	if err != nil {
		t.Fatalf("an anonymous client is refused by the accessibility bus %s: %v", a11y, err)
	}
	defer b.Close()
	var apps []struct {
		Bus  string
		Path dbus.ObjectPath
	}
	if err := b.Object("org.a11y.atspi.Registry", "/org/a11y/atspi/accessible/root").
		CallWithContext(ctx, "org.a11y.atspi.Accessible.GetChildren", 0).Store(&apps); err != nil {
		t.Fatalf("the registry does not answer an anonymous client: %v", err)
	}
	dir := filepath.Dir(d.Getenv("XAUTHORITY"))
	for _, a := range []string{addr, a11y} {
		if !strings.Contains(a, "path="+dir+"/") {
			t.Errorf("bus %s is not in the desktop's private directory %s", a, dir)
		}
	}
	if st, err := os.Stat(dir); err != nil {
		t.Error(err)
	} else if st.Mode().Perm() != 0o700 {
		t.Errorf("the desktop's private directory %s is mode %v, want 0700", dir, st.Mode())
	}
}

// A desktop whose X server refuses to start says why, in the X server's words: an
// "Xvfb did not start" alone left the CI log of a failed run with nothing to go on.
func TestAnXServerThatDoesNotStartSaysWhy(t *testing.T) {
	testenv.Require(t, "Xvfb", "openbox", "dbus-daemon")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	// A depth no screen has: Xvfb ends with "Couldn't add screen 0".
	d, err := display.StartVirtual(ctx, desktop.Options{Width: 800, Height: 600, Depth: 3})
	if err == nil {
		d.Stop()
		t.Fatal("a desktop of depth 3 started")
	}
	var e *werr.Error
	if !errors.As(err, &e) || e.Code != werr.Unavailable || !strings.Contains(e.Hint, "Couldn't add screen") {
		t.Fatalf("err = %v (hint %q), want UNAVAILABLE with the X server's own reason", err, e.Hint)
	}
}
