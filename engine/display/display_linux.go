// Package display owns an X desktop for a session: either the user's own display, or an
// embedded virtual desktop (Xvfb + a window manager + a session D-Bus with the
// accessibility bus) that it starts and stops. It is X11, so Linux only.
package display

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"

	"github.com/godbus/dbus/v5"
	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"

	"github.com/w365/w365/engine/child"
	"github.com/w365/w365/engine/desktop"
	"github.com/w365/w365/engine/werr"
)

// Desktop is one X display with the environment that programs on it need.
type Desktop struct {
	// Name is the X display name, e.g. ":7".
	Name string
	// Virtual says whether w365 started (and will stop) this display.
	Virtual bool
	// Env holds DISPLAY, DBUS_SESSION_BUS_ADDRESS and the variables that switch
	// accessibility on in GTK, Qt and Chromium.
	Env []string

	procs []*exec.Cmd // started by us, stopped in reverse order
}

// a11yEnv switches on the accessibility bridges of common toolkits.
var a11yEnv = []string{
	"NO_AT_BRIDGE=0",
	"GTK_MODULES=gail:atk-bridge",
	"ACCESSIBILITY_ENABLED=1",
	"QT_LINUX_ACCESSIBILITY_ALWAYS_ON=1",
	"QT_ACCESSIBILITY=1",
}

// Existing wraps a display that somebody else runs (the user's DISPLAY).
func Existing(name string) *Desktop {
	env := []string{"DISPLAY=" + name}
	if a := os.Getenv("DBUS_SESSION_BUS_ADDRESS"); a != "" {
		env = append(env, "DBUS_SESSION_BUS_ADDRESS="+a)
	}
	return &Desktop{Name: name, Env: append(env, a11yEnv...)}
}

// StartVirtual starts Xvfb on a free display number, a session D-Bus with
// accessibility enabled, and a window manager, and waits until all are ready.
func StartVirtual(ctx context.Context, o desktop.Options) (*Desktop, error) {
	if o.Width <= 0 || o.Height <= 0 {
		return nil, werr.Invalid("screen size must be positive, got %dx%d", o.Width, o.Height)
	}
	if o.Depth == 0 {
		o.Depth = 24
	}
	if o.WindowManager == "" {
		o.WindowManager = "openbox"
	}
	xvfb, err := exec.LookPath("Xvfb")
	if err != nil {
		return nil, werr.New(werr.Unavailable, "Xvfb is not installed").WithHint("install the xvfb package, or run with DISPLAY set")
	}
	d := &Desktop{Virtual: true}
	ok := false
	defer func() {
		if !ok {
			d.Stop()
		}
	}()

	// -displayfd makes Xvfb pick a free display number and write it once it accepts clients.
	r, w, err := os.Pipe()
	if err != nil {
		return nil, werr.Wrap(err, werr.Internal, "cannot create pipe")
	}
	x := exec.Command(xvfb, "-displayfd", "3", "-screen", "0",
		fmt.Sprintf("%dx%dx%d", o.Width, o.Height, o.Depth), "-nolisten", "tcp", "+extension", "RANDR")
	x.ExtraFiles = []*os.File{w}
	if err := child.Start(x); err != nil {
		r.Close()
		w.Close()
		return nil, werr.Wrap(err, werr.Unavailable, "cannot start Xvfb")
	}
	w.Close()
	d.procs = append(d.procs, x)
	num, err := readLine(ctx, r, 10*time.Second)
	r.Close()
	if err != nil {
		return nil, werr.Wrap(err, werr.Unavailable, "Xvfb did not start")
	}
	d.Name = ":" + strings.TrimSpace(num)
	d.Env = []string{"DISPLAY=" + d.Name}

	if addr, err := d.startDBus(ctx); err == nil {
		d.Env = append(d.Env, "DBUS_SESSION_BUS_ADDRESS="+addr)
		enableAccessibility(addr)
	} else {
		// Without a session bus there is no accessibility tree, but input and capture work.
		fmt.Fprintf(os.Stderr, "w365: no session D-Bus for %s: %v\n", d.Name, err)
	}
	d.Env = append(d.Env, a11yEnv...)

	if wm, err := exec.LookPath(o.WindowManager); err == nil {
		c := d.Command(wm)
		if o.WindowManager == "openbox" {
			c.Args = append(c.Args, "--sm-disable")
		}
		if err := child.Start(c); err != nil {
			return nil, werr.Wrap(err, werr.Unavailable, "cannot start window manager %s", o.WindowManager)
		}
		d.procs = append(d.procs, c)
		if err := waitForWM(ctx, d.Name, 10*time.Second); err != nil {
			return nil, err
		}
	} else {
		fmt.Fprintf(os.Stderr, "w365: window manager %s not found; windows cannot be moved or focused by title\n", o.WindowManager)
	}
	ok = true
	return d, nil
}

