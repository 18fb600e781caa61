//go:build linux

package input

import (
	"context"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jezek/xgb/xproto"

	"github.com/w365/w365/engine/desktop/x11/x11test"
	"github.com/w365/w365/engine/werr"
	"github.com/w365/w365/test/testenv"
)

func TestInCorner(t *testing.T) {
	cases := []struct {
		x, y int
		want bool
	}{
		{0, 0, true}, {5, 5, true}, {6, 5, false}, {5, 6, false}, {2, 540, false}, {960, 2, false},
		{1919, 1079, true}, {1914, 1074, true}, {1913, 1079, false}, {1919, 0, true}, {0, 1079, true},
	}
	for _, c := range cases {
		if got := inCorner(c.x, c.y, 1920, 1080, 5); got != c.want {
			t.Errorf("inCorner(%d,%d) = %v, want %v", c.x, c.y, got, c.want)
		}
	}
}

func TestDragReleasesButtonWhenCancelledMidway(t *testing.T) {
	d := x11test.Start(t)
	c, err := New(d.Name, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	p := x11test.StartProbe(t, d)
	pad := p.Ready.Widgets["Pad"]
	ctx, cancel := context.WithCancel(context.Background())
	dragStepHook = func(step int) {
		if step == 3 {
			cancel()
		}
	}
	defer func() { dragStepHook = nil }()
	err = c.Drag(ctx, pad.X+20, pad.Y+20, pad.X+300, pad.Y+150, "left")
	if werr.CodeOf(err) != werr.Cancelled {
		t.Fatalf("Drag = %v, want CANCELLED", err)
	}
	rel := p.Next(t, x11test.Is("release"))
	if rel.Button != 1 {
		t.Errorf("release of button %d, want 1", rel.Button)
	}
	q, err := xproto.QueryPointer(c.conn, c.root).Reply()
	if err != nil {
		t.Fatal(err)
	}
	if q.Mask&(xproto.KeyButMaskButton1|xproto.KeyButMaskButton2|xproto.KeyButMaskButton3) != 0 {
		t.Errorf("a button is still down after the cancelled drag: mask %#x", q.Mask)
	}
}

func TestCloseRestoresBorrowedKeycodes(t *testing.T) {
	d := x11test.Start(t)
	c, err := New(d.Name, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.TypeText(context.Background(), "ü東"); err != nil {
		t.Fatal(err)
	}
	if len(c.km.borrowed) != 2 {
		t.Fatalf("borrowed %v, want 2 keycodes", c.km.borrowed)
	}
	c.Close()
	other, err := New(d.Name, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	for _, r := range "ü東" {
		if code, _ := other.km.find(runeKeysym(r)); code != 0 {
			t.Errorf("keysym of %q still mapped to keycode %d after Close", r, code)
		}
	}
	if len(other.km.spares) != len(c.km.spares) {
		t.Errorf("spare keycodes %d after Close, %d before", len(other.km.spares), len(c.km.spares))
	}
}

func TestReconnectsWhenTheConnectionBroke(t *testing.T) {
	d := x11test.Start(t)
	c, err := New(d.Name, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.TypeText(context.Background(), "ü"); err != nil {
		t.Fatal(err)
	}
	spares := len(c.km.spares)
	c.mu.Lock()
	c.conn.Close()
	c.mu.Unlock()
	if err := c.Move(context.Background(), 300, 200); err != nil {
		t.Fatalf("Move after the connection broke: %v", err)
	}
	if x, y, err := c.CursorPosition(); err != nil || x != 300 || y != 200 {
		t.Errorf("cursor at (%d,%d), %v", x, y, err)
	}
	if len(c.km.spares) != spares || len(c.km.borrowed) != 1 {
		t.Errorf("after reconnect: %d spares (was %d), borrowed %v", len(c.km.spares), spares, c.km.borrowed)
	}
}

// The queries (cursor position, screen size) send no probe first: a broken connection is
// re-made when their own request fails.
func TestQueriesReconnectWhenTheConnectionBroke(t *testing.T) {
	d := x11test.Start(t)
	c, err := New(d.Name, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for _, q := range []func() (int, int, error){c.CursorPosition, c.ScreenSize} {
		c.mu.Lock()
		c.conn.Close()
		c.mu.Unlock()
		if a, b, err := q(); err != nil || a <= 0 || b <= 0 {
			t.Errorf("after the connection broke: (%d,%d), %v", a, b, err)
		}
	}
}

func TestTwoDisplaysAtOnce(t *testing.T) {
	d1 := x11test.Start(t)
	d2 := x11test.Start(t)
	c1, err := New(d1.Name, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c1.Close()
	c2, err := New(d2.Name, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c2.Close()
	p1 := x11test.StartProbe(t, d1)
	p2 := x11test.StartProbe(t, d2)
	x, y := p1.Ready.Widgets["Name"].Center()
	done := make(chan error, 2)
	for _, c := range []*Controller{c1, c2} {
		go func(c *Controller) {
			_, err := c.Click(context.Background(), &x, &y, "left", 1)
			if err == nil {
				err = c.TypeText(context.Background(), "on "+c.Display()+" é")
			}
			done <- err
		}(c)
	}
	for range 2 {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
	want1, want2 := "on "+d1.Name+" é", "on "+d2.Name+" é"
	p1.Next(t, func(e x11test.Event) bool { return e.Event == "text" && e.Text == want1 })
	p2.Next(t, func(e x11test.Event) bool { return e.Event == "text" && e.Text == want2 })
}

// The focused GTK window answers _NET_WM_PING, which typing uses to know that
// the keys sent so far have been read before it reassigns spare keycodes.
func TestClientSyncPingsTheFocusedWindow(t *testing.T) {
	d := x11test.Start(t)
	c, err := New(d.Name, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	p := x11test.StartProbe(t, d)
	x, y := p.Ready.Widgets["Name"].Center()
	if _, err := c.Click(context.Background(), &x, &y, "left", 1); err != nil {
		t.Fatal(err)
	}
	p.Next(t, x11test.Is("focus"))
	c.mu.Lock()
	ok := c.clientSync(context.Background())
	c.mu.Unlock()
	if !ok {
		t.Fatal("the focused GTK window did not answer the ping")
	}
}

// A focused Qt 5 window answers the ping too: Qt sends its pong to the root window's clients
// that select StructureNotify (not SubstructureNotify, as GTK does), which every key typed
// into a Qt window waited 2 s for (pingTimeout) before the Controller selected it.
func TestClientSyncPingsAFocusedQtWindow(t *testing.T) {
	d := x11test.Start(t)
	c, err := New(d.Name, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	testenv.Require(t, "/usr/bin/python3")
	testenv.Require(t, "xdotool")
	app := d.Command("/usr/bin/python3", filepath.Join(testenv.Root(), "testdata", "apps", "a11y_qt5.py"), "w365 ping Qt5")
	app.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := app.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { app.Process.Kill(); app.Wait() }()
	var id string
	for i := 0; i < 100 && id == ""; i++ {
		out, _ := d.Command("xdotool", "search", "--name", "^w365 ping Qt5$").Output()
		if f := strings.Fields(string(out)); len(f) > 0 {
			id = f[len(f)-1]
		} else {
			time.Sleep(100 * time.Millisecond)
		}
	}
	if id == "" {
		t.Fatal("the Qt window did not appear")
	}
	if out, err := d.Command("xdotool", "windowactivate", "--sync", id).CombinedOutput(); err != nil {
		t.Fatalf("xdotool windowactivate: %v: %s", err, out)
	}
	c.mu.Lock()
	ok := c.clientSync(context.Background())
	c.mu.Unlock()
	if !ok {
		t.Fatal("the focused Qt window's pong did not arrive")
	}
}

// Two Controllers on one display do not take each other's borrowed keycodes.
func TestTwoControllersShareSpareKeycodes(t *testing.T) {
	d := x11test.Start(t)
	a, err := New(d.Name, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := New(d.Name, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	p := x11test.StartProbe(t, d)
	x, y := p.Ready.Widgets["Notes"].Center()
	if _, err := a.Click(context.Background(), &x, &y, "left", 1); err != nil {
		t.Fatal(err)
	}
	p.Next(t, x11test.Is("focus"))
	want := ""
	for i, s := range []string{"äöü", "東京", "ßø", "✓★"} {
		c := a
		if i%2 == 1 {
			c = b
		}
		if err := c.TypeText(context.Background(), s); err != nil {
			t.Fatal(err)
		}
		want += s
	}
	p.Next(t, func(e x11test.Event) bool { return e.Event == "text" && e.Text == want })
	for code := range a.km.borrowed {
		if _, dup := b.km.borrowed[code]; dup {
			t.Errorf("keycode %d borrowed by both controllers", code)
		}
	}
}

func TestSuggestKeys(t *testing.T) {
	cases := map[string]string{"ctrll": "ctrl", "escpae": "escape", "pgdown": "pgdn", "entr": "enter",
		"pagedwn": "pagedown", "f25": "f2", "arowleft": "arrowleft", "windws": "windows"}
	for in, want := range cases {
		got := suggestKeys(in, 3)
		if len(got) == 0 || got[0] != want {
			t.Errorf("suggestKeys(%q) = %v, want %q first", in, got, want)
		}
	}
	if editDistance("escpae", "escape") != 1 {
		t.Error("a transposition should cost 1")
	}
}
