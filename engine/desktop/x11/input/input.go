//go:build linux

// Package input sends mouse and keyboard input to one X display through the XTEST
// extension, and enforces the corner fail-safe: a mouse operation near a screen corner
// is refused.
//
// Why XTEST over jezek/xgb instead of robotgo: robotgo keeps one process-wide X
// display, so a host that serves several displays would have to switch it under a
// global lock for every call; it has no side buttons (8/9), its wheel names are
// inverted on X11, it silently accepts unknown key names, and it sleeps after every
// event. A per-display xgb connection with XTEST gives real device events (the same
// events xdotool produces), exact button numbers, validated key names, Unicode
// typing by remapping spare keycodes, and no sleeps, with no global state at all.
package input

import (
	"context"
	"fmt"
	"image"
	"sync"
	"time"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"
	"github.com/jezek/xgb/xtest"

	"github.com/w365/w365/engine/desktop"
	"github.com/w365/w365/engine/desktop/x11/xconn"
	"github.com/w365/w365/engine/policy"
	"github.com/w365/w365/engine/werr"
)

// X core event types used with XTEST FakeInput.
const (
	evKeyPress      = 2
	evKeyRelease    = 3
	evButtonPress   = 4
	evButtonRelease = 5
	evMotion        = 6
)

// Controller drives the pointer and keyboard of one X display. It is safe for
// concurrent use; calls are serialized. Use one Controller per display: spare
// keycodes remapped for Unicode typing are bookkept per Controller.
type Controller struct {
	display string
	pol     *policy.Policy

	mu    sync.Mutex // serializes every operation
	conn  *xgb.Conn
	root  xproto.Window
	km    *keymap
	atoms map[string]xproto.Atom // of landedIn

	// paste state, shared with the event loop
	sel selectionOwner
	// pings to the focused application, answered through the event loop
	ping pinger

	closed bool
}

// New connects to displayName (":0", ":7"...) and checks that XTEST is there.
// p supplies the fail-safe and scroll limits; nil means policy.Default().
func New(displayName string, p *policy.Policy) (*Controller, error) {
	if p == nil {
		p = policy.Default()
	}
	c := &Controller{display: displayName, pol: p}
	if err := c.connect(); err != nil {
		return nil, err
	}
	return c, nil
}

func (c *Controller) connect() error {
	conn, err := xconn.Connect(c.display)
	if err != nil {
		if st := xconn.Stalled(c.display); st != nil {
			return st
		}
		return werr.Wrap(err, werr.Unavailable, "cannot connect to X display %s", c.display).
			WithHint("check that the display is running and DISPLAY is right")
	}
	if err := xtest.Init(conn); err != nil {
		conn.Close()
		return werr.Wrap(err, werr.Unsupported, "X display %s has no XTEST extension", c.display)
	}
	atoms, err := xconn.Intern(conn, "WM_STATE", "_NET_WM_NAME", "UTF8_STRING")
	if err != nil {
		conn.Close()
		return werr.Wrap(err, werr.Unavailable, "X display %s does not answer", c.display)
	}
	c.conn, c.atoms = conn, atoms
	c.root = xproto.Setup(conn).DefaultScreen(conn).Root
	km := newKeymap(conn)
	if old := c.km; old != nil {
		// Reconnecting: the keycodes we borrowed are still mapped on the server;
		// keep knowing them as ours (spare), or they would leak.
		km.spares = old.spares
		for code, ks := range old.borrowed {
			km.borrowed[code] = ks
		}
	}
	if err := km.load(); err != nil {
		conn.Close()
		c.conn = nil
		return werr.Wrap(err, werr.Unavailable, "cannot read the keyboard mapping of %s", c.display)
	}
	c.km = km
	c.sel.init(conn, c.root)
	c.initPing()
	go c.eventLoop(conn, c.km, &c.sel, &c.ping)
	return nil
}

// eventLoop drains the connection's events (xgb blocks when its queue is full),
// notes keyboard mapping changes and serves clipboard requests while pasting.
func (c *Controller) eventLoop(conn *xgb.Conn, km *keymap, sel *selectionOwner, ping *pinger) {
	for {
		ev, xerr := conn.WaitForEvent()
		if ev == nil && xerr == nil {
			return // connection closed
		}
		switch e := ev.(type) {
		case xproto.MappingNotifyEvent:
			if e.Request == xproto.MappingKeyboard || e.Request == xproto.MappingModifier {
				km.markDirty()
			}
		case xproto.SelectionRequestEvent:
			sel.serve(e)
		case xproto.SelectionClearEvent:
			sel.lost(e)
		case xproto.ClientMessageEvent:
			ping.pong(e)
		}
	}
}

