package commands

import (
	"context"
	"fmt"
	"image"
	"strings"
	"time"

	"github.com/w365/w365/commands/tool"
	"github.com/w365/w365/engine/desktop"
	"github.com/w365/w365/engine/session"
	"github.com/w365/w365/engine/werr"
)

// desktopTools are the tools of the desktop toolset, in the order help lists them.
var desktopTools = []*tool.Tool{
	MoveMouse,
	Click,
	GetCursorPosition,
	DragMouse,
	Scroll,
	TypeText,
	PressKeys,
	WaitMilliseconds,
	ClipboardRead,
	ClipboardWrite,
}

// inputOf is the session's keyboard and mouse.
func inputOf(env *tool.Env) (desktop.Input, error) {
	return session.Use(env.Session, "input", func(s *session.Session) (desktop.Input, error) {
		return s.Desktop.OpenInput(env.Policy)
	})
}

// Point is a screen position.
type Point struct {
	X int `json:"x"`
	Y int `json:"y"`
}

// CursorOut is where the cursor is.
type CursorOut struct {
	CursorX int `json:"cursorX"`
	CursorY int `json:"cursorY"`
}

func (o CursorOut) Text() string { return fmt.Sprintf("%d %d", o.CursorX, o.CursorY) }

// None is the input of tools without parameters.
type None struct{}

// ClickIn is click's input.
type ClickIn struct {
	X          *int   `json:"x,omitempty"`
	Y          *int   `json:"y,omitempty"`
	Button     string `json:"button,omitempty" w365:"enum=Left|Right|Middle|Forward|Backward,default=Left"`
	ClickCount int    `json:"clickCount,omitempty" w365:"min=1,max=2,default=1"`
}

// ClickOut says what was clicked.
type ClickOut struct {
	X          int    `json:"x"`
	Y          int    `json:"y"`
	Button     string `json:"button"`
	ClickCount int    `json:"clickCount"`
	// handled is how the wait for the application to handle the click ended; the text says
	// it when the wait was long (handledNoted) or ran out.
	handled desktop.Handled
}

// handledNoted is how long a click's wait for its application is before the text says it.
const handledNoted = 500 * time.Millisecond

func (o ClickOut) Text() string {
	s := fmt.Sprintf("clicked %s x%d at %d,%d", o.Button, o.ClickCount, o.X, o.Y)
	if o.handled.Window != "" {
		s += fmt.Sprintf(" in %q", o.handled.Window)
	}
	waited := o.handled.Waited.Round(100 * time.Millisecond)
	switch {
	case o.handled.Late:
		s += fmt.Sprintf("; the application had not handled it after %s (busy or hung): what the click does may show later, look again before acting on it", waited)
	case o.handled.Waited >= handledNoted:
		s += fmt.Sprintf("; the application handled it after %s (busy)", waited)
	}
	return s
}

// DragIn is drag_mouse's input.
type DragIn struct {
	StartX int    `json:"startX"`
	StartY int    `json:"startY"`
	EndX   int    `json:"endX"`
	EndY   int    `json:"endY"`
	Button string `json:"button,omitempty" w365:"enum=Left|Right|Middle,default=Left"`
}

// DragOut echoes the drag.
type DragOut struct {
	StartX int    `json:"startX"`
	StartY int    `json:"startY"`
	EndX   int    `json:"endX"`
	EndY   int    `json:"endY"`
	Button string `json:"button"`
}

// ScrollIn is scroll's input.
type ScrollIn struct {
	X      int `json:"x"`
	Y      int `json:"y"`
	DeltaX int `json:"deltaX,omitempty" jsonschema:"notches; positive scrolls right" w365:"default=0"`
	DeltaY int `json:"deltaY,omitempty" jsonschema:"notches; positive scrolls down; 3 = a page" w365:"default=0"`
}

// ScrollOut says which notches were sent.
type ScrollOut struct {
	X       int  `json:"x"`
	Y       int  `json:"y"`
	DeltaX  int  `json:"deltaX"`
	DeltaY  int  `json:"deltaY"`
	Clamped bool `json:"clamped"`
}

