//go:build windows

package win32

import (
	"context"
	"image"
	"unsafe"

	"github.com/w365/w365/engine/werr"
)

var (
	procGetDC                  = user32.NewProc("GetDC")
	procReleaseDC              = user32.NewProc("ReleaseDC")
	procCreateCompatibleDC     = gdi32.NewProc("CreateCompatibleDC")
	procCreateCompatibleBitmap = gdi32.NewProc("CreateCompatibleBitmap")
	procSelectObject           = gdi32.NewProc("SelectObject")
	procBitBlt                 = gdi32.NewProc("BitBlt")
	procGetDIBits              = gdi32.NewProc("GetDIBits")
	procDeleteObject           = gdi32.NewProc("DeleteObject")
	procDeleteDC               = gdi32.NewProc("DeleteDC")
)

const (
	srcCopy     = 0x00CC0020
	captureBlt  = 0x40000000
	biRGB       = 0
	dibRGBColor = 0
)

type bitmapInfoHeader struct {
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

// screen captures the virtual screen with GDI. DXGI desktop duplication, faster on
// real Windows and the only way to see some full-screen video, is not used yet.
type screen struct{}

func (screen) Size() (w, h int, err error) {
	_, _, w, h, err = virtualScreen()
	return w, h, err
}

func (screen) Close() error { return nil }

// Capture copies r (screen pixels from the virtual screen's top-left corner; the empty
// rectangle means all of it) out of the screen's device context.
func (screen) Capture(ctx context.Context, r image.Rectangle) (*image.RGBA, error) {
	ox, oy, w, h, err := virtualScreen()
	if err != nil {
		return nil, err
	}
	full := image.Rect(0, 0, w, h)
	if r.Empty() {
		r = full
	}
	if !r.In(full) {
		return nil, werr.Invalid("region %v is outside the %dx%d screen", r, w, h)
	}
	defer lockThread()()
	sdc, _, _ := procGetDC.Call(0)
	if sdc == 0 {
		return nil, werr.New(werr.Unavailable, "GetDC(NULL) failed: no access to the screen")
	}
	defer procReleaseDC.Call(0, sdc)
	mdc, _, _ := procCreateCompatibleDC.Call(sdc)
	if mdc == 0 {
		return nil, werr.New(werr.Unavailable, "CreateCompatibleDC failed")
	}
	defer procDeleteDC.Call(mdc)
	bw, bh := r.Dx(), r.Dy()
	bmp, _, _ := procCreateCompatibleBitmap.Call(sdc, uintptr(bw), uintptr(bh))
	if bmp == 0 {
		return nil, werr.New(werr.Unavailable, "CreateCompatibleBitmap(%dx%d) failed", bw, bh)
	}
	defer procDeleteObject.Call(bmp)
	old, _, _ := procSelectObject.Call(mdc, bmp)
	ok, _, e := procBitBlt.Call(mdc, 0, 0, uintptr(bw), uintptr(bh), sdc, uintptr(ox+r.Min.X), uintptr(oy+r.Min.Y), srcCopy|captureBlt)
	procSelectObject.Call(mdc, old)
	if ok == 0 {
		return nil, werr.New(werr.Unavailable, "BitBlt from the screen failed: %v", e)
	}
	img := image.NewRGBA(image.Rect(0, 0, bw, bh))
	hdr := bitmapInfoHeader{Width: int32(bw), Height: -int32(bh), Planes: 1, BitCount: 32, Compression: biRGB}
	hdr.Size = uint32(unsafe.Sizeof(hdr))
	// A BITMAPINFO with no colour table: the header is all of it for 32 bits per pixel.
	n, _, _ := procGetDIBits.Call(mdc, bmp, 0, uintptr(bh), uintptr(unsafe.Pointer(&img.Pix[0])), uintptr(unsafe.Pointer(&hdr)), dibRGBColor)
	if int(n) != bh {
		return nil, werr.New(werr.Unavailable, "GetDIBits copied %d of %d rows", n, bh)
	}
	// GDI gives BGRX; the image is RGBA.
	p := img.Pix
	for i := 0; i+3 < len(p); i += 4 {
		p[i], p[i+2], p[i+3] = p[i+2], p[i], 0xff
	}
	return img, ctx.Err()
}
