//go:build linux

package atspi

import (
	"context"
	"slices"
	"strings"

	"github.com/godbus/dbus/v5"

	"github.com/w365/w365/engine/desktop"
	"github.com/w365/w365/engine/desktop/x11/xconn"
	"github.com/w365/w365/engine/proc"
	"github.com/w365/w365/engine/werr"
)

const (
	registryBus  = "org.a11y.atspi.Registry"
	registryRoot = dbus.ObjectPath("/org/a11y/atspi/accessible/root")
)

// nearFrame is how far (geomDistance) a frame's extents may lie from its window's.
const nearFrame = 200

// maxFrames bounds Tree.frames: past it, the windows remembered are forgotten at once.
const maxFrames = 256

// target is the accessible frame of one X window.
type target struct {
	xid    uint32 // the X window
	frame  ref
	origin *[2]int // set when the toolkit reports window-relative extents only (GTK4)
	// gtk4: GTK 4 reports no screen positions and sets no SHOWING state below the window.
	gtk4 bool
	// shifted: extents are read in window coordinates and shifted by the window's origin.
	shifted bool
	// busOnly: the application is read through the bus daemon, never peer to peer (GTK 2:
	// docs/accessibility.md#speed).
	busOnly bool
	// qt: Qt calls a hidden widget SHOWING and places it at the screen's corner with no
	// size (hiddenQt).
	qt bool
	// pid: the window's process, 0 when unknown.
	pid uint32
}

// window finds the accessible frame of X window id (0: the active window):
// its process (xconn.Owners) -> the AT-SPI application owned by that process
// (GetConnectionUnixProcessID) -> its frame by title, then by geometry. Chromium never
// sets the ACTIVE state, so the state is only a tie-breaker. A frame found before for the
// same X window is taken again (cached says so); origin follows the window's position now.
func (t *Tree) window(ctx context.Context, conn *dbus.Conn, id uint32) (tg target, cached bool, err error) {
	xw, err := xWindowInfo(t.display, id)
	if err != nil {
		return target{}, false, err
	}
	t.mu.Lock()
	tg, cached = t.frames[xw.id]
	t.mu.Unlock()
	if !cached {
		if tg, err = t.lookup(ctx, conn, xw); err != nil {
			return target{}, false, desktop.UnansweredBy(err, int(xw.pid))
		}
		t.mu.Lock()
		if t.frames == nil || len(t.frames) >= maxFrames {
			t.frames = map[uint32]target{}
		}
		t.frames[xw.id] = tg
		t.mu.Unlock()
	}
	if tg.shifted {
		tg.origin = &[2]int{xw.x, xw.y}
	}
	tg.pid = xw.pid
	return tg, cached, nil
}

// app is one application registered with the accessibility bus.
type app struct {
	root ref
	pid  uint32 // the process owning its bus name
}

// apps lists the applications registered with the registry, with their processes.
func apps(ctx context.Context, conn *dbus.Conn, display string) ([]app, error) {
	var roots []objRef
	b := &batch{conn: conn}
	b.add(ref{registryBus, registryRoot}, ifAccessible+".GetChildren", []any{&roots})
	if err := b.run(ctx); err != nil {
		return nil, err
	}
	out := make([]app, len(roots))
	b = &batch{conn: conn}
	for i, a := range roots {
		out[i].root = ref{a.Bus, a.Path}
		b.add(ref{"org.freedesktop.DBus", "/org/freedesktop/DBus"}, "org.freedesktop.DBus.GetConnectionUnixProcessID", []any{&out[i].pid}, a.Bus)
	}
	if err := b.run(ctx); err != nil {
		return nil, err
	}
	// The bus records a PID in the session's PID namespace; the X server's, as Owners
	// gives it, and the host's tools are the host's.
	for i := range out {
		out[i].pid = uint32(xconn.HostPID(display, int(out[i].pid)))
	}
	return out, nil
}

