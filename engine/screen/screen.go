// Package screen captures the pixels of one X display over a persistent X
// connection, with MIT-SHM when the server offers it (one shared segment, reused)
// and plain GetImage otherwise. Capture is X11 and exists on Linux only; EncodePNG,
// which callers on every platform use, is portable.
package screen

import (
	"bytes"
	"image"
	"image/png"

	"github.com/w365/w365/engine/werr"
)

// EncodePNG encodes img as PNG, favouring speed over size.
func EncodePNG(img image.Image) ([]byte, error) {
	var buf bytes.Buffer
	enc := png.Encoder{CompressionLevel: png.BestSpeed}
	if err := enc.Encode(&buf, img); err != nil {
		return nil, werr.Wrap(err, werr.Internal, "cannot encode PNG")
	}
	return buf.Bytes(), nil
}
