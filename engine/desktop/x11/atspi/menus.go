//go:build linux

package atspi

import (
	"context"
	"slices"
)

// What LibreOffice (GTK 3) reports of an open menu, and how a walk mends it
// (docs/accessibility.md#what-visible-means): its items' extents are their places in the
// menu's pop-up window plus the origin of the application's main window, not of the pop-up
// (the items of its Format menu, open at 181,44, read from 0,19 down).

// menuSlack is how much larger than the union of its items a menu's pop-up window may be
// (its borders and padding).
const menuSlack = 16

// menuShift is what the boxes of items, the items of the open menu menu, must add to lie in
// the pop-up window of shown that shows them: nothing (ok false) when the menu's own box is
// a pop-up, or their union lies in one, already (that one is then used), or when no unused
// pop-up fits its size; else the offset into the unused one whose size fits best, which is
// then used. A menu that reports its pop-up reports its items in the same coordinates: GTK 3
// opens a combo box's menu near the bottom of the screen in a pop-up moved up to fit, its
// items scrolled down and running past its bottom, where their union fits the pop-up's size
// but lies in none.
func menuShift(menu *raw, items []*raw, shown []rect, used []bool) (dx, dy int, ok bool) {
	if menu.hasBox {
		if k := slices.Index(shown, rect{menu.x, menu.y, menu.w, menu.h}); k >= 0 {
			used[k] = true
			return 0, 0, false
		}
	}
	u := union(items, func(*raw) bool { return true })
	if u.w == 0 {
		return 0, 0, false
	}
	for k, p := range shown {
		if p.holds(u) {
			used[k] = true
			return 0, 0, false
		}
	}
	best, bestFit := -1, 0
	for k, p := range shown {
		dw, dh := p.w-u.w, p.h-u.h
		if used[k] || dw < 0 || dh < 0 || dw > menuSlack || dh > menuSlack {
			continue
		}
		if best < 0 || dw+dh < bestFit {
			best, bestFit = k, dw+dh
		}
	}
	if best < 0 {
		return 0, 0, false
	}
	used[best] = true
	p := shown[best]
	return p.x + (p.w-u.w)/2 - u.x, p.y + (p.h-u.h)/2 - u.y, true
}

// openMenus are the open menus of a walk, each with its items: the menus and menu items
// under a menu (a menu bar's menus are no items), by the menu's index, in walk order.
func openMenus(nodes []*raw) (menus []int, items map[int][]*raw) {
	items = map[int][]*raw{}
	for _, n := range nodes {
		if p := n.parent; p >= 0 && menuRole(n.role) && menuRole(nodes[p].role) && n.hasBox {
			if items[p] == nil {
				menus = append(menus, p)
			}
			items[p] = append(items[p], n)
		}
	}
	return menus, items
}

// mendMenus moves the items of each open menu of a walk (with boxes) that lie in no pop-up
// window of the application (popups) into the one whose size fits them (menuShift), with
// what lies below them.
func (w *walker) mendMenus(res *walkResult, popups func() ([]rect, error)) error {
	menus, items := openMenus(res.nodes)
	if len(menus) == 0 {
		return nil
	}
	shown, err := popups()
	if err != nil {
		return err
	}
	// Then the items of closed menus go (closedMenu), with what lies below them.
	defer func() {
		gone := map[*raw]bool{}
		for _, m := range menus {
			if closedMenu(items[m], shown) {
				for _, n := range items[m] {
					gone[n] = !n.state(stateShowing)
				}
			}
		}
		for _, n := range res.nodes { // parents first
			if n.parent >= 0 && gone[res.nodes[n.parent]] {
				gone[n] = true
			}
		}
		res.remove(gone)
	}()
	if len(shown) == 0 {
		return nil
	}
	used := make([]bool, len(shown))
	// A menu's index -> what its children (separators too) and what lies below them add:
	// nothing for one that lies in a pop-up, nor for one that fits none, whatever the menu
	// it opened from adds.
	inMenu := map[int][2]int{}
	for _, m := range menus {
		dx, dy, _ := menuShift(res.nodes[m], items[m], shown, used)
		inMenu[m] = [2]int{dx, dy}
	}
	shift := map[*raw][2]int{}
	for _, n := range res.nodes { // parents first: a node takes its menu's shift, or its parent's
		if n.parent < 0 {
			continue
		}
		o, in := inMenu[n.parent]
		if !in {
			o, in = shift[res.nodes[n.parent]]
		}
		if !in {
			continue
		}
		shift[n] = o
		if n.hasBox {
			n.x += o[0]
			n.y += o[1]
		}
	}
	return nil
}

