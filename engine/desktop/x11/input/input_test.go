//go:build linux

package input_test

import (
	"context"
	"fmt"
	"math"
	"os/exec"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jezek/xgb/xproto"
	"golang.org/x/sys/unix"

	"github.com/w365/w365/engine/desktop"
	"github.com/w365/w365/engine/desktop/x11/display"
	"github.com/w365/w365/engine/desktop/x11/input"
	"github.com/w365/w365/engine/desktop/x11/window"
	"github.com/w365/w365/engine/desktop/x11/x11test"
	"github.com/w365/w365/engine/desktop/x11/xconn"
	"github.com/w365/w365/engine/policy"
	"github.com/w365/w365/engine/werr"
	"github.com/w365/w365/test/testenv"
)

func newController(t testing.TB, d *display.Desktop, p *policy.Policy) *input.Controller {
	t.Helper()
	c, err := input.New(d.Name, p)
	if err != nil {
		t.Fatalf("input.New(%s): %v", d.Name, err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func setup(t *testing.T, args ...string) (*display.Desktop, *input.Controller, *x11test.Probe) {
	t.Helper()
	d := x11test.Start(t)
	c := newController(t, d, nil)
	p := x11test.StartProbe(t, d, args...)
	return d, c, p
}

func ptr(v int) *int { return &v }

// clickErr is the error of a Click, for wantCode.
func clickErr(_ desktop.Handled, err error) error { return err }

func wantCode(t *testing.T, err error, code werr.Code) *werr.Error {
	t.Helper()
	if err == nil {
		t.Fatalf("got no error, want %s", code)
	}
	e := werr.As(err)
	if e.Code != code {
		t.Fatalf("got %v, want code %s", err, code)
	}
	return e
}

// clickAt clicks the center of a probe widget.
func clickWidget(t *testing.T, c *input.Controller, p *x11test.Probe, name string) {
	t.Helper()
	x, y := p.Ready.Widgets[name].Center()
	if _, err := c.Click(context.Background(), &x, &y, "left", 1); err != nil {
		t.Fatalf("click %s: %v", name, err)
	}
}

func isButton(b, clicks int) func(x11test.Event) bool {
	return func(e x11test.Event) bool { return e.Event == "button" && e.Button == b && e.Clicks == clicks }
}

func TestDoubleClickArrivesAsOneDoubleClick(t *testing.T) {
	_, c, p := setup(t)
	x, y := p.Ready.Widgets["Pad"].Center()
	if _, err := c.Click(context.Background(), &x, &y, "Left", 2); err != nil {
		t.Fatal(err)
	}
	evs := p.Until(t, isButton(1, 2))
	last := evs[len(evs)-1]
	if last.X != x || last.Y != y {
		t.Errorf("double click at (%d,%d), want (%d,%d)", last.X, last.Y, x, y)
	}
	// The sentinel: a right click. Everything the double click produced comes before it.
	if _, err := c.Click(context.Background(), nil, nil, "right", 1); err != nil {
		t.Fatal(err)
	}
	evs = append(evs, p.Until(t, isButton(3, 1))...)
	var singles, doubles int
	for _, e := range evs {
		if e.Event == "button" && e.Button == 1 {
			switch e.Clicks {
			case 1:
				singles++
			case 2:
				doubles++
			default:
				t.Errorf("unexpected press %s", e.Raw)
			}
		}
	}
	if singles != 2 || doubles != 1 {
		t.Errorf("want the two presses of one double click (2 single + 1 double), got %d single, %d double:\n%s",
			singles, doubles, x11test.String(evs))
	}
}

func TestSideButtonsAndClickAtCursor(t *testing.T) {
	_, c, p := setup(t)
	x, y := p.Ready.Widgets["Pad"].Center()
	ctx := context.Background()
	if _, err := c.Click(ctx, &x, &y, "Forward", 1); err != nil {
		t.Fatal(err)
	}
	if e := p.Next(t, x11test.Is("button")); e.Button != 9 || e.Clicks != 1 {
		t.Errorf("Forward arrived as %s, want button 9", e.Raw)
	}
	if _, err := c.Click(ctx, nil, nil, "BACKWARD", 1); err != nil {
		t.Fatal(err)
	}
	if e := p.Next(t, x11test.Is("button")); e.Button != 8 || e.X != x || e.Y != y {
		t.Errorf("Backward arrived as %s, want button 8 at (%d,%d)", e.Raw, x, y)
	}
	if _, err := c.Click(ctx, nil, nil, "middle", 1); err != nil {
		t.Fatal(err)
	}
	if e := p.Next(t, x11test.Is("button")); e.Button != 2 {
		t.Errorf("Middle arrived as %s, want button 2", e.Raw)
	}
	// The real Submit button.
	clickWidget(t, c, p, "Submit")
	if e := p.Next(t, x11test.Is("clicked")); e.Widget != "Submit" {
		t.Errorf("got %s", e.Raw)
	}
	cx, cy, err := c.CursorPosition()
	if err != nil {
		t.Fatal(err)
	}
	if sx, sy := p.Ready.Widgets["Submit"].Center(); cx != sx || cy != sy {
		t.Errorf("cursor at (%d,%d), want (%d,%d)", cx, cy, sx, sy)
	}
}

func TestClickRejectsBadArguments(t *testing.T) {
	d := x11test.Start(t)
	c := newController(t, d, nil)
	ctx := context.Background()
	e := wantCode(t, clickErr(c.Click(ctx, ptr(100), ptr(100), "Top", 1)), werr.InvalidArgument)
	for _, b := range []string{"Left", "Right", "Middle", "Forward", "Backward"} {
		if !strings.Contains(e.Message, b) {
			t.Errorf("message %q does not name %s", e.Message, b)
		}
	}
	wantCode(t, clickErr(c.Click(ctx, ptr(100), ptr(100), "left", 3)), werr.InvalidArgument)
	wantCode(t, clickErr(c.Click(ctx, ptr(100), nil, "left", 1)), werr.InvalidArgument)
	wantCode(t, clickErr(c.Click(ctx, ptr(5000), ptr(100), "left", 1)), werr.InvalidArgument)
	wantCode(t, c.Drag(ctx, 100, 100, 200, 200, "forward"), werr.InvalidArgument)
	wantCode(t, c.Move(ctx, -1, 100), werr.InvalidArgument)
}

func TestScrollNotchesAndClamping(t *testing.T) {
	_, c, p := setup(t)
	x, y := p.Ready.Widgets["Pad"].Center()
	ctx := context.Background()
	r, err := c.Scroll(ctx, x, y, 0, 3)
	if err != nil {
		t.Fatal(err)
	}
	if r.AppliedDY != 3 || r.AppliedDX != 0 || r.Clamped {
		t.Errorf("result %+v, want 3 down, not clamped", r)
	}
	// Sentinel: a left scroll notch ends the sequence.
	if _, err := c.Scroll(ctx, x, y, -1, 0); err != nil {
		t.Fatal(err)
	}
	evs := p.Until(t, func(e x11test.Event) bool { return e.Event == "scroll" && e.Direction == "left" })
	var dirs []string
	for _, e := range evs {
		if e.Event == "scroll" {
			dirs = append(dirs, e.Direction)
		}
	}
	if want := []string{"down", "down", "down", "left"}; !slices.Equal(dirs, want) {
		t.Errorf("scroll arrived as %v, want %v", dirs, want)
	}

	r, err = c.Scroll(ctx, x, y, 2, -25)
	if err != nil {
		t.Fatal(err)
	}
	if r.AppliedDY != -20 || r.AppliedDX != 2 || !r.Clamped {
		t.Errorf("result %+v, want dy clamped to -20, dx 2, clamped", r)
	}
	evs = p.Until(t, func(e x11test.Event) bool { return e.Event == "scroll" && e.Direction == "right" })
	evs = append(evs, p.Until(t, func(e x11test.Event) bool { return e.Event == "scroll" && e.Direction == "right" })...)
	up := 0
	for _, e := range evs {
		if e.Event == "scroll" && e.Direction == "up" {
			up++
		}
	}
	if up != 20 {
		t.Errorf("got %d up notches, want 20 (clamped)", up)
	}
}

const unicodeText = "Grüße, 東京 ✓\tok"

func TestTypeTextUnicodeArrivesIntact(t *testing.T) {
	_, c, p := setup(t)
	clickWidget(t, c, p, "Notes")
	p.Next(t, x11test.Is("focus"))
	if err := c.TypeText(context.Background(), unicodeText); err != nil {
		t.Fatal(err)
	}
	p.Next(t, func(e x11test.Event) bool { return e.Event == "text" && e.Widget == "Notes" && e.Text == unicodeText })

	// Newlines are Return; emoji outside the BMP and more distinct characters than
	// there are spare keycodes (so they get reused) still arrive intact.
	more := "\nline 2 😀 αβγδεζηθικλμνξοπρστυφχψω ÀÉÎÕÜ"
	if err := c.TypeText(context.Background(), more); err != nil {
		t.Fatal(err)
	}
	want := unicodeText + more
	p.Next(t, func(e x11test.Event) bool { return e.Event == "text" && e.Widget == "Notes" && e.Text == want })
}

func TestTypeTextRejectsControlCharacters(t *testing.T) {
	d := x11test.Start(t)
	c := newController(t, d, nil)
	wantCode(t, c.TypeText(context.Background(), "a\x00b"), werr.InvalidArgument)
	wantCode(t, c.TypeText(context.Background(), "a\xffb"), werr.InvalidArgument)
}

// xclip is a Clipboard over `xclip -selection clipboard`, for tests only.
type xclip struct{ d *display.Desktop }

func (x xclip) Read() (string, bool, error) {
	out, err := x.d.Command("xclip", "-selection", "clipboard", "-o", "-t", "UTF8_STRING").Output()
	if err != nil {
		if _, ok := err.(*exec.ExitError); ok {
			return "", false, nil // no owner, or no text
		}
		return "", false, err
	}
	return string(out), true, nil
}

func (x xclip) Write(s string) error {
	cmd := x.d.Command("xclip", "-selection", "clipboard", "-i")
	cmd.Stdin = strings.NewReader(s)
	return cmd.Run()
}

func TestTypePasteArrivesIntactAndRestoresClipboard(t *testing.T) {
	testenv.Require(t, "xclip")
	d, c, p := setup(t)
	clip := xclip{d}
	if err := clip.Write("previous clipboard"); err != nil {
		t.Fatal(err)
	}
	clickWidget(t, c, p, "Notes")
	p.Next(t, x11test.Is("focus"))
	if err := c.TypePaste(context.Background(), unicodeText, clip); err != nil {
		t.Fatal(err)
	}
	p.Next(t, func(e x11test.Event) bool { return e.Event == "text" && e.Widget == "Notes" && e.Text == unicodeText })
	got, ok, err := clip.Read()
	if err != nil || !ok || got != "previous clipboard" {
		t.Errorf("clipboard after paste = %q, %v, %v; want the previous content restored", got, ok, err)
	}

	// Into the entry too.
	clickWidget(t, c, p, "Name")
	p.Next(t, func(e x11test.Event) bool { return e.Event == "focus" && e.Widget == "Name" })
	if err := c.TypePaste(context.Background(), "Zoë", clip); err != nil {
		t.Fatal(err)
	}
	p.Next(t, func(e x11test.Event) bool { return e.Event == "text" && e.Widget == "Name" && e.Text == "Zoë" })
	if got, _, _ := clip.Read(); got != "previous clipboard" {
		t.Errorf("clipboard after second paste = %q", got)
	}
}

func TestPressKeysCombos(t *testing.T) {
	_, c, p := setup(t)
	clickWidget(t, c, p, "Name")
	p.Next(t, x11test.Is("focus"))
	ctx := context.Background()
	isKey := func(name string) func(x11test.Event) bool {
		return func(e x11test.Event) bool { return e.Event == "key" && strings.EqualFold(e.Key, name) }
	}
	cases := []struct {
		keys []string
		key  string
		mods []string
	}{
		{[]string{"ctrl", "a"}, "a", []string{"ctrl"}},
		{[]string{"Control", "Shift", "S"}, "s", []string{"ctrl", "shift"}},
		{[]string{"shift", "Tab"}, "ISO_Left_Tab", []string{"shift"}},
		{[]string{"alt", "F24"}, "F24", []string{"alt"}}, // F24 is not on the keyboard: a spare keycode
		{[]string{"esc"}, "Escape", nil},
		{[]string{"?"}, "question", []string{"shift"}},
	}
	for _, tc := range cases {
		if err := c.PressKeys(ctx, tc.keys); err != nil {
			t.Fatalf("%v: %v", tc.keys, err)
		}
		e := p.Next(t, isKey(tc.key))
		if !slices.Equal(e.Modifiers, tc.mods) && !(len(tc.mods) == 0 && len(e.Modifiers) == 0) {
			t.Errorf("%v arrived as %s, want %s with %v", tc.keys, e.Raw, tc.key, tc.mods)
		}
	}
	// Released in reverse order: after ctrl+shift+s, no modifier stays down.
	if err := c.TypeText(ctx, "x"); err != nil {
		t.Fatal(err)
	}
	if e := p.Next(t, isKey("x")); len(e.Modifiers) != 0 {
		t.Errorf("modifiers still held: %s", e.Raw)
	}
}

func TestUnknownKeySuggestsNearest(t *testing.T) {
	_, c, p := setup(t)
	clickWidget(t, c, p, "Name")
	p.Next(t, x11test.Is("focus"))
	e := wantCode(t, c.PressKeys(context.Background(), []string{"ctrll", "a"}), werr.InvalidArgument)
	if !strings.Contains(e.Message, `"ctrl"`) {
		t.Errorf("message %q does not suggest ctrl", e.Message)
	}
	e = wantCode(t, c.PressKeys(context.Background(), []string{"pagedwn"}), werr.InvalidArgument)
	if !strings.Contains(e.Message, `"pagedown"`) {
		t.Errorf("message %q does not suggest pagedown", e.Message)
	}
	// Nothing was pressed: the next key event is the sentinel.
	if err := c.PressKeys(context.Background(), []string{"b"}); err != nil {
		t.Fatal(err)
	}
	evs := p.Until(t, x11test.Is("key"))
	if k := evs[len(evs)-1].Key; k != "b" {
		t.Errorf("first key received was %q, want the sentinel b", k)
	}
	if names := input.KeyNames(); !slices.Contains(names, "ctrl") || !slices.Contains(names, "f24") || !slices.Contains(names, "arrowleft") {
		t.Errorf("KeyNames is missing names: %v", names)
	}
}

func TestDragMovesSlider(t *testing.T) {
	_, c, p := setup(t)
	vol := p.Ready.Volume
	tr := vol.Trough
	y := tr.Y + tr.Height/2
	// The slider starts at 0, at the left end of the trough.
	sx := tr.X + vol.SliderLength/2
	span := tr.Width - vol.SliderLength
	ex := tr.X + vol.SliderLength/2 + span*60/100
	if err := c.Drag(context.Background(), sx, y, ex, y, "left"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Click(context.Background(), ptr(p.Ready.Widgets["Pad"].X+10), ptr(p.Ready.Widgets["Pad"].Y+10), "right", 1); err != nil {
		t.Fatal(err)
	}
	evs := p.Until(t, isButton(3, 1))
	last := math.NaN()
	for _, e := range evs {
		if e.Event == "slider" {
			last = e.Value
		}
	}
	if math.IsNaN(last) || math.Abs(last-60) > 2 {
		t.Errorf("slider ended at %v, want 60±2; events:\n%s", last, x11test.String(evs))
	}
}

func TestDragPixelExactWithMotion(t *testing.T) {
	_, c, p := setup(t)
	pad := p.Ready.Widgets["Pad"]
	sx, sy := pad.X+20, pad.Y+20
	ex, ey := pad.X+pad.Width-31, pad.Y+pad.Height-17
	if err := c.Drag(context.Background(), sx, sy, ex, ey, "Left"); err != nil {
		t.Fatal(err)
	}
	start := p.Next(t, func(e x11test.Event) bool { return e.Event == "drag" && e.Phase == "start" })
	end := p.Next(t, func(e x11test.Event) bool { return e.Event == "drag" && e.Phase == "end" })
	if start.X != sx || start.Y != sy || end.X != ex || end.Y != ey {
		t.Errorf("drag went (%d,%d)->(%d,%d), want (%d,%d)->(%d,%d)", start.X, start.Y, end.X, end.Y, sx, sy, ex, ey)
	}
	if end.Motions < 3 {
		t.Errorf("only %d motion events during the drag", end.Motions)
	}
	if x, y, _ := c.CursorPosition(); x != ex || y != ey {
		t.Errorf("cursor at (%d,%d) after drag", x, y)
	}
}

func TestFailsafeRefusesClickFromCorner(t *testing.T) {
	d, c, p := setup(t)
	off := policy.Default()
	off.FailsafeEnabled = false
	unsafe := newController(t, d, off)
	ctx := context.Background()
	// Moving into a corner is itself refused...
	wantCode(t, c.Move(ctx, 2, 2), werr.Failsafe)
	// ...unless the fail-safe is off in the policy.
	if err := unsafe.Move(ctx, 2, 2); err != nil {
		t.Fatal(err)
	}
	x, y := p.Ready.Widgets["Pad"].Center()
	e := wantCode(t, clickErr(c.Click(ctx, &x, &y, "left", 1)), werr.Failsafe)
	if !strings.Contains(e.Hint, "move_mouse") || !strings.Contains(e.Hint, "failsafeEnabled") {
		t.Errorf("hint %q does not say how to get out", e.Hint)
	}
	wantCode(t, clickErr(c.Click(ctx, nil, nil, "left", 1)), werr.Failsafe)
	_, err := c.Scroll(ctx, x, y, 0, 1)
	wantCode(t, err, werr.Failsafe)
	wantCode(t, c.Drag(ctx, x, y, x+10, y, "left"), werr.Failsafe)
	if cx, cy, _ := c.CursorPosition(); cx != 2 || cy != 2 {
		t.Errorf("cursor moved to (%d,%d) by a refused operation", cx, cy)
	}
	// Keyboard is unaffected.
	if err := c.PressKeys(ctx, []string{"shift"}); err != nil {
		t.Errorf("keyboard refused by the mouse fail-safe: %v", err)
	}
	// The way out: a move to a safe point is allowed from the corner.
	if err := c.Move(ctx, x, y); err != nil {
		t.Fatalf("moving out of the corner: %v", err)
	}
	if _, err := c.Click(ctx, nil, nil, "right", 1); err != nil {
		t.Fatal(err)
	}
	evs := p.Until(t, x11test.Is("button"))
	if e := evs[len(evs)-1]; e.Button != 3 {
		t.Errorf("the app received %s before the sentinel right click", e.Raw)
	}
}

func TestFailsafeRefusesDragThroughCorner(t *testing.T) {
	d := x11test.Start(t)
	c := newController(t, d, nil)
	// An undecorated probe covering the top-left corner sees any press there.
	p := x11test.StartProbe(t, d, "--undecorated", "--position", "0,0", "--size", "300,300")
	ctx := context.Background()
	if err := c.Move(ctx, 150, 150); err != nil {
		t.Fatal(err)
	}
	// Both ends are safe, (5,5) on the way is not.
	e := wantCode(t, c.Drag(ctx, 0, 10, 10, 0, "left"), werr.Failsafe)
	if !strings.Contains(e.Message, "path") {
		t.Errorf("message %q does not mention the path", e.Message)
	}
	if cx, cy, _ := c.CursorPosition(); cx != 150 || cy != 150 {
		t.Errorf("cursor moved to (%d,%d) by a refused drag", cx, cy)
	}
	if _, err := c.Click(ctx, nil, nil, "right", 1); err != nil {
		t.Fatal(err)
	}
	evs := p.Until(t, x11test.Is("button"))
	if e := evs[len(evs)-1]; e.Button != 3 || e.X != 150 {
		t.Errorf("the app received %s before the sentinel", e.Raw)
	}
	// A safe drag on the same window works.
	if err := c.Drag(ctx, 50, 60, 120, 130, "left"); err != nil {
		t.Fatal(err)
	}
	end := p.Next(t, func(e x11test.Event) bool { return e.Event == "drag" && e.Phase == "end" })
	if end.X != 120 || end.Y != 130 {
		t.Errorf("drag ended at (%d,%d)", end.X, end.Y)
	}
}

// A click that focuses a field, followed at once by typing, must deliver the click
// first, although openbox holds the press in a synchronous grab for click-to-focus.
func TestClickThenTypeAtOnce(t *testing.T) {
	_, c, p := setup(t)
	x, y := p.Ready.Widgets["Name"].Center()
	ctx := context.Background()
	if _, err := c.Click(ctx, &x, &y, "left", 1); err != nil {
		t.Fatal(err)
	}
	if err := c.TypeText(ctx, "abc"); err != nil {
		t.Fatal(err)
	}
	evs := p.Until(t, func(e x11test.Event) bool { return e.Event == "text" && e.Text == "abc" })
	for _, e := range evs {
		if e.Event == "key" && e.Widget != "Name" {
			t.Errorf("key arrived while %q had the focus: %s", e.Widget, e.Raw)
		}
	}
}

func TestTypeTextWithCapsLockOn(t *testing.T) {
	_, c, p := setup(t)
	clickWidget(t, c, p, "Name")
	ctx := context.Background()
	if err := c.PressKeys(ctx, []string{"capslock"}); err != nil {
		t.Fatal(err)
	}
	if err := c.TypeText(ctx, "Hello, Wörld"); err != nil {
		t.Fatal(err)
	}
	p.Next(t, func(e x11test.Event) bool { return e.Event == "text" && e.Text == "Hello, Wörld" })
	// Caps Lock is on again after typing: a plain key press comes out upper case.
	if err := c.PressKeys(ctx, []string{"x"}); err != nil {
		t.Fatal(err)
	}
	p.Next(t, func(e x11test.Event) bool { return e.Event == "text" && e.Text == "Hello, WörldX" })
	if err := c.PressKeys(ctx, []string{"CapsLock"}); err != nil {
		t.Fatal(err)
	}
	if err := c.TypeText(ctx, "!"); err != nil {
		t.Fatal(err)
	}
	p.Next(t, func(e x11test.Event) bool { return e.Event == "text" && e.Text == "Hello, WörldX!" })
}

// Successive calls with many characters that are not on the keyboard reuse the
// spare keycodes; every character must still arrive as itself.
func TestTypeTextManyDistinctCharactersAcrossCalls(t *testing.T) {
	_, c, p := setup(t)
	clickWidget(t, c, p, "Notes")
	ctx := context.Background()
	parts := []string{
		"東京都渋谷区神宮前一丁目",
		"北海道札幌市中央区北一条西",
		"大阪府大阪市北区梅田三丁目",
		"ÆØÅ æøå ŁŃŚŹŻ łńśźż ĞİŞ ğış",
	}
	want := ""
	for _, s := range parts {
		if err := c.TypeText(ctx, s); err != nil {
			t.Fatal(err)
		}
		want += s
	}
	p.Next(t, func(e x11test.Event) bool { return e.Event == "text" && e.Widget == "Notes" && e.Text == want })
}

// Closing right after typing must not take the borrowed keycodes away before the
// application has read the keys.
func TestCloseRightAfterTyping(t *testing.T) {
	d, c, p := setup(t)
	clickWidget(t, c, p, "Name")
	p.Next(t, x11test.Is("focus"))
	c2, err := input.New(d.Name, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := c2.TypeText(context.Background(), "Zoë 東京 ✓"); err != nil {
		t.Fatal(err)
	}
	c2.Close()
	p.Next(t, func(e x11test.Event) bool { return e.Event == "text" && e.Text == "Zoë 東京 ✓" })
}

// When the focused widget does not read the clipboard (a button), TypePaste says
// so with TIMEOUT and still restores the previous clipboard.
func TestTypePasteUnreadIsTimeoutAndRestores(t *testing.T) {
	testenv.Require(t, "xclip")
	d, c, _ := setup(t) // a fresh probe: its Submit button has the focus
	clip := xclip{d}
	if err := clip.Write("kept"); err != nil {
		t.Fatal(err)
	}
	// The Submit button has the focus in a fresh probe; it does not paste.
	wantCode(t, c.TypePaste(context.Background(), "never read", clip), werr.Timeout)
	if got, ok, err := clip.Read(); err != nil || !ok || got != "kept" {
		t.Errorf("clipboard = %q, %v, %v; want the previous content", got, ok, err)
	}
}

// type_text returns once the focused application has handled the keys, not only once the
// X server has them: an agent that reads the field next must find the text in it, also
// in an application that takes a while over each key. The probe stamps each change with
// CLOCK_MONOTONIC, which every process shares.
func TestTypeTextReturnsOnceTheApplicationHasTheKeys(t *testing.T) {
	_, c, p := setup(t, "--slow-keys", "40")
	clickWidget(t, c, p, "Name")
	p.Next(t, x11test.Is("focus"))
	const text = "typed slowly"
	if err := c.TypeText(context.Background(), text); err != nil {
		t.Fatal(err)
	}
	var now unix.Timespec
	unix.ClockGettime(unix.CLOCK_MONOTONIC, &now)
	returned := float64(now.Sec) + float64(now.Nsec)/1e9
	last := p.Next(t, func(e x11test.Event) bool { return e.Event == "text" && e.Widget == "Name" && e.Text == text })
	if last.Mono > returned {
		t.Fatalf("type_text returned %.3f s before the application had the last key", last.Mono-returned)
	}
}

// A cancelled type_text stops typing: the keys it had not yet sent never arrive, and the
// next call's keys come right after those that did. Before, a text of keys all on the
// keyboard went to the X server at once, and all 1,000 reached this application, which
// takes 2 ms over each, after the cancel and before the next call's key.
func TestTypeTextStopsWhenCancelled(t *testing.T) {
	_, c, p := setup(t, "--slow-keys", "2")
	clickWidget(t, c, p, "Name")
	p.Next(t, x11test.Is("focus"))
	keys := func(k string) int {
		n := 0
		for _, e := range p.All() {
			if e.Event == "key" && e.Key == k {
				n++
			}
		}
		return n
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- c.TypeText(ctx, strings.Repeat("k", 1000)) }()
	p.Next(t, func(e x11test.Event) bool { return e.Event == "key" && e.Key == "k" })
	cancel()
	wantCode(t, <-done, werr.Cancelled)
	if err := c.TypeText(context.Background(), "q"); err != nil {
		t.Fatal(err)
	}
	p.Next(t, func(e x11test.Event) bool { return e.Event == "key" && e.Key == "q" })
	if n := keys("k"); n > 2*input.TypeChunk {
		t.Errorf("%d of 1000 keys arrived after the cancel, want at most %d", n, 2*input.TypeChunk)
	}
}

// A click whose move and press arrive together picks an item of a FOX menu: Xfe's File menu,
// opened by its key (alt+f), its first item "New file..." clicked in one call, opens the
// New File dialog. Before, FOX took the press before the move to the item, and the menu
// closed with nothing chosen (a move and a click in two calls worked).
func TestClickPicksAFOXMenuItem(t *testing.T) {
	testenv.Require(t, "xfe")
	testenv.Require(t, "xdotool")
	d := x11test.Start(t)
	c := newController(t, d, nil)
	dir := t.TempDir()
	xfe := d.Command("xfe", dir)
	xfe.Env = append(xfe.Env, "HOME="+dir)
	if err := xfe.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { xfe.Process.Kill(); xfe.Wait() })
	xdo := func(args ...string) string {
		out, _ := d.Command("xdotool", args...).Output()
		return strings.TrimSpace(string(out))
	}
	// Run as root, Xfe first warns in a dialog of its own.
	var main string
	for i := 0; i < 100 && main == ""; i++ {
		if w := xdo("search", "--onlyvisible", "--name", "^Warning$"); w != "" {
			xdo("windowactivate", "--sync", w, "key", "Return")
		}
		main = xdo("search", "--onlyvisible", "--name", "^Xfe")
		time.Sleep(100 * time.Millisecond)
	}
	if main == "" {
		t.Fatal("no Xfe window")
	}
	xdo("windowactivate", "--sync", main, "key", "alt+f")
	// The menu's pane: the tallest other window of Xfe's shown.
	var x, y, best int
	for i := 0; i < 50 && best == 0; i++ {
		for _, w := range strings.Fields(xdo("search", "--onlyvisible", "--class", "Xfe")) {
			if w == main {
				continue
			}
			var wx, wy, ww, wh int
			if _, err := fmt.Sscanf(xdo("getwindowgeometry", "--shell", w), "WINDOW=%d\nX=%d\nY=%d\nWIDTH=%d\nHEIGHT=%d", new(int), &wx, &wy, &ww, &wh); err == nil && wh > best && wh > 100 {
				x, y, best = wx+ww/3, wy+12, wh
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	if best == 0 {
		t.Fatal("the File menu did not open")
	}
	if _, err := c.Click(context.Background(), &x, &y, "left", 1); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 30; i++ {
		if xdo("search", "--onlyvisible", "--name", "^New File$") != "" {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("no New File dialog after a click at %d,%d on the first item of the File menu", x, y)
}

// A click returns once the application under it has handled it, as far as a ping tells: a
// GTK window stopped (SIGSTOP) as the click is sent, and continued a second later, has
// handled the click when Click returns, which says it waited. Stopped for longer than
// ClickWait, the click is Late. Before, a click where the pointer was returned while the
// application was stopped, and an agent that looked at once read the window as it was
// before the click. The pointer is on the button before the application is stopped, as a
// click's move waits for the application to read it.
func TestClickWaitsUntilTheApplicationHandledIt(t *testing.T) {
	_, c, p := setup(t)
	if p.PID <= 0 {
		t.Fatalf("the probe's PID is %d", p.PID)
	}
	x, y := p.Ready.Widgets["Submit"].Center()
	if err := c.Move(context.Background(), x, y); err != nil {
		t.Fatal(err)
	}
	click := func(stop time.Duration) (desktop.Handled, bool) {
		var continued atomic.Bool
		if err := unix.Kill(p.PID, unix.SIGSTOP); err != nil {
			t.Fatal(err)
		}
		go func() {
			time.Sleep(stop)
			continued.Store(true)
			unix.Kill(p.PID, unix.SIGCONT)
		}()
		h, err := c.Click(context.Background(), nil, nil, "left", 1)
		if err != nil {
			t.Fatal(err)
		}
		was := continued.Load()
		p.Next(t, x11test.Is("clicked"))
		return h, was
	}
	if h, continued := click(time.Second); !continued || h.Late || h.Waited < 500*time.Millisecond {
		t.Fatalf("Click returned %+v with the application continued: %v; want it handled after the continue", h, continued)
	} else if h.Window != p.Ready.Title || h.Window == "" {
		t.Errorf("Click landed in %q, want the probe's window %q", h.Window, p.Ready.Title)
	}
	defer func(w time.Duration) { input.ClickWait = w }(input.ClickWait)
	input.ClickWait = 300 * time.Millisecond
	if h, continued := click(2 * time.Second); continued || !h.Late {
		t.Fatalf("Click of an application stopped past ClickWait returned %+v (continued: %v), want Late before the continue", h, continued)
	}
}

// An Xt or Tk application names its window in WM_NAME alone, of type STRING, which ICCCM
// makes Latin-1: the window a click landed in is named as the window list names it. Before,
// the click's reader took the bytes as UTF-8 and named "Caf\uFFFD".
func TestClickNamesALatin1Title(t *testing.T) {
	d, c, p := setup(t)
	m, err := window.Open(d.Name)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Disconnect()
	ws, err := m.List(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(ws, func(w window.Window) bool { return w.Title == p.Ready.Title })
	if i < 0 {
		t.Fatalf("no window titled %q in %+v", p.Ready.Title, ws)
	}
	conn, err := xconn.Connect(d.Name)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	atoms, err := xconn.Intern(conn, "_NET_WM_NAME")
	if err != nil {
		t.Fatal(err)
	}
	w := xproto.Window(ws[i].Handle)
	xproto.DeleteProperty(conn, w, atoms["_NET_WM_NAME"])
	latin1 := []byte("Caf\xe9 probe")
	if err := xproto.ChangePropertyChecked(conn, xproto.PropModeReplace, w, xproto.AtomWmName, xproto.AtomString, 8, uint32(len(latin1)), latin1).Check(); err != nil {
		t.Fatal(err)
	}
	const want = "Café probe"
	if ws, err = m.List(context.Background()); err != nil || !slices.ContainsFunc(ws, func(w window.Window) bool { return w.Title == want }) {
		t.Fatalf("the window list has no %q: %+v, %v", want, ws, err)
	}
	x, y := p.Ready.Widgets["Submit"].Center()
	h, err := c.Click(context.Background(), &x, &y, "left", 1)
	if err != nil {
		t.Fatal(err)
	}
	if h.Window != want {
		t.Errorf("Click landed in %q, want %q", h.Window, want)
	}
}