func (d *Desktop) startDBus(ctx context.Context) (string, error) {
	bin, err := exec.LookPath("dbus-daemon")
	if err != nil {
		return "", err
	}
	r, w, err := os.Pipe()
	if err != nil {
		return "", err
	}
	c := exec.Command(bin, "--session", "--nofork", "--nosyslog", "--print-address=3")
	c.ExtraFiles = []*os.File{w}
	c.Env = append(os.Environ(), "DISPLAY="+d.Name)
	if err := child.Start(c); err != nil {
		r.Close()
		w.Close()
		return "", err
	}
	w.Close()
	d.procs = append(d.procs, c)
	addr, err := readLine(ctx, r, 10*time.Second)
	r.Close()
	return strings.TrimSpace(addr), err
}

// enableAccessibility sets org.a11y.Status.IsEnabled so that toolkits that ask the bus
// (Chromium among them) expose their trees; the accessibility bus starts on demand.
func enableAccessibility(addr string) {
	conn, err := dbus.Connect(addr)
	if err != nil {
		return
	}
	defer conn.Close()
	obj := conn.Object("org.a11y.Bus", "/org/a11y/bus")
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	obj.CallWithContext(ctx, "org.freedesktop.DBus.Properties.Set", 0, "org.a11y.Status", "IsEnabled", dbus.MakeVariant(true))
}

// PIDs lists the processes that make up this desktop (display server, bus, window manager).
func (d *Desktop) PIDs() []int {
	var pids []int
	for _, c := range d.procs {
		if c.Process != nil {
			pids = append(pids, c.Process.Pid)
		}
	}
	return pids
}

// Command prepares a program to run on this desktop, with its environment.
func (d *Desktop) Command(name string, args ...string) *exec.Cmd {
	c := exec.Command(name, args...)
	c.Env = d.Environ(os.Environ())
	return c
}

// Environ returns base with this desktop's variables replacing any of the same name.
func (d *Desktop) Environ(base []string) []string {
	out := make([]string, 0, len(base)+len(d.Env))
	override := map[string]bool{}
	for _, kv := range d.Env {
		override[strings.SplitN(kv, "=", 2)[0]] = true
	}
	for _, kv := range base {
		if !override[strings.SplitN(kv, "=", 2)[0]] {
			out = append(out, kv)
		}
	}
	return append(out, d.Env...)
}

// Getenv returns the value this desktop sets for key, or "".
func (d *Desktop) Getenv(key string) string {
	for _, kv := range d.Env {
		if k, v, _ := strings.Cut(kv, "="); k == key {
			return v
		}
	}
	return ""
}

// Stop ends what StartVirtual started, newest first. It is a no-op for an existing display.
func (d *Desktop) Stop() {
	for i := len(d.procs) - 1; i >= 0; i-- {
		c := d.procs[i]
		if c.Process == nil {
			continue
		}
		c.Process.Signal(syscall.SIGTERM)
		done := make(chan struct{})
		go func() { c.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(2 * time.Second):
			c.Process.Kill()
			<-done
		}
	}
	d.procs = nil
}

func readLine(ctx context.Context, f *os.File, timeout time.Duration) (string, error) {
	type res struct {
		s   string
		err error
	}
	ch := make(chan res, 1)
	go func() {
		s, err := bufio.NewReader(f).ReadString('\n')
		ch <- res{s, err}
	}()
	select {
	case r := <-ch:
		if r.err != nil && r.s == "" {
			return "", r.err
		}
		return r.s, nil
	case <-time.After(timeout):
		return "", fmt.Errorf("timed out after %s", timeout)
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

// waitForWM polls the root window until a window manager announces itself (EWMH).
func waitForWM(ctx context.Context, name string, timeout time.Duration) error {
	// The server accepts clients once it wrote its display number, but a loaded
	// machine has been seen refusing the very first connection: retry briefly.
	var conn *xgb.Conn
	var err error
	for i := 0; i < 20; i++ {
		if conn, err = xgb.NewConnDisplay(name); err == nil {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err != nil {
		return werr.Wrap(err, werr.Unavailable, "cannot connect to %s", name)
	}
	defer conn.Close()
	atom, err := xproto.InternAtom(conn, true, uint16(len("_NET_SUPPORTING_WM_CHECK")), "_NET_SUPPORTING_WM_CHECK").Reply()
	if err != nil {
		return werr.Wrap(err, werr.Unavailable, "X server on %s does not answer", name)
	}
	root := xproto.Setup(conn).DefaultScreen(conn).Root
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		if atom.Atom != 0 {
			p, err := xproto.GetProperty(conn, false, root, atom.Atom, xproto.AtomWindow, 0, 1).Reply()
			if err == nil && p.ValueLen > 0 {
				return nil
			}
		} else if a, err := xproto.InternAtom(conn, true, uint16(len("_NET_SUPPORTING_WM_CHECK")), "_NET_SUPPORTING_WM_CHECK").Reply(); err == nil {
			atom = a
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
	return werr.New(werr.Unavailable, "window manager did not start on %s within %s", name, timeout)
}
