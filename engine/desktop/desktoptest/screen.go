package desktoptest

import (
	"context"
	"image"
	"testing"

	"github.com/w365/w365/engine/desktop"
	"github.com/w365/w365/engine/werr"
)

// testScreen: Size, and Capture of the whole screen, of a part, and of rectangles not
// within the screen.
func testScreen(ctx context.Context, t *testing.T, s desktop.Screen) {
	w, h := size(t, s)
	full := capture(ctx, t, s, image.Rectangle{})
	if got := full.Bounds(); got != image.Rect(0, 0, w, h) {
		t.Fatalf("Capture of the empty rectangle has bounds %v, want the %dx%d screen at (0,0)", got, w, h)
	}
	part := image.Rect(w/4, h/4, w/4+101, h/4+57) // odd sizes: rows are not padded
	if got := capture(ctx, t, s, part).Bounds(); got != image.Rect(0, 0, 101, 57) {
		t.Fatalf("Capture(%v) has bounds %v, want 101x57 at (0,0)", part, got)
	}
	one := image.Rect(w-1, h-1, w, h)
	if got := capture(ctx, t, s, one).Bounds(); got != image.Rect(0, 0, 1, 1) {
		t.Fatalf("Capture of the last pixel %v has bounds %v, want 1x1", one, got)
	}
	for _, r := range []image.Rectangle{
		image.Rect(w-10, 0, w+1, 10),     // one pixel past the right edge
		image.Rect(0, h-10, 10, h+1),     // one past the bottom
		image.Rect(-1, 0, 10, 10),        // left of the screen
		image.Rect(0, -1, 10, 10),        // above it
		image.Rect(w, h, w+10, h+10),     // wholly outside
		image.Rect(-10, -10, w+10, h+10), // around it
	} {
		img, err := s.Capture(ctx, r)
		wantCode(t, err, werr.InvalidArgument, "Capture of "+r.String()+", not within the "+image.Pt(w, h).String()+" screen")
		if img != nil {
			t.Fatalf("Capture(%v) failed but returned an image", r)
		}
	}
	img, err := s.Capture(cancelled(), image.Rectangle{})
	wantCode(t, err, werr.Cancelled, "Capture with a cancelled context")
	if img != nil {
		t.Fatal("Capture with a cancelled context failed but returned an image")
	}
}

// size is the screen's size, which must be positive.
func size(t *testing.T, s desktop.Screen) (w, h int) {
	t.Helper()
	w, h, err := s.Size()
	if err != nil {
		t.Fatalf("Size: %v", err)
	}
	if w <= 0 || h <= 0 {
		t.Fatalf("Size() = %dx%d, want a positive size", w, h)
	}
	return w, h
}

func capture(ctx context.Context, t *testing.T, s desktop.Screen, r image.Rectangle) *image.RGBA {
	t.Helper()
	img, err := s.Capture(ctx, r)
	if err != nil {
		t.Fatalf("Capture(%v): %v", r, err)
	}
	if img == nil {
		t.Fatalf("Capture(%v) returned no image and no error", r)
	}
	return img
}

// sameWhereStill compares part, captured at r between the full captures before and
// after, with them at the pixels that did not change from before to after (a blinking
// caret, a clock), and returns how many differ and how many were compared.
func sameWhereStill(part, before, after *image.RGBA, r image.Rectangle) (differ, compared int) {
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			b := before.RGBAAt(x, y)
			if b != after.RGBAAt(x, y) {
				continue
			}
			compared++
			if part.RGBAAt(x-r.Min.X, y-r.Min.Y) != b {
				differ++
			}
		}
	}
	return differ, compared
}

// uniform says whether every pixel of img is the same.
func uniform(img *image.RGBA) bool {
	b := img.Bounds()
	first := img.RGBAAt(b.Min.X, b.Min.Y)
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			if img.RGBAAt(x, y) != first {
				return false
			}
		}
	}
	return true
}
