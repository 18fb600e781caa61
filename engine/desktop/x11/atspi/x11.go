//go:build linux

package atspi

import (
	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"

	"github.com/w365/w365/engine/desktop/x11/xconn"
	"github.com/w365/w365/engine/werr"
)

// xwin is what the window manager knows about one top-level window.
type xwin struct {
	id     uint32
	pid    uint32 // its process (xconn.Owners), 0 when unknown
	title  string
	x, y   int // client area origin on the screen
	width  int
	height int
}

// errNoForeground is the answer for the active window when no window has the focus (an
// empty desktop, or the focused window is gone): the tree and the search of the foreground
// window are then empty results, not errors (TOOLS.md: empty is an empty result).
var errNoForeground = werr.New(werr.NotFound, "no window has the focus").WithHint("activate a window first")

// xWindowInfo reads the active window (id == 0) or the given window from the X server
// of displayName: its process, title and on-screen client geometry.
func xWindowInfo(displayName string, id uint32) (_ xwin, err error) {
	c, err := xconn.Connect(displayName)
	if err != nil {
		return xwin{}, xconn.Explain(displayName, werr.Wrap(err, werr.Unavailable, "cannot connect to X display %s", displayName))
	}
	defer c.Close()
	// A reply the display's watch cut off reads as no window; say why instead.
	defer func() { err = xconn.Explain(displayName, err) }()
	return readWindow(c, displayName, id)
}

func readWindow(c *xgb.Conn, displayName string, id uint32) (xwin, error) {
	active := id == 0
	root := xproto.Setup(c).DefaultScreen(c).Root
	if id == 0 {
		if v, err := prop(c, root, "_NET_ACTIVE_WINDOW"); err == nil && len(v.Value) >= 4 {
			id = uint32(xgb.Get32(v.Value))
		}
		if id == 0 {
			id = uint32(xconn.FocusedClient(c)) // a menu of it holds the focus
		}
		if id == 0 {
			return xwin{}, errNoForeground
		}
	}
	w := xwin{id: id}
	win := xproto.Window(id)
	g, err := xproto.GetGeometry(c, xproto.Drawable(win)).Reply()
	if err != nil && active {
		return xwin{}, errNoForeground // the window manager still names a window that is gone
	} else if err != nil {
		return xwin{}, werr.New(werr.NotFound, "window 0x%x does not exist", id)
	}
	w.width, w.height = int(g.Width), int(g.Height)
	if t, err := xproto.TranslateCoordinates(c, win, root, 0, 0).Reply(); err == nil {
		w.x, w.y = int(t.DstX), int(t.DstY)
	}
	w.pid = uint32(xconn.NewOwners(c, displayName).PID(win))
	if v, err := prop(c, win, "_NET_WM_NAME"); err == nil && len(v.Value) > 0 {
		w.title = string(v.Value)
	} else if v, err := prop(c, win, "WM_NAME"); err == nil {
		w.title = string(v.Value)
	}
	return w, nil
}

func prop(c *xgb.Conn, w xproto.Window, name string) (*xproto.GetPropertyReply, error) {
	a, err := xproto.InternAtom(c, true, uint16(len(name)), name).Reply()
	if err != nil {
		return nil, err
	}
	if a.Atom == 0 {
		return nil, werr.New(werr.NotFound, "atom %s unknown", name)
	}
	return xproto.GetProperty(c, false, w, a.Atom, xproto.GetPropertyTypeAny, 0, 1<<16).Reply()
}

// rect is a rectangle on the screen.
type rect struct{ x, y, w, h int }

// xPopups are the pop-ups process pid shows now on displayName (xconn.Popups: a GTK 4
// popover, drop-down list or menu is one); nil when pid is unknown (0), not even empty.
func xPopups(displayName string, pid uint32) ([]rect, error) {
	return popupsOf(displayName, pid, nil)
}

// popupsOf are the pop-ups of xPopups that keep, when not nil, keeps.
func popupsOf(displayName string, pid uint32, keep func(*xgb.Conn, xproto.Window) bool) ([]rect, error) {
	if pid == 0 {
		return nil, nil
	}
	c, err := xconn.Connect(displayName)
	if err != nil {
		return nil, xconn.Explain(displayName, werr.Wrap(err, werr.Unavailable, "cannot connect to X display %s", displayName))
	}
	defer c.Close()
	all, err := xconn.Popups(c, xconn.NewOwners(c, displayName))
	if err != nil {
		return nil, xconn.Explain(displayName, werr.Wrap(err, werr.Unavailable, "cannot list the windows of X display %s", displayName))
	}
	out := []rect{}
	for _, p := range all {
		if p.PID == int(pid) && (keep == nil || keep(c, p.Win)) {
			out = append(out, rect{p.X, p.Y, p.W, p.H})
		}
	}
	return out, nil
}
