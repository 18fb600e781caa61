//go:build linux

// Package display owns an X desktop for a session: either the user's own display, or an
// embedded virtual desktop (Xvfb + a window manager + a session D-Bus with the
// accessibility bus) that it starts and stops. It is X11, so Linux only.
package display

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/godbus/dbus/v5"
	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"
	"golang.org/x/sys/unix"

	"github.com/w365/w365/engine/child"
	"github.com/w365/w365/engine/desktop"
	"github.com/w365/w365/engine/desktop/x11/xconn"
	"github.com/w365/w365/engine/sandbox"
	"github.com/w365/w365/engine/tmpdir"
	"github.com/w365/w365/engine/werr"
)

// Desktop is one X display with the environment that programs on it need.
type Desktop struct {
	// Name is the X display name, e.g. ":7".
	Name string
	// Virtual says whether w365 started (and will stop) this display.
	Virtual bool
	// Env holds DISPLAY, XAUTHORITY (a virtual desktop's), DBUS_SESSION_BUS_ADDRESS and the
	// variables that switch accessibility on in GTK, Qt and Chromium.
	Env []string

	procs    []*proc     // started by us, stopped in reverse order; procs[0] is the X server
	cookie   []byte      // the X server's MIT-MAGIC-COOKIE-1
	authDir  string      // private directory: the Xauthority file, the X socket, the buses' runtime files
	priv     *tmpdir.Dir // authDir, held while the desktop runs
	reserved []string    // the display number's lock file and socket link in /tmp (reserveDisplay)
	abstract int         // the socket that holds the display's abstract address on the host (reserveDisplay)
	stopping atomic.Bool
	// ns are the session's namespaces, which every program of the desktop enters
	// (docs/security.md#one-set-per-session), and its cgroup, which every program of the
	// desktop joins; closed last in Stop, once the programs have stopped in their order.
	ns *sandbox.Namespaces
}

// proc is one process of a virtual desktop. A goroutine waits for it from the start, so it is
// reaped the moment it exits (no zombie) and Err can tell that it did.
type proc struct {
	cmd     *exec.Cmd // bubblewrap, which runs the program in its confinement
	name    string
	program int // the program's PID (bubblewrap's child), once it is ready
	pidfd   int // a pidfd of the program once it is ready, else -1
	done    chan struct{}
	err     error  // Wait's error, once done is closed
	cleanup func() // after it is gone (sandbox.ConfineDesktop's done)
	// stderr is the end of what it (the sandbox helper, nsenter, bubblewrap, the program)
	// wrote on stderr: why a program that did not start did not.
	stderr child.Tail
}

