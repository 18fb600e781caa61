//go:build windows

package winapi

import "golang.org/x/sys/windows"

var (
	Gdi32 = windows.NewLazySystemDLL("gdi32.dll")

	ProcCreateCompatibleDC     = Gdi32.NewProc("CreateCompatibleDC")
	ProcCreateCompatibleBitmap = Gdi32.NewProc("CreateCompatibleBitmap")
	ProcSelectObject           = Gdi32.NewProc("SelectObject")
	ProcBitBlt                 = Gdi32.NewProc("BitBlt")
	ProcGetDIBits              = Gdi32.NewProc("GetDIBits")
	ProcDeleteObject           = Gdi32.NewProc("DeleteObject")
	ProcDeleteDC               = Gdi32.NewProc("DeleteDC")
)

// BitBlt raster operations and GetDIBits' colour table usage.
const (
	SRCCOPY        = 0x00CC0020
	CAPTUREBLT     = 0x40000000
	DIB_RGB_COLORS = 0
)

// BITMAPINFOHEADER describes a device-independent bitmap (GetDIBits).
type BITMAPINFOHEADER struct {
	Size          uint32
	Width         int32
	Height        int32
	Planes        uint16
	BitCount      uint16
	Compression   uint32
	SizeImage     uint32
	XPelsPerMeter int32
	YPelsPerMeter int32
	ClrUsed       uint32
	ClrImportant  uint32
}
