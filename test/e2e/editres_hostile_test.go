//go:build linux

package e2e_test

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"

	"github.com/w365/w365/test/e2e"
)

// hostileXt is an X client of a session that answers the Editres protocol as an Xt
// program's shell would (docs/accessibility.md#xt-and-motif), with the widgets tree gives,
// every one shown at box, and label as every widget's label.
type hostileXt struct {
	c     *xgb.Conn
	win   xproto.Window
	atoms map[string]xproto.Atom
	tree  func(win xproto.Window) []byte
	box   [4]uint16
	label string
}

func startHostileXt(t *testing.T, xenv []string, title string, tree func(xproto.Window) []byte) *hostileXt {
	t.Helper()
	display := ""
	for _, kv := range xenv {
		k, v, _ := strings.Cut(kv, "=")
		if k == "DISPLAY" {
			display = v
		}
		t.Setenv(k, v)
	}
	c, err := xgb.NewConnDisplay(display)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	x := &hostileXt{c: c, atoms: map[string]xproto.Atom{}, tree: tree, box: [4]uint16{110, 110, 60, 24}, label: "Go"}
	for _, n := range []string{"Editres", "EditresCommand", "EditresProtocol", "EditresClientVal", "_HOSTILE_CMD"} {
		r, err := xproto.InternAtom(c, false, uint16(len(n)), n).Reply()
		if err != nil {
			t.Fatal(err)
		}
		x.atoms[n] = r.Atom
	}
	root := xproto.Setup(c).DefaultScreen(c).Root
	x.win, _ = xproto.NewWindowId(c)
	if err := xproto.CreateWindowChecked(c, 0, x.win, root, 100, 100, 400, 300, 0, xproto.WindowClassInputOutput, 0,
		xproto.CwBackPixel|xproto.CwEventMask, []uint32{0xffffff, xproto.EventMaskPropertyChange}).Check(); err != nil {
		t.Fatal(err)
	}
	xproto.ChangeProperty(c, xproto.PropModeReplace, x.win, xproto.AtomWmName, xproto.AtomString, 8, uint32(len(title)), []byte(title))
	xproto.MapWindow(c, x.win)
	go x.serve()
	return x
}

// serve answers each request: it fetches the command, takes the selection over, and gives
// its reply when the reader converts the selection back.
func (x *hostileXt) serve() {
	var reply []byte
	var sel xproto.Atom
	for {
		ev, err := x.c.WaitForEvent()
		if ev == nil && err == nil {
			return
		}
		switch e := ev.(type) {
		case xproto.ClientMessageEvent:
			if e.Type != x.atoms["Editres"] {
				continue
			}
			sel = xproto.Atom(e.Data.Data32[1])
			xproto.ConvertSelection(x.c, x.win, sel, x.atoms["EditresCommand"], x.atoms["_HOSTILE_CMD"], xproto.TimeCurrentTime)
		case xproto.SelectionNotifyEvent:
			r, err := xproto.GetProperty(x.c, true, x.win, x.atoms["_HOSTILE_CMD"], xproto.GetPropertyTypeAny, 0, 1<<20).Reply()
			if err != nil || len(r.Value) < 6 {
				continue
			}
			reply = x.answer(r.Value[0], r.Value[1], r.Value[6:])
			xproto.SetSelectionOwner(x.c, x.win, sel, xproto.TimeCurrentTime)
		case xproto.SelectionRequestEvent:
			xproto.ChangeProperty(x.c, xproto.PropModeReplace, e.Requestor, e.Property, x.atoms["EditresProtocol"], 8, uint32(len(reply)), reply)
			n := xproto.SelectionNotifyEvent{Time: e.Time, Requestor: e.Requestor, Selection: e.Selection, Target: e.Target, Property: e.Property}
			xproto.SendEvent(x.c, false, e.Requestor, 0, string(n.Bytes()))
		}
	}
}

// answer is the reply to command op of request body.
func (x *hostileXt) answer(ident, op byte, body []byte) []byte {
	var b []byte
	switch op {
	case 0: // SendWidgetTree
		b = x.tree(x.win)
	case 3: // GetGeometry: every widget asked about is shown at box
		n := int(binary.BigEndian.Uint16(body))
		b = binary.BigEndian.AppendUint16(b, uint16(n))
		body = body[2:]
		for range n {
			l := int(binary.BigEndian.Uint16(body))
			b = append(b, body[:2+4*l]...)
			body = body[2+4*l:]
			b = append(b, 0, 1)
			for _, v := range x.box {
				b = binary.BigEndian.AppendUint16(b, v)
			}
			b = binary.BigEndian.AppendUint16(b, 0)
		}
	case 5: // GetValues
		b = binary.BigEndian.AppendUint16(b, 1)
		b = binary.BigEndian.AppendUint16(b, uint16(len(x.label)))
		b = append(b, x.label...)
	}
	out := []byte{ident, 0, 0, 0, 0, 0}
	binary.BigEndian.PutUint32(out[2:], uint32(len(b)))
	return append(out, b...)
}

