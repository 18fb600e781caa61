package win32

import (
	"bytes"
	"encoding/binary"
	"image"
	"image/color"
	"image/png"
	"testing"

	"golang.org/x/image/bmp"
)

// testImage is 3x2 pixels of distinct colours (odd width: rows of 24-bit DIBs are padded).
func testImage() *image.RGBA {
	m := image.NewRGBA(image.Rect(0, 0, 3, 2))
	for i, c := range []color.RGBA{{255, 0, 0, 255}, {0, 255, 0, 255}, {0, 0, 255, 255}, {10, 20, 30, 255}, {200, 100, 50, 255}, {255, 255, 255, 255}} {
		m.Set(i%3, i/3, c)
	}
	return m
}

func samePixels(t *testing.T, got image.Image, want *image.RGBA) {
	t.Helper()
	if got.Bounds().Size() != want.Bounds().Size() {
		t.Fatalf("size %v, want %v", got.Bounds().Size(), want.Bounds().Size())
	}
	for y := range want.Bounds().Dy() {
		for x := range want.Bounds().Dx() {
			if g, w := color.RGBAModel.Convert(got.At(x, y)), want.At(x, y); g != w {
				t.Fatalf("pixel (%d,%d) = %v, want %v", x, y, g, w)
			}
		}
	}
}

// packedDIB is a 32-bit DIB as Windows programs put it on the clipboard: a header of
// hdr bytes, the given compression (with BGR masks after a 40-byte header), rows of
// BGRX with X zero, bottom-up unless topDown.
func packedDIB(m *image.RGBA, hdr int, compression uint32, topDown bool) []byte {
	le := binary.LittleEndian
	w, h := m.Bounds().Dx(), m.Bounds().Dy()
	b := make([]byte, hdr)
	le.PutUint32(b[0:], uint32(hdr))
	le.PutUint32(b[4:], uint32(w))
	height := int32(h)
	if topDown {
		height = -height
	}
	le.PutUint32(b[8:], uint32(height))
	le.PutUint16(b[12:], 1)
	le.PutUint16(b[14:], 32)
	le.PutUint32(b[16:], compression)
	if compression == biBitfields {
		masks := []uint32{0xff0000, 0xff00, 0xff}
		if hdr == 40 {
			for _, v := range masks {
				b = le.AppendUint32(b, v)
			}
		} else {
			for i, v := range append(masks, 0xff000000) {
				le.PutUint32(b[40+4*i:], v)
			}
		}
	}
	for r := range h {
		y := h - 1 - r
		if topDown {
			y = r
		}
		for x := range w {
			c := m.RGBAAt(x, y)
			b = append(b, c.B, c.G, c.R, 0)
		}
	}
	return b
}

// TestDecodeDIB reads the DIB layouts found on Windows clipboards back to the same pixels.
func TestDecodeDIB(t *testing.T) {
	want := testImage()
	var file bytes.Buffer
	if err := bmp.Encode(&file, want); err != nil {
		t.Fatal(err)
	}
	cases := map[string][]byte{
		"24-bit CF_DIB":                      file.Bytes()[14:],
		"32-bit CF_DIB, BI_RGB":              packedDIB(want, 40, biRGB, false),
		"32-bit CF_DIB, top-down":            packedDIB(want, 40, biRGB, true),
		"32-bit CF_DIB, BI_BITFIELDS":        packedDIB(want, 40, biBitfields, false),
		"CF_DIBV5, BI_BITFIELDS, zero alpha": packedDIB(want, 124, biBitfields, false),
		"CF_DIBV5, BI_RGB, zero alpha":       packedDIB(want, 124, biRGB, false),
		"BITMAPV4HEADER, BI_RGB, zero alpha": packedDIB(want, 108, biRGB, true),
	}
	for name, dib := range cases {
		t.Run(name, func(t *testing.T) {
			img, err := decodeDIB(dib)
			if err != nil {
				t.Fatal(err)
			}
			samePixels(t, img, want)
		})
	}
	// An 8-bit paletted DIB: its colour table sits between header and pixels.
	pal := image.NewPaletted(image.Rect(0, 0, 3, 2), color.Palette{color.RGBA{0, 0, 0, 255}, color.RGBA{255, 0, 0, 255}})
	pal.SetColorIndex(1, 0, 1)
	file.Reset()
	if err := bmp.Encode(&file, pal); err != nil {
		t.Fatal(err)
	}
	img, err := decodeDIB(file.Bytes()[14:])
	if err != nil {
		t.Fatal(err)
	}
	if r, g, b, _ := img.At(1, 0).RGBA(); r>>8 != 255 || g|b != 0 {
		t.Fatalf("8-bit DIB pixel (1,0) = %v, want red", img.At(1, 0))
	}
}

// TestDecodeDIBRefuses gives errors, not panics, for DIBs it cannot read.
func TestDecodeDIBRefuses(t *testing.T) {
	good := packedDIB(testImage(), 40, biRGB, false)
	rle := bytes.Clone(good)
	binary.LittleEndian.PutUint32(rle[16:], 1) // BI_RLE8
	odd := packedDIB(testImage(), 40, biBitfields, false)
	binary.LittleEndian.PutUint32(odd[40:], 0x7c00) // RGB555 masks
	for name, b := range map[string][]byte{
		"empty": nil, "short header": good[:20], "core header": append([]byte{12, 0, 0, 0}, good[4:]...),
		"RLE": rle, "555 masks": odd, "truncated pixels": good[:50], "masks missing": packedDIB(testImage(), 40, biBitfields, false)[:44],
	} {
		if _, err := decodeDIB(b); err == nil {
			t.Errorf("%s: decoded without an error", name)
		}
	}
}

// TestTrimPNG cuts a PNG stream at its IEND chunk and refuses what is no PNG.
func TestTrimPNG(t *testing.T) {
	var b bytes.Buffer
	if err := png.Encode(&b, testImage()); err != nil {
		t.Fatal(err)
	}
	padded := append(bytes.Clone(b.Bytes()), make([]byte, 100)...) // GlobalAlloc rounds up
	got, ok := trimPNG(padded)
	if !ok || !bytes.Equal(got, b.Bytes()) {
		t.Fatalf("trimPNG of a padded PNG = %d bytes (ok %v), want the %d of the PNG", len(got), ok, b.Len())
	}
	for name, bad := range map[string][]byte{"not PNG": []byte("GIF89a"), "cut": b.Bytes()[:b.Len()-8], "huge chunk": append(bytes.Clone(pngMagic), 0xff, 0xff, 0xff, 0xf0, 'I', 'D', 'A', 'T', 0, 0, 0, 0)} {
		if _, ok := trimPNG(bad); ok {
			t.Errorf("%s: trimPNG accepted it", name)
		}
	}
}
