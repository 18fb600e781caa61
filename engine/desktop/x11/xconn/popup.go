//go:build linux

package xconn

import (
	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"
)

// Popup is a pop-up on the screen: a mapped override-redirect child of the root window (an
// open menu, a drop-down list, a GTK 4 popover, a tooltip), which the window manager neither
// lists nor frames.
type Popup struct {
	Win        xproto.Window
	PID        int // its process (Owners.PID), 0 when unknown
	X, Y, W, H int // in screen coordinates
}

// Popups lists the pop-ups shown on c's default screen, top of the stack last.
func Popups(c *xgb.Conn, o Owners) ([]Popup, error) {
	tree, err := xproto.QueryTree(c, xproto.Setup(c).DefaultScreen(c).Root).Reply()
	if err != nil {
		return nil, err
	}
	attrs := make([]xproto.GetWindowAttributesCookie, len(tree.Children))
	for i, w := range tree.Children {
		attrs[i] = xproto.GetWindowAttributes(c, w)
	}
	var out []Popup
	for i, w := range tree.Children {
		a, err := attrs[i].Reply()
		if err != nil || !a.OverrideRedirect || a.MapState != xproto.MapStateViewable || a.Class != xproto.WindowClassInputOutput {
			continue
		}
		// A child of the root: its geometry is in screen coordinates.
		g, err := xproto.GetGeometry(c, xproto.Drawable(w)).Reply()
		if err != nil {
			continue // gone meanwhile
		}
		bw := int(g.BorderWidth)
		out = append(out, Popup{Win: w, PID: o.PID(w), X: int(g.X) + bw, Y: int(g.Y) + bw, W: int(g.Width), H: int(g.Height)})
	}
	return out, nil
}

// SameClient says whether windows a and b were made by one X client (one connection): the
// bits of an X resource ID above the server's resource mask name its client.
func SameClient(c *xgb.Conn, a, b xproto.Window) bool {
	mask := xproto.Setup(c).ResourceIdMask
	return uint32(a)&^mask == uint32(b)&^mask
}

// FocusedClient is the window of the program whose pop-up has the keyboard focus: while a
// Motif or Xt menu is open, its menu pane (an override-redirect window) holds the focus and
// the window manager names no window active (_NET_ACTIVE_WINDOW 0), yet the person's
// foreground window is still the one the menu belongs to. It is the topmost managed window
// (_NET_CLIENT_LIST_STACKING) made by the same X client as the focused pop-up; 0 when the
// focus is on no pop-up or no such window is managed.
func FocusedClient(c *xgb.Conn) xproto.Window {
	f, err := xproto.GetInputFocus(c).Reply()
	if err != nil || f.Focus <= 1 { // None or PointerRoot
		return 0
	}
	if a, err := xproto.GetWindowAttributes(c, f.Focus).Reply(); err != nil || !a.OverrideRedirect {
		return 0
	}
	atom, err := xproto.InternAtom(c, true, uint16(len("_NET_CLIENT_LIST_STACKING")), "_NET_CLIENT_LIST_STACKING").Reply()
	if err != nil || atom.Atom == 0 {
		return 0
	}
	p, err := xproto.GetProperty(c, false, xproto.Setup(c).DefaultScreen(c).Root, atom.Atom, xproto.AtomWindow, 0, 1<<14).Reply()
	if err != nil || p.Format != 32 {
		return 0
	}
	for i := int(p.ValueLen) - 1; i >= 0; i-- { // top of the stack last
		if w := xproto.Window(xgb.Get32(p.Value[4*i:])); SameClient(c, w, f.Focus) {
			return w
		}
	}
	return 0
}
