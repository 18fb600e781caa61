//go:build linux

package atspi

import (
	"context"
	"errors"
	"image"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/w365/w365/engine/desktop"
	"github.com/w365/w365/engine/desktop/x11/editres"
	"github.com/w365/w365/engine/desktop/x11/screen"
	"github.com/w365/w365/engine/ocr"
)

// noFrame is the cause of the error for a window that has no accessible frame: a window of the
// X Toolkit, which xtWalk reads through Editres instead (docs/accessibility.md#xt-and-motif).
type noFrame struct{ xw xwin }

func (e *noFrame) Error() string { return "no accessible frame" }

// xtKind is how a widget class reads in the tree.
type xtKind struct {
	role uint32
	// label: the resource naming it (Xaw's label, Motif's labelString); text: the resource
	// holding an editable text (Xaw's string, Motif's value).
	label, text string
	// skip: the widget is left out, its children taken by its parent (Xt's shell extension
	// objects, Motif's menu shells, Xaw's pane grips).
	skip bool
	// shows: its text is one a program sets as it runs (a calculator's display, a status
	// line), which the screen shows where Editres does not reach it (xtTexts).
	shows bool
}

// xtKinds maps Xaw's and Motif's widget classes; any other class reads as an unnamed panel.
var xtKinds = map[string]xtKind{
	"Command": {role: rolePushButton, label: "label"}, "Repeater": {role: rolePushButton, label: "label"},
	"Toggle":     {role: roleToggleButton, label: "label", shows: true},
	"MenuButton": {role: rolePushButtonMenu, label: "label"},
	"Label":      {role: roleLabel, label: "label", shows: true},
	"SimpleMenu": {role: roleMenu},
	"SmeBSB":     {role: roleMenuItem, label: "label"},
	"SmeLine":    {role: roleSeparator},
	"Text":       {role: roleText, text: "string", shows: true}, "AsciiText": {role: roleText, text: "string", shows: true},
	"Scrollbar": {role: roleScrollBar}, "List": {role: roleList},
	"VendorShellExt": {skip: true}, "Grip": {skip: true}, "XmMenuShell": {skip: true},
	"XmPushButton": {role: rolePushButton, label: "labelString"}, "XmPushButtonGadget": {role: rolePushButton, label: "labelString"},
	"XmToggleButton": {role: roleToggleButton, label: "labelString", shows: true}, "XmToggleButtonGadget": {role: roleToggleButton, label: "labelString", shows: true},
	"XmCascadeButton": {role: roleMenuItem, label: "labelString"}, "XmCascadeButtonGadget": {role: roleMenuItem, label: "labelString"},
	"XmLabel": {role: roleLabel, label: "labelString", shows: true}, "XmLabelGadget": {role: roleLabel, label: "labelString", shows: true},
	"XmText": {role: roleText, text: "value", shows: true}, "XmTextField": {role: roleText, text: "value", shows: true},
	"XmScrollBar": {role: roleScrollBar}, "XmList": {role: roleList}, "XmSeparator": {role: roleSeparator},
	"XmSeparatorGadget": {role: roleSeparator},
}

func xtKindOf(class string) xtKind {
	if k, ok := xtKinds[class]; ok {
		return k
	}
	return xtKind{role: rolePanel}
}

// silentFor is how long a window whose program did not fetch an Editres request is not asked
// again: a window of another toolkit never answers, and each ask costs editres.FetchTimeout.
const silentFor = 30 * time.Second

