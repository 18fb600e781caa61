//go:build linux

// The AT-SPI backend: the desktop accessibility tree (AT-SPI2 over D-Bus) of one X
// display, reported with UI Automation control-type names and screen coordinates.
//
// Every Tree is bound to one session bus and one X display (the host serves several
// desktops), so the package keeps no global state. Property reads are pipelined: one
// batch of asynchronous calls per tree level instead of one blocking call per property, and
// the roles, states, names and children an application's object cache holds come from one
// Cache.GetItems call.
package atspi

import (
	"context"
	"slices"
	"sync"
	"time"

	"github.com/godbus/dbus/v5"

	"github.com/w365/w365/engine/desktop"
	"github.com/w365/w365/engine/desktop/x11/window"
	"github.com/w365/w365/engine/werr"
)

// Tree is a connection to the accessibility bus of one desktop.
type Tree struct {
	sessionAddr string
	peerDirs    []string // where applications' own servers may lie too (AllowPeersIn)
	display     string

	mu    sync.Mutex
	conn  *dbus.Conn       // the accessibility bus; redialled when it drops
	peers map[string]*peer // direct connections to applications; nil value: none offered
	// frames remembers the accessible frame found for each X window (window's lookup takes
	// five round trips, a third of a small walk); an entry is dropped when its walk finds
	// the frame gone or hidden.
	frames map[uint32]target
	// noCache names the applications whose Cache.GetItems does not hold their windows; their
	// walks go level by level at once. liveOnly: every walk does (tests compare the two).
	noCache     map[string]bool
	liveOnly    bool
	cacheAfter  int // the objects a walk meets before it reads the cache (cacheAfter; tests: 0)
	cachedWalks int // walks that read a cache, for tests
	// silent remembers, for the X windows of no accessible frame whose programs did not fetch
	// an Editres request, when they did not (xtWalk); cleared past maxFrames entries.
	silent map[uint32]time.Time
	// wins lists the display's windows for searches (covering); opened at the first search
	// that needs it and kept until Close (it redials by itself when its connection breaks).
	wins *window.Manager
	// xtUnreached: Editres reaches no widget of an Xt window, as Xmu 1.1 reaches none in about
	// half of a program's runs (xtWalk); for tests.
	xtUnreached bool
}

// mayCache says whether a walk of an application's window may read its cache, and after
// how many objects.
func (t *Tree) mayCache(bus string) (bool, int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.noCache == nil {
		t.noCache = map[string]bool{}
	}
	return !t.liveOnly && !t.noCache[bus], t.cacheAfter
}

// Open connects to the accessibility bus announced on the session bus at sessionBusAddr
// (org.a11y.Bus.GetAddress); displayName is the X display whose windows it describes.
func Open(ctx context.Context, sessionBusAddr, displayName string) (*Tree, error) {
	if sessionBusAddr == "" {
		return nil, werr.New(werr.Unavailable, "no session D-Bus for display %s", displayName).
			WithHint("the accessibility tree needs DBUS_SESSION_BUS_ADDRESS")
	}
	t := &Tree{sessionAddr: sessionBusAddr, display: displayName, cacheAfter: cacheAfter}
	if _, err := t.bus(ctx); err != nil {
		return nil, err
	}
	return t, nil
}

// Close releases the bus connection.
func (t *Tree) Close() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, p := range t.peers {
		if p != nil {
			p.close()
		}
	}
	t.peers = nil
	if t.wins != nil {
		t.wins.Disconnect()
		t.wins = nil
	}
	if t.conn != nil {
		err := t.conn.Close()
		t.conn = nil
		return err
	}
	return nil
}

// peer returns a direct connection to the application owning bus name (atk-bridge and
// Qt offer one through org.a11y.atspi.Application.GetApplicationBusAddress), or nil when
// the application offers none; calls then go through the bus daemon.
func (t *Tree) peer(ctx context.Context, conn *dbus.Conn, bus string) map[string]*peer {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.peers == nil {
		t.peers = map[string]*peer{}
	}
	if p, ok := t.peers[bus]; ok && (p == nil || p.usable()) {
		return t.snapshotPeers()
	}
	t.peers[bus] = nil
	ctx, cancel := context.WithTimeout(ctx, desktop.CallTimeout)
	defer cancel()
	var addr string
	err := conn.Object(bus, registryRoot).CallWithContext(ctx, "org.a11y.atspi.Application.GetApplicationBusAddress", dbus.FlagNoAutoStart).Store(&addr)
	if err == nil && addr != "" {
		if p, err := dialPeer(addr, t.sessionAddr, desktop.CallTimeout, t.peerDirs...); err == nil {
			t.peers[bus] = p
		}
	}
	return t.snapshotPeers()
}

