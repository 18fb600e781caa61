//go:build linux

// Package editres reads the widgets of an X Toolkit (Xt) program, an Athena (Xaw) or Motif one,
// through the Editres protocol: every Xaw and Motif shell answers it, since their vendor shells
// register Xmu's editres handler. Xt programs expose no accessibility tree; this is how the
// desktop tree reads theirs (docs/accessibility.md#xt-and-motif).
//
// A request goes as a selection exchange (the protocol is described in Xmu's EditresP.h): the
// reader owns a selection, sends the program's shell a client message naming it, the program
// fetches the command by converting that selection (target EditresCommand), executes it, takes
// the selection over, and the reader converts it back (target EditresClientVal) to read the
// reply. Every number is big-endian. A program is hostile: each exchange is bounded in time, a
// reply in size, and the reply is parsed with its length checked at every field.
package editres

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"regexp"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"

	"github.com/w365/w365/engine/desktop/x11/xconn"
	"github.com/w365/w365/engine/werr"
)

// Editres commands (EditresP.h) and the protocol version Xmu answers.
const (
	opSendWidgetTree = 0
	opGetGeometry    = 3
	opGetValues      = 5
	protocolVersion  = 5
)

// Reply kinds.
const (
	replyFormatted   = 0
	replyUnformatted = 1 // an error message
	replyMismatch    = 2 // the protocol version the program speaks
)

// Window values SendWidgetTree gives besides a window id.
const (
	unrealized = 0 // a widget whose window does not exist yet
	object     = 2 // an object that has no window (a menu entry, a gadget)
)

// Bounds on what a program may send.
const (
	// MaxReply is the largest reply read: a widget tree of thousands of widgets fits.
	MaxReply = 1 << 20
	// MaxWidgets is the most widgets kept from a tree.
	MaxWidgets = 5000
	// maxPath is the deepest widget path accepted.
	maxPath = 256
)

// Widget is one widget of a program's tree, its geometry once Geometry has read it.
type Widget struct {
	Path   []uint32 // the widget ids from the tree's root to it
	Parent int      // index of its parent in the tree, -1 for the root
	Name   string   // its Xt name
	Class  string   // its class name (an application shell: the application's class)
	Window uint32   // its X window; unrealized (0) or object (2) when none

	// Mapped: it is shown; X, Y (its outer corner on the screen), W and H (with its border)
	// are its box then (Geometry). Reached: the program answered for it (Geometry), as it
	// will for its values.
	Mapped, Reached bool
	X, Y, W, H      int
}

// HasWindow says whether the widget has an X window of its own.
func (w Widget) HasWindow() bool { return w.Window != unrealized && w.Window != object }

// atom names: the protocol's, and the selection the reader owns. Selections come from a small
// pool (an interned atom lives as long as the X server), one per exchange at a time in this
// process, named by the process too: two processes (a host and a one-shot command) on one
// display would take each other's selection.
const (
	atomEditres     = "Editres"
	atomCommand     = "EditresCommand"
	atomProtocol    = "EditresProtocol"
	atomClientValue = "EditresClientVal"
	poolSize        = 8
)

var (
	poolMu   sync.Mutex
	poolUsed [poolSize]bool
)

func takeSelection() (int, bool) {
	poolMu.Lock()
	defer poolMu.Unlock()
	for i, used := range poolUsed {
		if !used {
			poolUsed[i] = true
			return i, true
		}
	}
	return 0, false
}

func releaseSelection(i int) {
	poolMu.Lock()
	poolUsed[i] = false
	poolMu.Unlock()
}

// Client speaks Editres to the program owning one shell window.
type Client struct {
	c       *xgb.Conn
	display string
	target  xproto.Window
	win     xproto.Window // the reader's own unmapped window
	slot    int
	atoms   map[string]xproto.Atom
	sel     xproto.Atom
	events  chan xgb.Event
	ident   byte
	// deadline ends every call.
	deadline time.Time
}

// FetchTimeout bounds the wait for a program to fetch a command: an Xt program does so as it
// handles the client message, and a window of another toolkit never does (docs/accessibility.md).
const FetchTimeout = time.Second