// xtWalk reads the window err names, when err is a lookup's for a window of no accessible
// frame, through Editres: its widgets that are shown, breadth-first, parents first, with
// their boxes, names and texts, cut at maxDepth and maxElements as a walk is. ok is false when
// err is another error; err comes back unchanged when the window's program does not answer
// Editres (it is no Xt program, or hangs: every call is bounded by desktop.CallTimeout).
func (t *Tree) xtWalk(ctx context.Context, err error, maxDepth, maxElements int) (res *walkResult, title string, ok bool, _ error) {
	var nf *noFrame
	if !errors.As(err, &nf) {
		return nil, "", false, err
	}
	deadline := time.Now().Add(desktop.CallTimeout)
	if d, set := ctx.Deadline(); set && d.Before(deadline) {
		deadline = d
	}
	t.mu.Lock()
	since, silent := t.silent[nf.xw.id]
	t.mu.Unlock()
	if silent && time.Since(since) < silentFor {
		return nil, "", true, err
	}
	cl, xerr := editres.Dial(t.display, nf.xw.id, deadline)
	if xerr != nil {
		return nil, "", true, err
	}
	defer cl.Close()
	ws, xerr := cl.Tree()
	if errors.Is(xerr, editres.ErrNotFetched) {
		t.mu.Lock()
		if t.silent == nil || len(t.silent) >= maxFrames {
			t.silent = map[uint32]time.Time{}
		}
		t.silent[nf.xw.id] = time.Now()
		t.mu.Unlock()
	}
	root := -1
	for i, w := range ws {
		if w.Window == nf.xw.id {
			root = i
			break
		}
	}
	if xerr != nil || root < 0 {
		return nil, "", true, err
	}
	// The root's subtree (parents come before their children), its pop-up shells included.
	in := make([]bool, len(ws))
	var sub []editres.Widget
	var subIndex []int
	for i, w := range ws {
		in[i] = i == root || w.Parent >= 0 && in[w.Parent]
		if in[i] {
			sub = append(sub, w)
			subIndex = append(subIndex, i)
		}
	}
	if xerr := cl.Geometry(sub); xerr != nil {
		return nil, "", true, err
	}
	t.mu.Lock()
	if t.xtUnreached {
		for j := range sub {
			sub[j].Reached, sub[j].Mapped = false, sub[j].HasWindow() && sub[j].Mapped
		}
	}
	t.mu.Unlock()
	sw, sh := cl.ScreenSize()
	// Shown: mapped, as its ancestors are, with a box on the screen. A skipped widget's
	// children hang from its nearest kept ancestor.
	shown := make([]bool, len(ws))
	children := map[int][]int{}
	for j, w := range sub {
		i := subIndex[j]
		ws[i] = w
		if i != root {
			children[w.Parent] = append(children[w.Parent], i)
		}
		vis := w.Mapped && w.W > 0 && w.H > 0 && w.X < sw && w.Y < sh && w.X+w.W > 0 && w.Y+w.H > 0
		shown[i] = vis && (i == root || shown[w.Parent])
	}
	res = &walkResult{}
	var kinds []xtKind
	var of []int // the widget (index in ws) of each node
	type pending struct{ ws, parent, depth int }
	queue := []pending{{root, -1, 0}}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		w := ws[p.ws]
		k := xtKindOf(w.Class)
		switch {
		case p.ws == root:
			k = xtKind{role: roleWindow}
		case w.Parent >= 0 && ws[w.Parent].Class == "XmMenuShell":
			k.role = roleMenu // a Motif pull-down or pop-up menu: a row column in a menu shell
		case (k.role == rolePushButton || k.role == roleToggleButton) && w.Parent >= 0 && ws[w.Parent].Parent >= 0 &&
			ws[ws[w.Parent].Parent].Class == "XmMenuShell":
			k.role = roleMenuItem
		}
		parent, depth := p.parent, p.depth
		if !k.skip {
			if len(res.nodes) >= maxElements {
				res.truncated = true
				continue
			}
			n := &raw{parent: p.parent, depth: p.depth, role: k.role, x: w.X, y: w.Y, w: w.W, h: w.H, hasBox: true,
				states: setState(setState(nil, stateEnabled), stateShowing)}
			if k.text != "" {
				n.states = setState(n.states, stateEditable)
			}
			res.nodes = append(res.nodes, n)
			kinds = append(kinds, k)
			of = append(of, p.ws)
			parent, depth = len(res.nodes)-1, p.depth+1
		}
		var next []int
		for _, c := range children[p.ws] {
			if shown[c] {
				next = append(next, c)
			}
		}
		if len(next) > 0 && depth > maxDepth {
			res.nodes[parent].cut = true
			continue
		}
		for _, c := range next {
			queue = append(queue, pending{c, parent, depth})
		}
	}
	if err := xtTexts(ctx, t.display, cl, ws, res, kinds, of); err != nil {
		return nil, "", true, err
	}
	// What Editres does not reach is read from the screen: the entries of a menu (objects,
	// placed by the program only), as a Qt context menu's are (screenMenu), and gadgets
	// (windowless children, as the buttons and labels of a Motif dialog), which have no box,
	// in their parent's box (xtGadgets).
	for i := range of { // the widgets' nodes, not those read from the screen
		n := res.nodes[i]
		if n.depth >= maxDepth {
			continue
		}
		var read []*raw
		var serr error
		if n.role == roleMenu {
			if !slices.ContainsFunc(children[of[i]], func(c int) bool { return !ws[c].HasWindow() && !ws[c].Reached }) {
				continue
			}
			read, serr = screenMenu(ctx, t.display, rect{n.x, n.y, n.w, n.h})
		} else {
			var gadgets []editres.Widget
			var windows []rect
			for _, c := range children[of[i]] {
				switch k := xtKindOf(ws[c].Class); {
				case ws[c].HasWindow() && shown[c]:
					windows = append(windows, rect{ws[c].X, ws[c].Y, ws[c].W, ws[c].H})
				case !ws[c].HasWindow() && !ws[c].Reached && !k.skip && k.role != roleSeparator:
					gadgets = append(gadgets, ws[c])
				}
			}
			if len(gadgets) == 0 {
				continue
			}
			read, serr = xtGadgets(ctx, t.display, rect{n.x, n.y, n.w, n.h}, windows, gadgets)
		}
		if serr != nil {
			continue
		}
		if len(res.nodes)+len(read) > maxElements {
			res.truncated = true
			break
		}
		for _, r := range read {
			r.parent, r.depth = i, n.depth+1
			res.nodes = append(res.nodes, r)
		}
	}
	nameByLabels(res.nodes)
	return res, nf.xw.title, true, nil
}