// AllowPeersIn lets the walk reach an application's own server (a peer-to-peer
// connection) below dir as well as beside the session bus: a directory of the session's
// own that its programs write (a virtual session's HOME), never the host's (addr.go).
func (t *Tree) AllowPeersIn(dir string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.peerDirs = append(t.peerDirs, dir)
}

func (t *Tree) snapshotPeers() map[string]*peer {
	m := make(map[string]*peer, len(t.peers))
	for k, v := range t.peers {
		if v != nil {
			m[k] = v
		}
	}
	return m
}

func (t *Tree) bus(ctx context.Context) (*dbus.Conn, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.conn != nil && t.conn.Connected() {
		return t.conn, nil
	}
	ctx, cancel := context.WithTimeout(ctx, desktop.CallTimeout)
	defer cancel()
	s, err := dbus.Connect(t.sessionAddr, dbus.WithContext(ctx))
	if err != nil {
		return nil, werr.Wrap(err, werr.Unavailable, "cannot connect to the session D-Bus")
	}
	var addr string
	err = s.Object("org.a11y.Bus", "/org/a11y/bus").CallWithContext(ctx, "org.a11y.Bus.GetAddress", 0).Store(&addr)
	s.Close()
	if err != nil {
		return nil, werr.Wrap(err, werr.Unavailable, "the accessibility bus is not available").
			WithHint("install at-spi2-core")
	}
	c, err := dialBus(addr, t.sessionAddr)
	if err != nil {
		return nil, werr.Wrap(err, werr.Unavailable, "cannot connect to the accessibility bus")
	}
	t.conn = c
	return c, nil
}

// Tree returns the foreground window's tree down to maxDepth levels below the window
// (the window is depth 0) with at most maxElements nodes, cut breadth-first. Zero
// values take the policy defaults; larger values are clamped to the policy maxima.
func (t *Tree) Tree(ctx context.Context, maxDepth, maxElements int) (_ desktop.Node, _ desktop.Meta, err error) {
	var pid uint32 // the walked window's process, named by a TIMEOUT
	defer func() { err = desktop.UnansweredBy(err, int(pid)) }()
	maxDepth, maxElements, err = desktop.TreeLimits(maxDepth, maxElements)
	if err != nil {
		return desktop.Node{}, desktop.Meta{}, err
	}
	// Checked before the query starts: a window lookup would otherwise answer first.
	if err := werr.Done(ctx, "accessibility query"); err != nil {
		return desktop.Node{}, desktop.Meta{}, err
	}
	conn, err := t.bus(ctx)
	if err != nil {
		return desktop.Node{}, desktop.Meta{}, err
	}
	res, w, err := t.walkWindow(ctx, conn, 0, true, maxDepth, maxElements)
	if w != nil {
		pid = w.pid
	}
	if err == errNoForeground {
		return desktop.Node{}, desktop.Meta{}, nil
	}
	if xt, title, ok, xerr := t.xtWalk(ctx, err, maxDepth, maxElements); ok {
		if xerr != nil {
			return desktop.Node{}, desktop.Meta{}, xerr
		}
		root := build(xt.nodes)
		root.Name = title
		return root, desktop.Meta{Truncated: xt.truncated, Count: len(xt.nodes), Deeper: xt.deeper(), MaxDepth: maxDepth}, nil
	}
	if err != nil {
		return desktop.Node{}, desktop.Meta{}, err
	}
	if len(res.nodes) == 0 {
		return desktop.Node{}, desktop.Meta{}, werr.New(werr.NotFound, "the foreground window has no visible accessible elements")
	}
	for _, n := range res.nodes[1:] { // parents first
		clip(n, res.nodes[n.parent])
	}
	if err := w.markOffscreen(ctx, res); err != nil {
		return desktop.Node{}, desktop.Meta{}, err
	}
	root := build(res.nodes)
	// The top level of an application window is a Window in UI Automation terms, whatever
	// the toolkit calls it (Qt: "filler").
	root.Role = "Window"
	return root, desktop.Meta{Truncated: res.truncated, Count: len(res.nodes), Deeper: res.deeper(), MaxDepth: maxDepth}, nil
}

