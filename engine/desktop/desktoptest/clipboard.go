package desktoptest

import (
	"context"
	"testing"
	"unicode/utf8"

	"github.com/w365/w365/engine/desktop"
	"github.com/w365/w365/engine/werr"
)

// testClipboard: text written reads back the same, through this Clipboard and another
// one (the clipboard is the desktop's), with its length in code points; text the
// clipboard cannot hold is refused and leaves it as it was.
func testClipboard(ctx context.Context, t *testing.T, d desktop.Desktop, c desktop.Clipboard) {
	other := open(t, config{}, Clipboard, d.OpenClipboard)
	for _, text := range []string{
		"plain ASCII",
		"Grüße, 東京 ✓",
		"𝄞 outside the BMP 🎉", // two UTF-16 units each on Windows, one code point each
		"line one\nline two\n\ttabbed",
		"x",
	} {
		n, err := c.Write(ctx, text)
		if err != nil {
			t.Fatalf("Write(%q): %v", text, err)
		}
		if want := utf8.RuneCountInString(text); n != want {
			t.Fatalf("Write(%q) = %d, want its length in code points, %d", text, n, want)
		}
		for name, r := range map[string]desktop.Clipboard{"the writer": c, "another Clipboard": other} {
			got, err := r.Read(ctx)
			if err != nil {
				t.Fatalf("Read through %s after Write(%q): %v", name, text, err)
			}
			if want := (desktop.ClipboardContent{Format: "text", Text: text, MIMEType: "text/plain;charset=utf-8"}); got != want {
				t.Fatalf("Read through %s after Write(%q) = %+v, want %+v", name, text, got, want)
			}
		}
	}
	const kept = "kept by desktoptest"
	if _, err := other.Write(ctx, kept); err != nil {
		t.Fatalf("Write(%q) through another Clipboard: %v", kept, err)
	}
	for _, bad := range []string{"NUL \x00 inside", "not UTF-8 \xff\xfe"} {
		n, err := c.Write(ctx, bad)
		wantCode(t, err, werr.InvalidArgument, "Write of "+`"`+bad+`"`)
		if n != 0 {
			t.Fatalf("Write(%q) failed but reported %d code points", bad, n)
		}
		if got, err := c.Read(ctx); err != nil || got.Text != kept {
			t.Fatalf("Read after the refused Write(%q) = %+v, %v; want the clipboard unchanged, %q", bad, got, err, kept)
		}
	}
	n, err := c.Write(cancelled(), "never written")
	wantCode(t, err, werr.Cancelled, "Write with a cancelled context")
	if n != 0 {
		t.Fatalf("Write with a cancelled context failed but reported %d code points", n)
	}
	if got, err := c.Read(ctx); err != nil || got.Text != kept {
		t.Fatalf("Read after a cancelled Write = %+v, %v; want %q", got, err, kept)
	}
	if got, err := c.Read(cancelled()); werr.CodeOf(err) != werr.Cancelled || got != (desktop.ClipboardContent{}) {
		t.Fatalf("Read with a cancelled context = %+v, %v; want nothing and CANCELLED", got, err)
	}
}
