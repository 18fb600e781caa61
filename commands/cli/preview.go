package cli

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"image"
	_ "image/jpeg" // screenshots may be JPEG
	"image/png"
	"strings"

	"github.com/mattn/go-sixel"
	xdraw "golang.org/x/image/draw"
)

// Inline image previews for terminals that can show them: kitty's graphics protocol,
// iTerm2's inline images (WezTerm speaks it too) and sixel (foot, mlterm, xterm -ti vt340,
// or W365_PREVIEW=sixel). W365_PREVIEW=none turns previews off.

// PreviewProtocol names the preview protocol of the terminal the environment
// describes, "" for none.
func PreviewProtocol(getenv func(string) string) string {
	switch p := getenv("W365_PREVIEW"); p {
	case "kitty", "iterm2", "sixel":
		return p
	case "none", "off", "0":
		return ""
	}
	term := getenv("TERM")
	switch {
	case getenv("KITTY_WINDOW_ID") != "" || term == "xterm-kitty" || term == "xterm-ghostty":
		return "kitty"
	case getenv("TERM_PROGRAM") == "iTerm.app" || getenv("LC_TERMINAL") == "iTerm2" || getenv("TERM_PROGRAM") == "WezTerm":
		return "iterm2"
	case term == "foot" || strings.HasPrefix(term, "foot-") || strings.HasPrefix(term, "mlterm") || strings.Contains(term, "sixel"):
		return "sixel"
	}
	return ""
}

// previewCols is how wide a preview is, in terminal columns.
const previewCols = 40

// Preview is the escape sequence that shows img (PNG or JPEG bytes) about
// previewCols wide at the cursor in the given protocol; nil when it cannot.
func Preview(data []byte, proto string) []byte {
	var b bytes.Buffer
	switch proto {
	case "kitty":
		// Transmit and show a PNG, scaled to previewCols columns, in chunks of 4096.
		small := scaled(data, 640)
		if small == nil {
			return nil
		}
		enc := base64.StdEncoding.EncodeToString(small)
		for i := 0; i < len(enc); i += 4096 {
			chunk := enc[i:min(i+4096, len(enc))]
			more := 0
			if i+4096 < len(enc) {
				more = 1
			}
			if i == 0 {
				fmt.Fprintf(&b, "\x1b_Ga=T,f=100,q=2,c=%d,m=%d;%s\x1b\\", previewCols, more, chunk)
			} else {
				fmt.Fprintf(&b, "\x1b_Gm=%d;%s\x1b\\", more, chunk)
			}
		}
	case "iterm2":
		small := scaled(data, 640)
		if small == nil {
			return nil
		}
		fmt.Fprintf(&b, "\x1b]1337;File=inline=1;size=%d;width=%d;preserveAspectRatio=1:%s\a", len(small), previewCols,
			base64.StdEncoding.EncodeToString(small))
	case "sixel":
		img := scaledImage(data, previewCols*8)
		if img == nil || sixel.NewEncoder(&b).Encode(img) != nil {
			return nil
		}
	default:
		return nil
	}
	return b.Bytes()
}

// scaledImage decodes data and shrinks it to at most width pixels wide.
func scaledImage(data []byte, width int) image.Image {
	src, _, err := image.Decode(bytes.NewReader(data))
	if err != nil {
		return nil
	}
	r := src.Bounds()
	if r.Dx() <= width {
		return src
	}
	h := max(1, r.Dy()*width/r.Dx())
	dst := image.NewRGBA(image.Rect(0, 0, width, h))
	xdraw.ApproxBiLinear.Scale(dst, dst.Bounds(), src, r, xdraw.Src, nil)
	return dst
}

func scaled(data []byte, width int) []byte {
	img := scaledImage(data, width)
	if img == nil {
		return nil
	}
	var b bytes.Buffer
	if png.Encode(&b, img) != nil {
		return nil
	}
	return b.Bytes()
}
