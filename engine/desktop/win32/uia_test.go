//go:build windows

package win32

// The walk over UI Automation's interfaces, tested against COM objects of the test's own
// making: wine 8 has no UI Automation client (TestWineUIA), so this is the one place the
// walk, the cached-property reads and the error mapping run. The fakes answer the vtable
// slots the backend calls and inject faults (E_NOTIMPL, a vanished element, a timeout);
// they count references, so a leak fails the test. Run under wine by TestWineUIA/Walk.

import (
	"context"
	"runtime/debug"
	"strings"
	"sync"
	"syscall"
	"testing"
	"unicode/utf8"
	"unsafe"

	ole "github.com/go-ole/go-ole"
	"golang.org/x/sys/windows"

	"github.com/w365/w365/engine/desktop"
	"github.com/w365/w365/engine/internal/winapi"
	"github.com/w365/w365/engine/werr"
)

// fakeNode is one element of a fake tree.
type fakeNode struct {
	ct         int32
	name       string
	value      string
	rng        float64 // a RangeValue when value is empty and rng != 0
	r          windows.Rect
	enabled    bool
	off        bool
	kids       []*fakeNode
	parent     *fakeNode
	fail       map[int]uint32 // vtable slot -> HRESULT it returns instead
	childReads int            // GetFirstChildElementBuildCache calls on it
}

// fakeObj is a COM object: a vtable pointer first, as COM lays it out.
type fakeObj struct {
	vtbl *[80]uintptr
	refs int32
	node *fakeNode
}

var (
	fakes     []*fakeObj // every fake object made, kept alive while COM-style code holds it
	fakesMu   sync.Mutex
	vtblOnce  sync.Once
	elemVtbl  [80]uintptr
	walkVtbl  [80]uintptr
	autoVtbl  [80]uintptr
	fakeRoots = map[uintptr]*fakeNode{} // hwnd -> tree
)

func newFake(vt *[80]uintptr, n *fakeNode) unsafe.Pointer {
	o := &fakeObj{vtbl: vt, refs: 1, node: n}
	fakesMu.Lock()
	fakes = append(fakes, o)
	fakesMu.Unlock()
	return unsafe.Pointer(o)
}

// elementCall answers an element slot: its injected fault, or f's answer.
func elementCall(slot int, this *fakeObj, f func(n *fakeNode)) uintptr {
	if hr := this.node.fail[slot]; hr != 0 {
		return uintptr(hr)
	}
	f(this.node)
	return 0
}

func boolOf(b bool) int32 {
	if b {
		return 1
	}
	return 0
}

