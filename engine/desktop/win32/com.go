//go:build windows

package win32

import (
	"fmt"
	"syscall"
	"unsafe"

	"golang.org/x/sys/windows"
)

// COM interfaces are called through their method tables with syscall.SyscallN, not
// go-ole: go-ole brings IUnknown, IDispatch and VARIANT for automation objects, and has
// no definitions of DXGI or Direct3D 11, whose interfaces are plain IUnknown ones
// (no IDispatch); with go-ole the method tables would still be written here by index.

// com is a COM interface pointer.
type com uintptr

// method is the address of the i-th entry of the object's method table (0-2 are
// IUnknown's QueryInterface, AddRef, Release).
func (o com) method(i int) uintptr {
	vtbl := *(*uintptr)(sysPtr(uintptr(o)))
	return *(*uintptr)(sysPtr(vtbl + uintptr(i)*unsafe.Sizeof(uintptr(0))))
}

func (o com) release() {
	if o != 0 {
		syscall.SyscallN(o.method(2), uintptr(o))
	}
}

// queryInterface asks the object for another of its interfaces; call names the
// interface pair for the error.
func (o com) queryInterface(iid *windows.GUID, call string) (com, error) {
	var out com
	r, _, _ := syscall.SyscallN(o.method(0), uintptr(o), uintptr(unsafe.Pointer(iid)), uintptr(unsafe.Pointer(&out)))
	return out, hresult(call, r)
}

// HRESULTs the capture code tells apart or names.
const (
	hrNotImpl              = 0x80004001
	hrNoInterface          = 0x80004002
	hrFail                 = 0x80004005
	hrAccessDenied         = 0x80070005
	hrInvalidArg           = 0x80070057
	dxgiErrorInvalidCall   = 0x887A0001
	dxgiErrorNotFound      = 0x887A0002
	dxgiErrorUnsupported   = 0x887A0004
	dxgiErrorDeviceRemoved = 0x887A0005
	dxgiErrorNotAvailable  = 0x887A0022 // DXGI_ERROR_NOT_CURRENTLY_AVAILABLE
	dxgiErrorAccessLost    = 0x887A0026
	dxgiErrorWaitTimeout   = 0x887A0027
	dxgiErrorSessionGone   = 0x887A0028 // DXGI_ERROR_SESSION_DISCONNECTED
	dxgiErrorAccessDenied  = 0x887A002B
)

var hresultNames = map[uint32]string{
	hrNotImpl: "E_NOTIMPL", hrNoInterface: "E_NOINTERFACE", hrFail: "E_FAIL", hrAccessDenied: "E_ACCESSDENIED",
	hrInvalidArg: "E_INVALIDARG", dxgiErrorInvalidCall: "DXGI_ERROR_INVALID_CALL", dxgiErrorNotFound: "DXGI_ERROR_NOT_FOUND",
	dxgiErrorUnsupported: "DXGI_ERROR_UNSUPPORTED", dxgiErrorDeviceRemoved: "DXGI_ERROR_DEVICE_REMOVED",
	dxgiErrorNotAvailable: "DXGI_ERROR_NOT_CURRENTLY_AVAILABLE", dxgiErrorAccessLost: "DXGI_ERROR_ACCESS_LOST",
	dxgiErrorWaitTimeout: "DXGI_ERROR_WAIT_TIMEOUT", dxgiErrorSessionGone: "DXGI_ERROR_SESSION_DISCONNECTED",
	dxgiErrorAccessDenied: "DXGI_ERROR_ACCESS_DENIED",
}

// hrError is a failed COM call: which one, and its HRESULT.
type hrError struct {
	Call string
	HR   uint32
}

func (e *hrError) Error() string {
	name := hresultNames[e.HR]
	if name == "" {
		name = syscall.Errno(e.HR).Error()
	}
	return fmt.Sprintf("%s returned HRESULT 0x%08X (%s)", e.Call, e.HR, name)
}

// hresult is nil for a success HRESULT (S_OK, S_FALSE...), else the hrError of call.
func hresult(call string, r uintptr) error {
	if int32(uint32(r)) >= 0 {
		return nil
	}
	return &hrError{Call: call, HR: uint32(r)}
}
