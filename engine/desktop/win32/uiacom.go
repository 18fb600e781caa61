//go:build windows

package win32

// Raw COM calls on UI Automation's interfaces: plain IUnknown vtables with no
// IDispatch, whose methods are called by slot number through winapi's COM helper (the
// slots, GUIDs and property ids are winapi's, from UIAutomationClient.h). go-ole does
// the rest of the COM work: CoInitializeEx, VARIANT and BSTR.

import (
	"errors"
	"strings"
	"syscall"
	"unsafe"

	ole "github.com/go-ole/go-ole"
	"golang.org/x/sys/windows"

	"github.com/w365/w365/engine/desktop"
	"github.com/w365/w365/engine/internal/winapi"
	"github.com/w365/w365/engine/werr"
)

// hresultOf is the HRESULT of a failed call (a *winapi.Error, or go-ole's error), 0
// otherwise.
func hresultOf(err error) uint32 {
	if hr := winapi.HResultOf(err); hr != 0 {
		return hr
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
	case hresultOf(err) == winapi.UIA_E_TIMEOUT:
		return werr.Wrap(err, werr.Timeout, "an application did not answer UI Automation calls within %s", desktop.CallTimeout)
	}
	return werr.Wrap(err, werr.Unavailable, "UI Automation: %v", err).WithRetryable(true)
}

// missing says whether a call failed because the system lacks the method, interface or
// class (E_NOTIMPL, E_NOINTERFACE, REGDB_E_CLASSNOTREG).
func missing(err error) bool {
	switch hresultOf(err) {
	case winapi.E_NOTIMPL, winapi.E_NOINTERFACE, winapi.REGDB_E_CLASSNOTREG:
		return true
	}
	return false
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

// Calls on IUIAutomationElement's cached properties. Each out parameter's address goes
// straight into syscall.SyscallN's argument list, the one place Go keeps it valid.

func cachedControlType(el unsafe.Pointer) (int32, error) {
	var v int32
	r, _, _ := syscall.SyscallN(winapi.Method(el, winapi.IUIAutomationElement_GetCachedControlType), uintptr(el), uintptr(unsafe.Pointer(&v)))
	return v, winapi.UIAErrors.Check("IUIAutomationElement::get_CachedControlType", r)
}

func cachedName(el unsafe.Pointer) (string, error) {
	var p *uint16
	r, _, _ := syscall.SyscallN(winapi.Method(el, winapi.IUIAutomationElement_GetCachedName), uintptr(el), uintptr(unsafe.Pointer(&p)))
	return bstr(p), winapi.UIAErrors.Check("IUIAutomationElement::get_CachedName", r)
}

func cachedBool(el unsafe.Pointer, slot int, method string) (bool, error) {
	var v int32
	r, _, _ := syscall.SyscallN(winapi.Method(el, slot), uintptr(el), uintptr(unsafe.Pointer(&v)))
	return v != 0, winapi.UIAErrors.Check(method, r)
}

func cachedRect(el unsafe.Pointer) (windows.Rect, error) {
	var v windows.Rect
	r, _, _ := syscall.SyscallN(winapi.Method(el, winapi.IUIAutomationElement_GetCachedBoundingRectangle), uintptr(el), uintptr(unsafe.Pointer(&v)))
	return v, winapi.UIAErrors.Check("IUIAutomationElement::get_CachedBoundingRectangle", r)
}

// cachedValue is the cached Value (a string) or RangeValue (a number) of el, "" when it
// supports neither.
func cachedValue(el unsafe.Pointer) (string, error) {
	for _, id := range []int{winapi.UIA_ValueValuePropertyId, winapi.UIA_RangeValueValuePropertyId} {
		var v ole.VARIANT
		r, _, _ := syscall.SyscallN(winapi.Method(el, winapi.IUIAutomationElement_GetCachedPropertyValue), uintptr(el), uintptr(id), uintptr(unsafe.Pointer(&v)))
		if err := winapi.UIAErrors.Check("IUIAutomationElement::GetCachedPropertyValue", r); err != nil {
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
	slot, method := winapi.IUIAutomationTreeWalker_GetFirstChildElementBuildCache, "IUIAutomationTreeWalker::GetFirstChildElementBuildCache"
	if next {
		slot, method = winapi.IUIAutomationTreeWalker_GetNextSiblingElementBuildCache, "IUIAutomationTreeWalker::GetNextSiblingElementBuildCache"
	}
	var out unsafe.Pointer
	r, _, _ := syscall.SyscallN(winapi.Method(walker, slot), uintptr(walker), uintptr(el), uintptr(cr), uintptr(unsafe.Pointer(&out)))
	if err := winapi.UIAErrors.Check(method, r); err != nil {
		return nil, err
	}
	return out, nil
}