// setupVtables makes the callbacks once (Go cannot free them): their parameters are
// pointer-sized, as syscall.NewCallback needs, and typed, so no address goes through a
// uintptr.
func setupVtables() {
	vtblOnce.Do(func() {
		notImpl := syscall.NewCallback(func(this *fakeObj) uintptr { return winapi.E_NOTIMPL })
		addRef := syscall.NewCallback(func(this *fakeObj) uintptr { this.refs++; return uintptr(this.refs) })
		rel := syscall.NewCallback(func(this *fakeObj) uintptr { this.refs--; return uintptr(this.refs) })
		for _, vt := range []*[80]uintptr{&elemVtbl, &walkVtbl, &autoVtbl} {
			for i := range vt {
				vt[i] = notImpl
			}
			vt[1], vt[2] = addRef, rel
		}
		elemVtbl[winapi.IUIAutomationElement_GetCachedControlType] = syscall.NewCallback(func(this *fakeObj, o *int32) uintptr {
			return elementCall(winapi.IUIAutomationElement_GetCachedControlType, this, func(n *fakeNode) { *o = n.ct })
		})
		elemVtbl[winapi.IUIAutomationElement_GetCachedName] = syscall.NewCallback(func(this *fakeObj, o **int16) uintptr {
			return elementCall(winapi.IUIAutomationElement_GetCachedName, this, func(n *fakeNode) { *o = ole.SysAllocString(n.name) })
		})
		elemVtbl[winapi.IUIAutomationElement_GetCachedIsEnabled] = syscall.NewCallback(func(this *fakeObj, o *int32) uintptr {
			return elementCall(winapi.IUIAutomationElement_GetCachedIsEnabled, this, func(n *fakeNode) { *o = boolOf(n.enabled) })
		})
		elemVtbl[winapi.IUIAutomationElement_GetCachedIsOffscreen] = syscall.NewCallback(func(this *fakeObj, o *int32) uintptr {
			return elementCall(winapi.IUIAutomationElement_GetCachedIsOffscreen, this, func(n *fakeNode) { *o = boolOf(n.off) })
		})
		elemVtbl[winapi.IUIAutomationElement_GetCachedBoundingRectangle] = syscall.NewCallback(func(this *fakeObj, o *windows.Rect) uintptr {
			return elementCall(winapi.IUIAutomationElement_GetCachedBoundingRectangle, this, func(n *fakeNode) { *o = n.r })
		})
		elemVtbl[winapi.IUIAutomationElement_GetCachedPropertyValue] = syscall.NewCallback(func(this *fakeObj, id uintptr, v *ole.VARIANT) uintptr {
			return elementCall(winapi.IUIAutomationElement_GetCachedPropertyValue, this, func(n *fakeNode) {
				*v = ole.VARIANT{}
				switch {
				case id == winapi.UIA_ValueValuePropertyId && n.value != "":
					v.VT, v.Val = ole.VT_BSTR, int64(uintptr(unsafe.Pointer(ole.SysAllocString(n.value))))
				case id == winapi.UIA_RangeValueValuePropertyId && n.rng != 0:
					v.VT = ole.VT_R8
					*(*float64)(unsafe.Pointer(&v.Val)) = n.rng
				}
			})
		})
		step := func(next bool) uintptr {
			slot := winapi.IUIAutomationTreeWalker_GetFirstChildElementBuildCache
			if next {
				slot = winapi.IUIAutomationTreeWalker_GetNextSiblingElementBuildCache
			}
			return syscall.NewCallback(func(this, el *fakeObj, cr uintptr, o *unsafe.Pointer) uintptr {
				n := el.node
				if hr := n.fail[-slot]; hr != 0 { // walker faults are keyed by -slot on the element
					return uintptr(hr)
				}
				var to *fakeNode
				if !next {
					n.childReads++
					if len(n.kids) > 0 {
						to = n.kids[0]
					}
				} else if p := n.parent; p != nil {
					for i, k := range p.kids {
						if k == n && i+1 < len(p.kids) {
							to = p.kids[i+1]
						}
					}
				}
				*o = nil
				if to != nil {
					*o = newFake(&elemVtbl, to)
				}
				return 0
			})
		}
		walkVtbl[winapi.IUIAutomationTreeWalker_GetFirstChildElementBuildCache] = step(false)
		walkVtbl[winapi.IUIAutomationTreeWalker_GetNextSiblingElementBuildCache] = step(true)
		autoVtbl[winapi.IUIAutomation_ElementFromHandleBuildCache] = syscall.NewCallback(func(this *fakeObj, hwnd, cr uintptr, o *unsafe.Pointer) uintptr {
			root := fakeRoots[hwnd]
			if root == nil {
				return winapi.UIA_E_ELEMENTNOTAVAILABLE
			}
			*o = newFake(&elemVtbl, root)
			return 0
		})
	})
}

// rect is a RECT from its edges.
func rect(left, top, right, bottom int32) windows.Rect {
	return windows.Rect{Left: left, Top: top, Right: right, Bottom: bottom}
}

// tree links parents and returns the root.
func tree(n *fakeNode) *fakeNode {
	for _, k := range n.kids {
		k.parent = n
		tree(k)
	}
	return n
}