// markOffscreen marks, in a tree's walk res, what a search would not offer as on the screen
// (docs/accessibility.md#states): in a Qt window an element scrolled out of its view, in a
// GTK 4 window one that lies outside the window or under another element at its centre
// (covered: a page a stack hid).
func (w *walker) markOffscreen(ctx context.Context, res *walkResult) error {
	switch {
	case w.qt:
		parents := make(map[int]bool, len(res.nodes))
		for _, n := range res.nodes[1:] {
			parents[n.parent] = true
		}
		for _, n := range res.nodes[1:] {
			n.offscreen = n.hasBox && n.w > 0 && n.h > 0 && scrolledOut(n, res.nodes, parents)
		}
	case w.gtk4:
		under, err := w.covered(ctx, res, res.nodes[1:])
		if err != nil {
			return err
		}
		for i, n := range res.nodes[1:] {
			n.offscreen = under[i]
		}
	}
	return nil
}

// Applications are the processes of the applications registered with the accessibility
// bus now.
func (t *Tree) Applications(ctx context.Context) ([]int, error) {
	if err := werr.Done(ctx, "accessibility query"); err != nil {
		return nil, err
	}
	conn, err := t.bus(ctx)
	if err != nil {
		return nil, err
	}
	all, err := apps(ctx, conn, t.display)
	if err != nil {
		return nil, err
	}
	pids := []int{}
	for _, a := range all {
		if a.pid != 0 {
			pids = append(pids, int(a.pid))
		}
	}
	return pids, nil
}

// walkWindow walks the accessible frame of X window id (0: the active window), with
// boxes and values read during the walk when boxes is set. A remembered frame that
// turns out gone or hidden is looked up again, once.
func (t *Tree) walkWindow(ctx context.Context, conn *dbus.Conn, id uint32, boxes bool, maxDepth, maxElements int) (*walkResult, *walker, error) {
	for {
		win, cached, err := t.window(ctx, conn, id)
		if err != nil {
			return nil, nil, err
		}
		w := &walker{conn: conn, xid: win.xid, pid: win.pid, boxes: boxes, origin: win.origin, gtk4: win.gtk4, qt: win.qt,
			popups: func() ([]rect, error) { return xPopups(t.display, win.pid) }}
		if !win.busOnly {
			w.peers = t.peer(ctx, conn, win.frame.bus)
		}
		w.cache, w.cacheAfter = t.mayCache(win.frame.bus)
		var res *walkResult
		if !win.gtk4 {
			w.menuWindows, err = w.findMenuWindows(ctx, win.frame)
		}
		if err == nil {
			res, err = w.walk(ctx, win.frame, maxDepth, maxElements)
		}
		if err == nil {
			err = w.nameUnnamed(ctx, res)
		}
		if err == nil && boxes {
			nameByLabels(res.nodes)
		}
		switch {
		case err == nil && win.gtk4:
			err = w.mendGTK4(ctx, res, w.popups)
		case err == nil && boxes:
			err = w.mendMenus(res, w.popups)
		}
		if err == nil && win.qt {
			err = w.readScreenMenus(ctx, res, t.display, win.pid, maxDepth, maxElements)
		}
		t.mu.Lock()
		if w.noCache {
			t.noCache[win.frame.bus] = true
		}
		if w.cached {
			t.cachedWalks++
		}
		t.mu.Unlock()
		if cached && ctx.Err() == nil && (err != nil || len(res.nodes) == 0) {
			t.mu.Lock()
			delete(t.frames, win.xid)
			t.mu.Unlock()
			continue
		}
		return res, w, err
	}
}

// build nests a breadth-first node list (parents first) into a Node tree.
func build(nodes []*raw) desktop.Node {
	return desktop.Assemble(len(nodes), func(i int) int { return nodes[i].parent }, func(i int) desktop.Node {
		n := nodes[i]
		native := nativeName(n.role)
		if n.screen {
			native = "ocr"
		}
		return desktop.Node{Role: n.uia(), NativeRole: native, Name: n.name, Value: n.value,
			X: n.x, Y: n.y, Width: n.w, Height: n.h, States: n.stateNames()}
	})
}