// closedMenu says whether items, the items of one menu, are those of a closed menu: the
// union of those kept on VISIBLE alone (walker.visible) lies in none of shown, the
// application's pop-up windows (nil when they are not known: then it is never closed). GTK
// 2's gail leaves the items of a menu that was open VISIBLE once it closes, with the extents
// they had in its pop-up, or those taken from the screen's origin: mtPaint's Image menu,
// closed, read over its menu bar and toolbar, and a search for "Save As" with no menu open
// answered an item there. The union, not each item: PCManFM's closed File menu lies partly
// in its open Edit menu.
func closedMenu(items []*raw, shown []rect) bool {
	if shown == nil {
		return false
	}
	u := union(items, func(n *raw) bool { return !n.state(stateShowing) })
	return u.w > 0 && !slices.ContainsFunc(shown, func(p rect) bool { return p.holds(u) })
}

// union is the smallest rectangle that holds the boxes of the nodes of ns for which keep
// holds (those with an area); empty when there are none.
func union(ns []*raw, keep func(*raw) bool) rect {
	var u rect
	for _, n := range ns {
		switch {
		case !keep(n) || !n.hasBox || n.w <= 0 || n.h <= 0:
		case u.w == 0:
			u = rect{n.x, n.y, n.w, n.h}
		default:
			x1, y1 := max(u.x+u.w, n.x+n.w), max(u.y+u.h, n.y+n.h)
			u.x, u.y = min(u.x, n.x), min(u.y, n.y)
			u.w, u.h = x1-u.x, y1-u.y
		}
	}
	return u
}

// holds says whether r lies in p.
func (p rect) holds(r rect) bool {
	return r.x >= p.x && r.y >= p.y && r.x+r.w <= p.x+p.w && r.y+r.h <= p.y+p.h
}

// siblings are the indices of the nodes of a walk whose parent is p.
func siblings(nodes []*raw, p int) []int {
	var out []int
	for i, n := range nodes {
		if n.parent == p {
			out = append(out, i)
		}
	}
	return slices.Clip(out)
}

// findMenuWindows finds the pop-up windows of frame's application that hold an open menu, which
// a walk of frame takes as children of frame (docs/accessibility.md#what-visible-means):
// GTK 2 and GTK 3 show a context menu, one opened from no menu bar or other widget, in a
// window of its own (role window) beside the application's frames, not below the frame it
// opened from; a menu opened from a widget lies below that widget, and its window is not
// listed.
func (w *walker) findMenuWindows(ctx context.Context, frame ref) ([]ref, error) {
	app, err := w.info(ctx, []ref{{frame.bus, registryRoot}}, true)
	if err != nil || len(app) == 0 {
		return nil, err
	}
	tops := slices.DeleteFunc(slices.Clone(app[0].children), func(r ref) bool { return r == frame })
	if len(tops) == 0 {
		return nil, nil
	}
	infos, err := w.info(ctx, tops, true)
	if err != nil {
		return nil, err
	}
	var kids, owner []ref // owner[i]: the window whose child kids[i] is
	for i := range infos {
		if n := &infos[i]; n.role == roleWindow && w.visible(n) {
			for _, c := range n.children {
				kids = append(kids, c)
				owner = append(owner, n.ref)
			}
		}
	}
	if len(kids) == 0 {
		return nil, nil
	}
	kinfos, err := w.info(ctx, kids, false)
	if err != nil {
		return nil, err
	}
	var out []ref
	for i := range kinfos {
		if n := &kinfos[i]; menuRole(n.role) && w.visible(n) && !slices.Contains(out, owner[i]) {
			out = append(out, owner[i])
		}
	}
	// And the windows that lie in a pop-up the application shows now (its X window
	// override-redirect): GTK 3's list of completions below a field (a file chooser's name
	// field, once a path is typed in it) holds the pointer's grab, and the click an agent
	// aimed at a button beside it only closed it, where the tree showed no list.
	var others []*raw
	for i := range infos {
		if n := &infos[i]; n.role == roleWindow && w.visible(n) && !slices.Contains(out, n.ref) {
			others = append(others, n)
		}
	}
	if len(others) == 0 || w.popups == nil {
		return out, nil
	}
	shown, err := w.popups()
	if err != nil || len(shown) == 0 {
		return out, err
	}
	ok, err := w.details(ctx, others, false)
	if err != nil {
		return nil, err
	}
	for i, n := range others {
		if ok[i] && n.hasBox && n.w > 0 && n.h > 0 && slices.ContainsFunc(shown, func(p rect) bool { return p.holds(rect{n.x, n.y, n.w, n.h}) }) {
			out = append(out, n.ref)
		}
	}
	return out, nil
}
