//go:build windows

package win32

import (
	"context"
	"errors"
	"image"
	"log/slog"
	"sync"
	"unsafe"

	"github.com/w365/w365/engine/internal/winapi"
	"github.com/w365/w365/engine/werr"
)

// screen captures the virtual screen through DXGI desktop duplication when Windows
// offers it, else with GDI (BitBlt from the screen's device context). DXGI sees
// full-screen Direct3D and video surfaces that GDI may show black; wine does not
// implement it (IDXGIOutput1::DuplicateOutput returns E_NOTIMPL).
type screen struct {
	mu  sync.Mutex
	dup *duplication // nil: GDI
	// lost says the duplication went away with DXGI_ERROR_ACCESS_LOST (a mode change,
	// the secure desktop): the next capture makes it again, GDI meanwhile.
	lost bool
}

// newScreen tries desktop duplication and logs, once a process, why GDI is used.
func newScreen() *screen {
	s := &screen{}
	ox, oy, w, h, err := virtualScreen()
	if err == nil {
		s.dup, err = openDuplication(image.Rect(ox, oy, ox+w, oy+h))
	}
	if err != nil {
		fallbackOnce.Do(func() { slog.Warn("screen capture: DXGI desktop duplication unavailable, using GDI", "err", err) })
	}
	return s
}

var fallbackOnce sync.Once

func (s *screen) Size() (w, h int, err error) {
	_, _, w, h, err = virtualScreen()
	return w, h, err
}

func (s *screen) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.dup != nil {
		s.dup.close()
		s.dup = nil
	}
	return nil
}

// Capture copies r (screen pixels from the virtual screen's top-left corner; the empty
// rectangle means all of it).
func (s *screen) Capture(ctx context.Context, r image.Rectangle) (*image.RGBA, error) {
	if err := werr.Done(ctx, "capture"); err != nil {
		return nil, err
	}
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
	if img := s.duplicate(image.Rect(ox, oy, ox+w, oy+h), r); img != nil {
		return img, nil
	}
	return gdiCapture(ctx, image.Pt(ox, oy), r)
}

// duplicate captures r through desktop duplication; nil when GDI must do it. A
// duplication made for another virtual screen, or lost, is made again.
func (s *screen) duplicate(virtual, r image.Rectangle) *image.RGBA {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.dup != nil && s.dup.virtual != virtual {
		s.dup.close()
		s.dup, s.lost = nil, true
	}
	if s.dup == nil && s.lost {
		d, err := openDuplication(virtual)
		if err != nil {
			return nil // still lost (the secure desktop is up): GDI this time
		}
		s.dup, s.lost = d, false
	}
	if s.dup == nil {
		return nil
	}
	img, err := s.dup.capture(r)
	if err == nil {
		return img
	}
	s.dup.close()
	s.dup = nil
	if errors.Is(err, errAccessLost) {
		s.lost = true
	} else {
		slog.Warn("screen capture: DXGI desktop duplication failed, using GDI from now on", "err", err)
	}
	return nil
}

// gdiCapture copies r of the virtual screen, whose top-left corner is at origin, out
// of the screen's device context.
func gdiCapture(ctx context.Context, origin image.Point, r image.Rectangle) (*image.RGBA, error) {
	ox, oy := origin.X, origin.Y
	defer lockThread()()
	sdc, _, _ := winapi.ProcGetDC.Call(0)
	if sdc == 0 {
		return nil, werr.New(werr.Unavailable, "GetDC(NULL) failed: no access to the screen")
	}
	defer winapi.ProcReleaseDC.Call(0, sdc)
	mdc, _, _ := winapi.ProcCreateCompatibleDC.Call(sdc)
	if mdc == 0 {
		return nil, werr.New(werr.Unavailable, "CreateCompatibleDC failed")
	}
	defer winapi.ProcDeleteDC.Call(mdc)
	bw, bh := r.Dx(), r.Dy()
	bmp, _, _ := winapi.ProcCreateCompatibleBitmap.Call(sdc, uintptr(bw), uintptr(bh))
	if bmp == 0 {
		return nil, werr.New(werr.Unavailable, "CreateCompatibleBitmap(%dx%d) failed", bw, bh)
	}
	defer winapi.ProcDeleteObject.Call(bmp)
	old, _, _ := winapi.ProcSelectObject.Call(mdc, bmp)
	ok, _, e := winapi.ProcBitBlt.Call(mdc, 0, 0, uintptr(bw), uintptr(bh), sdc, uintptr(ox+r.Min.X), uintptr(oy+r.Min.Y), winapi.SRCCOPY|winapi.CAPTUREBLT)
	winapi.ProcSelectObject.Call(mdc, old)
	if ok == 0 {
		return nil, werr.New(werr.Unavailable, "BitBlt from the screen failed: %v", e)
	}
	img := image.NewRGBA(image.Rect(0, 0, bw, bh))
	hdr := winapi.BITMAPINFOHEADER{Width: int32(bw), Height: -int32(bh), Planes: 1, BitCount: 32, Compression: biRGB}
	hdr.Size = uint32(unsafe.Sizeof(hdr))
	// A BITMAPINFO with no colour table: the header is all of it for 32 bits per pixel.
	n, _, _ := winapi.ProcGetDIBits.Call(mdc, bmp, 0, uintptr(bh), uintptr(unsafe.Pointer(&img.Pix[0])), uintptr(unsafe.Pointer(&hdr)), winapi.DIB_RGB_COLORS)
	if int(n) != bh {
		return nil, werr.New(werr.Unavailable, "GetDIBits copied %d of %d rows", n, bh)
	}
	bgraToRGBA(img.Pix, img.Pix) // GDI gives BGRX
	return img, nil
}

// bgraToRGBA converts BGRA or BGRX pixels (GDI's and DXGI's order) to opaque RGBA; dst
// may be src.
func bgraToRGBA(dst, src []byte) {
	for i := 0; i+3 < len(src); i += 4 {
		b, g, r := src[i], src[i+1], src[i+2]
		dst[i], dst[i+1], dst[i+2], dst[i+3] = r, g, b, 0xff
	}
}
