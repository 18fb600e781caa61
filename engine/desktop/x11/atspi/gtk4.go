//go:build linux

package atspi

import (
	"context"
	"strings"
)

// What GTK 4 (4.8) reports that a person does not see, and how a walk of a GTK 4 window mends
// it (docs/accessibility.md#gtk-4).

const (
	coordParent = 2 // Component.GetExtents relative to the parent
	layerPopup  = 5 // Component.GetLayer of a surface of its own: a GtkPopover (ATSPI_COMPONENT_LAYER_POPUP)
)

// gtkTypeName says whether name is what GTK 4 names an element that has no name: the type name
// of its class, one of GTK's or libadwaita's ("GtkButton", "GtkImage", "AdwActionRow"), or one
// a GJS application declared, which GJS names "Gjs_" and the class's name (gnome-characters'
// "Gjs_SidebarRow", "Gjs_CharactersView").
func gtkTypeName(name string) bool {
	rest, ok := strings.CutPrefix(name, "Gtk")
	if !ok {
		rest, ok = strings.CutPrefix(name, "Adw")
	}
	under := false // "_" is part of a GJS type name
	if !ok {
		rest, ok = strings.CutPrefix(name, "Gjs_")
		under = true
	}
	if !ok || rest == "" || rest[0] < 'A' || rest[0] > 'Z' {
		return false
	}
	for _, c := range rest {
		if (c < 'A' || c > 'Z') && (c < 'a' || c > 'z') && (c < '0' || c > '9') && (!under || c != '_') {
			return false
		}
	}
	return true
}

// mendGTK4 corrects a finished walk of a GTK 4 window:
//
//   - an element named by its type name (class) is named by its description (GTK 4 puts
//     the tooltip there) or not at all;
//   - an element inside a pop-up (an element of layer POPUP, or a tooltip: GTK's
//     GtkTooltipWindow, a surface of its own of layer WIDGET, and its subtree) is placed
//     through the X window of that pop-up's surface. GTK 4 reports a pop-up's elements as if
//     its surface began at the origin of the widget it pops up from (its parent), shifted by
//     the pop-up's offset in that surface (its margin, which is also its extents relative to
//     the parent): so an element's screen position is the surface's origin on the screen
//     plus its window coordinates minus those of the pop-up, plus that offset. popups lists
//     the application's pop-up windows on the screen (xPopups), read after the walk: GTK
//     shows a pop-up in its tree a moment before it maps its window. A pop-up takes the
//     window whose size fits it best, then the nearest; one that none fits is not on the
//     screen (not yet), and goes with its subtree. The layer is asked of the unnamed elements
//     (GTK's pop-ups have no name), and of the others only while more windows are mapped
//     than that found. When popups does not know the windows (nil), the pop-ups stay where
//     GTK places them.
//
// Nodes whose extents are read later (Find) take the offset then (w.shift).
func (w *walker) mendGTK4(ctx context.Context, res *walkResult, popups func() ([]rect, error)) error {
	b := &batch{conn: w.conn, peers: w.peers}
	var classed []*raw
	layers := make([]uint32, len(res.nodes))
	for i, n := range res.nodes {
		if n.class != "" {
			classed = append(classed, n)
			b.add(n.ref, ifComponent+".GetLayer", []any{&layers[i]})
		}
	}
	named := addDescriptions(b, classed)
	if err := b.run(ctx); err != nil {
		return err
	}
	named()
	if w.origin == nil {
		return nil
	}
	shown, err := popups()
	if err != nil || shown == nil {
		return err
	}
	pops := popupsIn(res.nodes, layers)
	if len(shown) > len(pops) {
		// A pop-up window that no unnamed pop-up accounts for: one with a name, maybe.
		for i, n := range res.nodes {
			if n.class == "" {
				b.add(n.ref, ifComponent+".GetLayer", []any{&layers[i]})
			}
		}
		if err := b.run(ctx); err != nil {
			return err
		}
		pops = popupsIn(res.nodes, layers)
	}
	if len(pops) == 0 {
		return nil
	}
	win := make([]extents, len(pops))
	par := make([]extents, len(pops))
	calls := make([][2]*call, len(pops))
	for j, i := range pops {
		calls[j] = [2]*call{
			b.add(res.nodes[i].ref, ifComponent+".GetExtents", []any{&win[j]}, uint32(coordWindow)),
			b.add(res.nodes[i].ref, ifComponent+".GetExtents", []any{&par[j]}, uint32(coordParent)),
		}
	}
	if err := b.run(ctx); err != nil {
		return err
	}
	used := make([]bool, len(shown))
	off := map[int][2]int{} // a pop-up's node -> what its subtree's window coordinates add
	for j, i := range pops {
		if calls[j][0].err != nil || calls[j][1].err != nil {
			continue
		}
		wx, wy, mx, my := int(win[j].X), int(win[j].Y), int(par[j].X), int(par[j].Y)
		best, bestFit, bestDist := -1, 0, 0
		for k, p := range shown {
			dw, dh := p.w-int(win[j].W)-mx, p.h-int(win[j].H)-my
			if used[k] || dw < 0 || dh < 0 {
				continue
			}
			dist := abs(p.x-wx-w.origin[0]) + abs(p.y-wy-w.origin[1])
			if best < 0 || dw+dh < bestFit || dw+dh == bestFit && dist < bestDist {
				best, bestFit, bestDist = k, dw+dh, dist
			}
		}
		if best >= 0 {
			used[best] = true
			off[i] = [2]int{shown[best].x + mx - wx, shown[best].y + my - wy}
		}
	}
	// Each node takes the offset of the nearest pop-up at or above it (parents come first),
	// or goes with it.
	if w.shift == nil {
		w.shift = map[*raw][2]int{}
	}
	gone := map[*raw]bool{}
	isPop := map[int]bool{}
	for _, i := range pops {
		isPop[i] = true
	}
	for i, n := range res.nodes {
		o, in := off[i]
		if isPop[i] && !in || n.parent >= 0 && gone[res.nodes[n.parent]] {
			gone[n] = true
			continue
		}
		if !in && n.parent >= 0 {
			o, in = w.shift[res.nodes[n.parent]]
		}
		if !in {
			continue
		}
		w.shift[n] = o
		if n.hasBox {
			n.x += o[0] - w.origin[0]
			n.y += o[1] - w.origin[1]
		}
	}
	res.remove(gone)
	return nil
}