// failed is the error of p, which did not start: what went wrong (cause) and the last
// thing it said, waiting a moment for it to be said.
func (p *proc) failed(cause error, format string, args ...any) error {
	select {
	case <-p.done:
	case <-time.After(time.Second):
	}
	e := werr.Wrap(cause, werr.Unavailable, format, args...)
	// Its last line that says something: the X server ends its message with a line
	// holding only its error mark, (EE).
	lines := strings.Split(strings.TrimSpace(strings.ReplaceAll(p.stderr.String(), "(EE)", "")), "\n")
	if said := strings.TrimSpace(lines[len(lines)-1]); said != "" {
		return e.WithDetail("stderr", said).WithHint("%s said: %s", p.name, said)
	}
	return e.WithHint("%s: %v", p.name, cause)
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
	auth, err := d.writeAuthority()
	if err != nil {
		return nil, werr.Wrap(err, werr.Unavailable, "cannot write the X authority file")
	}
	if d.ns, err = sandbox.StartNamespaces(d.authDir); err != nil {
		return nil, err
	}

	num, err := d.reserveDisplay(1)
	if err != nil {
		return nil, err
	}
	// -displayfd: Xvfb writes the display number once it accepts clients. It listens on no
	// abstract address (-nolisten local): the host and the desktop's programs reach it by
	// the socket file in the private directory (reserveDisplay).
	r, w, err := os.Pipe()
	if err != nil {
		return nil, werr.Wrap(err, werr.Internal, "cannot create pipe")
	}
	x := exec.Command(xvfb, ":"+strconv.Itoa(num), "-displayfd", "3", "-auth", auth, "-screen", "0",
		fmt.Sprintf("%dx%dx%d", o.Width, o.Height, o.Depth), "-nolisten", "tcp", "-nolisten", "local", "+extension", "RANDR")
	x.Env = []string{"PATH=/usr/bin:/bin"}
	x.ExtraFiles = []*os.File{w}
	err = d.startConfined(x, "Xvfb", sandbox.DesktopOptions{})
	w.Close()
	if err != nil {
		r.Close()
		return nil, werr.Wrap(err, werr.Unavailable, "cannot start Xvfb")
	}
	d.Name = ":" + strconv.Itoa(num)
	d.Env = []string{"DISPLAY=" + d.Name, "XAUTHORITY=" + auth}
	// The session bus starts while the X server does: it needs the display only once
	// at-spi-bus-launcher is activated (startAccessibility). So does the window manager's
	// confinement, its program held until the X server accepts clients.
	busReady, busErr := d.startDBus()
	var wmGo *os.File
	if wm, err := exec.LookPath(o.WindowManager); err == nil {
		g, err := d.startWM(wm, o.WindowManager)
		if err != nil {
			return nil, err
		}
		wmGo = g
		defer wmGo.Close()
	}
	_, err = readLine(ctx, r, 10*time.Second)
	r.Close()
	if err != nil {
		return nil, d.procs[0].failed(err, "Xvfb did not start")
	}
	if err := d.ready(d.procs[0]); err != nil {
		return nil, err
	}
	xconn.Register(d.Name, xconn.Server{PID: d.procs[0].program, Cookie: d.cookie, Err: d.Err, HostPID: d.ns.HostPID})
	if wmGo != nil {
		if _, err := wmGo.Write([]byte{1}); err != nil {
			return nil, werr.Wrap(err, werr.Unavailable, "cannot start window manager %s", o.WindowManager)
		}
	}

	addr, err := "", busErr
	if err == nil {
		addr, err = busReady(ctx)
	}
	if err == nil {
		d.Env = append(d.Env, "DBUS_SESSION_BUS_ADDRESS="+addr)
	} else {
		// Without a session bus there is no accessibility tree, but input and capture work.
		fmt.Fprintf(os.Stderr, "w365: no session D-Bus for %s: %v\n", d.Name, err)
	}
	d.Env = append(d.Env, a11yEnv...)

	if wmGo != nil {
		if err := d.waitForWM(ctx, 10*time.Second); err != nil {
			return nil, d.procs[len(d.procs)-1].failed(err, "%v", err)
		}
		if err := d.ready(d.procs[len(d.procs)-1]); err != nil {
			return nil, err
		}
	} else {
		fmt.Fprintf(os.Stderr, "w365: window manager %s not found; windows cannot be moved or focused by title\n", o.WindowManager)
	}
	// After the window manager: an X server without clients resets, which would drop the
	// root window property startAccessibility sets.
	if addr != "" {
		if err := startAccessibility(ctx, d.Name, addr); err != nil {
			fmt.Fprintf(os.Stderr, "w365: no accessibility bus on %s: %v\n", d.Name, err)
		}
	}
	ok = true
	return d, nil
}

// busPolicy is what both buses of a virtual desktop allow: every message, to and from
// anyone on them, as a desktop's session bus does.
const busPolicy = `<policy context="default"><allow send_destination="*" eavesdrop="true"/><allow eavesdrop="true"/><allow own="*"/></policy>
`

// busAuth admits a client by EXTERNAL (the host's programs) or ANONYMOUS: a client in
// another user namespace may claim a uid that is not the one the bus sees (on a root host
// the host's root, which the bus's namespace does not map), so EXTERNAL refuses it. Who
// reaches the bus's socket is decided by the desktop's private directory it lies in
// (docs/security.md#confinement).
const busAuth = "<auth>EXTERNAL</auth><auth>ANONYMOUS</auth><allow_anonymous/>\n"

