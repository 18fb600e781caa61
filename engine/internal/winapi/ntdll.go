//go:build windows

package winapi

import (
	"strings"
	"unsafe"

	"golang.org/x/sys/windows"
)

// wine's own exports of ntdll: present under wine only, which is how a program tells
// that it runs there. The Windows version comes from windows.RtlGetVersion.
var (
	Ntdll = windows.NewLazySystemDLL("ntdll.dll")

	ProcWineGetVersion     = Ntdll.NewProc("wine_get_version")
	ProcWineGetHostVersion = Ntdll.NewProc("wine_get_host_version")
)

// WineVersion is wine's version and host system ("Linux 6.1.0"), or "" outside wine.
func WineVersion() (version, host string) {
	if ProcWineGetVersion.Find() != nil {
		return "", ""
	}
	r, _, _ := ProcWineGetVersion.Call()
	version = cString(r)
	if ProcWineGetHostVersion.Find() == nil {
		var sys, rel *byte
		ProcWineGetHostVersion.Call(uintptr(unsafe.Pointer(&sys)), uintptr(unsafe.Pointer(&rel)))
		host = strings.TrimSpace(windows.BytePtrToString(sys) + " " + windows.BytePtrToString(rel))
	}
	return version, host
}

// cString reads the NUL-terminated string at the address a DLL function returned
// (wine's static version string).
func cString(p uintptr) string {
	return windows.BytePtrToString(*(**byte)(unsafe.Pointer(&p)))
}
