//go:build windows

package win32

// The Windows backend: UI Automation's own tree through its COM client (IUIAutomation),
// read with one cache request per element, so that each element costs one cross-process
// call however many properties it has.

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"unsafe"

	ole "github.com/go-ole/go-ole"

	"github.com/w365/w365/engine/desktop"
	"github.com/w365/w365/engine/internal/winapi"
	"github.com/w365/w365/engine/werr"
)

// UIA is a UI Automation client. COM state is per thread, so one goroutine locked to
// its OS thread owns every COM object and runs every call; Tree and Find hand it work.
type UIA struct {
	jobs chan func()
	quit chan struct{}
	once sync.Once

	// Owned by the COM thread.
	auto   unsafe.Pointer // IUIAutomation (IUIAutomation2 where the system has it)
	walker unsafe.Pointer // IUIAutomationTreeWalker: the control view
	cache  unsafe.Pointer // IUIAutomationCacheRequest for the properties a Node needs
}

var _ interface {
	Tree(context.Context, int, int) (desktop.Node, desktop.Meta, error)
	Find(context.Context, desktop.FindQuery) ([]desktop.Match, error)
	Close() error
} = (*UIA)(nil)

// OpenUIA starts the COM thread and creates the UI Automation client. A system without
// UI Automation's COM classes (wine 8) gets UNSUPPORTED naming the class it lacks.
func OpenUIA(ctx context.Context) (*UIA, error) {
	u := newUIA()
	ready := make(chan error, 1)
	go u.loop(ready)
	select {
	case err := <-ready:
		if err != nil {
			return nil, err
		}
		return u, nil
	case <-ctx.Done():
		u.Close()
		return nil, werr.Done(ctx, "accessibility query")
	}
}

func newUIA() *UIA {
	return &UIA{jobs: make(chan func()), quit: make(chan struct{})}
}

// loop is the COM thread: it initialises COM (multithreaded apartment, as UI Automation
// clients should), creates the client, runs jobs until Close, then releases it all.
func (u *UIA) loop(ready chan<- error) {
	// Never unlocked: the thread holds COM state and ends with the goroutine.
	runtime.LockOSThread()
	if err := ole.CoInitializeEx(0, ole.COINIT_MULTITHREADED); err != nil && hresultOf(err) != winapi.S_FALSE {
		ready <- werr.Wrap(err, werr.Unavailable, "CoInitializeEx(COINIT_MULTITHREADED) failed: %v", err)
		return
	}
	defer ole.CoUninitialize()
	if err := u.create(); err != nil {
		u.releaseAll()
		ready <- err
		return
	}
	defer u.releaseAll()
	ready <- nil
	u.serve()
}

// serve runs jobs until Close.
func (u *UIA) serve() {
	for {
		select {
		case f := <-u.jobs:
			f()
		case <-u.quit:
			return
		}
	}
}