// sessionServices are the only services the session bus of a virtual desktop starts: the
// accessibility bus and the settings writer of GTK's applications. What it starts runs in
// the desktop's confinement: any other of the system's session services (HexChat, whose
// D-Bus interface runs any command it is given; a text editor; an archive manager) would
// run around the launch allowlist (docs/security.md#confinement).
var sessionServices = []string{"org.a11y.Bus", "ca.desrt.dconf"}

// a11yServices are the only services the accessibility bus starts: its registry.
var a11yServices = []string{"org.a11y.atspi.Registry"}

// systemServiceDirs are where the system declares its session services, in the order looked in.
var systemServiceDirs = []string{"/usr/local/share/dbus-1/services", "/usr/share/dbus-1/services"}

// writeServices makes dir hold the system's service file of each of names that the system
// declares (in one of from, under the name it serves), and nothing else: dir is then a bus's
// one service directory, so that the bus starts only those.
func writeServices(dir string, from, names []string) error {
	if err := os.Mkdir(dir, 0o700); err != nil {
		return err
	}
	for _, name := range names {
		for _, d := range from {
			b, err := os.ReadFile(filepath.Join(d, name+".service"))
			if err != nil || !slices.Contains(strings.Split(string(b), "\n"), "Name="+name) {
				continue
			}
			if err := os.WriteFile(filepath.Join(dir, name+".service"), b, 0o600); err != nil {
				return err
			}
			break
		}
	}
	return nil
}

// sessionBusConfig is the session bus of a virtual desktop (dbus-daemon --session's,
// with busAuth), listening in dir, starting only what services holds (writeServices): not
// the standard session directories, which include $XDG_RUNTIME_DIR/dbus-1/services, the
// desktop's private directory, nor the system's, whose every service a client could ask for.
func sessionBusConfig(dir, services string) string {
	return "<busconfig><type>session</type><keep_umask/>\n" +
		"<servicedir>" + services + "</servicedir>\n" +
		"<listen>unix:dir=" + dir + "</listen>\n" + busAuth + busPolicy + "</busconfig>\n"
}

// a11yBusConfig is the accessibility bus at-spi-bus-launcher starts (at-spi2-core's
// accessibility.conf, with busAuth): its registry activated (from services, as
// writeServices made it), its limits large enough for a browser's tree, and its messages
// no larger than the host reads (16 MiB, atspi's maxMessage: docs/security.md#what-the-host-reads-from-a-session).
func a11yBusConfig(dir, services string) string {
	c := "<busconfig><type>accessibility</type><servicedir>" + services + "</servicedir>\n" +
		"<listen>unix:dir=" + dir + "</listen>\n" + busAuth + busPolicy
	for _, l := range []string{"max_incoming_bytes 1000000000", "max_outgoing_bytes 1000000000", "max_message_size 16777216",
		"service_start_timeout 120000", "auth_timeout 240000", "max_completed_connections 100000", "max_incomplete_connections 10000",
		"max_connections_per_user 100000", "max_pending_service_starts 10000", "max_names_per_connection 50000",
		"max_match_rules_per_connection 50000", "max_replies_per_connection 50000", "reply_timeout 300000"} {
		name, v, _ := strings.Cut(l, " ")
		c += `<limit name="` + name + `">` + v + "</limit>\n"
	}
	return c + "</busconfig>\n"
}

// a11yConfigPaths are where at-spi-bus-launcher reads its bus's configuration, the first
// that exists; it takes no other.
var a11yConfigPaths = []string{"/etc/at-spi2/accessibility.conf", "/usr/share/defaults/at-spi2/accessibility.conf"}

