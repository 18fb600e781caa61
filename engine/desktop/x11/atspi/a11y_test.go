//go:build linux

package atspi_test

import (
	"bufio"
	"context"
	"fmt"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jezek/xgb/xproto"

	"github.com/w365/w365/engine/desktop"
	"github.com/w365/w365/engine/desktop/x11/atspi"
	"github.com/w365/w365/engine/desktop/x11/display"
	"github.com/w365/w365/engine/desktop/x11/x11test"
	"github.com/w365/w365/engine/desktop/x11/xconn"
	"github.com/w365/w365/engine/werr"
	"github.com/w365/w365/test/testenv"
)

// rect is a widget's geometry as the test app itself reports it.
type rect struct{ x, y, w, h int }

// app is a test program running on a virtual desktop, reporting on stdout.
type app struct {
	lines chan string
	geom  map[string]rect
}

func startProc(t testing.TB, d *display.Desktop, name string, args ...string) *exec.Cmd {
	t.Helper()
	c := d.Command(name, args...)
	c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	return c
}

// startApp runs a testdata/apps form app in the session and waits for its GEOM ... READY report.
func startApp(t testing.TB, d *display.Desktop, script string, env ...string) *app {
	t.Helper()
	testenv.Require(t, "/usr/bin/python3")
	return runApp(t, startProc(t, d, "/usr/bin/python3", filepath.Join(testenv.Root(), "testdata", "apps", script)), script, env...)
}

// runApp starts c, a testdata/apps form app, and waits for its GEOM ... READY report.
func runApp(t testing.TB, c *exec.Cmd, script string, env ...string) *app {
	t.Helper()
	c.Env = append(c.Env, env...)
	out, err := c.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	c.Stderr = os.Stderr
	if err := c.Start(); err != nil {
		t.Fatalf("start %s: %v", script, err)
	}
	t.Cleanup(func() { syscall.Kill(-c.Process.Pid, syscall.SIGKILL); c.Wait() })
	a := &app{lines: make(chan string, 100), geom: map[string]rect{}}
	go func() {
		s := bufio.NewScanner(out)
		for s.Scan() {
			a.lines <- s.Text()
		}
		close(a.lines)
	}()
	deadline := time.After(20 * time.Second)
	for {
		select {
		case l, ok := <-a.lines:
			if !ok {
				t.Fatalf("%s exited before READY", script)
			}
			if l == "READY" {
				return a
			}
			f := strings.Fields(l)
			if len(f) == 6 && f[0] == "GEOM" {
				var v [4]int
				for i := range v {
					v[i], _ = strconv.Atoi(f[2+i])
				}
				a.geom[f[1]] = rect{v[0], v[1], v[2], v[3]}
			}
		case <-deadline:
			t.Fatalf("%s did not report READY", script)
		}
	}
}

// waitLine waits for the app to print want.
func (a *app) waitLine(t testing.TB, want string) {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		select {
		case l, ok := <-a.lines:
			if !ok {
				t.Fatalf("app exited before printing %q", want)
			}
			if l == want {
				return
			}
		case <-deadline:
			t.Fatalf("app did not print %q", want)
		}
	}
}

// clickMatch clicks the centre of an element found.
func clickMatch(t testing.TB, d *display.Desktop, m desktop.Match) {
	t.Helper()
	xdo(t, d, "mousemove", "--sync", strconv.Itoa(m.CenterX), strconv.Itoa(m.CenterY), "click", "1")
}

