//go:build linux

package input

import (
	"context"
	"sync"
	"time"

	"github.com/jezek/xgb/xproto"
)

// Before typing reassigns a spare keycode that keys already sent still refer to,
// the focused application must have translated those keys, or it would read them
// through the new mapping. X has no generic way to know what a client has
// processed, but EWMH's _NET_WM_PING comes close: the client answers the ping
// when it handles that ClientMessage, which it reads after the key events queued
// before it, and toolkits translate keycodes as they read events. So typing pings
// the focused top-level window and waits for the pong; when the window does not
// support the ping (or does not answer in time), it falls back to a fixed pause.

// pinger matches pongs (ClientMessages the event loop sees on the root window)
// with pending pings.
type pinger struct {
	mu      sync.Mutex
	seq     uint32
	waiting map[uint32]chan struct{}
	atoms   struct{ protocols, ping xproto.Atom }
}

func (p *pinger) pong(e xproto.ClientMessageEvent) {
	if e.Format != 32 || p.atoms.ping == 0 || e.Type != p.atoms.protocols {
		return
	}
	d := e.Data.Data32
	if len(d) < 2 || xproto.Atom(d[0]) != p.atoms.ping {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if ch, ok := p.waiting[d[1]]; ok {
		close(ch)
		delete(p.waiting, d[1])
	}
}

// pingTimeout bounds the wait for a pong before the fixed pause is used instead.
const pingTimeout = 2 * time.Second

// gonePoll is how often a wait for a pong looks whether the pinged window is still there.
const gonePoll = 100 * time.Millisecond

// clientSync waits until the application owning the input focus has processed
// every event sent so far. It reports false when it could not tell (then the
// caller pauses instead). The caller holds the lock.
func (c *Controller) clientSync(ctx context.Context) bool {
	return c.pingWait(ctx, c.pingableFocus(), pingTimeout) == pingAnswered
}

// pingResult is what a ping told.
type pingResult int

const (
	pingUnknown  pingResult = iota // no window to ping, or the call was cancelled
	pingAnswered                   // the application answered, or the window went away
	pingLate                       // no answer within the limit
)

// pingWait pings win and waits up to limit for the pong. A window destroyed meanwhile
// counts as an answer: its application handled the events before it (closing a dialog
// on a click, exiting on Enter) and will answer no ping.
func (c *Controller) pingWait(ctx context.Context, win xproto.Window, limit time.Duration) pingResult {
	p := &c.ping
	if p.atoms.ping == 0 || win == 0 {
		return pingUnknown
	}
	p.mu.Lock()
	p.seq++
	ts := p.seq
	ch := make(chan struct{})
	if p.waiting == nil {
		p.waiting = map[uint32]chan struct{}{}
	}
	p.waiting[ts] = ch
	p.mu.Unlock()
	defer func() {
		p.mu.Lock()
		delete(p.waiting, ts)
		p.mu.Unlock()
	}()
	ev := xproto.ClientMessageEvent{Format: 32, Window: win, Type: p.atoms.protocols,
		Data: xproto.ClientMessageDataUnionData32New([]uint32{uint32(p.atoms.ping), ts, uint32(win), 0, 0})}
	xproto.SendEvent(c.conn, false, win, xproto.EventMaskNoEvent, string(ev.Bytes()))
	if c.sync() != nil {
		return pingUnknown
	}
	t := time.NewTimer(limit)
	defer t.Stop()
	look := time.NewTicker(gonePoll)
	defer look.Stop()
	for {
		select {
		case <-ch:
			return pingAnswered
		case <-ctx.Done():
			return pingUnknown
		case <-t.C:
			return pingLate
		case <-look.C:
			if _, err := xproto.GetWindowAttributes(c.conn, win).Reply(); err != nil {
				return pingAnswered
			}
		}
	}
}

// pingableFocus finds the window that has the input focus, or its nearest
// ancestor, that lists _NET_WM_PING in WM_PROTOCOLS; 0 if none.
func (c *Controller) pingableFocus() xproto.Window {
	f, err := xproto.GetInputFocus(c.conn).Reply()
	if err != nil || f.Focus == xproto.InputFocusNone || f.Focus == xproto.InputFocusPointerRoot {
		return 0
	}
	w := f.Focus
	for i := 0; i < 16 && w != 0 && w != c.root; i++ {
		if c.pingable(w) {
			return w
		}
		t, err := xproto.QueryTree(c.conn, w).Reply()
		if err != nil {
			return 0
		}
		w = t.Parent
	}
	return 0
}

// pingableAt finds the top-level window under (x, y) that lists _NET_WM_PING, going down
// from the root window (through the window manager's frame), or, where none is (a menu's
// override-redirect window, whose application holds the pointer and the focus), the one
// pingableFocus finds.
func (c *Controller) pingableAt(x, y int) xproto.Window {
	w := c.root
	for i := 0; i < 16; i++ {
		r, err := xproto.TranslateCoordinates(c.conn, c.root, w, int16(x), int16(y)).Reply()
		if err != nil || r.Child == 0 {
			break
		}
		if w = r.Child; c.pingable(w) {
			return w
		}
	}
	return c.pingableFocus()
}

// pingable says whether w lists _NET_WM_PING in its WM_PROTOCOLS.
func (c *Controller) pingable(w xproto.Window) bool {
	pr, err := xproto.GetProperty(c.conn, false, w, c.ping.atoms.protocols, xproto.AtomAtom, 0, 64).Reply()
	if err != nil || pr.Format != 32 {
		return false
	}
	for j := 0; j+4 <= len(pr.Value); j += 4 {
		if xproto.Atom(uint32(pr.Value[j])|uint32(pr.Value[j+1])<<8|uint32(pr.Value[j+2])<<16|uint32(pr.Value[j+3])<<24) == c.ping.atoms.ping {
			return true
		}
	}
	return false
}

// initPing interns the atoms and selects SubstructureNotify and StructureNotify on the
// root window, where clients send their pongs: GTK sends its pong to the clients that
// select the first, Qt 5 to those that select the second (or SubstructureRedirect, the
// window manager), so that without it every key typed into a Qt window waited out
// pingTimeout.
func (c *Controller) initPing() {
	a1 := xproto.InternAtom(c.conn, false, uint16(len("WM_PROTOCOLS")), "WM_PROTOCOLS")
	a2 := xproto.InternAtom(c.conn, false, uint16(len("_NET_WM_PING")), "_NET_WM_PING")
	r1, err1 := a1.Reply()
	r2, err2 := a2.Reply()
	if err1 != nil || err2 != nil {
		return
	}
	xproto.ChangeWindowAttributes(c.conn, c.root, xproto.CwEventMask, []uint32{xproto.EventMaskSubstructureNotify | xproto.EventMaskStructureNotify})
	c.ping.mu.Lock()
	c.ping.atoms.protocols, c.ping.atoms.ping = r1.Atom, r2.Atom
	c.ping.mu.Unlock()
}