// lookup finds the accessible frame of the X window xw describes.
func (t *Tree) lookup(ctx context.Context, conn *dbus.Conn, xw xwin) (target, error) {
	all, err := apps(ctx, conn, t.display)
	if err != nil {
		return target{}, err
	}
	var cands []ref
	for _, a := range all {
		if xw.pid != 0 && a.pid == xw.pid {
			cands = append(cands, a.root)
		}
	}
	byPID := len(cands) > 0
	// other[i]: the bus names the process of cands[i], and it is not the window's. A frame of
	// such an application ranks after those of the same title of any application the bus
	// names no process of: a program started on a virtual session's display from the host
	// has a window of known process (_NET_WM_PID) and an application of none
	// (docs/accessibility.md#started-from-the-host), and a twin in the session is another's.
	var other []bool
	if !byPID {
		for _, a := range all {
			cands = append(cands, a.root)
			other = append(other, xw.pid != 0 && a.pid != 0)
		}
	}
	if len(cands) == 0 {
		return target{}, notAccessible(xw)
	}
	w := &walker{conn: conn}
	appInfo, err := w.info(ctx, cands, true)
	if err != nil {
		return target{}, err
	}
	kits, err := toolkits(ctx, conn, cands)
	if err != nil {
		return target{}, err
	}
	// A frame of a GTK 4 application need only be VISIBLE (walker.visible): GTK 4 (4.8) never
	// sets SHOWING on a dialog (gnome-text-editor's Save As), whose title would otherwise find
	// the main window, read at the dialog's origin.
	var frames []ref
	var frameKit []toolkit
	var frameOther []bool
	for i, a := range appInfo {
		frames = append(frames, a.children...)
		for range a.children {
			frameKit = append(frameKit, kits[i])
			frameOther = append(frameOther, other != nil && other[i])
		}
	}
	infos, err := w.info(ctx, frames, false)
	if err != nil {
		return target{}, err
	}
	var shown []*raw
	kitOf := map[*raw]toolkit{}
	otherOf := map[*raw]bool{}
	for i := range infos {
		if (&walker{gtk4: frameKit[i].gtk4()}).visible(&infos[i]) {
			shown = append(shown, &infos[i])
			kitOf[&infos[i]], otherOf[&infos[i]] = frameKit[i], frameOther[i]
		}
	}
	if _, err := w.details(ctx, shown, false); err != nil {
		return target{}, err
	}
	// A frame's title counts only while its extents agree with the window's, when any frame's
	// do: GTK 3 names a message dialog's frame by its kind ("Question"), and a dialog that
	// carries its window's title (xfce4-taskmanager's Terminate) would otherwise be read as
	// the window.
	dist := make([]int, len(shown))
	for i, f := range shown {
		dist[i] = geomDistance(f, xw, kitOf[f].gtk4())
	}
	near := slices.ContainsFunc(dist, func(d int) bool { return d <= nearFrame })
	best, bestScore := (*raw)(nil), 1<<30
	for i, f := range shown {
		d := dist[i]
		s := d
		titled := xw.title != "" && strings.TrimSpace(f.name) == strings.TrimSpace(xw.title) && (!near || d <= nearFrame)
		if titled {
			s -= 1 << 20
		}
		if f.state(stateActive) {
			s -= 10
		}
		if otherOf[f] {
			s += 1 << 19
		}
		if !byPID && !titled && d > nearFrame {
			continue
		}
		if s < bestScore {
			best, bestScore = f, s
		}
	}
	if best == nil {
		return target{}, notAccessible(xw)
	}
	tg := target{xid: xw.id, frame: best.ref}
	kit := kitOf[best]
	tg.gtk4 = kit.gtk4()
	tg.busOnly = kit.name == "GAIL"
	tg.qt = kit.name == "Qt"
	if tg.gtk4 || (best.hasBox && best.x == 0 && best.y == 0 && (xw.x != 0 || xw.y != 0)) {
		// GTK4 (and any toolkit whose window claims to sit at the screen's corner
		// when it does not) knows no screen positions: read window coordinates and
		// add the window's origin.
		tg.shifted = true
	}
	return tg, nil
}

// toolkit is what an application says of its toolkit (org.a11y.atspi.Application).
type toolkit struct{ name, version string }

func (k toolkit) gtk4() bool { return k.name == "GTK" && strings.HasPrefix(k.version, "4.") }

// toolkits reads the toolkit of each application whose root is in roots, in one batch.
func toolkits(ctx context.Context, conn *dbus.Conn, roots []ref) ([]toolkit, error) {
	names := make([]dbus.Variant, len(roots))
	versions := make([]dbus.Variant, len(roots))
	b := &batch{conn: conn}
	for i, r := range roots {
		b.add(ref{r.bus, registryRoot}, ifProps+".Get", []any{&names[i]}, "org.a11y.atspi.Application", "ToolkitName")
		b.add(ref{r.bus, registryRoot}, ifProps+".Get", []any{&versions[i]}, "org.a11y.atspi.Application", "Version")
	}
	if err := b.run(ctx); err != nil {
		return nil, err
	}
	out := make([]toolkit, len(roots))
	for i := range roots {
		out[i].name, _ = names[i].Value().(string)
		out[i].version, _ = versions[i].Value().(string)
	}
	return out, nil
}

// geomDistance is how far a frame's extents are from the X window's client area
// (window frames may or may not include the decorations). A frame that knows no screen
// position (GTK 4's, gtk4, and any that claims the screen's corner when the window is not
// there: lookup's shifted) is compared by its size alone: a GTK 4 window started outside
// the session, whose process the session's buses cannot name, is told by it.
func geomDistance(f *raw, xw xwin, gtk4 bool) int {
	if !f.hasBox {
		return 1 << 16
	}
	d := abs(f.w-xw.width) + abs(f.h-xw.height)
	if gtk4 || (f.x == 0 && f.y == 0 && (xw.x != 0 || xw.y != 0)) {
		return d
	}
	return d + abs(f.x-xw.x) + abs(f.y-xw.y)
}

func abs(v int) int {
	if v < 0 {
		return -v
	}
	return v
}

// notAccessible is the error for window xw, which no accessible frame is; an Xt program's window
// is read through Editres instead (xtWalk).
func notAccessible(xw xwin) error {
	if xw.pid != 0 && proc.Bridged(int(xw.pid)) {
		// A toolkit with its bridge loaded registers (GTK at gtk_init): on a loaded machine
		// a GTK 4 window showed for more than 2 s before its application had.
		return werr.Wrap(&noFrame{xw}, werr.NotFound, "window 0x%x (%q) exposes no accessibility tree yet: its application has loaded its accessibility bridge but not registered", xw.id, xw.title).
			WithRetryable(true).WithHint("it is starting (a loaded machine makes it slow): call again")
	}
	return werr.Wrap(&noFrame{xw}, werr.NotFound, "window 0x%x (%q) exposes no accessibility tree", xw.id, xw.title).
		WithHint("read it with analyze_screen: FOX, FLTK and Tk applications expose none; a GTK or Qt one started outside w365 needs accessibility enabled (GTK_MODULES, ACCESSIBILITY_ENABLED=1, QT_LINUX_ACCESSIBILITY_ALWAYS_ON=1)")
}