// Find searches the foreground window (or q.WindowHandle) for matching elements, best
// first: exact name, then prefix, then substring; on screen and enabled before hidden
// or disabled; then in breadth-first order. At most MaxMatches are returned.
func (t *Tree) Find(ctx context.Context, q desktop.FindQuery) (_ []desktop.Match, err error) {
	var pid uint32 // the walked window's process, named by a TIMEOUT
	defer func() { err = desktop.UnansweredBy(err, int(pid)) }()
	needle, useValue, err := desktop.NeedleOf(q)
	if err != nil {
		return nil, err
	}
	rf, ok := parseRole(q.Role)
	if !ok {
		return nil, desktop.UnknownRole(q.Role)
	}
	// Checked before the query starts: a window lookup would otherwise answer first.
	if err := werr.Done(ctx, "accessibility query"); err != nil {
		return nil, err
	}
	conn, err := t.bus(ctx)
	if err != nil {
		return nil, err
	}
	res, w, err := t.walkWindow(ctx, conn, q.WindowHandle, false, desktop.FindMaxDepth, desktop.FindMaxElements)
	if w != nil {
		pid = w.pid
	}
	if err == errNoForeground {
		return nil, nil
	}
	if xt, _, ok, xerr := t.xtWalk(ctx, err, desktop.FindMaxDepth, desktop.FindMaxElements); ok {
		if xerr != nil {
			return nil, xerr
		}
		return xtFind(xt, rf, needle, useValue), nil
	}
	if err != nil {
		return nil, err
	}
	if needle != "" {
		if err := w.labelFields(ctx, res); err != nil {
			return nil, err
		}
	}
	type cand struct {
		n     *raw
		score int
		order int
	}
	var cands []cand
	var textCands []*raw // nodes whose value must be read before deciding
	for i, n := range res.nodes {
		if !rf.match(n.role, n.uia()) {
			continue
		}
		if needle == "" {
			cands = append(cands, cand{n: n, score: desktop.NoMatch, order: i})
			continue
		}
		if s := desktop.MatchRank(needle, n.name); s < desktop.NoMatch {
			cands = append(cands, cand{n: n, score: s, order: i})
		} else if useValue && (wantsText(n) || contentText(n)) {
			// The text of an editable field, or of a paragraph, label or heading whose
			// name is empty (Chromium gives paragraphs no name, only their text).
			n.readText = !wantsText(n)
			textCands = append(textCands, n)
		}
	}
	// Read extents and values of the candidates (and of fields whose text may match).
	all := make([]*raw, 0, len(cands)+len(textCands))
	for _, c := range cands {
		all = append(all, c.n)
	}
	all = append(all, textCands...)
	// In a Qt window, the ancestors too: an element below a hidden widget is hidden
	// (hiddenQt), whatever its own extents say. Elsewhere the parent of a match by name or
	// role (one whose parent has no area ranks after one on the screen) and of a text
	// match in a view, whose box clips its items' (clip); and a menu item's siblings.
	ancestors := map[int]int{} // node index -> its position in all
	read := func(p int) {
		if _, ok := ancestors[p]; !ok {
			ancestors[p] = len(all)
			all = append(all, res.nodes[p])
		}
	}
	for i, n := range all { // the candidates: range reads all once
		switch {
		case w.qt:
			for p := n.parent; p > 0; p = res.nodes[p].parent {
				read(p)
			}
		case n.parent > 0 && (i < len(cands) || viewRole(res.nodes[n.parent].role)):
			read(n.parent)
		}
		if !w.gtk4 && n.parent > 0 && menuRole(n.role) && menuRole(res.nodes[n.parent].role) {
			// The items of its menu, which say where the menu is (mendMenus).
			for _, s := range siblings(res.nodes, n.parent) {
				read(s)
			}
		}
	}
	okBox, err := w.details(ctx, all, true)
	if err != nil {
		return nil, err
	}
	// shown says whether n and each of its ancestors read (ancestors) are on the screen.
	shown := func(i int, n *raw) bool {
		if !okBox[i] || n.unplaced {
			return false
		}
		for p := n.parent; p > 0; p = res.nodes[p].parent {
			if j, ok := ancestors[p]; ok && !okBox[j] {
				return false
			}
		}
		return true
	}
	var kept []cand
	for i, c := range cands {
		if shown(i, c.n) {
			kept = append(kept, c)
		}
	}
	order := map[*raw]int{}
	for i, n := range res.nodes {
		order[n] = i
	}
	for i, n := range textCands {
		if !shown(len(cands)+i, n) {
			continue
		}
		if s := desktop.MatchRank(needle, n.value); s < desktop.NoMatch {
			kept = append(kept, cand{n: n, score: s + 3, order: order[n]})
		}
	}
	// A match takes the part of its box inside its view's (clip); what GTK 4 keeps under
	// what it shows is not offered (covered).
	matched := make([]*raw, len(kept))
	for i, c := range kept {
		matched[i] = c.n
		if _, ok := ancestors[c.n.parent]; ok {
			clip(c.n, res.nodes[c.n.parent])
		}
	}
	under, err := w.covered(ctx, res, matched)
	if err != nil {
		return nil, err
	}
	shownKept := kept[:0]
	for i, c := range kept {
		if !under[i] {
			shownKept = append(shownKept, c)
		}
	}
	kept = shownKept
	// A match in an open menu that lies in no pop-up takes its menu's shift (mendMenus),
	// from the menu's items read with it.
	var pops []rect
	var used []bool
	shifts := map[int][2]int{} // a menu's index -> what its items add
	for _, c := range kept {
		n, p := c.n, c.n.parent
		if w.gtk4 || p <= 0 || !menuRole(n.role) || !menuRole(res.nodes[p].role) {
			continue
		}
		o, done := shifts[p]
		if !done {
			if used == nil {
				if pops, err = w.popups(); err != nil {
					return nil, err
				}
				used = make([]bool, len(pops))
			}
			var items []*raw
			for _, s := range siblings(res.nodes, p) {
				if j, ok := ancestors[s]; ok && okBox[j] && menuRole(res.nodes[s].role) {
					items = append(items, res.nodes[s])
				}
			}
			dx, dy, _ := menuShift(res.nodes[p], items, pops, used)
			o = [2]int{dx, dy}
			shifts[p] = o
		}
		n.x += o[0]
		n.y += o[1]
	}
	// The items of closed menus are not offered (closedMenu), judged with the items of their
	// menu read with them, in the places the shift above gives them.
	closed := map[int]bool{} // a menu's index -> whether it is closed
	shifted := map[*raw]bool{}
	for _, c := range kept {
		shifted[c.n] = true
	}
	for _, c := range kept {
		p := c.n.parent
		if _, done := closed[p]; done || w.gtk4 || p <= 0 || c.n.state(stateShowing) || !menuRole(c.n.role) || !menuRole(res.nodes[p].role) {
			continue
		}
		if pops == nil {
			if pops, err = w.popups(); err != nil {
				return nil, err
			}
		}
		var items []*raw
		for _, s := range siblings(res.nodes, p) {
			if j, ok := ancestors[s]; ok && okBox[j] && menuRole(res.nodes[s].role) {
				n := *res.nodes[s]
				if !shifted[res.nodes[s]] {
					n.x, n.y = n.x+shifts[p][0], n.y+shifts[p][1]
				}
				items = append(items, &n)
			}
		}
		closed[p] = closedMenu(items, pops)
	}
	kept = slices.DeleteFunc(kept, func(c cand) bool { return closed[c.n.parent] && !c.n.state(stateShowing) })
	nodes := make([]*raw, len(kept))
	for i, c := range kept {
		nodes[i] = c.n
	}
	points, err := w.textPoints(ctx, nodes)
	if err != nil {
		return nil, err
	}
	out := make([]desktop.Candidate, len(kept))
	for i, c := range kept {
		n := c.n
		onScreen := n.hasBox && n.w > 0 && n.h > 0
		if _, ok := ancestors[n.parent]; ok {
			p := res.nodes[n.parent]
			// Under a parent of no area: LibreOffice keeps its own menu bar, 0 px high, under
			// GTK's, and its File, Edit... over the toolbar below (docs/accessibility.md).
			onScreen = onScreen && (!p.hasBox || p.w > 0 && p.h > 0)
		}
		if w.qt && scrolledOut(n, res.nodes, ancestors) {
			onScreen = false
			n.offscreen = true
		}
		out[i] = desktop.Candidate{M: desktop.Match{Role: n.uia(), Name: n.name, Value: n.value, X: n.x, Y: n.y, Width: n.w, Height: n.h, States: n.stateNames()},
			Score: c.score, Order: c.order, OnScreen: onScreen, Point: points[i],
			Enabled: n.state(stateEnabled) || n.state(stateSensitive)}
	}
	// A click point under a window stacked above the element's own moves to a part of its box
	// no window covers; an element covered whole ranks after those on the screen.
	if covers := t.covering(ctx, w.xid); len(covers) > 0 {
		for i := range out {
			if !desktop.Uncover(&out[i], covers) {
				out[i].OnScreen = false
				out[i].M.States = append(out[i].M.States, "covered")
			}
		}
	}
	return desktop.Ranked(out), nil
}