// xtGadgets reads from the screen the gadgets of the widget shown at r whose windowed
// children lie at windows: each run of words its box shows outside those windows (a line of
// text, split at a window between two words or at a gap wider than half its height) is one
// element, marked ocr. Motif names a
// gadget's label by its widget's name unless the program sets another, so a run that reads
// one of the gadgets' names (letters and figures, any case) takes that gadget's role (OK,
// Cancel and Help in a dialog are push buttons); any other run is a label.
func xtGadgets(ctx context.Context, display string, r rect, windows []rect, gadgets []editres.Widget) ([]*raw, error) {
	lines, err := screenLines(ctx, display, r)
	if err != nil {
		return nil, err
	}
	in := func(w rect, x, y int) bool { return x >= w.x && x < w.x+w.w && y >= w.y && y < w.y+w.h }
	var out []*raw
	for _, line := range lines {
		var run []ocr.Box
		flush := func() {
			if len(run) == 0 {
				return
			}
			name, box := run[0].Text, image.Rect(run[0].X, run[0].Y, run[0].X+run[0].Width, run[0].Y+run[0].Height)
			for _, b := range run[1:] {
				name += " " + b.Text
				box = box.Union(image.Rect(b.X, b.Y, b.X+b.Width, b.Y+b.Height))
			}
			role := uint32(roleLabel)
			if g := slices.IndexFunc(gadgets, func(g editres.Widget) bool { return xtKey(g.Name) == xtKey(name) }); g >= 0 {
				if k := xtKindOf(gadgets[g].Class); k.role != rolePanel {
					role = k.role
				}
			}
			out = append(out, screenNode(role, name, rect{box.Min.X, box.Min.Y, box.Dx(), box.Dy()}))
			run = nil
		}
		for _, b := range line {
			cx, cy := b.X+b.Width/2, b.Y+b.Height/2
			if slices.ContainsFunc(windows, func(w rect) bool { return in(w, cx, cy) }) {
				flush()
				continue
			}
			if len(run) > 0 {
				last := run[len(run)-1]
				// A window between the two words parts them, and so does a gap wider than half
				// the line's height: a space is about a quarter of it, the gap between two
				// gadgets side by side (the titles of a menu bar) about all of it.
				gap := b.X - (last.X + last.Width)
				if 2*gap > max(last.Height, b.Height) || slices.ContainsFunc(windows, func(w rect) bool {
					return w.x >= last.X+last.Width && w.x+w.w <= b.X && w.y < cy && cy < w.y+w.h
				}) {
					flush()
				}
			}
			run = append(run, b)
		}
		flush()
	}
	return out, nil
}

