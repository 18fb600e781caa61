//go:build linux

package wine

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"image"
	"image/color"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/w365/w365/engine/desktop/x11"
	"golang.org/x/image/bmp"
)

// TestWineCapture: screen capture (DXGI desktop duplication falls back to GDI under wine)
// and clipboard images, on one prefix; the subtests run in order.
func TestWineCapture(t *testing.T) {
	x := New(t, screenW, screenH)
	x.RunSteps(t,
		Step{"DXGIFallback", testDXGIFallback},
		Step{"ScreenshotShowsNotepad", testScreenshotShowsNotepad},
		Step{"ClipboardText", testClipboardText},
		Step{"ClipboardImage", testClipboardImage},
		Step{"ClipboardHeld", testClipboardHeld},
		Step{"Timing", testCaptureTiming},
	)
}

// dxgiFallback is the host's log line when desktop duplication cannot be used.
var dxgiFallback = regexp.MustCompile(`DXGI desktop duplication unavailable, using GDI.*`)

// testDXGIFallback: wine 8's dxgi has no desktop duplication; the screen falls back to
// GDI and the host log names the call that failed and its HRESULT.
func testDXGIFallback(t *testing.T, x *Wine) {
	x.MustRun("take-screenshot", "-o", filepath.Join(x.dir, "first.png"))
	line := dxgiFallback.FindString(x.HostLog())
	if line == "" {
		t.Fatalf("the host did not log why it captures with GDI; host log:\n%s", x.HostLog())
	}
	t.Logf("wine: %s", line)
	if !regexp.MustCompile(`[A-Za-z0-9]+(::[A-Za-z0-9]+)? returned HRESULT 0x[0-9A-F]{8} \(`).MatchString(line) {
		t.Fatalf("the fallback line names no failed call with its HRESULT: %s", line)
	}
}

// testScreenshotShowsNotepad: take_screenshot is a PNG of the screen's size in which
// notepad's rectangle (from list_windows) is drawn by GDI and the rest is the black Xvfb
// root; zoom_region gives the same pixels as the full screenshot.
func testScreenshotShowsNotepad(t *testing.T, x *Wine) {
	x.Start("notepad")
	w := waitWindow(t, x, "Notepad")
	x.MustRun("resize-window", "--title", "Notepad", "--action", "Resize", "--x", "200", "--y", "150", "--width", "500", "--height", "400")
	w = waitWindow(t, x, "Notepad")
	if w.X != 200 || w.Y != 150 || w.Width != 500 || w.Height != 400 {
		t.Fatalf("notepad is at %d,%d %dx%d after resize_window", w.X, w.Y, w.Width, w.Height)
	}
	full := screenshot(t, x, "full.png")
	if b := full.Bounds(); b.Dx() != screenW || b.Dy() != screenH {
		t.Fatalf("take_screenshot is %v, want the %dx%d screen", b, screenW, screenH)
	}
	win := image.Rect(w.X, w.Y, w.X+w.Width, w.Y+w.Height)
	drawn, total := 0, 0
	for y := win.Min.Y; y < win.Max.Y; y += 4 {
		for x := win.Min.X; x < win.Max.X; x += 4 {
			total++
			if r, g, b, _ := full.At(x, y).RGBA(); r|g|b != 0 {
				drawn++
			}
		}
	}
	if drawn*10 < total*9 {
		t.Fatalf("only %d of %d sampled pixels of notepad's rectangle %v differ from the black root", drawn, total, win)
	}
	for _, p := range []image.Point{{10, 10}, {screenW - 10, screenH - 10}, {win.Max.X + 20, win.Min.Y}} {
		if r, g, b, _ := full.At(p.X, p.Y).RGBA(); r|g|b != 0 {
			t.Fatalf("pixel %v outside notepad is %02x%02x%02x, want the black root", p, r>>8, g>>8, b>>8)
		}
	}

	// Across the window's corner: frame, title bar and menu, above the edit area, whose
	// blinking caret would differ between two captures. (A capture of part of the screen
	// as such is the conformance suite's; zoom_region is the command's own.)
	crop := image.Rect(w.X-10, w.Y-10, w.X+310, w.Y+30)
	zoom := screenshot(t, x, "zoom.png", "zoom-region", strconv.Itoa(crop.Min.X), strconv.Itoa(crop.Min.Y), strconv.Itoa(crop.Dx()), strconv.Itoa(crop.Dy()))
	if zoom.Bounds().Size() != crop.Size() {
		t.Fatalf("zoom_region is %v, want %v", zoom.Bounds().Size(), crop.Size())
	}
	if d := differing(zoom, full, crop.Min); d > 0 {
		t.Fatalf("zoom_region of %v differs from the full screenshot in %d pixels", crop, d)
	}
	x.MustRun("close-window", w.Title) // unchanged: closes without asking
	waitGone(t, x, w.Handle)
}