// notepad is a tree like Windows' notepad: a Window with a title bar, a menu bar of two
// items, an Edit holding text, and an off-screen pane whose subtree must not show.
func notepad() *fakeNode {
	return tree(&fakeNode{ct: 50032, name: "Untitled - Notepad", enabled: true, r: rect(100, 80, 740, 560), kids: []*fakeNode{
		{ct: 50037, name: "Untitled - Notepad", enabled: true, r: rect(104, 84, 736, 110)},
		{ct: 50010, name: "Application", enabled: true, r: rect(104, 110, 736, 130), kids: []*fakeNode{
			{ct: 50011, name: "File", enabled: true, r: rect(104, 110, 140, 130)},
			{ct: 50011, name: "Edit", enabled: false, r: rect(140, 110, 176, 130)},
		}},
		{ct: 50004, name: "Text Editor", value: "hello w365", enabled: true, r: rect(104, 130, 736, 540)},
		{ct: 50015, name: "Zoom", rng: 1.5, enabled: true, r: rect(600, 540, 700, 556)},
		{ct: 50033, name: "hidden", off: true, r: rect(0, 0, 10, 10), kids: []*fakeNode{{ct: 50000, name: "ghost", enabled: true, r: rect(0, 0, 5, 5)}}},
	}})
}

func fakeUIA(t *testing.T) *UIA {
	setupVtables()
	u := newUIA()
	u.auto = newFake(&autoVtbl, nil)
	u.walker = newFake(&walkVtbl, nil)
	u.cache = newFake(&autoVtbl, nil)
	go func() {
		growStack(512)
		u.serve()
	}()
	t.Cleanup(func() { u.Close() })
	return u
}

// leaks fails the test for any fake element still referenced.
func leaks(t *testing.T) {
	t.Helper()
	fakesMu.Lock()
	defer fakesMu.Unlock()
	for _, o := range fakes {
		if o.node != nil && o.refs != 0 {
			t.Errorf("element %q has %d references left", o.node.name, o.refs)
		}
	}
}

// growStack grows the calling goroutine's stack by about n KiB. The fakes are Go
// callbacks: they run on the stack of the goroutine that made the COM call, and if that
// stack grew during a callback it would move, and the out parameter's address the
// backend passed (right for C code, which never moves a stack) would point into the old
// one. A grown stack, with the collector (which shrinks stacks) off, does not move.
//
//go:noinline
func growStack(n int) byte {
	var pad [1024]byte
	if n > 0 {
		pad[n%1024] = growStack(n - 1)
	}
	return pad[0]
}

