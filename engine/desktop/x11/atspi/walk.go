//go:build linux

package atspi

import (
	"context"
	"image"
	"math"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/godbus/dbus/v5"
	"github.com/w365/w365/engine/desktop"
)

const (
	ifAccessible = "org.a11y.atspi.Accessible"
	ifComponent  = "org.a11y.atspi.Component"
	ifText       = "org.a11y.atspi.Text"
	ifValue      = "org.a11y.atspi.Value"
	ifProps      = "org.freedesktop.DBus.Properties"
)

// AT-SPI state bits (AtspiStateType).
const (
	stateActive        = 1
	stateChecked       = 4
	stateDefunct       = 6
	stateEditable      = 7
	stateEnabled       = 8
	stateExpanded      = 10
	stateFocused       = 12
	stateSelected      = 23
	stateSensitive     = 24
	stateShowing       = 25
	stateVisible       = 30
	stateManages       = 31 // MANAGES_DESCENDANTS
	stateIndeterminate = 32
)

// coordinate types of Component.GetExtents.
const (
	coordScreen = 0
	coordWindow = 1
)

// raw is one accessible object as read from its application.
type raw struct {
	ref      ref
	parent   int // index into the walk's node list, -1 for the root
	depth    int
	role     uint32
	name     string
	states   []uint32
	children []ref

	x, y, w, h int
	hasBox     bool
	value      string
	readText   bool // read the Text interface into value (a content node a text search looks into)
	// textLen: characters to read again (Qt answers GetText(0, end) with "" when end is
	// past its text; fetchTexts reads them with an end within it).
	textLen int32
	class   string // the class GTK 4 named it by (gtkTypeName) instead of a name; mendGTK4 names it
	// cut: the walk read none of its children, which lie below maxDepth.
	cut bool
	// unplaced: the toolkit answered -1,-1 -1x-1, no place on the screen (unplacedBox).
	unplaced bool
	// offscreen: not where its box says, for a click at its centre: scrolled out of its view
	// (Qt, scrolledOut) or under what the window shows there (GTK 4, covered).
	offscreen bool
	// screen: read from the screen, not from the toolkit (readScreenMenus); it has no object.
	screen bool
	// later: its children are not read yet; count is their number, read first (laterChildren).
	later bool
	count int32
}

func (n *raw) state(bit uint) bool {
	w := bit / 32
	return int(w) < len(n.states) && n.states[w]&(1<<(bit%32)) != 0
}

// setState is states with bit set, as a copy (states may be the cache's).
func setState(states []uint32, bit uint) []uint32 {
	out := make([]uint32, max(len(states), int(bit/32)+1))
	copy(out, states)
	out[bit/32] |= 1 << (bit % 32)
	return out
}

func (n *raw) uia() string { return uiaRole(n.role, n.state(stateEditable)) }

// stateNames are the states of desktop.Node: what a control is set to, and whether it
// takes input (disabled only for controls, as toolkits leave containers unmarked).
func (n *raw) stateNames() []string {
	var out []string
	switch {
	case n.state(stateIndeterminate) && (n.state(stateChecked) || n.role == roleCheckBox):
		out = append(out, "mixed")
	case n.state(stateChecked):
		out = append(out, "checked")
	}
	for _, s := range []struct {
		bit  uint
		name string
	}{{stateSelected, "selected"}, {stateExpanded, "expanded"}, {stateFocused, "focused"}} {
		if n.state(s.bit) {
			out = append(out, s.name)
		}
	}
	if n.offscreen {
		out = append(out, "offscreen")
	}
	if n.screen {
		out = append(out, "ocr")
	}
	switch n.uia() {
	case "Button", "CheckBox", "RadioButton", "MenuItem", "ComboBox", "Edit", "Spinner", "Slider":
		if !n.state(stateEnabled) && !n.state(stateSensitive) {
			out = append(out, "disabled")
		}
	}
	return out
}

