//go:build linux

package atspi

import (
	"context"
	"image"
	"math"
	"slices"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"

	"github.com/w365/w365/engine/desktop/x11/screen"
	"github.com/w365/w365/engine/ocr"
)

// Qt 5 lists no pop-up among its application's children, and names its pop-up menu (a
// context menu: featherpad's text area's) only in events, which it sends only while a
// listener is registered, and then it passes every key press through the registry first, so
// that a shortcut overtook the text typed before it. A walk of a Qt window reads instead
// the lines of each pop-up menu window of its process that no element of the walk lies in
// from the screen (docs/accessibility.md#what-visible-means): they are the items of a menu,
// marked ocr, as the last child of the window's tree.

// maxScreenMenus is the most pop-up menus a walk reads from the screen, and maxScreenMenu
// the most pixels of each: a menu as tall as a 1080-line screen and 1024 pixels wide.
const (
	maxScreenMenus = 4
	maxScreenMenu  = 1024 * 1080
)

// ocrMinConfidence drops the words tesseract is unsure of: an item's icon read as "¥)" (8),
// and with it some words of greyed items (qpdfview's "Jump backward" reads "backward"); kept,
// the icons began more lines than the names did, and textColumn took theirs.
const ocrMinConfidence = 40

// xPopupMenus are the pop-up menus process pid shows now on displayName: the pop-ups
// (xPopups) whose window type (_NET_WM_WINDOW_TYPE, the first of its list) is a pop-up menu,
// as Qt marks a context menu's window; a menu bar's menu, which Qt lists below the item that
// opens it, reads as a drop-down menu first.
func xPopupMenus(displayName string, pid uint32) ([]rect, error) {
	return popupsOf(displayName, pid, popupMenuType)
}

// popupMenuType says whether window w's type, the first of its list (the one it prefers), is
// _NET_WM_WINDOW_TYPE_POPUP_MENU.
func popupMenuType(c *xgb.Conn, w xproto.Window) bool {
	v, err := prop(c, w, "_NET_WM_WINDOW_TYPE")
	if err != nil || v.Format != 32 || len(v.Value) < 4 {
		return false
	}
	a, err := xproto.InternAtom(c, true, uint16(len("_NET_WM_WINDOW_TYPE_POPUP_MENU")), "_NET_WM_WINDOW_TYPE_POPUP_MENU").Reply()
	return err == nil && a.Atom != 0 && xproto.Atom(xgb.Get32(v.Value)) == a.Atom
}

// readScreenMenus adds to res, a walk of a Qt window of process pid on displayName, each
// pop-up menu of that process that no menu of the walk lies in, read from the screen
// (screenMenu), as the last children of its root: within maxDepth and maxElements, as the
// walk (a menu at the walk's last level is not read: its items lie below it). A walk costs one
// look at the X server's pop-ups more; the screen is read only while such a menu is open, at
// most maxScreenMenus of them and of at most maxScreenMenu pixels each (a program of the
// session maps what pop-ups it likes). Where the screen cannot be read (no tesseract), the
// menu is left out, as the toolkit leaves it out.
func (w *walker) readScreenMenus(ctx context.Context, res *walkResult, displayName string, pid uint32, maxDepth, maxElements int) error {
	menus, err := xPopupMenus(displayName, pid)
	if err != nil || len(menus) == 0 || len(res.nodes) == 0 || maxDepth < 1 {
		return err
	}
	var known []*raw // the walk's menus, whose boxes say which pop-ups the toolkit lists
	for _, n := range res.nodes {
		if n.role == roleMenu || n.role == rolePopupMenu {
			known = append(known, n)
		}
	}
	if !w.boxes && len(known) > 0 {
		if _, err := w.details(ctx, known, false); err != nil {
			return err
		}
	}
	read := 0
	for _, m := range menus {
		listed := slices.ContainsFunc(known, func(n *raw) bool {
			return n.hasBox && n.w > 0 && n.h > 0 && n.x >= m.x && n.y >= m.y && n.x+n.w <= m.x+m.w && n.y+n.h <= m.y+m.h
		})
		if listed || m.w*m.h > maxScreenMenu || read == maxScreenMenus {
			continue
		}
		read++
		var items []*raw
		if maxDepth >= 2 {
			if items, err = screenMenu(ctx, displayName, m); err != nil {
				continue
			}
		}
		if len(res.nodes)+1+len(items) > maxElements {
			res.truncated = true
			return nil
		}
		menu := screenNode(rolePopupMenu, "", m)
		menu.parent, menu.depth, menu.cut = 0, 1, maxDepth < 2
		p := len(res.nodes)
		res.nodes = append(res.nodes, menu)
		for _, it := range items {
			it.parent, it.depth = p, 2
			res.nodes = append(res.nodes, it)
		}
	}
	return nil
}

