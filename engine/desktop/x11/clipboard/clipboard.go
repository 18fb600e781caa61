//go:build linux

// Package clipboard reads and writes the CLIPBOARD selection of one X display
// (clipboard_read, clipboard_write).
//
// Ownership: a Clipboard owns the selection itself, in the process that holds it (the host),
// over its own X connection. It answers SelectionRequest events for TARGETS, TIMESTAMP,
// MULTIPLE, UTF8_STRING, text/plain;charset=utf-8, TEXT, STRING and text/plain (the last two
// as Latin-1, '?' for other characters), and sends text larger than one X request (about
// 256 KB) incrementally (INCR). This beats keeping an xclip child per session: no helper
// process to leak, orphan or lose, no dependency on xclip being installed, and SelectionClear
// tells the host exactly when another application took the clipboard over. The content stays
// available as long as the Clipboard (the host) lives, whatever happens to the CLI process
// that asked for the write; it goes away with the host, as it would with any X application.
//
// Reading converts the selection to this client's own window: plain text is preferred when
// the owner offers it, otherwise an image (image/png as is; JPEG and GIF are converted to
// PNG). Incremental (INCR) transfers are handled both ways.
package clipboard

import (
	"bytes"
	"context"
	"encoding/base64"
	"image"
	_ "image/gif" // decoders for image/gif and image/jpeg conversions
	_ "image/jpeg"
	"image/png"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"

	"github.com/w365/w365/engine/desktop"
	"github.com/w365/w365/engine/desktop/x11/xconn"
	"github.com/w365/w365/engine/werr"
)

// ReadResult is the platform-neutral content, so that a Clipboard serves as
// desktop.Clipboard as it is.
type ReadResult = desktop.ClipboardContent

// Timeouts of a read: for the owner's answer to one conversion, for each chunk of an
// incremental transfer, and for the whole read. The owner (any X client of a session)
// decides how long a transfer lasts: one byte a chunk, each just before chunkTimeout, held
// the read, and every later call of the session queued behind it, for days. readTimeout
// ends it whatever the owner does; 8 MiB (maxContent) take well under a second on a local
// display.
var (
	convertTimeout = 3 * time.Second
	chunkTimeout   = 3 * time.Second
	readTimeout    = 15 * time.Second
)

// maxContent is the most of the clipboard the host reads, in bytes (8 MiB; a screenshot of
// a 4K screen as PNG is smaller). Whoever owns the clipboard (any X client of a session)
// says how much it holds, and the host holds what it reads and every copy a result makes of
// it, in its own process, outside the session's limits: 16 MiB of Latin-1 text grew the
// host's resident peak by 512 to 577 MiB in one clipboard_read, when it read up to 256 MB
// (docs/security.md#what-the-host-reads-from-a-session). More is RESOURCE_EXHAUSTED.
const maxContent = 8 << 20

// tooLarge is the error for clipboard content past maxContent.
var tooLarge = werr.New(werr.ResourceExhausted, "the clipboard holds more than %d MiB", maxContent>>20)

// text targets in order of preference when reading.
var textTargets = []string{"UTF8_STRING", "text/plain;charset=utf-8", "STRING", "TEXT", "text/plain", "text/uri-list"}

// image targets in order of preference when reading.
var imageTargets = []string{"image/png", "image/jpeg", "image/gif"}

var atomNames = []string{
	"CLIPBOARD", "TARGETS", "TIMESTAMP", "MULTIPLE", "ATOM_PAIR", "INCR", "ATOM", "INTEGER",
	"UTF8_STRING", "STRING", "TEXT", "text/plain", "text/plain;charset=utf-8", "text/uri-list",
	"image/png", "image/jpeg", "image/gif", "W365_SELECTION", "W365_TIMESTAMP",
}

// outgoing is an INCR transfer in progress to one requestor.
type outgoing struct {
	when time.Time // started; abandoned transfers are dropped after incrAbandon
	typ  xproto.Atom
	data []byte
	off  int
	done bool // the final zero-length chunk was written
}

