//go:build windows

package win32

// Raw COM calls on UI Automation's interfaces. go-ole does the generic COM work
// (CoInitializeEx, GUIDs, VARIANT, BSTR, IUnknown); the UIA interfaces are plain
// IUnknown vtables with no IDispatch, so their methods are called by slot number with
// syscall.SyscallN. The slots are those of UIAutomationClient.h (IUnknown takes 0-2).

import (
	"errors"
	"fmt"
	"strings"
	"syscall"
	"unsafe"

	ole "github.com/go-ole/go-ole"
	"golang.org/x/sys/windows"

	"github.com/w365/w365/engine/desktop"
	"github.com/w365/w365/engine/werr"
)

var (
	clsidCUIAutomation8 = ole.NewGUID("{e22ad333-b25f-460c-83d0-0581107395c9}")
	clsidCUIAutomation  = ole.NewGUID("{ff48dba4-60ef-4201-aa87-54103eef594e}")
	iidIUIAutomation2   = ole.NewGUID("{34723aff-0c9d-49d0-9896-7ab52df8cd8a}")
	iidIUIAutomation    = ole.NewGUID("{30cbe57d-d9d0-452a-ab13-7ac5ac4825ee}")
)

// Vtable slots.
const (
	// IUIAutomation
	slotElementFromHandleBuildCache = 10
	slotGetControlViewWalker        = 14
	slotCreateCacheRequest          = 20
	// IUIAutomation2
	slotPutConnectionTimeout  = 61
	slotPutTransactionTimeout = 63
	// IUIAutomationCacheRequest
	slotAddProperty = 3
	// IUIAutomationTreeWalker
	slotGetFirstChildElementBuildCache  = 10
	slotGetNextSiblingElementBuildCache = 12
	// IUIAutomationElement
	slotGetCachedPropertyValue     = 12
	slotGetCachedControlType       = 53
	slotGetCachedName              = 55
	slotGetCachedIsEnabled         = 60
	slotGetCachedIsOffscreen       = 70
	slotGetCachedBoundingRectangle = 75
)

// UIA property ids (UIA_*PropertyId).
const (
	propBoundingRectangle = 30001
	propControlType       = 30003
	propName              = 30005
	propIsEnabled         = 30010
	propIsOffscreen       = 30022
	propValueValue        = 30045
	propRangeValueValue   = 30047
)

// HRESULTs this backend tells apart.
const (
	hrSFalse                 = 0x00000001
	hrENotImpl               = 0x80004001
	hrENoInterface           = 0x80004002
	hrClassNotReg            = 0x80040154
	hrUIAElementNotAvailable = 0x80040201
	hrUIATimeout             = 0x80131505
	hrRPCChangedMode         = 0x80010106
)

var hrNames = map[uint32]string{
	hrENotImpl: "E_NOTIMPL", hrENoInterface: "E_NOINTERFACE", hrClassNotReg: "REGDB_E_CLASSNOTREG",
	hrUIAElementNotAvailable: "UIA_E_ELEMENTNOTAVAILABLE", hrUIATimeout: "UIA_E_TIMEOUT",
	hrRPCChangedMode: "RPC_E_CHANGED_MODE",
}

// comError is a failed method call: which method, which HRESULT.
type comError struct {
	method string
	hr     uint32
}

func (e *comError) Error() string {
	if n, ok := hrNames[e.hr]; ok {
		return fmt.Sprintf("%s failed: %s (0x%08X)", e.method, n, e.hr)
	}
	return fmt.Sprintf("%s failed: HRESULT 0x%08X", e.method, e.hr)
}

// check turns a method's HRESULT into an error naming the method.
func check(method string, r uintptr) error {
	if hr := uint32(r); hr&0x80000000 != 0 {
		return &comError{method: method, hr: hr}
	}
	return nil
}

// hresultOf is the HRESULT of a comError (or of go-ole's error), 0 otherwise.
func hresultOf(err error) uint32 {
	var ce *comError
	if errors.As(err, &ce) {
		return ce.hr
	}
	var oe *ole.OleError
	if errors.As(err, &oe) {
		return uint32(oe.Code())
	}
	return 0
}

// classified maps a failed UIA call to the error a tool reports: a method or class
// the platform lacks (wine's partial UI Automation) is UNSUPPORTED with the API named;
// a UIA timeout is TIMEOUT; anything else UNAVAILABLE.
func classified(err error) error {
	switch {
	case missing(err):
		return werr.Wrap(err, werr.Unsupported, "UI Automation is incomplete on this system: %v", err).
			WithHint("use analyze_screen (OCR) instead")
	case hresultOf(err) == hrUIATimeout:
		return werr.Wrap(err, werr.Timeout, "an application did not answer UI Automation calls within %s", desktop.CallTimeout)
	}
	return werr.Wrap(err, werr.Unavailable, "UI Automation: %v", err).WithRetryable(true)
}

// missing says whether a call failed because the system lacks the method, interface or
// class (E_NOTIMPL, E_NOINTERFACE, REGDB_E_CLASSNOTREG).
func missing(err error) bool {
	switch hresultOf(err) {
	case hrENotImpl, hrENoInterface, hrClassNotReg:
		return true
	}
	return false
}