// Dial opens an Editres exchange with the program of shell window target on display, every
// call of it to end by deadline.
func Dial(display string, target uint32, deadline time.Time) (*Client, error) {
	slot, ok := takeSelection()
	if !ok {
		return nil, werr.New(werr.Unavailable, "too many widget tree reads at once").WithRetryable(true)
	}
	c, err := xconn.Connect(display)
	if err != nil {
		releaseSelection(slot)
		return nil, xconn.Explain(display, werr.Wrap(err, werr.Unavailable, "cannot connect to X display %s", display))
	}
	cl := &Client{c: c, display: display, target: xproto.Window(target), slot: slot,
		events: make(chan xgb.Event, 64), deadline: deadline}
	go cl.read()
	if err := cl.setup(); err != nil {
		cl.Close()
		return nil, err
	}
	return cl, nil
}

// read passes the connection's events on until it closes.
func (cl *Client) read() {
	defer close(cl.events)
	for {
		ev, err := cl.c.WaitForEvent()
		if ev == nil && err == nil {
			return
		}
		if ev != nil {
			cl.events <- ev
		}
	}
}

func (cl *Client) setup() error {
	names := []string{atomEditres, atomCommand, atomProtocol, atomClientValue, fmt.Sprintf("_W365_EDITRES_%d_%d", os.Getpid(), cl.slot), "_W365_EDITRES_REPLY"}
	atoms, err := xconn.Intern(cl.c, names...)
	if err != nil {
		return cl.xerr(err)
	}
	cl.atoms = atoms
	cl.sel = cl.atoms[names[4]]
	id, err := xproto.NewWindowId(cl.c)
	if err != nil {
		return cl.xerr(err)
	}
	cl.win = id
	root := xproto.Setup(cl.c).DefaultScreen(cl.c).Root
	// It selects no events: the selection events come to its owner and requestor whatever it
	// selects, and a reply too large for one property (INCR) is refused, not read.
	err = xproto.CreateWindowChecked(cl.c, 0, id, root, -10, -10, 1, 1, 0, xproto.WindowClassInputOnly, 0, 0, nil).Check()
	return cl.xerr(err)
}

func (cl *Client) xerr(err error) error {
	if err == nil {
		return nil
	}
	return xconn.Explain(cl.display, werr.Wrap(err, werr.Unavailable, "X display %s: %v", cl.display, err))
}

// Close ends the exchange and its connection.
func (cl *Client) Close() {
	cl.c.Close()
	for range cl.events {
	}
	releaseSelection(cl.slot)
}

// ScreenSize is the size of the X screen the program shows on.
func (cl *Client) ScreenSize() (w, h int) {
	s := xproto.Setup(cl.c).DefaultScreen(cl.c)
	return int(s.WidthInPixels), int(s.HeightInPixels)
}

// ErrNotFetched is the cause of the error of a program that never fetched a command: no Xt
// program, or one that does not handle its events.
var ErrNotFetched = errors.New("the command was not fetched")

// errNoAnswer is the error of a program that did not answer in time.
func (cl *Client) errNoAnswer(step string) error {
	var cause error
	if step == ErrNotFetched.Error() {
		cause = ErrNotFetched
	}
	return werr.Wrap(cause, werr.Timeout, "window 0x%x did not answer the Editres request (%s)", uint32(cl.target), step)
}