type outKey struct {
	win  xproto.Window
	prop xproto.Atom
}

// Clipboard is the CLIPBOARD selection of one display. It is safe for concurrent use.
type Clipboard struct {
	display  string
	conn     *xgb.Conn
	win      xproto.Window
	atoms    map[string]xproto.Atom
	maxChunk int

	mu sync.Mutex // serializes Read and Write

	ownMu   sync.Mutex
	owned   bool
	data    []byte // UTF-8 text served while owned
	latin   []byte // data as ISO 8859-1, for STRING targets: converted once, shared by every answer
	ownTime xproto.Timestamp

	selNotify  chan xproto.SelectionNotifyEvent
	propNotify chan xproto.PropertyNotifyEvent
	out        map[outKey]*outgoing // event loop only
	incrIn     atomic.Int64         // incremental transfers received (for tests)
	incrOut    atomic.Int64         // incremental transfers started (for tests)
	done       chan struct{}
	closeOnce  sync.Once
}

// Open connects to displayName and creates the invisible window that owns and receives
// selections.
func Open(displayName string) (*Clipboard, error) {
	conn, err := xconn.Connect(displayName)
	if err != nil {
		return nil, werr.Wrap(err, werr.Unavailable, "cannot connect to X display %s", displayName)
	}
	setup := xproto.Setup(conn)
	scr := setup.DefaultScreen(conn)
	c := &Clipboard{
		display: displayName, conn: conn,
		selNotify: make(chan xproto.SelectionNotifyEvent, 8), propNotify: make(chan xproto.PropertyNotifyEvent, 1024),
		out: map[outKey]*outgoing{}, done: make(chan struct{}),
	}
	// One ChangeProperty request carries at most MaximumRequestLength 4-byte units
	// (xgb does not use BIG-REQUESTS); keep a margin for the request header.
	c.maxChunk = min(int(setup.MaximumRequestLength)*4-64, 256*1024)
	if c.atoms, err = xconn.Intern(conn, atomNames...); err != nil {
		conn.Close()
		return nil, werr.Wrap(err, werr.Unavailable, "X display %s does not answer", displayName)
	}
	win, err := xproto.NewWindowId(conn)
	if err != nil {
		conn.Close()
		return nil, werr.Wrap(err, werr.Internal, "cannot allocate a window id")
	}
	err = xproto.CreateWindowChecked(conn, 0, win, scr.Root, -10, -10, 1, 1, 0,
		xproto.WindowClassInputOnly, scr.RootVisual, xproto.CwEventMask,
		[]uint32{xproto.EventMaskPropertyChange}).Check()
	if err != nil {
		conn.Close()
		return nil, werr.Wrap(err, werr.Unavailable, "cannot create the clipboard window on %s", displayName)
	}
	c.win = win
	name := "w365 clipboard"
	xproto.ChangeProperty(conn, xproto.PropModeReplace, win, xproto.AtomWmName, xproto.AtomString, 8, uint32(len(name)), []byte(name))
	go c.loop()
	return c, nil
}

// Close gives up the selection (the X server drops it with the connection) and disconnects.
func (c *Clipboard) Close() error {
	c.closeOnce.Do(func() {
		c.conn.Close()
		<-c.done
	})
	return nil
}

func (c *Clipboard) atom(n string) xproto.Atom { return c.atoms[n] }