// screenshot runs take-screenshot (or the command args[0] when it is not a flag) with
// -o name and decodes the PNG.
func screenshot(t *testing.T, x *Wine, name string, args ...string) image.Image {
	t.Helper()
	cmd := []string{"take-screenshot"}
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		cmd, args = args[:1], args[1:]
	}
	path := filepath.Join(x.dir, name)
	x.MustRun(append(append(cmd, args...), "-o", path)...)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("%s %v wrote no PNG: %v", cmd[0], args, err)
	}
	return img
}

// differing counts the pixels of img that are not those of big at offset.
func differing(img, big image.Image, offset image.Point) int {
	n := 0
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			if color.RGBAModel.Convert(img.At(x, y)) != color.RGBAModel.Convert(big.At(x-b.Min.X+offset.X, y-b.Min.Y+offset.Y)) {
				n++
			}
		}
	}
	return n
}

// testClipboardText: the text clipboard_write puts there (CF_UNICODETEXT) is what wine's
// X11 bridge offers X programs as UTF-8: xclip reads it on the Xvfb display. The round
// trip itself is the conformance suite's.
func testClipboardText(t *testing.T, x *Wine) {
	const text = "héllo 世界 w365\nline two"
	x.MustRun("clipboard-write", text)
	out, err := x.xclip("-o", "-selection", "clipboard", "-t", "UTF8_STRING").Output()
	if err != nil || string(out) != text {
		t.Fatalf("xclip -o on the wine display = %q (%v), want %q", out, err, text)
	}
}

// testClipboardImage: an image another program put on the clipboard reads back as the
// same pixels in PNG, as on X11. No tool writes images (clipboard_write takes text), so
// xclip offers it on the Xvfb display and wine's X11 bridge imports it: image/png as the
// registered "PNG" format, image/bmp as CF_DIB (which Windows also offers as CF_DIBV5).
func testClipboardImage(t *testing.T, x *Wine) {
	want := image.NewRGBA(image.Rect(0, 0, 37, 23)) // odd sizes: DIB rows are padded
	for y := range 23 {
		for i := range 37 {
			want.Set(i, y, color.RGBA{uint8(i * 7), uint8(y * 11), uint8((i + y) * 5), 255})
		}
	}
	var pngData, bmpData bytes.Buffer
	if err := png.Encode(&pngData, want); err != nil {
		t.Fatal(err)
	}
	if err := bmp.Encode(&bmpData, want); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		mime string
		data []byte
	}{{"image/png", pngData.Bytes()}, {"image/bmp", bmpData.Bytes()}} {
		t.Run(strings.TrimPrefix(c.mime, "image/"), func(t *testing.T) {
			x.T = t
			src := filepath.Join(x.dir, "clip."+strings.TrimPrefix(c.mime, "image/"))
			if err := os.WriteFile(src, c.data, 0o600); err != nil {
				t.Fatal(err)
			}
			xc := x.xclip("-quiet", "-i", "-selection", "clipboard", "-t", c.mime, src)
			if err := xc.Start(); err != nil {
				t.Fatal(err)
			}
			defer func() { xc.Process.Kill(); xc.Wait() }()
			var rd struct{ Format, ImageBase64, MimeType string }
			deadline := time.Now().Add(20 * time.Second)
			for { // wine's bridge takes the X selection change over on its own schedule
				r := x.Run("clipboard-read", "--json")
				if r.Code != 0 {
					t.Logf("clipboard_read while wine imports %s: exit %d, %s", c.mime, r.Code, strings.TrimSpace(r.Stderr))
				} else if err := json.Unmarshal([]byte(r.Stdout), &rd); err != nil {
					t.Fatalf("clipboard_read: %v in %q", err, r.Stdout)
				}
				if rd.Format == "image" || time.Now().After(deadline) {
					break
				}
				time.Sleep(200 * time.Millisecond)
			}
			if rd.Format != "image" || rd.MimeType != "image/png" {
				t.Fatalf("clipboard_read with %s on the X clipboard = format %q mimeType %q, want an image/png", c.mime, rd.Format, rd.MimeType)
			}
			raw, err := base64.StdEncoding.DecodeString(rd.ImageBase64)
			if err != nil {
				t.Fatal(err)
			}
			got, err := png.Decode(bytes.NewReader(raw))
			if err != nil {
				t.Fatalf("clipboard_read's image is no PNG: %v", err)
			}
			if got.Bounds().Size() != want.Bounds().Size() {
				t.Fatalf("clipboard image is %v, want %v", got.Bounds().Size(), want.Bounds().Size())
			}
			if d := differing(got, want, image.Point{}); d > 0 {
				t.Fatalf("clipboard image differs from the %s put there in %d of %d pixels", c.mime, d, 37*23)
			}
		})
	}
	// Text still wins once it is there again.
	x.T = t
	x.MustRun("clipboard-write", "after the image")
	var rd struct{ Format, Text string }
	x.JSON(&rd, "clipboard-read")
	if rd.Format != "text" || rd.Text != "after the image" {
		t.Fatalf("clipboard_read after writing text over the image = %+v", rd)
	}
}

