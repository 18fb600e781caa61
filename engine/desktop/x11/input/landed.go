//go:build linux

package input

import (
	"strings"
	"unicode/utf8"

	"github.com/jezek/xgb/xproto"
)

// maxLandedTitle caps the title a click's result names, in characters: the application
// chose it, and it goes into every click's text.
const maxLandedTitle = 80

// landedIn is the title of the top-level window at (x, y): the first window down the stack
// under the point that carries WM_STATE (a client window, below its frame), "" when none
// does or it has no title. Tk and Xt menus are windows of their own with no WM_STATE: a
// click on one names no window.
func (c *Controller) landedIn(x, y int) string {
	atom := func(name string) xproto.Atom {
		r, err := xproto.InternAtom(c.conn, true, uint16(len(name)), name).Reply()
		if err != nil {
			return 0
		}
		return r.Atom
	}
	state, netName, utf8String := atom("WM_STATE"), atom("_NET_WM_NAME"), atom("UTF8_STRING")
	if state == 0 {
		return ""
	}
	w := c.root
	for i := 0; i < 16; i++ {
		r, err := xproto.TranslateCoordinates(c.conn, c.root, w, int16(x), int16(y)).Reply()
		if err != nil || r.Child == 0 {
			return ""
		}
		w = r.Child
		if p, err := xproto.GetProperty(c.conn, false, w, state, xproto.GetPropertyTypeAny, 0, 0).Reply(); err != nil || p.Type == 0 {
			continue
		}
		title := ""
		if netName != 0 {
			if p, err := xproto.GetProperty(c.conn, false, w, netName, utf8String, 0, 1024).Reply(); err == nil {
				title = string(p.Value)
			}
		}
		if title == "" {
			if p, err := xproto.GetProperty(c.conn, false, w, xproto.AtomWmName, xproto.GetPropertyTypeAny, 0, 1024).Reply(); err == nil {
				title = string(p.Value)
			}
		}
		title = strings.ToValidUTF8(title, "\uFFFD")
		if utf8.RuneCountInString(title) > maxLandedTitle {
			title = string([]rune(title)[:maxLandedTitle]) + "…"
		}
		return title
	}
	return ""
}