// loop handles every X event of the connection.
func (c *Clipboard) loop() {
	defer close(c.done)
	for {
		ev, xerr := c.conn.WaitForEvent()
		if ev == nil && xerr == nil {
			return
		}
		switch e := ev.(type) {
		case xproto.SelectionRequestEvent:
			c.serve(e)
		case xproto.SelectionClearEvent:
			if e.Selection == c.atom("CLIPBOARD") {
				c.ownMu.Lock()
				if e.Time == xproto.TimeCurrentTime || e.Time >= c.ownTime {
					c.owned, c.data, c.latin = false, nil, nil
				}
				c.ownMu.Unlock()
			}
		case xproto.SelectionNotifyEvent:
			if e.Requestor == c.win {
				select {
				case c.selNotify <- e:
				default:
				}
			}
		case xproto.PropertyNotifyEvent:
			c.dropAbandoned()
			k := outKey{e.Window, e.Atom}
			if o := c.out[k]; o != nil && e.State == xproto.PropertyDelete {
				c.sendChunk(k, o)
			}
			if e.Window == c.win {
				select {
				case c.propNotify <- e:
				default:
				}
			}
		case xproto.DestroyNotifyEvent:
			for k := range c.out {
				if k.win == e.Window {
					delete(c.out, k)
				}
			}
		}
	}
}

// incrAbandon is how long an incremental transfer may stall before it is dropped (a
// requestor that never deletes the property would otherwise pin the data).
const incrAbandon = 30 * time.Second

func (c *Clipboard) dropAbandoned() {
	for k, o := range c.out {
		if time.Since(o.when) > incrAbandon {
			delete(c.out, k)
		}
	}
}

// sendChunk writes the next piece of an INCR transfer; the final one is empty.
func (c *Clipboard) sendChunk(k outKey, o *outgoing) {
	if o.done {
		delete(c.out, k)
		others := false
		for ok := range c.out {
			others = others || ok.win == k.win
		}
		if k.win != c.win && !others {
			xproto.ChangeWindowAttributes(c.conn, k.win, xproto.CwEventMask, []uint32{xproto.EventMaskNoEvent})
		}
		return
	}
	o.when = time.Now()
	n := min(c.maxChunk, len(o.data)-o.off)
	xproto.ChangeProperty(c.conn, xproto.PropModeReplace, k.win, k.prop, o.typ, 8, uint32(n), o.data[o.off:o.off+n])
	o.off += n
	if n == 0 {
		o.done = true
	}
}

// latin1 converts UTF-8 text to ISO 8859-1 for STRING targets ('?' for what it cannot hold).
func latin1(b []byte) []byte {
	out := make([]byte, 0, len(b))
	for _, r := range string(b) {
		if r < 256 {
			out = append(out, byte(r))
		} else {
			out = append(out, '?')
		}
	}
	return out
}

// serve answers one SelectionRequest (ICCCM 2.2).
func (c *Clipboard) serve(e xproto.SelectionRequestEvent) {
	prop := e.Property
	if prop == xproto.AtomNone {
		prop = e.Target // obsolete requestors
	}
	c.ownMu.Lock()
	owned, data, latin, ownTime := c.owned, c.data, c.latin, c.ownTime
	c.ownMu.Unlock()
	ok := owned && e.Selection == c.atom("CLIPBOARD") &&
		(e.Time == xproto.TimeCurrentTime || e.Time >= ownTime)
	if ok {
		if e.Target == c.atom("MULTIPLE") {
			ok = e.Property != xproto.AtomNone && c.serveMultiple(e.Requestor, e.Property, data, latin, ownTime)
		} else {
			ok = c.serveTarget(e.Requestor, e.Target, prop, data, latin, ownTime)
		}
	}
	if !ok {
		prop = xproto.AtomNone
	}
	n := xproto.SelectionNotifyEvent{Time: e.Time, Requestor: e.Requestor, Selection: e.Selection, Target: e.Target, Property: prop}
	xproto.SendEvent(c.conn, false, e.Requestor, xproto.EventMaskNoEvent, string(n.Bytes()))
}

