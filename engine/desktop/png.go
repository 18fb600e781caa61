package desktop

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
