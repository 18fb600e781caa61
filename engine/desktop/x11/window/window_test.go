//go:build linux

package window

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"

	"github.com/w365/w365/engine/desktop"
	"github.com/w365/w365/engine/desktop/x11/display"
	"github.com/w365/w365/engine/desktop/x11/x11test"
	"github.com/w365/w365/engine/desktop/x11/xconn"
	"github.com/w365/w365/engine/werr"
	"github.com/w365/w365/test/testenv"
)

const python = "/usr/bin/python3"

// app is one running testdata/apps/win_app.py.
type app struct {
	t      *testing.T
	pid    int
	stdin  io.WriteCloser
	mu     sync.Mutex
	events []map[string]any
	cond   chan struct{}
	exited chan struct{}
}

func startApp(t *testing.T, d *display.Desktop, args ...string) *app {
	t.Helper()
	script := filepath.Join(testenv.Root(), "testdata", "apps", "win_app.py")
	c := d.Command(python, append([]string{script}, args...)...)
	in, err := c.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := c.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	a := &app{t: t, pid: d.ProgramPID(c), stdin: in, cond: make(chan struct{}, 1), exited: make(chan struct{})}
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			var ev map[string]any
			if json.Unmarshal(sc.Bytes(), &ev) == nil {
				a.mu.Lock()
				a.events = append(a.events, ev)
				a.mu.Unlock()
				select {
				case a.cond <- struct{}{}:
				default:
				}
			}
		}
		c.Wait()
		close(a.exited)
	}()
	t.Cleanup(func() {
		in.Close()
		c.Process.Kill()
		<-a.exited
	})
	a.wait("ready", 15*time.Second)
	return a
}

// wait returns the first event named name at or after index from, waiting up to timeout.
func (a *app) waitFrom(from int, name string, timeout time.Duration) (map[string]any, int) {
	a.t.Helper()
	deadline := time.After(timeout)
	for {
		a.mu.Lock()
		for i := from; i < len(a.events); i++ {
			if a.events[i]["event"] == name {
				ev := a.events[i]
				a.mu.Unlock()
				return ev, i
			}
		}
		a.mu.Unlock()
		select {
		case <-a.cond:
		case <-time.After(50 * time.Millisecond):
		case <-deadline:
			a.t.Fatalf("app %d: no %q event within %s", a.pid, name, timeout)
		}
	}
}

func (a *app) wait(name string, timeout time.Duration) map[string]any {
	a.t.Helper()
	ev, _ := a.waitFrom(0, name, timeout)
	return ev
}

func (a *app) has(name string) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, ev := range a.events {
		if ev["event"] == name {
			return true
		}
	}
	return false
}

// geometry asks the app for its own view of its frame: x, y, w, h.
func (a *app) geometry() ([4]int, bool) {
	a.t.Helper()
	a.mu.Lock()
	from := len(a.events)
	a.mu.Unlock()
	if _, err := io.WriteString(a.stdin, "geom\n"); err != nil {
		a.t.Fatal(err)
	}
	ev, _ := a.waitFrom(from, "geometry", 5*time.Second)
	var r [4]int
	fr, _ := ev["frame"].([]any)
	for i := 0; i < 4 && i < len(fr); i++ {
		r[i] = int(fr[i].(float64))
	}
	active, _ := ev["active"].(bool)
	return r, active
}

func (a *app) alive() bool {
	select {
	case <-a.exited:
		return false
	default:
		return syscall.Kill(a.pid, 0) == nil
	}
}

func open(t *testing.T, d *display.Desktop) *Manager {
	t.Helper()
	m, err := Open(d.Name)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(m.Disconnect)
	if err := m.WaitReady(context.Background(), 15*time.Second); err != nil {
		t.Fatal(err)
	}
	return m
}