func xdo(t testing.TB, d *display.Desktop, args ...string) string {
	t.Helper()
	testenv.Require(t, "xdotool")
	out, err := d.Command("xdotool", args...).CombinedOutput()
	if err != nil {
		t.Fatalf("xdotool %v: %v: %s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// activate raises and focuses the window titled title.
func activate(t testing.TB, d *display.Desktop, title string) string {
	t.Helper()
	var id string
	for i := 0; i < 100; i++ {
		out, _ := d.Command("xdotool", "search", "--name", "^"+title+"$").Output()
		if f := strings.Fields(string(out)); len(f) > 0 {
			id = f[len(f)-1]
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if id == "" {
		t.Fatalf("no window titled %q", title)
	}
	xdo(t, d, "windowactivate", "--sync", id)
	return id
}

func open(t testing.TB, d *display.Desktop) *atspi.Tree {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	tr, err := atspi.Open(ctx, d.Getenv("DBUS_SESSION_BUS_ADDRESS"), d.Name)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { tr.Close() })
	return tr
}

// findEventually retries Find while the application registers with the bus.
func findEventually(t testing.TB, tr *atspi.Tree, q desktop.FindQuery) []desktop.Match {
	t.Helper()
	var last error
	for i := 0; i < 100; i++ {
		ms, err := tr.Find(context.Background(), q)
		if err == nil && len(ms) > 0 {
			return ms
		}
		last = err
		time.Sleep(200 * time.Millisecond)
	}
	t.Fatalf("Find(%+v) found nothing: %v", q, last)
	return nil
}

// nodesOf lists a tree's nodes depth-first.
func nodesOf(root desktop.Node) []desktop.Node {
	var out []desktop.Node
	flatten(root, &out)
	return out
}

// flatten lists a tree's nodes depth-first.
func flatten(n desktop.Node, out *[]desktop.Node) {
	*out = append(*out, n)
	for _, c := range n.Children {
		flatten(c, out)
	}
}

func findNode(nodes []desktop.Node, role, name string) (desktop.Node, bool) {
	for _, n := range nodes {
		if n.Role == role && n.Name == name {
			return n, true
		}
	}
	return desktop.Node{}, false
}

func near(a, b int) bool { return a-b <= 2 && b-a <= 2 }

// checkForm asserts the form's widgets are in the tree with the geometry the app reported.
func checkForm(t *testing.T, root desktop.Node, geom map[string]rect) {
	t.Helper()
	nodes := nodesOf(root)
	want := []struct{ id, role, name string }{
		{"label", "Text", "Please sign in"},
		{"entry", "Edit", "Username"},
		{"check", "CheckBox", "Remember me"},
		{"cancel", "Button", "Cancel"},
		{"submit", "Button", "Submit"},
	}
	for _, w := range want {
		n, ok := findNode(nodes, w.role, w.name)
		if !ok {
			t.Errorf("no %s %q in the tree", w.role, w.name)
			continue
		}
		g := geom[w.id]
		same := near(n.X, g.x) && near(n.Y, g.y) && near(n.Width, g.w) && near(n.Height, g.h)
		// Qt reports a check box's indicator and label, not the whole widget: accept a
		// non-empty box inside the widget.
		inside := n.Width > 0 && n.Height > 0 && n.X >= g.x-2 && n.Y >= g.y-2 &&
			n.X+n.Width <= g.x+g.w+2 && n.Y+n.Height <= g.y+g.h+2
		if !same && !(w.role == "CheckBox" && inside) {
			t.Errorf("%s %q at (%d,%d %dx%d), the app says (%d,%d %dx%d)", w.role, w.name,
				n.X, n.Y, n.Width, n.Height, g.x, g.y, g.w, g.h)
		}
	}
	if root.Role != "Window" {
		t.Errorf("root role %q, want Window", root.Role)
	}
}

// treeEventually retries Tree until the node appears (applications register asynchronously).
func treeEventually(t testing.TB, tr *atspi.Tree, depth, elems int, role, name string) (desktop.Node, desktop.Meta) {
	t.Helper()
	var last error
	for i := 0; i < 100; i++ {
		root, meta, err := tr.Tree(context.Background(), depth, elems)
		if err == nil {
			nodes := nodesOf(root)
			if _, ok := findNode(nodes, role, name); ok {
				return root, meta
			}
		}
		last = err
		time.Sleep(200 * time.Millisecond)
	}
	t.Fatalf("Tree never contained %s %q: %v", role, name, last)
	return desktop.Node{}, desktop.Meta{}
}

func clickAndType(t *testing.T, d *display.Desktop, tr *atspi.Tree, a *app) {
	t.Helper()
	ms := findEventually(t, tr, desktop.FindQuery{Role: "Button", Name: "Submit"})
	m := ms[0]
	g := a.geom["submit"]
	if m.CenterX < g.x || m.CenterX >= g.x+g.w || m.CenterY < g.y || m.CenterY >= g.y+g.h {
		t.Fatalf("Submit centre (%d,%d) is outside the button %+v", m.CenterX, m.CenterY, g)
	}
	clickMatch(t, d, m)
	a.waitLine(t, "CLICKED Submit")

	ms = findEventually(t, tr, desktop.FindQuery{Role: "TextBox", Name: "username"})
	if ms[0].Role != "Edit" {
		t.Fatalf("TextBox query returned role %q", ms[0].Role)
	}
	xdo(t, d, "mousemove", "--sync", strconv.Itoa(ms[0].CenterX), strconv.Itoa(ms[0].CenterY), "click", "1")
	xdo(t, d, "type", "--delay", "20", "hello")
	a.waitLine(t, "TEXT entry hello")
	// The value of an Edit is its text.
	ms = findEventually(t, tr, desktop.FindQuery{Role: "Edit", Name: "Username"})
	if ms[0].Value != "hello" {
		t.Errorf("Edit value %q, want hello", ms[0].Value)
	}
}

func TestGTK3(t *testing.T) {
	d := x11test.Start(t)
	a := startApp(t, d, "a11y_gtk3.py")
	activate(t, d, "w365 a11y GTK3")
	tr := open(t, d)

	root, meta := treeEventually(t, tr, 0, 0, "Button", "Submit")
	if meta.Truncated || meta.Count < 10 {
		t.Errorf("meta %+v", meta)
	}
	if root.Name != "w365 a11y GTK3" {
		t.Errorf("root name %q", root.Name)
	}
	checkForm(t, root, a.geom)
	nodes := nodesOf(root)
	if n, _ := findNode(nodes, "Button", "Submit"); n.NativeRole != "push button" {
		t.Errorf("native role %q, want push button", n.NativeRole)
	}

	// Native names and text queries find the same button; best match first.
	for _, q := range []desktop.FindQuery{
		{Role: "push button", Name: "submit"},
		{Role: "PUSH_BUTTON", Text: "Subm"},
		{Text: "Submit"},
		{Name: "Submit", Text: "Cancel"}, // name wins over text
	} {
		ms, err := tr.Find(context.Background(), q)
		if err != nil || len(ms) == 0 || ms[0].Name != "Submit" {
			t.Errorf("Find(%+v) = %+v, %v", q, ms, err)
		}
	}
	// Role only: all buttons, in tree order.
	ms, err := tr.Find(context.Background(), desktop.FindQuery{Role: "Button"})
	if err != nil || len(ms) != 2 || ms[0].Name != "Cancel" || ms[1].Name != "Submit" {
		t.Errorf("Find(role=Button) = %+v, %v", ms, err)
	}
	// Exact beats substring: "Username" label and entry both match exactly; "user" prefix.
	ms, err = tr.Find(context.Background(), desktop.FindQuery{Name: "sign"})
	if err != nil || len(ms) != 1 || ms[0].Role != "Text" {
		t.Errorf("Find(name=sign) = %+v, %v", ms, err)
	}
	clickAndType(t, d, tr, a)
}

func TestQt5(t *testing.T) {
	d := x11test.Start(t)
	if err := exec.Command("/usr/bin/python3", "-c", "import PyQt5.QtWidgets").Run(); err != nil {
		testenv.Missing(t, "python3-pyqt5")
	}
	tr := open(t, d)
	a := startApp(t, d, "a11y_qt5.py")
	activate(t, d, "w365 a11y Qt5")
	root, _ := treeEventually(t, tr, 0, 0, "Button", "Submit")
	checkForm(t, root, a.geom)
	// A multi-line editor's text is its value, as a line edit's is.
	nodes := nodesOf(root)
	var notes []string
	for _, n := range nodes {
		if n.Role == "Edit" && n.Name == "Notes" {
			notes = append(notes, n.Value)
		}
	}
	if len(notes) != 1 || notes[0] != "first line\nsecond line" {
		t.Errorf("the Notes editor reads %q, want one Edit holding its two lines", notes)
	}
	clickAndType(t, d, tr, a)
}

// TestGTK4 covers a toolkit that reports window-relative extents as screen extents and
// sets no SHOWING state below the window.
func TestGTK4(t *testing.T) {
	d := x11test.Start(t)
	requireGTK4(t)
	testenv.Require(t, "xwininfo")
	a := startApp(t, d, "a11y_gtk4.py", "GSK_RENDERER=cairo")
	id := activate(t, d, "w365 a11y GTK4")
	tr := open(t, d)
	root, _ := treeEventually(t, tr, 0, 0, "Button", "Submit")
	// The app knows only window coordinates; where the window is comes from the X server
	// (xwininfo; xdotool getwindowgeometry is off by the frame under openbox).
	out, err := d.Command("xwininfo", "-id", id).Output()
	if err != nil {
		t.Fatal(err)
	}
	var wx, wy int
	for _, l := range strings.Split(string(out), "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(l), "Absolute upper-left X:"); ok {
			wx, _ = strconv.Atoi(strings.TrimSpace(v))
		}
		if v, ok := strings.CutPrefix(strings.TrimSpace(l), "Absolute upper-left Y:"); ok {
			wy, _ = strconv.Atoi(strings.TrimSpace(v))
		}
	}
	if root.X != wx || root.Y != wy {
		t.Errorf("window at (%d,%d), X says (%d,%d)", root.X, root.Y, wx, wy)
	}
	for id, g := range a.geom {
		a.geom[id] = rect{g.x + wx, g.y + wy, g.w, g.h}
	}
	// GTK4 reports the content box of buttons and check boxes: inside the widget.
	nodes := nodesOf(root)
	for _, w := range []struct{ id, role, name string }{
		{"label", "Text", "Please sign in"}, {"entry", "Edit", "Username"},
		{"check", "CheckBox", "Remember me"}, {"cancel", "Button", "Cancel"}, {"submit", "Button", "Submit"},
	} {
		n, ok := findNode(nodes, w.role, w.name)
		g := a.geom[w.id]
		if !ok || n.Width <= 0 || n.X < g.x-2 || n.Y < g.y-2 || n.X+n.Width > g.x+g.w+2 || n.Y+n.Height > g.y+g.h+2 {
			t.Errorf("%s %q: %+v not inside %+v", w.role, w.name, n, g)
		}
	}
	clickAndType(t, d, tr, a)
}

// TestGTK4StartedOutsideTheSession: a program a person (or a test harness) starts on a
// virtual session's display from the host, with the session's environment, runs outside the
// session's PID namespace, so neither the X server nor the accessibility bus can name its
// process, and its window is matched to its accessible frame by title and geometry. A GTK 4
// frame knows no screen position and may be named otherwise than the window (gnome-clocks:
// "ClocksWindow" in a window titled "Clocks"): its size must do.
func TestGTK4StartedOutsideTheSession(t *testing.T) {
	d := x11test.Start(t)
	requireGTK4(t)
	testenv.Require(t, "/usr/bin/python3")
	c := exec.Command("/usr/bin/python3", filepath.Join(testenv.Root(), "testdata", "apps", "a11y_gtk4.py"))
	c.Env = d.Environ(os.Environ())
	c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	runApp(t, c, "a11y_gtk4.py", "GSK_RENDERER=cairo")
	id := activate(t, d, "w365 a11y GTK4")
	// The window's title, as the X server has it, is no longer its accessible frame's name.
	xdo(t, d, "set_window", "--name", "Renamed outside GTK", id)
	activate(t, d, "Renamed outside GTK")
	treeEventually(t, open(t, d), 0, 0, "Button", "Submit")
}

// TestTwinStartedOutsideTheSession: one form started from the host and the same form, of the
// same title at the same place, in the session, which has the focus. The host's window is
// searched by its handle: its tree is its own (what was typed into it), not the focused twin's.
// The bus names no process of the host's form, and the session's form is another process.
func TestTwinStartedOutsideTheSession(t *testing.T) {
	d := x11test.Start(t)
	testenv.Require(t, "/usr/bin/python3")
	script := filepath.Join(testenv.Root(), "testdata", "apps", "a11y_gtk3.py")
	c := exec.Command("/usr/bin/python3", script, "Twin form")
	c.Env = d.Environ(os.Environ())
	c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	outside := runApp(t, c, "a11y_gtk3.py")
	id := activate(t, d, "Twin form")
	tr := open(t, d)
	ms := findEventually(t, tr, desktop.FindQuery{Role: "Edit", Name: "Username"})
	xdo(t, d, "mousemove", "--sync", strconv.Itoa(ms[0].CenterX), strconv.Itoa(ms[0].CenterY), "click", "1")
	xdo(t, d, "type", "--delay", "20", "outside")
	outside.waitLine(t, "TEXT entry outside")
	inside := runApp(t, startProc(t, d, "/usr/bin/python3", script, "Twin form"), "a11y_gtk3.py")
	if inside.geom["entry"] != outside.geom["entry"] {
		t.Fatalf("the twins' fields lie at %+v and %+v: this test needs them at one place", inside.geom["entry"], outside.geom["entry"])
	}
	ids := strings.Fields(xdo(t, d, "search", "--name", "^Twin form$"))
	other := ids[0]
	if other == id {
		other = ids[len(ids)-1]
	}
	xdo(t, d, "windowactivate", "--sync", other)
	handle, err := strconv.ParseUint(id, 10, 32)
	if err != nil {
		t.Fatal(err)
	}
	ms, err = open(t, d).Find(context.Background(), desktop.FindQuery{Role: "Edit", Name: "Username", WindowHandle: uint32(handle)})
	if err != nil || len(ms) == 0 || ms[0].Value != "outside" {
		t.Fatalf("the host's form's field: %+v, %v; want the value outside", ms, err)
	}
}

func requireGTK4(t *testing.T) {
	t.Helper()
	if err := exec.Command("/usr/bin/python3", "-c", "import gi; gi.require_version('Gtk', '4.0')").Run(); err != nil {
		testenv.Missing(t, "gir1.2-gtk-4.0")
	}
}

// clickCentre clicks the middle of a box the tree reports.
func clickCentre(t *testing.T, d *display.Desktop, x, y, w, h int) {
	t.Helper()
	xdo(t, d, "mousemove", "--sync", strconv.Itoa(x+w/2), strconv.Itoa(y+h/2), "click", "1")
}

// startGTK4Popups starts a11y_gtk4_popups.py and returns its tree once it shows the drop-down.
func startGTK4Popups(t *testing.T) (*display.Desktop, *app, *atspi.Tree, desktop.Node) {
	d := x11test.Start(t)
	requireGTK4(t)
	a := startApp(t, d, "a11y_gtk4_popups.py", "GSK_RENDERER=cairo")
	activate(t, d, "w365 a11y GTK4 popups")
	tr := open(t, d)
	root, _ := treeEventually(t, tr, 0, 0, "ComboBox", "Colour")
	return d, a, tr, root
}

// TestGTK4Popups: the items of an open GTK 4 drop-down and popover menu (each a surface, an
// X window, of its own) are where a person sees them, in the tree and in a search: a click at
// the centre either reports picks the item. They are read at once after the click that opens
// the pop-up, as an agent does: GTK shows them in its tree before their X window is mapped.
func TestGTK4Popups(t *testing.T) {
	d, a, tr, root := startGTK4Popups(t)
	nodes := nodesOf(root)
	drop, _ := findNode(nodes, "ComboBox", "Colour")
	// The drop-down's list, by the tree.
	for _, item := range []string{"Blue", "Green", "Yellow"} {
		clickCentre(t, d, drop.X, drop.Y, drop.Width, drop.Height)
		root, _ = treeEventually(t, tr, 20, 0, "Text", item)
		nodes = nodesOf(root)
		n, _ := findNode(nodes, "Text", item)
		clickCentre(t, d, n.X, n.Y, n.Width, n.Height)
		a.waitLine(t, "SELECTED "+item)
	}
	// The menu, by a search.
	file := findEventually(t, tr, desktop.FindQuery{Role: "Button", Name: "File"})[0]
	for _, item := range []string{"Open", "Save", "Quit"} {
		clickCentre(t, d, file.X, file.Y, file.Width, file.Height)
		m := findEventually(t, tr, desktop.FindQuery{Role: "MenuItem", Name: item})[0]
		clickCentre(t, d, m.X, m.Y, m.Width, m.Height)
		a.waitLine(t, "ACTIVATED "+strings.ToLower(item))
	}
	// A pop-up with a name, once its window is mapped.
	edit := findEventually(t, tr, desktop.FindQuery{Role: "Button", Name: "Edit"})[0]
	clickCentre(t, d, edit.X, edit.Y, edit.Width, edit.Height)
	c, err := xconn.Connect(d.Name)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for i := 0; ; i++ {
		pops, err := xconn.Popups(c, xconn.NewOwners(c, d.Name))
		if err != nil {
			t.Fatal(err)
		}
		if slices.ContainsFunc(pops, func(p xconn.Popup) bool { return p.W > 1 && p.H > 1 }) {
			break
		}
		if i == 50 {
			t.Fatal("the Edit pop-up's window was never mapped")
		}
		time.Sleep(100 * time.Millisecond)
	}
	m := findEventually(t, tr, desktop.FindQuery{Role: "Button", Name: "Undo"})[0]
	clickCentre(t, d, m.X, m.Y, m.Width, m.Height)
	a.waitLine(t, "CLICKED undo")
}

// TestGTK4PopupNotMapped: a pop-up that GTK shows in its tree while its X window is not mapped
// (GTK maps it a moment after) is not on the screen, and not in the tree.
func TestGTK4PopupNotMapped(t *testing.T) {
	d, _, tr, root := startGTK4Popups(t)
	nodes := nodesOf(root)
	drop, _ := findNode(nodes, "ComboBox", "Colour")
	clickCentre(t, d, drop.X, drop.Y, drop.Width, drop.Height)
	treeEventually(t, tr, 20, 0, "Text", "Blue")
	c, err := xconn.Connect(d.Name)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	// The list's window: the largest pop-up (the window manager keeps one of 1x1).
	pops, err := xconn.Popups(c, xconn.NewOwners(c, d.Name))
	if err != nil || len(pops) == 0 {
		t.Fatalf("pop-up windows %v, %v", pops, err)
	}
	list := slices.MaxFunc(pops, func(a, b xconn.Popup) int { return a.W*a.H - b.W*b.H })
	if err := xproto.UnmapWindowChecked(c, list.Win).Check(); err != nil {
		t.Fatal(err)
	}
	if ms, err := tr.Find(context.Background(), desktop.FindQuery{Role: "Text", Name: "Blue"}); err != nil || len(ms) != 0 {
		t.Fatalf("the unmapped list shows %+v, %v", ms, err)
	}
}

// TestGTK4NoClassNames: GTK 4 names an element without a name by its class ("GtkImage"); the
// tree shows its tooltip instead (an icon button's "Search"), or no name.
func TestGTK4NoClassNames(t *testing.T) {
	d, a, tr, root := startGTK4Popups(t)
	nodes := nodesOf(root)
	for _, n := range nodes {
		if strings.HasPrefix(n.Name, "Gtk") {
			t.Errorf("%s reads as its class %q", n.Role, n.Name)
		}
	}
	m := findEventually(t, tr, desktop.FindQuery{Role: "Button", Name: "Search"})[0]
	clickCentre(t, d, m.X, m.Y, m.Width, m.Height)
	a.waitLine(t, "CLICKED icon")
}

func TestBudgetBreadthFirst(t *testing.T) {
	d := x11test.Start(t)
	startApp(t, d, "a11y_gtk3.py")
	activate(t, d, "w365 a11y GTK3")
	tr := open(t, d)
	treeEventually(t, tr, 0, 0, "Button", "Submit")
	root, meta, err := tr.Tree(context.Background(), 10, 4)
	if err != nil {
		t.Fatal(err)
	}
	// Window > filler > {label, row, check, buttons}: breadth-first keeps the window, the
	// filler and the first two of its children.
	if !meta.Truncated || meta.Count != 4 {
		t.Fatalf("meta %+v, want truncated with 4", meta)
	}
	if len(root.Children) != 1 || len(root.Children[0].Children) != 2 || len(root.Children[0].Children[0].Children) != 0 {
		t.Fatalf("not cut breadth-first: %+v", root)
	}
	// Depth 1: the window and its direct children only.
	root, meta, err = tr.Tree(context.Background(), 1, 0)
	if err != nil || meta.Truncated || meta.Count != 2 || len(root.Children[0].Children) != 0 {
		t.Fatalf("depth 1: %+v %+v %v", root, meta, err)
	}
}

func TestFindErrors(t *testing.T) {
	d := x11test.Start(t)
	startApp(t, d, "a11y_gtk3.py")
	id := activate(t, d, "w365 a11y GTK3")
	tr := open(t, d)
	ctx := context.Background()
	if _, err := tr.Find(ctx, desktop.FindQuery{}); werr.CodeOf(err) != werr.InvalidArgument {
		t.Errorf("empty query: %v", err)
	}
	if _, err := tr.Find(ctx, desktop.FindQuery{Role: "Sprocket"}); werr.CodeOf(err) != werr.InvalidArgument {
		t.Errorf("unknown role: %v", err)
	}
	ms, err := tr.Find(ctx, desktop.FindQuery{Name: "no such thing here"})
	if err != nil || len(ms) != 0 {
		t.Errorf("no match: %+v %v", ms, err)
	}
	// An explicit window handle works even when another window is in front.
	xid, _ := strconv.ParseUint(id, 10, 32)
	findEventually(t, tr, desktop.FindQuery{Name: "Submit", WindowHandle: uint32(xid)})
	if _, err := tr.Find(ctx, desktop.FindQuery{Name: "Submit", WindowHandle: 0x7fffff}); werr.CodeOf(err) != werr.NotFound {
		t.Errorf("bad handle: %v", err)
	}
}

// startChromium opens testdata/apps/a11y_page.html (with rows list items) as an app window.
// startChromium runs Chromium on d showing the a11y page with rows rows, with a HOME of its
// own and no runtime directory, as in a virtual session (its accessibility server's socket
// lies in HOME/.cache); it returns HOME.
func startChromium(t testing.TB, d *display.Desktop, rows int) string {
	t.Helper()
	testenv.Require(t, "chromium")
	home := t.TempDir()
	page := filepath.Join(testenv.Root(), "testdata", "apps", "a11y_page.html")
	c := startProc(t, d, "chromium", "--no-sandbox", "--disable-background-networking",
		"--no-first-run", "--no-default-browser-check", "--disable-gpu", "--disable-dev-shm-usage",
		"--disable-component-update", "--disable-sync", "--password-store=basic",
		"--force-renderer-accessibility", "--user-data-dir="+t.TempDir(),
		"--window-position=40,30", "--window-size=1000,1000",
		fmt.Sprintf("--app=file://%s?rows=%d", page, rows))
	c.Env = append(c.Env, "HOME="+home, "XDG_RUNTIME_DIR=")
	if err := c.Start(); err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	t.Cleanup(func() { syscall.Kill(-c.Process.Pid, syscall.SIGKILL); c.Wait() })
	return home
}

// waitTitle waits until the X window title is want.
func waitTitle(t testing.TB, d *display.Desktop, want string) {
	t.Helper()
	for i := 0; i < 100; i++ {
		out, _ := d.Command("xdotool", "getactivewindow", "getwindowname").Output()
		if strings.TrimSpace(string(out)) == want {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("window title never became %q", want)
}

func TestChromium(t *testing.T) {
	d := x11test.Start(t)
	startChromium(t, d, 0)
	activate(t, d, "w365 a11y page")
	tr := open(t, d)
	root, _ := treeEventually(t, tr, 10, 0, "Button", "Submit")
	if root.Role != "Window" || root.Name != "w365 a11y page" {
		t.Errorf("root %s %q", root.Role, root.Name)
	}
	nodes := nodesOf(root)
	for _, w := range []struct{ role, name string }{
		{"Document", "w365 a11y page"}, {"Text", "Sign in"}, {"Edit", "Username"},
		{"CheckBox", "Remember me"}, {"Button", "Cancel"},
	} {
		if _, ok := findNode(nodes, w.role, w.name); !ok {
			t.Errorf("no %s %q in the Chromium tree", w.role, w.name)
		}
	}
	m := findEventually(t, tr, desktop.FindQuery{Role: "Button", Name: "Submit"})[0]
	clickMatch(t, d, m)
	waitTitle(t, d, "clicked Submit")

	e := findEventually(t, tr, desktop.FindQuery{Role: "TextBox", Name: "Username"})[0]
	clickMatch(t, d, e)
	xdo(t, d, "type", "--delay", "20", "hello")
	waitTitle(t, d, "typed hello")
}

// BenchmarkChromiumTree walks a ~300-node Chromium window (the goal is at most 40 ms).
func BenchmarkChromiumTree(b *testing.B) {
	d := x11test.Start(b)
	home := startChromium(b, d, 53)
	activate(b, d, "w365 a11y page")
	tr := open(b, d)
	tr.AllowPeersIn(home)
	findEventually(b, tr, desktop.FindQuery{Role: "Button", Name: "Action 52"})
	if atspi.Peers(tr) != 1 {
		b.Fatalf("the walk reads Chromium through %d peer connections, want 1", atspi.Peers(tr))
	}
	var meta desktop.Meta
	b.ResetTimer()
	for b.Loop() {
		var err error
		_, meta, err = tr.Tree(context.Background(), 10, 2000)
		if err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(meta.Count), "nodes")
}

// TestQt5FirstApplication: a Qt application registers with the accessibility bus only at
// its own start, so the bus and registry must run from the desktop's start: here nothing
// has asked for them before the application starts.
func TestQt5FirstApplication(t *testing.T) {
	d := x11test.Start(t)
	if err := exec.Command("/usr/bin/python3", "-c", "import PyQt5.QtWidgets").Run(); err != nil {
		testenv.Missing(t, "python3-pyqt5")
	}
	startApp(t, d, "a11y_qt5.py")
	activate(t, d, "w365 a11y Qt5")
	tr := open(t, d)
	treeEventually(t, tr, 0, 0, "Button", "Submit")
}

// startReal runs a Debian application on d and activates its window, titled title.
func startReal(t *testing.T, d *display.Desktop, title, path string, args ...string) {
	t.Helper()
	testenv.Require(t, path)
	c := startProc(t, d, path, args...)
	if err := c.Start(); err != nil {
		t.Fatalf("start %s: %v", path, err)
	}
	t.Cleanup(func() { syscall.Kill(-c.Process.Pid, syscall.SIGKILL); c.Wait() })
	activate(t, d, title)
}

// TestGTK2OpenMenu: GTK 2's gail leaves the items of an open menu VISIBLE but not SHOWING;
// they are in the tree while the menu is open (docs/accessibility.md), and the items of
// closed menus, whose extents are INT_MIN, are not.
func TestGTK2OpenMenu(t *testing.T) {
	d, tr := startPcmanfm(t)
	m := findEventually(t, tr, desktop.FindQuery{Role: "Menu", Name: "File"})[0]
	clickMatch(t, d, m)
	root, _ := treeEventually(t, tr, 10, 0, "MenuItem", "Close Window")
	nodes := nodesOf(root)
	for _, n := range nodes {
		if n.Role == "Menu" && n.Name == "Edit" && len(n.Children) > 0 {
			t.Errorf("the closed Edit menu shows %d items", len(n.Children))
		}
	}
	item, _ := findNode(nodes, "MenuItem", "Close Window")
	if item.Width <= 0 || item.Y <= m.Y {
		t.Errorf("Close Window at %d,%d %dx%d, below the File menu at %d,%d", item.X, item.Y, item.Width, item.Height, m.X, m.Y)
	}
}

// startPcmanfm shows an empty folder in PCManFM (GTK 2) on a new desktop.
func startPcmanfm(t *testing.T) (*display.Desktop, *atspi.Tree) {
	t.Helper()
	d := x11test.Start(t)
	if _, err := os.Stat("/usr/lib/x86_64-linux-gnu/gtk-2.0/modules/libatk-bridge.so"); err != nil {
		testenv.Missing(t, "libatk-adaptor (GTK 2's accessibility bridge)")
	}
	dir := t.TempDir()
	startReal(t, d, filepath.Base(dir), "/usr/bin/pcmanfm", "--no-desktop", dir)
	tr := open(t, d)
	return d, tr
}

// TestGTK2ClosedMenu: GTK 2's gail leaves the items of a menu that was open VISIBLE once it
// closes, with the extents they had in its pop-up taken from the screen's origin (mtPaint's
// Image menu read over its menu bar); a closed menu's items are in neither the tree nor a
// search, and the menu opened after it shows only its own.
func TestGTK2ClosedMenu(t *testing.T) {
	d, tr := startPcmanfm(t)
	clickMatch(t, d, findEventually(t, tr, desktop.FindQuery{Role: "Menu", Name: "File"})[0])
	findEventually(t, tr, desktop.FindQuery{Role: "MenuItem", Name: "Close Window"})
	xdo(t, d, "key", "Escape")
	closed := func() (found []desktop.Match, inTree int) {
		found, err := tr.Find(context.Background(), desktop.FindQuery{Role: "MenuItem", Name: "Close Window"})
		if err != nil {
			t.Fatal(err)
		}
		root, _, err := tr.Tree(context.Background(), 10, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range nodesOf(root) {
			if n.Role == "MenuItem" && n.Name == "Close Window" {
				inTree++
			}
		}
		return found, inTree
	}
	var found []desktop.Match
	var inTree int
	for i := 0; i < 50; i++ {
		if found, inTree = closed(); len(found) == 0 && inTree == 0 {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if len(found) > 0 || inTree > 0 {
		t.Errorf("with the File menu closed, a search finds its Close Window at %v, and the tree shows it %d times", found, inTree)
	}
	clickMatch(t, d, findEventually(t, tr, desktop.FindQuery{Role: "Menu", Name: "Edit"})[0])
	findEventually(t, tr, desktop.FindQuery{Role: "MenuItem", Name: "Select All"})
	if found, inTree = closed(); len(found) > 0 || inTree > 0 {
		t.Errorf("with the Edit menu open, a search finds the File menu's Close Window at %v, and the tree shows it %d times", found, inTree)
	}
}

// startGpicview shows a black 64x48 photo.png in gpicview (GTK 2) on a new desktop.
func startGpicview(t *testing.T) (*display.Desktop, *atspi.Tree) {
	t.Helper()
	d := x11test.Start(t)
	img := filepath.Join(t.TempDir(), "photo.png")
	f, err := os.Create(img)
	if err != nil {
		t.Fatal(err)
	}
	png.Encode(f, image.NewRGBA(image.Rect(0, 0, 64, 48)))
	f.Close()
	startReal(t, d, `photo\.png .*`, "/usr/bin/gpicview", img)
	return d, open(t, d)
}

// TestGTK2ContextMenu: GTK 2 (as GTK 3) shows a context menu, one opened from no menu bar,
// in a pop-up window of its own, a child of the application beside its frame: gpicview's
// right-click menu had no item in the tree nor in a search. Its items are in the window's
// default tree, and a click at the centre of the Quit item found quits gpicview.
func TestGTK2ContextMenu(t *testing.T) {
	d, tr := startGpicview(t)
	findEventually(t, tr, desktop.FindQuery{Role: "Button", Name: "Rotate Clockwise"})
	win := xdo(t, d, "getactivewindow")
	xdo(t, d, "mousemove", "--window", win, "100", "100", "click", "3")
	root, _ := treeEventually(t, tr, 0, 0, "MenuItem", "Rotate Clockwise")
	item, _ := findNode(nodesOf(root), "MenuItem", "Rotate Clockwise")
	m := findEventually(t, tr, desktop.FindQuery{Role: "MenuItem", Name: "Quit"})[0]
	if m.Y <= item.Y || m.X != item.X {
		t.Errorf("Quit at %d,%d, below Rotate Clockwise at %d,%d", m.X, m.Y, item.X, item.Y)
	}
	gone := func() bool {
		out, _ := d.Command("xdotool", "search", "--name", `^photo\.png`).Output()
		return len(out) == 0
	}
	if gone() {
		t.Fatal("no window titled photo.png before the click")
	}
	clickMatch(t, d, m)
	for i := 0; i < 100; i++ {
		if gone() {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatal("gpicview did not quit at a click on its Quit menu item")
}

// TestGTK3ContextMenu: mousepad's (GTK 3) text area menu lies in a window of its own too
// (TestGTK2ContextMenu); a click at the centre of its Select All item found selects the
// text, which the next key then replaces.
func TestGTK3ContextMenu(t *testing.T) {
	d := x11test.Start(t)
	startReal(t, d, "Untitled.*", "/usr/bin/mousepad")
	tr := open(t, d)
	findEventually(t, tr, desktop.FindQuery{Role: "Menu", Name: "Edit"})
	xdo(t, d, "type", "--delay", "20", "hello world")
	xdo(t, d, "mousemove", "--window", xdo(t, d, "getactivewindow"), "200", "200", "click", "3")
	clickMatch(t, d, findEventually(t, tr, desktop.FindQuery{Role: "MenuItem", Name: "Select All"})[0])
	xdo(t, d, "type", "x")
	valueEventually(t, tr, "Edit", "x")
}

// TestGTK3CompletionList: GTK 3 lists the completions of a path typed in a file chooser's
// name field in a pop-up window of its own, a child of the application beside its dialog,
// which holds the pointer's grab: l3afpad's Save As button, clicked while it showed, only
// closed it, and neither the tree nor a search showed it. Its items are in the dialog's tree
// and found by their text, below the field.
func TestGTK3CompletionList(t *testing.T) {
	d := x11test.Start(t)
	home := t.TempDir()
	os.Mkdir(filepath.Join(home, "reports"), 0o755)
	os.Mkdir(filepath.Join(home, "receipts"), 0o755)
	startReal(t, d, "Untitled.*", "/usr/bin/mousepad")
	tr := open(t, d)
	findEventually(t, tr, desktop.FindQuery{Role: "Menu", Name: "Edit"})
	xdo(t, d, "key", "ctrl+shift+s")
	activate(t, d, "Save As")
	field := findEventually(t, tr, desktop.FindQuery{Role: "Edit", Name: ""})[0]
	clickMatch(t, d, field)
	xdo(t, d, "key", "ctrl+a")
	xdo(t, d, "type", "--delay", "20", home+"/re")
	item := findEventually(t, tr, desktop.FindQuery{Role: "DataItem", Name: "receipts/"})[0]
	if item.Y < field.Y+field.Height/2 || item.X < field.X-10 || item.X > field.X+field.Width {
		t.Errorf("the completion receipts/ at %d,%d %dx%d, want below the field at %d,%d %dx%d", item.X, item.Y, item.Width, item.Height, field.X, field.Y, field.Width, field.Height)
	}
	root, _ := treeEventually(t, tr, 10, 0, "DataItem", "reports/")
	// The field is named by its label (docs/accessibility.md#field-names).
	if _, ok := findNode(nodesOf(root), "Edit", "Name:"); !ok {
		t.Errorf("the tree with the completions lost the dialog's field")
	}
}

// valueEventually retries Find for role until a match holds value, and returns it.
func valueEventually(t testing.TB, tr *atspi.Tree, role, value string) desktop.Match {
	t.Helper()
	var last []desktop.Match
	for i := 0; i < 50; i++ {
		last, _ = tr.Find(context.Background(), desktop.FindQuery{Role: role})
		for _, m := range last {
			if m.Value == value {
				return m
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("no %s of value %q among %+v", role, value, last)
	return desktop.Match{}
}

// TestReadOnlyTextValue: a calculator's display (GTK 3 galculator: role text, no name, its
// content in the Text interface only) shows its content as its value, in the tree and in a
// role search.
func TestReadOnlyTextValue(t *testing.T) {
	d := x11test.Start(t)
	startReal(t, d, "galculator", "/usr/bin/galculator")
	tr := open(t, d)
	findEventually(t, tr, desktop.FindQuery{Role: "Button", Name: "="})
	xdo(t, d, "type", "--delay", "50", "408")
	if m := valueEventually(t, tr, "Text", "408"); m.Name != "" {
		t.Errorf("the display reads %q = %q, want no name", m.Name, m.Value)
	}
	root, _ := treeEventually(t, tr, 10, 0, "Button", "=")
	for _, n := range nodesOf(root) {
		if n.Role == "Text" && n.Value == "408" {
			return
		}
	}
	t.Fatal("the display's value is in Find, not in the tree")
}

// TestQt5OpenMenu: the items of an open Qt 5 menu (featherpad's File menu) are in the tree,
// below the menu bar's item that opened it, and are not read from the screen as a pop-up menu's
// (TestQt5ContextMenu), also by a walk that does not reach them.
func TestQt5OpenMenu(t *testing.T) {
	d := x11test.Start(t)
	startReal(t, d, "Untitled", "/usr/bin/featherpad")
	tr := open(t, d)
	m := findEventually(t, tr, desktop.FindQuery{Name: "File"})[0]
	clickMatch(t, d, m)
	root, _ := treeEventually(t, tr, 10, 0, "MenuItem", "Quit")
	nodes := nodesOf(root)
	if item, _ := findNode(nodes, "MenuItem", "Quit"); item.Width <= 0 || item.Y <= m.Y {
		t.Errorf("Quit at %d,%d %dx%d, below the File menu at %d,%d", item.X, item.Y, item.Width, item.Height, m.X, m.Y)
	}
	for _, depth := range []int{10, 2} {
		root, _, err := tr.Tree(context.Background(), depth, 0)
		if last := root.Children[len(root.Children)-1]; err != nil || last.Role == "Menu" {
			t.Errorf("Tree(%d): the open File menu is the window's last child too (%v)", depth, err)
		}
	}
}

// TestQt5ContextMenu: Qt 5 lists no pop-up among its application's children, so featherpad's
// text area menu (a right click) was neither in the tree nor in a search while a person saw
// it. Its items, read from the screen and marked so, are the last children of the window's
// tree, under its menu, at their places on the screen, the shortcut beside an item not in its
// name; a click at the centre of its Select All item found selects the text, which the next
// key then replaces.
func TestQt5ContextMenu(t *testing.T) {
	d := x11test.Start(t)
	startReal(t, d, "Untitled", "/usr/bin/featherpad")
	tr := open(t, d)
	findEventually(t, tr, desktop.FindQuery{Name: "File"})
	xdo(t, d, "type", "--delay", "20", "hello world")
	valueEventually(t, tr, "Edit", "hello world")
	xdo(t, d, "mousemove", "--window", xdo(t, d, "getactivewindow"), "200", "200", "click", "3")
	root, _ := treeEventually(t, tr, 0, 0, "MenuItem", "Select All")
	last := root.Children[len(root.Children)-1]
	item, ok := findNode(nodesOf(last), "MenuItem", "Select All")
	if last.Role != "Menu" || !ok {
		t.Fatalf("the window's last child is %s %q, not the menu holding Select All", last.Role, last.Name)
	}
	if last.NativeRole != "ocr" || !slices.Contains(item.States, "ocr") {
		t.Errorf("the menu reads native role %q, Select All states %v: not marked as read from the screen", last.NativeRole, item.States)
	}
	if _, ok := findNode(nodesOf(last), "MenuItem", "Paste Date and Time"); !ok {
		t.Errorf("no MenuItem \"Paste Date and Time\" (shortcut Ctrl+Shift+V) in the menu")
	}
	if item.Width <= 0 || item.X < last.X || item.Y < last.Y || item.X+item.Width > last.X+last.Width || item.Y+item.Height > last.Y+last.Height {
		t.Errorf("Select All at %d,%d %dx%d, outside its menu at %d,%d %dx%d", item.X, item.Y, item.Width, item.Height, last.X, last.Y, last.Width, last.Height)
	}
	m := findEventually(t, tr, desktop.FindQuery{Role: "MenuItem", Name: "Select All"})[0]
	if m.X != item.X || m.Y != item.Y || !slices.Contains(m.States, "ocr") {
		t.Errorf("the search found Select All at %d,%d %v, the tree at %d,%d", m.X, m.Y, m.States, item.X, item.Y)
	}
	clickMatch(t, d, m)
	xdo(t, d, "type", "x")
	valueEventually(t, tr, "Edit", "x")
}

// TestQt5ContextMenuIcons: the icons beside the items of qpdfview's page menu, read from the
// screen, are no part of their names: "First page" read "j@ First page", "Jump to page..."
// "> Jump to page...". The words left of the column where most lines begin are dropped.
func TestQt5ContextMenuIcons(t *testing.T) {
	d := x11test.Start(t)
	startReal(t, d, "report - qpdfview", "/usr/bin/qpdfview", filepath.Join(testenv.Root(), "testdata", "tasks", "report.pdf"))
	tr := open(t, d)
	findEventually(t, tr, desktop.FindQuery{Name: "File"})
	xdo(t, d, "mousemove", "--window", xdo(t, d, "getactivewindow"), "300", "300", "click", "3")
	root, _ := treeEventually(t, tr, 0, 0, "MenuItem", "Next page")
	menu := root.Children[len(root.Children)-1]
	for _, name := range []string{"Previous page", "First page", "Last page", "Jump to page..."} {
		if n, ok := findNode(menu.Children, "MenuItem", name); !ok || n.X < menu.X {
			t.Errorf("no MenuItem %q in the menu, which reads %+v", name, menu.Children)
		}
	}
}

// The tree says what a control is set to: a check box reads checked once clicked, the
// field with the keyboard focus reads focused, so an agent can confirm a toggle it made.
func TestGTK3States(t *testing.T) {
	d := x11test.Start(t)
	startApp(t, d, "a11y_gtk3.py")
	activate(t, d, "w365 a11y GTK3")
	tr := open(t, d)
	states := func(role, name string) []string {
		t.Helper()
		root, _ := treeEventually(t, tr, 0, 0, role, name)
		nodes := nodesOf(root)
		n, _ := findNode(nodes, role, name)
		return n.States
	}
	if s := states("CheckBox", "Remember me"); slices.Contains(s, "checked") {
		t.Fatalf("the check box reads %v before any click", s)
	}
	m := findEventually(t, tr, desktop.FindQuery{Role: "CheckBox", Name: "Remember me"})[0]
	clickMatch(t, d, m)
	e := findEventually(t, tr, desktop.FindQuery{Role: "Edit", Name: "Username"})[0]
	clickMatch(t, d, e)
	var check, edit []string
	for i := 0; i < 50; i++ {
		if check, edit = states("CheckBox", "Remember me"), states("Edit", "Username"); slices.Contains(check, "checked") && slices.Contains(edit, "focused") {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("after the clicks the check box reads %v and the field %v", check, edit)
}

// A box with no name that wraps one child does not count in the depth: a button inside
// twelve of them is in a tree of depth 3, as a GTK file chooser's places and files are in
// one of depth 10 (before, they lay below it).
func TestUnnamedWrappersDoNotCountInTheDepth(t *testing.T) {
	d := x11test.Start(t)
	startApp(t, d, "a11y_gtk3_deep.py")
	activate(t, d, "w365 a11y deep")
	tr := open(t, d)
	root, _ := treeEventually(t, tr, 3, 0, "Button", "Deep button")
	nodes := nodesOf(root)
	if _, ok := findNode(nodes, "Text", "Deep label"); !ok {
		t.Fatalf("the label beside the button is not in the tree: %+v", root)
	}
}

// TestQt5ClosedComboBoxList: Qt keeps the list of a closed combo box (qpdfview's zoom)
// SHOWING, itself at the screen's corner with no size and its items at their last places
// (at 0,0 before it first opened, over the document after); neither the tree nor a search
// shows them until the list opens, below the combo box.
func TestQt5ClosedComboBoxList(t *testing.T) {
	d := x11test.Start(t)
	startReal(t, d, "report - qpdfview", "/usr/bin/qpdfview", filepath.Join(testenv.Root(), "testdata", "tasks", "report.pdf"))
	tr := open(t, d)
	combo := findEventually(t, tr, desktop.FindQuery{Role: "ComboBox", Name: "100 %"})[0]
	closed := func(when string) {
		t.Helper()
		var items []desktop.Match
		for i := 0; i < 50; i++ {
			root, _, err := tr.Tree(context.Background(), 10, 0)
			if err != nil {
				t.Fatal(err)
			}
			nodes := nodesOf(root)
			shown, _ := findNode(nodes, "ListItem", "50 %")
			if items, err = tr.Find(context.Background(), desktop.FindQuery{Name: "50 %"}); err != nil {
				t.Fatal(err)
			}
			if shown.Role == "" && len(items) == 0 {
				return
			}
			time.Sleep(100 * time.Millisecond)
		}
		t.Fatalf("%s the closed list's item 50 %% is shown: %+v", when, items)
	}
	closed("before the list opened,")
	// The arrow at its right end: the combo box is editable, a click on its text opens nothing.
	xdo(t, d, "mousemove", "--sync", strconv.Itoa(combo.X+combo.Width-6), strconv.Itoa(combo.CenterY), "click", "1")
	root, _ := treeEventually(t, tr, 10, 0, "ListItem", "50 %")
	nodes := nodesOf(root)
	if item, _ := findNode(nodes, "ListItem", "50 %"); item.Width <= 0 || item.Y <= combo.Y {
		t.Errorf("the open list's 50 %% at %d,%d %dx%d, not below the combo box at %d,%d", item.X, item.Y, item.Width, item.Height, combo.X, combo.Y)
	}
	xdo(t, d, "key", "Escape")
	closed("once the list closed again,")
}

// TestGTK4Tooltip: GTK 4 shows a tooltip on a surface of its own (layer WIDGET, not POPUP)
// and reports it at its offset in that surface as if it lay in the window; the tree places
// it through its X window, under the pointer (before: at the window's top left corner).
func TestGTK4Tooltip(t *testing.T) {
	d := x11test.Start(t)
	startReal(t, d, "Calculator", "/usr/bin/gnome-calculator")
	tr := open(t, d)
	b := findEventually(t, tr, desktop.FindQuery{Role: "Button", Name: ") )"})[0]
	xdo(t, d, "mousemove", "--sync", strconv.Itoa(b.CenterX), strconv.Itoa(b.CenterY))
	xdo(t, d, "mousemove", "--sync", strconv.Itoa(b.CenterX+2), strconv.Itoa(b.CenterY+2))
	root, _ := treeEventually(t, tr, 0, 0, "Text", "End Group [)]")
	nodes := nodesOf(root)
	tip, _ := findNode(nodes, "Text", "End Group [)]")
	if tip.Y < b.CenterY || tip.Y > b.CenterY+80 || tip.X+tip.Width < b.X || tip.X > b.X+b.Width+80 {
		t.Fatalf("the tooltip at %d,%d %dx%d, not by the pointer at %d,%d", tip.X, tip.Y, tip.Width, tip.Height, b.CenterX+2, b.CenterY+2)
	}
}

// calculatorPreferences opens gnome-calculator's Preferences through its menu button's
// pop-up menu, and reads its tree.
func calculatorPreferences(t *testing.T) *atspi.Tree {
	d := x11test.Start(t)
	startReal(t, d, "Calculator", "/usr/bin/gnome-calculator")
	tr := open(t, d)
	m := findEventually(t, tr, desktop.FindQuery{Role: "Button", Name: "Primary menu"})[0]
	clickMatch(t, d, m)
	p := findEventually(t, tr, desktop.FindQuery{Role: "MenuItem", Name: "Preferences"})[0]
	clickMatch(t, d, p)
	activate(t, d, "Preferences")
	return tr
}

// TestGTK4HiddenPages: GTK 4 keeps the pages a stack does not show VISIBLE, with empty
// boxes (gnome-calculator's Preferences hold a search page, "No Results Found"); they are
// not on the screen: neither the tree nor a search shows them, and no element of the tree
// has an empty box.
func TestGTK4HiddenPages(t *testing.T) {
	tr := calculatorPreferences(t)
	root, _ := treeEventually(t, tr, 20, 0, "ComboBox", "Angle units")
	nodes := nodesOf(root)
	for _, n := range nodes {
		if n.Width <= 0 || n.Height <= 0 {
			t.Errorf("%s %q has an empty box at %d,%d %dx%d", n.Role, n.Name, n.X, n.Y, n.Width, n.Height)
		}
	}
	if ms, err := tr.Find(context.Background(), desktop.FindQuery{Text: "No Results Found"}); err != nil || len(ms) > 0 {
		t.Errorf("a search finds the hidden page's text: %+v (%v)", ms, err)
	}
}

// TestGTK4HiddenStackPage: GTK 4 (4.8) keeps the page a stack hid VISIBLE at the place it had
// (gnome-clocks' World page, after its Alarms tab was chosen, held "Add World Clock" where "Add
// Alarm" shows), and what a scroll view holds beyond the window's edge; a search offers neither:
// a click there hits the page shown, or falls off the window (gnome-clocks' hidden view switcher
// bar, below its window, took the focus away from it).
func TestGTK4HiddenStackPage(t *testing.T) {
	d := x11test.Start(t)
	requireGTK4(t)
	startApp(t, d, "a11y_gtk4_stack.py", "GSK_RENDERER=cairo")
	activate(t, d, "w365 a11y GTK4 stack")
	tr := open(t, d)
	findEventually(t, tr, desktop.FindQuery{Role: "Button", Name: "Add Alarm"})
	if ms, err := tr.Find(context.Background(), desktop.FindQuery{Role: "Button", Name: "Add World Clock"}); err != nil || len(ms) > 0 {
		t.Errorf("a search finds the hidden page's button: %+v (%v)", ms, err)
	}
	if ms, err := tr.Find(context.Background(), desktop.FindQuery{Role: "Button", Name: "Below the window"}); err != nil || len(ms) > 0 {
		t.Errorf("a search finds the button below the window: %+v (%v)", ms, err)
	}
	// The tree lists them, and says they are not where they seem.
	root, _ := treeEventually(t, tr, 10, 0, "Button", "Add Alarm")
	nodes := nodesOf(root)
	for name, want := range map[string]bool{"Add Alarm": false, "Add World Clock": true, "Below the window": true} {
		n, ok := findNode(nodes, "Button", name)
		if !ok || slices.Contains(n.States, "offscreen") != want {
			t.Errorf("the tree's %q (listed: %v) reads %v, want offscreen %v", name, ok, n.States, want)
		}
	}
}

// TestGTK4DeepPreferences: libadwaita nests a preferences row's choice below depth 10
// (gnome-calculator's Angle units reads Degrees in a label inside a list item inside the
// combo row); the tree, at most 10 deep (TOOLS.md), says that elements have children below
// its depth, and a search finds the choice, inside the row.
func TestGTK4DeepPreferences(t *testing.T) {
	tr := calculatorPreferences(t)
	_, meta := treeEventually(t, tr, 10, 0, "ComboBox", "Angle units")
	if meta.Deeper == 0 || meta.MaxDepth != 10 {
		t.Errorf("the tree of depth 10 says %+v: no element with children below it", meta)
	}
	// What lies below, a search finds: the row's choice, inside the row.
	root, _ := treeEventually(t, tr, 10, 0, "ComboBox", "Angle units")
	row, _ := findNode(nodesOf(root), "ComboBox", "Angle units")
	box := image.Rect(row.X, row.Y, row.X+row.Width, row.Y+row.Height)
	m := findEventually(t, tr, desktop.FindQuery{Role: "Text", Name: "Degrees"})[0]
	if !image.Pt(m.CenterX, m.CenterY).In(box) {
		t.Errorf("Degrees found at %d,%d, not in the Angle units row %v", m.CenterX, m.CenterY, box)
	}
}

// qpdfviewSettings opens qpdfview's Settings dialog through its Edit menu.
func qpdfviewSettings(t *testing.T) (*display.Desktop, *atspi.Tree) {
	d := x11test.Start(t)
	startReal(t, d, "report - qpdfview", "/usr/bin/qpdfview", filepath.Join(testenv.Root(), "testdata", "tasks", "report.pdf"))
	tr := open(t, d)
	for _, step := range []desktop.FindQuery{{Role: "MenuItem", Name: "Edit"}, {Role: "MenuItem", Name: "Settings..."}} {
		m := findEventually(t, tr, step)[0]
		clickMatch(t, d, m)
	}
	activate(t, d, "Settings - qpdfview")
	return d, tr
}

// TestQt5ListItemsLieInTheirList: Qt reports the items of a combo box's open list wider
// than the list (qpdfview's Tab position: 249 px in 133); the tree and a search give each
// item's part inside the list, so that its centre is on it.
func TestQt5ListItemsLieInTheirList(t *testing.T) {
	d, tr := qpdfviewSettings(t)
	tab := findEventually(t, tr, desktop.FindQuery{Role: "TabItem", Name: "Interface"})[0]
	clickMatch(t, d, tab)
	combo := findEventually(t, tr, desktop.FindQuery{Role: "ComboBox", Name: "Top"})[0]
	clickMatch(t, d, combo)
	root, _ := treeEventually(t, tr, 20, 0, "ListItem", "Bottom")
	nodes := nodesOf(root)
	for _, n := range nodes {
		if n.Role != "List" || len(n.Children) == 0 || n.Children[0].Role != "ListItem" {
			continue
		}
		for _, it := range n.Children {
			if it.X < n.X || it.Y < n.Y || it.X+it.Width > n.X+n.Width || it.Y+it.Height > n.Y+n.Height {
				t.Errorf("%s %q at %d,%d %dx%d overflows its list at %d,%d %dx%d", it.Role, it.Name, it.X, it.Y, it.Width, it.Height, n.X, n.Y, n.Width, n.Height)
			}
		}
		m := findEventually(t, tr, desktop.FindQuery{Role: "ListItem", Name: "Bottom"})[0]
		if m.X+m.Width > n.X+n.Width {
			t.Errorf("a search gives Bottom at %d,%d %dx%d, wider than its list at %d,%d %dx%d", m.X, m.Y, m.Width, m.Height, n.X, n.Y, n.Width, n.Height)
		}
		return
	}
	t.Fatalf("no open list in the tree: %+v", root)
}

// TestQt5CurrentTabReadsSelected: Qt marks the current tab of a tab bar FOCUSED and never
// SELECTED; the tree reads it selected (qpdfview's Settings), and the tab clicked next
// takes it over.
func TestQt5CurrentTabReadsSelected(t *testing.T) {
	d, tr := qpdfviewSettings(t)
	selected := func() []string {
		root, _ := treeEventually(t, tr, 10, 0, "TabItem", "Graphics")
		nodes := nodesOf(root)
		var names []string
		for _, n := range nodes {
			if n.Role == "TabItem" && slices.Contains(n.States, "selected") {
				names = append(names, n.Name)
			}
		}
		return names
	}
	if got := selected(); !slices.Equal(got, []string{"Behavior"}) {
		t.Fatalf("the tabs read selected: %q, want Behavior", got)
	}
	g := findEventually(t, tr, desktop.FindQuery{Role: "TabItem", Name: "Graphics"})[0]
	clickMatch(t, d, g)
	var got []string
	for i := 0; i < 50; i++ {
		// The Graphics page has tabs of its own, the first current.
		if got = selected(); slices.Equal(got, []string{"General", "Graphics"}) {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("after a click on Graphics the tabs read selected: %q", got)
}

// TestLibreOfficeMenuFoundIsTheOneShown: LibreOffice (GTK 3) keeps a menu bar of its own,
// 0 px high, under GTK's, both SHOWING with the same menus, its own over the toolbar below;
// a search ranks the menu a person sees first, and a click on it opens it (before, the
// hidden one came first and the click hit the toolbar).
func TestLibreOfficeMenuFoundIsTheOneShown(t *testing.T) {
	d, tr, in := libreOffice(t)
	clickMatch(t, d, findEventually(t, tr, in(desktop.FindQuery{Role: "Menu", Name: "Format"}))[0])
	findEventually(t, tr, in(desktop.FindQuery{Role: "MenuItem", Name: "Character..."}))
}

// libreOffice starts LibreOffice Writer (GTK 3) with a profile of its own, in front; in
// makes a query look in its window.
func libreOffice(t *testing.T) (*display.Desktop, *atspi.Tree, func(desktop.FindQuery) desktop.FindQuery) {
	if _, err := os.Stat("/usr/lib/libreoffice/program/libvclplug_gtk3lo.so"); err != nil {
		testenv.Missing(t, "libreoffice-gtk3 (its accessible toolkit)")
	}
	d := x11test.Start(t)
	profile := "-env:UserInstallation=file://" + t.TempDir()
	startReal(t, d, "Untitled 1 - LibreOffice Writer", "/usr/lib/libreoffice/program/soffice", "--writer", "--norestore", profile)
	// Its tip of the day comes a moment after the window, modal: closed first.
	for i := 0; i < 100; i++ {
		if out, _ := d.Command("xdotool", "search", "--name", "^Tip of the Day").Output(); len(out) > 0 {
			xdo(t, d, "windowactivate", "--sync", strings.Fields(string(out))[0], "key", "Escape")
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	id, err := strconv.ParseUint(activate(t, d, "Untitled 1 - LibreOffice Writer"), 10, 32)
	if err != nil {
		t.Fatal(err)
	}
	return d, open(t, d), func(q desktop.FindQuery) desktop.FindQuery { q.WindowHandle = uint32(id); return q }
}

// TestLibreOfficeMenuItemsWhereShown: LibreOffice (GTK 3) reports the items of an open menu
// at their places in its pop-up window plus its main window's origin (Format's, open at
// 181,44, from 0,19 down); the tree and a search place them in the pop-up, a submenu's in
// its own, and a click at Format > Text > Bold's centre, then at Format > Character...'s,
// opens the Character dialog (before, the click hit the toolbar).
func TestLibreOfficeMenuItemsWhereShown(t *testing.T) {
	d, tr, in := libreOffice(t)
	clickMatch(t, d, findEventually(t, tr, in(desktop.FindQuery{Role: "Menu", Name: "Format"}))[0])
	clickMatch(t, d, findEventually(t, tr, in(desktop.FindQuery{Role: "Menu", Name: "Text"}))[0])
	bold := findEventually(t, tr, in(desktop.FindQuery{Role: "MenuItem", Name: "Bold"}))[0]
	c, err := xconn.Connect(d.Name)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	pops, err := xconn.Popups(c, xconn.NewOwners(c, d.Name))
	if err != nil {
		t.Fatal(err)
	}
	inPopup := false
	for _, p := range pops {
		inPopup = inPopup || bold.CenterX >= p.X && bold.CenterX < p.X+p.W && bold.CenterY >= p.Y && bold.CenterY < p.Y+p.H
	}
	if !inPopup {
		t.Errorf("Bold at %d,%d, in none of the pop-ups %+v", bold.CenterX, bold.CenterY, pops)
	}
	root, _ := treeEventually(t, tr, 20, 0, "MenuItem", "Bold")
	if n, _ := findNode(nodesOf(root), "MenuItem", "Bold"); n.X != bold.X || n.Y != bold.Y {
		t.Errorf("the tree has Bold at %d,%d, a search at %d,%d", n.X, n.Y, bold.X, bold.Y)
	}
	xdo(t, d, "key", "Escape", "Escape")
	clickMatch(t, d, findEventually(t, tr, in(desktop.FindQuery{Role: "Menu", Name: "Format"}))[0])
	clickMatch(t, d, findEventually(t, tr, in(desktop.FindQuery{Role: "MenuItem", Name: "Character..."}))[0])
	activate(t, d, "Character")
}

// TestGTK3ScrolledComboMenu: a GTK 3 combo box's menu, opened near the bottom of the screen,
// lies in a pop-up moved up to fit, its items scrolled down past its bottom; the menu itself
// reports the pop-up. Its items are where GTK reports them (the union of all of them fits
// the pop-up's size, but they are not to be moved into it): a click at the centre a search
// gives picks that item, in the tree and in a search.
func TestGTK3ScrolledComboMenu(t *testing.T) {
	d := x11test.Start(t)
	a := startApp(t, d, "a11y_gtk3_bottom.py")
	activate(t, d, "w365 a11y GTK3 combo")
	tr := open(t, d)
	clickMatch(t, d, findEventually(t, tr, desktop.FindQuery{Role: "ComboBox"})[0])
	item := findEventually(t, tr, desktop.FindQuery{Role: "MenuItem", Name: "File type 1"})[0]
	root, _ := treeEventually(t, tr, 10, 0, "MenuItem", "File type 1")
	if n, _ := findNode(nodesOf(root), "MenuItem", "File type 1"); n.X != item.X || n.Y != item.Y {
		t.Errorf("the tree has File type 1 at %d,%d, a search at %d,%d", n.X, n.Y, item.X, item.Y)
	}
	// The active item (File type 2) lies over the combo box, as GTK places it.
	cb := a.geom["combo"]
	active := findEventually(t, tr, desktop.FindQuery{Role: "MenuItem", Name: "File type 2"})[0]
	if active.CenterY < cb.y || active.CenterY > cb.y+cb.h {
		t.Errorf("File type 2 at %d,%d, not over the combo box at %+v", active.CenterX, active.CenterY, cb)
	}
	clickMatch(t, d, item)
	a.waitLine(t, "CHANGED File type 1")
}

// TestGTK4DialogFrame: GTK 4 never sets SHOWING on a dialog (gnome-text-editor's Save As,
// VISIBLE only), yet the dialog is the frame of its window, found by its title: its name
// field is read, not the main window at the dialog's origin.
func TestGTK4DialogFrame(t *testing.T) {
	d := x11test.Start(t)
	startReal(t, d, ".* - Text Editor", "/usr/bin/gnome-text-editor", "--standalone")
	tr := open(t, d)
	findEventually(t, tr, desktop.FindQuery{Role: "Edit"})
	xdo(t, d, "key", "ctrl+s")
	activate(t, d, "Save As")
	name := findEventually(t, tr, desktop.FindQuery{Role: "Edit", Name: "Name:"})[0]
	if !strings.HasSuffix(name.Value, ".txt") {
		t.Errorf("the Save As dialog's name field reads %q, want a .txt file's name", name.Value)
	}
}

// TestGTK3DialogTitledAsItsWindow: a dialog that carries its window's title, whose frame
// GTK names by its kind ("Question"), is read as the foreground window once it is active: its
// buttons are found and answer it (xfce4-taskmanager's Terminate was read as the main window,
// which no button of the dialog lies in).
func TestGTK3DialogTitledAsItsWindow(t *testing.T) {
	d := x11test.Start(t)
	a := startApp(t, d, "a11y_gtk3_twin.py")
	var xid string
	for xid == "" {
		select {
		case l := <-a.lines:
			if id, ok := strings.CutPrefix(l, "DIALOG "); ok {
				xid = id
			}
		case <-time.After(10 * time.Second):
			t.Fatal("the dialog did not show")
		}
	}
	xdo(t, d, "windowactivate", "--sync", xid)
	tr := open(t, d)
	clickMatch(t, d, findEventually(t, tr, desktop.FindQuery{Role: "Button", Name: "Yes"})[0])
	a.waitLine(t, "ANSWER yes")
}

// TestGTK3DisabledSpinner: a spin button and a scale that take no input (GTK 3 clears
// ENABLED and SENSITIVE, and greys them) read disabled, as a button or a field does.
func TestGTK3DisabledSpinner(t *testing.T) {
	d := x11test.Start(t)
	startApp(t, d, "a11y_gtk3_bottom.py")
	activate(t, d, "w365 a11y GTK3 combo")
	tr := open(t, d)
	for _, role := range []string{"Spinner", "Slider"} {
		if m := findEventually(t, tr, desktop.FindQuery{Role: role})[0]; !slices.Contains(m.States, "disabled") {
			t.Errorf("the insensitive %s reads %v", role, m.States)
		}
	}
}

// TestDocumentViewerPageText: the page Atril shows holds the PDF page's text in its Text
// interface, with no children: the tree shows it as the page's value and a text search finds
// the page by it.
func TestDocumentViewerPageText(t *testing.T) {
	d := x11test.Start(t)
	startReal(t, d, "report.pdf", "/usr/bin/atril", filepath.Join(testenv.Root(), "testdata", "tasks", "report.pdf"))
	tr := open(t, d)
	m := findEventually(t, tr, desktop.FindQuery{Text: "Quarterly report"})[0]
	if m.Role != "Document" || !strings.Contains(m.Value, "Quarterly report page one") {
		t.Errorf("a search for the first page's text found %+v", m)
	}
	root, _ := treeEventually(t, tr, 10, 0, "Document", "Document View")
	if _, ok := findNode(nodesOf(root), "Document", ""); !ok {
		t.Fatal("the tree has no page")
	}
	for _, n := range nodesOf(root) {
		if n.NativeRole == "page" && !strings.Contains(n.Value, "Quarterly report page one") {
			t.Errorf("the page reads %q", n.Value)
		}
	}
}

// TestUnplacedElementIsNotFound: an element the toolkit places at -1,-1 with a size of -1x-1
// (a GTK 3 notebook page whose tabs are hidden; Firefox's fields while the page lays out) has
// no place on the screen to click: a search does not offer it, and the tree keeps what lies
// in it.
func TestUnplacedElementIsNotFound(t *testing.T) {
	d := x11test.Start(t)
	startApp(t, d, "a11y_gtk3_bottom.py")
	activate(t, d, "w365 a11y GTK3 combo")
	tr := open(t, d)
	findEventually(t, tr, desktop.FindQuery{Role: "ComboBox"})
	ms, err := tr.Find(context.Background(), desktop.FindQuery{Role: "TabItem"})
	if err != nil || len(ms) != 0 {
		t.Errorf("a search for the hidden tab found %+v, %v", ms, err)
	}
	root, _ := treeEventually(t, tr, 10, 0, "ComboBox", "File type 2")
	if _, ok := findNode(nodesOf(root), "TabItem", ""); !ok {
		t.Error("the tree lost the notebook's page")
	}
}

// TestQt5ScrolledOutIsOffscreen: Qt keeps the widgets a scroll area has scrolled out of its
// view SHOWING, at their places beyond it; a search marks such a match offscreen (a click at
// its centre hits whatever lies there) and ranks it after those on the screen, also inside a
// checkable group box, which Qt calls a check box (qBittorrent's log file settings).
func TestQt5ScrolledOutIsOffscreen(t *testing.T) {
	d := x11test.Start(t)
	startApp(t, d, "a11y_qt5_scroll.py")
	activate(t, d, "w365 a11y Qt5 scroll")
	tr := open(t, d)
	if m := findEventually(t, tr, desktop.FindQuery{Role: "CheckBox", Name: "Option 1"})[0]; slices.Contains(m.States, "offscreen") {
		t.Errorf("Option 1, in the view, reads %v", m.States)
	}
	if m := findEventually(t, tr, desktop.FindQuery{Role: "CheckBox", Name: "Option 25"})[0]; !slices.Contains(m.States, "offscreen") {
		t.Errorf("Option 25, scrolled out of the view, reads %v at %d,%d", m.States, m.CenterX, m.CenterY)
	}
	if ms := findEventually(t, tr, desktop.FindQuery{Role: "CheckBox"}); ms[0].Name != "Option 1" || !slices.Contains(ms[len(ms)-1].States, "offscreen") {
		t.Errorf("the check boxes rank %+v first and %+v last", ms[0], ms[len(ms)-1])
	}
	// Inside a checkable group box (a check box that holds widgets), scrolled out with it.
	if m := findEventually(t, tr, desktop.FindQuery{Role: "ComboBox", Name: "days"})[0]; !slices.Contains(m.States, "offscreen") {
		t.Errorf("the combo box in the group box scrolled out of the view reads %v at %d,%d", m.States, m.CenterX, m.CenterY)
	}
	// The tree says so too.
	root, _ := treeEventually(t, tr, 10, 0, "CheckBox", "Option 25")
	nodes := nodesOf(root)
	for name, want := range map[string]bool{"Option 1": false, "Option 25": true} {
		if n, _ := findNode(nodes, "CheckBox", name); slices.Contains(n.States, "offscreen") != want {
			t.Errorf("the tree's %q reads %v, want offscreen %v", name, n.States, want)
		}
	}
}

// TestGTK3SpinButtonClickPoint: a search gives a GTK 3 spin button's number as its click
// point, not its centre, which lies on its − button: a click there stepped 12 down to 11
// (and in GTK 3's font chooser left the focus in its search field, which took the number
// typed next).
func TestGTK3SpinButtonClickPoint(t *testing.T) {
	d := x11test.Start(t)
	a := startApp(t, d, "a11y_gtk3_spin.py")
	activate(t, d, "w365 a11y GTK3 spin")
	tr := open(t, d)
	m := findEventually(t, tr, desktop.FindQuery{Role: "Spinner"})[0]
	clickMatch(t, d, m)
	xdo(t, d, "key", "--delay", "50", "ctrl+a", "4", "2", "Return")
	select {
	case l := <-a.lines:
		if l != "VALUE 42" {
			t.Fatalf("after a click at %d,%d in the spin button at %d,%d %dx%d and 42 typed, the app printed %q first",
				m.CenterX, m.CenterY, m.X, m.Y, m.Width, m.Height, l)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the spin button's value did not change")
	}
}

// TestGJSClassNames: GTK 4 names an element without a name by its class's type name, and GJS
// names a class an application declares "Gjs_" and its name: gnome-characters' sidebar rows
// read "Gjs_SidebarRow" and its character grid "Gjs_CharactersView", as a GTK class reads
// "GtkButton"; the tree names them as it names those (by their description, or not at all).
func TestGJSClassNames(t *testing.T) {
	d := x11test.Start(t)
	startReal(t, d, "Characters", "/usr/bin/gnome-characters")
	tr := open(t, d)
	root, _ := treeEventually(t, tr, 10, 0, "Text", "People & Body")
	for _, n := range nodesOf(root) {
		if strings.HasPrefix(n.Name, "Gjs_") {
			t.Errorf("%s reads as its class %q", n.Role, n.Name)
		}
	}
}

// TestGTK2ButtonNamedByTooltip: gpicview's (GTK 2) rotate and flip buttons show only icons and
// have no name; their tooltips, which a person reads on pointing at them, are their
// descriptions. The tree and a search name them by it.
func TestGTK2ButtonNamedByTooltip(t *testing.T) {
	_, tr := startGpicview(t)
	findEventually(t, tr, desktop.FindQuery{Role: "Button", Name: "Rotate Clockwise"})
	root, _ := treeEventually(t, tr, 10, 0, "Button", "Flip Vertical")
	for _, name := range []string{"Rotate Counterclockwise", "Rotate Clockwise", "Flip Horizontal"} {
		if _, ok := findNode(nodesOf(root), "Button", name); !ok {
			t.Errorf("no button %q in the tree", name)
		}
	}
}

// holdsCells says whether n is a cell that holds others.
func holdsCells(n desktop.Node) bool { return n.Role == "DataItem" && len(n.Children) > 0 }

// checkCompositeCells asserts that each cell of root that holds cells (a GTK tree view's column
// that draws an icon beside its text) is named by the names of its cells, and returns how many
// there are.
func checkCompositeCells(t *testing.T, root desktop.Node) int {
	t.Helper()
	k := 0
	for _, n := range nodesOf(root) {
		if !holdsCells(n) {
			continue
		}
		k++
		var parts []string
		for _, c := range n.Children {
			if c.Role == "DataItem" && c.Name != "" {
				parts = append(parts, c.Name)
			}
		}
		if want := strings.Join(parts, " "); n.Name != want || want == "" {
			t.Errorf("a cell holding %q reads %q", want, n.Name)
		}
	}
	return k
}

// TestGTK3CompositeCellNames: GTK 3 makes a tree view's cell that draws an icon beside its text
// one cell holding a cell for each renderer, and names only those; the tree read
// `DataItem ""` for each row of xfce4-taskmanager's Task column (docs/accessibility.md).
// The cell is named by its cells' names, also where the tree does not reach them.
func TestGTK3CompositeCellNames(t *testing.T) {
	d := x11test.Start(t)
	startApp(t, d, "a11y_gtk3_cells.py")
	activate(t, d, "w365 a11y GTK3 cells")
	tr := open(t, d)
	root, _ := treeEventually(t, tr, 10, 0, "DataItem", "charlie & co")
	if k := checkCompositeCells(t, root); k != 3 {
		t.Errorf("%d cells hold cells, want 3", k)
	}
	// Window, table, the rows' cells: the renderers' cells lie below.
	root, _ = treeEventually(t, tr, 2, 0, "DataItem", "303")
	for _, name := range []string{"alpha-daemon", "bravo shell", "charlie & co"} {
		if _, ok := findNode(nodesOf(root), "DataItem", name); !ok {
			t.Errorf("no DataItem %q in the tree of depth 2", name)
		}
	}
	// A search finds the whole cell, its icon with its text, first.
	ms := findEventually(t, tr, desktop.FindQuery{Role: "DataItem", Name: "bravo shell"})
	if len(ms) != 2 || ms[0].X >= ms[1].X || ms[0].Width <= ms[1].Width {
		t.Errorf("Find(DataItem \"bravo shell\") = %+v, want the cell, then its text's", ms)
	}
}

// TestTaskManagerTaskNames: xfce4-taskmanager's Task column draws an icon beside each task's
// name; each of its cells reads the name.
func TestTaskManagerTaskNames(t *testing.T) {
	d := x11test.Start(t)
	startReal(t, d, "Task Manager", "/usr/bin/xfce4-taskmanager")
	tr := open(t, d)
	// The rows shown change as the tasks' use of the processor does: wait for the table to
	// show any, each of whose Task cells holds the cells of its icon and its name.
	var root desktop.Node
	for i := 0; i < 100 && !slices.ContainsFunc(nodesOf(root), holdsCells); i++ {
		time.Sleep(200 * time.Millisecond)
		root, _, _ = tr.Tree(context.Background(), 10, 2000)
	}
	if k := checkCompositeCells(t, root); k == 0 {
		t.Error("no cell holds cells")
	}
}

// TestQt5FocusIsNotTheCurrentTab: Qt marks the current tab of every tab bar focused, whether
// or not the bar has the keyboard focus. With the SQL editor of DB Browser for SQLite clicked,
// Focused is that editor, not a current tab (its dock's tab bar's, which a breadth-first walk
// meets first). Before, it was TabItem "Remote", and type_text said the keys it had typed into
// the editor "may have gone nowhere".
func TestQt5FocusIsNotTheCurrentTab(t *testing.T) {
	testenv.Require(t, "sqlitebrowser")
	testenv.Require(t, "sqlite3")
	dir := t.TempDir()
	db := filepath.Join(dir, "shop.db")
	if out, err := exec.Command("sqlite3", db, "create table items(name text)").CombinedOutput(); err != nil {
		t.Fatalf("sqlite3: %v: %s", err, out)
	}
	d := x11test.Start(t)
	c := startProc(t, d, "/usr/bin/sqlitebrowser", db)
	c.Env = append(c.Env, "HOME="+dir, "QT_LINUX_ACCESSIBILITY_ALWAYS_ON=1")
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Kill(-c.Process.Pid, syscall.SIGKILL); c.Wait() })
	activate(t, d, "DB Browser for SQLite - "+db)
	tr := open(t, d)
	clickMatch(t, d, findEventually(t, tr, desktop.FindQuery{Role: "TabItem", Name: "Execute SQL"})[0])
	editor := findEventually(t, tr, desktop.FindQuery{Role: "Edit"})[0]
	clickMatch(t, d, editor)
	var n desktop.Node
	for i := 0; i < 50; i++ {
		var ok bool
		var err error
		if n, ok, err = tr.Focused(context.Background()); err != nil {
			t.Fatal(err)
		} else if ok && n.Role == "Edit" {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Errorf("the focus with the SQL editor at %+v clicked: %+v", editor, n)
}
