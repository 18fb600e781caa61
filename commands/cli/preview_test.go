package cli

import (
	"bytes"
	"encoding/base64"
	"image"
	"image/color"
	"image/png"
	"regexp"
	"strings"
	"testing"

	"github.com/w365/w365/commands"
	"github.com/w365/w365/commands/host"
	"github.com/w365/w365/commands/tool"
)

func testPNG(t *testing.T, w, h int) []byte {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			img.Set(x, y, color.RGBA{255, 0, 170, 255})
		}
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestPreviewProtocolsAndTheirSequences(t *testing.T) {
	env := func(kv ...string) func(string) string {
		return func(k string) string {
			for i := 0; i < len(kv); i += 2 {
				if kv[i] == k {
					return kv[i+1]
				}
			}
			return ""
		}
	}
	for _, c := range []struct {
		env  func(string) string
		want string
	}{
		{env("TERM", "xterm-kitty"), "kitty"},
		{env("TERM_PROGRAM", "iTerm.app"), "iterm2"},
		{env("TERM", "foot"), "sixel"},
		{env("TERM", "xterm-256color"), ""},
		{env("TERM", "xterm-kitty", "W365_PREVIEW", "none"), ""},
		{env("TERM", "xterm", "W365_PREVIEW", "sixel"), "sixel"},
	} {
		if got := PreviewProtocol(c.env); got != c.want {
			t.Errorf("%q, want %q", got, c.want)
		}
	}
	img := testPNG(t, 1920, 1080)
	kitty := string(Preview(img, "kitty"))
	if !regexp.MustCompile(`^\x1b_Ga=T,f=100,q=2,c=40,m=[01];`).MatchString(kitty) || !strings.HasSuffix(kitty, "\x1b\\") {
		t.Errorf("kitty sequence starts %q", kitty[:40])
	}
	// The chunks put together are a PNG, scaled down.
	var payload strings.Builder
	for _, m := range regexp.MustCompile(`\x1b_G[^;]*;([^\x1b]*)\x1b\\`).FindAllStringSubmatch(kitty, -1) {
		payload.WriteString(m[1])
	}
	raw, _ := base64.StdEncoding.DecodeString(payload.String())
	if cfg, err := png.DecodeConfig(bytes.NewReader(raw)); err != nil || cfg.Width != 640 {
		t.Errorf("kitty payload: %v %+v", err, cfg)
	}
	if s := string(Preview(img, "iterm2")); !strings.HasPrefix(s, "\x1b]1337;File=inline=1;") || !strings.HasSuffix(s, "\a") {
		t.Errorf("iTerm2 sequence %q…", s[:30])
	}
	if s := string(Preview(img, "sixel")); !strings.HasPrefix(s, "\x1bP") || !strings.HasSuffix(s, "\x1b\\") {
		t.Errorf("sixel sequence %q…", s[:10])
	}
	if Preview([]byte("not an image"), "kitty") != nil || Preview(img, "") != nil {
		t.Error("a preview of nothing")
	}
}

func TestScreenshotsShowAPreviewOnlyOnAnImageTerminal(t *testing.T) {
	png := testPNG(t, 64, 32)
	f := &fakeCaller{out: &commands.ImageOut{Width: 64, Height: 32, MIMEType: "image/png", Bytes: len(png)}, imgs: []tool.Image{{Data: png, MIMEType: "image/png"}}}
	file := t.TempDir() + "/s.png"
	var out bytes.Buffer
	root, _ := NewRoot(RootDeps{IO: IO{Out: &out, Err: &out, OutIsTerminal: true, Preview: "kitty"}, Caller: func(*Globals) host.Caller { return f }})
	root.SetArgs([]string{"screenshot", "-o", file})
	if err := root.Execute(); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(out.String(), file+"\n\x1b_Ga=T") {
		t.Errorf("kitty terminal output %q", out.String())
	}
	r := runCLI(t, f, true, nil, "screenshot", "-o", file)
	if strings.Contains(r.stdout, "\x1b") {
		t.Errorf("a plain terminal got escapes: %q", r.stdout)
	}
}