// TypeIn is type_text's input.
type TypeIn struct {
	Text     string `json:"text" jsonschema:"newline = Enter, tab = Tab; at most 20000 characters (262144 with usePaste)" w365:"maxLength=262144"`
	UsePaste bool   `json:"usePaste,omitempty" jsonschema:"paste via the clipboard (ctrl+v)" w365:"default=false"`
}

// maxTypedChars bounds type_text without usePaste (and the browser's typing tools, whose schema
// says the same number): at a few hundred keystrokes a second, 20,000 characters hold the session
// for about a minute; longer text goes through the clipboard.
const maxTypedChars = 20000

// TypeOut counts what was typed.
type TypeOut struct {
	Characters int    `json:"characters"`
	Method     string `json:"method"`
	// Note says when the accessibility tree read after typing shows the text did not land
	// (commands/typefocus.go); text only, as the output schema has no room for it.
	Note string `json:"note,omitempty"`
}

// KeysIn is press_keys's input.
type KeysIn struct {
	Keys []string `json:"keys" jsonschema:"pressed together, e.g. [\"ctrl\",\"s\"]" w365:"minItems=1,maxItems=8"`
}

// KeysOut echoes the chord.
type KeysOut struct {
	Keys []string `json:"keys"`
	// Note says where the keys went when that was not where the last click landed
	// (commands/typefocus.go); text only, as the output schema has no room for it.
	Note string `json:"note,omitempty"`
}

func (o KeysOut) Text() string {
	s := "pressed " + strings.Join(o.Keys, "+")
	if o.Note != "" {
		s += "\nnote: " + o.Note
	}
	return s
}

// WaitIn is wait_milliseconds's input.
type WaitIn struct {
	Ms int `json:"ms"`
}

// WaitOut says how long the wait was.
type WaitOut struct {
	WaitedMs int  `json:"waitedMs"`
	Clamped  bool `json:"clamped"`
}

// MoveMouse is the tool move_mouse (w365 move-mouse).
var MoveMouse = tool.Define(tool.Tool{
	Name: "move_mouse", Legacy: []string{"mcp_desktop_move_mouse"}, Aliases: []string{"move"},
	Summary: "Move the cursor to screen pixel (x, y)",
	Long: "Moves the cursor to (x, y) in screen pixels. To click there, use click instead.\n" +
		"Refused with FAILSAFE when the target lies within 5 px of a screen corner.",
	Example:     "  $ w365 move-mouse 640 400\n  $ w365 move --x 10 --y 500 --json",
	Args:        []string{"x", "y"},
	Annotations: tool.Set,
}, func(ctx context.Context, env *tool.Env, in Point) (CursorOut, error) {
	c, err := inputOf(env)
	if err != nil {
		return CursorOut{}, err
	}
	if err := c.Move(ctx, in.X, in.Y); err != nil {
		return CursorOut{}, err
	}
	x, y, err := c.CursorPosition()
	return CursorOut{x, y}, err
})

// Click is the tool click (w365 click).
var Click = tool.Define(tool.Tool{
	Name: "click", Legacy: []string{"mcp_desktop_click"},
	Summary: "Click at screen pixel (x, y), or at the cursor when both are omitted",
	Long: "Clicks at (x, y), or at the current cursor position when both are omitted. Buttons: Left, Right,\n" +
		"Middle, Forward, Backward (X11 buttons 1, 3, 2, 9, 8); clickCount 2 is one double click.\n" +
		"Refused with FAILSAFE near screen corners (see move_mouse).",
	Example: "  $ w365 click 100 200\n  $ w365 click --button Right\n  $ w365 click 300 300 --click-count 2",
	Args:    []string{"x", "y"}, Annotations: tool.Act,
}, func(ctx context.Context, env *tool.Env, in ClickIn) (ClickOut, error) {
	if (in.X == nil) != (in.Y == nil) {
		return ClickOut{}, werr.Invalid("give both x and y, or neither to click at the cursor")
	}
	c, err := inputOf(env)
	if err != nil {
		return ClickOut{}, err
	}
	handled, err := c.Click(ctx, in.X, in.Y, in.Button, in.ClickCount)
	if err != nil {
		sentInput(env, nil)
		return ClickOut{}, err
	}
	x, y, err := c.CursorPosition()
	var at *image.Point
	if err == nil {
		at = &image.Point{x, y}
	}
	sentInput(env, at)
	return ClickOut{X: x, Y: y, Button: in.Button, ClickCount: in.ClickCount, handled: handled}, err
})