// create makes the client (CUIAutomation8 for IUIAutomation2's timeouts, else the
// Windows 7 CUIAutomation), the control-view walker and the cache request.
func (u *UIA) create() error {
	auto, err := winapi.UIAErrors.CreateInProc(&winapi.CLSID_CUIAutomation8, &winapi.IID_IUIAutomation2, "CoCreateInstance(CLSID_CUIAutomation8)")
	if err == nil {
		u.auto = auto
		// Bound every transaction as the Linux backend bounds every D-Bus call.
		ms := uintptr(desktop.CallTimeout.Milliseconds())
		for _, c := range []struct {
			slot   int
			method string
		}{{winapi.IUIAutomation2_PutConnectionTimeout, "IUIAutomation2::put_ConnectionTimeout"}, {winapi.IUIAutomation2_PutTransactionTimeout, "IUIAutomation2::put_TransactionTimeout"}} {
			r, _, _ := syscall.SyscallN(winapi.Method(u.auto, c.slot), uintptr(u.auto), ms)
			if err := winapi.UIAErrors.Check(c.method, r); err != nil {
				return classified(err)
			}
		}
	} else {
		auto, err2 := winapi.UIAErrors.CreateInProc(&winapi.CLSID_CUIAutomation, &winapi.IID_IUIAutomation, "CoCreateInstance(CLSID_CUIAutomation)")
		if err2 != nil {
			code := werr.Unavailable
			if missing(err2) {
				code = werr.Unsupported
			}
			return werr.Wrap(err2, code, "UI Automation's COM client is not available: CoCreateInstance(CLSID_CUIAutomation8) failed with %s and CoCreateInstance(CLSID_CUIAutomation) with %s",
				hrText(err), hrText(err2)).
				WithHint("the system registers no UI Automation client class (wine 8's uiautomationcore.dll has no DllGetClassObject); use analyze_screen (OCR) instead")
		}
		u.auto = auto
	}
	r, _, _ := syscall.SyscallN(winapi.Method(u.auto, winapi.IUIAutomation_GetControlViewWalker), uintptr(u.auto), uintptr(unsafe.Pointer(&u.walker)))
	if err := winapi.UIAErrors.Check("IUIAutomation::get_ControlViewWalker", r); err != nil {
		return classified(err)
	}
	r, _, _ = syscall.SyscallN(winapi.Method(u.auto, winapi.IUIAutomation_CreateCacheRequest), uintptr(u.auto), uintptr(unsafe.Pointer(&u.cache)))
	if err := winapi.UIAErrors.Check("IUIAutomation::CreateCacheRequest", r); err != nil {
		return classified(err)
	}
	for _, id := range []int{winapi.UIA_NamePropertyId, winapi.UIA_ControlTypePropertyId, winapi.UIA_BoundingRectanglePropertyId,
		winapi.UIA_IsEnabledPropertyId, winapi.UIA_IsOffscreenPropertyId, winapi.UIA_ValueValuePropertyId, winapi.UIA_RangeValueValuePropertyId} {
		r, _, _ := syscall.SyscallN(winapi.Method(u.cache, winapi.IUIAutomationCacheRequest_AddProperty), uintptr(u.cache), uintptr(id))
		if err := winapi.UIAErrors.Check("IUIAutomationCacheRequest::AddProperty", r); err != nil {
			return classified(err)
		}
	}
	return nil
}

// hrText names the HRESULT of a failed call: "REGDB_E_CLASSNOTREG (0x80040154)".
func hrText(err error) string { return winapi.UIAErrors.Text(hresultOf(err)) }

func (u *UIA) releaseAll() {
	winapi.Release(u.cache)
	winapi.Release(u.walker)
	winapi.Release(u.auto)
	u.cache, u.walker, u.auto = nil, nil, nil
}

// Close ends the COM thread once its current job is done.
func (u *UIA) Close() error {
	u.once.Do(func() { close(u.quit) })
	return nil
}

// do runs f on the COM thread. When ctx ends first the caller gets its error at once;
// f sees the same ctx and stops at its next call.
func (u *UIA) do(ctx context.Context, f func() error) error {
	if ctx.Err() != nil { // else the select below may still pick the job
		return werr.Done(ctx, "accessibility query")
	}
	res := make(chan error, 1)
	select {
	case u.jobs <- func() { res <- f() }:
	case <-u.quit:
		return werr.New(werr.Unavailable, "the UI Automation client is closed")
	case <-ctx.Done():
		return werr.Done(ctx, "accessibility query")
	}
	select {
	case err := <-res:
		return err
	case <-ctx.Done():
		return werr.Done(ctx, "accessibility query")
	}
}

// element is one element as its cache request read it.
type element struct {
	parent       int
	role, native string
	name, value  string
	x, y, w, h   int
	enabled      bool
}

// read reads el's cached properties; ok is false for an element that is off screen
// (left out, with its subtree, as the Linux backend leaves out what is not SHOWING).
func read(el unsafe.Pointer) (e element, ok bool, err error) {
	off, err := cachedBool(el, winapi.IUIAutomationElement_GetCachedIsOffscreen, "IUIAutomationElement::get_CachedIsOffscreen")
	if err != nil || off {
		return e, false, err
	}
	ct, err := cachedControlType(el)
	if err != nil {
		return e, false, err
	}
	e.role, e.native = desktop.ControlTypeName(ct)
	if e.name, err = cachedName(el); err != nil {
		return e, false, err
	}
	if e.enabled, err = cachedBool(el, winapi.IUIAutomationElement_GetCachedIsEnabled, "IUIAutomationElement::get_CachedIsEnabled"); err != nil {
		return e, false, err
	}
	r, err := cachedRect(el)
	if err != nil {
		return e, false, err
	}
	e.x, e.y, e.w, e.h = int(r.Left), int(r.Top), int(r.Right-r.Left), int(r.Bottom-r.Top)
	if e.value, err = cachedValue(el); err != nil {
		return e, false, err
	}
	return e, true, nil
}