// find polls List until a window with exactly this title shows up.
func find(t *testing.T, m *Manager, title string) Window {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		ws, err := m.List(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range ws {
			if w.Title == title {
				return w
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("window %q not listed; have %+v", title, ws)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func listed(t *testing.T, m *Manager, title string) bool {
	t.Helper()
	ws, err := m.List(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range ws {
		if w.Title == title {
			return true
		}
	}
	return false
}

func rect(w Window) [4]int { return [4]int{w.X, w.Y, w.Width, w.Height} }

// settledGeometry polls the app until its own frame equals want.
func settledGeometry(t *testing.T, a *app, want [4]int) {
	t.Helper()
	var got [4]int
	for i := 0; i < 40; i++ {
		got, _ = a.geometry()
		if got == want {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("app reports frame %v, window manager geometry %v", got, want)
}

func TestListAndActivate(t *testing.T) {
	testenv.Require(t, python)
	d := x11test.Start(t)
	m := open(t, d)
	a1 := startApp(t, d, "--title", "Alpha Window", "--x", "120", "--y", "80", "--width", "500", "--height", "300")
	a2 := startApp(t, d, "--title", "Beta Window Ünïcode", "--x", "700", "--y", "400", "--width", "420", "--height", "260")

	for _, c := range []struct {
		a     *app
		title string
	}{{a1, "Alpha Window"}, {a2, "Beta Window Ünïcode"}} {
		w := find(t, m, c.title)
		if w.PID != c.a.pid || w.ProcessName != "python3" || w.Handle == 0 {
			t.Errorf("%q: pid %d name %q handle %d, want pid %d python3", c.title, w.PID, w.ProcessName, w.Handle, c.a.pid)
		}
		settledGeometry(t, c.a, rect(w))
		// The frame is included: the window is larger than the client area GTK was asked for.
		if w.Height <= 260 {
			t.Errorf("%q: height %d does not include the title bar", c.title, w.Height)
		}
	}

	ctx := context.Background()
	for _, c := range []struct {
		a     *app
		query string
		title string
	}{{a1, "alpha", "Alpha Window"}, {a2, "ÜNÏCODE", "Beta Window Ünïcode"}, {a1, "a window", "Alpha Window"}} {
		w, err := m.Activate(ctx, c.query)
		if err != nil {
			t.Fatalf("Activate(%q): %v", c.query, err)
		}
		if w.Title != c.title {
			t.Fatalf("Activate(%q) picked %q", c.query, w.Title)
		}
		act, err := m.Active()
		if err != nil || act.Title != c.title {
			t.Fatalf("active window after Activate(%q) = %q, %v", c.query, act.Title, err)
		}
		// Raised: the top of the stacking order (List is top first).
		if ws, err := m.List(ctx); err != nil || len(ws) == 0 || ws[0].Title != c.title {
			t.Fatalf("after Activate(%q) the top window is not %q: %+v, %v", c.query, c.title, ws, err)
		}
		// The app agrees that it has the focus.
		ok := false
		for i := 0; i < 40 && !ok; i++ {
			_, ok = c.a.geometry()
			if !ok {
				time.Sleep(50 * time.Millisecond)
			}
		}
		if !ok {
			t.Errorf("%q: GTK does not report the window as active", c.title)
		}
	}

	_, err := m.Activate(ctx, "Gamma")
	e := werr.As(err)
	if e.Code != werr.NotFound {
		t.Fatalf("Activate(Gamma) = %v, want NOT_FOUND", err)
	}
	near, _ := e.Details["nearest"].([]string)
	if len(near) == 0 {
		t.Errorf("NOT_FOUND lists no nearest titles: %+v", e)
	}
	if _, err := m.Activate(ctx, "  "); werr.CodeOf(err) != werr.InvalidArgument {
		t.Errorf("empty title: %v", err)
	}
}

// A tool window of the application (transient for its window, not modal, as mtPaint's
// Settings Toolbar is) that has the focus is no answer to activating the window itself: the
// window manager gives the window the focus, and Activate returns once it has. Only a modal
// dialog the window manager focuses instead counts (TestCloseWindow).
func TestActivateWindowWhoseToolWindowHasTheFocus(t *testing.T) {
	testenv.Require(t, python)
	d := x11test.Start(t)
	m := open(t, d)
	ctx := context.Background()
	paint := startApp(t, d, "--title", "Paint", "--x", "100", "--y", "100", "--width", "500", "--height", "300")
	find(t, m, "Paint")
	for i := 0; i < 5; i++ {
		paint.mu.Lock()
		from := len(paint.events)
		paint.mu.Unlock()
		if _, err := io.WriteString(paint.stdin, "tool\n"); err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			paint.waitFrom(from, "tool-shown", 5*time.Second)
		}
		for j := 0; ; j++ {
			if act, err := m.Active(); err == nil && act.Title == "Paint Tools" {
				break
			}
			if j == 100 {
				t.Fatal("the tool window never had the focus")
			}
			time.Sleep(20 * time.Millisecond)
		}
		w, err := m.Activate(ctx, "Paint")
		if err != nil || w.Title != "Paint" {
			t.Fatalf("round %d: Activate(Paint) with its tool window focused = %q, %v", i, w.Title, err)
		}
		if act, err := m.Active(); err != nil || act.Title != "Paint" {
			t.Fatalf("round %d: active window after Activate(Paint) = %q, %v", i, act.Title, err)
		}
	}
}

func TestCloseWindow(t *testing.T) {
	testenv.Require(t, python)
	d := x11test.Start(t)
	m := open(t, d)
	ctx := context.Background()
	editor := startApp(t, d, "--title", "Unsaved Notes - Editor", "--confirm-close")
	calc := startApp(t, d, "--title", "Calculator")
	find(t, m, "Unsaved Notes - Editor")
	find(t, m, "Calculator")

	// A window that asks "save changes?" gets the request through its own close path,
	// shows its dialog, and stays open.
	res, err := m.Close(ctx, "unsaved notes - editr", func(int) bool { return false })
	if err != nil {
		t.Fatal(err)
	}
	if res.MatchedTitle != "Unsaved Notes - Editor" || res.ProcessName != "python3" || res.Closed {
		t.Fatalf("Close = %+v", res)
	}
	editor.wait("close-request", 5*time.Second)
	editor.wait("dialog-shown", 5*time.Second)
	if !editor.alive() || !listed(t, m, "Unsaved Notes - Editor") {
		t.Fatal("the editor went away; it must only have asked to save")
	}
	// Activating a window whose modal dialog is open: the window manager focuses the
	// dialog, which counts, and is the window returned.
	if w, err := m.Activate(ctx, "Unsaved Notes"); err != nil || w.Title != "Save changes?" {
		t.Fatalf("Activate with a modal dialog open: %+v, %v", w, err)
	}

	// A title of 70% similarity is not closed.
	if s := desktop.Similarity("Calcxxxtor", "Calculator"); math.Abs(s-0.7) > 1e-9 {
		t.Fatalf("similarity %v, want 0.7", s)
	}
	_, err = m.Close(ctx, "Calcxxxtor", nil)
	if werr.CodeOf(err) != werr.NotFound {
		t.Fatalf("Close(70%% similar) = %v, want NOT_FOUND", err)
	}
	time.Sleep(300 * time.Millisecond)
	if calc.has("close-request") || !calc.alive() {
		t.Fatal("the 70 percent similar window was asked to close")
	}

	// Protected processes are refused.
	_, err = m.Close(ctx, "Calculator", func(pid int) bool { return pid == calc.pid })
	if werr.CodeOf(err) != werr.ProtectedProcess {
		t.Fatalf("protected: %v", err)
	}
	if calc.has("close-request") {
		t.Fatal("a protected window was asked to close")
	}

	// 89% similar: closed, gracefully.
	res, err = m.Close(ctx, "Calculatr", func(int) bool { return false })
	if err != nil {
		t.Fatal(err)
	}
	if !res.Closed || res.MatchedTitle != "Calculator" {
		t.Fatalf("Close(Calculatr) = %+v", res)
	}
	calc.wait("close-request", time.Second)
	select {
	case <-calc.exited:
	case <-time.After(5 * time.Second):
		t.Fatal("calculator did not exit")
	}
}

func TestResizeActions(t *testing.T) {
	testenv.Require(t, python)
	d := x11test.Start(t)
	m := open(t, d)
	ctx := context.Background()
	a := startApp(t, d, "--title", "Resizable Document", "--width", "300", "--height", "200")
	find(t, m, "Resizable Document")
	ip := func(v int) *int { return &v }

	w, err := m.Resize(ctx, "resizable document", "move", ip(150), ip(120), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if w.X != 150 || w.Y != 120 {
		t.Fatalf("Move: at %v", rect(w))
	}
	settledGeometry(t, a, rect(find(t, m, "Resizable Document")))

	w, err = m.Resize(ctx, "Resizable Document", "Resize", ip(200), ip(90), ip(640), ip(480))
	if err != nil {
		t.Fatal(err)
	}
	want := [4]int{200, 90, 640, 480}
	if rect(w) != want {
		t.Fatalf("Resize: %v, want %v", rect(w), want)
	}
	settledGeometry(t, a, want)

	// Resize without a position keeps it.
	w, err = m.Resize(ctx, "Resizable Document", "RESIZE", nil, nil, ip(700), ip(500))
	if err != nil {
		t.Fatal(err)
	}
	want = [4]int{200, 90, 700, 500}
	if rect(w) != want {
		t.Fatalf("Resize in place: %v, want %v", rect(w), want)
	}
	settledGeometry(t, a, want)

	for _, bad := range []struct {
		action     string
		x, y, w, h *int
	}{
		{"Resize", ip(1), ip(1), nil, ip(100)},
		{"Resize", nil, nil, nil, nil},
		{"Move", nil, nil, ip(100), ip(100)},
		{"Move", ip(10), nil, nil, nil},
		{"Resize", nil, nil, ip(0), ip(100)},
		{"Shrink", nil, nil, nil, nil},
	} {
		if _, err := m.Resize(ctx, "Resizable Document", bad.action, bad.x, bad.y, bad.w, bad.h); werr.CodeOf(err) != werr.InvalidArgument {
			t.Errorf("%s with missing values: %v, want INVALID_ARGUMENT", bad.action, err)
		}
	}

	// Maximize: the frame covers the work area.
	w, err = m.Resize(ctx, "Resizable Document", "Maximize", nil, nil, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	wa := m.prop32(m.root, m.atom("_NET_WORKAREA"), xproto.AtomCardinal)
	if len(wa) < 4 {
		t.Fatal("no _NET_WORKAREA")
	}
	if got, want := rect(w), [4]int{int(wa[0]), int(wa[1]), int(wa[2]), int(wa[3])}; got != want {
		t.Fatalf("Maximize: %v, work area %v", got, want)
	}
	settledGeometry(t, a, rect(w))

	// Minimize: no longer listed as visible.
	if _, err := m.Resize(ctx, "Resizable Document", "Minimize", nil, nil, nil, nil); err != nil {
		t.Fatal(err)
	}
	if listed(t, m, "Resizable Document") {
		t.Fatal("a minimized window is listed as visible")
	}

	// Restore: visible again, neither minimized nor maximized, back where it was.
	w, err = m.Resize(ctx, "Resizable Document", "restore", nil, nil, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !listed(t, m, "Resizable Document") {
		t.Fatal("restored window not listed")
	}
	if want := [4]int{200, 90, 700, 500}; rect(w) != want {
		t.Fatalf("Restore: %v, want %v", rect(w), want)
	}
	settledGeometry(t, a, rect(w))

	// Move a maximized window: it is restored first, then moved.
	if _, err := m.Resize(ctx, "Resizable Document", "Maximize", nil, nil, nil, nil); err != nil {
		t.Fatal(err)
	}
	w, err = m.Resize(ctx, "Resizable Document", "Move", ip(40), ip(30), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := [4]int{40, 30, 700, 500}; rect(w) != want {
		t.Fatalf("Move after Maximize: %v, want %v", rect(w), want)
	}
	settledGeometry(t, a, rect(w))

	if _, err := m.Resize(ctx, "Nonexistent", "Maximize", nil, nil, nil, nil); werr.CodeOf(err) != werr.NotFound {
		t.Fatalf("unknown window: %v", err)
	}
}

func TestFindBrowser(t *testing.T) {
	testenv.Require(t, python)
	d := x11test.Start(t)
	m := open(t, d)
	ctx := context.Background()
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()

	if _, err := m.FindBrowser(ctx, "", nil); werr.CodeOf(err) != werr.NotFound {
		t.Fatalf("no browser: %v", err)
	}
	startApp(t, d, "--title", "Example Domain - Chromium", "--wmclass", "chromium")
	startApp(t, d, "--title", "Example Domain notes")
	startApp(t, d, "--title", "Other page - Mozilla Firefox", "--wmclass", "firefox")
	find(t, m, "Example Domain - Chromium")
	find(t, m, "Example Domain notes")
	find(t, m, "Other page - Mozilla Firefox")

	w, err := m.FindBrowser(ctx, "example domain", nil)
	if err != nil {
		t.Fatal(err)
	}
	if w.Title != "Example Domain - Chromium" {
		t.Fatalf("FindBrowser picked %q", w.Title)
	}
	if act, _ := m.Active(); act.Handle != w.Handle {
		t.Fatalf("active is %q", act.Title)
	}
	chromium := w.Handle

	w, err = m.FindBrowser(ctx, "firefox", nil)
	if err != nil || w.Title != "Other page - Mozilla Firefox" {
		t.Fatalf("FindBrowser(firefox) = %q, %v", w.Title, err)
	}
	urlOf := func(h uint32) string {
		if h == chromium {
			return "https://w365.test/path?q=" + strconv.Itoa(int(h))
		}
		return ""
	}
	w, err = m.FindBrowser(ctx, "W365.TEST/path", urlOf)
	if err != nil || w.Handle != chromium {
		t.Fatalf("FindBrowser by URL = %q, %v", w.Title, err)
	}
	if act, _ := m.Active(); act.Handle != chromium {
		t.Fatalf("active is %q", act.Title)
	}
	if _, err := m.FindBrowser(ctx, "notes", urlOf); werr.CodeOf(err) != werr.NotFound {
		t.Fatalf("a non-browser window matched: %v", err)
	}

	// A dead X server is UNAVAILABLE, not an empty list.
	d.Stop()
	if _, err := m.List(ctx); werr.CodeOf(err) != werr.Unavailable {
		t.Fatalf("List on a stopped display: %v", err)
	}
	m.Disconnect()
	if _, err := m.Activate(ctx, "x"); werr.CodeOf(err) != werr.Unavailable {
		t.Fatalf("Activate after Disconnect: %v", err)
	}
}

// Without a window manager: the root's children are the windows, the focus is the X input
// focus, close is WM_DELETE_WINDOW sent to the client, and geometry is set directly.
func TestNoWindowManager(t *testing.T) {
	testenv.Require(t, python, "Xvfb")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	d, err := display.StartVirtual(ctx, desktop.Options{Width: 1280, Height: 800, Depth: 24, WindowManager: "w365-no-window-manager"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(d.Stop)
	m := open(t, d)
	if m.hasWM() {
		t.Fatal("a window manager is running")
	}
	keep := startApp(t, d, "--title", "Bare Editor", "--confirm-close", "--x", "30", "--y", "40", "--width", "320", "--height", "200")
	bye := startApp(t, d, "--title", "Bare Viewer", "--x", "400", "--y", "300")
	w := find(t, m, "Bare Editor")
	if rect(w) != [4]int{30, 40, 320, 200} || w.PID != keep.pid {
		t.Fatalf("Bare Editor listed as %+v", w)
	}
	settledGeometry(t, keep, rect(w))
	find(t, m, "Bare Viewer")

	for _, title := range []string{"Bare Viewer", "Bare Editor"} {
		got, err := m.Activate(ctx, title)
		if err != nil || got.Title != title {
			t.Fatalf("Activate(%q) = %+v, %v", title, got, err)
		}
		if act, err := m.Active(); err != nil || act.Title != title {
			t.Fatalf("focus after Activate(%q): %+v, %v", title, act, err)
		}
	}

	ip := func(v int) *int { return &v }
	w, err = m.Resize(ctx, "Bare Editor", "Resize", ip(100), ip(120), ip(500), ip(350))
	if err != nil || rect(w) != [4]int{100, 120, 500, 350} {
		t.Fatalf("Resize: %+v, %v", w, err)
	}
	settledGeometry(t, keep, rect(w))
	if _, err := m.Resize(ctx, "Bare Editor", "Maximize", nil, nil, nil, nil); werr.CodeOf(err) != werr.Unsupported {
		t.Fatalf("Maximize without a window manager: %v", err)
	}

	res, err := m.Close(ctx, "Bare Editor", nil)
	if err != nil || res.Closed {
		t.Fatalf("Close(Bare Editor) = %+v, %v", res, err)
	}
	keep.wait("close-request", 5*time.Second)
	keep.wait("dialog-shown", 5*time.Second)
	if !keep.alive() {
		t.Fatal("the editor exited")
	}
	res, err = m.Close(ctx, "Bare Viewer", nil)
	if err != nil || !res.Closed {
		t.Fatalf("Close(Bare Viewer) = %+v, %v", res, err)
	}
	bye.wait("close-request", time.Second)
}

// An Xaw program sets no _NET_WM_PID: its PID comes from the X server (X-Resource), so a
// protected process is still recognized and the process name is known.
func TestPIDFromXServer(t *testing.T) {
	testenv.Require(t, "xmessage")
	d := x11test.Start(t)
	m := open(t, d)
	// open waited for the window manager (WaitReady): a program that maps its window at
	// once is managed.
	c := d.Command("xmessage", "-title", "Plain Xaw Message", "hello")
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { c.Wait(); close(done) }()
	t.Cleanup(func() { c.Process.Kill(); <-done })
	w := find(t, m, "Plain Xaw Message")
	if v := m.prop32(xproto.Window(w.Handle), m.atom("_NET_WM_PID"), xproto.AtomCardinal); len(v) != 0 {
		t.Fatalf("xmessage sets _NET_WM_PID %v; this test needs a program that does not", v)
	}
	pid := d.ProgramPID(c)
	if w.PID != pid || w.ProcessName != "xmessage" {
		t.Fatalf("listed as pid %d %q, want %d xmessage", w.PID, w.ProcessName, pid)
	}
	ctx := context.Background()
	_, err := m.Close(ctx, "Plain Xaw Message", func(p int) bool { return p == pid })
	if werr.CodeOf(err) != werr.ProtectedProcess {
		t.Fatalf("protected xmessage: %v", err)
	}
	// The server's record stands: a _NET_WM_PID set on the window (a confined client sets
	// one of its own PID namespace) names no process of it, protected or not.
	setNetWMPID(t, m, w.Handle, 2)
	res, err := m.Close(ctx, "plain xaw message", func(p int) bool { return p == 2 })
	if err != nil || !res.Closed || res.ProcessName != "xmessage" {
		t.Fatalf("Close = %+v, %v", res, err)
	}
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("xmessage did not exit after WM_DELETE_WINDOW")
	}
}

// A program started on a virtual session's display from the host (with the session's
// environment) is outside the session's PID namespace: the X server has no PID of it, and its
// window is listed with the _NET_WM_PID set on it only when that names a process started on
// this display. Any client may set the property: naming a process of the host's own (here the
// test's) is not taken (docs/security.md#one-set-per-session).
func TestPIDOfAWindowStartedOutsideTheSession(t *testing.T) {
	testenv.Require(t, "xmessage")
	d := x11test.Start(t)
	m := open(t, d)
	c := exec.Command("xmessage", "-title", "Outside Xaw Message", "hello")
	c.Env = d.Environ(os.Environ())
	c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Process.Kill(); c.Wait() })
	w := find(t, m, "Outside Xaw Message")
	if w.PID != 0 {
		t.Fatalf("listed as pid %d before any _NET_WM_PID, want 0 (the X server knows none)", w.PID)
	}
	setPID := func(pid int) Window {
		t.Helper()
		setNetWMPID(t, m, w.Handle, pid)
		return find(t, m, "Outside Xaw Message")
	}
	if w := setPID(c.Process.Pid); w.PID != c.Process.Pid || w.ProcessName != "xmessage" {
		t.Fatalf("with its own _NET_WM_PID: listed as pid %d %q, want %d xmessage", w.PID, w.ProcessName, c.Process.Pid)
	}
	host := os.Getpid()
	if w := setPID(host); w.PID != 0 || w.ProcessName != "" {
		t.Fatalf("with _NET_WM_PID %d (the test, a host process): listed as pid %d %q, want 0", host, w.PID, w.ProcessName)
	}
	// A program may open the display without DISPLAY in its environment: a protected process
	// its window names is still not acted against.
	ctx := context.Background()
	if _, err := m.Close(ctx, "Outside Xaw Message", func(p int) bool { return p == host }); werr.CodeOf(err) != werr.ProtectedProcess {
		t.Fatalf("Close of a window naming a protected process: %v", err)
	}
	if res, err := m.Close(ctx, "Outside Xaw Message", func(int) bool { return false }); err != nil || !res.Closed {
		t.Fatalf("Close = %+v, %v", res, err)
	}
}

// A host serves several displays at once: each Manager sees its own desktop only. (The
// titles are far apart: a title 80 % similar to part of another would name it.)
func TestTwoDisplays(t *testing.T) {
	testenv.Require(t, python)
	d1, d2 := x11test.Start(t), x11test.Start(t)
	m1, m2 := open(t, d1), open(t, d2)
	startApp(t, d1, "--title", "Only On One")
	startApp(t, d2, "--title", "Solely On Display Two")
	find(t, m1, "Only On One")
	find(t, m2, "Solely On Display Two")
	if listed(t, m1, "Solely On Display Two") || listed(t, m2, "Only On One") {
		t.Fatal("a window shows up on the wrong display")
	}
	if _, err := m1.Activate(context.Background(), "Solely On Display Two"); werr.CodeOf(err) != werr.NotFound {
		t.Fatalf("activate across displays: %v", err)
	}
	if w, err := m2.Activate(context.Background(), "solely on display"); err != nil || w.Title != "Solely On Display Two" {
		t.Fatalf("activate on display two: %+v, %v", w, err)
	}
}

// A client-side decorated window declares invisible shadow margins in _GTK_FRAME_EXTENTS;
// the listed geometry leaves them out, and Move/Resize place the visible part.
func TestClientSideShadows(t *testing.T) {
	testenv.Require(t, python)
	d := x11test.Start(t)
	m := open(t, d)
	ctx := context.Background()
	a := startApp(t, d, "--title", "Shadowed Window", "--width", "400", "--height", "300")
	w := find(t, m, "Shadowed Window")
	gdk, _ := a.geometry()
	// openbox does not announce _GTK_FRAME_EXTENTS, so GTK draws no shadows here: declare
	// them on the window as a CSD client would.
	l, r, top, b := 10, 12, 5, 15
	buf := make([]byte, 16)
	for i, v := range []int{l, r, top, b} {
		xgb.Put32(buf[i*4:], uint32(v))
	}
	if err := xproto.ChangePropertyChecked(m.conn, xproto.PropModeReplace, xproto.Window(w.Handle),
		m.atom("_GTK_FRAME_EXTENTS"), xproto.AtomCardinal, 32, 4, buf).Check(); err != nil {
		t.Fatal(err)
	}
	w = find(t, m, "Shadowed Window")
	if want := [4]int{gdk[0] + l, gdk[1] + top, gdk[2] - l - r, gdk[3] - top - b}; rect(w) != want {
		t.Fatalf("listed %v, want the frame %v without the shadows: %v", rect(w), gdk, want)
	}
	ip := func(v int) *int { return &v }
	w, err := m.Resize(ctx, "Shadowed Window", "Resize", ip(300), ip(200), ip(500), ip(350))
	if err != nil {
		t.Fatal(err)
	}
	if rect(w) != [4]int{300, 200, 500, 350} {
		t.Fatalf("Resize: %v", rect(w))
	}
	settledGeometry(t, a, [4]int{300 - l, 200 - top, 500 + l + r, 350 + top + b})
}

// The real thing: a Chromium window is recognized as a browser (WM_CLASS / process name).
func TestFindBrowserChromium(t *testing.T) {
	testenv.Require(t, "chromium")
	d := x11test.Start(t)
	m := open(t, d)
	profile := t.TempDir()
	c := d.Command("chromium", "--no-sandbox", "--user-data-dir="+profile, "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--no-default-browser-check", "--password-store=basic",
		"data:text/html,<title>W365 Browser Probe</title><p>probe")
	c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { c.Wait(); close(done) }()
	t.Cleanup(func() {
		syscall.Kill(-c.Process.Pid, syscall.SIGKILL)
		<-done
	})
	startApp(t, d, "--title", "W365 Browser Probe notes (not a browser)")
	find(t, m, "W365 Browser Probe notes (not a browser)")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var w Window
	var err error
	// Until the page's title is parsed, the window's title is its URL, which holds the
	// same words: wait for the title itself (a loaded machine took seconds).
	for ctx.Err() == nil {
		if w, err = m.FindBrowser(ctx, "w365 browser probe", nil); err == nil && strings.HasPrefix(w.Title, "W365 Browser Probe") {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	if err != nil {
		t.Fatalf("Chromium window not found: %v", err)
	}
	if !strings.HasPrefix(w.Title, "W365 Browser Probe") || w.ProcessName != "chromium" {
		t.Fatalf("FindBrowser = %+v", w)
	}
	// Both windows are mapped now, so no late map can take the focus: give it to the decoy,
	// then FindBrowser must bring the browser back to the front.
	if _, err := m.Activate(ctx, "not a browser"); err != nil {
		t.Fatal(err)
	}
	if w, err = m.FindBrowser(ctx, "w365 browser probe", nil); err != nil {
		t.Fatal(err)
	}
	if act, _ := m.Active(); act.Handle != w.Handle {
		t.Fatalf("active window is %q", act.Title)
	}
	t.Logf("chromium window: %+v", w)
}

// TestListShowsPopups: a pop-up (an override-redirect window, as an open menu is) is no
// window of its own; the window of its process lists it, while it is shown.
func TestListShowsPopups(t *testing.T) {
	testenv.Require(t, python)
	d := x11test.Start(t)
	m := open(t, d)
	owner := startApp(t, d, "--title", "Popup Owner", "--x", "100", "--y", "100")
	startApp(t, d, "--title", "Other Window", "--x", "600", "--y", "300")
	find(t, m, "Other Window")
	w := find(t, m, "Popup Owner")
	popups := func() map[uint32][]desktop.Rect { return popupsOf(t, m) }
	if p := popups(); len(p) != 0 {
		t.Fatalf("pop-ups before one is shown: %v", p)
	}
	if _, err := io.WriteString(owner.stdin, "popup\n"); err != nil {
		t.Fatal(err)
	}
	r := owner.wait("popup", 5*time.Second)["rect"].([]any)
	want := desktop.Rect{X: int(r[0].(float64)), Y: int(r[1].(float64)), Width: int(r[2].(float64)), Height: int(r[3].(float64))}
	if p := popups(); len(p) != 1 || len(p[w.Handle]) != 1 || p[w.Handle][0] != want {
		t.Fatalf("pop-ups %v, want %v of window 0x%x", p, want, w.Handle)
	}
	if _, err := io.WriteString(owner.stdin, "unpopup\n"); err != nil {
		t.Fatal(err)
	}
	for i := 0; len(popups()) > 0; i++ {
		if i == 50 {
			t.Fatalf("pop-ups once hidden: %v", popups())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestListShowsPopupsOfAClientOfNoPID: a program started on a virtual session's display from
// the host (here the test's own X connection) has no PID the X server knows, and an Xt program
// sets no _NET_WM_PID (xterm's menus): its pop-up is listed with its window, both of one X client.
func TestListShowsPopupsOfAClientOfNoPID(t *testing.T) {
	d := x11test.Start(t)
	m := open(t, d)
	c := plainClient(t, d)
	top := plainWindow(t, c, 100, 100, 200, 100, false)
	title := "Outside Xt Window"
	if err := xproto.ChangePropertyChecked(c, xproto.PropModeReplace, top, xproto.AtomWmName, xproto.AtomString, 8,
		uint32(len(title)), []byte(title)).Check(); err != nil {
		t.Fatal(err)
	}
	w := find(t, m, title)
	if w.PID != 0 {
		t.Fatalf("the test's window is listed with pid %d; this test needs a client of no PID", w.PID)
	}
	plainWindow(t, c, 400, 400, 200, 100, true)
	if p, want := popupsOf(t, m), (desktop.Rect{X: 400, Y: 400, Width: 200, Height: 100}); len(p[w.Handle]) != 1 || p[w.Handle][0] != want {
		t.Fatalf("pop-ups %v, want %v of window 0x%x", p, want, w.Handle)
	}
}

// A window of type splash (_NET_WM_WINDOW_TYPE_SPLASH, LibreOffice's while it starts) is
// listed as one: launch_application does not take it for the application's first window.
func TestListMarksASplashScreen(t *testing.T) {
	testenv.Require(t, python, "xprop")
	d := x11test.Start(t)
	m := open(t, d)
	startApp(t, d, "--title", "Starting", "--x", "100", "--y", "100", "--width", "300", "--height", "200")
	startApp(t, d, "--title", "Main", "--x", "500", "--y", "100", "--width", "300", "--height", "200")
	splash := find(t, m, "Starting")
	if out, err := d.Command("xprop", "-id", fmt.Sprint(splash.Handle), "-f", "_NET_WM_WINDOW_TYPE", "32a",
		"-set", "_NET_WM_WINDOW_TYPE", "_NET_WM_WINDOW_TYPE_SPLASH").CombinedOutput(); err != nil {
		t.Fatalf("xprop: %v: %s", err, out)
	}
	if w := find(t, m, "Starting"); !w.Splash {
		t.Errorf("the splash-typed window lists as %+v", w)
	}
	if w := find(t, m, "Main"); w.Splash {
		t.Errorf("a normal window lists as a splash screen: %+v", w)
	}
}

// grabScript holds a server grab (through Xlib, as any program on the display may) until
// its standard input closes.
const grabScript = `
import ctypes, sys
x = ctypes.CDLL("libX11.so.6")
x.XOpenDisplay.restype = ctypes.c_void_p
d = ctypes.c_void_p(x.XOpenDisplay(None))
if not d:
    sys.exit("cannot open the display")
x.XGrabServer(d)
x.XSync(d, 0)
print("grabbed", flush=True)
sys.stdin.read()
`

// A program on the display that grabs the server stops it answering anyone else. A window
// call waiting on it then ends (TIMEOUT, once the display's watch finds the server mute),
// the next one fails at once with the same error, and calls work again after the grab.
func TestCallsEndDuringAServerGrab(t *testing.T) {
	testenv.Require(t, python)
	d := x11test.Start(t)
	m, err := Open(d.Name)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Disconnect()
	if _, err := m.List(context.Background()); err != nil {
		t.Fatal(err)
	}
	grab := d.Command(python, "-c", grabScript)
	in, _ := grab.StdinPipe()
	out, _ := grab.StdoutPipe()
	if err := grab.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { in.Close(); grab.Wait() }()
	if line, err := bufio.NewReader(out).ReadString('\n'); line != "grabbed\n" {
		t.Fatalf("grabber: %q %v", line, err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := m.List(context.Background())
		done <- err
	}()
	select {
	case err := <-done:
		if werr.CodeOf(err) != werr.Timeout {
			t.Fatalf("list_windows during a server grab: %v, want TIMEOUT", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("list_windows during a server grab did not end")
	}
	if _, err := m.Activate(context.Background(), "anything"); werr.CodeOf(err) != werr.Timeout {
		t.Fatalf("activate_window while the server is mute: %v, want TIMEOUT", err)
	}
	in.Close()
	grab.Wait()
	for i := 0; ; i++ {
		_, err := m.List(context.Background())
		if err == nil {
			break
		}
		if i == 100 {
			t.Fatalf("list_windows after the grab: %v", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// A window without a title is listed (untitled dialogs take the input in front of their
// application's window): a plain X window with no WM_NAME, managed by the window manager.
func TestListShowsAnUntitledWindow(t *testing.T) {
	d := x11test.Start(t)
	m := open(t, d)
	id := plainWindow(t, plainClient(t, d), 100, 100, 300, 200, false)
	for i := 0; ; i++ {
		ws, err := m.List(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range ws {
			if w.Handle == uint32(id) {
				if w.Title != "" || w.Width < 300 {
					t.Fatalf("the untitled window lists as %+v", w)
				}
				return
			}
		}
		if i == 50 {
			t.Fatalf("the untitled window is not listed: %+v", ws)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// setNetWMPID sets the _NET_WM_PID of window w to pid, as any client of the display may.
func setNetWMPID(t *testing.T, m *Manager, w uint32, pid int) {
	t.Helper()
	a, err := xproto.InternAtom(m.conn, false, uint16(len("_NET_WM_PID")), "_NET_WM_PID").Reply()
	if err != nil {
		t.Fatal(err)
	}
	b := make([]byte, 4)
	xgb.Put32(b, uint32(pid))
	if err := xproto.ChangePropertyChecked(m.conn, xproto.PropModeReplace, xproto.Window(w), a.Atom, xproto.AtomCardinal, 32, 1, b).Check(); err != nil {
		t.Fatal(err)
	}
}

// popupsOf lists m's windows and the pop-ups each shows.
func popupsOf(t *testing.T, m *Manager) map[uint32][]desktop.Rect {
	t.Helper()
	ws, err := m.List(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	p, err := m.Popups(context.Background(), ws)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// plainClient is an X connection of the test's own to d, a plain X client.
func plainClient(t *testing.T, d *display.Desktop) *xgb.Conn {
	t.Helper()
	c, err := xconn.Connect(d.Name)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

// plainWindow makes and maps a white window of c at x,y on the screen (override: one the
// window manager leaves alone, as a pop-up).
func plainWindow(t *testing.T, c *xgb.Conn, x, y int16, w, h uint16, override bool) xproto.Window {
	t.Helper()
	scr := xproto.Setup(c).DefaultScreen(c)
	id, err := xproto.NewWindowId(c)
	if err != nil {
		t.Fatal(err)
	}
	var or uint32
	if override {
		or = 1
	}
	if err := xproto.CreateWindowChecked(c, scr.RootDepth, id, scr.Root, x, y, w, h, 0, xproto.WindowClassInputOutput,
		scr.RootVisual, xproto.CwBackPixel|xproto.CwOverrideRedirect, []uint32{scr.WhitePixel, or}).Check(); err != nil {
		t.Fatal(err)
	}
	if err := xproto.MapWindowChecked(c, id).Check(); err != nil {
		t.Fatal(err)
	}
	return id
}