// GetCursorPosition is the tool get_cursor_position (w365 get-cursor-position).
var GetCursorPosition = tool.Define(tool.Tool{
	Name: "get_cursor_position", Legacy: []string{"mcp_desktop_get_cursor_position"}, Aliases: []string{"cursor"},
	Summary:     "Read the mouse cursor position",
	Long:        "Returns {cursorX, cursorY} in screen pixels.",
	Example:     "  $ w365 get-cursor-position\n  $ w365 cursor --json",
	Annotations: tool.Observe,
}, func(ctx context.Context, env *tool.Env, _ None) (CursorOut, error) {
	c, err := inputOf(env)
	if err != nil {
		return CursorOut{}, err
	}
	x, y, err := c.CursorPosition()
	return CursorOut{x, y}, err
})

// DragMouse is the tool drag_mouse (w365 drag-mouse).
var DragMouse = tool.Define(tool.Tool{
	Name: "drag_mouse", Legacy: []string{"mcp_desktop_drag_mouse"}, Aliases: []string{"drag"},
	Summary: "Drag with a button held from one screen point to another",
	Long: "Drags from (startX, startY) to (endX, endY) in small steps, ending exactly on the end point.\n" +
		"The button is always released, even when something fails midway. Refused with FAILSAFE\n" +
		"before anything is pressed when any point of the path lies near a screen corner.",
	Example:     "  $ w365 drag-mouse --start-x 100 --start-y 100 --end-x 400 --end-y 100",
	Annotations: tool.Act,
}, func(ctx context.Context, env *tool.Env, in DragIn) (DragOut, error) {
	c, err := inputOf(env)
	if err != nil {
		return DragOut{}, err
	}
	err = c.Drag(ctx, in.StartX, in.StartY, in.EndX, in.EndY, in.Button)
	sentInput(env, nil)
	return DragOut(in), err
})

// Scroll is the tool scroll (w365 scroll).
var Scroll = tool.Define(tool.Tool{
	Name: "scroll", Legacy: []string{"mcp_desktop_scroll"},
	Summary: "Turn the mouse wheel at (x, y), in notches",
	Long: "Sends real wheel events at (x, y): deltaY > 0 scrolls down, deltaX > 0 scrolls right. Each delta\n" +
		"is clamped to [-20, 20] notches (about 3 notches make a page); the result says when it was.",
	Example: "  $ w365 scroll 500 400 --delta-y 3\n  $ w365 scroll 500 400 --delta-x -2",
	Args:    []string{"x", "y"}, Annotations: tool.Act,
}, func(ctx context.Context, env *tool.Env, in ScrollIn) (ScrollOut, error) {
	c, err := inputOf(env)
	if err != nil {
		return ScrollOut{}, err
	}
	r, err := c.Scroll(ctx, in.X, in.Y, in.DeltaX, in.DeltaY)
	return ScrollOut{X: in.X, Y: in.Y, DeltaX: r.AppliedDX, DeltaY: r.AppliedDY, Clamped: r.Clamped}, err
})