// covering are the frames of the windows stacked above X window xid, as the window manager
// lists them (none when it cannot say).
func (t *Tree) covering(ctx context.Context, xid uint32) []desktop.Rect {
	t.mu.Lock()
	if t.wins == nil {
		m, err := window.Open(t.display)
		if err != nil {
			t.mu.Unlock()
			return nil
		}
		t.wins = m
	}
	m := t.wins
	t.mu.Unlock()
	ws, err := m.List(ctx)
	if err != nil {
		return nil
	}
	var out []desktop.Rect
	for _, w := range ws { // topmost first
		if w.Handle == xid {
			return out
		}
		out = append(out, desktop.Rect{X: w.X, Y: w.Y, Width: w.Width, Height: w.Height})
	}
	return nil
}

// dialBus connects to the accessibility bus at addr, which the session bus's org.a11y.Bus
// gave: a socket beside the session bus (dialLocal), never another transport.
func dialBus(addr, sessionAddr string) (*dbus.Conn, error) {
	nc, err := dialLocal(addr, sessionAddr, desktop.CallTimeout)
	if err != nil {
		return nil, err
	}
	// The handshake within the call's time (whoever owns org.a11y.Bus may name a server
	// that never answers); no context after it: that would close the connection when
	// the call's ends.
	nc.SetDeadline(time.Now().Add(desktop.CallTimeout))
	c, err := dbus.NewConn(nc)
	if err != nil {
		nc.Close()
		return nil, err
	}
	if err := c.Auth(nil); err != nil {
		c.Close()
		return nil, err
	}
	if err := c.Hello(); err != nil {
		c.Close()
		return nil, err
	}
	nc.SetDeadline(time.Time{})
	return c, nil
}