// walker reads a window's subtree breadth-first, one pipelined batch per level.
type walker struct {
	conn  *dbus.Conn
	xid   uint32 // the X window walked
	pid   uint32 // its process, as this process sees it (0: unknown)
	peers map[string]*peer
	// boxes: read extents (and values) of every kept node during the walk.
	boxes bool
	// origin: when non-nil the application reports no screen positions (GTK4), so
	// extents are read in window coordinates and shifted by this origin; shift: by this
	// offset instead, for the nodes in a GTK 4 pop-up (mendGTK4).
	origin *[2]int
	shift  map[*raw][2]int
	// gtk4: the window is GTK 4's (4.8), which never sets SHOWING below the window (VISIBLE
	// decides) and names an element without a name by its class (gtkTypeName).
	gtk4 bool
	// qt: the window is Qt's, whose hidden widgets read SHOWING (hiddenQt).
	qt bool
	// popups lists the pop-up windows the window's application shows (xPopups).
	popups func() ([]rect, error)
	// cache: read the application's Cache.GetItems first; noCache: the walk found that the
	// application's cache does not hold the window (not worth asking again); cached: the
	// walk took what it could from the cache, items.
	cache, noCache, cached bool
	cacheAfter             int
	items                  *appCache
	// menuWindows: the application's pop-up windows holding an open menu, which the walk
	// takes as the last children of its root (findMenuWindows).
	menuWindows []ref
}

// info reads role, states, name and (if kids) the children of each ref. It asks no
// GetInterfaces: the role says which calls make sense (valueRole, wantsText, shownText),
// and a call an object does not implement just fails alone; GetInterfaces made the walk
// of a Chromium window a quarter to a half slower (docs/accessibility.md).
func (w *walker) info(ctx context.Context, refs []ref, kids bool) ([]raw, error) {
	b := &batch{conn: w.conn, peers: w.peers}
	apply := w.addInfo(b, refs, kids)
	if err := b.run(ctx); err != nil {
		return nil, err
	}
	out := apply()
	return out, w.laterChildren(ctx, out)
}

// maxManagedChildren bounds the children read of an object that manages its descendants:
// LibreOffice Calc's sheet counts every cell of its 1,048,576 rows and 16,384 columns, and
// the GetChildren that took them all made it build an object for each cell, its memory
// growing past a gigabyte while it answered no other call (docs/accessibility.md). A GTK 2
// tree view, the other kind met, counts one child per row and cell.
const maxManagedChildren = 10000

// laterChildren reads the children of each node of nodes whose number of children addInfo read
// instead (later: every node read live, and each the cache says manages its descendants),
// unless it manages its descendants and counts more than maxManagedChildren: that one keeps
// none. One batch, asked only when there is such a node: a level read live costs two round
// trips, a level read from the cache one.
func (w *walker) laterChildren(ctx context.Context, nodes []raw) error {
	b := &batch{conn: w.conn, peers: w.peers}
	calls := make([]*call, len(nodes))
	refs := make([][]objRef, len(nodes))
	asked := false
	for i := range nodes {
		if n := &nodes[i]; n.later && (n.count <= maxManagedChildren || !n.state(stateManages)) {
			calls[i] = b.add(n.ref, ifAccessible+".GetChildren", []any{&refs[i]})
			asked = true
		}
	}
	if !asked {
		return nil
	}
	if err := b.run(ctx); err != nil {
		return err
	}
	for i, c := range calls {
		if c != nil && c.err == nil {
			for _, r := range refs[i] {
				nodes[i].children = append(nodes[i].children, ref{r.Bus, r.Path})
			}
		}
	}
	return nil
}

