//go:build linux

// Package window lists, focuses, closes, moves and resizes the top-level windows of one X
// display through EWMH (the window manager's protocol) over its own X connection. A host
// serves several displays at once, so all state lives in a Manager bound to one display.
//
// Coordinates are root (screen) coordinates of the window's outer frame, title bar and
// borders included (_NET_FRAME_EXTENTS), invisible client-side shadows excluded
// (_GTK_FRAME_EXTENTS), as a user would see and click it.
package window

import (
	"context"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"

	"github.com/w365/w365/engine/desktop"
	"github.com/w365/w365/engine/desktop/x11/xconn"
	"github.com/w365/w365/engine/werr"
)

// Window and CloseResult are the platform-neutral types, so that what a Manager
// returns passes through desktop.Windows unconverted.
type (
	Window      = desktop.Window
	CloseResult = desktop.CloseResult
)

// Resize actions (matched case-insensitively).
const (
	ActionResize   = desktop.ActionResize
	ActionMove     = desktop.ActionMove
	ActionMaximize = desktop.ActionMaximize
	ActionMinimize = desktop.ActionMinimize
	ActionRestore  = desktop.ActionRestore
)

// Timing of verification loops.
var (
	settleTimeout = 3 * time.Second
	closeTimeout  = 2 * time.Second
	pollInterval  = 20 * time.Millisecond
)

// Manager talks EWMH to one display over one X connection. It is safe for concurrent use;
// calls are serialized.
type Manager struct {
	mu      sync.Mutex
	display string
	conn    *xgb.Conn
	passer  *xconn.Passer // nil on a display w365 did not start
	root    xproto.Window
	atoms   map[string]xproto.Atom
	screenW int
	screenH int
	// owners tells the process of a window.
	owners xconn.Owners
	// normal remembers a window's frame before Maximize or Minimize, so that Restore can
	// put it back exactly: openbox sometimes restores it shifted by its frame.
	normal map[xproto.Window]Window
}

var atomNames = []string{
	"_NET_SUPPORTING_WM_CHECK", "_NET_CLIENT_LIST", "_NET_CLIENT_LIST_STACKING",
	"_NET_ACTIVE_WINDOW", "_NET_WM_NAME", "UTF8_STRING",
	"_NET_WM_STATE", "_NET_WM_STATE_HIDDEN", "_NET_WM_STATE_ABOVE", "_NET_WM_STATE_MAXIMIZED_VERT",
	"_NET_WM_STATE_MAXIMIZED_HORZ", "_NET_WM_STATE_FULLSCREEN", "_NET_WM_STATE_MODAL", "_NET_FRAME_EXTENTS", "_GTK_FRAME_EXTENTS",
	"_NET_CLOSE_WINDOW", "_NET_MOVERESIZE_WINDOW", "_NET_WORKAREA", "_NET_CURRENT_DESKTOP",
	"_NET_WM_DESKTOP", "WM_STATE", "WM_CHANGE_STATE", "WM_PROTOCOLS", "WM_DELETE_WINDOW",
	"_NET_WM_WINDOW_TYPE", "_NET_WM_WINDOW_TYPE_SPLASH",
}

// Open connects to displayName (for example ":7").
func Open(displayName string) (*Manager, error) {
	m := &Manager{display: displayName}
	if err := m.connect(); err != nil {
		return nil, err
	}
	return m, nil
}

// connect makes the Manager's connection, the first or again (ready).
func (m *Manager) connect() error {
	conn, passer, err := xconn.ConnectPassing(m.display)
	if err != nil {
		return xconn.Explain(m.display, werr.Wrap(err, werr.Unavailable, "cannot connect to X display %s", m.display))
	}
	setup := xproto.Setup(conn)
	scr := setup.DefaultScreen(conn)
	atoms, err := xconn.Intern(conn, atomNames...)
	if err != nil {
		conn.Close()
		return xconn.Explain(m.display, werr.Wrap(err, werr.Unavailable, "X display %s does not answer", m.display))
	}
	m.conn, m.passer, m.root, m.atoms = conn, passer, scr.Root, atoms
	m.screenW, m.screenH = int(scr.WidthInPixels), int(scr.HeightInPixels)
	m.owners = xconn.NewOwners(conn, m.display)
	// Errors of requests without replies and stray events arrive on the event queue.
	go xconn.Drain(conn)
	return nil
}

// lock takes the lock, which the caller releases with unlock whatever lock returns, and
// makes sure the connection is usable: refused while the display's server does not answer
// (xconn.Stalled), made again after its watch closed it.
func (m *Manager) lock() error {
	m.mu.Lock()
	if m.conn == nil {
		return werr.New(werr.Unavailable, "window manager connection is closed")
	}
	if err := xconn.Stalled(m.display); err != nil {
		return err
	}
	if m.passer != nil && m.passer.Broken() {
		m.conn.Close()
		if err := m.connect(); err != nil {
			return err
		}
	}
	return nil
}

// unlock releases the lock; a call whose replies the display's watch cut off fails with
// the watch's error, not with what it read before (an empty window list).
func (m *Manager) unlock(err *error) {
	if m.passer != nil && m.passer.Broken() {
		if st := xconn.Stalled(m.display); st != nil {
			*err = st
		}
	}
	m.mu.Unlock()
}