// Close restores remapped keycodes and closes the connection.
func (c *Controller) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil
	}
	c.closed = true
	if c.conn != nil {
		if len(c.km.borrowed) > 0 {
			// Let the focused application read keys typed through borrowed
			// keycodes before they lose their keysyms.
			c.catchUp(context.Background())
		}
		c.km.restore()
		c.sync()
		c.conn.Close()
		c.conn = nil
	}
	return nil
}

// beginMouse checks ctx, takes the controller and reads the screen and cursor; with
// cursorCheck it also refuses a cursor in a corner zone (op names the tool). On
// success the caller must call end.
func (c *Controller) beginMouse(ctx context.Context, op string, cursorCheck bool) (state, error) {
	if err := werr.Done(ctx, "input"); err != nil {
		return state{}, err
	}
	if err := c.begin(); err != nil {
		return state{}, err
	}
	s, err := c.state()
	if err == nil && cursorCheck {
		err = c.checkCursor(op, s)
	}
	if err != nil {
		c.end()
		return state{}, err
	}
	return s, nil
}

// beginKeys checks ctx, takes the controller and rereads a keyboard mapping that
// changed. On success the caller must call end.
func (c *Controller) beginKeys(ctx context.Context) error {
	if err := werr.Done(ctx, "input"); err != nil {
		return err
	}
	if err := c.begin(); err != nil {
		return err
	}
	if err := c.km.refreshIfDirty(); err != nil {
		c.end()
		return werr.Wrap(err, werr.Unavailable, "cannot read the keyboard mapping of %s", c.display)
	}
	return nil
}

// Display is the X display name this controller drives.
func (c *Controller) Display() string { return c.display }

// begin takes the lock and makes sure the connection is usable, reconnecting once
// when it broke (the X server restarted, or the socket was closed).
func (c *Controller) begin() error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return werr.New(werr.Unavailable, "input controller for %s is closed", c.display)
	}
	if err := xconn.Stalled(c.display); err != nil {
		c.mu.Unlock()
		return err
	}
	if c.conn != nil {
		if _, err := xproto.GetInputFocus(c.conn).Reply(); err == nil {
			return nil
		}
		c.conn.Close()
		c.conn = nil
	}
	if err := c.connect(); err != nil {
		c.mu.Unlock()
		return err
	}
	return nil
}

func (c *Controller) end() { c.mu.Unlock() }

// query runs f, requests with replies, under the lock: their replies say whether the
// connection works, so no probe goes first (begin's round trip, a tenth of a one-shot
// get-cursor-position's time in the host), and when f fails the connection is re-made and f
// runs once more.
func (c *Controller) query(f func() error) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return werr.New(werr.Unavailable, "input controller for %s is closed", c.display)
	}
	if err := xconn.Stalled(c.display); err != nil {
		return err
	}
	if c.conn != nil {
		if f() == nil {
			return nil
		}
		c.conn.Close()
		c.conn = nil
	}
	if err := c.connect(); err != nil {
		return err
	}
	return f()
}

// sync waits until the X server has processed every request sent so far.
func (c *Controller) sync() error {
	if _, err := xproto.GetInputFocus(c.conn).Reply(); err != nil {
		return xconn.Explain(c.display, werr.Wrap(err, werr.Unavailable, "X display %s stopped answering", c.display))
	}
	return nil
}

func (c *Controller) fake(typ, detail byte, x, y int) {
	xtest.FakeInput(c.conn, typ, detail, 0, c.root, int16(x), int16(y), 0)
}

func (c *Controller) motion(x, y int) { c.fake(evMotion, 0, x, y) }
func (c *Controller) press(b byte)    { c.fake(evButtonPress, b, 0, 0) }
func (c *Controller) release(b byte)  { c.fake(evButtonRelease, b, 0, 0) }
func (c *Controller) keyDown(k byte)  { c.fake(evKeyPress, k, 0, 0) }
func (c *Controller) keyUp(k byte)    { c.fake(evKeyRelease, k, 0, 0) }

