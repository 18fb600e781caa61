//go:build linux

package atspi_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jezek/xgb/xproto"

	"github.com/w365/w365/engine/desktop"
	"github.com/w365/w365/engine/desktop/x11/atspi"
	"github.com/w365/w365/engine/desktop/x11/display"
	"github.com/w365/w365/engine/desktop/x11/window"
	"github.com/w365/w365/engine/desktop/x11/x11test"
	"github.com/w365/w365/engine/desktop/x11/xconn"
	"github.com/w365/w365/engine/werr"
	"github.com/w365/w365/test/testenv"
)

// pressXt clicks the button of the foreground Xt window named name, found by its name.
func pressXt(t *testing.T, tr interface {
	Find(context.Context, desktop.FindQuery) ([]desktop.Match, error)
}, click func(desktop.Match), name string) {
	t.Helper()
	ms, err := tr.Find(context.Background(), desktop.FindQuery{Role: "Button", Name: name})
	if err != nil || len(ms) == 0 || ms[0].Name != name {
		t.Fatalf("Find(Button %q) = %+v, %v", name, ms, err)
	}
	click(ms[0])
}

// startXt starts Xt program path with its addresses not randomised (setarch -R): its widgets
// then lie below 2 GiB in their 4 GiB, where Xmu 1.1 reaches them; in about half of the runs
// of a randomised program it reaches none (docs/accessibility.md#xt-and-motif), which the
// OutOfEditresReach tests inject.
func startXt(t *testing.T, d *display.Desktop, title, path string, args ...string) {
	t.Helper()
	testenv.Require(t, path)
	startReal(t, d, title, "/usr/bin/setarch", append([]string{"-R", path}, args...)...)
}