// addInfo queues the calls of info on b; apply, once b has run, returns the nodes.
func (w *walker) addInfo(b *batch, refs []ref, kids bool) (apply func() []raw) {
	out := make([]raw, len(refs))
	type pend struct{ role, state, children, count *call }
	ps := make([]pend, len(refs))
	names := make([]dbus.Variant, len(refs))
	counts := make([]dbus.Variant, len(refs))
	childRefs := make([][]objRef, len(refs))
	cached := make([][]*cacheItem, len(refs))
	for i, r := range refs {
		out[i].ref = r
		n := &out[i]
		if it := w.items.item(r); it != nil {
			// Role, states and name from the cache; the children too, where it holds them all.
			n.role, n.states, n.name = it.Role, it.States, it.Name
			if kids && it.Count < 0 {
				ps[i].count = b.add(r, ifProps+".Get", []any{&counts[i]}, ifAccessible, "ChildCount")
			} else if kids {
				var ok bool
				if cached[i], ok = w.items.complete(it); !ok {
					ps[i].children = b.add(r, ifAccessible+".GetChildren", []any{&childRefs[i]})
				}
			}
			continue
		}
		ps[i].role = b.add(r, ifAccessible+".GetRole", []any{&n.role})
		ps[i].state = b.add(r, ifAccessible+".GetState", []any{&n.states})
		b.add(r, ifProps+".Get", []any{&names[i]}, ifAccessible, "Name")
		if kids {
			// Their number first, its states in the same batch: the children once those say
			// how many there are (laterChildren).
			ps[i].count = b.add(r, ifProps+".Get", []any{&counts[i]}, ifAccessible, "ChildCount")
		}
	}
	return func() []raw {
		for i := range out {
			n := &out[i]
			for _, c := range cached[i] {
				n.children = append(n.children, ref{n.ref.bus, c.Ref.Path})
			}
			if ps[i].role != nil {
				if ps[i].role.err != nil || ps[i].state.err != nil {
					// The object is gone (or never answered): treat it as hidden.
					n.states = nil
					continue
				}
				if s, ok := names[i].Value().(string); ok {
					n.name = s
				}
			}
			if w.gtk4 && gtkTypeName(n.name) {
				n.name, n.class = "", n.name
			}
			if w.qt && n.role == rolePageTab && n.state(stateFocused) {
				// Qt marks the current tab of a tab bar FOCUSED, never SELECTED, wherever
				// the keyboard focus is.
				n.states = setState(n.states, stateSelected)
			}
			if c := ps[i].count; c != nil {
				n.count, _ = counts[i].Value().(int32)
				n.later = true
			}
			if ps[i].children != nil && ps[i].children.err == nil {
				for _, c := range childRefs[i] {
					n.children = append(n.children, ref{c.Bus, c.Path})
				}
			}
		}
		return out
	}
}

// visible says whether a node belongs in a result (the rule per toolkit is in
// docs/accessibility.md): not defunct, and SHOWING; or VISIBLE where the toolkit does not
// maintain SHOWING: below a GTK 4 window (gtk4), and for the menus and menu
// items of every toolkit (GTK 2's gail leaves the items of an open menu VISIBLE, never
// SHOWING). A node that passes on VISIBLE alone must then report on-screen extents
// (onScreen): a closed menu's items report INT_MIN.
func (w *walker) visible(n *raw) bool {
	shown := n.state(stateShowing) || (n.state(stateVisible) && (w.gtk4 || menuRole(n.role)))
	return shown && !n.state(stateDefunct)
}

// menuRole says whether role is a menu or one of its items.
func menuRole(role uint32) bool {
	switch role {
	case roleMenu, rolePopupMenu, roleMenuItem, roleCheckMenuItem, roleRadioMenuItem, roleTearoffMenuItem:
		return true
	}
	return false
}

// details reads extents (Component) and values (Value, or the text of editable fields
// and of unnamed read-only text) of the given nodes in one pipelined batch. ok[i] is false
// for a node whose extents are INT_MIN (hidden menu items), or, for a node visible on
// VISIBLE alone, that reports no on-screen box.
func (w *walker) details(ctx context.Context, nodes []*raw, values bool) ([]bool, error) {
	b := &batch{conn: w.conn, peers: w.peers}
	apply := w.addDetails(b, nodes, values)
	if err := b.run(ctx); err != nil {
		return nil, err
	}
	ok := apply()
	return ok, w.fetchTexts(ctx, nodes)
}

// fetchTexts reads again the texts of nodes that came back empty although their Text
// interface counts characters (textLen), with an end offset within the text.
func (w *walker) fetchTexts(ctx context.Context, nodes []*raw) error {
	b := &batch{conn: w.conn, peers: w.peers}
	texts := make([]string, len(nodes))
	calls := make([]*call, len(nodes))
	for i, n := range nodes {
		if n.textLen > 0 {
			calls[i] = b.add(n.ref, ifText+".GetText", []any{&texts[i]}, int32(0), n.textLen)
		}
	}
	if err := b.run(ctx); err != nil {
		return err
	}
	for i, n := range nodes {
		if c := calls[i]; c != nil {
			if c.err == nil {
				n.value = texts[i]
			}
			n.textLen = 0
		}
	}
	return nil
}

