//go:build windows

package winapi

import "golang.org/x/sys/windows"

var (
	User32 = windows.NewLazySystemDLL("user32.dll")

	// The screen, the cursor and input.
	ProcGetSystemMetrics = User32.NewProc("GetSystemMetrics")
	ProcSendInput        = User32.NewProc("SendInput")
	ProcSetCursorPos     = User32.NewProc("SetCursorPos")
	ProcGetCursorPos     = User32.NewProc("GetCursorPos")
	ProcVkKeyScanW       = User32.NewProc("VkKeyScanW")
	ProcMapVirtualKeyW   = User32.NewProc("MapVirtualKeyW")
	ProcGetDC            = User32.NewProc("GetDC")
	ProcReleaseDC        = User32.NewProc("ReleaseDC")

	// Windows and messages.
	ProcGetForegroundWindow      = User32.NewProc("GetForegroundWindow")
	ProcWindowFromPoint          = User32.NewProc("WindowFromPoint")
	ProcGetAncestor              = User32.NewProc("GetAncestor")
	ProcGetDesktopWindow         = User32.NewProc("GetDesktopWindow")
	ProcIsWindow                 = User32.NewProc("IsWindow")
	ProcGetWindowTextW           = User32.NewProc("GetWindowTextW")
	ProcGetWindowTextLengthW     = User32.NewProc("GetWindowTextLengthW")
	ProcGetWindowRect            = User32.NewProc("GetWindowRect")
	ProcGetClientRect            = User32.NewProc("GetClientRect")
	ProcClientToScreen           = User32.NewProc("ClientToScreen")
	ProcGetWindow                = User32.NewProc("GetWindow")
	ProcGetWindowLongW           = User32.NewProc("GetWindowLongW")
	ProcIsIconic                 = User32.NewProc("IsIconic")
	ProcIsZoomed                 = User32.NewProc("IsZoomed")
	ProcShowWindow               = User32.NewProc("ShowWindow")
	ProcSetForegroundWindow      = User32.NewProc("SetForegroundWindow")
	ProcBringWindowToTop         = User32.NewProc("BringWindowToTop")
	ProcAttachThreadInput        = User32.NewProc("AttachThreadInput")
	ProcSetWindowPos             = User32.NewProc("SetWindowPos")
	ProcPostMessageW             = User32.NewProc("PostMessageW")
	ProcAllowSetForegroundWindow = User32.NewProc("AllowSetForegroundWindow")
	ProcCreateWindowExW          = User32.NewProc("CreateWindowExW")
	ProcDestroyWindow            = User32.NewProc("DestroyWindow")
	ProcGetMessageW              = User32.NewProc("GetMessageW")
	ProcDispatchMessageW         = User32.NewProc("DispatchMessageW")

	// The clipboard.
	ProcOpenClipboard              = User32.NewProc("OpenClipboard")
	ProcCloseClipboard             = User32.NewProc("CloseClipboard")
	ProcEmptyClipboard             = User32.NewProc("EmptyClipboard")
	ProcGetClipboardData           = User32.NewProc("GetClipboardData")
	ProcSetClipboardData           = User32.NewProc("SetClipboardData")
	ProcIsClipboardFormatAvailable = User32.NewProc("IsClipboardFormatAvailable")
	ProcGetOpenClipboardWindow     = User32.NewProc("GetOpenClipboardWindow")
	ProcGetClipboardOwner          = User32.NewProc("GetClipboardOwner")
	ProcCountClipboardFormats      = User32.NewProc("CountClipboardFormats")
	ProcEnumClipboardFormats       = User32.NewProc("EnumClipboardFormats")
	ProcGetClipboardFormatNameW    = User32.NewProc("GetClipboardFormatNameW")
	ProcRegisterClipboardFormatW   = User32.NewProc("RegisterClipboardFormatW")
)

// GetSystemMetrics indices: the virtual screen (all monitors).
const (
	SM_XVIRTUALSCREEN  = 76
	SM_YVIRTUALSCREEN  = 77
	SM_CXVIRTUALSCREEN = 78
	SM_CYVIRTUALSCREEN = 79
)

// SendInput's INPUT types and flags.
const (
	INPUT_MOUSE    = 0
	INPUT_KEYBOARD = 1

	MOUSEEVENTF_LEFTDOWN   = 0x0002
	MOUSEEVENTF_LEFTUP     = 0x0004
	MOUSEEVENTF_RIGHTDOWN  = 0x0008
	MOUSEEVENTF_RIGHTUP    = 0x0010
	MOUSEEVENTF_MIDDLEDOWN = 0x0020
	MOUSEEVENTF_MIDDLEUP   = 0x0040
	MOUSEEVENTF_XDOWN      = 0x0080
	MOUSEEVENTF_XUP        = 0x0100
	MOUSEEVENTF_WHEEL      = 0x0800
	MOUSEEVENTF_HWHEEL     = 0x1000
	XBUTTON1               = 1 // backward
	XBUTTON2               = 2 // forward
	WHEEL_DELTA            = 120

	KEYEVENTF_EXTENDEDKEY = 0x0001
	KEYEVENTF_KEYUP       = 0x0002
	KEYEVENTF_UNICODE     = 0x0004
	KEYEVENTF_SCANCODE    = 0x0008
)

// MOUSEINPUT and KEYBDINPUT are SendInput's events; INPUT is their envelope on 64-bit
// Windows (a DWORD type, padding, the union whose largest member is MOUSEINPUT).
type MOUSEINPUT struct {
	Dx, Dy                 int32
	MouseData, Flags, Time uint32
	ExtraInfo              uintptr
}

type KEYBDINPUT struct {
	Vk, Scan    uint16
	Flags, Time uint32
	ExtraInfo   uintptr
}

type INPUT struct {
	Type  uint32
	_     uint32
	Mouse MOUSEINPUT // or a KEYBDINPUT in its place
}

// Window queries and changes.
const (
	GW_OWNER         = 4
	GWL_EXSTYLE      = -20
	WS_EX_TOOLWINDOW = 0x00000080
	SW_MAXIMIZE      = 3
	SW_MINIMIZE      = 6
	SW_RESTORE       = 9
	SWP_NOSIZE       = 0x0001
	SWP_NOMOVE       = 0x0002
	SWP_NOZORDER     = 0x0004
	SWP_NOACTIVATE   = 0x0010
	WM_CLOSE         = 0x0010
	WM_APP           = 0x8000
	ASFW_ANY         = ^uintptr(0)
	HWND_MESSAGE     = ^uintptr(2) // (HWND)-3: the parent of message-only windows
)

// MSG is a window message as GetMessageW fills it in.
type MSG struct {
	Hwnd    uintptr
	Message uint32
	WParam  uintptr
	LParam  uintptr
	Time    uint32
	Pt      struct{ X, Y int32 }
	Private uint32
}

// Standard clipboard formats.
const (
	CF_DIB         = 8
	CF_UNICODETEXT = 13
	CF_DIBV5       = 17
)