// call sends one command with its body and returns the reply's formatted data.
func (cl *Client) call(op byte, body []byte) ([]byte, error) {
	cl.ident++
	ident := cl.ident
	cmd := make([]byte, 6, 6+len(body))
	cmd[0], cmd[1] = ident, op
	binary.BigEndian.PutUint32(cmd[2:], uint32(len(body)))
	cmd = append(cmd, body...)

	xproto.SetSelectionOwner(cl.c, cl.win, cl.sel, xproto.TimeCurrentTime)
	msg := xproto.ClientMessageEvent{Format: 32, Window: cl.target, Type: cl.atoms[atomEditres],
		Data: xproto.ClientMessageDataUnionData32New([]uint32{0, uint32(cl.sel), uint32(ident), protocolVersion, 0})}
	if err := xproto.SendEventChecked(cl.c, false, cl.target, 0, string(msg.Bytes())).Check(); err != nil {
		return nil, werr.New(werr.NotFound, "window 0x%x does not exist", uint32(cl.target))
	}
	step := ErrNotFetched.Error()
	timer := time.NewTimer(min(time.Until(cl.deadline), FetchTimeout))
	defer timer.Stop()
	for {
		var ev xgb.Event
		var ok bool
		select {
		case ev, ok = <-cl.events:
			if !ok {
				return nil, cl.xerr(fmt.Errorf("connection closed"))
			}
		case <-timer.C:
			return nil, cl.errNoAnswer(step)
		}
		switch e := ev.(type) {
		case xproto.SelectionRequestEvent:
			if e.Selection != cl.sel || e.Owner != cl.win {
				continue
			}
			prop := e.Property
			if prop == 0 {
				prop = e.Target
			}
			if e.Target == cl.atoms[atomCommand] {
				xproto.ChangeProperty(cl.c, xproto.PropModeReplace, e.Requestor, prop, cl.atoms[atomProtocol], 8, uint32(len(cmd)), cmd)
				if step != "no reply came" {
					step = "no reply came"
					timer.Reset(time.Until(cl.deadline))
				}
			} else {
				prop = 0 // a target this reader does not offer
			}
			n := xproto.SelectionNotifyEvent{Time: e.Time, Requestor: e.Requestor, Selection: e.Selection, Target: e.Target, Property: prop}
			xproto.SendEvent(cl.c, false, e.Requestor, 0, string(n.Bytes()))
		case xproto.SelectionClearEvent:
			// The program took the selection over: its reply is ready.
			if e.Selection == cl.sel {
				xproto.ConvertSelection(cl.c, cl.win, cl.sel, cl.atoms[atomClientValue], cl.atoms["_W365_EDITRES_REPLY"], xproto.TimeCurrentTime)
				step = "the reply was not given"
			}
		case xproto.SelectionNotifyEvent:
			if e.Selection != cl.sel || e.Requestor != cl.win {
				continue
			}
			if e.Property == 0 {
				return nil, werr.New(werr.Unavailable, "window 0x%x refused its Editres reply", uint32(cl.target))
			}
			data, again, err := cl.reply(e.Property, ident)
			if err != nil || !again {
				return data, err
			}
		}
	}
}

// reply reads and checks the reply in property prop of the reader's window; again says it
// answered an earlier command (one that timed out), and the reader waits on.
func (cl *Client) reply(prop xproto.Atom, ident byte) (data []byte, again bool, err error) {
	r, err := xproto.GetProperty(cl.c, true, cl.win, prop, xproto.GetPropertyTypeAny, 0, MaxReply/4).Reply()
	if err != nil {
		return nil, false, cl.xerr(err)
	}
	if r.BytesAfter > 0 || r.Type != cl.atoms[atomProtocol] || r.Format != 8 {
		return nil, false, werr.New(werr.Unavailable, "window 0x%x gave an Editres reply too large or not of the protocol", uint32(cl.target))
	}
	v := r.Value
	if len(v) < 6 {
		return nil, false, cl.malformed()
	}
	if v[0] != ident {
		return nil, true, nil
	}
	n := binary.BigEndian.Uint32(v[2:])
	if uint64(n) > uint64(len(v)-6) {
		return nil, false, cl.malformed()
	}
	body := v[6 : 6+n]
	switch v[1] {
	case replyFormatted:
		return body, false, nil
	case replyUnformatted:
		s := reader{b: body}
		msg := s.string8()
		return nil, false, werr.New(werr.Unavailable, "window 0x%x refused the Editres request: %s", uint32(cl.target), msg)
	case replyMismatch:
		return nil, false, werr.New(werr.Unavailable, "window 0x%x speaks another Editres version", uint32(cl.target))
	}
	return nil, false, cl.malformed()
}

func (cl *Client) malformed() error {
	return werr.New(werr.Unavailable, "window 0x%x gave a malformed Editres reply", uint32(cl.target))
}

