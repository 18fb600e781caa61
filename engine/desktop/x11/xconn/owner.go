//go:build linux

package xconn

import (
	"github.com/jezek/xgb"
	"github.com/jezek/xgb/res"
	"github.com/jezek/xgb/xproto"
)

// Owners tells which process owns a window of one connection.
type Owners struct {
	c        *xgb.Conn
	display  string
	xres     bool
	netWMPID xproto.Atom
}

// NewOwners prepares c, a connection to display, for Owners.PID: the X-Resource extension
// (1.2+) when the server has it.
func NewOwners(c *xgb.Conn, display string) Owners {
	o := Owners{c: c, display: display}
	if res.Init(c) == nil {
		if v, err := res.QueryVersion(c, 1, 2).Reply(); err == nil && (v.ServerMajor > 1 || v.ServerMajor == 1 && v.ServerMinor >= 2) {
			o.xres = true
		}
	}
	if a, err := xproto.InternAtom(c, true, uint16(len("_NET_WM_PID")), "_NET_WM_PID").Reply(); err == nil {
		o.netWMPID = a.Atom
	}
	return o
}

// PID is the process that owns w, as the host knows it, 0 when unknown: the X server's own
// record of the client's PID (X-Resource LocalClientPID, mapped from the session's PID
// namespace: HostPID), else the _NET_WM_PID the client set (many Xt/Xaw programs set none).
// Only the server's record names the process: a client cannot forge it, and a confined
// client (its own PID namespace, docs/security.md#confinement) sets _NET_WM_PID to its PID
// inside that namespace, which names some other process out here. The server has no record
// of a program started outside a virtual session's PID namespace (by the host, with the
// session's environment), and any client may set _NET_WM_PID on any window: it is taken
// only when it names a process started with this display's DISPLAY, so that it cannot name
// the host or another program of the machine (docs/security.md#one-set-per-session).
func (o Owners) PID(w xproto.Window) int {
	if p, ok := o.server(w); ok {
		return p
	}
	if p := o.netWMPIDOf(w); StartedOn(p, o.display) {
		return p
	}
	return 0
}

// server is the X server's record of the PID of w's client, as the host knows it (0 when no
// process of the host has it); ok says the server has one.
func (o Owners) server(w xproto.Window) (pid int, ok bool) {
	if !o.xres {
		return 0, false
	}
	r, err := res.QueryClientIds(o.c, 1, []res.ClientIdSpec{{Client: uint32(w), Mask: res.ClientIdMaskLocalClientPID}}).Reply()
	if err != nil {
		return 0, false
	}
	for _, id := range r.Ids {
		if id.Spec.Mask&res.ClientIdMaskLocalClientPID != 0 && len(id.Value) > 0 && id.Value[0] > 0 {
			return HostPID(o.display, int(id.Value[0])), true
		}
	}
	return 0, false
}

// Claimed is the process w's _NET_WM_PID names when the X server has no record of its
// client's PID, else 0: a client's word, which PID takes only as it says, and which
// close_window still does not act against when it names a protected process. (With a
// record, the property of a confined client names a PID of its own namespace.)
func (o Owners) Claimed(w xproto.Window) int {
	if _, ok := o.server(w); ok {
		return 0
	}
	return o.netWMPIDOf(w)
}

// netWMPIDOf is the PID w's _NET_WM_PID says, 0 when it has none.
func (o Owners) netWMPIDOf(w xproto.Window) int {
	if o.netWMPID == 0 {
		return 0
	}
	r, err := xproto.GetProperty(o.c, false, w, o.netWMPID, xproto.AtomCardinal, 0, 1).Reply()
	if err != nil || r == nil || r.Format != 32 || len(r.Value) < 4 {
		return 0
	}
	return int(xgb.Get32(r.Value))
}
