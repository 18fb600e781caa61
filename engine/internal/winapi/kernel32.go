//go:build windows

package winapi

import "golang.org/x/sys/windows"

var (
	Kernel32 = windows.NewLazySystemDLL("kernel32.dll")

	ProcGlobalAlloc        = Kernel32.NewProc("GlobalAlloc")
	ProcGlobalFree         = Kernel32.NewProc("GlobalFree")
	ProcGlobalLock         = Kernel32.NewProc("GlobalLock")
	ProcGlobalUnlock       = Kernel32.NewProc("GlobalUnlock")
	ProcGlobalSize         = Kernel32.NewProc("GlobalSize")
	ProcGetCurrentThreadId = Kernel32.NewProc("GetCurrentThreadId")
)

// GlobalAlloc flags.
const GMEM_MOVEABLE = 0x0002

// Job object completion-port messages (winnt.h).
const (
	JOB_OBJECT_MSG_PROCESS_MEMORY_LIMIT = 9
	JOB_OBJECT_MSG_JOB_MEMORY_LIMIT     = 10
)