// Tree reads the program's whole widget tree (its pop-up shells included), parents before
// their children; the toolkit's name that ends the reply is not read.
func (cl *Client) Tree() ([]Widget, error) {
	b, err := cl.call(opSendWidgetTree, nil)
	if err != nil {
		return nil, err
	}
	r := reader{b: b}
	n := int(r.u16())
	var out []Widget
	byPath := map[string]int{}
	for i := 0; i < n && !r.bad; i++ {
		w := Widget{Path: r.path(), Parent: -1}
		w.Name, w.Class, w.Window = r.string8(), r.string8(), r.u32()
		if r.bad || len(w.Path) == 0 {
			break
		}
		if len(w.Path) > 1 {
			p, ok := byPath[pathKey(w.Path[:len(w.Path)-1])]
			if !ok {
				continue // its parent was cut
			}
			w.Parent = p
		} else if len(out) > 0 {
			continue // a second root
		}
		if len(out) < MaxWidgets {
			byPath[pathKey(w.Path)] = len(out)
			out = append(out, w)
		}
	}
	if r.bad && len(out) == 0 {
		return nil, cl.malformed()
	}
	return out, nil
}

func pathKey(p []uint32) string {
	b := make([]byte, 4*len(p))
	for i, v := range p {
		binary.BigEndian.PutUint32(b[4*i:], v)
	}
	return string(b)
}

// Geometry reads whether each widget of ws is shown and where. A widget that has a window is
// read from the X server (the window must be the program's: made by the client of the shell
// window); the program tells of the others, in one request, and of those it reaches
// (Reached) only: Xmu 1.1 sign-extends the widget ids it is sent, and reaches no widget whose
// address has bit 31 set, nor any widget below such one.
func (cl *Client) Geometry(ws []Widget) error {
	// A request goes in one property, one X request: at most 256 KiB without the BIG-REQUESTS
	// extension; a tree's paths are asked about in requests of at most maxRequest bytes.
	for start := 0; start < len(ws); {
		end, size := start, 2
		for end < len(ws) && (end == start || size+2+4*len(ws[end].Path) <= maxRequest) {
			size += 2 + 4*len(ws[end].Path)
			end++
		}
		if err := cl.geometry(ws[start:end]); err != nil {
			return err
		}
		start = end
	}
	return cl.windows(ws)
}

// maxRequest is the most bytes of a request's body sent in one property.
const maxRequest = 128 << 10

func (cl *Client) geometry(ws []Widget) error {
	if len(ws) == 0 {
		return nil
	}
	var body []byte
	body = binary.BigEndian.AppendUint16(body, uint16(len(ws)))
	for _, w := range ws {
		body = appendPath(body, w.Path)
	}
	b, err := cl.call(opGetGeometry, body)
	if err != nil {
		return err
	}
	r := reader{b: b}
	n := int(r.u16())
	byPath := make(map[string]int, len(ws))
	for i, w := range ws {
		byPath[pathKey(w.Path)] = i
	}
	for range n {
		p := r.path()
		if r.u8() != 0 { // an error: the widget is gone, or Xmu did not reach it
			r.string8()
			continue
		}
		mapped := r.u8() != 0
		x, y := int(int16(r.u16())), int(int16(r.u16()))
		w, h, bw := int(r.u16()), int(r.u16()), int(r.u16())
		if r.bad {
			return cl.malformed()
		}
		if i, ok := byPath[pathKey(p)]; ok {
			ws[i].Reached = true
			ws[i].Mapped, ws[i].X, ws[i].Y, ws[i].W, ws[i].H = mapped, x, y, w+2*bw, h+2*bw
		}
	}
	return nil
}

// windows reads from the X server where each widget of ws that has a window is, and whether
// the server shows it (Xmu asks the server only about a widget Xt does not manage: one a
// program unmapped itself, as xcalc its HEX, DEC and OCT labels, which lie at one place and of
// which one is shown at a time, read as mapped).
func (cl *Client) windows(ws []Widget) error {
	root := xproto.Setup(cl.c).DefaultScreen(cl.c).Root
	type cookies struct {
		attr xproto.GetWindowAttributesCookie
		geom xproto.GetGeometryCookie
		at   xproto.TranslateCoordinatesCookie
	}
	cs := make([]*cookies, len(ws))
	for i, w := range ws {
		if !w.HasWindow() {
			continue
		}
		win := xproto.Window(w.Window)
		if !xconn.SameClient(cl.c, win, cl.target) {
			ws[i].Mapped = false // not the program's window
			continue
		}
		cs[i] = &cookies{xproto.GetWindowAttributes(cl.c, win), xproto.GetGeometry(cl.c, xproto.Drawable(win)),
			xproto.TranslateCoordinates(cl.c, win, root, 0, 0)}
	}
	for i, c := range cs {
		if c == nil {
			continue
		}
		a, err1 := c.attr.Reply()
		g, err2 := c.geom.Reply()
		t, err3 := c.at.Reply()
		if err := errors.Join(err1, err2, err3); err != nil {
			if xconn.Stalled(cl.display) != nil {
				return cl.xerr(err)
			}
			ws[i].Mapped = false // gone
			continue
		}
		bw := int(g.BorderWidth)
		ws[i].Mapped = a.MapState == xproto.MapStateViewable
		ws[i].X, ws[i].Y = int(t.DstX)-bw, int(t.DstY)-bw
		ws[i].W, ws[i].H = int(g.Width)+2*bw, int(g.Height)+2*bw
	}
	return nil
}