// ---------------------------------------------------------------------------
// Geometry and the fail-safe

// state is what a mouse operation needs to know before it starts.
type state struct {
	w, h   int
	cx, cy int
}

func (c *Controller) state() (state, error) {
	gc := xproto.GetGeometry(c.conn, xproto.Drawable(c.root))
	pc := xproto.QueryPointer(c.conn, c.root)
	g, err := gc.Reply()
	if err != nil {
		pc.Reply()
		return state{}, werr.Wrap(err, werr.Unavailable, "cannot read the screen size of %s", c.display)
	}
	p, err := pc.Reply()
	if err != nil {
		return state{}, werr.Wrap(err, werr.Unavailable, "cannot read the cursor position on %s", c.display)
	}
	return state{w: int(g.Width), h: int(g.Height), cx: int(p.RootX), cy: int(p.RootY)}, nil
}

// inCorner is the corner test of the fail-safe (desktop.InCorner).
var inCorner = desktop.InCorner

func (c *Controller) failsafeOn() bool { return desktop.NewGuard(c.pol).On() }

func (c *Controller) failsafeErr(op, what string, x, y int, s state) *werr.Error {
	return desktop.NewGuard(c.pol).Err(op, what, x, y, s.w, s.h)
}

// checkCursor refuses when the cursor already sits in a corner zone.
func (c *Controller) checkCursor(op string, s state) error {
	return desktop.NewGuard(c.pol).CheckCursor(op, s.cx, s.cy, s.w, s.h)
}

func (c *Controller) checkTarget(op string, x, y int, s state) error {
	return desktop.NewGuard(c.pol).CheckTarget(op, x, y, s.w, s.h)
}

// ---------------------------------------------------------------------------
// Mouse

// Move puts the cursor at (x, y) with a real motion event.
//
// Fail-safe: the target must not lie in a corner zone. Unlike every other mouse
// operation, Move is allowed while the cursor itself sits in a corner, as long as
// its target is safe: it is the one way out of the fail-safe (otherwise a cursor
// that got into a corner would block the mouse for good).
func (c *Controller) Move(ctx context.Context, x, y int) error {
	s, err := c.beginMouse(ctx, "move_mouse", false)
	if err != nil {
		return err
	}
	defer c.end()
	if err := c.checkTarget("move_mouse", x, y, s); err != nil {
		return err
	}
	c.motion(x, y)
	return c.sync()
}

// CursorPosition reports where the cursor is, in screen pixels.
func (c *Controller) CursorPosition() (x, y int, err error) {
	err = c.query(func() error {
		p, err := xproto.QueryPointer(c.conn, c.root).Reply()
		if err != nil {
			return werr.Wrap(err, werr.Unavailable, "cannot read the cursor position on %s", c.display)
		}
		x, y = int(p.RootX), int(p.RootY)
		return nil
	})
	return x, y, err
}

// ScreenSize is the size of the root window (the virtual screen space).
func (c *Controller) ScreenSize() (w, h int, err error) {
	err = c.query(func() error {
		s, err := c.state()
		w, h = s.w, s.h
		return err
	})
	return w, h, err
}

// clickButtons are the X11 numbers of the desktop.Button* names.
var clickButtons = map[string]byte{desktop.ButtonLeft: 1, desktop.ButtonMiddle: 2, desktop.ButtonRight: 3,
	desktop.ButtonBackward: 8, desktop.ButtonForward: 9}

func parseButton(name string, allowSide bool) (byte, error) {
	n, err := desktop.ParseButton(name, allowSide)
	if err != nil {
		return 0, err
	}
	return clickButtons[n], nil
}

