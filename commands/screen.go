package commands

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/jpeg"
	"time"

	"github.com/w365/w365/commands/tool"
	"github.com/w365/w365/engine/desktop"
	"github.com/w365/w365/engine/ocr"
	"github.com/w365/w365/engine/session"
	"github.com/w365/w365/engine/werr"
)

// screenTools are the tools of the screen toolset, in the order help lists them.
var screenTools = []*tool.Tool{
	TakeScreenshot,
	ZoomRegion,
	GetScreenSize,
	AnalyzeScreen,
}

// screenOf is the session's capture connection.
func screenOf(env *tool.Env) (desktop.Screen, error) {
	return session.Use(env.Session, "screen", func(s *session.Session) (desktop.Screen, error) {
		return s.Desktop.OpenScreen()
	})
}

// ScreenshotIn is take_screenshot's input: all four crop values, or none.
type ScreenshotIn struct {
	X      *int   `json:"x,omitempty" jsonschema:"crop: give x, y, width, height or none" w365:"min=0"`
	Y      *int   `json:"y,omitempty" w365:"min=0"`
	Width  *int   `json:"width,omitempty" w365:"min=1"`
	Height *int   `json:"height,omitempty" w365:"min=1"`
	Format string `json:"format,omitempty" w365:"enum=png|jpeg,default=png"`
}

// ZoomIn is zoom_region's input.
type ZoomIn struct {
	X      int    `json:"x" w365:"min=0"`
	Y      int    `json:"y" w365:"min=0"`
	Width  int    `json:"width" w365:"min=1"`
	Height int    `json:"height" w365:"min=1"`
	Format string `json:"format,omitempty" w365:"enum=png|jpeg,default=png"`
}

// ImageOut describes a captured image; the bytes travel as MCP image content.
type ImageOut struct {
	X        int    `json:"x"`
	Y        int    `json:"y"`
	Width    int    `json:"width"`
	Height   int    `json:"height"`
	MIMEType string `json:"mimeType"`
	Bytes    int    `json:"bytes"`
	data     []byte
}

// OutputImages implements ImageOutput.
func (o ImageOut) OutputImages() []tool.Image {
	return []tool.Image{{Data: o.data, MIMEType: o.MIMEType}}
}

func (o ImageOut) Text() string {
	return fmt.Sprintf("%dx%d at %d,%d (%s, %d bytes)", o.Width, o.Height, o.X, o.Y, o.MIMEType, o.Bytes)
}

// SizeOut is the screen size.
type SizeOut struct {
	Width  int `json:"width"`
	Height int `json:"height"`
}

func (o SizeOut) Text() string { return fmt.Sprintf("%dx%d", o.Width, o.Height) }

func capture(ctx context.Context, env *tool.Env, r image.Rectangle, format string) (ImageOut, error) {
	s, err := screenOf(env)
	if err != nil {
		return ImageOut{}, err
	}
	img, err := s.Capture(ctx, r)
	if err != nil {
		return ImageOut{}, err
	}
	var data []byte
	mime := "image/png"
	if format == "jpeg" {
		var buf bytes.Buffer
		if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: 85}); err != nil {
			return ImageOut{}, werr.Wrap(err, werr.Internal, "jpeg encoding failed")
		}
		data, mime = buf.Bytes(), "image/jpeg"
	} else if data, err = desktop.EncodePNG(img); err != nil {
		return ImageOut{}, err
	}
	// The image's own bounds start at 0, 0: the crop's origin on the screen is r's.
	b := img.Bounds()
	return ImageOut{X: r.Min.X, Y: r.Min.Y, Width: b.Dx(), Height: b.Dy(), MIMEType: mime, Bytes: len(data), data: data}, nil
}

// TakeScreenshot is the tool take_screenshot (w365 take-screenshot).
var TakeScreenshot = tool.Define(tool.Tool{
	Name: "take_screenshot", Legacy: []string{"mcp_desktop_take_screenshot"}, Aliases: []string{"screenshot"},
	Summary: "Capture the screen, or a rectangle of it, as an image",
	Long: "Captures the screen at native resolution as PNG (or JPEG with format=jpeg). Give all four of\n" +
		"x, y, width and height for a crop, or none for the full screen; positions are screen pixels.\n" +
		"The CLI writes the image to -o FILE (default: a timestamped file here) and prints the path.",
	Example:     "  $ w365 take-screenshot\n  $ w365 screenshot -o screen.png\n  $ w365 screenshot --x 0 --y 0 --width 400 --height 300 -o - > crop.png",
	Annotations: tool.Observe,
}, func(ctx context.Context, env *tool.Env, in ScreenshotIn) (ImageOut, error) {
	r, err := cropOf(in.X, in.Y, in.Width, in.Height)
	if err != nil {
		return ImageOut{}, err
	}
	return capture(ctx, env, r, in.Format)
})