// WaitReady waits until the window manager, if there is one, manages new windows: it maps
// a small probe window until one shows up in _NET_CLIENT_LIST. A window manager announces
// itself (_NET_SUPPORTING_WM_CHECK) before it is done starting, and openbox can lose a
// window mapped in that interval; call this after starting a desktop and before launching
// programs on it. Without a window manager it returns at once. It returns UNAVAILABLE when
// the manager does not take a window within timeout.
func (m *Manager) WaitReady(ctx context.Context, timeout time.Duration) (err error) {
	defer m.unlock(&err)
	if err := m.lock(); err != nil {
		return err
	}
	deadline := time.Now().Add(timeout)
	wait := 100 * time.Millisecond // doubled after each lost probe, up to 1 s
	for {
		if !m.hasWM() {
			return nil // no window manager: windows are mapped directly
		}
		if m.probe(ctx, min(wait, max(time.Until(deadline), pollInterval))) {
			return nil
		}
		wait = min(2*wait, time.Second)
		if time.Now().After(deadline) {
			return werr.New(werr.Unavailable, "the window manager on %s does not manage windows", m.display)
		}
		if err := werr.Done(ctx, "waiting for the window manager"); err != nil {
			return err
		}
		time.Sleep(pollInterval)
	}
}

// probe maps a 1x1 window and reports whether the window manager took it in within wait.
func (m *Manager) probe(ctx context.Context, wait time.Duration) bool {
	id, err := xproto.NewWindowId(m.conn)
	if err != nil {
		return false
	}
	scr := xproto.Setup(m.conn).DefaultScreen(m.conn)
	if xproto.CreateWindowChecked(m.conn, scr.RootDepth, id, m.root, -10, -10, 1, 1, 0,
		xproto.WindowClassInputOutput, scr.RootVisual, 0, nil).Check() != nil {
		return false
	}
	defer xproto.DestroyWindow(m.conn, id)
	name := "w365 window manager probe"
	xproto.ChangeProperty(m.conn, xproto.PropModeReplace, id, xproto.AtomWmName, xproto.AtomString, 8, uint32(len(name)), []byte(name))
	xproto.MapWindow(m.conn, id)
	return waitFor(ctx, wait, func() bool {
		for _, c := range m.clientList("_NET_CLIENT_LIST") {
			if xproto.Window(c) == id {
				return true
			}
		}
		return false
	})
}

// Disconnect closes the X connection. The Manager cannot be used afterwards.
func (m *Manager) Disconnect() {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.conn != nil {
		m.conn.Close()
		m.conn = nil
	}
}

// Display is the display name the Manager is bound to.
func (m *Manager) Display() string { return m.display }

// info is everything read about one client window.
type info struct {
	Window
	win        xproto.Window
	hidden     bool // minimized or hidden (_NET_WM_STATE_HIDDEN, WM_STATE Iconic, unmapped)
	maximized  bool
	fullscreen bool
	otherDesk  bool // on another virtual desktop
	class      []string
}

func (i info) visible() bool { return !i.hidden && !i.otherDesk }

func (m *Manager) atom(n string) xproto.Atom { return m.atoms[n] }

// How much the host reads of what X clients set. Every X client of the session sets
// properties of any size on its windows and on the root window (the session's X server
// holds them, within the session's memory), and the host read each whole, outside the
// session's limits, and every window a client list on the root names, as often as it names
// it, then copied all of it into every result: 48 titles of 4 MiB grew the host by 3.4 GiB
// in one list_windows. A window's property (its title, class, states, protocols) is read up
// to maxPropUnits 4-byte units (4 KiB, a longer title cut there), a client list on the root
// (or the root's children) up to maxListUnits, and of the windows it names the topmost
// maxWindows, each once (docs/security.md#what-the-host-reads-from-a-session).
const (
	maxPropUnits = xconn.PropUnits
	maxListUnits = 1 << 16
	maxWindows   = 1 << 10
)

// prop reads property name of w up to maxPropUnits; nil when absent.
func (m *Manager) prop(w xproto.Window, name xproto.Atom, typ xproto.Atom) (*xproto.GetPropertyReply, error) {
	return m.propUpTo(w, name, typ, maxPropUnits)
}

// propUpTo reads property name of w up to units 4-byte units; nil when absent.
func (m *Manager) propUpTo(w xproto.Window, name xproto.Atom, typ xproto.Atom, units uint32) (*xproto.GetPropertyReply, error) {
	r, err := xproto.GetProperty(m.conn, false, w, name, typ, 0, units).Reply()
	if err != nil {
		return nil, err
	}
	if r.Format == 0 {
		return nil, nil
	}
	return r, nil
}

// prop32 reads a property of 32-bit values of w up to maxPropUnits.
func (m *Manager) prop32(w xproto.Window, name xproto.Atom, typ xproto.Atom) []uint32 {
	return values32(m.prop(w, name, typ))
}

// clientList reads the window manager's list of client windows name on the root window,
// up to maxListUnits.
func (m *Manager) clientList(name string) []uint32 {
	return values32(m.propUpTo(m.root, m.atom(name), xproto.AtomWindow, maxListUnits))
}

// values32 are the 32-bit values of a property read (nil when there are none).
func values32(r *xproto.GetPropertyReply, err error) []uint32 {
	if err != nil || r == nil || r.Format != 32 {
		return nil
	}
	out := make([]uint32, r.ValueLen)
	for i := range out {
		out[i] = xgb.Get32(r.Value[i*4:])
	}
	return out
}