// xtKey is a label's letters and figures, in lower case: how a label compares with a widget's
// name.
func xtKey(s string) string {
	return strings.Map(func(c rune) rune {
		if unicode.IsLetter(c) || unicode.IsDigit(c) {
			return unicode.ToLower(c)
		}
		return -1
	}, s)
}

// misread says whether read, a button's label read from the screen, is its name (the label
// configured, or the widget's name, which Xaw and Motif show by default) misread: their keys
// (xtKey) differ by one letter put in, left out or changed, and the name has at least four
// (Grace's Close button read "Clase").
func misread(read, name string) bool {
	a, b := []rune(xtKey(read)), []rune(xtKey(name))
	if len(b) < 4 || slices.Equal(a, b) || len(a)-len(b) > 1 || len(b)-len(a) > 1 {
		return false
	}
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	switch {
	case len(a) == len(b):
		return slices.Equal(a[i+1:], b[i+1:])
	case len(a) > len(b):
		return slices.Equal(a[i+1:], b[i:])
	}
	return slices.Equal(a[i:], b[i+1:])
}

// xtTexts names the nodes of an Xt walk and reads their texts: through Editres, one request
// each (it reads one resource of one widget at a time), from the widgets it reaches
// (editres.Widget.Reached); a label of another is the one it was configured with (the
// program's resource database), or else its widget's name, which Xaw and Motif show by
// default. A label in Adobe's Symbol font reads as the characters it shows.
func xtTexts(ctx context.Context, display string, cl *editres.Client, ws []editres.Widget, res *walkResult, kinds []xtKind, of []int) error {
	var db *editres.DB // read once a widget needs it
	resource := func(wi int, name string) (string, bool) {
		if db == nil {
			db = cl.LoadDB(ws[0].Class)
		}
		var names, classes []string
		for i := wi; i >= 0; i = ws[i].Parent {
			names, classes = append(names, ws[i].Name), append(classes, ws[i].Class)
		}
		slices.Reverse(names)
		slices.Reverse(classes)
		return db.Lookup(append(names, name), append(classes, strings.ToUpper(name[:1])+name[1:]))
	}
	var fromScreen []*raw
	for i, n := range res.nodes {
		k, w := kinds[i], ws[of[i]]
		if k.shows && !w.Reached {
			fromScreen = append(fromScreen, n)
		}
		switch {
		case k.label != "":
			v, got := "", false
			if w.Reached {
				var err error
				if v, got, err = cl.Value(w, k.label); err != nil {
					return err
				}
			}
			if !got && k.label == "labelString" && !slices.Contains(fromScreen, n) {
				// A Motif label is an XmString, for which Xmu has no string: the screen shows it.
				fromScreen = append(fromScreen, n)
			}
			if !got {
				if v, got = resource(of[i], k.label); !got {
					v = w.Name
				}
			}
			font, _ := resource(of[i], "font")
			n.name = cut(editres.Text(v, strings.Contains(strings.ToLower(font), "symbol")))
		case k.text != "" && w.Reached:
			v, got, err := xtText(cl, ws, of[i], k.text)
			if err != nil {
				return err
			}
			if got {
				n.value = cut(editres.Text(v, false))
			} else if k.shows {
				fromScreen = append(fromScreen, n)
			}
		}
	}
	if len(fromScreen) > 0 {
		xtFromScreen(ctx, display, res.nodes[0], fromScreen)
	}
	return nil
}

