//go:build windows

package win32

import (
	"context"
	"image"
	"testing"
)

// BenchmarkCapture is a full-screen capture as take_screenshot makes it (DXGI when
// Windows offers it, else GDI); BenchmarkCaptureGDI is GDI alone. Run under wine by
// TestWineCapture/Timing.
func BenchmarkCapture(b *testing.B) {
	s := newScreen()
	defer s.Close()
	for b.Loop() {
		if _, err := s.Capture(context.Background(), image.Rectangle{}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkCaptureGDI(b *testing.B) {
	ox, oy, w, h, err := virtualScreen()
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := gdiCapture(context.Background(), image.Pt(ox, oy), image.Rect(0, 0, w, h)); err != nil {
			b.Fatal(err)
		}
	}
}