// cropOf is the rectangle of a crop given as x, y, width, height: all four, or none (the
// empty rectangle: the whole screen).
func cropOf(x, y, w, h *int) (image.Rectangle, error) {
	set := 0
	for _, p := range []*int{x, y, w, h} {
		if p != nil {
			set++
		}
	}
	if set != 0 && set != 4 {
		return image.Rectangle{}, werr.Invalid("give all four of x, y, width and height for a crop, or none for the full screen (got %d of 4)", set)
	}
	if set == 0 {
		return image.Rectangle{}, nil
	}
	if *w <= 0 || *h <= 0 {
		return image.Rectangle{}, werr.Invalid("width and height must be positive, got %dx%d", *w, *h)
	}
	return image.Rect(*x, *y, *x+*w, *y+*h), nil
}

// ZoomRegion is the tool zoom_region (w365 zoom-region).
var ZoomRegion = tool.Define(tool.Tool{
	Name: "zoom_region", Legacy: []string{"mcp_desktop_zoom_region"}, Aliases: []string{"zoom"},
	Summary: "Capture a region at native resolution to read small text",
	Long: "Captures the rectangle (x, y, width, height) at native resolution. The region must lie on the\n" +
		"screen and is at most 1920x1080; anything else is INVALID_ARGUMENT.",
	Example:     "  $ w365 zoom-region 100 100 300 120 -o detail.png",
	Args:        []string{"x", "y", "width", "height"},
	Annotations: tool.Observe,
}, func(ctx context.Context, env *tool.Env, in ZoomIn) (ImageOut, error) {
	p := env.Policy
	if in.Width > p.ZoomMaxWidth || in.Height > p.ZoomMaxHeight {
		return ImageOut{}, werr.Invalid("zoom region %dx%d exceeds the %dx%d maximum", in.Width, in.Height, p.ZoomMaxWidth, p.ZoomMaxHeight)
	}
	return capture(ctx, env, image.Rect(in.X, in.Y, in.X+in.Width, in.Y+in.Height), in.Format)
})

// GetScreenSize is the tool get_screen_size (w365 get-screen-size).
var GetScreenSize = tool.Define(tool.Tool{
	Name: "get_screen_size", Legacy: []string{"mcp_desktop_get_screen_size"}, Aliases: []string{"screen-size"},
	Summary:     "Read the screen size in pixels",
	Long:        "Returns {width, height} of the coordinate space every other tool uses. Cheap: a good heartbeat.",
	Example:     "  $ w365 get-screen-size\n  $ w365 screen-size --json",
	Annotations: tool.Observe,
}, func(ctx context.Context, env *tool.Env, _ None) (SizeOut, error) {
	s, err := screenOf(env)
	if err != nil {
		return SizeOut{}, err
	}
	w, h, err := s.Size()
	return SizeOut{w, h}, err
})

// OCRIn is analyze_screen's input: a region, all four values or none (a region off the
// screen is refused by Capture).
type OCRIn struct {
	X      *int `json:"x,omitempty"`
	Y      *int `json:"y,omitempty"`
	Width  *int `json:"width,omitempty"`
	Height *int `json:"height,omitempty"`
}

// OCROut is analyze_screen's result.
type OCROut struct{ ocr.Result }

func (o OCROut) Text() string {
	return fmt.Sprintf("%s\n[%d words, confidence %.0f, %d ms]", o.FullText, len(o.Boxes), o.AverageConfidence, o.ElapsedMs)
}

// AnalyzeScreen is the tool analyze_screen (w365 analyze-screen).
var AnalyzeScreen = tool.Define(tool.Tool{
	Name: "analyze_screen", Legacy: []string{"mcp_desktop_analyze_screen"}, Aliases: []string{"ocr"},
	Summary: "OCR screen text into word boxes, for apps with no a11y tree",
	Long: "Captures the screen and runs OCR (tesseract) on it, preprocessed for UI text on light and dark\n" +
		"backgrounds. Returns fullText in reading order, averageConfidence and a box per word. Give all\n" +
		"four of x, y, width and height to read only that region, at higher resolution (slower), to\n" +
		"confirm what a full-screen read found; boxes stay in screen coordinates.",
	Example:     "  $ w365 analyze-screen\n  $ w365 ocr --json | jq '.boxes[] | select(.text==\"OK\")'",
	Annotations: tool.Observe,
}, func(ctx context.Context, env *tool.Env, in OCRIn) (OCROut, error) {
	region, err := cropOf(in.X, in.Y, in.Width, in.Height)
	if err != nil {
		return OCROut{}, err
	}
	s, err := screenOf(env)
	if err != nil {
		return OCROut{}, err
	}
	img, err := s.Capture(ctx, region)
	if err != nil {
		return OCROut{}, err
	}
	// The capture's bounds start at 0, 0; shifted to the region's place, the boxes come
	// back in screen coordinates.
	img.Rect = img.Rect.Add(region.Min)
	r, err := ocr.Analyze(ctx, img, ocr.Options{Fine: !region.Empty(), Reuse: readingScope(env)})
	return OCROut{r}, err
})

// readingScope is the scope whose earlier readings of unchanged lines analyze_screen
// reuses (ocr.Options.Reuse): the call's session, told apart from a later one of the same
// id by its start; "" (every line read) without one.
func readingScope(env *tool.Env) string {
	s := env.Session
	if s == nil {
		return ""
	}
	return s.Owner + "\x00" + s.ID + "\x00" + s.Created.Format(time.RFC3339Nano)
}
