//go:build linux

package screen

import (
	"context"
	"image"
	"testing"

	"github.com/w365/w365/engine/desktop"
	"github.com/w365/w365/engine/desktop/x11/x11test"
)

// benchCapture captures the whole screen of a fresh virtual desktop b.N times, through
// MIT-SHM or not, and encodes each capture as PNG when png is set.
func benchCapture(b *testing.B, shm, png bool) {
	d := x11test.Start(b)
	s, err := Open(d.Name)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	s.hasSHM = s.hasSHM && shm
	ctx := context.Background()
	for b.Loop() {
		img, err := s.Capture(ctx, image.Rectangle{})
		if err != nil {
			b.Fatal(err)
		}
		if png {
			if _, err := desktop.EncodePNG(img); err != nil {
				b.Fatal(err)
			}
		}
	}
}

func BenchmarkCaptureFull(b *testing.B)      { benchCapture(b, true, false) }
func BenchmarkCaptureFullNoSHM(b *testing.B) { benchCapture(b, false, false) }
func BenchmarkCaptureFullPNG(b *testing.B)   { benchCapture(b, true, true) }

func BenchmarkConvertFull(b *testing.B) {
	src := make([]byte, 1920*1080*4)
	dst := make([]byte, len(src))
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		bgraToRGBA(dst, src)
	}
}