// nameUnnamed names each button of res that has no name by its description, where GTK 2 and
// GTK 3 put its tooltip: a person sees the tooltip on pointing at it, where the tree read
// `Button ""` (gpicview's four rotate and flip buttons; "Rotate Clockwise" is their second's).
// GTK 4 names such a button by its class, and mendGTK4 replaces that with the description.
// It names each table cell that has no name and holds cells by theirs (addCellNames).
func (w *walker) nameUnnamed(ctx context.Context, res *walkResult) error {
	var unnamed, cells []*raw
	for _, n := range res.nodes {
		switch {
		case n.name != "":
		case n.role == rolePushButton || n.role == roleToggleButton || n.role == rolePushButtonMenu:
			unnamed = append(unnamed, n)
		case n.role == roleTableCell && len(n.children) > 0:
			cells = append(cells, n)
		}
	}
	b := &batch{conn: w.conn, peers: w.peers}
	named := addDescriptions(b, unnamed)
	cellsNamed := w.addCellNames(b, cells)
	if err := b.run(ctx); err != nil {
		return err
	}
	named()
	cellsNamed()
	return nil
}

// addCellNames queues a read of the roles and names of the children of each of cells on b;
// named, once b has run, names each cell by the names of its children that are cells, in
// order, joined by a space. A GTK 3 tree view makes a column that draws an icon beside
// its text (xfce4-taskmanager's Task) one cell holding a cell for each renderer, and names
// only those: the tree read `DataItem ""` for each task, above its name one level deeper
// (docs/accessibility.md).
func (w *walker) addCellNames(b *batch, cells []*raw) (named func()) {
	roles := make([][]uint32, len(cells))
	names := make([][]dbus.Variant, len(cells))
	for i, n := range cells {
		roles[i] = make([]uint32, len(n.children))
		names[i] = make([]dbus.Variant, len(n.children))
		for j, c := range n.children {
			if it := w.items.item(c); it != nil {
				roles[i][j], names[i][j] = it.Role, dbus.MakeVariant(it.Name)
				continue
			}
			b.add(c, ifAccessible+".GetRole", []any{&roles[i][j]})
			b.add(c, ifProps+".Get", []any{&names[i][j]}, ifAccessible, "Name")
		}
	}
	return func() {
		for i, n := range cells {
			var parts []string
			for j := range n.children {
				if s, ok := names[i][j].Value().(string); ok && roles[i][j] == roleTableCell && strings.TrimSpace(s) != "" {
					parts = append(parts, strings.TrimSpace(s))
				}
			}
			n.name = strings.Join(parts, " ")
		}
	}
}

// addDescriptions queues a read of the description of each of nodes on b; named, once b has
// run, names each node by its description where that was read.
func addDescriptions(b *batch, nodes []*raw) (named func()) {
	descs := make([]dbus.Variant, len(nodes))
	for i, n := range nodes {
		b.add(n.ref, ifProps+".Get", []any{&descs[i]}, ifAccessible, "Description")
	}
	return func() {
		for i, n := range nodes {
			if s, ok := descs[i].Value().(string); ok {
				n.name = strings.TrimSpace(s)
			}
		}
	}
}

// textPoints are the middles of the texts of the spin buttons among nodes (their numbers,
// read by the Text interface's range extents), where a click goes into the field; nil where
// there is none or it lies outside the node's box. A GTK 3 spin button's − and + buttons fill
// the right of its box, so its centre lies on the − button: a click there stepped the value
// down and left the focus where it was (docs/accessibility.md).
func (w *walker) textPoints(ctx context.Context, nodes []*raw) ([]*image.Point, error) {
	b := &batch{conn: w.conn, peers: w.peers}
	boxes := make([][4]int32, len(nodes))
	calls := make([]*call, len(nodes))
	coord := uint32(coordScreen)
	if w.origin != nil {
		coord = coordWindow
	}
	for i, n := range nodes {
		if k := utf8.RuneCountInString(n.value); n.role == roleSpinButton && k > 0 && n.hasBox {
			bx := &boxes[i]
			calls[i] = b.add(n.ref, ifText+".GetRangeExtents", []any{&bx[0], &bx[1], &bx[2], &bx[3]}, int32(0), int32(k), coord)
		}
	}
	if err := b.run(ctx); err != nil {
		return nil, err
	}
	pts := make([]*image.Point, len(nodes))
	for i, n := range nodes {
		if c := calls[i]; c == nil || c.err != nil || boxes[i][2] <= 0 || boxes[i][3] <= 0 {
			continue
		}
		bx := boxes[i]
		p := image.Pt(int(bx[0]+bx[2]/2), int(bx[1]+bx[3]/2))
		if w.origin != nil {
			p = p.Add(image.Pt(w.origin[0], w.origin[1]))
		}
		if p.In(image.Rect(n.x, n.y, n.x+n.w, n.y+n.h)) {
			pts[i] = &p
		}
	}
	return pts, nil
}