// gone says whether a call failed because its element vanished meanwhile.
func gone(err error) bool { return hresultOf(err) == winapi.UIA_E_ELEMENTNOTAVAILABLE }

// item is a kept element whose children are still to be read.
type item struct {
	el  unsafe.Pointer
	idx int
}

// walk reads hwnd's control-view subtree breadth-first down to maxDepth (the window
// is depth 0), keeping at most maxElements on-screen elements. It runs on the COM thread.
func (u *UIA) walk(ctx context.Context, hwnd uintptr, maxDepth, maxElements int) (nodes []element, truncated bool, err error) {
	var root unsafe.Pointer
	r, _, _ := syscall.SyscallN(winapi.Method(u.auto, winapi.IUIAutomation_ElementFromHandleBuildCache), uintptr(u.auto), hwnd, uintptr(u.cache), uintptr(unsafe.Pointer(&root)))
	if err := winapi.UIAErrors.Check("IUIAutomation::ElementFromHandleBuildCache", r); err != nil {
		if gone(err) {
			return nil, false, werr.New(werr.NotFound, "window 0x%x is gone", hwnd)
		}
		return nil, false, classified(err)
	}
	if root == nil {
		return nil, false, werr.New(werr.NotFound, "window 0x%x has no UI Automation element", hwnd)
	}
	e, ok, err := read(root)
	if err != nil || !ok {
		winapi.Release(root)
		if err != nil && !gone(err) {
			return nil, false, classified(err)
		}
		return nil, false, nil
	}
	e.parent = -1
	nodes = []element{e}
	level := []item{{root, 0}}
	for depth := 1; len(level) > 0; depth++ {
		var next []item
		for i, it := range level {
			if err == nil && !truncated && depth <= maxDepth {
				truncated, err = u.children(ctx, it, depth < maxDepth, maxElements, &nodes, &next)
			}
			winapi.Release(it.el)
			level[i].el = nil
		}
		if err != nil {
			for _, it := range next {
				winapi.Release(it.el)
			}
			var we *werr.Error
			if errors.As(err, &we) {
				return nil, false, err
			}
			return nil, false, classified(err)
		}
		level = next
	}
	return nodes, truncated, nil
}

// children appends the on-screen children of it to nodes, and to next those
// whose own children are to be read (descend). It stops at maxElements (truncated).
// A child that vanishes while it is read is left out; so are the rest of the children of
// a parent that vanishes.
func (u *UIA) children(ctx context.Context, it item, descend bool, maxElements int, nodes *[]element, next *[]item) (truncated bool, err error) {
	child, err := walkerStep(u.walker, it.el, u.cache, false)
	for child != nil && err == nil {
		if ctx.Err() != nil {
			winapi.Release(child)
			return false, werr.Done(ctx, "accessibility query")
		}
		e, ok, rerr := read(child)
		if rerr != nil && !gone(rerr) {
			winapi.Release(child)
			return false, rerr
		}
		keep := ok && rerr == nil
		if keep && len(*nodes) == maxElements {
			winapi.Release(child)
			return true, nil
		}
		if keep {
			e.parent = it.idx
			*nodes = append(*nodes, e)
		}
		sib, serr := walkerStep(u.walker, child, u.cache, true)
		if keep && descend {
			*next = append(*next, item{child, len(*nodes) - 1})
		} else {
			winapi.Release(child)
		}
		child, err = sib, serr
	}
	if gone(err) {
		return false, nil
	}
	return false, err
}

// errNoForeground is the answer for the foreground window when no window has the focus
// (an empty desktop): the tree and the search of the foreground window are then empty
// results, not errors, as on Linux (TOOLS.md: empty is an empty result).
var errNoForeground = werr.New(werr.NotFound, "no foreground window").WithHint("focus a window first (activate_window)")

// foregroundWindow is GetForegroundWindow; a test replaces it to have no window focused.
var foregroundWindow = func() uintptr {
	h, _, _ := winapi.ProcGetForegroundWindow.Call()
	return h
}

// target is the window a call reads: hwnd, or the foreground window when 0.
func target(hwnd uint32) (uintptr, error) {
	if hwnd == 0 {
		h := foregroundWindow()
		if h == 0 {
			return 0, errNoForeground
		}
		return h, nil
	}
	if ok, _, _ := winapi.ProcIsWindow.Call(uintptr(hwnd)); ok == 0 {
		return 0, werr.New(werr.NotFound, "window %d does not exist", hwnd).WithHint("take a handle from list_windows")
	}
	return uintptr(hwnd), nil
}

