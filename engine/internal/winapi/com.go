//go:build windows

package winapi

// COM interfaces are called through their method tables with syscall.SyscallN: DXGI,
// Direct3D 11 and UI Automation's interfaces are plain IUnknown ones (no IDispatch), and
// go-ole, which brings IUnknown, IDispatch and VARIANT for automation objects, has no
// definitions of them; their methods are called by slot number (IUnknown takes 0-2).
// A caller passes each out parameter's address straight into syscall.SyscallN's
// argument list, the one place Go keeps such an address valid.

import (
	"errors"
	"fmt"
	"syscall"
	"unsafe"

	"golang.org/x/sys/windows"
)

var (
	Ole32 = windows.NewLazySystemDLL("ole32.dll")

	ProcCoCreateInstance = Ole32.NewProc("CoCreateInstance")
)

// CLSCTX_INPROC_SERVER asks CoCreateInstance for a class served by a DLL in this process.
const CLSCTX_INPROC_SERVER = 0x1

// Method is the address of slot i of the method table of the COM object at p.
func Method(p unsafe.Pointer, i int) uintptr {
	vtbl := *(*unsafe.Pointer)(p)
	return *(*uintptr)(unsafe.Add(vtbl, uintptr(i)*unsafe.Sizeof(uintptr(0))))
}

// Release releases the COM object at p (IUnknown::Release); nil is fine.
func Release(p unsafe.Pointer) {
	if p != nil {
		syscall.SyscallN(Method(p, 2), uintptr(p))
	}
}

// QueryInterface asks the object at p for its interface iid (IUnknown::QueryInterface);
// call names the interface pair in the error, which reads as e words it.
func (e *Errors) QueryInterface(p unsafe.Pointer, iid *windows.GUID, call string) (unsafe.Pointer, error) {
	var out unsafe.Pointer
	r, _, _ := syscall.SyscallN(Method(p, 0), uintptr(p), uintptr(unsafe.Pointer(iid)), uintptr(unsafe.Pointer(&out)))
	return out, e.Check(call, r)
}

// CreateInProc is CoCreateInstance with CLSCTX_INPROC_SERVER: the class's DLL is loaded
// into this process. (go-ole's CreateInstance asks CLSCTX_SERVER, which also looks for a
// local server, and under wine that search for a class no one registers takes about 6 s
// per class.) COM must be initialised on the calling thread; call names the class in the
// error, which reads as e words it.
func (e *Errors) CreateInProc(clsid, iid *windows.GUID, call string) (unsafe.Pointer, error) {
	var p unsafe.Pointer
	r, _, _ := ProcCoCreateInstance.Call(uintptr(unsafe.Pointer(clsid)), 0, CLSCTX_INPROC_SERVER, uintptr(unsafe.Pointer(iid)), uintptr(unsafe.Pointer(&p)))
	if err := e.Check(call, r); err != nil {
		return nil, err
	}
	return p, nil
}

// HRESULTs that callers tell apart or name.
const (
	S_FALSE                            = 0x00000001
	E_NOTIMPL                          = 0x80004001
	E_NOINTERFACE                      = 0x80004002
	E_FAIL                             = 0x80004005
	E_ACCESSDENIED                     = 0x80070005
	E_INVALIDARG                       = 0x80070057
	REGDB_E_CLASSNOTREG                = 0x80040154
	RPC_E_CHANGED_MODE                 = 0x80010106
	UIA_E_ELEMENTNOTAVAILABLE          = 0x80040201
	UIA_E_TIMEOUT                      = 0x80131505
	DXGI_ERROR_INVALID_CALL            = 0x887A0001
	DXGI_ERROR_NOT_FOUND               = 0x887A0002
	DXGI_ERROR_UNSUPPORTED             = 0x887A0004
	DXGI_ERROR_DEVICE_REMOVED          = 0x887A0005
	DXGI_ERROR_NOT_CURRENTLY_AVAILABLE = 0x887A0022
	DXGI_ERROR_ACCESS_LOST             = 0x887A0026
	DXGI_ERROR_WAIT_TIMEOUT            = 0x887A0027
	DXGI_ERROR_SESSION_DISCONNECTED    = 0x887A0028
	DXGI_ERROR_ACCESS_DENIED           = 0x887A002B
)