// hasWM says whether an EWMH window manager runs (_NET_SUPPORTING_WM_CHECK).
func (m *Manager) hasWM() bool {
	v := m.prop32(m.root, m.atom("_NET_SUPPORTING_WM_CHECK"), xproto.AtomWindow)
	return len(v) > 0 && v[0] != 0
}

// clients returns the top-level client windows, bottom to top in stacking order when the
// window manager says so.
func (m *Manager) clients() []xproto.Window {
	var ids []uint32
	if m.hasWM() {
		ids = m.clientList("_NET_CLIENT_LIST_STACKING")
		if len(ids) == 0 {
			ids = m.clientList("_NET_CLIENT_LIST")
		}
		out := make([]xproto.Window, len(ids))
		for i, id := range ids {
			out[i] = xproto.Window(id)
		}
		return topmost(out)
	}
	// No window manager: the mapped children of the root that have a name.
	tree, err := xproto.QueryTree(m.conn, m.root).Reply()
	if err != nil {
		return nil
	}
	var out []xproto.Window
	for _, c := range tree.Children[max(0, len(tree.Children)-maxListUnits):] {
		a, err := xproto.GetWindowAttributes(m.conn, c).Reply()
		if err != nil || a.OverrideRedirect || a.Class != xproto.WindowClassInputOutput {
			continue
		}
		out = append(out, c)
	}
	return topmost(out)
}

// topmost keeps of ws, bottom to top, the top maxWindows, each once (where it is topmost),
// in their order.
func topmost(ws []xproto.Window) []xproto.Window {
	seen := map[xproto.Window]bool{}
	var out []xproto.Window
	for i := len(ws) - 1; i >= 0 && len(out) < maxWindows; i-- {
		if !seen[ws[i]] {
			seen[ws[i]] = true
			out = append(out, ws[i])
		}
	}
	slices.Reverse(out)
	return out
}

func (m *Manager) title(w xproto.Window) string {
	return xconn.Title(m.conn, w, m.atom("_NET_WM_NAME"), m.atom("UTF8_STRING"))
}