var procCoCreateInstance = windows.NewLazySystemDLL("ole32.dll").NewProc("CoCreateInstance")

// createInProc is CoCreateInstance with CLSCTX_INPROC_SERVER: the UI Automation client
// lives in uiautomationcore.dll. go-ole's CreateInstance asks CLSCTX_SERVER, which also
// looks for a local server, and under wine that search for a class no one registers
// takes about 6 s per class.
func createInProc(clsid, iid *ole.GUID, method string) (unsafe.Pointer, error) {
	var p unsafe.Pointer
	r, _, _ := procCoCreateInstance.Call(uintptr(unsafe.Pointer(clsid)), 0, ole.CLSCTX_INPROC_SERVER, uintptr(unsafe.Pointer(iid)), uintptr(unsafe.Pointer(&p)))
	if err := check(method, r); err != nil {
		return nil, err
	}
	return p, nil
}

// fn is slot i of the vtable of the COM object at p.
func fn(p unsafe.Pointer, i int) uintptr {
	vtbl := *(*unsafe.Pointer)(p)
	return *(*uintptr)(unsafe.Add(vtbl, uintptr(i)*unsafe.Sizeof(uintptr(0))))
}

// release releases a COM object (nil is fine).
func release(p unsafe.Pointer) {
	if p != nil {
		(*ole.IUnknown)(p).Release()
	}
}

// bstr takes a BSTR returned by a method: its text, and the string freed.
func bstr(p *uint16) string {
	if p == nil {
		return ""
	}
	s := ole.BstrToString(p)
	ole.SysFreeString((*int16)(unsafe.Pointer(p)))
	return s
}

// rect is a Win32 RECT.
type rect struct{ Left, Top, Right, Bottom int32 }

// Calls on IUIAutomationElement's cached properties. Each out parameter's address goes
// straight into syscall.SyscallN's argument list, the one place Go keeps it valid.

func cachedControlType(el unsafe.Pointer) (int32, error) {
	var v int32
	r, _, _ := syscall.SyscallN(fn(el, slotGetCachedControlType), uintptr(el), uintptr(unsafe.Pointer(&v)))
	return v, check("IUIAutomationElement::get_CachedControlType", r)
}

func cachedName(el unsafe.Pointer) (string, error) {
	var p *uint16
	r, _, _ := syscall.SyscallN(fn(el, slotGetCachedName), uintptr(el), uintptr(unsafe.Pointer(&p)))
	return bstr(p), check("IUIAutomationElement::get_CachedName", r)
}

func cachedBool(el unsafe.Pointer, slot int, method string) (bool, error) {
	var v int32
	r, _, _ := syscall.SyscallN(fn(el, slot), uintptr(el), uintptr(unsafe.Pointer(&v)))
	return v != 0, check(method, r)
}

func cachedRect(el unsafe.Pointer) (rect, error) {
	var v rect
	r, _, _ := syscall.SyscallN(fn(el, slotGetCachedBoundingRectangle), uintptr(el), uintptr(unsafe.Pointer(&v)))
	return v, check("IUIAutomationElement::get_CachedBoundingRectangle", r)
}

// cachedValue is the cached Value (a string) or RangeValue (a number) of el, "" when it
// supports neither.
func cachedValue(el unsafe.Pointer) (string, error) {
	for _, id := range []int{propValueValue, propRangeValueValue} {
		var v ole.VARIANT
		r, _, _ := syscall.SyscallN(fn(el, slotGetCachedPropertyValue), uintptr(el), uintptr(id), uintptr(unsafe.Pointer(&v)))
		if err := check("IUIAutomationElement::GetCachedPropertyValue", r); err != nil {
			return "", err
		}
		var s string
		switch v.VT {
		case ole.VT_BSTR:
			s = v.ToString()
		case ole.VT_R8:
			s = desktop.FormatValue(*(*float64)(unsafe.Pointer(&v.Val)))
		}
		v.Clear()
		if s != "" {
			if len(s) > desktop.MaxValueChars {
				s = strings.ToValidUTF8(s[:desktop.MaxValueChars], "") // no rune cut in half
			}
			return s, nil
		}
	}
	return "", nil
}

// walkerChild is the first child (next: the next sibling) of el in walker's view, with
// cr's properties cached; nil at the end.
func walkerStep(walker, el, cr unsafe.Pointer, next bool) (unsafe.Pointer, error) {
	slot, method := slotGetFirstChildElementBuildCache, "IUIAutomationTreeWalker::GetFirstChildElementBuildCache"
	if next {
		slot, method = slotGetNextSiblingElementBuildCache, "IUIAutomationTreeWalker::GetNextSiblingElementBuildCache"
	}
	var out unsafe.Pointer
	r, _, _ := syscall.SyscallN(fn(walker, slot), uintptr(walker), uintptr(el), uintptr(cr), uintptr(unsafe.Pointer(&out)))
	if err := check(method, r); err != nil {
		return nil, err
	}
	return out, nil
}