// screenNode is an element read from the screen: showing and enabled (the screen does not
// say whether an item takes input), marked ocr.
func screenNode(role uint32, name string, r rect) *raw {
	return &raw{role: role, name: name, states: setState(setState(nil, stateShowing), stateEnabled),
		x: r.x, y: r.y, w: r.w, h: r.h, hasBox: true, screen: true}
}

// screenMenu reads the items of the menu shown at r on displayName: each line of its text
// (ocr.Lines, which splits a row at a gap wider than three line heights) that reaches the
// menu's text column is one item, named by its words from that column on (textColumn: an
// item's icon, left of it, reads as noise such as "j@"), placed at the box of those words; a
// line that begins further right is an item's shortcut ("Ctrl+Shift+V"), split from it.
func screenMenu(ctx context.Context, displayName string, r rect) ([]*raw, error) {
	lines, err := screenLines(ctx, displayName, r)
	if err != nil {
		return nil, err
	}
	col := textColumn(lines)
	var items []*raw
	for _, line := range lines {
		line = slices.DeleteFunc(line, func(b ocr.Box) bool { return b.X+b.Width <= col })
		if len(line) == 0 || line[0].X-col > 3*line[0].Height {
			continue
		}
		name, box := line[0].Text, image.Rect(line[0].X, line[0].Y, line[0].X+line[0].Width, line[0].Y+line[0].Height)
		for _, b := range line[1:] {
			name += " " + b.Text
			box = box.Union(image.Rect(b.X, b.Y, b.X+b.Width, b.Y+b.Height))
		}
		items = append(items, screenNode(roleMenuItem, name, rect{box.Min.X, box.Min.Y, box.Dx(), box.Dy()}))
	}
	return items, nil
}

// textColumn is where the names of a menu's items begin, less a slack of 3 px: the place
// most of its lines begin at (within 3 px of it), when two lines at least do; else the menu's
// left, which keeps every word.
func textColumn(lines [][]ocr.Box) int {
	col, most := math.MinInt, 1
	for _, l := range lines {
		k := 0
		for _, m := range lines {
			if abs(m[0].X-l[0].X) <= 3 {
				k++
			}
		}
		if k > most || k == most && l[0].X-3 < col {
			col, most = l[0].X-3, k
		}
	}
	return col
}

// screenLines reads the text shown at r on displayName, as lines of words (ocr.Lines) in
// screen coordinates.
func screenLines(ctx context.Context, displayName string, r rect) ([][]ocr.Box, error) {
	s, err := screen.Open(displayName)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	area := image.Rect(r.x, r.y, r.x+r.w, r.y+r.h)
	img, err := s.Capture(ctx, area)
	if err != nil {
		return nil, err
	}
	img.Rect = img.Rect.Add(area.Min) // the boxes come back in screen coordinates
	text, err := ocr.Analyze(ctx, img, ocr.Options{Fine: true, MinConfidence: ocrMinConfidence})
	if err != nil {
		return nil, err
	}
	return ocr.Lines(text.Boxes), nil
}