// xtText reads the text of text widget wi through Editres: Motif's its value resource (name),
// Xaw's its source's string, when the source holds a string (a source of type file answers
// its file's name); got is false when there is none.
func xtText(cl *editres.Client, ws []editres.Widget, wi int, name string) (v string, got bool, err error) {
	if name == "value" {
		return cl.Value(ws[wi], name)
	}
	src := slices.IndexFunc(ws, func(c editres.Widget) bool { return c.Parent == wi && c.Class == "AsciiSrc" })
	if src < 0 || !ws[src].Reached {
		return "", false, nil
	}
	if typ, got, err := cl.Value(ws[src], "type"); err != nil || !got || typ != "string" {
		return "", false, err
	}
	return cl.Value(ws[src], name)
}

// Bounds on the reading of an Xt window from the screen (xtFromScreen): the most pixels of
// the window, the most boxes read (each costs a run of tesseract), and the least width and
// height of a box read (xfontsel's dashes between its fields, 6 px wide, read as nothing).
const (
	maxScreenWindow = 4 << 20
	maxScreenTexts  = 16
	minScreenText   = 8
)

// xtFromScreen reads the texts of nodes, of an Xt window whose root node is win, from the
// screen (analyze_screen's reading of each one's box): each takes the words read, in reading
// order, as its name (its value for a text field), and is marked ocr. Where the screen cannot
// be read (no tesseract, a window larger than maxScreenWindow, a box too small or past
// maxScreenTexts), they keep what xtTexts gave them.
func xtFromScreen(ctx context.Context, display string, win *raw, nodes []*raw) {
	if win.w*win.h > maxScreenWindow {
		return
	}
	s, err := screen.Open(display)
	if err != nil {
		return
	}
	defer s.Close()
	area := image.Rect(win.x, win.y, win.x+win.w, win.y+win.h)
	img, err := s.Capture(ctx, area)
	if err != nil {
		return
	}
	img.Rect = img.Rect.Add(area.Min)
	read := 0
	for _, n := range nodes {
		box := image.Rect(n.x, n.y, n.x+n.w, n.y+n.h).Intersect(area)
		if box.Dx() < minScreenText || box.Dy() < minScreenText || read == maxScreenTexts {
			continue
		}
		read++
		// Each box is read alone: a reading of the whole window missed xcalc's display, and
		// one of the boxes stacked on one page read its "71.5" as "71,5".
		text, err := ocr.Analyze(ctx, img.SubImage(box), ocr.Options{Fine: true, MinConfidence: ocrMinConfidence})
		if err != nil {
			return
		}
		var words []string
		for _, line := range ocr.Lines(text.Boxes) {
			for _, b := range line {
				words = append(words, b.Text)
			}
		}
		switch {
		case n.role == roleText:
			n.value = strings.Join(words, " ")
		case len(words) > 0 && n.role != roleLabel && misread(strings.Join(words, " "), n.name):
			// The button shows its name, one letter misread.
		case len(words) > 0 || n.role == roleLabel || n.role == roleToggleButton:
			n.name = strings.Join(words, " ")
		default:
			continue // a button that shows no text (an icon) keeps its widget's name
		}
		n.screen = true
	}
}

// xtFind ranks the elements of an Xt walk that match, as Find does an AT-SPI walk's.
func xtFind(res *walkResult, rf *roleFilter, needle string, useValue bool) []desktop.Match {
	var out []desktop.Candidate
	for i, n := range res.nodes {
		if !rf.match(n.role, n.uia()) {
			continue
		}
		// A match of the value ranks after every match of a name (+3, as in the AT-SPI walk's).
		score, ok := desktop.NoMatch, needle == ""
		if !ok {
			if score = desktop.MatchRank(needle, n.name); score < desktop.NoMatch {
				ok = true
			} else if v := desktop.MatchRank(needle, n.value); useValue && v < desktop.NoMatch {
				score, ok = v+3, true
			}
		}
		if !ok {
			continue
		}
		out = append(out, desktop.Candidate{M: desktop.Match{Role: n.uia(), Name: n.name, Value: n.value,
			X: n.x, Y: n.y, Width: n.w, Height: n.h, States: n.stateNames()},
			Score: score, Order: i, OnScreen: n.w > 0 && n.h > 0, Enabled: true})
	}
	return desktop.Ranked(out)
}