// busCommand is the session bus of the desktop: dbus-daemon with sessionBusConfig, confined
// (startConfined) with a11yBusConfig laid over at-spi-bus-launcher's configuration, for the
// accessibility bus it activates. binds are those of its confinement.
func (d *Desktop) busCommand() (*exec.Cmd, [][2]string, error) {
	bin, err := exec.LookPath("dbus-daemon")
	if err != nil {
		return nil, nil, err
	}
	session, a11y := filepath.Join(d.confDir(), "session.conf"), filepath.Join(d.confDir(), "accessibility.conf")
	services, a11yServiceDir := filepath.Join(d.confDir(), "services"), filepath.Join(d.confDir(), "a11y-services")
	if err := writeServices(services, systemServiceDirs, sessionServices); err != nil {
		return nil, nil, err
	}
	if err := writeServices(a11yServiceDir, []string{"/usr/share/dbus-1/accessibility-services"}, a11yServices); err != nil {
		return nil, nil, err
	}
	if err := os.WriteFile(session, []byte(sessionBusConfig(d.authDir, services)), 0o600); err != nil {
		return nil, nil, err
	}
	if err := os.WriteFile(a11y, []byte(a11yBusConfig(d.authDir, a11yServiceDir)), 0o600); err != nil {
		return nil, nil, err
	}
	var binds [][2]string
	for _, p := range a11yConfigPaths {
		if _, err := os.Stat(p); err == nil {
			binds = append(binds, [2]string{a11y, p})
		}
	}
	// Its fd 3 takes the bus address.
	return exec.Command(bin, "--config-file="+session, "--nofork", "--nosyslog", "--print-address=3"), binds, nil
}

// startWM sets up the confinement of the window manager wm (its name, as the options
// give it); the program starts once something is written to the returned pipe.
func (d *Desktop) startWM(wm, name string) (*os.File, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, werr.Wrap(err, werr.Internal, "cannot create pipe")
	}
	defer r.Close()
	c := exec.Command(wm)
	c.Env = d.programEnv()
	if name == "openbox" {
		c.Args = append(c.Args, "--sm-disable")
		// Its configuration and menus from the desktop's configuration directory only.
		if err := writeOpenboxConfig(filepath.Join(d.confDir(), "openbox")); err != nil {
			return nil, werr.Wrap(err, werr.Internal, "cannot write the window manager's configuration")
		}
		c.Env = append(c.Env, "XDG_CONFIG_HOME="+d.confDir(), "XDG_CONFIG_DIRS="+d.confDir())
	}
	c.ExtraFiles = []*os.File{r}
	if err := d.startConfined(c, name, sandbox.DesktopOptions{BlockFD: 3}); err != nil {
		w.Close()
		return nil, werr.Wrap(err, werr.Unavailable, "cannot start window manager %s", name)
	}
	return w, nil
}

// startDBus starts the session bus; the returned function waits until it is ready and
// gives its address.
func (d *Desktop) startDBus() (func(context.Context) (string, error), error) {
	// The session bus and the accessibility bus it starts (at-spi-bus-launcher puts its
	// socket in XDG_RUNTIME_DIR) live in the desktop's private directory, next to the X
	// authority: the one directory a confined program of the session is shown.
	c, binds, err := d.busCommand()
	if err != nil {
		return nil, err
	}
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	c.ExtraFiles = []*os.File{w}
	// What the bus starts on demand (at-spi-bus-launcher, the accessibility registry) keeps
	// its sockets in XDG_RUNTIME_DIR, else in ~/.cache/at-spi/bus_<display number>, which a
	// stale launcher of an earlier desktop with the same number unlinks when it exits: the
	// desktop's private directory keeps them apart.
	c.Env = append(d.programEnv(), "XDG_RUNTIME_DIR="+d.authDir)
	err = d.startConfined(c, busName, sandbox.DesktopOptions{Binds: binds})
	w.Close()
	if err != nil {
		r.Close()
		return nil, err
	}
	p := d.procs[len(d.procs)-1]
	return func(ctx context.Context) (string, error) {
		addr, err := readLine(ctx, r, 10*time.Second)
		r.Close()
		if err != nil {
			return "", p.failed(err, "the session bus did not start")
		}
		return strings.TrimSpace(addr), d.ready(p)
	}, nil
}