// addDetails queues the calls of details on b; apply, once b has run, stores them.
func (w *walker) addDetails(b *batch, nodes []*raw, values bool) (apply func() []bool) {
	boxes := make([]extents, len(nodes))
	bcalls := make([]*call, len(nodes))
	vals := make([]dbus.Variant, len(nodes))
	vcalls := make([]*call, len(nodes))
	texts := make([]string, len(nodes))
	tcalls := make([]*call, len(nodes))
	counts := make([]dbus.Variant, len(nodes))
	ccalls := make([]*call, len(nodes))
	coord := uint32(coordScreen)
	if w.origin != nil {
		coord = coordWindow
	}
	for i, n := range nodes {
		if n.screen {
			continue // its box is where it was read
		}
		bcalls[i] = b.add(n.ref, ifComponent+".GetExtents", []any{&boxes[i]}, coord)
		if !values {
			continue
		}
		if valueRole(n.role) {
			vcalls[i] = b.add(n.ref, ifProps+".Get", []any{&vals[i]}, ifValue, "CurrentValue")
		} else if wantsText(n) || shownText(n) || n.readText {
			tcalls[i] = b.add(n.ref, ifText+".GetText", []any{&texts[i]}, int32(0), int32(desktop.MaxValueChars))
			ccalls[i] = b.add(n.ref, ifProps+".Get", []any{&counts[i]}, ifText, "CharacterCount")
		}
	}
	return func() []bool {
		ok := make([]bool, len(nodes))
		for i, n := range nodes {
			ok[i] = true
			if c := bcalls[i]; c != nil && c.err == nil {
				bx := boxes[i]
				if bx.X == math.MinInt32 || bx.Y == math.MinInt32 || (!n.state(stateShowing) && (bx.W <= 0 || bx.H <= 0)) ||
					(w.qt && hiddenQt(bx)) {
					ok[i] = false
					continue
				}
				n.x, n.y, n.w, n.h, n.hasBox = int(bx.X), int(bx.Y), int(bx.W), int(bx.H), true
				n.unplaced = bx == unplacedBox
				if o, ok := w.shift[n]; ok {
					n.x += o[0]
					n.y += o[1]
				} else if w.origin != nil {
					n.x += w.origin[0]
					n.y += w.origin[1]
				}
			}
			if c := vcalls[i]; c != nil && c.err == nil {
				n.value = desktop.FormatValue(vals[i].Value())
			}
			if c := tcalls[i]; c != nil && c.err == nil {
				n.value = texts[i]
				if cnt, ok := counts[i].Value().(int32); ok && n.value == "" && ccalls[i].err == nil && cnt > 0 {
					n.textLen = min(cnt, int32(desktop.MaxValueChars))
				}
			}
		}
		return ok
	}
}

// unplacedBox is the extents a toolkit gives an element it has not placed: a GTK 3 notebook
// page whose tabs are hidden (Gnumeric's sheets), Firefox's fields while their page lays out.
// The tree shows it, with what lies in it; a search does not offer it (no click can reach it).
var unplacedBox = extents{-1, -1, -1, -1}

// hiddenQt says whether a Qt element's extents are those of a hidden widget: Qt answers
// an empty rectangle at the screen's corner for a widget that is not shown, yet keeps it
// SHOWING, and its children (a closed combo box's list items) keep the places they had
// when last shown, inside the window (docs/accessibility.md).
func hiddenQt(bx extents) bool { return bx.X == 0 && bx.Y == 0 && bx.W == 0 && bx.H == 0 }

// viewRole says whether role is a view that shows its items within its own box: a list,
// list box, table or tree.
func viewRole(role uint32) bool {
	switch role {
	case roleList, roleListBox, roleTable, roleTree, roleTreeTable:
		return true
	}
	return false
}

// clip narrows the box of n, a child of view p (viewRole), to the part inside p's box: a
// view shows its items within it, and Qt reports the items of a combo box's open list
// nearly twice as wide as the list (249 px in 133), a column scrolled half out its full
// width, so that the centre of an item could lie outside the list. A box that does not
// meet the view's stays as it is.
func clip(n, p *raw) {
	if !viewRole(p.role) || !n.hasBox || !p.hasBox {
		return
	}
	x0, y0 := max(n.x, p.x), max(n.y, p.y)
	x1, y1 := min(n.x+n.w, p.x+p.w), min(n.y+n.h, p.y+p.h)
	if x1 > x0 && y1 > y0 {
		n.x, n.y, n.w, n.h = x0, y0, x1-x0, y1-y0
	}
}

