//go:build linux

package input

import (
	"context"
	"sync"
	"time"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"

	"github.com/w365/w365/engine/desktop"
	"github.com/w365/w365/engine/desktop/x11/xconn"
	"github.com/w365/w365/engine/werr"
)

// Clipboard is the text clipboard TypePaste saves and restores: an alias, not an
// interface of its own, so that TypePaste's signature is desktop.Input's.
type Clipboard = desktop.TextClipboard

// pasteWait bounds how long TypePaste waits for the focused application to read
// the clipboard after ctrl+v.
const pasteWait = 3 * time.Second

// pasteFallbackWait is the fixed wait used when the text is too big to hand over
// in one X property and goes through the Clipboard instead (no read notification).
const pasteFallbackWait = 500 * time.Millisecond

// TypePaste puts text on the CLIPBOARD selection, presses ctrl+v, waits until the
// focused application has read it, then restores the previous clipboard through
// clip (or leaves the clipboard empty when it held no text).
//
// The Controller itself owns the selection while pasting, so it knows exactly
// when the target asked for the text instead of guessing with a sleep. If nobody
// reads it within a few seconds (no text field focused), the clipboard is restored
// and TIMEOUT is returned.
func (c *Controller) TypePaste(ctx context.Context, text string, clip Clipboard) error {
	if clip == nil {
		return werr.New(werr.Unsupported, "no clipboard is available to paste through")
	}
	prev, had, err := clip.Read()
	if err != nil {
		return werr.Wrap(err, werr.Unavailable, "cannot read the clipboard (to restore it after pasting)")
	}
	restore := func() error {
		if had {
			if err := clip.Write(prev); err != nil {
				return werr.Wrap(err, werr.Unavailable, "pasted, but could not restore the previous clipboard")
			}
		}
		return nil
	}
	ctrlV, err := keysymsOf("ctrl", "v")
	if err != nil {
		return err
	}
	if err := c.beginKeys(ctx); err != nil {
		return err
	}
	defer c.end()

	if len(text)+64 > int(xproto.Setup(c.conn).MaximumRequestLength)*4 {
		// Too big for one property (INCR is not implemented): hand it to the clipboard.
		if err := clip.Write(text); err != nil {
			return werr.Wrap(err, werr.Unavailable, "cannot put the text on the clipboard")
		}
		perr := c.pressLocked(ctx, ctrlV)
		if perr == nil {
			select {
			case <-ctx.Done():
				perr = werr.Done(ctx, "input")
			case <-time.After(pasteFallbackWait):
			}
		}
		if err := restore(); err != nil && perr == nil {
			perr = err
		}
		if !had {
			clip.Write("") // it held no text before; an empty text is the closest we can restore
		}
		return perr
	}

	read, err := c.sel.own(text)
	if err != nil {
		return err
	}
	perr := c.pressLocked(ctx, ctrlV)
	if perr == nil {
		t := time.NewTimer(pasteWait)
		select {
		case <-read:
		case <-ctx.Done():
			perr = werr.Done(ctx, "input")
		case <-t.C:
			perr = werr.New(werr.Timeout, "the focused window did not read the pasted text within %s", pasteWait).
				WithHint("focus a text field first (click it), or type without usePaste").
				WithRetryable(false) // a late reader may still have pasted
		}
		t.Stop()
	}
	if had {
		// Serve the previous text ourselves until the clipboard takes it back
		// (its owner may claim the selection only after Write returns).
		c.sel.hold(prev)
	} else {
		c.sel.disown(true)
	}
	if err := restore(); err != nil && perr == nil {
		perr = err
	}
	c.sync()
	return perr
}

func keysymsOf(names ...string) ([]xproto.Keysym, error) {
	out := make([]xproto.Keysym, len(names))
	for i, n := range names {
		ks, err := lookupKey(n)
		if err != nil {
			return nil, err
		}
		out[i] = ks
	}
	return out, nil
}

// selectionOwner serves the CLIPBOARD selection from an unmapped window while a
// paste is in progress. serve and lost run on the event loop goroutine.
type selectionOwner struct {
	conn *xgb.Conn
	root xproto.Window

	mu     sync.Mutex
	win    xproto.Window
	atoms  map[string]xproto.Atom
	active bool
	text   string
	read   chan struct{}
	when   xproto.Timestamp
}

func (s *selectionOwner) init(conn *xgb.Conn, root xproto.Window) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.conn, s.root, s.win, s.atoms, s.active = conn, root, 0, nil, false
}

var selAtomNames = []string{"CLIPBOARD", "TARGETS", "TIMESTAMP", "UTF8_STRING", "TEXT", "STRING",
	"text/plain;charset=utf-8", "text/plain", "W365_PASTE_TIME"}