// startAccessibility sets org.a11y.Status.IsEnabled so that toolkits that ask the bus
// (Chromium among them) expose their trees, and starts the accessibility bus and its
// registry now (D-Bus activation: at-spi-bus-launcher on the session bus, at-spi2-registryd
// on the accessibility bus), waiting until the registry answers: a Qt application
// registers only at its own start, so the first application of a fresh desktop would
// otherwise find no bus and never show a tree. Failures are reported, not fatal: input and
// capture work without accessibility.
//
// The accessibility bus's address also goes on the root window (AT_SPI_BUS, as a full
// desktop's launcher puts it): Qt 5 reads it there at its start and connects at once,
// where the session bus's answer comes too late for its first registration when the bus
// is already running (Qt then never registers).
func startAccessibility(ctx context.Context, display, addr string) error {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	conn, err := dbus.Connect(addr, dbus.WithContext(ctx))
	if err != nil {
		return err
	}
	defer conn.Close()
	obj := conn.Object("org.a11y.Bus", "/org/a11y/bus")
	if err := obj.CallWithContext(ctx, "org.freedesktop.DBus.Properties.Set", 0, "org.a11y.Status", "IsEnabled", dbus.MakeVariant(true)).Err; err != nil {
		return fmt.Errorf("enable accessibility: %w", err)
	}
	var a11y string
	if err := obj.CallWithContext(ctx, "org.a11y.Bus.GetAddress", 0).Store(&a11y); err != nil {
		return fmt.Errorf("start the accessibility bus: %w", err)
	}
	if err := setRootString(display, "AT_SPI_BUS", a11y); err != nil {
		return fmt.Errorf("publish the accessibility bus on the root window: %w", err)
	}
	bus, err := dbus.Connect(a11y, dbus.WithContext(ctx))
	if err != nil {
		return fmt.Errorf("connect to the accessibility bus: %w", err)
	}
	defer bus.Close()
	// A registry started while the machine is busy has been seen to exit before its first
	// answer ("disconnected without replying"); activation starts another.
	for {
		var apps []struct {
			Bus  string
			Path dbus.ObjectPath
		}
		err = bus.Object("org.a11y.atspi.Registry", "/org/a11y/atspi/accessible/root").
			CallWithContext(ctx, "org.a11y.atspi.Accessible.GetChildren", 0).Store(&apps)
		if err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("start the accessibility registry: %w", err)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// setRootString sets the root window's property name to the string v.
func setRootString(display, name, v string) error {
	c, err := xconn.Connect(display)
	if err != nil {
		return err
	}
	defer c.Close()
	a, err := xproto.InternAtom(c, false, uint16(len(name)), name).Reply()
	if err != nil {
		return err
	}
	root := xproto.Setup(c).DefaultScreen(c).Root
	return xproto.ChangePropertyChecked(c, xproto.PropModeReplace, root, a.Atom, xproto.AtomString, 8, uint32(len(v)), []byte(v)).Check()
}

// startConfined starts c as one of the desktop's processes, confined
// (sandbox.ConfineDesktop with o: the private directory read-write, its X socket directory
// at /tmp/.X11-unix), reaped as soon as it exits.
func (d *Desktop) startConfined(c *exec.Cmd, name string, o sandbox.DesktopOptions) error {
	o.Dir = d.authDir
	o.Binds = append(o.Binds, [2]string{d.socketDir(), "/tmp/.X11-unix"})
	release, done, err := sandbox.ConfineDesktop(c, o)
	if err != nil {
		return err
	}
	p := &proc{cmd: c, name: name, pidfd: -1, done: make(chan struct{}), cleanup: done}
	// A pipe of our own, not an io.Writer: Wait would wait for every process that
	// inherited it (what a bus starts) to close it. Its reader ends with the last of them.
	r, w, err := os.Pipe()
	if err != nil {
		release()
		done()
		return err
	}
	c.Stderr = w
	err = child.Start(c)
	release()
	w.Close()
	if err != nil {
		r.Close()
		done()
		return err
	}
	go func() {
		io.Copy(&p.stderr, r)
		r.Close()
	}()
	go func() {
		p.err = c.Wait()
		close(p.done)
	}()
	d.procs = append(d.procs, p)
	return nil
}

// ready records which process p's program is, once it is ready: bubblewrap's child (it
// runs it without a PID namespace of its own, so it is the program itself), bubblewrap
// being the child of nsenter, which entered the session's namespaces.
func (d *Desktop) ready(p *proc) error {
	child := func() int { return firstChild(firstChild(p.cmd.Process.Pid)) }
	if p.program = child(); p.program <= 0 {
		return werr.New(werr.Unavailable, "%s of desktop %s is not running in its confinement (bubblewrap pid %d)", p.name, d.Name, p.cmd.Process.Pid)
	}
	// Still bubblewrap's child once the pidfd is open: the pidfd is the program's.
	if fd, err := unix.PidfdOpen(p.program, 0); err == nil {
		if child() == p.program {
			p.pidfd = fd
		} else {
			unix.Close(fd)
		}
	}
	return nil
}

// exited says whether p's bubblewrap, or the program in it, has exited. The program is
// bubblewrap's child, which reaps it at once: only its pidfd tells that it is gone before
// bubblewrap itself is (its PID may be another process's by then).
func (p *proc) exited() bool {
	select {
	case <-p.done:
		return true
	default:
	}
	if p.pidfd < 0 {
		return false
	}
	n, _ := unix.Poll([]unix.PollFd{{Fd: int32(p.pidfd), Events: unix.POLLIN}}, 0)
	return n > 0
}

// programEnv is the environment of the desktop's own programs: its variables, PATH and
// the locale.
func (d *Desktop) programEnv() []string {
	env := append([]string(nil), d.Env...)
	for _, k := range []string{"PATH", "LANG", "LC_ALL", "LC_CTYPE"} {
		if v, ok := os.LookupEnv(k); ok {
			env = append(env, k+"="+v)
		}
	}
	return env
}

// Err is nil while every process of a virtual desktop runs, and says which one exited once
// one did (a desktop without its X server or window manager is broken: it is not restarted
// in place, so that nothing talks to whatever takes its display next). An existing display,
// which w365 did not start, always reports nil.
func (d *Desktop) Err() error {
	if d.stopping.Load() {
		return werr.New(werr.SessionExpired, "the desktop %s was stopped", d.Name)
	}
	gone := slices.IndexFunc(d.procs, (*proc).exited)
	if gone < 0 {
		return nil
	}
	// The window manager exits when its X server dies, and may be reaped first: an earlier
	// process (the X server) that has exited is the cause, whether it is not reaped yet or
	// reaped a moment before its reaper marks it done.
	for _, p := range d.procs[:gone] {
		if zombie(p.cmd.Process.Pid) || syscall.Kill(p.cmd.Process.Pid, 0) == syscall.ESRCH {
			return werr.New(werr.SessionExpired, "%s of desktop %s (pid %d) is gone", p.name, d.Name, p.cmd.Process.Pid)
		}
	}
	p := d.procs[gone]
	how := "exited"
	if p.err != nil {
		how = p.err.Error()
	}
	return werr.New(werr.SessionExpired, "%s of desktop %s (pid %d) is gone: %s", p.name, d.Name, p.cmd.Process.Pid, how)
}

// zombie says whether pid has exited and waits to be reaped.
func zombie(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	i := bytes.LastIndexByte(b, ')')
	return i > 0 && len(b) > i+2 && b[i+2] == 'Z'
}

// busName names the session bus among a desktop's processes.
const busName = "dbus-daemon"

// PIDs lists the processes that make up this desktop in the order they started, each
// program after the bubblewrap that confines it (X server, session bus, window manager).
func (d *Desktop) PIDs() []int {
	var pids []int
	for _, p := range d.procs {
		pids = append(pids, p.cmd.Process.Pid)
		if p.program > 0 {
			pids = append(pids, p.program)
		}
	}
	return pids
}

// writeAuthority makes the X server's cookie and writes it, as an Xauthority file for any
// display (family Wild, no display number: the number is known only once Xvfb picked it), in
// a directory of its own that only this user may enter. The X server reads it with -auth;
// programs on the desktop get it through XAUTHORITY. Without the cookie, other local users
// (and a sandbox, which sees neither the file nor, by default, the X socket) cannot connect.
func (d *Desktop) writeAuthority() (string, error) {
	d.cookie = make([]byte, 16)
	rand.Read(d.cookie)
	priv, err := tmpdir.Make("", tmpdir.Desktop)
	if err != nil {
		return "", err
	}
	d.priv, d.authDir = priv, priv.Path
	dir := priv.Path
	if err := os.Mkdir(d.confDir(), 0o700); err != nil {
		return "", err
	}
	var b []byte
	field := func(v []byte) {
		b = binary.BigEndian.AppendUint16(b, uint16(len(v)))
		b = append(b, v...)
	}
	b = binary.BigEndian.AppendUint16(b, 0xffff) // FamilyWild
	field(nil)                                   // address
	field(nil)                                   // display number
	field([]byte("MIT-MAGIC-COOKIE-1"))
	field(d.cookie)
	file := filepath.Join(dir, "Xauthority")
	return file, os.WriteFile(file, b, 0o600)
}

// Command prepares a program to run on this desktop, with its environment.
func (d *Desktop) Command(name string, args ...string) *exec.Cmd {
	c := exec.Command(name, args...)
	if d.ns != nil {
		// In the session's PID namespace, where the X server and the buses see its PID.
		if path, err := exec.LookPath(name); err == nil {
			enter := d.ns.EnterCommand()
			c = exec.Command(enter[0], append(append(enter[1:], path), args...)...)
		}
	}
	c.Env = d.Environ(os.Environ())
	return c
}

// ProgramPID is the PID of the program c, a started Command, runs: nsenter's child on a
// desktop with the session's namespaces, waited for at most 5 s (0 then).
func (d *Desktop) ProgramPID(c *exec.Cmd) int {
	if d.ns == nil {
		return c.Process.Pid
	}
	for range 500 {
		if pid := firstChild(c.Process.Pid); pid > 0 {
			return pid
		}
		time.Sleep(10 * time.Millisecond)
	}
	return 0
}

// firstChild is the first child of process pid (0: none, or pid is 0).
func firstChild(pid int) int {
	if pid <= 0 {
		return 0
	}
	b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/task/%d/children", pid, pid))
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return 0
	}
	n, _ := strconv.Atoi(f[0])
	return n
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

// Stop ends what StartVirtual started, newest first, and removes its X authority. It is a
// no-op for an existing display.
func (d *Desktop) Stop() {
	d.stopping.Store(true)
	if len(d.procs) > 0 {
		xconn.Unregister(d.Name, d.procs[0].program)
	}
	// Each program is asked itself, all at once: its bubblewrap then reaps it and exits, so
	// no program outlives Stop (bubblewrap's own end would leave it to die later, reparented).
	// A program is signalled through its pidfd, never by a PID that may be another's now.
	signal := func(p *proc, sig syscall.Signal) {
		select {
		case <-p.done:
		default:
			if p.pidfd >= 0 {
				unix.PidfdSendSignal(p.pidfd, sig, nil, 0)
			} else {
				p.cmd.Process.Signal(sig)
			}
		}
	}
	for i := len(d.procs) - 1; i >= 0; i-- {
		signal(d.procs[i], syscall.SIGTERM)
	}
	deadline, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	for i := len(d.procs) - 1; i >= 0; i-- {
		p := d.procs[i]
		select {
		case <-p.done:
		case <-deadline.Done():
			signal(p, syscall.SIGKILL)
			p.cmd.Process.Kill()
			<-p.done
		}
		p.cleanup()
		if p.pidfd >= 0 {
			unix.Close(p.pidfd)
		}
	}
	// Only what is still this desktop's: the socket link to its directory, then the lock.
	if len(d.reserved) == 2 {
		if t, err := os.Readlink(d.reserved[1]); err == nil && t == filepath.Join(d.socketDir(), filepath.Base(d.reserved[1])) {
			os.Remove(d.reserved[1])
		}
		os.Remove(d.reserved[0])
		unix.Close(d.abstract)
	}
	// Whatever the programs started (a service the session bus activated) ends with the
	// session's namespaces.
	if d.ns != nil {
		d.ns.Close()
	}
	d.priv.Remove()
}

// socketDir is where the X server's socket lies: /tmp/.X11-unix in its confinement.
func (d *Desktop) socketDir() string { return filepath.Join(d.authDir, "X11") }

// confDir holds what the desktop's own programs read as their configuration (the buses',
// the window manager's), which the confined programs of the session see read-only
// (sandbox.DesktopConfDir): a bus reloads its configuration when any client asks, and
// the window manager when any X client does.
func (d *Desktop) confDir() string { return filepath.Join(d.authDir, sandbox.DesktopConfDir) }

// reserveDisplay takes a display number no X server uses, for the confined X server, whose
// /tmp and network namespace are its own: in the host's network namespace its abstract
// address @/tmp/.X11-unix/X<n>, bound and never listened on (an X server looking for a free
// number tries that first and passes the number over without touching its socket path; an X
// client falls back to the path), the host's lock file (/tmp/.X<n>-lock, with this process's
// PID, as X servers write it) and, at the display's socket path, a link to the socket in the
// desktop's private directory, which only the desktop's users may enter. A number with a
// lock, a socket path or an abstract socket is taken, but for what a w365 host that died
// left there (leftover). It tries the numbers from `from` up.
func (d *Desktop) reserveDisplay(from int) (int, error) {
	if err := os.Mkdir(d.socketDir(), 0o700); err != nil {
		return 0, werr.Wrap(err, werr.Unavailable, "cannot make the X socket directory")
	}
	if _, err := os.Lstat("/tmp/.X11-unix"); os.IsNotExist(err) {
		if os.Mkdir("/tmp/.X11-unix", 0o777) == nil {
			os.Chmod("/tmp/.X11-unix", 0o1777|os.ModeSticky)
		}
	}
	for n := from; n < 10000; n++ {
		lock, sock := fmt.Sprintf("/tmp/.X%d-lock", n), fmt.Sprintf("/tmp/.X11-unix/X%d", n)
		_, err := os.Lstat(sock)
		stale := err == nil && leftover(lock, sock)
		if err == nil && !stale {
			continue
		}
		fd, err := unix.Socket(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
		if err != nil {
			return 0, werr.Wrap(err, werr.Unavailable, "cannot make a socket")
		}
		if unix.Bind(fd, &unix.SockaddrUnix{Name: "@" + sock}) != nil {
			unix.Close(fd)
			continue
		}
		if stale {
			// The number's abstract address is ours now: no live host holds it.
			os.Remove(sock)
			os.Remove(lock)
		}
		f, err := os.OpenFile(lock, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o444)
		if err != nil {
			unix.Close(fd)
			continue
		}
		_, err = fmt.Fprintf(f, "%10d\n", os.Getpid())
		f.Close()
		if err == nil {
			err = os.Symlink(filepath.Join(d.socketDir(), fmt.Sprintf("X%d", n)), sock)
		}
		if err != nil {
			os.Remove(lock)
			unix.Close(fd)
			continue
		}
		d.reserved, d.abstract = []string{lock, sock}, fd
		return n, nil
	}
	return 0, werr.New(werr.Unavailable, "no free X display number")
}

// leftover says whether the display's socket path sock is what a w365 host that died left
// there: a link into a desktop's private directory that is gone, with no lock or a lock
// whose process is gone.
func leftover(lock, sock string) bool {
	target, err := os.Readlink(sock)
	if err != nil || !strings.HasPrefix(filepath.Base(filepath.Dir(filepath.Dir(target))), "w365-xauth-") {
		return false
	}
	if _, err := os.Lstat(target); !os.IsNotExist(err) {
		return false
	}
	b, err := os.ReadFile(lock)
	if os.IsNotExist(err) {
		return true
	}
	pid, perr := strconv.Atoi(strings.TrimSpace(string(b)))
	return err == nil && perr == nil && pid > 0 && syscall.Kill(pid, 0) == syscall.ESRCH
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
func (d *Desktop) waitForWM(ctx context.Context, timeout time.Duration) error {
	name := d.Name
	// The server accepts clients once it wrote its display number, but a loaded
	// machine has been seen refusing the very first connection: retry briefly.
	var conn *xgb.Conn
	var err error
	for i := 0; i < 20; i++ {
		if conn, err = xconn.Connect(name); err == nil {
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