// xclip is an xclip command on the wine prefix's X display.
func (x *Wine) xclip(args ...string) *exec.Cmd {
	c := exec.Command("xclip", args...)
	c.Env = []string{"PATH=" + os.Getenv("PATH"), "DISPLAY=" + x.Display}
	return c
}

// testClipboardHeld: while another program holds the clipboard open, clipboard_read
// retries for a second and then fails with UNAVAILABLE (retryable) naming it; one
// that lets go within the second is waited for.
func testClipboardHeld(t *testing.T, x *Wine) {
	holder := filepath.Join(x.dir, "holdclip.exe")
	x.BuildC("holdclip.c", holder)
	x.MustRun("clipboard-write", "before the hold")
	stop := x.hold(holder, 8000)
	r := x.Run("clipboard-read", "--json")
	stop()
	if r.Code == 0 || !strings.Contains(r.Stderr, "UNAVAILABLE") || !strings.Contains(r.Stderr, "holdclip.exe") {
		t.Fatalf("clipboard_read while holdclip.exe holds the clipboard: exit %d\nstdout: %s\nstderr: %s", r.Code, r.Stdout, r.Stderr)
	}
	t.Logf("held: %s", strings.TrimSpace(r.Stderr))

	stop = x.hold(holder, 300)
	defer stop()
	var rd struct{ Format, Text string }
	x.JSON(&rd, "clipboard-read")
	if rd.Text != "before the hold" {
		t.Fatalf("clipboard_read once a 300 ms hold ended = %+v", rd)
	}
}

// hold starts holdclip.exe for ms milliseconds and returns once it holds the clipboard;
// stop waits for it to end.
func (x *Wine) hold(exe string, ms int) (stop func()) {
	x.T.Helper()
	out := filepath.Join(x.dir, "holdclip.out")
	os.Remove(out)
	f, err := os.Create(out)
	if err != nil {
		x.T.Fatal(err)
	}
	defer f.Close()
	c := x.command(context.Background(), wineBin, exe, strconv.Itoa(ms))
	c.Stdout, c.Stderr = f, f
	if err := c.Start(); err != nil {
		x.T.Fatal(err)
	}
	done := make(chan struct{})
	go func() { c.Wait(); close(done) }()
	deadline := time.Now().Add(30 * time.Second)
	for {
		b, _ := os.ReadFile(out)
		if strings.Contains(string(b), "held") {
			return func() { <-done }
		}
		select {
		case <-done:
			x.T.Fatalf("holdclip.exe ended without holding the clipboard: %s", b)
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			c.Process.Kill()
			x.T.Fatalf("holdclip.exe did not hold the clipboard within 30s: %s", b)
		}
	}
}

// testCaptureTiming reports (no assertion) the time of one full-screen capture: GDI
// under wine (the win32 package's benchmarks in a Windows test binary) against the X11
// backend on the same Xvfb screen.
func testCaptureTiming(t *testing.T, x *Wine) {
	r := x.GoTest("./engine/desktop/win32", "-test.run=^$", "-test.bench=Capture", "-test.benchtime=20x")
	if r.Code != 0 {
		t.Fatalf("win32 benchmarks under wine: exit %d\n%s\n%s", r.Code, r.Stdout, r.Stderr)
	}
	for _, l := range strings.Split(r.Stdout, "\n") {
		if strings.HasPrefix(l, "Benchmark") && strings.Contains(l, "ns/op") {
			t.Logf("wine %dx%d: %s", screenW, screenH, strings.Join(strings.Fields(l), " "))
		}
	}
	s, err := x11.Existing(x.Display).OpenScreen()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	const n = 20
	start := time.Now()
	for range n {
		if _, err := s.Capture(context.Background(), image.Rectangle{}); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("X11 backend %dx%d: %.2f ms a capture (%d captures)", screenW, screenH, float64(time.Since(start).Microseconds())/1000/n, n)
}