// containerRole says whether role only holds other elements, clipping them to its box.
func containerRole(role uint32) bool {
	switch role {
	case roleFiller, rolePanel, roleScrollPane, roleViewport, roleLayeredPane:
		return true
	}
	return false
}

// scrolledOut says whether n's centre lies outside the box of a container it lies in, among
// its ancestors read (read: node index -> anything), up to the first ancestor that is no
// container and does not hold n's centre in its box (a list, a combo box or a menu shows its
// items outside its own box; a checkable group box, which Qt calls a check box, holds its
// widgets inside it): Qt keeps the widgets a scroll area has scrolled out of its viewport
// SHOWING, at their places beyond it (KeePassXC's settings, 1130 px tall in a 348 px view;
// qBittorrent's log file settings, in a group box), where a click hits something else.
func scrolledOut[V any](n *raw, nodes []*raw, read map[int]V) bool {
	cx, cy := n.x+n.w/2, n.y+n.h/2
	for p := n.parent; p >= 0; p = nodes[p].parent {
		a := nodes[p]
		if _, ok := read[p]; !ok {
			return false
		}
		outside := a.hasBox && a.w > 0 && a.h > 0 && (cx < a.x || cy < a.y || cx >= a.x+a.w || cy >= a.y+a.h)
		switch {
		case !containerRole(a.role) && (outside || !a.hasBox || a.w <= 0 || a.h <= 0):
			return false
		case outside:
			return true
		}
	}
	return false
}

// valueRole says whether a role's value is its Value interface's CurrentValue (a range).
func valueRole(role uint32) bool {
	switch role {
	case roleSlider, roleScrollBar, roleProgressBar, roleSpinButton, roleLevelBar, roleDial:
		return true
	}
	return false
}

// shownText says whether a node's text is its value because nothing else shows it: a
// read-only text or label without a name (a calculator's display keeps "408" in its Text
// interface only). A named label's text is its name.
func shownText(n *raw) bool {
	switch n.role {
	case roleText, roleLabel, roleStatic, roleParagraph, roleCaption, roleIcon, roleImage:
		return n.name == "" && !n.state(stateEditable)
	case rolePage:
		return leafPage(n)
	}
	return false
}

// leafPage says whether n is a page that holds its text itself, with no children to hold
// it: the page a document viewer shows (Atril's and Evince's, the text of the PDF's page).
func leafPage(n *raw) bool { return n.role == rolePage && len(n.children) == 0 }

// wantsText says whether a node's text content is its value (editable fields, and a
// terminal, whose text is its screen whether it reads editable or not: VTE's does not), as
// opposed to labels and documents whose text is their name or their children.
func wantsText(n *raw) bool {
	switch n.role {
	case roleEntry, rolePasswordText, roleSpinButton, roleEditbar, roleAutocomplete, roleComboBox, roleTerminal:
		return true
	case roleText:
		return n.state(stateEditable)
	}
	return false
}

// contentText says whether a node's own text is page content a text search looks
// into: a paragraph, label, heading or cell, say, or a page with no children (leafPage),
// not a container (a document's text holds all of its children's).
func contentText(n *raw) bool {
	switch n.role {
	case roleParagraph, roleLabel, roleStatic, roleHeading, roleCaption, roleTableCell, roleListItem, roleLink, roleBlockQuote, roleComment, roleDescriptionValue:
		return true
	case roleText:
		return !n.state(stateEditable)
	case rolePage:
		return leafPage(n)
	}
	return false
}

// maxLevels bounds the levels a walk reads, unnamed panels included (see walk).
const maxLevels = 40

// passThrough says whether a node only wraps another: a panel or filler with no name and
// one child. Its child stands at its depth.
func passThrough(n *raw) bool {
	return (n.role == rolePanel || n.role == roleFiller) && n.name == "" && len(n.children) == 1
}

// walkResult is a breadth-first list of kept nodes (parents before children).
type walkResult struct {
	nodes     []*raw
	truncated bool
}

// deeper counts the kept nodes whose children lie below the walk's maxDepth.
func (r *walkResult) deeper() int {
	k := 0
	for _, n := range r.nodes {
		if n.cut {
			k++
		}
	}
	return k
}

