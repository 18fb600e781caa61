//go:build windows

package winapi

import "golang.org/x/sys/windows"

var (
	Advapi32 = windows.NewLazySystemDLL("advapi32.dll")

	ProcCreateRestrictedToken = Advapi32.NewProc("CreateRestrictedToken")
)

// CreateRestrictedToken flags.
const DISABLE_MAX_PRIVILEGE = 0x1