// processName is the kernel's name of pid (/proc/PID/comm), "" when unknown.
func processName(pid int) string {
	if pid <= 0 {
		return ""
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/comm")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

// read gathers everything about w; ok is false when the window vanished.
func (m *Manager) read(w xproto.Window) (info, bool) {
	var in info
	in.win = w
	in.Handle = uint32(w)
	attr, err := xproto.GetWindowAttributes(m.conn, w).Reply()
	if err != nil {
		return in, false
	}
	geo, err := xproto.GetGeometry(m.conn, xproto.Drawable(w)).Reply()
	if err != nil {
		return in, false
	}
	tr, err := xproto.TranslateCoordinates(m.conn, w, m.root, 0, 0).Reply()
	if err != nil {
		return in, false
	}
	in.Title = m.title(w)
	in.PID = m.owners.PID(w)
	in.ProcessName = processName(in.PID)
	if r, err := m.prop(w, xproto.AtomWmClass, xproto.AtomString); err == nil && r != nil {
		for _, s := range strings.Split(strings.TrimRight(string(r.Value), "\x00"), "\x00") {
			in.class = append(in.class, s)
		}
	}
	x, y := int(tr.DstX), int(tr.DstY)
	wd, ht := int(geo.Width), int(geo.Height)
	in.Client = desktop.Rect{X: x, Y: y, Width: wd, Height: ht}
	if ext := m.prop32(w, m.atom("_NET_FRAME_EXTENTS"), xproto.AtomCardinal); len(ext) == 4 {
		l, r, t, b := int(ext[0]), int(ext[1]), int(ext[2]), int(ext[3])
		x, y, wd, ht = x-l, y-t, wd+l+r, ht+t+b
	} else if bw := int(geo.BorderWidth); bw > 0 {
		x, y, wd, ht = x-bw, y-bw, wd+2*bw, ht+2*bw
	}
	// Client-side decorated windows (GTK, Chromium) draw invisible shadows around the
	// visible frame and say how wide they are in _GTK_FRAME_EXTENTS: leave them out.
	if gl, gr, gt, gb := m.gtkExtents(w); wd-gl-gr > 0 && ht-gt-gb > 0 {
		x, y, wd, ht = x+gl, y+gt, wd-gl-gr, ht-gt-gb
		c := &in.Client
		c.X, c.Y, c.Width, c.Height = c.X+gl, c.Y+gt, c.Width-gl-gr, c.Height-gt-gb
	}
	in.X, in.Y, in.Width, in.Height = x, y, wd, ht

	for _, s := range m.prop32(w, m.atom("_NET_WM_STATE"), xproto.AtomAtom) {
		switch xproto.Atom(s) {
		case m.atom("_NET_WM_STATE_HIDDEN"):
			in.hidden = true
		case m.atom("_NET_WM_STATE_MAXIMIZED_VERT"), m.atom("_NET_WM_STATE_MAXIMIZED_HORZ"):
			in.maximized = true
		case m.atom("_NET_WM_STATE_FULLSCREEN"):
			in.fullscreen = true
		}
	}
	in.Splash = slices.Contains(m.prop32(w, m.atom("_NET_WM_WINDOW_TYPE"), xproto.AtomAtom), uint32(m.atom("_NET_WM_WINDOW_TYPE_SPLASH")))
	if st := m.prop32(w, m.atom("WM_STATE"), m.atom("WM_STATE")); len(st) > 0 && st[0] == 3 {
		in.hidden = true // IconicState
	}
	if attr.MapState != xproto.MapStateViewable && !in.hidden {
		// Unmapped and not iconic: withdrawn or on another desktop.
		in.otherDesk = true
	}
	if d := m.prop32(w, m.atom("_NET_WM_DESKTOP"), xproto.AtomCardinal); len(d) > 0 && d[0] != 0xFFFFFFFF {
		if cur := m.prop32(m.root, m.atom("_NET_CURRENT_DESKTOP"), xproto.AtomCardinal); len(cur) > 0 && cur[0] != d[0] {
			in.otherDesk = true
		}
	}
	return in, true
}

// maxBothStates reports whether both maximized states are set.
func (m *Manager) maxBoth(w xproto.Window) bool {
	v, h := false, false
	for _, s := range m.prop32(w, m.atom("_NET_WM_STATE"), xproto.AtomAtom) {
		v = v || xproto.Atom(s) == m.atom("_NET_WM_STATE_MAXIMIZED_VERT")
		h = h || xproto.Atom(s) == m.atom("_NET_WM_STATE_MAXIMIZED_HORZ")
	}
	return v && h
}

// all reads every client window, top of the stack first.
func (m *Manager) all(ctx context.Context) ([]info, error) {
	cancelled := func() error { return werr.Done(ctx, "window listing") }
	// Before anything else too: a cancelled call fails on an empty desktop as well.
	if err := cancelled(); err != nil {
		return nil, err
	}
	if m.conn == nil {
		return nil, werr.New(werr.Unavailable, "window manager connection is closed")
	}
	if _, err := xproto.GetInputFocus(m.conn).Reply(); err != nil {
		return nil, werr.Wrap(err, werr.Unavailable, "X display %s does not answer", m.display)
	}
	ws := m.clients()
	out := make([]info, 0, len(ws))
	for i := len(ws) - 1; i >= 0; i-- {
		if err := cancelled(); err != nil {
			return nil, err
		}
		if in, ok := m.read(ws[i]); ok {
			out = append(out, in)
		}
	}
	return out, nil
}

// List returns the visible windows (not minimized, not hidden, on the current desktop), top
// of the stack first. An untitled one is listed too: a window manager manages only an
// application's own windows, and an untitled one is often a dialog in front of the rest
// (Gnumeric's "Error", Transmission's first-start agreement), where the input goes.
func (m *Manager) List(ctx context.Context) (_ []Window, err error) {
	defer m.unlock(&err)
	if err := m.lock(); err != nil {
		return nil, err
	}
	all, err := m.all(ctx)
	if err != nil {
		return nil, err
	}
	out := []Window{}
	for _, in := range all {
		if in.visible() {
			out = append(out, in.Window)
		}
	}
	return out, nil
}

// Popups are the pop-ups shown now (xconn.Popups), by the window of ws each belongs to: the
// first (topmost, as List orders them) of its process, the one it opened from.
func (m *Manager) Popups(ctx context.Context, ws []Window) (_ map[uint32][]desktop.Rect, err error) {
	defer m.unlock(&err)
	if err := m.lock(); err != nil {
		return nil, err
	}
	if err := werr.Done(ctx, "window listing"); err != nil {
		return nil, err
	}
	pops, err := xconn.Popups(m.conn, m.owners)
	if err != nil {
		return nil, werr.Wrap(err, werr.Unavailable, "X display %s does not answer", m.display)
	}
	out := map[uint32][]desktop.Rect{}
	for _, p := range pops {
		for _, w := range ws {
			// Its process's, or its X client's when its process is not known: Xt sets no
			// _NET_WM_PID on a pop-up (xterm's menus, even where it sets one on its
			// window), and the X server knows no PID of a program started on a virtual
			// session's display from the host (xconn.Owners.PID).
			if p.PID != 0 && w.PID == p.PID || p.PID == 0 && xconn.SameClient(m.conn, p.Win, xproto.Window(w.Handle)) {
				out[w.Handle] = append(out[w.Handle], desktop.Rect{X: p.X, Y: p.Y, Width: p.W, Height: p.H})
				break
			}
		}
	}
	return out, nil
}

// Active returns the window that has the focus according to the window manager
// (_NET_ACTIVE_WINDOW) or, while a pop-up of a program holds it, that program's window
// (xconn.FocusedClient); NOT_FOUND when none has.
func (m *Manager) Active() (_ Window, err error) {
	defer m.unlock(&err)
	if err := m.lock(); err != nil {
		return Window{}, err
	}
	id := m.activeID()
	if id == 0 {
		return Window{}, werr.New(werr.NotFound, "no window is active")
	}
	in, ok := m.read(id)
	if !ok {
		return Window{}, werr.New(werr.NotFound, "the active window vanished")
	}
	return in.Window, nil
}

func (m *Manager) activeID() xproto.Window {
	if m.hasWM() {
		if v := m.prop32(m.root, m.atom("_NET_ACTIVE_WINDOW"), xproto.AtomWindow); len(v) > 0 && v[0] != 0 {
			return xproto.Window(v[0])
		}
		return xconn.FocusedClient(m.conn) // a menu of it holds the focus
	}
	f, err := xproto.GetInputFocus(m.conn).Reply()
	if err != nil || f.Focus <= 1 { // None or PointerRoot
		return 0
	}
	return f.Focus
}

// activeIs says whether w is active, or one of its transient windows is: with modalOnly, a
// modal one (_NET_WM_STATE_MODAL), the dialog an EWMH window manager focuses instead of w.
func (m *Manager) activeIs(w xproto.Window, modalOnly bool) bool {
	a := m.activeID()
	for i := 0; i < 8 && a != 0; i++ { // a chain of transients, bounded
		if a == w {
			return true
		}
		if modalOnly && !slices.Contains(m.prop32(a, m.atom("_NET_WM_STATE"), xproto.AtomAtom), uint32(m.atom("_NET_WM_STATE_MODAL"))) {
			return false
		}
		v := m.prop32(a, xproto.AtomWmTransientFor, xproto.AtomWindow)
		if len(v) == 0 {
			return false
		}
		a = xproto.Window(v[0])
	}
	return false
}

// candidates are the windows a title may name: every titled window on the current desktop,
// minimized ones included (activating or restoring them is the point).
func candidates(all []info) ([]Window, map[uint32]info) {
	var ws []Window
	byID := map[uint32]info{}
	for _, in := range all {
		if in.Title == "" || in.otherDesk {
			continue
		}
		ws = append(ws, in.Window)
		byID[in.Handle] = in
	}
	return ws, byID
}

// titled checks a title query and lists the windows it may match.
func (m *Manager) titled(ctx context.Context, title string) ([]Window, map[uint32]info, error) {
	if strings.TrimSpace(title) == "" {
		return nil, nil, werr.Invalid("title must not be empty")
	}
	all, err := m.all(ctx)
	if err != nil {
		return nil, nil, err
	}
	ws, byID := candidates(all)
	return ws, byID, nil
}

// find is the window pick chooses for title among the candidates (desktop.BestTitle, or
// desktop.CloseTarget for close_window).
func (m *Manager) find(ctx context.Context, title string, pick func([]Window, string) (Window, error)) (info, error) {
	ws, byID, err := m.titled(ctx, title)
	if err != nil {
		return info{}, err
	}
	w, err := pick(ws, title)
	if err != nil {
		return info{}, err
	}
	return byID[w.Handle], nil
}

// clientMessage sends an EWMH request about w to the root window.
func (m *Manager) clientMessage(w xproto.Window, typ xproto.Atom, data ...uint32) error {
	d := make([]uint32, 5)
	copy(d, data)
	ev := xproto.ClientMessageEvent{Format: 32, Window: w, Type: typ, Data: xproto.ClientMessageDataUnionData32New(d)}
	return xproto.SendEventChecked(m.conn, false, m.root,
		xproto.EventMaskSubstructureNotify|xproto.EventMaskSubstructureRedirect, string(ev.Bytes())).Check()
}

// waitFor polls cond until it holds, the timeout passes or ctx ends.
// activeOnTop says whether the active window is above every client window but those kept
// above the others (_NET_WM_STATE_ABOVE), or there is no window manager to stack them.
func (m *Manager) activeOnTop() bool {
	if !m.hasWM() {
		return true
	}
	active, cl := m.activeID(), m.clients()
	above := m.atom("_NET_WM_STATE_ABOVE")
	for i := len(cl) - 1; i >= 0; i-- {
		if cl[i] == active {
			return true
		}
		if !slices.Contains(m.prop32(cl[i], m.atom("_NET_WM_STATE"), xproto.AtomAtom), uint32(above)) {
			return false
		}
	}
	return false
}

func waitFor(ctx context.Context, timeout time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(timeout)
	for {
		if cond() {
			return true
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return false
		}
		time.Sleep(pollInterval)
	}
}

// Activate brings the window title names (desktop.TitleMatches) to the front and gives it the focus,
// restoring it when minimized. It verifies the result through _NET_ACTIVE_WINDOW; when the
// window has a modal dialog open, the window manager focuses the dialog, and that counts:
// the window returned is then the dialog, the one that has the focus. l3afpad's untitled
// "2 strings replaced" dialog kept it from its window, whose activation was reported as
// such, and the agent's next search of the foreground window found none of its fields.
func (m *Manager) Activate(ctx context.Context, title string) (_ Window, err error) {
	defer m.unlock(&err)
	if err := m.lock(); err != nil {
		return Window{}, err
	}
	in, err := m.find(ctx, title, desktop.BestTitle)
	if err != nil {
		return Window{}, err
	}
	return m.activate(ctx, in)
}

func (m *Manager) activate(ctx context.Context, in info) (Window, error) {
	w := in.win
	if m.hasWM() {
		// Source indication 2 (pager / direct user action) so that focus-stealing
		// prevention does not apply.
		if err := m.clientMessage(w, m.atom("_NET_ACTIVE_WINDOW"), 2, xproto.TimeCurrentTime, 0); err != nil {
			return Window{}, werr.Wrap(err, werr.Internal, "cannot ask the window manager to activate the window")
		}
	} else {
		xproto.MapWindow(m.conn, w)
		xproto.ConfigureWindow(m.conn, w, xproto.ConfigWindowStackMode, []uint32{xproto.StackModeAbove})
		xproto.SetInputFocus(m.conn, xproto.InputFocusParent, w, xproto.TimeCurrentTime)
	}
	// The window itself, or its modal dialog: a tool window of it that has the focus already
	// (mtPaint's Settings Toolbar, once a dialog closed) is no answer, as the window manager
	// is about to move the focus to the window. Past the wait, a window manager that keeps
	// the focus on any transient of the window has done what it does.
	if !waitFor(ctx, settleTimeout, func() bool { return m.activeIs(w, true) }) && !m.activeIs(w, false) {
		return Window{}, werr.New(werr.Timeout, "window %q did not become active", in.Title).WithRetryable(true)
	}
	// A window manager sets the active window and raises it in two steps (openbox on a
	// busy machine has been seen to answer between them): wait for the raise as well, so
	// that the next screenshot shows the window. A window kept above the others may keep it
	// from the top: that is no failure.
	waitFor(ctx, settleTimeout, m.activeOnTop)
	if a := m.activeID(); a != w && a != 0 {
		w = a
	}
	now, ok := m.read(w)
	if !ok {
		return Window{}, werr.New(werr.NotFound, "window %q vanished", in.Title)
	}
	return now.Window, nil
}

// Close asks the one window title names (desktop.CloseTarget) to close itself through its
// own close path: _NET_CLOSE_WINDOW to the window manager, or
// WM_DELETE_WINDOW to the client when there is no window manager. It never kills: a window
// that does not speak WM_DELETE_WINDOW is refused with UNSUPPORTED (a window manager would
// kill its client). Windows of processes for which protected returns true are refused with
// PROTECTED_PROCESS. Closed tells whether the window disappeared within 2 s.
func (m *Manager) Close(ctx context.Context, title string, protected func(pid int) bool) (_ CloseResult, err error) {
	defer m.unlock(&err)
	if err := m.lock(); err != nil {
		return CloseResult{}, err
	}
	in, err := m.find(ctx, title, desktop.CloseTarget)
	if err != nil {
		return CloseResult{}, err
	}
	res := CloseResult{MatchedTitle: in.Title, ProcessName: in.ProcessName}
	if protected != nil && in.PID > 0 && protected(in.PID) {
		return res, werr.New(werr.ProtectedProcess, "window %q belongs to protected process %s (pid %d)",
			in.Title, in.ProcessName, in.PID).WithDetail("pid", in.PID)
	}
	// A _NET_WM_PID that PID does not take (xconn.Owners.Claimed) may still be true: a
	// program may open the display without DISPLAY in its environment.
	if p := m.owners.Claimed(in.win); protected != nil && p > 0 && p != in.PID && protected(p) {
		return res, werr.New(werr.ProtectedProcess, "window %q names protected process %d as its own (_NET_WM_PID)",
			in.Title, p).WithDetail("pid", p)
	}
	if !m.supportsDelete(in.win) {
		return res, werr.New(werr.Unsupported, "window %q has no graceful close protocol (WM_DELETE_WINDOW)", in.Title).
			WithHint("use kill_process to end its process")
	}
	if m.hasWM() {
		err = m.clientMessage(in.win, m.atom("_NET_CLOSE_WINDOW"), xproto.TimeCurrentTime, 2)
	} else {
		ev := xproto.ClientMessageEvent{Format: 32, Window: in.win, Type: m.atom("WM_PROTOCOLS"),
			Data: xproto.ClientMessageDataUnionData32New([]uint32{uint32(m.atom("WM_DELETE_WINDOW")), xproto.TimeCurrentTime, 0, 0, 0})}
		err = xproto.SendEventChecked(m.conn, false, in.win, xproto.EventMaskNoEvent, string(ev.Bytes())).Check()
	}
	if err != nil {
		return res, werr.Wrap(err, werr.Internal, "cannot send the close request")
	}
	res.Closed = waitFor(ctx, closeTimeout, func() bool { return m.gone(in.win) })
	return res, nil
}

// gone says whether w was destroyed, withdrawn or dropped from the client list.
func (m *Manager) gone(w xproto.Window) bool {
	a, err := xproto.GetWindowAttributes(m.conn, w).Reply()
	if err != nil {
		return true
	}
	if m.hasWM() {
		for _, id := range m.clientList("_NET_CLIENT_LIST") {
			if xproto.Window(id) == w {
				return false
			}
		}
		return true
	}
	return a.MapState == xproto.MapStateUnmapped
}

func (m *Manager) supportsDelete(w xproto.Window) bool {
	for _, p := range m.prop32(w, m.atom("WM_PROTOCOLS"), xproto.AtomAtom) {
		if xproto.Atom(p) == m.atom("WM_DELETE_WINDOW") {
			return true
		}
	}
	return false
}

// Resize applies action to the window title names (desktop.TitleMatches) and verifies the outcome by reading the window back:
//
//   - Resize: width and height required (outer frame size); x and y optional, both or neither.
//   - Move: x and y required (outer frame top-left corner); width and height ignored.
//   - Maximize, Minimize, Restore: no coordinates. Restore leaves the window in the normal
//     state: neither minimized nor maximized nor fullscreen, at its pre-maximize geometry.
//
// A maximized or minimized window is restored first before Resize or Move.
func (m *Manager) Resize(ctx context.Context, title, action string, x, y, w, h *int) (_ Window, err error) {
	act, err := desktop.ResizeAction(action, x, y, w, h)
	if err != nil {
		return Window{}, err
	}
	defer m.unlock(&err)
	if err := m.lock(); err != nil {
		return Window{}, err
	}
	in, err := m.find(ctx, title, desktop.BestTitle)
	if err != nil {
		return Window{}, err
	}
	wm := m.hasWM()
	switch act {
	case ActionMaximize, ActionMinimize, ActionRestore:
		if !wm {
			return Window{}, werr.New(werr.Unsupported, "%s needs a window manager, and display %s has none", act, m.display)
		}
	}
	if (act == ActionMaximize || act == ActionMinimize) && !in.hidden && !in.maximized && !in.fullscreen {
		if m.normal == nil {
			m.normal = map[xproto.Window]Window{}
		}
		m.normal[in.win] = in.Window
	}
	switch act {
	case ActionMaximize:
		return m.maximize(ctx, in)
	case ActionMinimize:
		return m.minimize(ctx, in)
	case ActionRestore:
		return m.restore(ctx, in)
	}
	if wm && (in.hidden || in.maximized || in.fullscreen) {
		if _, err := m.restore(ctx, in); err != nil {
			return Window{}, err
		}
		in, _ = m.read(in.win)
	}
	tx, ty, tw, th := in.X, in.Y, in.Width, in.Height
	if x != nil {
		tx, ty = *x, *y
	}
	if act == ActionResize {
		tw, th = *w, *h
	}
	return m.moveResize(ctx, in, tx, ty, tw, th, act == ActionResize)
}

// frameExtents returns left, right, top, bottom.
func (m *Manager) frameExtents(w xproto.Window) (int, int, int, int) {
	if ext := m.prop32(w, m.atom("_NET_FRAME_EXTENTS"), xproto.AtomCardinal); len(ext) == 4 {
		return int(ext[0]), int(ext[1]), int(ext[2]), int(ext[3])
	}
	return 0, 0, 0, 0
}

// gtkExtents returns the invisible margins (left, right, top, bottom) of a client-side
// decorated window (_GTK_FRAME_EXTENTS), zeros for other windows.
func (m *Manager) gtkExtents(w xproto.Window) (int, int, int, int) {
	if ext := m.prop32(w, m.atom("_GTK_FRAME_EXTENTS"), xproto.AtomCardinal); len(ext) == 4 {
		return int(ext[0]), int(ext[1]), int(ext[2]), int(ext[3])
	}
	return 0, 0, 0, 0
}

// moveResize puts the visible frame of in at (tx, ty) with size tw x th.
func (m *Manager) moveResize(ctx context.Context, in info, tx, ty, tw, th int, resize bool) (Window, error) {
	l, r, t, b := m.frameExtents(in.win)
	gl, gr, gt, gb := m.gtkExtents(in.win)
	// The frame's outer corner and the client size that give this visible rectangle.
	fx, fy := tx-gl, ty-gt
	cw, ch := tw+gl+gr-l-r, th+gt+gb-t-b
	if cw <= 0 || ch <= 0 {
		return Window{}, werr.Invalid("%dx%d is smaller than the window frame (%d+%d x %d+%d)", tw, th, l, r, t, b)
	}
	var err error
	if m.hasWM() {
		// Flags: NorthWest gravity (x, y name the frame's top-left corner), x and y present,
		// width and height present when resizing, source indication 2.
		flags := uint32(xproto.GravityNorthWest) | 1<<8 | 1<<9 | 2<<12
		if resize {
			flags |= 1<<10 | 1<<11
		}
		err = m.clientMessage(in.win, m.atom("_NET_MOVERESIZE_WINDOW"), flags, uint32(int32(fx)), uint32(int32(fy)), uint32(cw), uint32(ch))
	} else {
		geo, gerr := xproto.GetGeometry(m.conn, xproto.Drawable(in.win)).Reply()
		if gerr != nil {
			return Window{}, werr.New(werr.NotFound, "window %q vanished", in.Title)
		}
		bw := int(geo.BorderWidth)
		vals := []uint32{uint32(int32(fx)), uint32(int32(fy))}
		mask := uint16(xproto.ConfigWindowX | xproto.ConfigWindowY)
		if resize {
			mask |= xproto.ConfigWindowWidth | xproto.ConfigWindowHeight
			vals = append(vals, uint32(max(1, tw+gl+gr-2*bw)), uint32(max(1, th+gt+gb-2*bw)))
		}
		err = xproto.ConfigureWindowChecked(m.conn, in.win, mask, vals).Check()
	}
	if err != nil {
		return Window{}, werr.Wrap(err, werr.Internal, "cannot move or resize the window")
	}
	var now info
	ok := waitFor(ctx, settleTimeout, func() bool {
		var alive bool
		now, alive = m.read(in.win)
		return alive && now.X == tx && now.Y == ty && now.Width == tw && now.Height == th
	})
	if !ok {
		return now.Window, werr.New(werr.Timeout, "window %q did not reach %dx%d at (%d,%d); it is %dx%d at (%d,%d)",
			in.Title, tw, th, tx, ty, now.Width, now.Height, now.X, now.Y).
			WithRetryable(false).
			WithDetail("actual", now.Window).
			WithHint("the application or window manager may limit its size or position")
	}
	return now.Window, nil
}

// netWMState sends a _NET_WM_STATE change (action 0 remove, 1 add) for up to two states.
func (m *Manager) netWMState(w xproto.Window, action uint32, a, b string) error {
	var ab uint32
	if b != "" {
		ab = uint32(m.atom(b))
	}
	return m.clientMessage(w, m.atom("_NET_WM_STATE"), action, uint32(m.atom(a)), ab, 2)
}

func (m *Manager) stable(ctx context.Context, w xproto.Window, cond func(info) bool) (info, bool) {
	var last info
	same := 0
	ok := waitFor(ctx, settleTimeout, func() bool {
		now, alive := m.read(w)
		if !alive || !cond(now) {
			same = 0
			last = now
			return false
		}
		if now.Window == last.Window {
			same++
		} else {
			same = 0
		}
		last = now
		return same >= 2 // the geometry held still for three reads
	})
	return last, ok
}

func (m *Manager) maximize(ctx context.Context, in info) (Window, error) {
	if in.hidden {
		if _, err := m.restore(ctx, in); err != nil {
			return Window{}, err
		}
	}
	if err := m.netWMState(in.win, 1, "_NET_WM_STATE_MAXIMIZED_VERT", "_NET_WM_STATE_MAXIMIZED_HORZ"); err != nil {
		return Window{}, werr.Wrap(err, werr.Internal, "cannot maximize the window")
	}
	now, ok := m.stable(ctx, in.win, func(i info) bool { return m.maxBoth(i.win) && !i.hidden })
	if !ok {
		return now.Window, werr.New(werr.Timeout, "window %q did not maximize", in.Title).WithRetryable(false)
	}
	return now.Window, nil
}

func (m *Manager) minimize(ctx context.Context, in info) (Window, error) {
	// ICCCM 4.1.4: WM_CHANGE_STATE with IconicState (3).
	if err := m.clientMessage(in.win, m.atom("WM_CHANGE_STATE"), 3); err != nil {
		return Window{}, werr.Wrap(err, werr.Internal, "cannot minimize the window")
	}
	now, ok := m.stable(ctx, in.win, func(i info) bool { return i.hidden })
	if !ok {
		return now.Window, werr.New(werr.Timeout, "window %q did not minimize", in.Title).WithRetryable(false)
	}
	return now.Window, nil
}

// restore un-minimizes (by activating) and un-maximizes / leaves fullscreen.
func (m *Manager) restore(ctx context.Context, in info) (Window, error) {
	if in.hidden {
		if _, err := m.activate(ctx, in); err != nil {
			return Window{}, err
		}
	}
	if in.maximized {
		if err := m.netWMState(in.win, 0, "_NET_WM_STATE_MAXIMIZED_VERT", "_NET_WM_STATE_MAXIMIZED_HORZ"); err != nil {
			return Window{}, werr.Wrap(err, werr.Internal, "cannot restore the window")
		}
	}
	if in.fullscreen {
		if err := m.netWMState(in.win, 0, "_NET_WM_STATE_FULLSCREEN", ""); err != nil {
			return Window{}, werr.Wrap(err, werr.Internal, "cannot restore the window")
		}
	}
	now, ok := m.stable(ctx, in.win, func(i info) bool { return !i.hidden && !i.maximized && !i.fullscreen })
	if !ok {
		return now.Window, werr.New(werr.Timeout, "window %q did not restore", in.Title).WithRetryable(false)
	}
	if was, ok := m.normal[in.win]; ok {
		delete(m.normal, in.win)
		if now.X != was.X || now.Y != was.Y || now.Width != was.Width || now.Height != was.Height {
			return m.moveResize(ctx, now, was.X, was.Y, was.Width, was.Height, true)
		}
	}
	return now.Window, nil
}

// browserNames are WM_CLASS parts and process names of the supported browsers.
var browserNames = []string{"chromium", "chrome", "google-chrome", "microsoft-edge", "msedge", "firefox", "firefox-esr", "navigator"}

func isBrowser(in info) bool {
	cands := append([]string{in.ProcessName}, in.class...)
	for _, c := range cands {
		c = strings.ToLower(c)
		if c == "" {
			continue
		}
		for _, b := range browserNames {
			if c == b || strings.HasPrefix(c, b+"-") || strings.HasPrefix(c, b+"_") || (b != "navigator" && strings.Contains(c, b)) {
				return true
			}
		}
	}
	return false
}

// FindBrowser focuses a Chromium, Chrome, Edge or Firefox window (known by WM_CLASS or
// process name) whose title contains pattern, or whose current URL (urlOf, for the browsers
// w365 drives; may be nil or return "") contains it, case-insensitively. An empty pattern
// takes the top-most browser window. It returns the activated window.
func (m *Manager) FindBrowser(ctx context.Context, pattern string, urlOf func(handle uint32) string) (_ Window, err error) {
	defer m.unlock(&err)
	if err := m.lock(); err != nil {
		return Window{}, err
	}
	all, err := m.all(ctx)
	if err != nil {
		return Window{}, err
	}
	p := strings.ToLower(strings.TrimSpace(pattern))
	var browsers []info
	for _, in := range all {
		if in.otherDesk || !isBrowser(in) {
			continue
		}
		browsers = append(browsers, in)
		if p == "" || strings.Contains(strings.ToLower(in.Title), p) {
			return m.activate(ctx, in)
		}
		if urlOf != nil && strings.Contains(strings.ToLower(urlOf(in.Handle)), p) {
			return m.activate(ctx, in)
		}
	}
	if len(browsers) == 0 {
		return Window{}, werr.New(werr.NotFound, "no browser window is open").
			WithHint("open one with browser_navigate")
	}
	titles := []string{}
	for _, b := range browsers {
		titles = append(titles, b.Title)
	}
	return Window{}, werr.New(werr.NotFound, "no browser window has %q in its title or URL", pattern).
		WithDetail("nearest", titles)
}