// walk reads root's subtree down to maxDepth (root is depth 0), keeping at most
// maxElements visible nodes in breadth-first order. An unnamed panel or filler that wraps
// one child does not count in the depth (passThrough): toolkits nest them deep, and a
// GTK file chooser's places and files lay below depth 10 in them. With w.boxes, extents and values of
// each level are read in the same batch as the next level's roles and states, so a
// walk costs about one round trip per level, two where its objects are read live
// (laterChildren).
//
// With w.cache, once the walk has met more than w.cacheAfter objects (cacheAfter), the
// application's Cache.GetItems is read, in one call: the roles, states, names and children it
// holds are not asked again (addInfo), and a level then costs only the extents and values of
// the level above. A smaller walk does not read it: the cache holds the whole application.
func (w *walker) walk(ctx context.Context, root ref, maxDepth, maxElements int) (*walkResult, error) {
	met := 0
	res := &walkResult{}
	type cand struct {
		r      ref
		parent int
		depth  int // in the nodes that count
	}
	level := []cand{{r: root, parent: -1}}
	var pending []*raw // kept nodes whose details are not read yet
	dropped := map[*raw]bool{}
	for level0 := 0; len(level) > 0 && level0 <= maxLevels; level0++ {
		var next []cand
		for i := 0; i < len(level); {
			room := maxElements - len(res.nodes)
			if room <= 0 {
				res.truncated = true
				break
			}
			chunk := level[i:min(len(level), i+room)]
			i += len(chunk)
			if met += len(chunk); w.cache && w.items == nil && !w.noCache && met > w.cacheAfter {
				c, err := w.readCache(ctx, root.bus)
				if err != nil {
					return nil, err
				}
				if c != nil && c.items[root.path] != nil {
					w.items, w.cached = c, true
				} else {
					w.noCache = true
				}
			}
			refs := make([]ref, len(chunk))
			for j, c := range chunk {
				refs[j] = c.r
			}
			b := &batch{conn: w.conn, peers: w.peers}
			infoDone := w.addInfo(b, refs, true)
			var detDone func() []bool
			det := pending
			pending = nil
			if len(det) > 0 {
				detDone = w.addDetails(b, det, true)
			}
			if err := b.run(ctx); err != nil {
				return nil, err
			}
			if detDone != nil {
				for j, ok := range detDone() {
					if !ok {
						dropped[det[j]] = true
					}
				}
			}
			infos := infoDone()
			if err := w.laterChildren(ctx, infos); err != nil {
				return nil, err
			}
			for j := range infos {
				n := &infos[j]
				p := chunk[j].parent
				if !w.visible(n) || (p >= 0 && dropped[res.nodes[p]]) {
					continue
				}
				n.parent, n.depth = p, chunk[j].depth
				idx := len(res.nodes)
				res.nodes = append(res.nodes, n)
				if w.boxes {
					pending = append(pending, n)
				}
				d := n.depth
				if !passThrough(n) {
					d++
				}
				if d > maxDepth {
					n.cut = len(n.children) > 0
					continue
				}
				kids := n.children
				if p < 0 {
					kids = append(slices.Clip(kids), w.menuWindows...)
				}
				for _, c := range kids {
					next = append(next, cand{r: c, parent: idx, depth: d})
				}
			}
		}
		if res.truncated {
			break
		}
		level = next
	}
	if len(pending) > 0 {
		ok, err := w.details(ctx, pending, true)
		if err != nil {
			return nil, err
		}
		for j := range ok {
			if !ok[j] {
				dropped[pending[j]] = true
			}
		}
	}
	if err := w.fetchTexts(ctx, res.nodes); err != nil {
		return nil, err
	}
	// Nodes with INT_MIN extents go; their children were never taken.
	res.remove(dropped)
	return res, nil
}

// remove takes the nodes in gone out of r, none of whose children may stay.
func (r *walkResult) remove(gone map[*raw]bool) {
	if len(gone) == 0 {
		return
	}
	remap := make([]int, len(r.nodes))
	kept := r.nodes[:0]
	for i, n := range r.nodes {
		if gone[n] {
			remap[i] = -1
			continue
		}
		remap[i] = len(kept)
		if n.parent >= 0 {
			n.parent = remap[n.parent]
		}
		kept = append(kept, n)
	}
	r.nodes = kept
}
