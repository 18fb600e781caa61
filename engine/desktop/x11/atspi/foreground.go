//go:build linux

package atspi

import (
	"context"
	"strings"

	"github.com/godbus/dbus/v5"

	"github.com/w365/w365/engine/werr"
)

const (
	registryBus  = "org.a11y.atspi.Registry"
	registryRoot = dbus.ObjectPath("/org/a11y/atspi/accessible/root")
)

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
			return target{}, false, err
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
func apps(ctx context.Context, conn *dbus.Conn) ([]app, error) {
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
	return out, nil
}

// lookup finds the accessible frame of the X window xw describes.
func (t *Tree) lookup(ctx context.Context, conn *dbus.Conn, xw xwin) (target, error) {
	all, err := apps(ctx, conn)
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
	if !byPID {
		for _, a := range all {
			cands = append(cands, a.root)
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
	var frames []ref
	for _, a := range appInfo {
		frames = append(frames, a.children...)
	}
	infos, err := w.info(ctx, frames, false)
	if err != nil {
		return target{}, err
	}
	var shown []*raw
	for i := range infos {
		if w.visible(&infos[i]) {
			shown = append(shown, &infos[i])
		}
	}
	if _, err := w.details(ctx, shown, false); err != nil {
		return target{}, err
	}
	best, bestScore := (*raw)(nil), 1<<30
	for _, f := range shown {
		s := geomDistance(f, xw)
		titled := xw.title != "" && strings.TrimSpace(f.name) == strings.TrimSpace(xw.title)
		if titled {
			s -= 1 << 20
		}
		if f.state(stateActive) {
			s -= 10
		}
		if !byPID && !titled && geomDistance(f, xw) > 200 {
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
	var toolkit, version dbus.Variant
	b := &batch{conn: conn}
	b.add(ref{best.ref.bus, registryRoot}, ifProps+".Get", []any{&toolkit}, "org.a11y.atspi.Application", "ToolkitName")
	b.add(ref{best.ref.bus, registryRoot}, ifProps+".Get", []any{&version}, "org.a11y.atspi.Application", "Version")
	if err := b.run(ctx); err != nil {
		return target{}, err
	}
	tk, _ := toolkit.Value().(string)
	ver, _ := version.Value().(string)
	tg.gtk4 = tk == "GTK" && strings.HasPrefix(ver, "4.")
	tg.busOnly = tk == "GAIL"
	tg.qt = tk == "Qt"
	if tg.gtk4 || (best.hasBox && best.x == 0 && best.y == 0 && (xw.x != 0 || xw.y != 0)) {
		// GTK4 (and any toolkit whose window claims to sit at the screen's corner
		// when it does not) knows no screen positions: read window coordinates and
		// add the window's origin.
		tg.shifted = true
	}
	return tg, nil
}

// geomDistance is how far a frame's extents are from the X window's client area
// (window frames may or may not include the decorations).
func geomDistance(f *raw, xw xwin) int {
	if !f.hasBox {
		return 1 << 16
	}
	return abs(f.x-xw.x) + abs(f.y-xw.y) + abs(f.w-xw.width) + abs(f.h-xw.height)
}

func abs(v int) int {
	if v < 0 {
		return -v
	}
	return v
}

func notAccessible(xw xwin) error {
	return werr.New(werr.NotFound, "window 0x%x (%q) exposes no accessibility tree", xw.id, xw.title).
		WithHint("the application must start with accessibility enabled (GTK_MODULES, ACCESSIBILITY_ENABLED=1, QT_LINUX_ACCESSIBILITY_ALWAYS_ON=1); use analyze_screen instead")
}