// focusMaxElements bounds the walk Focused makes: type_text reads the focus before and after
// typing, and a whole window's walk (GNOME Fonts' grid of every font) takes seconds.
const focusMaxElements = 300

// Focused is the element of the foreground window that holds the keyboard focus, its text
// read as a field's value and its box as its extents give it: the first of the first
// focusMaxElements elements of the window, breadth first, that reads focused, a tab only when
// no other does; ok is false when none does.
func (t *Tree) Focused(ctx context.Context) (n desktop.Node, ok bool, err error) {
	conn, err := t.bus(ctx)
	if err != nil {
		return n, false, err
	}
	res, w, err := t.walkWindow(ctx, conn, 0, false, desktop.FindMaxDepth, focusMaxElements)
	if err == errNoForeground {
		return n, false, nil
	}
	if err != nil {
		return n, false, err
	}
	// Qt marks the current tab of every tab bar focused, the bar focused or not: a tab is the
	// focus only when no other element reads focused.
	var r *raw
	for _, c := range res.nodes[min(1, len(res.nodes)):] {
		if c.state(stateFocused) && (r == nil || r.role == rolePageTab && c.role != rolePageTab) {
			r = c
		}
	}
	if r == nil {
		return n, false, nil
	}
	// The walk read no values: read the focused element's.
	if _, err := w.details(ctx, []*raw{r}, true); err != nil {
		return n, false, err
	}
	return desktop.Node{Role: r.uia(), NativeRole: nativeName(r.role), Name: r.name, Value: r.value,
		X: r.x, Y: r.y, Width: r.w, Height: r.h, States: r.stateNames()}, true, nil
}