// Click clicks button count times (1 or 2) at (x, y), or where the cursor is when
// both x and y are nil. button is Left, Right, Middle, Forward or Backward (X11
// buttons 1, 3, 2, 9, 8), case-insensitive; "" means Left. A double click is two
// press/release pairs sent back to back, so toolkits see one double click (and,
// as with a real mouse, two single clicks on one spot within the toolkit's
// double-click time are one double click too). It names the window it landed in
// (landedIn) and then waits up to ClickWait for the
// application under the pointer to have handled the click, as far as a ping tells
// (pingableAt): on a loaded machine GTK closed a dialog a second after the click, and an
// agent that looked at once found the dialog still open.
func (c *Controller) Click(ctx context.Context, x, y *int, button string, count int) (desktop.Handled, error) {
	b, err := parseButton(button, true)
	if err != nil {
		return desktop.Handled{}, err
	}
	if count, err = desktop.ClickCount(count, x, y); err != nil {
		return desktop.Handled{}, err
	}
	s, err := c.beginMouse(ctx, "click", true)
	if err != nil {
		return desktop.Handled{}, err
	}
	defer c.end()
	tx, ty := s.cx, s.cy
	if x != nil {
		tx, ty = *x, *y
	}
	if err := c.checkTarget("click", tx, ty, s); err != nil {
		return desktop.Handled{}, err
	}
	if tx != s.cx || ty != s.cy {
		c.motion(tx, ty)
		c.caughtUp(ctx)
	}
	// The window is read before the click, which may close it.
	h := desktop.Handled{Window: c.landedIn(tx, ty)}
	for i := 0; i < count; i++ {
		c.press(b)
		c.release(b)
	}
	if err := c.sync(); err != nil {
		return desktop.Handled{}, err
	}
	c.settle(b)
	start := time.Now()
	switch c.pingWait(ctx, c.pingableAt(tx, ty), ClickWait) {
	case pingAnswered:
		h.Waited = time.Since(start)
	case pingLate:
		h.Waited, h.Late = time.Since(start), true
	}
	return h, nil
}

// ClickWait bounds how long Click waits for the application to handle the click: longer
// than pingTimeout, as a click is one call where keys are many. A variable, so that a test
// can shorten it.
var ClickWait = 5 * time.Second

// motionPause is how long a click waits between its move and its press when no ping tells
// that the application has read the move (caughtUp).
const motionPause = 20 * time.Millisecond

// caughtUp waits until the application with the focus has read the events sent so far
// (clientSync), or for motionPause when that cannot be told. A person's pointer reaches an
// item before the button goes down; a toolkit that picks a menu's item from the motion it
// has read (FOX: Xfe's File > New folder...) ignores a press that arrives in the same batch
// as the move, and its menu closes with nothing chosen.
func (c *Controller) caughtUp(ctx context.Context) {
	if c.clientSync(ctx) {
		return
	}
	if c.sync() == nil {
		time.Sleep(motionPause)
	}
}

// settleMax bounds how long a mouse operation waits for a frozen pointer to thaw.
const settleMax = 500 * time.Millisecond

// settle waits until the server has really processed the release of button b.
// Window managers (openbox among them) hold a synchronous passive grab on the
// buttons of client windows for click-to-focus, and replay the press to the
// application only after they have looked at it; meanwhile the pointer is frozen
// and our release waits in the server while keyboard events flow on. Without
// this wait, a click followed at once by typing delivers the keys before the
// click that was meant to focus the target. While our release is queued the
// server still reports the button as down. Buttons 4-9 have no state bit and
// are not grabbed by window managers.
func (c *Controller) settle(b byte) {
	var mask uint16
	switch b {
	case 1:
		mask = xproto.KeyButMaskButton1
	case 2:
		mask = xproto.KeyButMaskButton2
	case 3:
		mask = xproto.KeyButMaskButton3
	default:
		return
	}
	deadline := time.Now().Add(settleMax)
	for {
		// The server processes queued input between request batches, so this
		// request, sent after sync's reply, sees the fake events processed.
		q, err := xproto.QueryPointer(c.conn, c.root).Reply()
		if err != nil || q.Mask&mask == 0 || time.Now().After(deadline) {
			return
		}
		time.Sleep(200 * time.Microsecond)
	}
}