// xtWidget appends one widget of a SendWidgetTree reply.
func xtWidget(b []byte, path []uint32, name, class string, window uint32) []byte {
	b = binary.BigEndian.AppendUint16(b, uint16(len(path)))
	for _, id := range path {
		b = binary.BigEndian.AppendUint32(b, id)
	}
	b = binary.BigEndian.AppendUint16(b, uint16(len(name)))
	b = append(b, name...)
	b = binary.BigEndian.AppendUint16(b, uint16(len(class)))
	b = append(b, class...)
	return binary.BigEndian.AppendUint32(b, window)
}

// TestXtHostileResourceDatabaseIsBounded: a program of the session sets the display's
// RESOURCE_MANAGER (as xrdb does) to 10,000 specifications of 40 components, mostly loose
// "?", each matching no widget but only after every component was tried at every level, and
// shows a window that answers Editres with buttons 250 widgets deep (under Xaw's pane grips,
// which the tree leaves out). Each button's font is looked up in that database. Before, one
// lookup tried every way a specification matches, with a copy of the levels' precedence at
// each step (about 100 s for 100 specifications): the tree call did not end within a minute
// and its host ran on at a full core. A walk's lookups are bounded
// (docs/accessibility.md#xt-and-motif): the tree comes back with the buttons named.
func TestXtHostileResourceDatabaseIsBounded(t *testing.T) {
	// Not parallel: it sets DISPLAY and XAUTHORITY for the whole test process (t.Setenv).
	h := e2e.New(t)
	xenv := h.XEnv()
	const depth, buttons = 250, 20
	tree := func(win xproto.Window) []byte {
		var b []byte
		b = binary.BigEndian.AppendUint16(b, 1+depth+buttons)
		path := []uint32{1}
		b = xtWidget(b, path, "hostile", "Hostile", uint32(win))
		for i := range depth {
			path = append(path, uint32(2+i))
			b = xtWidget(b, path, "grip", "Grip", 2)
		}
		for i := range buttons {
			b = xtWidget(b, append(path[:len(path):len(path)], uint32(1000+i)), "button", "Command", 2)
		}
		return b
	}
	x := startHostileXt(t, xenv, "Hostile Xt", tree)
	var db strings.Builder
	for i := range 10000 {
		for c := range 38 {
			if c < 14 && i>>c&1 == 1 {
				db.WriteString(".?")
			} else {
				db.WriteString("*?")
			}
		}
		db.WriteString("*nomatch*?: x\n")
	}
	root := xproto.Setup(x.c).DefaultScreen(x.c).Root
	// In parts: a request is at most 256 KiB without BIG-REQUESTS.
	mode := byte(xproto.PropModeReplace)
	for rest := []byte(db.String()); len(rest) > 0; mode = xproto.PropModeAppend {
		part := rest[:min(len(rest), 128<<10)]
		rest = rest[len(part):]
		if err := xproto.ChangePropertyChecked(x.c, mode, root, xproto.AtomResourceManager, xproto.AtomString, 8,
			uint32(len(part)), part).Check(); err != nil {
			t.Fatal(err)
		}
	}
	for i := 0; h.Run("activate-window", "Hostile Xt").Code != 0; i++ {
		if i == 100 {
			t.Fatal("the hostile window was not shown")
		}
		time.Sleep(100 * time.Millisecond)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, h.Bin, "get-accessibility-tree", "--json")
	cmd.Env = h.Env
	start := time.Now()
	out, err := cmd.Output()
	took := time.Since(start)
	if ctx.Err() != nil {
		t.Fatalf("the tree of a window of a hostile resource database did not come back within %s", took.Round(time.Second))
	}
	if err != nil {
		t.Fatalf("get-accessibility-tree: %v %s", err, out)
	}
	if n := strings.Count(string(out), `"name":"Go"`); n != buttons {
		t.Errorf("%d buttons named Go in the tree (%s), want %d: %.2000s", n, took.Round(time.Millisecond), buttons, out)
	}
	var v any
	if err := json.Unmarshal(out, &v); err != nil {
		t.Fatalf("tree: %v", err)
	}
	t.Logf("tree in %s", took.Round(time.Millisecond))
}
