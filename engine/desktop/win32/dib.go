package win32

// Clipboard image formats, in plain Go (no Windows calls) so that they are tested on
// every platform: a CF_DIB or CF_DIBV5 is a BMP file without its 14-byte file header,
// which golang.org/x/image/bmp decodes once the header is put back.

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"image"

	"golang.org/x/image/bmp"
)

const (
	biRGB       = 0
	biBitfields = 3
)

// decodeDIB decodes a packed DIB (BITMAPINFOHEADER, BITMAPV4HEADER or BITMAPV5HEADER,
// then masks, colour table and pixels) of 1, 4, 8, 24 or 32 bits per pixel. 32-bit
// pixels in bit fields are read when the masks are the usual BGRA ones.
func decodeDIB(b []byte) (image.Image, error) {
	if len(b) < 40 {
		return nil, errors.New("the DIB is shorter than its header")
	}
	le := binary.LittleEndian
	hdr := int(le.Uint32(b[0:4]))
	if hdr != 40 && hdr != 108 && hdr != 124 || len(b) < hdr {
		return nil, fmt.Errorf("DIB header of %d bytes is not one of 40, 108 or 124", hdr)
	}
	bpp, compression, used := le.Uint16(b[14:16]), le.Uint32(b[16:20]), le.Uint32(b[32:36])
	header := bytes.Clone(b[:hdr])
	rest := b[hdr:]
	if compression == biBitfields {
		masks := rest // after a 40-byte header, the three masks follow it
		if hdr > 40 {
			masks = b[40:]
		} else if len(rest) < 12 {
			return nil, errors.New("the DIB's bit fields are missing")
		} else {
			rest = rest[12:]
		}
		if bpp != 32 || le.Uint32(masks[0:4]) != 0xff0000 || le.Uint32(masks[4:8]) != 0xff00 || le.Uint32(masks[8:12]) != 0xff {
			return nil, fmt.Errorf("DIB bit fields of %d bits per pixel with masks %x are not supported", bpp, masks[:12])
		}
		le.PutUint32(header[16:20], biRGB) // the same pixels as plain BGRA
	} else if compression != biRGB {
		return nil, fmt.Errorf("compressed DIBs (compression %d) are not supported", compression)
	}
	table := 0
	if bpp <= 8 {
		table = 4 << bpp
		if used != 0 {
			table = 4 * int(used)
		}
	}
	file := make([]byte, 14, 14+len(header)+len(rest))
	file[0], file[1] = 'B', 'M'
	le.PutUint32(file[2:6], uint32(cap(file)))
	le.PutUint32(file[10:14], uint32(14+hdr+table))
	file = append(append(file, header...), rest...)
	img, err := bmp.Decode(bytes.NewReader(file))
	if err != nil {
		return nil, fmt.Errorf("%d bits per pixel: %w", bpp, err)
	}
	if n, ok := img.(*image.NRGBA); ok {
		opaqueIfNoAlpha(n)
	}
	return img, nil
}

// opaqueIfNoAlpha makes an image whose alpha is zero everywhere opaque: most programs
// leave the fourth byte of 32-bit pixels zero ("reserved"), also in V4 and V5 headers,
// and mean an opaque image, as browsers read such bitmaps.
func opaqueIfNoAlpha(m *image.NRGBA) {
	for i := 3; i < len(m.Pix); i += 4 {
		if m.Pix[i] != 0 {
			return
		}
	}
	for i := 3; i < len(m.Pix); i += 4 {
		m.Pix[i] = 0xff
	}
}

var pngMagic = []byte("\x89PNG\r\n\x1a\n")

// trimPNG is the PNG stream at the start of b up to its IEND chunk (a clipboard's
// global memory may be larger than what was put there); false when b holds no
// well-formed chunk sequence.
func trimPNG(b []byte) ([]byte, bool) {
	if !bytes.HasPrefix(b, pngMagic) {
		return nil, false
	}
	for off := len(pngMagic); off+12 <= len(b); {
		n := int(binary.BigEndian.Uint32(b[off:]))
		end := off + 12 + n // length, type, data, CRC
		if n < 0 || end > len(b) || end < off {
			return nil, false
		}
		if string(b[off+4:off+8]) == "IEND" {
			return b[:end], true
		}
		off = end
	}
	return nil, false
}
