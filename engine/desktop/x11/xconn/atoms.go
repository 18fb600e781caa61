//go:build linux

package xconn

import (
	"strings"
	"unicode/utf8"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"
)

// Intern interns names on c, all requests sent before the first reply is read, creating
// the atoms that do not exist yet.
func Intern(c *xgb.Conn, names ...string) (map[string]xproto.Atom, error) {
	cookies := make([]xproto.InternAtomCookie, len(names))
	for i, n := range names {
		cookies[i] = xproto.InternAtom(c, false, uint16(len(n)), n)
	}
	atoms := make(map[string]xproto.Atom, len(names))
	for i, ck := range cookies {
		r, err := ck.Reply()
		if err != nil {
			return nil, err
		}
		atoms[names[i]] = r.Atom
	}
	return atoms, nil
}

// PropUnits is how much of one property of a window the host reads, in 4-byte units (4 KiB,
// a longer title cut there): the session's clients set them, of any size
// (docs/security.md#what-the-host-reads-from-a-session).
const PropUnits = 1 << 10

// Title is w's title as a window list shows it: _NET_WM_NAME (UTF-8), else WM_NAME, which
// is UTF-8 or ICCCM's STRING (Latin-1); invalid bytes become U+FFFD, "" when it has none.
// netWMName and utf8String are the atoms of those names.
func Title(c *xgb.Conn, w xproto.Window, netWMName, utf8String xproto.Atom) string {
	if r, err := xproto.GetProperty(c, false, w, netWMName, utf8String, 0, PropUnits).Reply(); err == nil && r.Format != 0 && len(r.Value) > 0 {
		return strings.ToValidUTF8(string(r.Value), "\uFFFD")
	}
	r, err := xproto.GetProperty(c, false, w, xproto.AtomWmName, xproto.GetPropertyTypeAny, 0, PropUnits).Reply()
	if err != nil || r.Format == 0 {
		return ""
	}
	if r.Type == utf8String || utf8.Valid(r.Value) {
		return strings.ToValidUTF8(string(r.Value), "\uFFFD")
	}
	rs := make([]rune, len(r.Value))
	for i, b := range r.Value {
		rs[i] = rune(b)
	}
	return string(rs)
}