// Value reads resource name of widget w as a string, the bytes the program holds (Text
// decodes them); ok is false when the widget has no such resource, or no string for it.
func (cl *Client) Value(w Widget, name string) (v string, ok bool, err error) {
	var body []byte
	body = appendString8(body, name)
	body = binary.BigEndian.AppendUint16(body, 1)
	body = appendPath(body, w.Path)
	b, err := cl.call(opGetValues, body)
	if err != nil {
		return "", false, err
	}
	r := reader{b: b}
	if r.u16() == 0 {
		return "", false, nil
	}
	v = r.string8()
	if r.bad {
		return "", false, cl.malformed()
	}
	// Xmu answers "NoValue" for a resource it could not read, and a message for a widget that
	// is gone.
	if v == "NoValue" || v == "(null)" || v == "This widget no longer exists in the client." || isPointer(v) {
		return "", false, nil
	}
	return v, true, nil
}

// pointer is what Xmu answers for a resource it has no string for (a Motif XmString): its
// value in hexadecimal, 8 or 16 digits (the count checked apart: a counted repetition
// compiles into one state per count at every start).
var pointer = regexp.MustCompile(`^0x[0-9a-f]+$`)

func isPointer(v string) bool {
	return (len(v) == 10 || len(v) == 18) && pointer.MatchString(v)
}

// Text is a resource's string as UTF-8. Xt strings are the bytes a font draws: in Adobe's
// Symbol font (symbol) SymbolText's characters, otherwise ISO 8859-1 in Xaw's default fonts
// (xcalc's "x²"), taken as they are when they are UTF-8 already.
func Text(s string, symbol bool) string {
	if symbol {
		return SymbolText(s)
	}
	if utf8.ValidString(s) {
		return s
	}
	r := make([]rune, len(s))
	for i := range len(s) {
		r[i] = rune(s[i])
	}
	return string(r)
}

func appendPath(b []byte, p []uint32) []byte {
	b = binary.BigEndian.AppendUint16(b, uint16(len(p)))
	for _, id := range p {
		b = binary.BigEndian.AppendUint32(b, id)
	}
	return b
}

func appendString8(b []byte, s string) []byte {
	b = binary.BigEndian.AppendUint16(b, uint16(len(s)))
	return append(b, s...)
}

// reader parses a reply; once a field runs past its end, bad is set and every read gives zero.
type reader struct {
	b   []byte
	bad bool
}

func (r *reader) take(n int) []byte {
	if r.bad || n > len(r.b) {
		r.bad = true
		return nil
	}
	v := r.b[:n]
	r.b = r.b[n:]
	return v
}

func (r *reader) u8() byte {
	if v := r.take(1); v != nil {
		return v[0]
	}
	return 0
}

func (r *reader) u16() uint16 {
	if v := r.take(2); v != nil {
		return binary.BigEndian.Uint16(v)
	}
	return 0
}

func (r *reader) u32() uint32 {
	if v := r.take(4); v != nil {
		return binary.BigEndian.Uint32(v)
	}
	return 0
}

func (r *reader) string8() string { return string(r.take(int(r.u16()))) }

func (r *reader) path() []uint32 {
	n := int(r.u16())
	if n > maxPath {
		r.bad = true
		return nil
	}
	p := make([]uint32, 0, n)
	for range n {
		p = append(p, r.u32())
	}
	if r.bad {
		return nil
	}
	return p
}