// Drag presses button at (sx, sy), moves to (ex, ey) in small steps with real
// motion events and releases there. button is Left, Right or Middle. The whole
// path is checked against the fail-safe before anything is sent, and the button
// is released even when the drag fails or is cancelled midway.
func (c *Controller) Drag(ctx context.Context, sx, sy, ex, ey int, button string) (err error) {
	b, err := parseButton(button, false)
	if err != nil {
		return err
	}
	s, err := c.beginMouse(ctx, "drag_mouse", true)
	if err != nil {
		return err
	}
	defer c.end()
	if err := c.checkTarget("drag_mouse", sx, sy, s); err != nil {
		return err
	}
	if err := c.checkTarget("drag_mouse", ex, ey, s); err != nil {
		return err
	}
	if c.failsafeOn() {
		for _, p := range linePoints(sx, sy, ex, ey) {
			if inCorner(p.X, p.Y, s.w, s.h, c.pol.FailsafeMarginPx) {
				return c.failsafeErr("drag_mouse", "the drag path passes", p.X, p.Y, s)
			}
		}
	}

	c.motion(sx, sy)
	if err := c.sync(); err != nil {
		return err
	}
	c.press(b)
	defer func() {
		// Always release, at the current position, whatever happened.
		c.release(b)
		if e := c.sync(); err == nil {
			err = e
		}
		c.settle(b)
	}()
	if err := c.sync(); err != nil {
		return err
	}
	steps := dragSteps(sx, sy, ex, ey)
	for i := 1; i <= steps; i++ {
		if dragStepHook != nil {
			dragStepHook(i)
		}
		if err := werr.Done(ctx, "input"); err != nil {
			return err
		}
		x := sx + (ex-sx)*i/steps
		y := sy + (ey-sy)*i/steps
		c.motion(x, y)
		if err := c.sync(); err != nil {
			return err
		}
		// Give the application a moment per step: toolkits that start a drag on
		// motion (and some that look at event times) need the steps spread out.
		time.Sleep(dragStepPause)
	}
	c.motion(ex, ey) // pixel-exact end, even if rounding above was off
	return nil
}

const dragStepPause = 2 * time.Millisecond

// dragStepHook, when set by a test, runs before each drag step (failure injection).
var dragStepHook func(step int)

// dragSteps is the number of motion steps: about one per 10 px, 5 to 60 steps.
func dragSteps(sx, sy, ex, ey int) int {
	d := max(abs(ex-sx), abs(ey-sy))
	return min(max(d/10, 5), 60)
}

func abs(v int) int {
	if v < 0 {
		return -v
	}
	return v
}

// linePoints lists every pixel of the segment (Bresenham), ends included.
func linePoints(x0, y0, x1, y1 int) []image.Point {
	dx, dy := abs(x1-x0), -abs(y1-y0)
	sx, sy := 1, 1
	if x0 > x1 {
		sx = -1
	}
	if y0 > y1 {
		sy = -1
	}
	e := dx + dy
	var pts []image.Point
	for {
		pts = append(pts, image.Pt(x0, y0))
		if x0 == x1 && y0 == y1 {
			return pts
		}
		e2 := 2 * e
		if e2 >= dy {
			e += dy
			x0 += sx
		}
		if e2 <= dx {
			e += dx
			y0 += sy
		}
	}
}

// ScrollResult is the platform-neutral result, so that a Controller serves as
// desktop.Input as it is.
type ScrollResult = desktop.ScrollResult

// Scroll turns the wheel at (x, y): dy notches down (negative: up) and dx notches
// right (negative: left), each clamped to ±ScrollNotchesMax of the policy, as real
// wheel buttons 4/5 (up/down) and 6/7 (left/right).
func (c *Controller) Scroll(ctx context.Context, x, y, dx, dy int) (ScrollResult, error) {
	lim := c.pol.ScrollNotchesMax
	var r ScrollResult
	r.AppliedDX, r.AppliedDY = clamp(dx, -lim, lim), clamp(dy, -lim, lim)
	r.Clamped = r.AppliedDX != dx || r.AppliedDY != dy
	s, err := c.beginMouse(ctx, "scroll", true)
	if err != nil {
		return r, err
	}
	defer c.end()
	if err := c.checkTarget("scroll", x, y, s); err != nil {
		return r, err
	}
	if x != s.cx || y != s.cy {
		c.motion(x, y)
	}
	wheel := func(n int, neg, pos byte) {
		b := pos
		if n < 0 {
			b, n = neg, -n
		}
		for i := 0; i < n; i++ {
			c.press(b)
			c.release(b)
		}
	}
	wheel(r.AppliedDY, 4, 5)
	wheel(r.AppliedDX, 6, 7)
	return r, c.sync()
}

func clamp(v, lo, hi int) int { return max(lo, min(hi, v)) }

// String is for logs.
func (c *Controller) String() string { return fmt.Sprintf("input.Controller(%s)", c.display) }