// TypeText is the tool type_text (w365 type-text).
var TypeText = tool.Define(tool.Tool{
	Name: "type_text", Legacy: []string{"mcp_desktop_type_text"}, Aliases: []string{"type"},
	Summary: "Type text into the focused window",
	Long: "Types any Unicode text (accents, CJK, emoji); newlines press Enter and tabs press Tab.\n" +
		"At most 20,000 characters are typed as keys; with usePaste (up to 262,144) the text goes\n" +
		"through the clipboard and ctrl+v, and the previous clipboard is restored. Use press_keys for shortcuts and browser_type for web form fields.\n" +
		"Within a second of a click or key, it first waits (for the rest of that second at most) for\n" +
		"the keyboard focus to leave a button or box, and its note says when the focused element\n" +
		"does not read the text typed (docs/accessibility.md#keys-and-the-focus).",
	Example: "  $ w365 type-text 'Grüße, 東京'\n  $ w365 type --use-paste \"$(cat notes.txt)\"",
	Args:    []string{"text"}, Annotations: tool.Act, InText: []string{"note"},
}, func(ctx context.Context, env *tool.Env, in TypeIn) (TypeOut, error) {
	n := len([]rune(in.Text))
	if n > maxTypedChars && !in.UsePaste {
		return TypeOut{}, werr.Invalid("text has %d characters; type_text types at most %d as keys", n, maxTypedChars).
			WithHint("pass usePaste to paste up to 262144 characters")
	}
	c, err := inputOf(env)
	if err != nil {
		return TypeOut{}, err
	}
	f := settleFocus(ctx, env, true)
	out := TypeOut{Characters: n, Method: "keys"}
	if in.UsePaste {
		var clip desktop.TextClipboard
		if clip, err = pasteClipboard(ctx, env); err != nil {
			return TypeOut{}, err
		}
		out.Method = "paste"
		err = c.TypePaste(ctx, in.Text, clip)
	} else {
		err = c.TypeText(ctx, in.Text)
	}
	if strings.ContainsAny(in.Text, "\n\t") {
		// Enter and Tab may move the focus; other keys leave it where it is.
		sentInput(env, nil)
	}
	if err != nil {
		return out, err
	}
	// Read again only when the focus was not seen on an element that takes text (doing it
	// always would double the cost of the common case).
	if f.read && !f.settled {
		out.Note = landedNote(ctx, env, in.Text)
	}
	return out, nil
})

// PressKeys is the tool press_keys (w365 press-keys).
var PressKeys = tool.Define(tool.Tool{
	Name: "press_keys", Legacy: []string{"mcp_desktop_press_keys"}, Aliases: []string{"keys", "key"},
	Summary: "Press a key chord such as ctrl+c (at most 8 keys)",
	Long: "Presses the keys together and releases them in reverse order; they are always released.\n" +
		"Names: ctrl/control, shift, alt, meta/win/super/cmd, F1-F24, arrows (up, down, left, right),\n" +
		"enter/return, escape/esc, tab, backspace, delete, home, end, pageup, pagedown, space, insert,\n" +
		"printscreen, capslock, letters, digits and punctuation. An unknown name is INVALID_ARGUMENT\n" +
		"with the nearest known names.\n" +
		"Within a second of a click, it first waits (for the rest of that second at most) for the\n" +
		"keyboard focus to leave the button or box clicked, and its note says when the keys went\n" +
		"to another element than the one clicked (docs/accessibility.md#keys-and-the-focus).",
	Example: "  $ w365 press-keys ctrl c\n  $ w365 keys ctrl shift s\n  $ w365 press-keys --keys alt --keys tab",
	Args:    []string{"keys"}, Annotations: tool.Act, InText: []string{"note"},
}, func(ctx context.Context, env *tool.Env, in KeysIn) (KeysOut, error) {
	c, err := inputOf(env)
	if err != nil {
		return KeysOut{}, err
	}
	f := settleFocus(ctx, env, false)
	err = c.PressKeys(ctx, in.Keys)
	sentInput(env, nil)
	return KeysOut{Keys: in.Keys, Note: f.keysNote()}, err
})

// WaitMilliseconds is the tool wait_milliseconds (w365 wait-milliseconds).
var WaitMilliseconds = tool.Define(tool.Tool{
	Name: "wait_milliseconds", Legacy: []string{"mcp_desktop_wait_milliseconds"}, Aliases: []string{"wait", "sleep"},
	Summary: "Wait for an animation to finish (at most 5000 ms)",
	Long: "Waits ms milliseconds, clamped to [0, 5000]. Not for polling: use browser_wait_for to wait for\n" +
		"page content.",
	Example:     "  $ w365 wait-milliseconds 500",
	Args:        []string{"ms"},
	Annotations: tool.Observe,
}, func(ctx context.Context, env *tool.Env, in WaitIn) (WaitOut, error) {
	ms := min(max(in.Ms, 0), env.Policy.WaitMaxMs)
	select {
	case <-time.After(time.Duration(ms) * time.Millisecond):
	case <-ctx.Done():
		return WaitOut{}, werr.Wrap(ctx.Err(), werr.Cancelled, "wait cancelled")
	}
	return WaitOut{WaitedMs: ms, Clamped: ms != in.Ms}, nil
})

