//go:build linux

package input

import (
	"unicode/utf8"

	"github.com/jezek/xgb/xproto"

	"github.com/w365/w365/engine/desktop/x11/xconn"
)

// maxLandedTitle caps the title a click's result names, in characters: the application
// chose it, and it goes into every click's text.
const maxLandedTitle = 80

// landedIn is the title of the top-level window at (x, y): the first window down the stack
// under the point that carries WM_STATE (a client window, below its frame), "" when none
// does or it has no title. Tk and Xt menus are windows of their own with no WM_STATE: a
// click on one names no window.
func (c *Controller) landedIn(x, y int) string {
	state := c.atoms["WM_STATE"]
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
		title := xconn.Title(c.conn, w, c.atoms["_NET_WM_NAME"], c.atoms["UTF8_STRING"])
		if utf8.RuneCountInString(title) > maxLandedTitle {
			title = string([]rune(title)[:maxLandedTitle]) + "…"
		}
		return title
	}
	return ""
}