// calculate computes 9 * 8 - .5 on xcalc (Xaw) by its keys' names, found through Editres, and
// returns the tree once its display, a toggle, reads the result, with that display.
func calculate(t *testing.T, unreached bool) (desktop.Node, desktop.Node) {
	d := x11test.Start(t)
	startXt(t, d, "Calculator", "/usr/bin/xcalc")
	tr := open(t, d)
	if unreached {
		atspi.XtUnreached(tr)
	}
	findEventually(t, tr, desktop.FindQuery{Role: "Button", Name: "="})
	click := func(m desktop.Match) { clickMatch(t, d, m) }
	for _, k := range []string{"9", "*", "8", "-", ".", "5", "="} {
		pressXt(t, tr, click, k)
	}
	var root desktop.Node
	for i := 0; i < 50; i++ {
		var err error
		root, _, err = tr.Tree(context.Background(), 10, 0)
		if err != nil {
			t.Fatalf("Tree: %v", err)
		}
		if lcd, ok := findNode(nodesOf(root), "Button", "71.5"); ok {
			return root, lcd
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("no display reading 71.5 in %+v", root)
	return root, desktop.Node{}
}

// TestXtCalculator: an Xt window's tree is read through Editres (docs/accessibility.md#xt-and-motif):
// xcalc's keys are found and pressed by their names, and its display reads the result. Before,
// the window had no tree ("exposes no accessibility tree").
func TestXtCalculator(t *testing.T) {
	root, lcd := calculate(t, false)
	nodes := nodesOf(root)
	if lcd.NativeRole != "toggle button" || lcd.Width < 100 {
		t.Errorf("display %+v", lcd)
	}
	if root.Role != "Window" || root.Name != "Calculator" {
		t.Errorf("root %s %q", root.Role, root.Name)
	}
	eq, ok := findNode(nodes, "Button", "=")
	if !ok || eq.NativeRole != "push button" || eq.Width <= 0 || eq.Y <= lcd.Y {
		t.Errorf("= key %+v (%v), display at %d", eq, ok, lcd.Y)
	}
	// Of xcalc's HEX, DEC and OCT labels, which lie at one place, only the one shown is.
	n := 0
	for _, l := range []string{"HEX", "DEC", "OCT"} {
		if _, ok := findNode(nodes, "Text", l); ok {
			n++
		}
	}
	if n != 1 {
		t.Errorf("%d of HEX, DEC, OCT in the tree, want 1", n)
	}
	// Its ÷ and √ keys are labelled in Adobe's Symbol font.
	for _, k := range []string{"÷", "√", "π"} {
		if _, ok := findNode(nodes, "Button", k); !ok {
			t.Errorf("no key %q", k)
		}
	}
}

// TestXtCalculatorOutOfEditresReach: where Xmu reaches no widget (its sign extension, in
// about half of a program's runs), the keys are named as xcalc was configured (its
// app-defaults) and the display is read from the screen, marked ocr.
func TestXtCalculatorOutOfEditresReach(t *testing.T) {
	root, lcd := calculate(t, true)
	if lcd.NativeRole != "ocr" || !slices.Contains(lcd.States, "ocr") {
		t.Errorf("display %+v", lcd)
	}
	if k, ok := findNode(nodesOf(root), "Button", "÷"); !ok || slices.Contains(k.States, "ocr") {
		t.Errorf("÷ key %+v (%v)", k, ok)
	}
}

// TestXtPopupMenu opens xfontsel's (Xaw) weight menu and picks its item "bold" by its name:
// the items of an open SimpleMenu are in the window's tree, those of a closed one are not.
func TestXtPopupMenu(t *testing.T) { pickFromMenu(t, false) }

// TestXtPopupMenuOutOfEditresReach: where Xmu reaches no widget, an open menu's items are read
// from the screen, marked ocr, and picked as well.
func TestXtPopupMenuOutOfEditresReach(t *testing.T) { pickFromMenu(t, true) }

func pickFromMenu(t *testing.T, unreached bool) {
	d := x11test.Start(t)
	startXt(t, d, "xfontsel", "/usr/bin/xfontsel")
	tr := open(t, d)
	if unreached {
		atspi.XtUnreached(tr)
	}
	ctx := context.Background()
	ms := findEventually(t, tr, desktop.FindQuery{Role: "Button", Name: "wght"})
	if ms[0].Name != "wght" {
		t.Fatalf("found %+v", ms[0])
	}
	if items, err := tr.Find(ctx, desktop.FindQuery{Role: "MenuItem"}); err != nil || len(items) != 0 {
		t.Fatalf("menu items of closed menus: %+v, %v", items, err)
	}
	xdo(t, d, "mousemove", "--sync", strconv.Itoa(ms[0].CenterX), strconv.Itoa(ms[0].CenterY), "mousedown", "1")
	var item desktop.Match
	for i := 0; i < 50; i++ {
		found, err := tr.Find(ctx, desktop.FindQuery{Role: "MenuItem", Name: "bold"})
		if err == nil && len(found) > 0 {
			item = found[0]
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if item.Name != "bold" || item.Y <= ms[0].Y || slices.Contains(item.States, "ocr") != unreached {
		t.Fatalf("menu item bold %+v, below the button at %d", item, ms[0].Y)
	}
	root, _, err := tr.Tree(ctx, 10, 0)
	if err != nil {
		t.Fatal(err)
	}
	if m, ok := findNode(nodesOf(root), "Menu", ""); !ok || len(m.Children) < 2 {
		t.Errorf("open menu %+v (%v)", m, ok)
	}
	before, _ := tr.Find(ctx, desktop.FindQuery{Role: "Text"})
	xdo(t, d, "mousemove", "--sync", strconv.Itoa(item.CenterX), strconv.Itoa(item.CenterY), "mouseup", "1")
	for i := 0; i < 50; i++ {
		items, _ := tr.Find(ctx, desktop.FindQuery{Role: "MenuItem"})
		name, _ := tr.Find(ctx, desktop.FindQuery{Role: "Text", Text: "-*-*-bold-*"})
		if unreached {
			// Read from the screen, the font name's dashes and stars read as they may; it
			// changed.
			all, _ := tr.Find(ctx, desktop.FindQuery{Role: "Text"})
			name = slices.DeleteFunc(all, func(m desktop.Match) bool {
				return m.Width < 200 || slices.ContainsFunc(before, func(b desktop.Match) bool { return b.Name == m.Name })
			})
		}
		if len(items) == 0 && len(name) > 0 {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	root, _, _ = tr.Tree(ctx, 10, 0)
	t.Fatalf("the menu stayed open, or the font name does not read bold: %+v", root)
}

// TestXtNoAnswerIsBounded: a window whose client never answers the Editres message (this
// test's own, whose events nobody reads) reads as a window of no tree within the bound, and is
// remembered as silent.
func TestXtNoAnswerIsBounded(t *testing.T) {
	d := x11test.Start(t)
	c, err := xconn.Connect(d.Name)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	id, _ := xproto.NewWindowId(c)
	root := xproto.Setup(c).DefaultScreen(c).Root
	xproto.CreateWindow(c, 0, id, root, 10, 10, 200, 100, 0, xproto.WindowClassInputOutput, 0, 0, nil)
	title := "w365 silent"
	xproto.ChangeProperty(c, xproto.PropModeReplace, id, xproto.AtomWmName, xproto.AtomString, 8, uint32(len(title)), []byte(title))
	xproto.MapWindow(c, id)
	activate(t, d, title)
	tr := open(t, d)
	var took time.Duration
	for i := 0; i < 50; i++ { // until the window manager names the window active
		start := time.Now()
		_, _, err = tr.Tree(context.Background(), 0, 0)
		took = time.Since(start)
		if err != nil {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if werr.CodeOf(err) != werr.NotFound {
		t.Errorf("Tree of a silent window: %v", err)
	}
	if took > 2*desktop.CallTimeout {
		t.Errorf("Tree took %v", took)
	}
	t.Logf("Tree of a silent window returned in %v", took)
	// It is not asked again for a while: each ask costs editres.FetchTimeout.
	if n := atspi.XtSilent(tr); n != 1 {
		t.Errorf("%d windows remembered as silent, want 1", n)
	}
	start := time.Now()
	_, _, err = tr.Tree(context.Background(), 0, 0)
	t.Logf("and again in %v: %v", time.Since(start), err)
}

// TestXtTextFields: xedit's (Xaw) text fields read their text: a field whose source holds a
// string (the file name, the messages) through Editres, the file's buffer, whose source is the
// file, from the screen (marked ocr). Before, both read "".
func TestXtTextFields(t *testing.T) {
	d := x11test.Start(t)
	file := filepath.Join(t.TempDir(), "notes.txt")
	if err := os.WriteFile(file, []byte("apples and pears\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	startXt(t, d, "xedit", "/usr/bin/xedit", file)
	tr := open(t, d)
	holds := false
	for i := 0; i < 50 && !holds; i++ {
		ms, _ := tr.Find(context.Background(), desktop.FindQuery{Role: "Edit", Text: file})
		holds = slices.ContainsFunc(ms, func(m desktop.Match) bool { return m.Value == file })
		if !holds {
			time.Sleep(100 * time.Millisecond)
		}
	}
	if !holds {
		t.Errorf("no field holds the file's name %q", file)
	}
	ms := findEventually(t, tr, desktop.FindQuery{Role: "Edit", Text: "apples"})
	if ms[0].Role != "Edit" || !strings.Contains(ms[0].Value, "apples and pears") || !slices.Contains(ms[0].States, "ocr") {
		t.Errorf("buffer %+v", ms[0])
	}
}

// TestMotifMenu: nedit's (Motif) menu bar reads its names from the screen (a Motif label is an
// XmString, which Editres gives no string for), its File menu opens by a click at "File"
// found, and its items are found below the menu bar while it is open. Before, the window had
// no tree.
func TestMotifMenu(t *testing.T) {
	testenv.Require(t, "tesseract")
	d := x11test.Start(t)
	startXt(t, d, "Untitled", "/usr/bin/nedit")
	tr := open(t, d)
	file := findEventually(t, tr, desktop.FindQuery{Role: "MenuItem", Name: "File"})[0]
	if file.Name != "File" || !slices.Contains(file.States, "ocr") {
		t.Fatalf("File %+v", file)
	}
	// While Motif's menu holds the focus, the window manager names no window active; the
	// foreground window is still nedit's, whose menu it is (xconn.FocusedClient).
	clickMatch(t, d, file)
	var names []string
	// An item read from the screen reads its shortcut too ("close ctrl+w"); the others, past
	// the boxes a walk reads, their widgets' names.
	has := func(name string) bool {
		return slices.ContainsFunc(names, func(n string) bool { return strings.HasPrefix(n, name) })
	}
	for i := 0; i < 50 && !has("close"); i++ {
		time.Sleep(100 * time.Millisecond)
		items, err := tr.Find(context.Background(), desktop.FindQuery{Role: "MenuItem"})
		if err != nil {
			t.Fatal(err)
		}
		names = names[:0]
		for _, m := range items {
			if m.Y > file.Y+file.Height {
				names = append(names, strings.ToLower(m.Name))
			}
		}
	}
	if !has("close") || !has("new") || !has("exit") {
		t.Errorf("File menu %q", names)
	}
	m, err := window.Open(d.Name)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Disconnect()
	if w, err := m.Active(); err != nil || w.Title != "Untitled" {
		t.Errorf("the active window while nedit's menu is open: %+v, %v", w, err)
	}
}

// TestMotifDialogGadgets: the buttons and labels of nedit's Save As dialog (a Motif file
// selection box) are gadgets, windowless, and Xmu reaches none of nedit's widgets in most
// starts here, setarch or not (the test injects that case): they are read from the screen in
// the dialog's box, outside its fields and lists, and a run that reads a gadget's name ("OK",
// "Cancel") is a push button.
// Before, the dialog had no OK button and no labels, so no field could be told by its label.
func TestMotifDialogGadgets(t *testing.T) {
	testenv.Require(t, "tesseract")
	d := x11test.Start(t)
	startXt(t, d, "Untitled", "/usr/bin/nedit")
	tr := open(t, d)
	atspi.XtUnreached(tr)
	file := findEventually(t, tr, desktop.FindQuery{Role: "MenuItem", Name: "File"})[0]
	win, _ := strconv.ParseUint(strings.Fields(xdo(t, d, "search", "--name", "^Untitled$"))[0], 10, 32)
	clickMatch(t, d, file)
	clickMatch(t, d, findEventually(t, tr, desktop.FindQuery{Role: "MenuItem", Name: "Save As", WindowHandle: uint32(win)})[0])
	ok := findEventually(t, tr, desktop.FindQuery{Role: "Button", Name: "OK"})[0]
	label := findEventually(t, tr, desktop.FindQuery{Role: "Text", Name: "New File Name"})[0]
	if ok.Name != "OK" || label.Name != "New File Name:" || !slices.Contains(ok.States, "ocr") || ok.Y < label.Y {
		t.Errorf("OK %+v, label %+v", ok, label)
	}
	// The field under the label.
	fields, err := tr.Find(context.Background(), desktop.FindQuery{Role: "Edit"})
	if err != nil || !slices.ContainsFunc(fields, func(f desktop.Match) bool {
		return f.Y >= label.Y+label.Height && f.Y < label.Y+3*label.Height && f.X <= label.X
	}) {
		t.Errorf("no field under %+v: %+v, %v", label, fields, err)
	}
	clickMatch(t, d, findEventually(t, tr, desktop.FindQuery{Role: "Button", Name: "Cancel"})[0])
	findEventually(t, tr, desktop.FindQuery{Role: "MenuItem", Name: "File"})
}

// startGrace starts Grace (Motif) on a small data file, its widgets out of Xmu's reach
// (injected), and opens the tree of its display.
func startGrace(t *testing.T) (*display.Desktop, *atspi.Tree) {
	t.Helper()
	testenv.Require(t, "tesseract")
	dir := t.TempDir()
	data := filepath.Join(dir, "sales.dat")
	os.WriteFile(data, []byte("1 3\n2 5\n3 4\n"), 0o644)
	d := x11test.Start(t)
	startXt(t, d, "Grace: sales.dat", "/usr/bin/xmgrace", "-noask", data)
	tr := open(t, d)
	atspi.XtUnreached(tr)
	return d, tr
}

// TestMotifMenuBarGadgets: Grace's (Motif) menu bar is a row of cascade gadgets, windowless,
// that Xmu does not reach (injected): read from the screen, each title is an element of its
// own, split where the gap between two words is a title's gap, not a space. Before, the bar
// read as one element "File Edit Data Plot View Window", whose centre lies between Data and
// Plot: no title could be clicked by what the tree gave.
func TestMotifMenuBarGadgets(t *testing.T) {
	d, tr := startGrace(t)
	plot := findEventually(t, tr, desktop.FindQuery{Name: "Plot"})[0]
	data2 := findEventually(t, tr, desktop.FindQuery{Name: "Data"})[0]
	if plot.Name != "Plot" || data2.Name != "Data" || plot.X <= data2.X+data2.Width {
		t.Fatalf("Plot %+v, Data %+v", plot, data2)
	}
	// Its menu opens at a click on the title found.
	clickMatch(t, d, plot)
	findEventually(t, tr, desktop.FindQuery{Role: "MenuItem", Name: "Graph appearance"})
}

// TestMotifButtonsReadAsTheirNames: the buttons of Grace's (Motif) Graph Appearance dialog are
// named Apply, Accept and Close, which is what they show; read from the screen (their labels
// are XmStrings), Close reads "Clase". A reading one letter off its button's widget name is that
// name. Before, the dialog had no Close button to find.
func TestMotifButtonsReadAsTheirNames(t *testing.T) {
	d, tr := startGrace(t)
	clickMatch(t, d, findEventually(t, tr, desktop.FindQuery{Name: "Plot"})[0])
	clickMatch(t, d, findEventually(t, tr, desktop.FindQuery{Role: "MenuItem", Name: "Graph appearance"})[0])
	activate(t, d, "Grace: Graph Appearance")
	for _, name := range []string{"Apply", "Accept", "Close"} {
		if b := findEventually(t, tr, desktop.FindQuery{Role: "Button", Name: name})[0]; b.Name != name {
			t.Errorf("Button %q reads %+v", name, b)
		}
	}
}