// serveTarget stores the conversion of the owned text (data, and latin for STRING) to target
// on the requestor's property; false when target is not supported, or not now (put).
func (c *Clipboard) serveTarget(w xproto.Window, target, prop xproto.Atom, data, latin []byte, ownTime xproto.Timestamp) bool {
	switch target {
	case c.atom("TARGETS"):
		ts := []string{"TARGETS", "TIMESTAMP", "MULTIPLE", "UTF8_STRING", "text/plain;charset=utf-8", "TEXT", "STRING", "text/plain"}
		buf := make([]byte, 4*len(ts))
		for i, t := range ts {
			xgb.Put32(buf[i*4:], uint32(c.atom(t)))
		}
		xproto.ChangeProperty(c.conn, xproto.PropModeReplace, w, prop, c.atom("ATOM"), 32, uint32(len(ts)), buf)
	case c.atom("TIMESTAMP"):
		buf := make([]byte, 4)
		xgb.Put32(buf, uint32(ownTime))
		xproto.ChangeProperty(c.conn, xproto.PropModeReplace, w, prop, c.atom("INTEGER"), 32, 1, buf)
	case c.atom("UTF8_STRING"), c.atom("TEXT"):
		return c.put(w, prop, c.atom("UTF8_STRING"), data)
	case c.atom("text/plain;charset=utf-8"):
		return c.put(w, prop, target, data)
	case c.atom("STRING"), c.atom("text/plain"):
		return c.put(w, prop, target, latin)
	default:
		return false
	}
	return true
}

// serveMultiple answers MULTIPLE (ICCCM 2.6.2): the requestor's property holds (target,
// property) pairs, of which the first maxMultiple are read; each is converted, and the
// property of a pair that cannot be is set to None in the list written back.
func (c *Clipboard) serveMultiple(w xproto.Window, prop xproto.Atom, data, latin []byte, ownTime xproto.Timestamp) bool {
	r, err := xproto.GetProperty(c.conn, false, w, prop, xproto.GetPropertyTypeAny, 0, 2*maxMultiple).Reply()
	if err != nil || r.Format != 32 || r.ValueLen < 2 {
		return false
	}
	pairs := make([]xproto.Atom, r.ValueLen)
	for i := range pairs {
		pairs[i] = xproto.Atom(xgb.Get32(r.Value[i*4:]))
	}
	for i := 0; i+1 < len(pairs); i += 2 {
		target, p := pairs[i], pairs[i+1]
		if p == xproto.AtomNone || target == c.atom("MULTIPLE") || !c.serveTarget(w, target, p, data, latin, ownTime) {
			pairs[i+1] = xproto.AtomNone
		}
	}
	buf := make([]byte, 4*len(pairs))
	for i, a := range pairs {
		xgb.Put32(buf[i*4:], uint32(a))
	}
	xproto.ChangeProperty(c.conn, xproto.PropModeReplace, w, prop, r.Type, 32, uint32(len(pairs)), buf)
	return true
}

// Any X client of the session may ask the owner for the clipboard, as often as it likes:
// the host converts the text once (latin), reads at most maxMultiple targets of a MULTIPLE
// request, and keeps at most maxOutgoing incremental transfers, refusing the conversions
// past them. Before, one MULTIPLE request of 2,047 STRING targets of a 512 KiB text grew
// the host by 522 MiB, a copy for each, kept 30 s (docs/security.md, "What the host reads
// from a session").
const (
	maxMultiple = 32
	maxOutgoing = 32
)

// put stores data on the requestor's property, incrementally when it is too large for one
// request; false when maxOutgoing incremental transfers are under way, unless it is the
// host's own read (Read, one at a time).
func (c *Clipboard) put(w xproto.Window, prop, typ xproto.Atom, data []byte) bool {
	if len(data) <= c.maxChunk {
		xproto.ChangeProperty(c.conn, xproto.PropModeReplace, w, prop, typ, 8, uint32(len(data)), data)
		return true
	}
	c.dropAbandoned()
	if _, again := c.out[outKey{w, prop}]; !again && w != c.win && len(c.out) >= maxOutgoing {
		return false
	}
	// INCR: announce the size, then write a chunk each time the requestor deletes the
	// property (PropertyNotify on its window).
	if w != c.win {
		xproto.ChangeWindowAttributes(c.conn, w, xproto.CwEventMask, []uint32{xproto.EventMaskPropertyChange | xproto.EventMaskStructureNotify})
	}
	buf := make([]byte, 4)
	xgb.Put32(buf, uint32(len(data)))
	xproto.ChangeProperty(c.conn, xproto.PropModeReplace, w, prop, c.atom("INCR"), 32, 1, buf)
	c.out[outKey{w, prop}] = &outgoing{when: time.Now(), typ: typ, data: data}
	c.incrOut.Add(1)
	return true
}