func TestUIAWalk(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	u := fakeUIA(t)
	ctx := context.Background()
	const hwnd = 0x1001
	fakeRoots[hwnd] = notepad()
	run := func(name string, f func(t *testing.T)) {
		t.Run(name, func(t *testing.T) {
			growStack(512)
			f(t)
		})
	}

	run("Tree", func(t *testing.T) {
		nodes, truncated, err := u.walk(ctx, hwnd, 3, 500)
		if err != nil || truncated {
			t.Fatalf("walk: %v, truncated %v", err, truncated)
		}
		root := nest(nodes)
		var got []string
		for _, c := range root.Children {
			got = append(got, c.Role+":"+c.Name)
		}
		want := "TitleBar:Untitled - Notepad MenuBar:Application Edit:Text Editor Slider:Zoom"
		if root.Role != "Window" || root.NativeRole != "Window" || root.Name != "Untitled - Notepad" || strings.Join(got, " ") != want {
			t.Fatalf("tree %s %q with children %q, want the Window with %q (the off-screen pane left out)", root.Role, root.Name, got, want)
		}
		if len(nodes) != 7 || len(root.Children[1].Children) != 2 {
			t.Fatalf("%d nodes, menu bar with %d items; want 7 and 2", len(nodes), len(root.Children[1].Children))
		}
		edit, zoom := root.Children[2], root.Children[3]
		if edit.Value != "hello w365" || edit.X != 104 || edit.Y != 130 || edit.Width != 632 || edit.Height != 410 {
			t.Fatalf("the Edit is %+v, want value %q at 104,130 632x410", edit, "hello w365")
		}
		if zoom.Value != "1.5" {
			t.Fatalf("the slider's value is %q, want its RangeValue 1.5", zoom.Value)
		}
		leaks(t)
	})

	run("NoForeground", func(t *testing.T) {
		// An empty desktop: the foreground window's tree and search are empty, not
		// NOT_FOUND (TOOLS.md), as on Linux; a named window that is gone still is.
		defer func(f func() uintptr) { foregroundWindow = f }(foregroundWindow)
		foregroundWindow = func() uintptr { return 0 }
		root, meta, err := u.Tree(ctx, 0, 0)
		if err != nil || root.Role != "" || len(root.Children) != 0 || meta.Count != 0 || meta.Truncated {
			t.Fatalf("tree with no foreground window: %+v %+v %v, want an empty tree", root, meta, err)
		}
		ms, err := u.Find(ctx, desktop.FindQuery{Role: "Edit"})
		if err != nil || len(ms) != 0 {
			t.Fatalf("find with no foreground window: %+v %v, want no matches", ms, err)
		}
		if _, err := u.Find(ctx, desktop.FindQuery{Role: "Edit", WindowHandle: 0x7ffffff0}); werr.CodeOf(err) != werr.NotFound {
			t.Fatalf("find in a window that does not exist: %v, want NOT_FOUND", err)
		}
		leaks(t)
	})

	run("LongValue", func(t *testing.T) {
		fakeRoots[0x1003] = tree(&fakeNode{ct: 50032, name: "w", r: rect(0, 0, 100, 100), kids: []*fakeNode{
			{ct: 50030, name: "doc", value: "a" + strings.Repeat("é", 3000), r: rect(0, 0, 100, 100)},
		}})
		nodes, _, err := u.walk(ctx, 0x1003, 3, 500)
		if err != nil || len(nodes) != 2 {
			t.Fatalf("walk: %d nodes, %v", len(nodes), err)
		}
		if v := nodes[1].value; len(v) != desktop.MaxValueChars-1 || !utf8.ValidString(v) {
			t.Fatalf("a 6001-byte value became %d bytes (valid UTF-8: %v), want the first %d, no rune cut", len(v), utf8.ValidString(v), desktop.MaxValueChars-1)
		}
		leaks(t)
	})

	run("DepthAndBudget", func(t *testing.T) {
		menu := fakeRoots[hwnd].kids[1]
		before := menu.childReads
		nodes, truncated, err := u.walk(ctx, hwnd, 1, 500)
		if err != nil || truncated || len(nodes) != 5 || menu.childReads != before {
			t.Fatalf("depth 1: %d nodes, truncated %v, %v, the menu bar's children read %d times; want the window and its 4 children only", len(nodes), truncated, err, menu.childReads-before)
		}
		nodes, truncated, err = u.walk(ctx, hwnd, 3, 3)
		if err != nil || !truncated || len(nodes) != 3 || nodes[2].name != "Application" {
			t.Fatalf("3 elements: %d nodes, truncated %v, %v; want the first 3 breadth-first, truncated", len(nodes), truncated, err)
		}
		leaks(t)
	})

	run("ElementGone", func(t *testing.T) {
		fakeRoots[0x1002] = notepad()
		fakeRoots[0x1002].kids[0].fail = map[int]uint32{winapi.IUIAutomationElement_GetCachedName: winapi.UIA_E_ELEMENTNOTAVAILABLE}
		fakeRoots[0x1002].kids[1].fail = map[int]uint32{-winapi.IUIAutomationTreeWalker_GetFirstChildElementBuildCache: winapi.UIA_E_ELEMENTNOTAVAILABLE}
		nodes, _, err := u.walk(ctx, 0x1002, 3, 500)
		if err != nil || len(nodes) != 4 {
			t.Fatalf("with the title bar gone and the menu bar's children gone: %d nodes, %v; want the window, menu bar, Edit and slider", len(nodes), err)
		}
		if _, _, err := u.walk(ctx, 0x9999, 3, 500); werr.CodeOf(err) != werr.NotFound {
			t.Fatalf("a window whose element is gone: %v, want NOT_FOUND", err)
		}
		leaks(t)
	})

	run("Faults", func(t *testing.T) {
		for _, c := range []struct {
			slot int
			hr   uint32
			code werr.Code
			text string
		}{
			{winapi.IUIAutomationElement_GetCachedBoundingRectangle, winapi.E_NOTIMPL, werr.Unsupported, "IUIAutomationElement::get_CachedBoundingRectangle failed: E_NOTIMPL (0x80004001)"},
			{winapi.IUIAutomationElement_GetCachedPropertyValue, winapi.E_NOTIMPL, werr.Unsupported, "IUIAutomationElement::GetCachedPropertyValue failed: E_NOTIMPL"},
			{-winapi.IUIAutomationTreeWalker_GetNextSiblingElementBuildCache, winapi.UIA_E_TIMEOUT, werr.Timeout, "within 3s"},
			{winapi.IUIAutomationElement_GetCachedControlType, 0x80004005, werr.Unavailable, "get_CachedControlType failed: HRESULT 0x80004005"},
		} {
			root := notepad()
			root.kids[2].fail = map[int]uint32{c.slot: c.hr}
			fakeRoots[0x2000] = root
			nodes, _, err := u.walk(ctx, 0x2000, 3, 500)
			if werr.CodeOf(err) != c.code || !strings.Contains(err.Error(), c.text) || nodes != nil {
				t.Errorf("slot %d failing with 0x%08X: %v (%d nodes), want %s with %q and no nodes", c.slot, c.hr, err, len(nodes), c.code, c.text)
			}
			leaks(t)
		}
		cctx, cancel := context.WithCancel(ctx)
		cancel()
		if _, _, err := u.walk(cctx, hwnd, 3, 500); werr.CodeOf(err) != werr.Cancelled {
			t.Errorf("a cancelled walk: %v, want CANCELLED", err)
		}
		leaks(t)
	})

	run("Find", func(t *testing.T) {
		// Find looks its window up with IsWindow: the desktop window is one on any system.
		desk, _, _ := winapi.ProcGetDesktopWindow.Call()
		fakeRoots[desk] = notepad()
		ms, err := u.Find(ctx, desktop.FindQuery{Role: "TextBox", WindowHandle: uint32(desk)})
		if err != nil || len(ms) != 1 || ms[0].Name != "Text Editor" || ms[0].CenterX != 420 || ms[0].CenterY != 335 {
			t.Fatalf("find role TextBox: %+v, %v; want the Edit centred at 420,335", ms, err)
		}
		ms, err = u.Find(ctx, desktop.FindQuery{Text: "w365", WindowHandle: uint32(desk)})
		if err != nil || len(ms) != 1 || ms[0].Value != "hello w365" {
			t.Fatalf("find text in a value: %+v, %v", ms, err)
		}
		ms, err = u.Find(ctx, desktop.FindQuery{Name: "edit", WindowHandle: uint32(desk)})
		if err != nil || len(ms) != 2 || ms[0].Role != "MenuItem" || ms[1].Name != "Text Editor" {
			t.Fatalf("find name edit: %+v, %v; want the Edit menu item (exact, though disabled), then the Text Editor (substring)", ms, err)
		}
		if ms, err := u.Find(ctx, desktop.FindQuery{Name: "ghost", WindowHandle: uint32(desk)}); err != nil || len(ms) != 0 {
			t.Fatalf("find an element under an off-screen pane: %+v, %v; want no match", ms, err)
		}
		if _, err := u.Find(ctx, desktop.FindQuery{Role: "Sprocket"}); werr.CodeOf(err) != werr.InvalidArgument {
			t.Fatalf("an unknown role: %v, want INVALID_ARGUMENT", err)
		}
		if _, err := u.Find(ctx, desktop.FindQuery{Role: "Button", WindowHandle: 0x7ffffff0}); werr.CodeOf(err) != werr.NotFound {
			t.Fatalf("a handle that is no window: %v, want NOT_FOUND", err)
		}
		leaks(t)
	})
}