// clipboardOf is the session's clipboard; the host owns the selection, so what it
// writes stays pasteable after the CLI process that asked has exited.
func clipboardOf(env *tool.Env) (desktop.Clipboard, error) {
	return session.Use(env.Session, "clipboard", func(s *session.Session) (desktop.Clipboard, error) {
		return s.Desktop.OpenClipboard()
	})
}

// pasteText adapts the clipboard to what type_text's paste needs.
type pasteText struct {
	ctx context.Context
	c   desktop.Clipboard
}

func (p pasteText) Read() (string, bool, error) {
	r, err := p.c.Read(p.ctx)
	return r.Text, err == nil && r.Format == "text", err
}

func (p pasteText) Write(text string) error {
	_, err := p.c.Write(p.ctx, text)
	return err
}

func pasteClipboard(ctx context.Context, env *tool.Env) (desktop.TextClipboard, error) {
	c, err := clipboardOf(env)
	if err != nil {
		return nil, err
	}
	return pasteText{ctx, c}, nil
}

// ClipboardWriteIn is clipboard_write's input.
type ClipboardWriteIn struct {
	Text string `json:"text"`
}

// ClipboardWriteOut confirms the write.
type ClipboardWriteOut struct {
	Characters int `json:"characters"`
}

func (o ClipboardWriteOut) Text() string { return fmt.Sprintf("%d characters copied", o.Characters) }

// ClipboardRead is the tool clipboard_read (w365 clipboard-read).
var ClipboardRead = tool.Define(tool.Tool{
	Name: "clipboard_read", Legacy: []string{"mcp_desktop_clipboard_read"}, Aliases: []string{"paste"},
	Summary:     "Read the clipboard: text, or an image as base64 PNG",
	Long:        "Returns {format: text|image|empty, text?, imageBase64?, mimeType?}.",
	Example:     "  $ w365 clipboard-read\n  $ w365 clipboard-read --json | jq -r .text",
	Annotations: tool.Observe,
}, func(ctx context.Context, env *tool.Env, _ None) (ClipboardOut, error) {
	c, err := clipboardOf(env)
	if err != nil {
		return ClipboardOut{}, err
	}
	content, err := c.Read(ctx)
	return ClipboardOut{content}, err
})

// ClipboardOut is what the clipboard holds; its human form is the text itself.
type ClipboardOut struct{ desktop.ClipboardContent }

func (o ClipboardOut) Text() string {
	switch o.Format {
	case "text":
		return o.ClipboardContent.Text
	case "image":
		return fmt.Sprintf("(an image, %s; --json gives it as base64)", o.MIMEType)
	}
	return ""
}

// ClipboardWrite is the tool clipboard_write (w365 clipboard-write).
var ClipboardWrite = tool.Define(tool.Tool{
	Name: "clipboard_write", Legacy: []string{"mcp_desktop_clipboard_write"}, Aliases: []string{"copy"},
	Summary: "Put text on the clipboard",
	Long: "Replaces the clipboard with text. The session's host owns the selection, so other\n" +
		"applications can paste it after this command has exited.",
	Example:     "  $ w365 clipboard-write 'hello'",
	Args:        []string{"text"},
	Annotations: tool.Set,
}, func(ctx context.Context, env *tool.Env, in ClipboardWriteIn) (ClipboardWriteOut, error) {
	c, err := clipboardOf(env)
	if err != nil {
		return ClipboardWriteOut{}, err
	}
	n, err := c.Write(ctx, in.Text)
	return ClipboardWriteOut{n}, err
})