func drain[T any](ch chan T) {
	for {
		select {
		case <-ch:
		default:
			return
		}
	}
}

// timestamp obtains a current server time (ICCCM: never CurrentTime for ownership) by
// touching a property of our window and reading the time of the PropertyNotify.
func (c *Clipboard) timestamp(ctx context.Context) (xproto.Timestamp, error) {
	drain(c.propNotify)
	xproto.ChangeProperty(c.conn, xproto.PropModeAppend, c.win, c.atom("W365_TIMESTAMP"), xproto.AtomString, 8, 0, nil)
	deadline := time.After(convertTimeout)
	for {
		select {
		case e := <-c.propNotify:
			if e.Atom == c.atom("W365_TIMESTAMP") {
				return e.Time, nil
			}
		case <-deadline:
			return 0, werr.New(werr.Timeout, "X server on %s did not answer", c.display).WithRetryable(true)
		case <-ctx.Done():
			return 0, werr.Done(ctx, "clipboard")
		case <-c.done:
			return 0, werr.New(werr.Unavailable, "clipboard connection to %s is closed", c.display)
		}
	}
}

// Write puts text on the clipboard, owned by this Clipboard, and returns its length in
// characters (Unicode code points). Text must be valid UTF-8.
func (c *Clipboard) Write(ctx context.Context, text string) (int, error) {
	if !utf8.ValidString(text) {
		return 0, werr.Invalid("text is not valid UTF-8")
	}
	if strings.IndexByte(text, 0) >= 0 {
		// Text targets end at a NUL for most readers, and Windows refuses it: so do we.
		return 0, werr.Invalid("text contains a NUL character, which the clipboard cannot hold")
	}
	if err := werr.Done(ctx, "clipboard write"); err != nil {
		return 0, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	ts, err := c.timestamp(ctx)
	if err != nil {
		return 0, err
	}
	c.ownMu.Lock()
	data := []byte(text)
	c.owned, c.data, c.latin, c.ownTime = true, data, latin1(data), ts
	c.ownMu.Unlock()
	if err := xproto.SetSelectionOwnerChecked(c.conn, c.win, c.atom("CLIPBOARD"), ts).Check(); err != nil {
		return 0, werr.Wrap(err, werr.Internal, "cannot take the clipboard")
	}
	r, err := xproto.GetSelectionOwner(c.conn, c.atom("CLIPBOARD")).Reply()
	if err != nil || r.Owner != c.win {
		c.ownMu.Lock()
		c.owned = false
		c.ownMu.Unlock()
		return 0, werr.New(werr.Unavailable, "another application holds the clipboard").WithRetryable(true)
	}
	return utf8.RuneCountInString(text), nil
}

// errRefused means the owner cannot convert to the asked target.
var errRefused = werr.New(werr.NotFound, "the clipboard owner refused the conversion")

// convert asks the selection owner for target and returns the data and its type.
func (c *Clipboard) convert(ctx context.Context, target xproto.Atom) ([]byte, xproto.Atom, error) {
	prop := c.atom("W365_SELECTION")
	drain(c.selNotify)
	xproto.DeleteProperty(c.conn, c.win, prop)
	xproto.ConvertSelection(c.conn, c.win, c.atom("CLIPBOARD"), target, prop, xproto.TimeCurrentTime)
	var ev xproto.SelectionNotifyEvent
	deadline := time.After(convertTimeout)
wait:
	for {
		select {
		case ev = <-c.selNotify:
			if ev.Target == target {
				break wait
			}
		case <-deadline:
			return nil, 0, werr.New(werr.Timeout, "the clipboard owner did not answer").WithRetryable(true)
		case <-ctx.Done():
			return nil, 0, werr.Done(ctx, "clipboard read")
		case <-c.done:
			return nil, 0, werr.New(werr.Unavailable, "clipboard connection to %s is closed", c.display)
		}
	}
	if ev.Property == xproto.AtomNone {
		return nil, 0, errRefused
	}
	drain(c.propNotify)
	r, err := xproto.GetProperty(c.conn, true, c.win, prop, xproto.GetPropertyTypeAny, 0, maxContent/4).Reply()
	if err != nil {
		return nil, 0, werr.Wrap(err, werr.Internal, "cannot read the clipboard")
	}
	if r.BytesAfter > 0 {
		xproto.DeleteProperty(c.conn, c.win, prop)
		return nil, 0, tooLarge
	}
	if r.Type != c.atom("INCR") {
		return r.Value, r.Type, nil
	}
	// Incremental: the delete above asked for the first chunk; each NewValue brings one,
	// an empty one ends it.
	c.incrIn.Add(1)
	var buf bytes.Buffer
	typ := xproto.Atom(0)
	stall := time.NewTimer(chunkTimeout) // restarted by each chunk, by no other event
	defer stall.Stop()
	for {
		select {
		case e := <-c.propNotify:
			if e.Atom != prop || e.State != xproto.PropertyNewValue {
				continue
			}
			stall.Reset(chunkTimeout)
			r, err := xproto.GetProperty(c.conn, true, c.win, prop, xproto.GetPropertyTypeAny, 0, maxContent/4).Reply()
			if err != nil {
				return nil, 0, werr.Wrap(err, werr.Internal, "cannot read the clipboard")
			}
			if len(r.Value) == 0 {
				return buf.Bytes(), typ, nil
			}
			typ = r.Type
			if r.BytesAfter > 0 || buf.Len()+len(r.Value) > maxContent {
				xproto.DeleteProperty(c.conn, c.win, prop)
				return nil, 0, tooLarge
			}
			buf.Write(r.Value)
		case <-stall.C:
			return nil, 0, werr.New(werr.Timeout, "the clipboard owner stopped sending").WithRetryable(true)
		case <-ctx.Done():
			return nil, 0, werr.Done(ctx, "clipboard read")
		case <-c.done:
			return nil, 0, werr.New(werr.Unavailable, "clipboard connection to %s is closed", c.display)
		}
	}
}

func (c *Clipboard) decodeText(data []byte, typ xproto.Atom) string {
	if typ == c.atom("STRING") {
		var b strings.Builder
		b.Grow(2 * len(data))
		for _, c := range data {
			b.WriteRune(rune(c))
		}
		return b.String()
	}
	return strings.ToValidUTF8(string(data), "\uFFFD")
}

// isText says whether a reply type is a text type.
func (c *Clipboard) isText(typ xproto.Atom) bool {
	switch typ {
	case c.atom("UTF8_STRING"), c.atom("STRING"), c.atom("TEXT"):
		return true
	}
	r, err := xproto.GetAtomName(c.conn, typ).Reply()
	return err == nil && (strings.HasPrefix(r.Name, "text/") || r.Name == "COMPOUND_TEXT")
}

var pngMagic = []byte("\x89PNG\r\n\x1a\n")

// maxImagePixels is the largest clipboard image (16,777,216 pixels: 4096x4096) the host
// decodes to convert it to PNG. Whoever owns the clipboard (any X client of a session) says
// the size, and the decoder holds every pixel, in the host, outside the session's limits: a
// GIF of 182 KB that said 16384x16384 grew the host by 257 MiB, one of 65535x65535 would
// have had it hold 4 GiB (docs/security.md#what-the-host-reads-from-a-session).
const maxImagePixels = 1 << 24

// Read returns the clipboard content: text when the owner offers text, else an image as
// base64 PNG, else format "empty" when nobody owns the clipboard. Content in no text or image
// format (e.g. only application-specific targets) is UNSUPPORTED, with the offered targets in
// the details.
func (c *Clipboard) Read(ctx context.Context) (ReadResult, error) {
	if err := werr.Done(ctx, "clipboard read"); err != nil {
		return ReadResult{}, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	rctx, cancel := context.WithTimeout(ctx, readTimeout)
	defer cancel()
	r, err := c.read(rctx)
	if err != nil && ctx.Err() == nil && rctx.Err() != nil {
		return ReadResult{}, werr.New(werr.Timeout, "the clipboard owner took longer than %s to hand over its content", readTimeout).WithRetryable(true)
	}
	return r, err
}

// read is Read within its time.
func (c *Clipboard) read(ctx context.Context) (ReadResult, error) {
	owner, err := xproto.GetSelectionOwner(c.conn, c.atom("CLIPBOARD")).Reply()
	if err != nil {
		return ReadResult{}, werr.Wrap(err, werr.Unavailable, "X display %s does not answer", c.display)
	}
	if owner.Owner == xproto.WindowNone {
		return ReadResult{Format: "empty"}, nil
	}
	offered := map[string]bool{}
	var names []string
	if data, _, err := c.convert(ctx, c.atom("TARGETS")); err == nil {
		for i := 0; i+4 <= len(data); i += 4 {
			a := xproto.Atom(xgb.Get32(data[i:]))
			if r, err := xproto.GetAtomName(c.conn, a).Reply(); err == nil {
				offered[r.Name] = true
				names = append(names, r.Name)
			}
		}
	} else if werr.CodeOf(err) != werr.NotFound {
		return ReadResult{}, err
	} else {
		// No TARGETS support (old clients): try the text types directly.
		offered["UTF8_STRING"], offered["STRING"] = true, true
	}
	for _, t := range textTargets {
		if !offered[t] {
			continue
		}
		data, typ, err := c.convert(ctx, c.atom(t))
		if err == errRefused {
			continue
		}
		if err != nil {
			return ReadResult{}, err
		}
		if !c.isText(typ) {
			continue // the owner answered with something else (it changed, or ignores targets)
		}
		if t == "STRING" || t == "text/plain" {
			typ = c.atom("STRING")
		}
		return ReadResult{Format: "text", Text: c.decodeText(data, typ), MIMEType: "text/plain;charset=utf-8"}, nil
	}
	for _, t := range imageTargets {
		if !offered[t] {
			continue
		}
		data, _, err := c.convert(ctx, c.atom(t))
		if err == errRefused {
			continue
		}
		if err != nil {
			return ReadResult{}, err
		}
		// Decide by the bytes, not the target name: some owners (xclip) answer any target
		// with their one format, and the owner may have changed since TARGETS.
		if !bytes.HasPrefix(data, pngMagic) {
			cfg, _, err := image.DecodeConfig(bytes.NewReader(data))
			if err != nil {
				continue
			}
			if px := int64(cfg.Width) * int64(cfg.Height); px > maxImagePixels {
				return ReadResult{}, werr.New(werr.ResourceExhausted, "the clipboard image is %dx%d pixels, more than the %d the host converts",
					cfg.Width, cfg.Height, maxImagePixels).WithDetail("width", cfg.Width).WithDetail("height", cfg.Height)
			}
			img, _, err := image.Decode(bytes.NewReader(data))
			if err != nil {
				continue
			}
			var b bytes.Buffer
			if err := png.Encode(&b, img); err != nil {
				return ReadResult{}, werr.Wrap(err, werr.Internal, "cannot encode the clipboard image")
			}
			data = b.Bytes()
		}
		return ReadResult{Format: "image", ImageBase64: base64.StdEncoding.EncodeToString(data), MIMEType: "image/png"}, nil
	}
	if len(names) == 0 {
		return ReadResult{Format: "empty"}, nil
	}
	return ReadResult{}, werr.New(werr.Unsupported, "the clipboard holds no text or image").WithDetail("targets", names)
}