func (s *selectionOwner) setup() error {
	if s.win != 0 {
		return nil
	}
	atoms, err := xconn.Intern(s.conn, selAtomNames...)
	if err != nil {
		return werr.Wrap(err, werr.Unavailable, "cannot intern clipboard atoms")
	}
	atoms["STRING"] = xproto.AtomString
	wid, err := xproto.NewWindowId(s.conn)
	if err != nil {
		return werr.Wrap(err, werr.Unavailable, "cannot allocate a window id")
	}
	if err := xproto.CreateWindowChecked(s.conn, 0, wid, s.root, -10, -10, 1, 1, 0,
		xproto.WindowClassInputOnly, 0, xproto.CwEventMask,
		[]uint32{xproto.EventMaskPropertyChange}).Check(); err != nil {
		return werr.Wrap(err, werr.Unavailable, "cannot create the clipboard window")
	}
	s.win, s.atoms = wid, atoms
	return nil
}

// own takes the CLIPBOARD selection with text and returns a channel closed when a
// client has read the text.
func (s *selectionOwner) own(text string) (<-chan struct{}, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.setup(); err != nil {
		return nil, err
	}
	s.text = text
	s.read = make(chan struct{})
	s.active = true
	// CurrentTime is discouraged by ICCCM but accepted by every X server; the
	// ownership is checked right after.
	xproto.SetSelectionOwner(s.conn, s.win, s.atoms["CLIPBOARD"], xproto.TimeCurrentTime)
	r, err := xproto.GetSelectionOwner(s.conn, s.atoms["CLIPBOARD"]).Reply()
	if err != nil || r.Owner != s.win {
		s.active = false
		return nil, werr.New(werr.Unavailable, "could not take the clipboard to paste")
	}
	return s.read, nil
}

// hold keeps the selection but serves text from now on (no read notification).
func (s *selectionOwner) hold(text string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.active {
		s.text = text
		s.read = nil
	}
}

// disown stops serving; with clear, it also gives up the selection so the
// clipboard is empty again (as it was before).
func (s *selectionOwner) disown(clear bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.active {
		return
	}
	s.active = false
	s.text = ""
	if clear {
		xproto.SetSelectionOwner(s.conn, 0, s.atoms["CLIPBOARD"], xproto.TimeCurrentTime)
	}
}

func (s *selectionOwner) lost(e xproto.SelectionClearEvent) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if e.Owner == s.win {
		s.active = false
	}
}

func (s *selectionOwner) serve(e xproto.SelectionRequestEvent) {
	s.mu.Lock()
	defer s.mu.Unlock()
	prop := e.Property
	if prop == 0 {
		prop = e.Target // obsolete clients
	}
	ok := s.active && e.Owner == s.win && e.Selection == s.atoms["CLIPBOARD"]
	isText := false
	if ok {
		a := s.atoms
		switch e.Target {
		case a["TARGETS"]:
			list := []xproto.Atom{a["TARGETS"], a["TIMESTAMP"], a["UTF8_STRING"], a["text/plain;charset=utf-8"],
				a["TEXT"], a["STRING"], a["text/plain"]}
			buf := make([]byte, 4*len(list))
			for i, at := range list {
				xgb.Put32(buf[4*i:], uint32(at))
			}
			xproto.ChangeProperty(s.conn, xproto.PropModeReplace, e.Requestor, prop, xproto.AtomAtom, 32, uint32(len(list)), buf)
		case a["TIMESTAMP"]:
			buf := make([]byte, 4)
			xgb.Put32(buf, uint32(s.when))
			xproto.ChangeProperty(s.conn, xproto.PropModeReplace, e.Requestor, prop, xproto.AtomInteger, 32, 1, buf)
		case a["UTF8_STRING"], a["TEXT"], a["text/plain;charset=utf-8"]:
			typ := e.Target
			if e.Target == a["TEXT"] {
				typ = a["UTF8_STRING"]
			}
			data := []byte(s.text)
			xproto.ChangeProperty(s.conn, xproto.PropModeReplace, e.Requestor, prop, typ, 8, uint32(len(data)), data)
			isText = true
		case a["STRING"], a["text/plain"]:
			data := latin1(s.text)
			xproto.ChangeProperty(s.conn, xproto.PropModeReplace, e.Requestor, prop, e.Target, 8, uint32(len(data)), data)
			isText = true
		default:
			ok = false
		}
	}
	if !ok {
		prop = 0
	}
	ev := xproto.SelectionNotifyEvent{Time: e.Time, Requestor: e.Requestor, Selection: e.Selection,
		Target: e.Target, Property: prop}
	xproto.SendEvent(s.conn, false, e.Requestor, 0, string(ev.Bytes()))
	if isText && s.read != nil {
		// Make sure the property and the notification reached the server first.
		xproto.GetInputFocus(s.conn).Reply()
		close(s.read)
		s.read = nil
	}
}

func latin1(s string) []byte {
	out := make([]byte, 0, len(s))
	for _, r := range s {
		if r > 0xff {
			r = '?'
		}
		out = append(out, byte(r))
	}
	return out
}
