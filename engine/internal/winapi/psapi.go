//go:build windows

package winapi

import "golang.org/x/sys/windows"

var (
	Psapi = windows.NewLazySystemDLL("psapi.dll")

	ProcGetProcessMemoryInfo = Psapi.NewProc("GetProcessMemoryInfo")
)

// PROCESS_MEMORY_COUNTERS is what GetProcessMemoryInfo fills in (psapi.h).
type PROCESS_MEMORY_COUNTERS struct {
	Size                       uint32
	PageFaultCount             uint32
	PeakWorkingSetSize         uintptr
	WorkingSetSize             uintptr
	QuotaPeakPagedPoolUsage    uintptr
	QuotaPagedPoolUsage        uintptr
	QuotaPeakNonPagedPoolUsage uintptr
	QuotaNonPagedPoolUsage     uintptr
	PagefileUsage              uintptr
	PeakPagefileUsage          uintptr
}
