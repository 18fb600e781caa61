//go:build linux

package screen

import (
	"context"
	"image"
	"testing"

	"github.com/w365/w365/engine/desktop"
	"github.com/w365/w365/engine/desktop/x11/x11test"
)

func BenchmarkCaptureFull(b *testing.B) {
	d := x11test.Start(b)
	s, err := Open(d.Name)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	for b.Loop() {
		if _, err := s.Capture(ctx, image.Rectangle{}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkCaptureFullNoSHM(b *testing.B) {
	d := x11test.Start(b)
	s, err := Open(d.Name)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	s.hasSHM = false
	ctx := context.Background()
	for b.Loop() {
		if _, err := s.Capture(ctx, image.Rectangle{}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkCaptureFullPNG(b *testing.B) {
	d := x11test.Start(b)
	s, err := Open(d.Name)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	for b.Loop() {
		img, err := s.Capture(ctx, image.Rectangle{})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := desktop.EncodePNG(img); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkConvertFull(b *testing.B) {
	src := make([]byte, 1920*1080*4)
	dst := make([]byte, len(src))
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		bgraToRGBA(dst, src)
	}
}
