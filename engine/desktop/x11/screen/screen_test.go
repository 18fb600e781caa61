//go:build linux

package screen

import (
	"bytes"
	"context"
	"image"
	"image/color"
	"image/png"
	"os"
	"testing"
	"time"

	"github.com/jezek/xgb/xproto"

	"github.com/w365/w365/engine/desktop"
	"github.com/w365/w365/engine/desktop/x11/x11test"
	"github.com/w365/w365/engine/desktop/x11/xconn"
	"github.com/w365/w365/engine/werr"
)

// expected renders what the probe's --pattern window shows at screen point (x, y),
// or ok=false outside the window.
func expected(ready x11test.Event, x, y int) (c color.RGBA, ok bool) {
	win := image.Rect(ready.X, ready.Y, ready.X+ready.Width, ready.Y+ready.Height)
	if !image.Pt(x, y).In(win) {
		return c, false
	}
	bg := ready.Background
	c = color.RGBA{bg[0], bg[1], bg[2], 255}
	for _, r := range ready.Pattern {
		if image.Pt(x, y).In(r.Rectangle()) {
			c = color.RGBA{r.RGB[0], r.RGB[1], r.RGB[2], 255}
		}
	}
	return c, true
}

func openScreen(t *testing.T, name string) *Screen {
	t.Helper()
	s, err := Open(name)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// checkCrop compares every pixel of a capture of r with the pattern.
func checkCrop(t *testing.T, s *Screen, ready x11test.Event, r image.Rectangle) {
	t.Helper()
	img, err := s.Capture(context.Background(), r)
	if err != nil {
		t.Fatal(err)
	}
	if img.Bounds().Dx() != r.Dx() || img.Bounds().Dy() != r.Dy() {
		t.Fatalf("capture of %v is %v", r, img.Bounds())
	}
	bad := 0
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			want, ok := expected(ready, x, y)
			if !ok {
				continue
			}
			got := img.RGBAAt(x-r.Min.X, y-r.Min.Y)
			if got != want {
				if bad < 5 {
					t.Errorf("pixel (%d,%d): got %v, want %v", x, y, got, want)
				}
				bad++
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d of %d pixels differ in %v", bad, r.Dx()*r.Dy(), r)
	}
}

func TestCapturePatternPixelExact(t *testing.T) {
	d := x11test.Start(t)
	p := x11test.StartProbe(t, d, "--pattern", "--position", "321,123")
	ready := p.Ready
	if ready.X != 321 || ready.Y != 123 {
		t.Fatalf("pattern window at (%d,%d), want (321,123)", ready.X, ready.Y)
	}
	s := openScreen(t, d.Name)
	if !s.hasSHM {
		t.Error("MIT-SHM is not used on a local Xvfb")
	}
	win := image.Rect(ready.X, ready.Y, ready.X+ready.Width, ready.Y+ready.Height)
	checkCrop(t, s, ready, win)
	// A virtual desktop's X server has an IPC namespace of its own: the segment is a memfd
	// handed over the connection, not a System V id (docs/security.md#confinement).
	if !s.hasSHM {
		t.Error("the capture fell back to plain GetImage")
	}
	if maps, _ := os.ReadFile("/proc/self/maps"); !bytes.Contains(maps, []byte("/memfd:w365-capture")) {
		t.Error("no memfd segment is mapped after a capture")
	}
	// Odd offsets and sizes: the 1-pixel features, the checkerboard, one pixel.
	checkCrop(t, s, ready, image.Rect(ready.X+69, ready.Y+69, ready.X+69+41, ready.Y+69+27))
	checkCrop(t, s, ready, image.Rect(ready.X+198, ready.Y+197, ready.X+219, ready.Y+219))
	checkCrop(t, s, ready, image.Rect(ready.X+71, ready.Y+71, ready.X+72, ready.Y+72))
	checkCrop(t, s, ready, image.Rect(ready.X+390, ready.Y+290, ready.X+400, ready.Y+300))

	// The full screen contains the pattern at its screen position.
	full, err := s.Capture(context.Background(), image.Rectangle{})
	if err != nil {
		t.Fatal(err)
	}
	if b := full.Bounds(); b.Dx() != 1920 || b.Dy() != 1080 {
		t.Fatalf("full capture is %v", b)
	}
	if got, want := full.RGBAAt(ready.X+10, ready.Y+10), (color.RGBA{255, 0, 0, 255}); got != want {
		t.Errorf("full capture at the red square: %v", got)
	}

	// The same through plain GetImage (the fallback when SHM is unavailable).
	s.hasSHM = false
	checkCrop(t, s, ready, win)
	checkCrop(t, s, ready, image.Rect(ready.X+198, ready.Y+197, ready.X+219, ready.Y+219))

	// PNG round trip keeps the pixels.
	crop, err := s.Capture(context.Background(), win)
	if err != nil {
		t.Fatal(err)
	}
	data, err := desktop.EncodePNG(crop)
	if err != nil {
		t.Fatal(err)
	}
	dec, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	for _, pt := range []image.Point{{10, 10}, {71, 71}, {120, 72}, {203, 201}, {399, 299}} {
		r, g, b, a := dec.At(pt.X, pt.Y).RGBA()
		want, _ := expected(ready, ready.X+pt.X, ready.Y+pt.Y)
		if got := (color.RGBA{uint8(r >> 8), uint8(g >> 8), uint8(b >> 8), uint8(a >> 8)}); got != want {
			t.Errorf("PNG pixel %v: got %v, want %v", pt, got, want)
		}
	}
}

func TestCaptureOutsideScreenIsInvalid(t *testing.T) {
	d := x11test.Start(t)
	s := openScreen(t, d.Name)
	w, h, err := s.Size()
	if err != nil || w != 1920 || h != 1080 {
		t.Fatalf("Size = %d, %d, %v", w, h, err)
	}
	for _, r := range []image.Rectangle{
		image.Rect(1900, 0, 1930, 10),
		image.Rect(-1, 0, 10, 10),
		image.Rect(0, 1000, 100, 1081),
		image.Rect(5000, 5000, 5100, 5100),
	} {
		_, err := s.Capture(context.Background(), r)
		if werr.CodeOf(err) != werr.InvalidArgument {
			t.Errorf("Capture(%v) = %v, want INVALID_ARGUMENT", r, err)
		}
	}
	// The whole screen as an explicit rectangle is fine.
	if _, err := s.Capture(context.Background(), image.Rect(0, 0, 1920, 1080)); err != nil {
		t.Error(err)
	}
	if m := s.Monitors(); len(m) > 0 && m[0] != image.Rect(0, 0, 1920, 1080) {
		t.Errorf("Monitors = %v", m)
	}
}

func TestReconnectAfterBrokenConnection(t *testing.T) {
	d := x11test.Start(t)
	s := openScreen(t, d.Name)
	if _, err := s.Capture(context.Background(), image.Rect(0, 0, 10, 10)); err != nil {
		t.Fatal(err)
	}
	// Break the connection under the Screen's feet.
	s.mu.Lock()
	s.conn.Close()
	s.mu.Unlock()
	if _, err := s.Capture(context.Background(), image.Rect(0, 0, 10, 10)); err != nil {
		t.Fatalf("capture after the connection broke: %v", err)
	}
	if w, _, err := s.Size(); err != nil || w != 1920 {
		t.Fatalf("Size after reconnect = %d, %v", w, err)
	}
}

func TestClosedScreen(t *testing.T) {
	d := x11test.Start(t)
	s, err := Open(d.Name)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	if _, err := s.Capture(context.Background(), image.Rectangle{}); werr.CodeOf(err) != werr.Unavailable {
		t.Errorf("capture on a closed screen: %v", err)
	}
}

func TestConvertSwapsRedAndBlue(t *testing.T) {
	src := []byte{1, 2, 3, 0, 10, 20, 30, 99, 7, 8, 9, 0}
	dst := make([]byte, len(src))
	convert(dst, src)
	want := []byte{3, 2, 1, 255, 30, 20, 10, 255, 9, 8, 7, 255}
	if !bytes.Equal(dst, want) {
		t.Errorf("convert = %v, want %v", dst, want)
	}
}

func TestConcurrentCaptures(t *testing.T) {
	d := x11test.Start(t)
	s := openScreen(t, d.Name)
	done := make(chan error, 8)
	for i := range 8 {
		go func() {
			r := image.Rect(i*10, i*10, i*10+200, i*10+100)
			if i%2 == 0 {
				r = image.Rectangle{}
			}
			_, err := s.Capture(context.Background(), r)
			if err == nil {
				_, _, err = s.Size()
			}
			done <- err
		}()
	}
	for range 8 {
		if err := <-done; err != nil {
			t.Error(err)
		}
	}
}

// The shared segment serves a burst of captures and is freed once they stop: an idle
// host does not keep a screen's worth of memory resident.
func TestSharedSegmentIsFreedWhenCapturesStop(t *testing.T) {
	d := x11test.Start(t)
	s := openScreen(t, d.Name)
	if !s.hasSHM {
		t.Fatal("MIT-SHM is not used on a local Xvfb")
	}
	segment := func() *segment {
		s.mu.Lock()
		defer s.mu.Unlock()
		return s.seg
	}
	if _, err := s.Capture(context.Background(), image.Rectangle{}); err != nil {
		t.Fatal(err)
	}
	first := segment()
	if first == nil {
		t.Fatal("no shared segment after a capture")
	}
	if _, err := s.Capture(context.Background(), image.Rect(0, 0, 10, 10)); err != nil {
		t.Fatal(err)
	}
	if segment() != first {
		t.Error("a capture right after another made a new segment")
	}
	for i := 0; segment() != nil; i++ {
		if i == 100 {
			t.Fatalf("the segment is still held %v after the last capture (release after %v)", 100*50*time.Millisecond, idleRelease)
		}
		time.Sleep(50 * time.Millisecond)
	}
	// And the next capture works with a new one.
	img, err := s.Capture(context.Background(), image.Rectangle{})
	if err != nil || img.Bounds().Dx() != 1920 {
		t.Fatalf("capture after the release: %v", err)
	}
}

// A program on the display that grabs the server stops it answering anyone else: a capture
// then ends with its context (CANCELLED), not with the grab, and works again after it.
func TestCaptureEndsWithItsContextDuringAServerGrab(t *testing.T) {
	d := x11test.Start(t)
	s := openScreen(t, d.Name)
	if _, err := s.Capture(context.Background(), image.Rect(0, 0, 10, 10)); err != nil {
		t.Fatal(err)
	}
	grabber, err := xconn.Connect(d.Name)
	if err != nil {
		t.Fatal(err)
	}
	defer grabber.Close()
	if err := xproto.GrabServerChecked(grabber).Check(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := s.Capture(ctx, image.Rectangle{})
		done <- err
	}()
	select {
	case err := <-done:
		if werr.CodeOf(err) != werr.Cancelled {
			t.Fatalf("a capture during a server grab: %v, want CANCELLED", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("a capture during a server grab did not end with its context")
	}
	if err := xproto.UngrabServerChecked(grabber).Check(); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Capture(context.Background(), image.Rect(0, 0, 10, 10)); err != nil {
		t.Fatalf("a capture after the grab: %v", err)
	}
}