// hresultNames are the SDK names of the failure HRESULTs above.
var hresultNames = map[uint32]string{
	E_NOTIMPL: "E_NOTIMPL", E_NOINTERFACE: "E_NOINTERFACE", E_FAIL: "E_FAIL", E_ACCESSDENIED: "E_ACCESSDENIED",
	E_INVALIDARG: "E_INVALIDARG", REGDB_E_CLASSNOTREG: "REGDB_E_CLASSNOTREG", RPC_E_CHANGED_MODE: "RPC_E_CHANGED_MODE",
	UIA_E_ELEMENTNOTAVAILABLE: "UIA_E_ELEMENTNOTAVAILABLE", UIA_E_TIMEOUT: "UIA_E_TIMEOUT",
	DXGI_ERROR_INVALID_CALL: "DXGI_ERROR_INVALID_CALL", DXGI_ERROR_NOT_FOUND: "DXGI_ERROR_NOT_FOUND",
	DXGI_ERROR_UNSUPPORTED: "DXGI_ERROR_UNSUPPORTED", DXGI_ERROR_DEVICE_REMOVED: "DXGI_ERROR_DEVICE_REMOVED",
	DXGI_ERROR_NOT_CURRENTLY_AVAILABLE: "DXGI_ERROR_NOT_CURRENTLY_AVAILABLE", DXGI_ERROR_ACCESS_LOST: "DXGI_ERROR_ACCESS_LOST",
	DXGI_ERROR_WAIT_TIMEOUT: "DXGI_ERROR_WAIT_TIMEOUT", DXGI_ERROR_SESSION_DISCONNECTED: "DXGI_ERROR_SESSION_DISCONNECTED",
	DXGI_ERROR_ACCESS_DENIED: "DXGI_ERROR_ACCESS_DENIED",
}

// Errors is how the failed calls of one COM API read: which HRESULTs its messages name,
// and the sentence. Each API keeps the wording its readers rely on (the host log for
// DXGI capture, the tools' error text for UI Automation); the error is an *Error either
// way, and what a failure means (UNSUPPORTED, TIMEOUT...) is the caller's to decide.
type Errors struct {
	named  map[uint32]bool
	verb   string // "returned" or "failed:"
	system bool   // a code without a name reads as Windows' message text for it
}

var (
	// DXGIErrors reads "CreateDXGIFactory1 returned HRESULT 0x887A0004
	// (DXGI_ERROR_UNSUPPORTED)", a code it does not name as Windows' text for it
	// ("HRESULT 0x80004005 (Unspecified error)").
	DXGIErrors = newErrors("returned", true, E_NOTIMPL, E_NOINTERFACE, E_FAIL, E_ACCESSDENIED, E_INVALIDARG,
		DXGI_ERROR_INVALID_CALL, DXGI_ERROR_NOT_FOUND, DXGI_ERROR_UNSUPPORTED, DXGI_ERROR_DEVICE_REMOVED,
		DXGI_ERROR_NOT_CURRENTLY_AVAILABLE, DXGI_ERROR_ACCESS_LOST, DXGI_ERROR_WAIT_TIMEOUT,
		DXGI_ERROR_SESSION_DISCONNECTED, DXGI_ERROR_ACCESS_DENIED)
	// UIAErrors reads "IUIAutomationElement::get_CachedName failed: E_NOTIMPL
	// (0x80004001)", naming only the codes UI Automation's callers tell apart; any
	// other reads "... failed: HRESULT 0x80004005".
	UIAErrors = newErrors("failed:", false, E_NOTIMPL, E_NOINTERFACE, REGDB_E_CLASSNOTREG,
		UIA_E_ELEMENTNOTAVAILABLE, UIA_E_TIMEOUT, RPC_E_CHANGED_MODE)
)

func newErrors(verb string, system bool, named ...uint32) *Errors {
	e := &Errors{named: map[uint32]bool{}, verb: verb, system: system}
	for _, hr := range named {
		e.named[hr] = true
	}
	return e
}

// Check is nil for a success HRESULT (S_OK, S_FALSE...: the high bit clear), else the
// *Error of call.
func (e *Errors) Check(call string, r uintptr) error {
	if hr := uint32(r); hr&0x80000000 != 0 {
		return &Error{Call: call, HR: hr, errors: e}
	}
	return nil
}

// Text is hr as e words it: "E_NOTIMPL (0x80004001)" or "HRESULT 0x80004005" for
// UIAErrors, "HRESULT 0x80004001 (E_NOTIMPL)" for DXGIErrors.
func (e *Errors) Text(hr uint32) string {
	name := ""
	if e.named[hr] {
		name = hresultNames[hr]
	}
	if e.system {
		if name == "" {
			name = syscall.Errno(hr).Error()
		}
		return fmt.Sprintf("HRESULT 0x%08X (%s)", hr, name)
	}
	if name != "" {
		return fmt.Sprintf("%s (0x%08X)", name, hr)
	}
	return fmt.Sprintf("HRESULT 0x%08X", hr)
}

// Error is a failed COM call: which one (an interface and method, a function), and its
// HRESULT.
type Error struct {
	Call   string
	HR     uint32
	errors *Errors
}

func (e *Error) Error() string {
	return e.Call + " " + e.errors.verb + " " + e.errors.Text(e.HR)
}

// HResultOf is the HRESULT of an *Error in err's chain, 0 when there is none.
func HResultOf(err error) uint32 {
	var e *Error
	if errors.As(err, &e) {
		return e.HR
	}
	return 0
}
