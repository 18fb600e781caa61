package commands

import (
	"context"
	"fmt"

	"github.com/w365/w365/engine/clipboard"
	"github.com/w365/w365/engine/input"
	"github.com/w365/w365/engine/session"
)

// clipboardOf is the session's clipboard; the host owns the selection, so what it
// writes stays pasteable after the CLI process that asked has exited.
func clipboardOf(env *Env) (*clipboard.Clipboard, error) {
	return session.Use(env.Session, "clipboard", func(s *session.Session) (*clipboard.Clipboard, error) {
		return clipboard.Open(s.Desktop.Name)
	})
}

// pasteText adapts the clipboard to what type_text's paste needs.
type pasteText struct {
	ctx context.Context
	c   *clipboard.Clipboard
}

func (p pasteText) Read() (string, bool, error) {
	r, err := p.c.Read(p.ctx)
	return r.Text, err == nil && r.Format == "text", err
}

func (p pasteText) Write(text string) error {
	_, err := p.c.Write(p.ctx, text)
	return err
}

func pasteClipboard(ctx context.Context, env *Env) (input.Clipboard, error) {
	c, err := clipboardOf(env)
	if err != nil {
		return nil, err
	}
	return pasteText{ctx, c}, nil
}

// ClipboardWriteIn is clipboard_write's input.
type ClipboardWriteIn struct {
	Text string `json:"text" jsonschema:"text to put on the clipboard, replacing what is there"`
}

// ClipboardWriteOut confirms the write.
type ClipboardWriteOut struct {
	Characters int `json:"characters" jsonschema:"number of characters (Unicode code points) written"`
}

func (o ClipboardWriteOut) Text() string { return fmt.Sprintf("%d characters copied", o.Characters) }

func init() {
	register(
		Define(Tool{
			Name: "clipboard_read", Legacy: []string{"mcp_desktop_clipboard_read"}, Aliases: []string{"paste"},
			Summary: "Read the clipboard: text, or an image as base64 PNG",
			Long:    "Returns {format: text|image|empty, text?, imageBase64?, mimeType?}.",
			Example: "  $ w365 clipboard-read\n  $ w365 clipboard-read --json | jq -r .text",
			Toolset: "desktop", Annotations: Observe,
		}, func(ctx context.Context, env *Env, _ None) (clipboard.ReadResult, error) {
			c, err := clipboardOf(env)
			if err != nil {
				return clipboard.ReadResult{}, err
			}
			return c.Read(ctx)
		}),
		Define(Tool{
			Name: "clipboard_write", Legacy: []string{"mcp_desktop_clipboard_write"}, Aliases: []string{"copy"},
			Summary: "Put text on the clipboard",
			Long: "Replaces the clipboard with text. The session's host owns the selection, so other\n" +
				"applications can paste it after this command has exited.",
			Example: "  $ w365 clipboard-write 'hello'",
			Toolset: "desktop", Args: []string{"text"},
			Annotations: Annotations{ReadOnly: No, Destructive: No, Idempotent: Yes, OpenWorld: No},
		}, func(ctx context.Context, env *Env, in ClipboardWriteIn) (ClipboardWriteOut, error) {
			c, err := clipboardOf(env)
			if err != nil {
				return ClipboardWriteOut{}, err
			}
			n, err := c.Write(ctx, in.Text)
			return ClipboardWriteOut{n}, err
		}),
	)
}