// Tree returns the foreground window's control-view tree down to maxDepth levels below
// the window with at most maxElements nodes, cut breadth-first; the limits are the
// Linux backend's (policy defaults and maxima).
func (u *UIA) Tree(ctx context.Context, maxDepth, maxElements int) (desktop.Node, desktop.Meta, error) {
	maxDepth, maxElements, err := desktop.TreeLimits(maxDepth, maxElements)
	if err != nil {
		return desktop.Node{}, desktop.Meta{}, err
	}
	if ctx.Err() != nil {
		return desktop.Node{}, desktop.Meta{}, werr.Done(ctx, "accessibility query")
	}
	hwnd, err := target(0)
	if err == errNoForeground {
		return desktop.Node{}, desktop.Meta{}, nil
	}
	if err != nil {
		return desktop.Node{}, desktop.Meta{}, err
	}
	var nodes []element
	var truncated bool
	err = u.do(ctx, func() (err error) {
		nodes, truncated, err = u.walk(ctx, hwnd, maxDepth, maxElements)
		return err
	})
	if err != nil {
		return desktop.Node{}, desktop.Meta{}, err
	}
	if len(nodes) == 0 {
		return desktop.Node{}, desktop.Meta{}, werr.New(werr.NotFound, "the foreground window has no visible accessible elements")
	}
	return nest(nodes), desktop.Meta{Truncated: truncated, Count: len(nodes)}, nil
}

// nest nests a breadth-first element list (parents first) into a Node tree.
func nest(nodes []element) desktop.Node {
	return desktop.Assemble(len(nodes), func(i int) int { return nodes[i].parent }, func(i int) desktop.Node {
		n := nodes[i]
		return desktop.Node{Role: n.role, NativeRole: n.native, Name: n.name, Value: n.value, X: n.x, Y: n.y, Width: n.w, Height: n.h}
	})
}

// Find searches the foreground window (or q.WindowHandle, an HWND) as the Linux backend
// does: the same walk limits, the same matching and the same ranking.
func (u *UIA) Find(ctx context.Context, q desktop.FindQuery) ([]desktop.Match, error) {
	needle, useValue, err := desktop.NeedleOf(q)
	if err != nil {
		return nil, err
	}
	role := ""
	if strings.TrimSpace(q.Role) != "" {
		var ok bool
		if role, ok = desktop.UIARole(q.Role); !ok {
			return nil, desktop.UnknownRole(q.Role)
		}
	}
	if ctx.Err() != nil {
		return nil, werr.Done(ctx, "accessibility query")
	}
	hwnd, err := target(q.WindowHandle)
	if err == errNoForeground {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var nodes []element
	err = u.do(ctx, func() (err error) {
		nodes, _, err = u.walk(ctx, hwnd, desktop.FindMaxDepth, desktop.FindMaxElements)
		return err
	})
	if err != nil {
		return nil, err
	}
	var cs []desktop.Candidate
	for i, n := range nodes {
		if role != "" && n.role != role {
			continue
		}
		score := desktop.NoMatch
		if needle != "" {
			score = desktop.MatchRank(needle, n.name)
			if score == desktop.NoMatch && useValue {
				if s := desktop.MatchRank(needle, n.value); s < desktop.NoMatch {
					score = s + 3
				}
			}
			if score == desktop.NoMatch {
				continue
			}
		}
		cs = append(cs, desktop.Candidate{M: desktop.Match{Role: n.role, Name: n.name, Value: n.value, X: n.x, Y: n.y, Width: n.w, Height: n.h},
			Score: score, Order: i, OnScreen: n.w > 0 && n.h > 0, Enabled: n.enabled})
	}
	return desktop.Ranked(cs), nil
}

// Applications are the processes owning a visible top-level window: UI Automation reads
// every window, so an application has a tree as soon as it shows one.
func (u *UIA) Applications(ctx context.Context) ([]int, error) {
	if err := werr.Done(ctx, "accessibility query"); err != nil {
		return nil, err
	}
	ws, err := windowsAPI{}.List(ctx)
	if err != nil {
		return nil, err
	}
	pids := []int{}
	for _, w := range ws {
		if w.PID != 0 {
			pids = append(pids, w.PID)
		}
	}
	return pids, nil
}
