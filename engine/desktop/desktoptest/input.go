package desktoptest

import (
	"context"
	"fmt"
	"image"
	"testing"

	"github.com/w365/w365/engine/desktop"
	"github.com/w365/w365/engine/policy"
	"github.com/w365/w365/engine/werr"
)

// testInput: the cursor round trip, the corner fail-safe of every pointer method, the
// validation of buttons, counts and keys, the scroll clamp, and TypePaste's restore.
// Nothing here is aimed at a window: the clicks and the wheel land on the empty desktop.
func testInput(ctx context.Context, t *testing.T, d desktop.Desktop) {
	pol := policy.Default()
	m := pol.FailsafeMarginPx
	if !pol.FailsafeEnabled || m <= 0 {
		t.Fatalf("the default policy has no corner fail-safe (enabled %v, margin %d): the suite checks it", pol.FailsafeEnabled, m)
	}
	s := open(t, config{}, Screen, d.OpenScreen)
	w, h := size(t, s)
	if w < 8*m || h < 8*m {
		t.Fatalf("the %dx%d screen is too small for the suite", w, h)
	}
	in := open(t, config{}, Input, func() (desktop.Input, error) { return d.OpenInput(pol) })

	at := func(x, y int) {
		t.Helper()
		if gx, gy, err := in.CursorPosition(); err != nil || gx != x || gy != y {
			t.Fatalf("the cursor is at (%d,%d) (err %v), want (%d,%d)", gx, gy, err, x, y)
		}
	}
	move := func(x, y int) {
		t.Helper()
		if err := in.Move(ctx, x, y); err != nil {
			t.Fatalf("Move(%d,%d): %v", x, y, err)
		}
		at(x, y)
	}
	// home is where the cursor waits while calls that must move nothing are refused.
	hx, hy := w/2, h/2
	for _, p := range []image.Point{{w / 3, h / 3}, {2 * w / 3, h/2 + 7}, {m + 1, m + 1}, {w - 2 - m, h - 2 - m}, {0, h / 2}, {w - 1, h / 2}, {hx, hy}} {
		move(p.X, p.Y)
	}
	ip := func(v int) *int { return &v }

	// Every pointer method refuses a target in a corner zone, and moves nothing.
	corners := []image.Point{{0, 0}, {w - 1, 0}, {0, h - 1}, {w - 1, h - 1}, {m, m}, {w - 1 - m, h - 1 - m}, {m, h - 1}}
	for _, c := range corners {
		wantCode(t, in.Move(ctx, c.X, c.Y), werr.Failsafe, fmt.Sprintf("Move to the corner point %v", c))
		at(hx, hy)
		wantCode(t, clickErr(in.Click(ctx, ip(c.X), ip(c.Y), "left", 1)), werr.Failsafe, fmt.Sprintf("Click at %v", c))
		at(hx, hy)
		_, err := in.Scroll(ctx, c.X, c.Y, 0, 1)
		wantCode(t, err, werr.Failsafe, fmt.Sprintf("Scroll at %v", c))
		at(hx, hy)
		wantCode(t, in.Drag(ctx, hx, hy, c.X, c.Y, "left"), werr.Failsafe, fmt.Sprintf("Drag from (%d,%d) to %v", hx, hy, c))
		at(hx, hy)
		wantCode(t, in.Drag(ctx, c.X, c.Y, hx, hy, "left"), werr.Failsafe, fmt.Sprintf("Drag from %v", c))
		at(hx, hy)
	}
	// A drag between two safe points whose path crosses the corner zone.
	wantCode(t, in.Drag(ctx, 0, 2*m, 2*m, 0, "left"), werr.Failsafe, "Drag across the top-left corner zone")
	at(hx, hy)
	// Points off the screen are no targets at all.
	for _, p := range []image.Point{{-1, h / 2}, {w, h / 2}, {w / 2, -1}, {w / 2, h}} {
		wantCode(t, in.Move(ctx, p.X, p.Y), werr.InvalidArgument, fmt.Sprintf("Move to %v, off the %dx%d screen", p, w, h))
		at(hx, hy)
		wantCode(t, clickErr(in.Click(ctx, ip(p.X), ip(p.Y), "", 1)), werr.InvalidArgument, fmt.Sprintf("Click at %v, off the screen", p))
		at(hx, hy)
	}

	// With the cursor in a corner, every pointer method but a Move to a safe point (the
	// way out) is refused. An Input without the fail-safe puts it there.
	free := *pol
	free.FailsafeEnabled = false
	unguarded := open(t, config{}, Input, func() (desktop.Input, error) { return d.OpenInput(&free) })
	if err := unguarded.Move(ctx, 0, 0); err != nil {
		t.Fatalf("Move to (0,0) with the fail-safe off: %v", err)
	}
	at(0, 0)
	wantCode(t, clickErr(in.Click(ctx, nil, nil, "left", 1)), werr.Failsafe, "Click at the cursor, in the corner")
	wantCode(t, clickErr(in.Click(ctx, ip(hx), ip(hy), "left", 1)), werr.Failsafe, "Click at a safe point with the cursor in the corner")
	_, err := in.Scroll(ctx, hx, hy, 0, 1)
	wantCode(t, err, werr.Failsafe, "Scroll at a safe point with the cursor in the corner")
	wantCode(t, in.Drag(ctx, hx, hy, hx+20, hy, "left"), werr.Failsafe, "Drag between safe points with the cursor in the corner")
	wantCode(t, in.Move(ctx, w-1, h-1), werr.Failsafe, "Move from a corner to another corner")
	at(0, 0)
	move(hx, hy)

	// A nil policy is the default one, fail-safe included.
	def := open(t, config{}, Input, func() (desktop.Input, error) { return d.OpenInput(nil) })
	wantCode(t, def.Move(ctx, 0, 0), werr.Failsafe, "Move to (0,0) through OpenInput(nil)")
	at(hx, hy)

	// Buttons and counts are checked before anything moves.
	tx, ty := hx+40, hy+30
	for _, c := range []struct {
		button string
		count  int
		x, y   *int
	}{
		{"nosuchbutton", 1, ip(tx), ip(ty)},
		{"left click", 1, ip(tx), ip(ty)},
		{"wheel", 1, ip(tx), ip(ty)},
		{"left", 3, ip(tx), ip(ty)},
		{"left", -1, ip(tx), ip(ty)},
		{"left", 1, ip(tx), nil},
		{"left", 1, nil, ip(ty)},
	} {
		_, err := in.Click(ctx, c.x, c.y, c.button, c.count)
		wantCode(t, err, werr.InvalidArgument, fmt.Sprintf("Click(button %q, count %d, x set %v, y set %v)", c.button, c.count, c.x != nil, c.y != nil))
		at(hx, hy)
	}
	for _, b := range []string{"nosuchbutton", "forward", "backward"} { // no side buttons in a drag
		wantCode(t, in.Drag(ctx, tx, ty, tx+30, ty, b), werr.InvalidArgument, fmt.Sprintf("Drag with button %q", b))
		at(hx, hy)
	}
	// Button names are case-insensitive, "" is the left button, a count of 0 is 1.
	if _, err := in.Click(ctx, ip(tx), ip(ty), "LEFT", 0); err != nil {
		t.Fatalf("Click(%d,%d, LEFT, 0): %v", tx, ty, err)
	}
	at(tx, ty)
	if _, err := in.Click(ctx, nil, nil, "", 1); err != nil {
		t.Fatalf("Click at the cursor: %v", err)
	}
	at(tx, ty)
	if err := in.Drag(ctx, tx, ty, hx, hy, "Left"); err != nil {
		t.Fatalf("Drag(%d,%d -> %d,%d): %v", tx, ty, hx, hy, err)
	}
	at(hx, hy)

	// Scroll clamps each delta to the policy's notches and says so. On a desktop whose
	// root window switches workspaces on the wheel (openbox), the last scroll, all the
	// way up, ends on the first one again.
	lim := pol.ScrollNotchesMax
	for _, c := range []struct {
		dx, dy, wantDX, wantDY int
		clamped                bool
	}{
		{0, lim + 7, 0, lim, true},
		{-2, 1, -2, 1, false},
		{lim + 1, 0, lim, 0, true},
		{-(lim + 3), -(lim + 9), -lim, -lim, true},
	} {
		r, err := in.Scroll(ctx, tx, ty, c.dx, c.dy)
		if err != nil {
			t.Fatalf("Scroll(%d,%d) at (%d,%d): %v", c.dx, c.dy, tx, ty, err)
		}
		if want := (desktop.ScrollResult{AppliedDX: c.wantDX, AppliedDY: c.wantDY, Clamped: c.clamped}); r != want {
			t.Fatalf("Scroll(%d,%d) with a limit of %d notches = %+v, want %+v", c.dx, c.dy, lim, r, want)
		}
		at(tx, ty)
	}
	move(hx, hy)

	// Keys: unknown names and empty chords are refused, and so is text that cannot be typed.
	for _, keys := range [][]string{{"nosuchkey"}, {"ctrl", "nosuchkey"}, {}, nil} {
		wantCode(t, in.PressKeys(ctx, keys), werr.InvalidArgument, fmt.Sprintf("PressKeys(%q)", keys))
	}
	wantCode(t, in.TypeText(ctx, "a\x01b"), werr.InvalidArgument, "TypeText with the control character U+0001")
	if err := in.PressKeys(ctx, []string{"Shift"}); err != nil {
		t.Fatalf("PressKeys(Shift): %v", err)
	}

	// A call whose context is cancelled does nothing and says CANCELLED.
	cx := cancelled()
	wantCode(t, in.Move(cx, tx, ty), werr.Cancelled, "Move with a cancelled context")
	wantCode(t, clickErr(in.Click(cx, ip(tx), ip(ty), "left", 1)), werr.Cancelled, "Click with a cancelled context")
	wantCode(t, in.Drag(cx, tx, ty, hx+5, hy, "left"), werr.Cancelled, "Drag with a cancelled context")
	_, err = in.Scroll(cx, tx, ty, 0, 1)
	wantCode(t, err, werr.Cancelled, "Scroll with a cancelled context")
	at(hx, hy)
	wantCode(t, in.PressKeys(cx, []string{"shift"}), werr.Cancelled, "PressKeys with a cancelled context")
	wantCode(t, in.TypeText(cx, "x"), werr.Cancelled, "TypeText with a cancelled context")

	// TypePaste goes through the clipboard it is given and puts its text back, whether
	// or not anything read the paste (nothing has the focus here).
	clip := &textClip{text: "what the clipboard held", ok: true}
	err = in.TypePaste(ctx, "pasted by desktoptest", clip)
	if clip.text != "what the clipboard held" || !clip.ok {
		t.Fatalf("after TypePaste (err %v) the clipboard holds %q (ok %v), want its previous text back; writes %q", err, clip.text, clip.ok, clip.writes)
	}
	if clip.reads == 0 {
		t.Fatalf("TypePaste (err %v) never read the clipboard it restores", err)
	}
	t.Logf("TypePaste with nothing focused: %v", err)
}

// textClip is a desktop.TextClipboard in memory.
type textClip struct {
	text   string
	ok     bool
	reads  int
	writes []string
}

func (c *textClip) Read() (string, bool, error) {
	c.reads++
	return c.text, c.ok, nil
}

func (c *textClip) Write(text string) error {
	c.text, c.ok = text, true
	c.writes = append(c.writes, text)
	return nil
}