// popupsIn are the indices of the elements of a surface of their own: of layer POPUP, and
// tooltips (GTK 4 puts a tooltip on a surface of its own, of layer WIDGET).
func popupsIn(nodes []*raw, layers []uint32) []int {
	var out []int
	for i, l := range layers {
		if l == layerPopup || nodes[i].class == "GtkTooltipWindow" {
			out = append(out, i)
		}
	}
	return out
}

// covered says, for each of nodes (placed elements of a GTK 4 window's walk res), whether it is
// not on the window where it says it is: its centre lies outside the window's box, or the
// window's hit test there (Component.GetAccessibleAtPoint, which answers what a click there
// reaches) lands on an element of the walk that is neither inside it nor one of its ancestors.
// GTK 4 (4.8) keeps VISIBLE the page a stack hid, at the place it had, under the page shown
// (gnome-clocks' World page, after its Alarms tab was chosen, held "Add World Clock" where "Add
// Alarm" shows), and what a scroll view or a shrunk window leaves beyond the window's edge
// (gnome-clocks' view switcher bar for narrow windows, below its bottom edge once it had grown:
// a click there fell on the desktop and left no window focused). A hit the walk does not hold,
// or none, covers nothing; the elements of a pop-up (w.shift) lie on a surface of their own and
// are not asked.
func (w *walker) covered(ctx context.Context, res *walkResult, nodes []*raw) ([]bool, error) {
	out := make([]bool, len(nodes))
	if !w.gtk4 || w.origin == nil || len(res.nodes) == 0 {
		return out, nil
	}
	b := &batch{conn: w.conn, peers: w.peers}
	var win extents
	winCall := b.add(res.nodes[0].ref, ifComponent+".GetExtents", []any{&win}, uint32(coordWindow))
	hits := make([]objRef, len(nodes))
	calls := make([]*call, len(nodes))
	for i, n := range nodes {
		if _, pop := w.shift[n]; pop || !n.hasBox || n.w <= 0 || n.h <= 0 {
			continue
		}
		calls[i] = b.add(res.nodes[0].ref, ifComponent+".GetAccessibleAtPoint", []any{&hits[i]},
			int32(n.x+n.w/2-w.origin[0]), int32(n.y+n.h/2-w.origin[1]), uint32(coordWindow))
	}
	if err := b.run(ctx); err != nil {
		return nil, err
	}
	// outside says whether window coordinates x, y lie outside the window's box.
	outside := func(x, y int) bool {
		return winCall.err == nil && win.W > 0 && win.H > 0 &&
			(x < int(win.X) || y < int(win.Y) || x >= int(win.X+win.W) || y >= int(win.Y+win.H))
	}
	index := make(map[ref]int, len(res.nodes))
	for i, n := range res.nodes {
		index[n.ref] = i
	}
	// within says whether node a is node b or lies below it.
	within := func(a, b int) bool {
		for ; a >= 0; a = res.nodes[a].parent {
			if a == b {
				return true
			}
		}
		return false
	}
	for i, n := range nodes {
		if calls[i] == nil {
			continue
		}
		if outside(n.x+n.w/2-w.origin[0], n.y+n.h/2-w.origin[1]) {
			out[i] = true
			continue
		}
		if calls[i].err != nil {
			continue
		}
		h, ok := index[ref{hits[i].Bus, hits[i].Path}]
		me, mine := index[n.ref]
		out[i] = ok && mine && !within(h, me) && !within(me, h)
	}
	return out, nil
}
